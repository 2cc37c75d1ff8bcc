/* main.c - the dodbench command line: `list` what is registered, `run` the product of
 * the selected cases (cli.c parses, plan.c names the cases, schedule.c runs them,
 * summary.c reports), `--help`. Every argument and every output path is checked before
 * any work (exit 2); a case whose verification fails makes the exit status 1; an output
 * that cannot be written mid-run stops the sweep with HB_EXIT_OUTPUT (3).
 */
#define _GNU_SOURCE
#include <alloca.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <valgrind/valgrind.h>

#include "run.h"

#if defined(__SANITIZE_ADDRESS__)
/* build/dodbench-san: the run's configuration lives until exit by design (not a leak),
 * and an allocation too large to make must return NULL (the containers' DOD_ENOMEM
 * paths), not abort. */
const char *__asan_default_options(void);
const char *__asan_default_options(void) { return "detect_leaks=0:allocator_may_return_null=1"; }
#endif

/* Pre-grows glibc's heap to the largest size a case may need and touches it, and keeps
 * it mapped (no mmap'd chunks, no trimming), so that allocations inside timed regions
 * reuse already-faulted pages. */
static void prefault_heap(const struct hb_config *c)
{
	double need = 0;
	for (size_t i = 0; i < c->n_ns; i++)
		for (size_t e = 0; e < c->n_elems; e++) {
			double b = (double)c->ns[i] * (double)(2 * c->elems[e] + 64);
			need = b > need ? b : need;
		}
	mallopt(M_MMAP_MAX, 0);
	mallopt(M_TRIM_THRESHOLD, INT_MAX);
	mallopt(M_TOP_PAD, 64 << 20);
	char *p = malloc((size_t)need);
	if (p) {
		memset(p, 1, (size_t)need);
		DOD_KEEP(p);
		free(p);
	}
}

/* Opens the --out-json target before any work. A regular file (or a new one) is written
 * to a temporary file beside it, "PATH.tmp-PID", renamed over PATH only when complete
 * (tmp gets its name); anything else (a device) is opened directly (tmp stays ""). Refuses
 * an empty name, a directory, a path that cannot be created or written, and the file the
 * --out stream csv already holds. Returns the stream or NULL with the reason in err. */
static FILE *json_open(const char *path, FILE *csv, char *tmp, size_t tmp_len, char *err,
                       size_t err_len)
{
	struct stat st, cs;
	tmp[0] = '\0';
	if (!*path) {
		snprintf(err, err_len, "an empty file name");
		return NULL;
	}
	bool exists = stat(path, &st) == 0;
	if (exists && S_ISDIR(st.st_mode)) {
		snprintf(err, err_len, "%s is a directory", path);
		return NULL;
	}
	if (exists && csv && fstat(fileno(csv), &cs) == 0 && cs.st_dev == st.st_dev &&
	    cs.st_ino == st.st_ino) {
		snprintf(err, err_len, "%s is also the --out file: give the JSON its own file", path);
		return NULL;
	}
	if (exists && !S_ISREG(st.st_mode)) {
		FILE *f = fopen(path, "w");
		if (!f)
			snprintf(err, err_len, "cannot open %s for writing: %s", path, strerror(errno));
		return f;
	}
	if (exists && access(path, W_OK) != 0) {
		snprintf(err, err_len, "cannot write %s: %s", path, strerror(errno));
		return NULL;
	}
	if ((size_t)snprintf(tmp, tmp_len, "%s.tmp-%ld", path, (long)getpid()) >= tmp_len) {
		snprintf(err, err_len, "%s: the name is too long", path);
		tmp[0] = '\0';
		return NULL;
	}
	int fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
	FILE *f = fd >= 0 ? fdopen(fd, "w") : NULL;
	if (!f) {
		snprintf(err, err_len, "cannot create %.300s: %s", tmp, strerror(errno));
		if (fd >= 0) {
			close(fd);
			unlink(tmp);
		}
		tmp[0] = '\0';
	}
	return f;
}

/* Drops an unfinished --out-json: closes it and removes its temporary file. */
static void json_discard(FILE *f, const char *tmp)
{
	if (f)
		fclose(f);
	if (tmp[0])
		unlink(tmp);
}

/* Writes the JSON, then renames the temporary file over path: the file at path is the
 * old one or the complete new one, never a partial write. Returns 0 or -1 (message
 * printed, temporary file removed). */
static int json_finish(FILE *f, const char *tmp, const char *path, const struct hb_env *env,
                       const struct hb_case *cases, size_t n_cases)
{
	int bad = hb_json_write(f, env, cases, n_cases) != 0;
	int saved = errno;
	if (fclose(f) != 0 && !bad) {
		bad = 1;
		saved = errno;
	}
	if (!bad && tmp[0] && rename(tmp, path) != 0) {
		bad = 1;
		saved = errno;
	}
	if (bad) {
		fprintf(stderr, "dodbench: writing %s: %s\n", path, strerror(saved));
		if (tmp[0])
			unlink(tmp);
		return -1;
	}
	return 0;
}

