/* resume.c - `run --resume`: the (case, repetition) pairs the --out file already holds,
 * so a killed sweep completes by running the same command again with --resume.
 *
 * A row counts when it is verified, belongs to the run (its run_id: --run-id, or the run
 * of the file's last row when none is given) and has the run's seed. It is matched to a
 * planned case by scenario, container, n, elem_bytes, order (for scenarios with one),
 * hole pattern and hole ratio: the CSV holds the fraction really erased, m / n with
 * m = round(ratio * n) (scn_hole_indices), so the case whose requested ratio gives that m
 * is the one. Rows of other runs, unverified rows and repetitions beyond --reps are
 * ignored: those repetitions run again. A row of the run and a planned case with another
 * seed is refused: the case would get repetitions of two seeds under one run id, which
 * the reports and compare.py pool as one sample (16 repetitions of a --reps 8 case).
 * Another case's rows of the run may have another seed (a sweep line may set its own).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "run.h"

enum { R_CONTAINER, R_SCENARIO, R_N, R_ELEM, R_RATIO, R_ORDER, R_SEED, R_REP, R_VERIFIED,
       R_RUN_ID, R_PATTERN, R_N_COLS };
static const char *const names[R_N_COLS] = {"container", "scenario", "n", "elem_bytes",
                                            "hole_ratio", "order", "seed", "rep",
                                            "verified", "run_id", "hole_pattern"};

/* The fraction of n the hole setup erases for a requested ratio (scn_hole_indices). */
static double erased_fraction(const struct hb_case *k)
{
	if (!k->scn->uses_holes || k->p.hole_pattern == SCN_HOLES_NONE)
		return 0;
	return (double)scn_hole_count(k->p.n, k->p.hole_ratio) / (double)k->p.n;
}

static struct hb_case *find_case(struct hb_run *r, char **f)
{
	size_t n = strtoull(f[R_N], NULL, 10), elem = strtoull(f[R_ELEM], NULL, 10);
	double ratio = strtod(f[R_RATIO], NULL);
	for (size_t i = 0; i < r->n_cases; i++) {
		struct hb_case *k = &r->cases[i];
		const char *order = k->p.order == SCN_RANDOM ? "random" : "seq";
		if (k->skip || k->p.n != n || k->elem_bytes != elem ||
		    strcmp(k->scn->name, f[R_SCENARIO]) != 0 ||
		    strcmp(k->container->name, f[R_CONTAINER]) != 0 ||
		    strcmp(scn_hole_pattern_names[k->p.hole_pattern], f[R_PATTERN]) != 0 ||
		    (k->scn->uses_order && strcmp(order, f[R_ORDER]) != 0))
			continue;
		/* %.6g in the CSV: a relative tolerance well above its rounding. */
		double want = erased_fraction(k);
		if (fabs(want - ratio) <= 1e-5 * (want > 0 ? want : 1))
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

/* Takes row g of the run: marks its repetition in its planned case when it is verified.
 * Returns 0, or -1 with the reason in err when the row's case is planned with another
 * seed. */
static int take_row(struct hb_run *r, char **g, const char *seed, const char *path,
                    char *err, size_t err_len)
{
	struct hb_case *k = find_case(r, g);
	if (!k)
		return 0;
	if (strcmp(g[R_SEED], seed) != 0) {
		snprintf(err, err_len, "run %s of %.120s measured %.120s with --seed %s, not %s: "
		         "resume with --seed %s, or start a new run (a new --run-id, or none and no "
		         "--resume)", g[R_RUN_ID], path, k->name, g[R_SEED], seed, g[R_SEED]);
		return -1;
	}
	unsigned long long rep = strtoull(g[R_REP], NULL, 10);
	if (strcmp(g[R_VERIFIED], "1") == 0 && rep < r->c->reps && !k->have[rep]) {
		k->have[rep] = 1;
		k->resumed++;
		r->resumed++;
	}
	return 0;
}

int hb_resume_load(struct hb_run *r, const char *path, char *run_id, size_t run_id_len,
                   char *err, size_t err_len)
{
	FILE *in = open_rows(path, err, err_len);
	if (!in)
		return -1;
	static char line[16384];
	char *f[256];
	int col[R_N_COLS];
	if (!fgets(line, sizeof line, in)) {
		fclose(in);
		return 0; /* a new file: nothing to resume */
	}
	size_t nf = hb_csv_split(line, f, 256);
	for (int c = 0; c < R_N_COLS; c++) {
		col[c] = -1;
		for (size_t i = 0; i < nf; i++)
			if (strcmp(f[i], names[c]) == 0)
				col[c] = (int)i;
		if (col[c] < 0) {
			snprintf(err, err_len, "%s has no %s column", path, names[c]);
			fclose(in);
			return -1;
		}
	}
	/* Without --run-id the run is the one of the file's last row. */
	if (!run_id[0]) {
		long last = -1;
		while (fgets(line, sizeof line, in)) {
			char *g[256];
			if (hb_csv_split(line, g, 256) > (size_t)col[R_RUN_ID]) {
				snprintf(run_id, run_id_len, "%s", g[col[R_RUN_ID]]);
				last = 1;
			}
		}
		if (last < 0) {
			fclose(in);
			return 0;
		}
		rewind(in);
		if (!fgets(line, sizeof line, in)) {
			fclose(in);
			return 0;
		}
	}
	for (size_t i = 0; i < r->n_cases; i++) {
		free(r->cases[i].have);
		r->cases[i].have = calloc(r->c->reps ? r->c->reps : 1, 1);
		if (!r->cases[i].have) {
			snprintf(err, err_len, "out of memory reading %s", path);
			fclose(in);
			return -1;
		}
	}
	char seed[32];
	snprintf(seed, sizeof seed, "%llu", r->c->seed);
	while (fgets(line, sizeof line, in)) {
		nf = hb_csv_split(line, f, 256);
		char *g[R_N_COLS];
		bool ok = true;
		for (int c = 0; c < R_N_COLS && ok; c++)
			ok = (size_t)col[c] < nf && (g[c] = f[col[c]]) != NULL;
		if (ok && strcmp(g[R_RUN_ID], run_id) == 0 &&
		    take_row(r, g, seed, path, err, err_len) != 0) {
			fclose(in);
			return -1;
		}
	}
	fclose(in);
	return 0;
}
