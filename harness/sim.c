/* sim.c - simulated cache counters with callgrind, for machines without a PMU (and for
 * deterministic counts on any machine).
 *
 * The parent re-executes `dodbench run ...` (as build/dodbench-sim: the same sources
 * compiled without AVX-512, which valgrind 3.19 cannot decode) as
 *   valgrind --tool=callgrind --cache-sim=yes --collect-atstart=no [--D1=..] [--LL=..]
 * with --counters callgrind --sim-child and a private CSV. In the child, hb_begin/hb_end
 * zero the counters, switch collection on and off around each timed region only (setup
 * and verification are not counted, but they do warm the simulated caches, as they warm
 * the real ones) and dump the stats with the trigger "dodbench-region-<seq>". The child
 * cannot read the counts, so its rows carry a token "@cg<seq>@" in sim_ir.
 *
 * The parent merges while the child runs, so that a kill -9 of dodbench loses at most the
 * repetition in flight, as without callgrind. It sleeps until the child's directory
 * changes (inotify; a poll timeout where that is missing) or the child ends (its pidfd),
 * then reads the new whole lines of the child's CSV. A row is written after its region's
 * dump is closed (region end -> dump -> verification -> row), so the dump is there to be
 * read: the parent replaces the token and the eight empty fields after it with Ir, Dr, Dw,
 * D1mr, D1mw, DLmr, DLmw and the D1 and LL geometry and hands the row to its reporters
 * (report.h): the CSV writer appends it to the user's CSV in one write, the callgrind
 * summary takes its counts. Counts are deterministic for the same binary, arguments and environment:
 * the parent only reads what the child writes.
 *
 * Temporary files. Everything lives in ${TMPDIR:-/tmp}/dodbench-<uid>, a directory of this
 * user's with mode 0700 (created so; anything else there, a symbolic link, another owner
 * or mode, is refused), so no other user can plant or swap what the run writes or what
 * the cleaner removes. Each run makes dodbench-cg-<pid>-XXXXXX in it (mkdtemp) for
 * child.csv, valgrind.log and the dumps cg.<pid>.<n> (each removed once read), and a file
 * "lock" whose flock it holds for its whole life (make_lock). The directory of a dodbench
 * killed with -9 is removed by the next callgrind run: only in that parent, only a
 * directory this user owns whose lock it can take without waiting (a PID would not do: a
 * live run in another PID namespace sharing TMPDIR has a PID kill(2) cannot see here),
 * never through a symbolic link (fstatat with AT_SYMLINK_NOFOLLOW, openat with O_NOFOLLOW,
 * unlinkat). valgrind expands '%' in file names (%p, %q{VAR}, %%): the paths it is given
 * have every '%' doubled (vg_escape).
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/inotify.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "report.h"
#include "run.h"

struct sim_counts {
	bool have;
	unsigned long long v[HB_N_SIM]; /* Ir Dr Dw D1mr D1mw DLmr DLmw */
};

static const char *const sim_events[HB_N_SIM] = {"Ir", "Dr", "Dw", "D1mr", "D1mw", "DLmr", "DLmw"};

static bool on_path(const char *prog)
{
	const char *path = getenv("PATH");
	char buf[4096];
	while (path && *path) {
		size_t len = strcspn(path, ":");
		snprintf(buf, sizeof buf, "%.*s/%s", (int)len, path, prog);
		if (access(buf, X_OK) == 0)
			return true;
		path += len + (path[len] == ':');
	}
	return false;
}

/* "desc: D1 cache: 49152 B, 64 B, 12-way associative" -> "49152:12:64"; valgrind also
 * writes "direct-mapped" (1 way; e.g. a VM's 256 MiB L3) and "fully associative" (size /
 * line ways). Anything else leaves out unchanged ("unknown"). */
static void geometry(const char *desc, char *out, size_t len)
{
	unsigned long long size, line, assoc;
	int used = 0;
	if (sscanf(desc, "%llu B, %llu B, %n", &size, &line, &used) < 2 || !used || !line)
		return;
	const char *rest = desc + used;
	if (sscanf(rest, "%llu-way", &assoc) == 1)
		;
	else if (strncmp(rest, "direct-mapped", 13) == 0)
		assoc = 1;
	else if (strncmp(rest, "fully associative", 17) == 0)
		assoc = size / line;
	else
		return;
	snprintf(out, len, "%llu:%llu:%llu", size, assoc, line);
}

/* Callgrind's totals line (after "totals: ") by its events line (after "events: "): Ir,
 * Dr, Dw, D1mr, D1mw, DLmr and DLmw go to v. Trailing zero counts are omitted from the
 * line: missing means 0. Both strings are cut up. */
static void parse_totals(char *events, char *totals, unsigned long long *v)
{
	char *ev_save, *val_save, *ev = strtok_r(events, " \n", &ev_save);
	char *val = strtok_r(totals, " \n", &val_save);
	for (; ev; ev = strtok_r(NULL, " \n", &ev_save)) {
		unsigned long long x = val ? strtoull(val, NULL, 10) : 0;
		for (int i = 0; i < HB_N_SIM; i++)
			if (strcmp(ev, sim_events[i]) == 0)
				v[i] = x;
		if (val)
			val = strtok_r(NULL, " \n", &val_save);
	}
}

/* One dump file: its region number (0: a dump that is not a region's, such as the one at
 * exit), counts and cache geometry. */
struct dump {
	unsigned long long seq;
	struct sim_counts c;
	char d1[64], ll[64];
};

/* Reads the dump file name of the directory dir_fd (not through a symbolic link) into
 * *dp. Returns true when the file is complete: its totals line, the last callgrind
 * writes, was read whole, newline included (a line cut short belongs to an incomplete
 * file, which is not used). False for a file callgrind is still writing (or that cannot
 * be read): a later scan reads it again. */
