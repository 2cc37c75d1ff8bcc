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
enum { R_SEED, R_REP, R_VERIFIED, R_RUN_ID, R_N_COLS };
static const char *const names[R_N_COLS] = {"seed", "rep", "verified", "run_id"};

/* Where the columns are in the file's header. */
struct columns {
	struct hb_case_columns cc;
	int col[R_N_COLS];
};

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
	}
	return 0;
}

/* Finds the columns in the header line (read into line). Returns 0, or -1 with the reason
 * in err. */
static int find_columns(struct columns *cols, char *line, const char *path, char *err,
                        size_t err_len)
{
	char *f[256];
	size_t nf = hb_csv_split(line, f, 256);
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

/* The run of the file's last row into run_id (left as it is when the file has no row). */
static void last_run(FILE *in, const struct columns *cols, char *line, size_t line_len,
                     char *run_id, size_t run_id_len)
{
	while (fgets(line, (int)line_len, in)) {
		char *g[256];
		if (hb_csv_split(line, g, 256) > (size_t)cols->col[R_RUN_ID])
			snprintf(run_id, run_id_len, "%s", g[cols->col[R_RUN_ID]]);
	}
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
	FILE *in = open_rows(path, err, err_len);
	if (!in)
		return -1;
	static char line[16384];
	struct columns cols;
	int rc = 0;
	if (!fgets(line, sizeof line, in) || (rc = find_columns(&cols, line, path, err, err_len))) {
		fclose(in);
		return rc; /* a new file: nothing to resume */
	}
	/* Without --run-id the run is the one of the file's last row. */
	if (!run_id[0]) {
		last_run(in, &cols, line, sizeof line, run_id, run_id_len);
		rewind(in);
		if (!run_id[0] || !fgets(line, sizeof line, in)) {
			fclose(in);
			return 0;
		}
	}
	if (clear_have(r) != 0) {
		snprintf(err, err_len, "out of memory reading %s", path);
		fclose(in);
		return -1;
	}
	char seed[32];
	snprintf(seed, sizeof seed, "%llu", r->c->seed);
	while (rc == 0 && fgets(line, sizeof line, in)) {
		char *f[256];
		size_t nf = hb_csv_split(line, f, 256);
		bool ok = true;
		for (int c = 0; c < R_N_COLS && ok; c++)
			ok = (size_t)cols.col[c] < nf;
		ok &= (size_t)cols.cc.scenario < nf && (size_t)cols.cc.container < nf;
		if (ok && strcmp(f[cols.col[R_RUN_ID]], run_id) == 0)
			rc = take_row(r, &cols, f, nf, seed, path, err, err_len);
	}
	fclose(in);
	return rc;
}
