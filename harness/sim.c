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
 * cannot read the counts, so its rows carry a token "@cg<seq>@" in sim_ir; the parent
 * parses the dump files, replaces each token and the eight empty fields after it with
 * Ir, Dr, Dw, D1mr, D1mw, DLmr, DLmw and the D1 and LL geometry, and appends the rows to
 * the user's CSV. Counts are deterministic for the same binary, arguments and
 * environment.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

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

/* Reads one dump file; stores its counts under its region number. */
static void read_dump(const char *path, struct sim_counts *by_seq, size_t max_seq,
                      char *d1, char *ll, size_t geo_len)
{
	FILE *f = fopen(path, "r");
	if (!f)
		return;
	char line[4096], events[512] = "";
	unsigned long long seq = 0;
	struct sim_counts c = {0};
	while (fgets(line, sizeof line, f)) {
		if (strncmp(line, "desc: D1 cache: ", 16) == 0)
			geometry(line + 16, d1, geo_len);
		else if (strncmp(line, "desc: LL cache: ", 16) == 0)
			geometry(line + 16, ll, geo_len);
		else if (strncmp(line, "desc: Trigger: Client Request: dodbench-region-", 47) == 0)
			seq = strtoull(line + 47, NULL, 10);
		else if (strncmp(line, "events: ", 8) == 0)
			snprintf(events, sizeof events, "%.500s", line + 8);
		else if (strncmp(line, "totals: ", 8) == 0 && events[0]) {
			/* Trailing zero counts are omitted from the line: missing means 0. */
			char *ev_save, *val_save, *ev = strtok_r(events, " \n", &ev_save);
			char *val = strtok_r(line + 8, " \n", &val_save);
			for (; ev; ev = strtok_r(NULL, " \n", &ev_save)) {
				unsigned long long v = val ? strtoull(val, NULL, 10) : 0;
				for (int i = 0; i < HB_N_SIM; i++)
					if (strcmp(ev, sim_events[i]) == 0)
						c.v[i] = v;
				if (val)
					val = strtok_r(NULL, " \n", &val_save);
			}
			c.have = true;
		}
	}
	fclose(f);
	if (seq >= 1 && seq <= max_seq && c.have)
		by_seq[seq] = c;
}

/* Per-case summary: medians per operation (region count / ops) of simulated Ir, D1 misses and LL misses. */
struct sim_case {
	char name[512];
	double *ir, *d1, *ll;
	size_t n;
};

static void print_summary(struct sim_case *cases, size_t n_cases, const char *d1, const char *ll)
{
	printf("simulated caches (callgrind; D1 %s, LL %s as size:assoc:line), medians per operation:\n",
	       d1, ll);
	for (size_t i = 0; i < n_cases; i++) {
		struct sim_case *c = &cases[i];
		printf("%-52s Ir %10.2f  D1 misses %8.4f  LL misses %8.4f\n", c->name,
		       hb_median_sort(c->ir, c->n), hb_median_sort(c->d1, c->n),
		       hb_median_sort(c->ll, c->n));
	}
}

/* Column positions we need, found by name in the header (with the case's: row_columns). */
enum { C_SIM_IR, C_OPS, C_N_COLS };
static const char *const col_names[C_N_COLS] = {"sim_ir", "ops"};

/* The columns of a row's case (scenario, container, the axes; axes.c) in the header
 * line's nf fields, then those of col_names. Returns 0 or -1 (one missing). */
static int row_columns(struct hb_case_columns *cc, int *col, char **f, size_t nf)
{
	const char *missing;
	return hb_case_columns_find(cc, f, nf, &missing) == 0 &&
	       hb_csv_columns(f, nf, col_names, C_N_COLS, col) < 0 ? 0 : -1;
}

