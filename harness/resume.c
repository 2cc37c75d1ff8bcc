/* resume.c - `run --resume`: the (case, repetition) pairs the --out file already holds,
 * so a killed sweep completes by running the same command again with --resume.
 *
 * A row counts when it is verified, belongs to the run (its run_id: --run-id, or the run
 * of the file's last row when none is given) and has the run's seed. It is matched to a
 * planned case by scenario, container and every axis that applies to the case (axes.c:
 * its CSV field; the hole ratio by the fraction really erased). Rows of other runs, unverified rows and repetitions beyond --reps are
 * ignored: those repetitions run again. A row of the run and a planned case with another
 * seed is refused: the case would get repetitions of two seeds under one run id, which
 * the reports and compare.py pool as one sample (16 repetitions of a --reps 8 case).
 * Another case's rows of the run may have another seed (a sweep line may set its own).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "run.h"

/* The columns a row is read by besides its case's (struct hb_case_columns). */
enum {
	R_SEED, R_REP, R_VERIFIED, R_RUN_ID, R_ELAPSED, R_CPU, R_OPS, R_PASSES, R_MIN_REGION,
	R_N_COLS
};
static const char *const names[R_N_COLS] = {
	"seed", "rep", "verified", "run_id", "elapsed_ns", "cpu_ns", "ops", "passes",
	"min_region_ns"};

/* Where the columns are in the file's header, and how many it has. */
struct columns {
	struct hb_case_columns cc;
	int col[R_N_COLS];
	size_t n;
};

/* At most this many fields in a line: more is no row of ours. */
#define MAX_FIELDS 1024

/* The file's lines, read whole whatever their length (getline). */
struct lines {
	FILE *in;
	char *buf;
	size_t cap;
	long no;    /* the line number of the line in buf (1: the header) */
	size_t len; /* its length without the line end */
	bool nul;   /* it holds a NUL byte */
};

/* Reads the next line into l->buf without its "\n" or "\r\n" (a file saved with CRLF line
 * ends reads as ours). Returns false at the end of the file or on a read error. */
static bool next_line(struct lines *l)
{
	ssize_t n = getline(&l->buf, &l->cap, l->in);
	if (n < 0)
		return false;
	l->no++;
	l->nul = memchr(l->buf, '\0', (size_t)n) != NULL;
	if (n > 0 && l->buf[n - 1] == '\n')
		n--;
	if (n > 0 && l->buf[n - 1] == '\r')
		n--;
	l->buf[n] = '\0';
	l->len = (size_t)n;
	return true;
}

/* A plain decimal of at most 20 digits (a uint64_t's, as the harness writes them)? */
static bool is_uint(const char *s)
{
	size_t n = strspn(s, "0123456789");
	return n > 0 && n <= 20 && s[n] == '\0';
}

/* What the reports would refuse in row f (nf fields), or NULL: a field count unlike the
 * header's, a seed, rep or verified field that is not a number, a verified row without
 * its elapsed_ns, cpu_ns and ops. */
static const char *row_problem(const struct columns *cols, char **f, size_t nf, char *why,
                               size_t len)
{
	if (nf != cols->n) {
		snprintf(why, len, "%zu%s fields, the header has %zu", nf,
		         nf >= MAX_FIELDS ? " or more" : "", cols->n);
		return why;
	}
	const char *v = f[cols->col[R_VERIFIED]];
	if (strcmp(v, "0") != 0 && strcmp(v, "1") != 0)
		return snprintf(why, len, "verified is \"%.40s\", not 0 or 1", v), why;
	static const int need[] = {R_SEED, R_REP, R_ELAPSED, R_CPU, R_OPS, R_PASSES,
	                           R_MIN_REGION};
	for (size_t i = 0; i < sizeof need / sizeof need[0]; i++) {
		const char *x = f[cols->col[need[i]]];
		bool may_be_empty = need[i] != R_SEED && need[i] != R_MIN_REGION &&
		                    strcmp(v, "1") != 0;
		if ((*x || !may_be_empty) && !is_uint(x)) {
			snprintf(why, len, "%s is \"%.40s\", not a count (a plain decimal)",
			         names[need[i]], x);
			return why;
		}
	}
	return NULL;
}