static int cmd_run(int argc, char **argv)
{
	struct hb_config c = {0};
	struct hb_env env;
	/* getopt permutes argv and list parsing splits strings in place: keep an untouched
	 * copy for the callgrind re-run. Not in the child under valgrind: there, heap
	 * allocations sized by the arguments would shift every later heap address, and so
	 * the simulated cache sets and misses, with the length of a file name. */
	int n_orig = RUNNING_ON_VALGRIND ? 0 : argc;
	char **orig = calloc((size_t)n_orig + 1, sizeof *orig);
	for (int i = 0; orig && i < n_orig; i++)
		if (!(orig[i] = strdup(argv[i])))
			return 1;
	if (!orig)
		return 1;
	int rc = hb_parse_run(&c, argc, argv);
	hb_env_capture(&env);
	if (c.run_id)
		snprintf(env.run_id, sizeof env.run_id, "%s", c.run_id);
	if (rc == 0)
		rc = hb_check_fits(&c, &env);
	/* Every output is opened and checked before any work: a bad path, a file another run
	 * is writing, a full device or --out and --out-json naming one file are refused here
	 * (exit 2), not found after the sweep. */
	char err[400], json_tmp[4200] = "";
	struct hb_run r = {.c = &c, .env = &env, .tty = isatty(2)};
	FILE *json = NULL;
	bool delegated = rc == 0 && c.counters == HB_COUNTERS_CALLGRIND && !c.sim_child && n_orig > 0;
	bool out_new = c.out && access(c.out, F_OK) != 0; /* a refused run leaves no file */
	if (rc == 0 && c.out && !(r.csv = hb_csv_open(c.out, err, sizeof err)))
		rc = hb_usage_error("--out: %s", err);
	if (rc == 0 && c.out_json &&
	    !(json = json_open(c.out_json, r.csv, json_tmp, sizeof json_tmp, err, sizeof err))) {
		rc = hb_usage_error("--out-json: %s", err);
	} else if (rc == 0 && json && delegated) { /* the child writes it: the check was all */
		fclose(json);
		if (json_tmp[0])
			unlink(json_tmp);
		json = NULL;
	}
	if (delegated && rc == 0)
		rc = hb_sim_run(argc, orig, r.csv, c.out, c.sim_d1, c.sim_ll, c.quiet, c.resume);
	for (int i = 0; i < n_orig; i++)
		free(orig[i]);
	free(orig);
	if (rc || delegated) {
		json_discard(json, json_tmp);
		if (rc == 2 && out_new && r.csv) /* refused (hb_sim_run: 2 only before any row) */
			unlink(c.out);
		if (r.csv)
			fclose(r.csv);
		return rc;
	}

	char notice[400];
	if (hb_counters_init(c.counters, notice, sizeof notice, err, sizeof err)) {
		json_discard(json, json_tmp);
		if (r.csv && (fclose(r.csv), out_new))
			unlink(c.out);
		return hb_usage_error("%s", err);
	}
	if (notice[0] && !c.quiet)
		fprintf(stderr, "dodbench: %s\n", notice);
	if (!c.quiet && !c.sim_child)
		hb_env_warn(&env, stderr);

	if (c.samples_out && !(r.samples = hb_samples_open(c.samples_out, err, sizeof err))) {
		json_discard(json, json_tmp);
		if (r.csv && (fclose(r.csv), out_new))
			unlink(c.out);
		return hb_usage_error("--samples-out: %s", err);
	}
	if (hb_plan(&c, &r.cases, &r.n_cases)) {
		json_discard(json, json_tmp);
		return 1;
	}
	if (c.resume) {
		char resume_id[sizeof env.run_id];
		snprintf(resume_id, sizeof resume_id, "%s", c.run_id ? env.run_id : "");
		/* Under callgrind the child writes a private file: the rows to skip are in the
		 * user's, which the parent holds locked and merges into. */
		const char *from = c.sim_resume_from ? c.sim_resume_from : c.out;
		if (hb_resume_load(&r, from, resume_id, sizeof resume_id, err, sizeof err) != 0) {
			json_discard(json, json_tmp);
			hb_plan_free(r.cases, r.n_cases);
			return hb_usage_error("--resume: %s", err);
		}
		if (resume_id[0]) /* new rows join the run they complete */
			snprintf(env.run_id, sizeof env.run_id, "%s", resume_id);
		if (!c.quiet)
			fprintf(stderr, "dodbench: --resume: %zu repetitions of run %s are already in "
			        "%s and are not run again\n", r.resumed, env.run_id, from);
	}
	if (!c.quiet)
		fprintf(stderr, "dodbench: run %s, counter_source=%s, %zu cases, %llu reps + %llu "
		        "warm-up%s%s\n", env.run_id, hb_counter_source(), r.n_cases, c.reps, c.warmup,
		        c.interleave ? ", interleaved" : "", c.prefault ? ", prefaulted heap" : "");
	int exec_rc = hb_execute(&r, prefault_heap);
	if (exec_rc == HB_EXIT_OUTPUT) {
		fprintf(stderr, "dodbench: writing %s: %s; the sweep stopped (every row before "
		        "this one is whole)\n", c.out, strerror(r.out_errno));
		json_discard(json, json_tmp);
		return HB_EXIT_OUTPUT;
	}
	if (exec_rc) {
		json_discard(json, json_tmp);
		return 1;
	}
	if (c.counters == HB_COUNTERS_CALLGRIND)
		printf("(times below ran under callgrind, 20-200x slower than native: not comparable)\n");
	hb_summarize(&r, c.baseline ? c.baseline : c.containers[0]->name);

	int failed = 0;
	for (size_t i = 0; i < r.n_cases; i++)
		failed |= r.cases[i].failed;
	int out_rc = 0;
	if (json && json_finish(json, json_tmp, c.out_json, &env, r.cases, r.n_cases) != 0)
		out_rc = HB_EXIT_OUTPUT;
	hb_plan_free(r.cases, r.n_cases);
	if (r.samples && fclose(r.samples) != 0) {
		fprintf(stderr, "dodbench: writing %s: %s\n", c.samples_out, strerror(errno));
		out_rc = HB_EXIT_OUTPUT;
	}
	if (r.csv && fclose(r.csv) != 0) {
		fprintf(stderr, "dodbench: writing %s: %s\n", c.out, strerror(errno));
		out_rc = HB_EXIT_OUTPUT;
	}
	return out_rc ? out_rc : failed;
}