static int merge(const char *dir, const char *child_csv, FILE *out, const char *out_path,
                 bool quiet)
{
	/* Region numbers are bounded by the child's row count + warm-ups; size the table
	 * by the number of dump files. */
	size_t max_seq = 0;
	DIR *d = opendir(dir);
	if (!d)
		return 2;
	for (struct dirent *e; (e = readdir(d));)
		max_seq += strncmp(e->d_name, "cg.", 3) == 0;
	struct sim_counts *by_seq = calloc(max_seq + 1, sizeof *by_seq);
	char d1[64] = "unknown", ll[64] = "unknown", path[4200];
	rewinddir(d);
	for (struct dirent *e; by_seq && (e = readdir(d));) {
		if (strncmp(e->d_name, "cg.", 3) != 0)
			continue;
		snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
		read_dump(path, by_seq, max_seq, d1, ll, sizeof d1);
	}
	closedir(d);
	if (!by_seq)
		return 2;

	FILE *in = fopen(child_csv, "r");
	if (!in) {
		fprintf(stderr, "dodbench: callgrind run wrote no rows\n");
		free(by_seq);
		return 2;
	}
	int out_errno = 0;
	static char line[16384], copy[16384 + 1024];
	int col[C_N_COLS];
	struct hb_case_columns cc;
	size_t n_cases = 0, missing = 0;
	struct sim_case *cases = NULL;
	bool have_cols = false;
	if (fgets(line, sizeof line, in)) { /* header: find our columns */
		char *f[128];
		size_t nf = hb_csv_split(line, f, 128);
		have_cols = row_columns(&cc, col, f, nf) == 0;
	}
	while (fgets(line, sizeof line, in)) {
		char *tok = strstr(line, "@cg");
		unsigned long long seq = tok ? strtoull(tok + 3, NULL, 10) : 0;
		char *end = tok ? strstr(tok, "@,,,,,,,,") : NULL;
		if (!end || seq > max_seq || !by_seq[seq].have) {
			missing++;
			continue;
		}
		const unsigned long long *v = by_seq[seq].v;
		char filled[512];
		snprintf(filled, sizeof filled, "%llu,%llu,%llu,%llu,%llu,%llu,%llu,%s,%s", v[0], v[1],
		         v[2], v[3], v[4], v[5], v[6], d1, ll);
		*tok = '\0';
		snprintf(copy, sizeof copy, "%s%s%s", line, filled, end + 9);
		if (out && !out_errno) /* one row, one write(2) (see csv.c) */
			out_errno = hb_csv_put_line(out, copy);
		/* Summary by case. */
		char *f[128];
		size_t nf = hb_csv_split(copy, f, 128);
		bool ok = have_cols;
		for (int k = 0; k < C_N_COLS; k++)
			ok = ok && (size_t)col[k] < nf; /* col is unset without a header */
		char name[sizeof cases->name];
		if (!ok || hb_case_name_of_row(name, sizeof name, &cc, f, nf) != 0)
			continue;
		size_t i = 0;
		while (i < n_cases && strcmp(cases[i].name, name) != 0)
			i++;
		if (i == n_cases) {
			struct sim_case *grown = realloc(cases, (n_cases + 1) * sizeof *cases);
			if (!grown)
				continue;
			cases = grown;
			memset(&cases[n_cases], 0, sizeof *cases);
			snprintf(cases[n_cases++].name, sizeof cases->name, "%s", name);
		}
		struct sim_case *c = &cases[i];
		double n = strtod(f[col[C_OPS]], NULL); /* per operation, as ns_per_op */
		double *ir = realloc(c->ir, (c->n + 1) * sizeof *ir);
		double *dd = realloc(c->d1, (c->n + 1) * sizeof *dd);
		double *dl = realloc(c->ll, (c->n + 1) * sizeof *dl);
		if (ir) c->ir = ir;
		if (dd) c->d1 = dd;
		if (dl) c->ll = dl;
		if (!ir || !dd || !dl)
			continue;
		c->ir[c->n] = (double)v[0] / n;
		c->d1[c->n] = (double)(v[3] + v[4]) / n;
		c->ll[c->n] = (double)(v[5] + v[6]) / n;
		c->n++;
	}
	fclose(in);
	int rc = 0;
	if (out_errno) {
		fprintf(stderr, "dodbench: writing %s: %s\n", out_path, strerror(out_errno));
		rc = HB_EXIT_OUTPUT;
	}
	if (missing) {
		fprintf(stderr, "dodbench: %zu rows had no callgrind counts\n", missing);
		rc = rc ? rc : 1;
	}
	if (!quiet || n_cases)
		print_summary(cases, n_cases, d1, ll);
	for (size_t i = 0; i < n_cases; i++) {
		free(cases[i].ir);
		free(cases[i].d1);
		free(cases[i].ll);
	}
	free(cases);
	free(by_seq);
	return rc;
}