/* Does field f (a row's, in the column of axis i) hold case k's value? An axis that does
 * not apply to k is not compared. */
static bool axis_matches(const struct hb_axis *a, size_t i, const struct hb_case *k,
                         const char *f)
{
	char value[64];
	if (!(k->taken & (1u << i)))
		return true;
	if (a->matches)
		return a->matches(k, f);
	return strcmp(hb_axis_format(a, k->axis[i], false, value, sizeof value), f) == 0;
}

/* The planned case row g (split into nf fields) measured, or NULL. */
static struct hb_case *find_case(struct hb_run *r, const struct columns *cols, char **g,
                                 size_t nf)
{
	const struct hb_axis *const *axes;
	size_t n_axes = hb_axes(&axes);
	for (size_t i = 0; i < r->n_cases; i++) {
		struct hb_case *k = &r->cases[i];
		if (k->skip || strcmp(k->scn->name, g[cols->cc.scenario]) != 0 ||
		    strcmp(k->container->name, g[cols->cc.container]) != 0)
			continue;
		bool same = true;
		for (size_t a = 0; a < n_axes && same; a++)
			same = (size_t)cols->cc.axis[a] < nf &&
			       axis_matches(axes[a], a, k, g[cols->cc.axis[a]]);
		if (same)
			return k;
	}
	return NULL;
}

/* Opens the rows at path for reading: a regular file only. A pipe or a device holds no
 * rows to skip and reading it would wait for ever (O_NONBLOCK: nor may opening a FIFO
 * wait for a writer). Returns the stream, or NULL with the reason in err. */
static FILE *open_rows(const char *path, char *err, size_t err_len)
{
	struct stat st;
	int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0 || fstat(fd, &st) != 0) {
		snprintf(err, err_len, "cannot read %s: %s", path, strerror(errno));
	} else if (!S_ISREG(st.st_mode)) {
		snprintf(err, err_len, "%s is not a regular file (a pipe or a device): it holds no "
		         "rows to complete", path);
	} else {
		FILE *in = fdopen(fd, "r");
		if (in)
			return in;
		snprintf(err, err_len, "cannot read %s: %s", path, strerror(errno));
	}
	if (fd >= 0)
		close(fd);
	return NULL;
}

int hb_resume_check(const char *path, char *err, size_t err_len)
{
	if (access(path, F_OK) != 0 && errno == ENOENT)
		return 0;
	FILE *in = open_rows(path, err, err_len);
	if (in)
		fclose(in);
	return in ? 0 : -1;
}

/* Takes row g (nf fields) of the run: marks its repetition in its planned case when it
 * is verified. Returns 0, or -1 with the reason in err when the row's case is planned
 * with another seed. */
static int take_row(struct hb_run *r, const struct columns *cols, char **g, size_t nf,
                    const char *seed, const char *path, char *err, size_t err_len)
{
	struct hb_case *k = find_case(r, cols, g, nf);
	if (!k)
		return 0;
	const char *row_seed = g[cols->col[R_SEED]];
	if (strcmp(row_seed, seed) != 0) {
		snprintf(err, err_len, "run %s of %.120s measured %.120s with --seed %s, not %s: "
		         "resume with --seed %s, or start a new run (a new --run-id, or none and no "
		         "--resume)", g[cols->col[R_RUN_ID]], path, k->name, row_seed, seed, row_seed);
		return -1;
	}
	unsigned long long rep = strtoull(g[cols->col[R_REP]], NULL, 10);
	if (strcmp(g[cols->col[R_VERIFIED]], "1") == 0 && rep < r->c->reps && !k->have[rep]) {
		k->have[rep] = 1;
		k->resumed++;
		r->resumed++;
		/* Its measurement joins the case's: the summary and --out-json cover the run. */
		unsigned long long passes = strtoull(g[cols->col[R_PASSES]], NULL, 10);
		passes += !passes; /* per pass, as schedule.c keeps them */
		unsigned long long elapsed = strtoull(g[cols->col[R_ELAPSED]], NULL, 10);
		k->elapsed_ns[k->done] = (elapsed + passes / 2) / passes;
		k->cpu_ns[k->done] =
			(strtoull(g[cols->col[R_CPU]], NULL, 10) + passes / 2) / passes;
		k->done++;
		k->ns_per_op_div = (double)strtoull(g[cols->col[R_OPS]], NULL, 10) / (double)passes;
		k->passes = passes;
		k->short_regions += elapsed < strtoull(g[cols->col[R_MIN_REGION]], NULL, 10);
		if ((size_t)cols->cc.axis[HB_AXIS_HOLE_RATIO] < nf)
			k->hole_ratio = strtod(g[cols->cc.axis[HB_AXIS_HOLE_RATIO]], NULL);
	}
	return 0;
}