static bool read_dump(int dir_fd, const char *name, struct dump *dp)
{
	int fd = openat(dir_fd, name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	FILE *f = fd >= 0 ? fdopen(fd, "r") : NULL;
	if (!f) {
		if (fd >= 0)
			close(fd);
		return false;
	}
	char line[4096], events[512] = "";
	memset(dp, 0, sizeof *dp);
	snprintf(dp->d1, sizeof dp->d1, "unknown");
	snprintf(dp->ll, sizeof dp->ll, "unknown");
	for (bool starts = true; fgets(line, sizeof line, f);) {
		bool whole = strchr(line, '\n') != NULL, starts_line = starts;
		starts = whole;
		if (!starts_line) /* the rest of a line longer than the buffer (cmd: ...) */
			continue;
		if (strncmp(line, "desc: D1 cache: ", 16) == 0)
			geometry(line + 16, dp->d1, sizeof dp->d1);
		else if (strncmp(line, "desc: LL cache: ", 16) == 0)
			geometry(line + 16, dp->ll, sizeof dp->ll);
		else if (strncmp(line, "desc: Trigger: Client Request: dodbench-region-", 47) == 0)
			dp->seq = strtoull(line + 47, NULL, 10);
		else if (strncmp(line, "events: ", 8) == 0)
			snprintf(events, sizeof events, "%.500s", line + 8);
		else if (strncmp(line, "totals: ", 8) == 0 && events[0] && whole) {
			parse_totals(events, line + 8, dp->c.v);
			dp->c.have = true;
		}
	}
	fclose(f);
	return dp->c.have;
}

/* A stream over the entries of the directory dir_fd, with its own offset (dir_fd stays
 * usable), or NULL. */
static DIR *dir_stream(int dir_fd)
{
	int fd = openat(dir_fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	DIR *d = fd >= 0 ? fdopendir(fd) : NULL;
	if (!d && fd >= 0)
		close(fd);
	return d;
}

/* Per-case summary: medians per operation (region count / ops) of simulated Ir, D1 misses and LL misses. */
struct sim_case {
	char name[512];
	double *ir, *d1, *ll;
	size_t n;
};

/* One line per case, "NAME Ir I  D1 misses D  LL misses L", every column as wide as its
 * widest cell (at least as wide as it always was). */
static void print_summary(struct sim_case *cases, size_t n_cases, const char *d1, const char *ll)
{
	printf("simulated caches (callgrind; D1 %s, LL %s as size:assoc:line), medians per operation:\n",
	       d1, ll);
	int w[4] = {0, 10, 8, 8};
	char fig[3][40];
	for (int pass = 0; pass < 2; pass++)
		for (size_t i = 0; i < n_cases; i++) {
			struct sim_case *c = &cases[i];
			snprintf(fig[0], sizeof fig[0], "%.2f", hb_median_sort(c->ir, c->n));
			snprintf(fig[1], sizeof fig[1], "%.4f", hb_median_sort(c->d1, c->n));
			snprintf(fig[2], sizeof fig[2], "%.4f", hb_median_sort(c->ll, c->n));
			if (pass) {
				printf("%-*s Ir %*s  D1 misses %*s  LL misses %*s\n", w[0], c->name, w[1],
				       fig[0], w[2], fig[1], w[3], fig[2]);
				continue;
			}
			w[0] = (int)strlen(c->name) > w[0] ? (int)strlen(c->name) : w[0];
			for (int f = 0; f < 3; f++)
				w[f + 1] = (int)strlen(fig[f]) > w[f + 1] ? (int)strlen(fig[f]) : w[f + 1];
		}
}

/* Column positions we need, found by name in the header (with the case's: row_columns). */
enum { C_SIM_IR, C_SIM_D1MR, C_SIM_D1MW, C_SIM_DLMR, C_SIM_DLMW, C_OPS, C_N_COLS };
static const char *const col_names[C_N_COLS] = {"sim_ir", "sim_d1mr", "sim_d1mw", "sim_dlmr",
                                                "sim_dlmw", "ops"};

/* The columns of a row's case (scenario, container, the axes; axes.c) in the header
 * line's nf fields, then those of col_names. Returns 0 or -1 (one missing). */
static int row_columns(struct hb_case_columns *cc, int *col, char **f, size_t nf)
{
	const char *missing;
	return hb_case_columns_find(cc, f, nf, &missing) == 0 &&
	       hb_csv_columns(f, nf, col_names, C_N_COLS, col) < 0 ? 0 : -1;
}

/* The callgrind summary, a reporter (report.h) of the merged rows: per case the medians
 * per operation of Ir, D1 and LL misses, read from the rows' sim_* and ops columns. */
struct sim_summary {
	bool have_cols;            /* the header named every column we need */
	int col[C_N_COLS];
	struct hb_case_columns cc; /* the case's columns (axes.c) */
	struct sim_case *cases;
	size_t n_cases;
	const char *d1, *ll;       /* cache geometry, size:assoc:line (the merge's) */
	bool quiet;
};

/* The parent's merge of the child's rows, while the child runs. */
struct merge {
	const char *dir;           /* the run's temporary directory */
	int dir_fd;
	int csv_fd;                /* the child's CSV; -1 until it exists */
	char *pending;             /* bytes read from it that are not yet a whole line */
	size_t n_pending, cap;
	bool have_header;
	struct sim_counts *by_seq; /* counts by region number */
	size_t n_seq;
	char d1[64], ll[64];       /* cache geometry, size:assoc:line */
	FILE *out;                 /* the user's --out, or NULL */
	int out_errno;             /* a row could not be written: the merge stops */
	size_t out_failed;         /* the reporter that could not write it */
	size_t rows, missing;      /* rows written to out; rows without counts */
	struct sim_summary sum;
	struct hb_reporter csv, summary; /* the merged rows go to each of reporters */
	struct hb_reporter *reporters[2];
	size_t n_reporters;
};

static bool have_counts(const struct merge *m, unsigned long long seq)
{
	return seq < m->n_seq && m->by_seq[seq].have;
}

/* Keeps a dump's counts under its region number. Returns false when out of memory. */
static bool keep_dump(struct merge *m, const struct dump *dp)
{
	if (dp->seq == 0) /* not a region's */
		return true;
	if (dp->seq >= m->n_seq) {
		if (dp->seq >= SIZE_MAX / (2 * sizeof *m->by_seq))
			return false;
		size_t n = m->n_seq ? m->n_seq : 64;
		while (n <= dp->seq)
			n *= 2;
		struct sim_counts *grown = realloc(m->by_seq, n * sizeof *grown);
		if (!grown)
			return false;
		memset(grown + m->n_seq, 0, (n - m->n_seq) * sizeof *grown);
		m->by_seq = grown;
		m->n_seq = n;
	}
	m->by_seq[dp->seq] = dp->c;
	snprintf(m->d1, sizeof m->d1, "%s", dp->d1);
	snprintf(m->ll, sizeof m->ll, "%s", dp->ll);
	return true;
}

/* Reads every complete dump file in the directory and removes it, so the directory
 * holds only the dumps not read yet and a scan stays short. */
static void take_dumps(struct merge *m)
{
	DIR *d = dir_stream(m->dir_fd);
	for (struct dirent *e; d && (e = readdir(d));) {
		struct dump dp;
		if (strncmp(e->d_name, "cg.", 3) == 0 && read_dump(m->dir_fd, e->d_name, &dp) &&
		    keep_dump(m, &dp))
			unlinkat(m->dir_fd, e->d_name, 0);
	}
	if (d)
		closedir(d);
}

/* The case of the name, added if new; NULL when out of memory. */
static struct sim_case *find_case(struct sim_summary *m, const char *name)
{
	for (size_t i = 0; i < m->n_cases; i++)
		if (strcmp(m->cases[i].name, name) == 0)
			return &m->cases[i];
	struct sim_case *grown = realloc(m->cases, (m->n_cases + 1) * sizeof *grown);
	if (!grown)
		return NULL;
	m->cases = grown;
	struct sim_case *c = &m->cases[m->n_cases++];
	memset(c, 0, sizeof *c);
	snprintf(c->name, sizeof c->name, "%s", name);
	return c;
}

/* The summary reporter's row: adds a merged row to its case's figures per operation. */
static int summary_row(struct hb_reporter *self, const struct hb_row *row, const char *line)
{
	struct sim_summary *m = self->state;
	char *copy = strdup(line), *f[128], name[sizeof m->cases->name];
	size_t nf = copy ? hb_csv_split(copy, f, 128) : 0;
	bool ok = copy && m->have_cols;
	for (int k = 0; k < C_N_COLS; k++)
		ok = ok && (size_t)m->col[k] < nf;
	struct sim_case *c = ok && hb_case_name_of_row(name, sizeof name, &m->cc, f, nf) == 0
	                             ? find_case(m, name) : NULL;
	double v[C_N_COLS];
	for (int k = 0; c && k < C_N_COLS; k++)
		v[k] = k == C_OPS ? strtod(f[m->col[k]], NULL) : (double)strtoull(f[m->col[k]], NULL, 10);
	free(copy);
	(void)row;
	if (!c)
		return 0;
	double n = v[C_OPS]; /* per operation, as ns_per_op */
	double *ir = realloc(c->ir, (c->n + 1) * sizeof *ir);
	if (ir)
		c->ir = ir;
	double *dd = realloc(c->d1, (c->n + 1) * sizeof *dd);
	if (dd)
		c->d1 = dd;
	double *dl = realloc(c->ll, (c->n + 1) * sizeof *dl);
	if (dl)
		c->ll = dl;
	if (!ir || !dd || !dl)
		return 0;
	c->ir[c->n] = v[C_SIM_IR] / n;
	c->d1[c->n] = (v[C_SIM_D1MR] + v[C_SIM_D1MW]) / n;
	c->ll[c->n] = (v[C_SIM_DLMR] + v[C_SIM_DLMW]) / n;
	c->n++;
	return 0;
}

/* The summary reporter's end: the summary, when there is a case, or nothing failed. */
static int summary_end(struct hb_reporter *self, const struct hb_run *r, int status)
{
	struct sim_summary *m = self->state;
	(void)r;
	if (m->n_cases || (!m->quiet && status <= 1))
		print_summary(m->cases, m->n_cases, m->d1, m->ll);
	return 0;
}

/* The header of the child's CSV: finds our columns. */
static void take_header(struct merge *m, char *line)
{
	char *f[128];
	size_t nf = hb_csv_split(line, f, 128);
	m->sum.have_cols = row_columns(&m->sum.cc, m->sum.col, f, nf) == 0;
	m->have_header = true;
}

/* One whole row of the child's CSV (newline included, cut up): its counts replace the
 * token, and it goes to --out in one write (see csv.c). */
static void take_row(struct merge *m, char *line)
{
	char *tok = strstr(line, "@cg");
	unsigned long long seq = tok ? strtoull(tok + 3, NULL, 10) : 0;
	char *end = tok ? strstr(tok, "@,,,,,,,,") : NULL;
	if (end && !have_counts(m, seq))
		take_dumps(m); /* its dump was closed before the row was written */
	if (!end || !have_counts(m, seq)) {
		m->missing++;
		return;
	}
	const unsigned long long *v = m->by_seq[seq].v;
	char filled[512];
	snprintf(filled, sizeof filled, "%llu,%llu,%llu,%llu,%llu,%llu,%llu,%s,%s", v[0], v[1],
	         v[2], v[3], v[4], v[5], v[6], m->d1, m->ll);
	*tok = '\0';
	size_t len = strlen(line) + strlen(filled) + strlen(end + 9) + 1;
	char *row = malloc(len);
	if (!row) {
		m->missing++;
		return;
	}
	snprintf(row, len, "%s%s%s", line, filled, end + 9);
	m->out_errno = hb_report_row(m->reporters, m->n_reporters, NULL, row, &m->out_failed);
	if (m->out && !m->out_errno)
		m->rows++;
	free(row);
}

/* Takes the whole lines of m->pending and keeps the partial last one (a row being
 * written) for later. */
static void take_lines(struct merge *m)
{
	size_t start = 0;
	for (char *nl; !m->out_errno &&
	               (nl = memchr(m->pending + start, '\n', m->n_pending - start));) {
		size_t end = (size_t)(nl - m->pending) + 1;
		char saved = m->pending[end];
		m->pending[end] = '\0';
		if (m->have_header)
			take_row(m, m->pending + start);
		else
			take_header(m, m->pending + start);
		m->pending[end] = saved;
		start = end;
	}
	memmove(m->pending, m->pending + start, m->n_pending - start);
	m->n_pending -= start;
}

/* Reads what the child's CSV has gained since the last call and merges its whole
 * lines. */
static void pump(struct merge *m)
{
	if (m->csv_fd < 0)
		m->csv_fd = openat(m->dir_fd, "child.csv", O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	while (m->csv_fd >= 0 && !m->out_errno) {
		if (m->cap - m->n_pending < 4096) {
			size_t cap = m->cap ? 2 * m->cap : HB_ROW_BUFFER;
			char *grown = realloc(m->pending, cap);
			if (!grown)
				return;
			m->pending = grown;
			m->cap = cap;
		}
		ssize_t got = read(m->csv_fd, m->pending + m->n_pending, m->cap - m->n_pending - 1);
		if (got < 0 && errno == EINTR)
			continue;
		if (got <= 0)
			return;
		m->n_pending += (size_t)got;
		take_lines(m);
	}
}

static void merge_free(struct merge *m)
{
	for (size_t i = 0; i < m->sum.n_cases; i++) {
		free(m->sum.cases[i].ir);
		free(m->sum.cases[i].d1);
		free(m->sum.cases[i].ll);
	}
	free(m->sum.cases);
	free(m->by_seq);
	free(m->pending);
	if (m->csv_fd >= 0)
		close(m->csv_fd);
}

/* Opens the directory name of parent_fd if it is a real directory (not a symbolic link)
 * owned by this user, the same one as checked (not one swapped in since). Returns its
 * descriptor (its stat in *st), or -1. */
static int open_run_dir(int parent_fd, const char *name, struct stat *st)
{
	struct stat opened;
	if (fstatat(parent_fd, name, st, AT_SYMLINK_NOFOLLOW) != 0 || !S_ISDIR(st->st_mode) ||
	    st->st_uid != geteuid())
		return -1;
	int fd = openat(parent_fd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd >= 0 && (fstat(fd, &opened) != 0 || opened.st_dev != st->st_dev ||
	                opened.st_ino != st->st_ino)) {
		close(fd);
		fd = -1;
	}
	return fd;
}

/* Removes the directory name of parent_fd, open as dir_fd, and the entries in it; never
 * follows a link (an entry that is one is unlinked itself). Closes dir_fd. */
static void remove_dir_entries(int parent_fd, const char *name, int dir_fd)
{
	DIR *d = dir_stream(dir_fd);
	for (struct dirent *e; d && (e = readdir(d));)
		if (strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0)
			unlinkat(dir_fd, e->d_name, 0);
	if (d)
		closedir(d);
	close(dir_fd);
	unlinkat(parent_fd, name, AT_REMOVEDIR);
}

/* Removes this run's own directory name of parent_fd (see open_run_dir). */
static void remove_run_dir(int parent_fd, const char *name)
{
	struct stat st;
	int fd = open_run_dir(parent_fd, name, &st);
	if (fd >= 0)
		remove_dir_entries(parent_fd, name, fd);
}

/* Run directories without a lock file (made by a dodbench before the lock, or by one
 * killed between mkdtemp and the lock's rename) are removed only when their PID is gone
 * from this PID namespace and nothing in them changed for this long: a live run of
 * another namespace changes its directory at every dump. */
#define LOCKLESS_AGE_S (7 * 24 * 3600)

/* Whether the run directory dir_fd (stat st) of a dodbench of pid `pid` is an orphan,
 * and, when it is by its lock, that lock taken into *lock_fd (held while it is removed).
 * A live run holds the flock of its "lock" file for its whole life (make_lock), in
 * whatever PID namespace it runs: a lock this process can take without waiting is the
 * lock of a run that is gone. A "lock" that is not a regular file is not ours: kept. */
static bool orphaned(int dir_fd, const struct stat *st, long pid, int *lock_fd)
{
	struct stat ls, now;
	*lock_fd = openat(dir_fd, "lock", O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	if (*lock_fd < 0)
		return errno == ENOENT && kill((pid_t)pid, 0) != 0 && errno == ESRCH &&
		       time(NULL) - st->st_mtime > LOCKLESS_AGE_S;
	/* The lock taken, and "lock" still that file: not one another cleaner has just
	 * removed (its directory going) after this open. */
	if (fstat(*lock_fd, &ls) == 0 && S_ISREG(ls.st_mode) &&
	    flock(*lock_fd, LOCK_EX | LOCK_NB) == 0 &&
	    fstatat(dir_fd, "lock", &now, AT_SYMLINK_NOFOLLOW) == 0 &&
	    now.st_dev == ls.st_dev && now.st_ino == ls.st_ino)
		return true;
	close(*lock_fd);
	*lock_fd = -1;
	return false;
}

/* Removes the run directories that a dodbench which died without cleaning up (kill -9)
 * left in parent_fd: dodbench-cg-PID-* whose lock nobody holds (orphaned). Not a PID
 * check: a run in another PID namespace sharing TMPDIR and the uid has a PID that
 * kill(2) cannot see here. */
static void remove_orphans(int parent_fd)
{
	DIR *d = dir_stream(parent_fd);
	for (struct dirent *e; d && (e = readdir(d));) {
		long pid;
		struct stat st;
		int dir_fd, lock_fd;
		if (sscanf(e->d_name, "dodbench-cg-%ld-", &pid) != 1 || pid <= 0 ||
		    (dir_fd = open_run_dir(parent_fd, e->d_name, &st)) < 0)
			continue;
		if (orphaned(dir_fd, &st, pid, &lock_fd))
			remove_dir_entries(parent_fd, e->d_name, dir_fd);
		else
			close(dir_fd);
		if (lock_fd >= 0)
			close(lock_fd);
	}
	if (d)
		closedir(d);
}

/* path as valgrind takes it in a file name option (--log-file, --callgrind-out-file),
 * which expands %p, %q{VAR} and %% (and aborts on any other %): every '%' doubled, into
 * out[0 .. len) (cut short if it does not fit). Returns the length of the whole result. */
static size_t vg_escape(char *out, size_t len, const char *path)
{
	size_t n = 0;
	for (; *path; path++)
		for (int k = *path == '%' ? 2 : 1; k > 0; k--, n++)
			if (n + 1 < len)
				out[n] = *path;
	if (len)
		out[n < len ? n : len - 1] = '\0';
	return n;
}

/* Opens ${TMPDIR:-/tmp}/dodbench-<uid> (its path to path), the parent of this user's
 * callgrind run directories, creating it with mode 0700. Anything else than a real
 * directory (not a symbolic link) owned by this user with mode 0700 is refused: another
 * user could plant or swap what the run writes and what remove_orphans removes. Returns
 * its descriptor, or -1 with the reason in err. */
static int open_parent(char *path, size_t len, char *err, size_t err_len)
{
	const char *tmp = getenv("TMPDIR");
	if (!tmp || !*tmp)
		tmp = "/tmp";
	/* valgrind takes file names (--log-file) of at most 900 bytes: leave room for the
	 * run's directory and file names. A '%' counts twice (vg_escape). */
	size_t max = len < 800 ? len : 800;
	char escaped[800];
	if ((size_t)snprintf(path, len, "%s/dodbench-%ld", tmp, (long)geteuid()) >= max ||
	    vg_escape(escaped, sizeof escaped, path) >= max) {
		snprintf(err, err_len, "TMPDIR (%zu bytes) is too long for valgrind's file names: "
		         "$TMPDIR/dodbench-<uid> must stay under %zu bytes (a %% counts twice)",
		         strlen(tmp), max);
		return -1;
	}
	bool made = mkdir(path, 0700) == 0;
	int fd = made || errno == EEXIST
	                 ? open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC) : -1;
	struct stat st;
	if (fd < 0 || (made && fchmod(fd, 0700) != 0) || fstat(fd, &st) != 0) {
		int e = errno;
		bool link = lstat(path, &st) == 0 && S_ISLNK(st.st_mode);
		snprintf(err, err_len, "cannot use %s for callgrind's temporary files: %s", path,
		         link ? "it is a symbolic link (remove it or set TMPDIR elsewhere)"
		              : strerror(e));
		if (fd >= 0)
			close(fd);
		return -1;
	}
	if (st.st_uid != geteuid() || (st.st_mode & 07777) != 0700) {
		snprintf(err, err_len, "refusing %s for callgrind's temporary files: it belongs to "
		         "uid %ld and has mode %04o, not this user's (uid %ld) with mode 0700; remove "
		         "it or set TMPDIR elsewhere", path, (long)st.st_uid,
		         (unsigned)(st.st_mode & 07777), (long)geteuid());
		close(fd);
		return -1;
	}
	return fd;
}

/* The valgrind child while it runs: SIGINT, SIGTERM and SIGHUP sent to dodbench are
 * passed on to it; the parent then cleans up and dies of the same signal. */
static volatile sig_atomic_t child_pid, caught;
static void pass_on(int sig)
{
	caught = sig;
	if (child_pid > 0)
		kill((pid_t)child_pid, SIGKILL);
}

/* The arguments the parent replaces, --out F and --counters X: 2 for the name of one (its
 * value follows), 1 for --NAME=VALUE, else 0. Abbreviated too (--cou callgrind), as
 * getopt_long took it: the parent has parsed these arguments, so an option that is a
 * prefix of one of the names is that one (the child refuses an option given twice). */
static int skip_arg(const char *a)
{
	static const char *const replaced[] = {"out", "counters"};
	size_t len = strncmp(a, "--", 2) == 0 ? strcspn(a + 2, "=") : 0;
	for (size_t i = 0; len && i < sizeof replaced / sizeof *replaced; i++)
		if (len <= strlen(replaced[i]) && strncmp(a + 2, replaced[i], len) == 0)
			return a[2 + len] == '=' ? 1 : 2;
	return 0;
}

/* One callgrind run: its files and the child's command line. */
struct sim_run {
	char parent[4096];        /* ${TMPDIR:-/tmp}/dodbench-<uid> (open_parent) */
	int parent_fd;            /* -1 until opened */
	char dir[4200];           /* this run's directory in parent; "" until made */
	char self[4096];          /* the binary valgrind runs: build/dodbench-sim */
	char out_file[4300], child_csv[4300], log_path[4300], log_opt[4320];
	char d1_opt[96], ll_opt[96];
	char **argv;              /* valgrind's command line */
	int lock_fd;              /* the flock of dir's "lock" (make_lock); -1 until taken */
	bool json_tmp_was_there;  /* the child's --out-json temporary name existed at spawn */
	struct sigaction old[3];  /* the handlers pass_on replaces while the child runs */
};

/* Makes the lock file of the run directory s->dir: "lock", flocked (exclusive) by this
 * run until its end (s->lock_fd; the valgrind child inherits it, so the lock lives as
 * long as anything writes there). It is created as "lock.new" and renamed once locked,
 * so a "lock" that exists is held until its run ends: a cleaner never takes the lock of
 * a run between its creation and its flock. Returns 0 or -1 (errno set). */
static int make_lock(struct sim_run *s)
{
	int dir_fd = open(s->dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (dir_fd < 0)
		return -1;
	int fd = openat(dir_fd, "lock.new", O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
	                0600);
	/* Inherited by the child as a descriptor above 2: were stdout closed, the lock would
	 * otherwise become the child's stdout. */
	s->lock_fd = fd >= 0 ? fcntl(fd, F_DUPFD, 3) : -1;
	if (fd >= 0)
		close(fd);
	int rc = s->lock_fd >= 0 && flock(s->lock_fd, LOCK_EX | LOCK_NB) == 0 &&
	         renameat(dir_fd, "lock.new", dir_fd, "lock") == 0 ? 0 : -1;
	int e = errno;
	close(dir_fd);
	errno = e;
	return rc;
}

/* Checks what the run needs and makes its directory: valgrind on the PATH, the per-user
 * parent, the sibling build/dodbench-sim. Returns 0, or 2 after printing why not. */
static int prepare(struct sim_run *s)
{
	char err[4400];
	if (!on_path("valgrind")) {
		fprintf(stderr, "dodbench: --counters callgrind needs valgrind (apt-get install "
		                "valgrind, or make deps)\n");
		return 2;
	}
	if ((s->parent_fd = open_parent(s->parent, sizeof s->parent, err, sizeof err)) < 0) {
		fprintf(stderr, "dodbench: %s\n", err);
		return 2;
	}
	ssize_t len = readlink("/proc/self/exe", s->self, sizeof s->self - 1);
	if (len <= 0) {
		fprintf(stderr, "dodbench: cannot prepare the callgrind run: %s\n", strerror(errno));
		return 2;
	}
	s->self[len] = '\0';
	/* Run the sibling build/dodbench-sim: valgrind cannot decode AVX-512, which
	 * -march=native emits on CPUs that have it. */
	char *slash = strrchr(s->self, '/');
	if (slash && strcmp(slash + 1, "dodbench-sim") != 0)
		snprintf(slash + 1, sizeof s->self - (size_t)(slash + 1 - s->self), "dodbench-sim");
	if (access(s->self, X_OK) != 0) {
		fprintf(stderr, "dodbench: %s is missing: `make build` builds it (the binary "
		                "callgrind runs, compiled without AVX-512)\n", s->self);
		return 2;
	}
	remove_orphans(s->parent_fd);
	snprintf(s->dir, sizeof s->dir, "%s/dodbench-cg-%ld-XXXXXX", s->parent, (long)getpid());
	if (!mkdtemp(s->dir)) {
		fprintf(stderr, "dodbench: cannot prepare the callgrind run: %s: %s\n", s->dir,
		        strerror(errno));
		s->dir[0] = '\0';
		return 2;
	}
	if (make_lock(s) != 0) {
		fprintf(stderr, "dodbench: cannot prepare the callgrind run: %s/lock: %s\n", s->dir,
		        strerror(errno));
		return 2;
	}
	return 0;
}

/* valgrind's command line: the user's `run` arguments with --out and --counters
 * replaced by the child's. NULL when out of memory. */
static char **child_argv(struct sim_run *s, int argc, char **argv, const char *d1,
                         const char *ll, bool quiet, bool resume, const char *out_path)
{
	char dir[sizeof s->dir];
	vg_escape(dir, sizeof dir, s->dir);
	snprintf(s->out_file, sizeof s->out_file, "--callgrind-out-file=%s/cg.%%p", dir);
	snprintf(s->child_csv, sizeof s->child_csv, "%s/child.csv", s->dir);
	snprintf(s->log_path, sizeof s->log_path, "%s/valgrind.log", s->dir);
	snprintf(s->log_opt, sizeof s->log_opt, "--log-file=%s/valgrind.log", dir);
	char **cargv = calloc((size_t)argc + 20, sizeof *cargv);
	if (!cargv)
		return NULL;
	size_t k = 0;
	cargv[k++] = "valgrind";
	cargv[k++] = "-q";
	cargv[k++] = "--tool=callgrind";
	cargv[k++] = "--cache-sim=yes";
	cargv[k++] = "--collect-atstart=no";
	cargv[k++] = s->out_file;
	/* --quiet: valgrind's own notices (e.g. which cache it simulates as LL) go to a log,
	 * shown only if the run fails. */
	if (quiet)
		cargv[k++] = s->log_opt;
	if (d1) {
		snprintf(s->d1_opt, sizeof s->d1_opt, "--D1=%s", d1);
		cargv[k++] = s->d1_opt;
	}
	if (ll) {
		snprintf(s->ll_opt, sizeof s->ll_opt, "--LL=%s", ll);
		cargv[k++] = s->ll_opt;
	}
	cargv[k++] = s->self;
	cargv[k++] = "run";
	for (int i = 1; i < argc; i++) {
		int skip = skip_arg(argv[i]);
		if (skip == 2)
			i++;
		else if (!skip)
			cargv[k++] = argv[i];
	}
	cargv[k++] = "--counters";
	cargv[k++] = "callgrind";
	cargv[k++] = "--sim-child";
	cargv[k++] = "--out";
	cargv[k++] = s->child_csv;
	if (resume) { /* the child skips what the user's file holds (it is in argv already) */
		cargv[k++] = "--sim-resume-from";
		cargv[k++] = (char *)out_path;
	}
	cargv[k] = NULL;
	return cargv;
}

/* Whether the --out-json temporary name of process pid (json_path's; see
 * remove_child_json_tmp) exists, or cannot be told (a name too long): true. */
static bool json_tmp_there(const char *json_path, pid_t pid)
{
	char tmp[4200];
	struct stat st;
	return hb_json_tmp_path(tmp, sizeof tmp, json_path, (long)pid) != 0 ||
	       lstat(tmp, &st) == 0 || errno != ENOENT;
}

/* Forks and executes valgrind with s->argv; SIGINT, SIGTERM and SIGHUP go to pass_on
 * until the caller puts s->old back. With json_path (--out-json, or NULL) the child
 * waits before the execve until s->json_tmp_was_there tells whether its temporary
 * name was there already (another's, never to be removed). Returns the child's pid, or
 * -1 (fork failed). */
static pid_t spawn(struct sim_run *s, const char *json_path)
{
	fflush(stdout);
	fflush(stderr);
	struct sigaction sa = {.sa_handler = pass_on};
	sigset_t block, saved;
	sigemptyset(&sa.sa_mask);
	sigemptyset(&block);
	for (int i = 0; i < HB_N_STOP_SIGNALS; i++) { /* an ignored one (nohup) stays so */
		if (sigaction(hb_stop_signals[i], NULL, &s->old[i]) == 0 &&
		    s->old[i].sa_handler != SIG_IGN)
			sigaction(hb_stop_signals[i], &sa, NULL);
		sigaddset(&block, hb_stop_signals[i]);
	}
	/* Blocked from the fork until child_pid is set: a signal in between waits, and then
	 * reaches the child through pass_on (else it would find no child to pass on to and
	 * dodbench would wait for the whole simulation). */
	sigprocmask(SIG_BLOCK, &block, &saved);
	int gate[2] = {-1, -1};
	s->json_tmp_was_there = true;
	if (json_path && pipe2(gate, O_CLOEXEC) != 0)
		gate[0] = gate[1] = -1;
	pid_t parent = getpid(), pid = fork();
	if (pid == 0) {
		/* valgrind dies with dodbench, even of kill -9 (kept across execve). */
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		if (getppid() != parent)
			_exit(127);
		if (gate[1] >= 0) { /* the parent's check first (it closes its end then) */
			char byte;
			close(gate[1]);
			while (read(gate[0], &byte, 1) < 0 && errno == EINTR)
				;
		}
		for (int i = 0; i < 3; i++)
			sigaction(hb_stop_signals[i], &s->old[i], NULL);
		sigprocmask(SIG_SETMASK, &saved, NULL);
		execvp("valgrind", s->argv);
		_exit(127);
	}
	if (pid > 0 && gate[1] >= 0)
		s->json_tmp_was_there = json_tmp_there(json_path, pid);
	for (int i = 0; i < 2; i++)
		if (gate[i] >= 0)
			close(gate[i]);
	child_pid = pid;
	sigprocmask(SIG_SETMASK, &saved, NULL);
	return pid;
}

/* Merges the child's rows as they come until it ends. It sleeps until the run's
 * directory changes (inotify: a row written, a dump closed), the child ends (its pidfd)
 * or, where either is missing, 250 ms pass. A signal (pass_on) or a row that cannot be
 * written stops the child. Returns what waitpid returned (status in *status). */
static pid_t follow_child(struct merge *m, pid_t pid, int *status)
{
	int ino = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
	if (ino >= 0 && inotify_add_watch(ino, m->dir, IN_CLOSE_WRITE | IN_MODIFY) < 0) {
		close(ino);
		ino = -1;
	}
#ifdef SYS_pidfd_open
	int pidfd = (int)syscall(SYS_pidfd_open, pid, 0);
#else
	int pidfd = -1;
#endif
	struct pollfd p[2] = {{.fd = ino, .events = POLLIN}, {.fd = pidfd, .events = POLLIN}};
	pid_t waited;
	for (;;) {
		pump(m);
		if (caught || m->out_errno) { /* for a signal, pass_on has sent the SIGKILL */
			kill(pid, SIGKILL);
			while ((waited = waitpid(pid, status, 0)) < 0 && errno == EINTR)
				;
			break;
		}
		waited = waitpid(pid, status, WNOHANG);
		if (waited == pid) {
			pump(m); /* the rows written since the last read */
			break;
		}
		if (waited < 0 && errno != EINTR)
			break;
		if (poll(p, 2, 250) > 0 && (p[0].revents & POLLIN)) {
			char events[4096];
			while (read(ino, events, sizeof events) > 0)
				;
		}
	}
	if (ino >= 0)
		close(ino);
	if (pidfd >= 0)
		close(pidfd);
	return waited;
}

static void show_log(const char *path)
{
	FILE *log = fopen(path, "r");
	for (int ch; log && (ch = fgetc(log)) != EOF;)
		fputc(ch, stderr);
	if (log)
		fclose(log);
}

/* Reports how the child ended, and the summary. Returns the exit status for main: the
 * child's 0 or 1; HB_EXIT_OUTPUT when a row could not be written to --out (the sweep
 * stopped) or the child could not write one of its own outputs (the JSON, the samples:
 * it said which; its rows are all in --out); 2 when the child refused the run before any
 * row; 1 for a crash (the rows it finished are kept), valgrind failing, or rows without
 * counts. */
static int conclude(struct merge *m, const char *log_path, bool quiet, pid_t waited,
                    int status)
{
	int code = waited > 0 && WIFEXITED(status) ? WEXITSTATUS(status) : -1;
	int sig = waited > 0 && WIFSIGNALED(status) ? WTERMSIG(status) : 0;
	int rc = code;
	if (m->out_errno) {
		hb_csv_say_stopped(m->reporters[m->out_failed]->path, m->out_errno);
		rc = HB_EXIT_OUTPUT;
	} else if (code == HB_EXIT_OUTPUT) {
		rc = HB_EXIT_OUTPUT;
	} else if (sig || code < 0 || code > 1) {
		if (quiet)
			show_log(log_path);
		if (sig)
			fprintf(stderr, "dodbench: the callgrind run died of signal %d (%s); the rows "
			        "of the repetitions it finished are kept\n", sig, strsignal(sig));
		else
			fprintf(stderr, "dodbench: the callgrind run failed (exit status %d)\n", code);
		rc = code == 2 && !m->rows ? 2 : 1;
	}
	if (m->missing) {
		fprintf(stderr, "dodbench: %zu rows had no callgrind counts\n", m->missing);
		rc = rc ? rc : 1;
	}
	if (hb_report_end(m->reporters, m->n_reporters, NULL, rc) != 0)
		rc = HB_EXIT_OUTPUT;
	return rc;
}

/* The child writes --out-json to "PATH.tmp-PID" (main.c's json_open; under valgrind PID
 * is the valgrind process, our child) and renames it when whole: a child that died
 * before (the SIGKILL of pass_on, a crash) leaves it. Removes it when it is a regular
 * file of ours, never through a symbolic link. Called only when the name was free when
 * the child started (spawn): a file there before is not this run's (the child, which
 * creates it O_EXCL, then refused the run). */
static void remove_child_json_tmp(const char *json_path, pid_t pid)
{
	char tmp[4200];
	struct stat st;
	if (!json_path || hb_json_tmp_path(tmp, sizeof tmp, json_path, (long)pid) != 0)
		return;
	if (lstat(tmp, &st) == 0 && S_ISREG(st.st_mode) && st.st_uid == geteuid())
		unlink(tmp);
}

/* The reporters of the merged rows: the CSV writer on out (the user's --out, named
 * out_path; none when NULL), then the callgrind summary. */
static void merge_reporters(struct merge *m, FILE *out, const char *out_path, bool quiet)
{
	m->sum = (struct sim_summary){.d1 = m->d1, .ll = m->ll, .quiet = quiet};
	for (int k = 0; k < C_N_COLS; k++)
		m->sum.col[k] = -1;
	m->n_reporters = 0;
	if (out) {
		hb_csv_reporter(&m->csv, out, out_path);
		m->reporters[m->n_reporters++] = &m->csv;
	}
	m->summary = (struct hb_reporter){.path = "stdout", .row = summary_row, .end = summary_end,
	                                  .state = &m->sum};
	m->reporters[m->n_reporters++] = &m->summary;
}

/* Runs the child and merges its rows into out as they come. Returns the exit status for
 * main (conclude), or 1 when a signal stopped it (the caller dies of it). */
static int supervise(struct sim_run *s, FILE *out, const char *out_path, bool quiet,
                     const char *json_path)
{
	struct merge m = {.dir = s->dir, .csv_fd = -1, .out = out, .d1 = "unknown",
	                  .ll = "unknown"};
	merge_reporters(&m, out, out_path, quiet);
	m.dir_fd = open(s->dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (m.dir_fd < 0) {
		fprintf(stderr, "dodbench: cannot open %s: %s\n", s->dir, strerror(errno));
		return 2;
	}
	pid_t pid = spawn(s, json_path);
	int status = 0;
	pid_t waited = pid > 0 ? follow_child(&m, pid, &status) : -1;
	child_pid = 0;
	if (waited == pid && pid > 0 && !(WIFEXITED(status) && WEXITSTATUS(status) == 0) &&
	    !s->json_tmp_was_there)
		remove_child_json_tmp(json_path, pid);
	for (int i = 0; i < 3; i++)
		sigaction(hb_stop_signals[i], &s->old[i], NULL);
	int rc = caught ? 1 : conclude(&m, s->log_path, quiet, waited, status);
	close(m.dir_fd);
	merge_free(&m);
	return rc;
}

int hb_sim_run(int argc, char **argv, FILE *out, const struct hb_config *c)
{
	const char *out_path = c->out, *d1 = c->sim_d1, *ll = c->sim_ll;
	bool quiet = c->quiet, resume = c->resume;
	struct sim_run *s = calloc(1, sizeof *s);
	if (!s) {
		fprintf(stderr, "dodbench: cannot prepare the callgrind run: out of memory\n");
		return 2;
	}
	s->parent_fd = s->lock_fd = -1;
	int rc = prepare(s);
	if (rc == 0 && !(s->argv = child_argv(s, argc, argv, d1, ll, quiet, resume, out_path))) {
		fprintf(stderr, "dodbench: cannot prepare the callgrind run: out of memory\n");
		rc = 2;
	}
	if (rc == 0)
		rc = supervise(s, out, out_path, quiet, c->out_json);
	if (s->dir[0])
		remove_run_dir(s->parent_fd, strrchr(s->dir, '/') + 1);
	if (s->lock_fd >= 0) /* held until the directory is gone */
		close(s->lock_fd);
	if (s->parent_fd >= 0)
		close(s->parent_fd);
	free(s->argv);
	free(s);
	if (caught) /* interrupted: nothing half-done stays behind, then die of it */
		raise(caught);
	return rc;
}