/* `list containers`: one line per variant with its axes, size classes and capabilities
 * (--names: the names only, for scripts). */
static void list_containers(bool names_only)
{
	if (!names_only)
		printf("%-24s %-11s %-11s %-18s %-14s %-12s %s\n", "name", "family", "removal",
		       "alloc", "layout", "sizes", "caps");
	for (size_t i = 0; i < hb_n_containers; i++) {
		const struct hb_container *k = &hb_containers[i];
		if (names_only) {
			puts(k->name);
			continue;
		}
		const struct dod_ops *ops = NULL;
		char sizes[32] = "";
		for (size_t s = 0; s < HB_N_SIZES; s++)
			if (k->ops[s]) {
				ops = ops ? ops : k->ops[s];
				snprintf(sizes + strlen(sizes), sizeof sizes - strlen(sizes), "%s%zu",
				         sizes[0] ? "," : "", hb_elem_sizes[s]);
			}
		printf("%-24s %-11s %-11s %-18s %-14s %-12s ", k->name, ops->family, ops->removal,
		       ops->alloc, ops->layout, sizes);
		bool any = false;
		for (int b = 0; b < DOD_N_CAPS; b++)
			if (ops->caps & (1u << b)) {
				printf("%s%s", any ? "|" : "", dod_cap_names[b]);
				any = true;
			}
		puts(any ? "" : "none");
	}
}

/* `list scenarios`: name, the parameters that change what it does, and its help line. */
static void list_scenarios(bool names_only)
{
	const struct scn_scenario *const *all;
	size_t n = scn_list(&all);
	if (!names_only)
		printf("%-16s %-40s %s\n", "name", "parameters", "what it times");
	for (size_t i = 0; i < n; i++) {
		if (names_only) {
			puts(all[i]->name);
			continue;
		}
		char params[64];
		snprintf(params, sizeof params, "n,elem-bytes%s%s%s", all[i]->uses_order ? ",order" : "",
		         all[i]->uses_holes ? ",hole-ratio,hole-pattern" : "",
		         all[i]->records_samples ? ",samples" : "");
		printf("%-16s %-40s %s\n", all[i]->name, params, all[i]->help);
	}
}

static int dispatch(int argc, char **argv);

int main(int argc, char **argv)
{
	if (RUNNING_ON_VALGRIND) {
		/* Start every run's stack at the same address modulo 1 MiB, whatever the size of
		 * the arguments and environment above it, so that stack data maps to the same
		 * simulated cache sets: callgrind counts then do not depend on a file name. */
		uintptr_t sp = (uintptr_t)__builtin_frame_address(0);
		volatile char *pad = alloca((sp & 0xFFFFF) + 64);
		pad[0] = 0;
		return dispatch(argc, argv);
	}
	return dispatch(argc, argv);
}

static int dispatch(int argc, char **argv)
{
	if (argc < 2)
		return hb_usage_error("missing command: list or run");
	if (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0 ||
	    strcmp(argv[1], "help") == 0) {
		hb_print_help(stdout);
		return 0;
	}
	if (strcmp(argv[1], "list") == 0) {
		bool names = argc == 4 && strcmp(argv[3], "--names") == 0;
		if ((argc == 3 || names) && strcmp(argv[2], "containers") == 0) {
			list_containers(names);
			return 0;
		}
		if ((argc == 3 || names) && strcmp(argv[2], "scenarios") == 0) {
			list_scenarios(names);
			return 0;
		}
		return hb_usage_error("usage: dodbench list containers|scenarios [--names]");
	}
	if (strcmp(argv[1], "run") == 0)
		return cmd_run(argc - 1, argv + 1);
	return hb_usage_error("unknown command '%s': use list or run", argv[1]);
}