/* Finds the columns in the header line (read into line). Returns 0, or -1 with the reason
 * in err. */
static int find_columns(struct columns *cols, char *line, const char *path, char *err,
                        size_t err_len)
{
	char *f[MAX_FIELDS];
	size_t nf = hb_csv_split(line, f, MAX_FIELDS);
	cols->n = nf;
	const char *missing = NULL;
	int miss = hb_csv_columns(f, nf, names, R_N_COLS, cols->col);
	if (miss >= 0)
		missing = names[miss];
	else
		hb_case_columns_find(&cols->cc, f, nf, &missing);
	if (missing)
		snprintf(err, err_len, "%s has no %s column", path, missing);
	return missing ? -1 : 0;
}

/* Reads every row after the header (l: at the header) and refuses the file when the
 * reports would refuse a row: they could not read what the resumed run adds either. Keeps
 * in run_id the run of the last row when it is empty. Returns 0, or -1 with the reason
 * (file, line, what) in err. */
static int check_rows(struct lines *l, const struct columns *cols, const char *header,
                      const char *path, char *run_id, size_t run_id_len, char *err,
                      size_t err_len)
{
	bool last = !run_id[0];
	while (next_line(l)) {
		char *f[MAX_FIELDS], why[160];
		const char *bad = l->nul ? "a NUL byte (a damaged line?)" : NULL;
		if (!bad && (l->len == 0 || strcmp(l->buf, header) == 0))
			continue; /* a blank line, a header repeated: the reports skip them */
		size_t nf = bad ? 0 : hb_csv_split(l->buf, f, MAX_FIELDS);
		if (!bad)
			bad = row_problem(cols, f, nf, why, sizeof why);
		if (bad) {
			snprintf(err, err_len, "%s:%ld: %s: the reports would refuse the file, so "
			         "nothing is appended to it; repair or remove the line, or write to a "
			         "new file", path, l->no, bad);
			return -1;
		}
		if (last)
			snprintf(run_id, run_id_len, "%s", f[cols->col[R_RUN_ID]]);
	}
	if (ferror(l->in)) {
		snprintf(err, err_len, "cannot read %s", path);
		return -1;
	}
	return 0;
}

/* A fresh have[] per case. Returns 0 or -1 (out of memory). */
static int clear_have(struct hb_run *r)
{
	for (size_t i = 0; i < r->n_cases; i++) {
		free(r->cases[i].have);
		r->cases[i].have = calloc(r->c->reps ? r->c->reps : 1, 1);
		if (!r->cases[i].have)
			return -1;
	}
	return 0;
}

int hb_resume_load(struct hb_run *r, const char *path, char *run_id, size_t run_id_len,
                   char *err, size_t err_len)
{
	struct lines l = {.in = open_rows(path, err, err_len)};
	if (!l.in)
		return -1;
	struct columns cols;
	char *header = NULL;
	int rc = 0;
	if (next_line(&l) && (!(header = strdup(l.buf)) ||
	                      (rc = find_columns(&cols, l.buf, path, err, err_len)) != 0)) {
		if (!header) /* else find_columns said why */
			snprintf(err, err_len, "out of memory reading %s", path);
		rc = -1;
	}
	/* Every row is checked first; without --run-id the run is the one of the last row. */
	if (rc == 0 && header &&
	    (rc = check_rows(&l, &cols, header, path, run_id, run_id_len, err, err_len)) == 0 &&
	    run_id[0]) {
		rewind(l.in);
		l.no = 0;
		next_line(&l);
		if ((rc = clear_have(r)) != 0)
			snprintf(err, err_len, "out of memory reading %s", path);
	}
	char seed[32];
	snprintf(seed, sizeof seed, "%llu", r->c->seed);
	while (rc == 0 && header && run_id[0] && next_line(&l)) {
		char *f[MAX_FIELDS];
		if (l.len == 0 || strcmp(l.buf, header) == 0)
			continue;
		size_t nf = hb_csv_split(l.buf, f, MAX_FIELDS);
		if (strcmp(f[cols.col[R_RUN_ID]], run_id) == 0)
			rc = take_row(r, &cols, f, nf, seed, path, err, err_len);
	}
	free(header);
	free(l.buf);
	fclose(l.in);
	return rc;
}