static void remove_dir(const char *dir)
{
	DIR *d = opendir(dir);
	char path[4200];
	for (struct dirent *e; d && (e = readdir(d));) {
		if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
			continue;
		snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
		unlink(path);
	}
	if (d)
		closedir(d);
	rmdir(dir);
}

/* Removes the temporary directories of callgrind runs whose dodbench died without
 * cleaning up (kill -9): /tmp/dodbench-cg-PID-* of a PID that no longer exists. */
static void remove_orphans(void)
{
	DIR *d = opendir("/tmp");
	char path[4200];
	for (struct dirent *e; d && (e = readdir(d));) {
		long pid;
		if (sscanf(e->d_name, "dodbench-cg-%ld-", &pid) != 1 || pid <= 0 ||
		    kill((pid_t)pid, 0) == 0 || errno != ESRCH)
			continue;
		snprintf(path, sizeof path, "/tmp/%s", e->d_name);
		remove_dir(path);
	}
	if (d)
		closedir(d);
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

/* True for the arguments the parent replaces: --out F / --out=F and --counters X. */
static int skip_arg(const char *a)
{
	if (strcmp(a, "--out") == 0 || strcmp(a, "--counters") == 0)
		return 2;
	return strncmp(a, "--out=", 6) == 0 || strncmp(a, "--counters=", 11) == 0;
}

int hb_sim_run(int argc, char **argv, FILE *out, const char *out_path, const char *d1,
               const char *ll, bool quiet, bool resume)
{
	if (!on_path("valgrind")) {
		fprintf(stderr, "dodbench: --counters callgrind needs valgrind (apt-get install "
		                "valgrind, or make deps)\n");
		return 2;
	}
	char dir[64], self[4096], out_file[300], child_csv[300], d1_opt[96], ll_opt[96],
	     log_opt[320], log_path[300];
	remove_orphans();
	snprintf(dir, sizeof dir, "/tmp/dodbench-cg-%ld-XXXXXX", (long)getpid());
	ssize_t len = readlink("/proc/self/exe", self, sizeof self - 1);
	if (len <= 0 || !mkdtemp(dir)) {
		fprintf(stderr, "dodbench: cannot prepare the callgrind run: %s\n", strerror(errno));
		return 2;
	}
	self[len] = '\0';
	/* Run the sibling build/dodbench-sim: valgrind cannot decode AVX-512, which
	 * -march=native emits on CPUs that have it. */
	char *slash = strrchr(self, '/');
	if (slash && strcmp(slash + 1, "dodbench-sim") != 0)
		snprintf(slash + 1, sizeof self - (size_t)(slash + 1 - self), "dodbench-sim");
	if (access(self, X_OK) != 0) {
		fprintf(stderr, "dodbench: %s is missing: `make build` builds it (the binary "
		                "callgrind runs, compiled without AVX-512)\n", self);
		rmdir(dir);
		return 2;
	}
	snprintf(out_file, sizeof out_file, "--callgrind-out-file=%s/cg.%%p", dir);
	snprintf(child_csv, sizeof child_csv, "%s/child.csv", dir);
	char **cargv = calloc((size_t)argc + 20, sizeof *cargv);
	if (!cargv)
		return 2;
	size_t k = 0;
	cargv[k++] = "valgrind";
	cargv[k++] = "-q";
	cargv[k++] = "--tool=callgrind";
	cargv[k++] = "--cache-sim=yes";
	cargv[k++] = "--collect-atstart=no";
	cargv[k++] = out_file;
	/* --quiet: valgrind's own notices (e.g. which cache it simulates as LL) go to a log,
	 * shown only if the run fails. */
	snprintf(log_path, sizeof log_path, "%s/valgrind.log", dir);
	snprintf(log_opt, sizeof log_opt, "--log-file=%s", log_path);
	if (quiet)
		cargv[k++] = log_opt;
	if (d1) {
		snprintf(d1_opt, sizeof d1_opt, "--D1=%s", d1);
		cargv[k++] = d1_opt;
	}
	if (ll) {
		snprintf(ll_opt, sizeof ll_opt, "--LL=%s", ll);
		cargv[k++] = ll_opt;
	}
	cargv[k++] = self;
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
	cargv[k++] = child_csv;
	if (resume) { /* the child skips what the user's file holds (it is in argv already) */
		cargv[k++] = "--sim-resume-from";
		cargv[k++] = (char *)out_path;
	}
	cargv[k] = NULL;

	fflush(stdout);
	fflush(stderr);
	struct sigaction sa = {.sa_handler = pass_on}, old[3];
	const int sigs[3] = {SIGINT, SIGTERM, SIGHUP};
	sigset_t block, saved;
	sigemptyset(&sa.sa_mask);
	sigemptyset(&block);
	for (int i = 0; i < 3; i++) {
		sigaction(sigs[i], &sa, &old[i]);
		sigaddset(&block, sigs[i]);
	}
	/* Blocked from the fork until child_pid is set: a signal in between waits, and then
	 * reaches the child through pass_on (else it would find no child to pass on to and
	 * dodbench would wait for the whole simulation). */
	sigprocmask(SIG_BLOCK, &block, &saved);
	pid_t parent = getpid(), pid = fork();
	if (pid == 0) {
		/* valgrind dies with dodbench, even of kill -9 (kept across execve). */
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		if (getppid() != parent)
			_exit(127);
		for (int i = 0; i < 3; i++)
			sigaction(sigs[i], &old[i], NULL);
		sigprocmask(SIG_SETMASK, &saved, NULL);
		execvp("valgrind", cargv);
		_exit(127);
	}
	child_pid = pid;
	sigprocmask(SIG_SETMASK, &saved, NULL);
	int status = 0;
	pid_t waited;
	while ((waited = waitpid(pid, &status, 0)) < 0 && errno == EINTR)
		;
	child_pid = 0;
	for (int i = 0; i < 3; i++)
		sigaction(sigs[i], &old[i], NULL);
	if (caught) { /* interrupted: nothing half-done stays behind, then die of it */
		free(cargv);
		remove_dir(dir);
		raise(caught);
		return 1;
	}
	int rc = 0;
	bool bad = pid < 0 || waited < 0 || WIFSIGNALED(status) ||
	           (WIFEXITED(status) && WEXITSTATUS(status) > 1);
	FILE *log = quiet && bad ? fopen(log_path, "r") : NULL;
	for (int ch; log && (ch = fgetc(log)) != EOF;)
		fputc(ch, stderr);
	if (log)
		fclose(log);
	if (pid < 0 || waited < 0 || (WIFEXITED(status) && WEXITSTATUS(status) > 1)) {
		fprintf(stderr, "dodbench: the callgrind run failed (exit status %d)\n",
		        WIFEXITED(status) ? WEXITSTATUS(status) : -1);
		free(cargv);
		remove_dir(dir);
		return WIFEXITED(status) && WEXITSTATUS(status) == 2 ? 2 : 1;
	}
	if (WIFSIGNALED(status)) { /* a crash: keep the rows of the repetitions it finished */
		fprintf(stderr, "dodbench: the callgrind run died of signal %d (%s); the rows of "
		        "the repetitions it finished are kept\n", WTERMSIG(status),
		        strsignal(WTERMSIG(status)));
		rc = 1;
	}
	int merged = merge(dir, child_csv, out, out_path, quiet);
	free(cargv);
	remove_dir(dir);
	return merged ? merged : rc ? rc : WEXITSTATUS(status);
}