/* A file read backwards a line at a time: buf holds its bytes [base, base + len). */
struct back {
	int fd;
	char *buf;
	size_t cap;
	off_t base;
	size_t len;
};

/* The line that ends at end (the offset after its newline; the file holds one there):
 * *line points at it in b->buf, its newline replaced by a NUL; *start is its offset.
 * Returns 0, or -1 when it cannot be read or is longer than b->cap. */
static int back_line(struct back *b, off_t end, off_t *start, char **line)
{
	for (int loaded = 0; loaded < 2; loaded++) {
		if (end > b->base && end <= b->base + (off_t)b->len) {
			size_t e = (size_t)(end - b->base), i = e - 1;
			while (i > 0 && b->buf[i - 1] != '\n')
				i--;
			if (i > 0 || b->base == 0) {
				b->buf[e - 1] = '\0';
				*line = b->buf + i;
				*start = b->base + (off_t)i;
				return 0;
			}
		}
		size_t len = end < (off_t)b->cap ? (size_t)end : b->cap;
		if (pread(b->fd, b->buf, len, end - (off_t)len) != (ssize_t)len)
			return -1;
		b->base = end - (off_t)len;
		b->len = len;
	}
	return -1;
}

/* Is sample line s ("run_id,case,rep,i,ns") one of run run_id whose repetition --out does
 * not hold (a planned case's rep below --reps without its have[] mark)? *k caches the
 * last case found; *rep gets the line's repetition. */
static bool orphan_sample(const struct hb_run *r, char *s, const char *run_id,
                          const struct hb_case **k, unsigned long long *rep)
{
	char *f[6];
	if (hb_csv_split(s, f, 6) != 5 || strcmp(f[0], run_id) != 0 || !is_uint(f[2]))
		return false;
	if (!*k || strcmp((*k)->name, f[1]) != 0) {
		*k = NULL;
		for (size_t i = 0; i < r->n_cases && !*k; i++)
			if (strcmp(r->cases[i].name, f[1]) == 0)
				*k = &r->cases[i];
	}
	*rep = strtoull(f[2], NULL, 10);
	return *k && (*k)->have && *rep < r->c->reps && !(*k)->have[*rep];
}

int hb_resume_trim_samples(const struct hb_run *r, int fd, const char *path,
                           const char *run_id, char *err, size_t err_len)
{
	struct stat st;
	if (!run_id[0] || fstat(fd, &st) != 0 || !S_ISREG(st.st_mode))
		return 0;
	struct back b = {.fd = fd, .cap = 1 << 20};
	if (!(b.buf = malloc(b.cap))) {
		snprintf(err, err_len, "out of memory reading %s", path);
		return -1;
	}
	off_t end = st.st_size, start;
	char *line, last_case[512] = "";
	long long removed = 0;
	unsigned long long rep = 0, first_rep = 0;
	const struct hb_case *k = NULL;
	while (end > 0 && back_line(&b, end, &start, &line) == 0 &&
	       orphan_sample(r, line, run_id, &k, &rep)) {
		snprintf(last_case, sizeof last_case, "%s", k->name);
		first_rep = rep;
		removed++;
		end = start;
	}
	free(b.buf);
	if (removed && ftruncate(fd, end) != 0) {
		snprintf(err, err_len, "cannot cut the samples of an unfinished repetition off %s: "
		         "%s", path, strerror(errno));
		return -1;
	}
	if (removed)
		fprintf(stderr, "dodbench: --resume: removed the last %lld samples of %s (from %s "
		        "rep %llu on): their repetition has no row in --out (the run was killed while "
		        "measuring it) and runs again\n", removed, path, last_case, first_rep);
	return 0;
}
