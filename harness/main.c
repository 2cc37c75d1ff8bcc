/* main.c - the dodbench command line: `list` (or `--list`) what is registered, `run` the
 * product of the selected cases (cli.c parses, plan.c names the cases, schedule.c runs
 * them and hands their rows to the run's reporters, report.h: CSV, console, JSON),
 * `--help`; an unknown command near a known one is answered
 * with it. Every argument and every output path is checked before any work (exit 2); a
 * case whose verification fails makes the exit status 1; an output that cannot be
 * written mid-run stops the sweep with HB_EXIT_OUTPUT (3).
 */
#define _GNU_SOURCE
#include <alloca.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <malloc.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <valgrind/valgrind.h>

#include "report.h"
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
	const struct hb_axis_values *ns = &c->axis[HB_AXIS_N], *elems = &c->axis[HB_AXIS_ELEM];
	double need = 0;
	for (size_t i = 0; i < ns->n; i++)
		for (size_t e = 0; e < elems->n; e++) {
			double b = (double)ns->v[i].u * (double)(2 * elems->v[e].u + 64);
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

/* The run's output files (--out, --samples-out, --out-json): opened and checked together
 * before any work (outputs_open), so that every refusal comes first (exit 2), and
 * finished (outputs_close) or dropped (outputs_discard) together. */
struct outputs {
	FILE *csv, *samples, *json;
	char json_tmp[4200];       /* "PATH.tmp-PID" while the JSON is written there, else "" */
	bool csv_new, samples_new; /* created by this run: a refused run removes them */
};

/* The --out-json temporary file while it exists, for remove_json_tmp, and the process
 * that made it: a worker, forked with the handler before it resets it, must not remove
 * the parent's file. */
static const char *volatile json_tmp_live;
static volatile sig_atomic_t json_tmp_owner;
/* Every signal whose default action ends the process and that a handler can catch
 * (signal(7): Term and Core, less those that report a fault in the process itself). */
static const int json_tmp_signals[] = {SIGINT,  SIGTERM, SIGHUP,    SIGQUIT, SIGPIPE,
                                       SIGUSR1, SIGUSR2, SIGALRM,   SIGVTALRM, SIGPROF,
                                       SIGXCPU, SIGPOLL, SIGSTKFLT, SIGPWR,  SIGSYS};
#define N_JSON_TMP_SIGNALS (sizeof json_tmp_signals / sizeof json_tmp_signals[0])
static struct sigaction json_tmp_old[N_JSON_TMP_SIGNALS];

/* A signal of json_tmp_signals while the temporary file exists: remove it, then die of
 * the signal as without a handler. (A kill -9 cannot be caught: it leaves the file, which
 * the next run with the same --out-json does not mistake for its own.) */
static void remove_json_tmp(int sig)
{
	const char *tmp = json_tmp_live;
	if (tmp && json_tmp_owner == getpid())
		unlink(tmp);
	signal(sig, SIG_DFL);
	raise(sig);
}

/* Arms remove_json_tmp for tmp, or with NULL disarms it (restoring the handlers it
 * replaced). A signal the user ignores (nohup) stays ignored. */
static void guard_json_tmp(const char *tmp)
{
	struct sigaction sa = {.sa_handler = remove_json_tmp};
	sigemptyset(&sa.sa_mask);
	for (size_t i = 0; i < N_JSON_TMP_SIGNALS; i++)
		sigaddset(&sa.sa_mask, json_tmp_signals[i]);
	if (tmp) {
		json_tmp_owner = getpid();
		json_tmp_live = tmp;
	} else if (!json_tmp_live) {
		return;
	}
	for (size_t i = 0; i < N_JSON_TMP_SIGNALS; i++) {
		if (!tmp)
			sigaction(json_tmp_signals[i], &json_tmp_old[i], NULL);
		else if (sigaction(json_tmp_signals[i], NULL, &json_tmp_old[i]) == 0 &&
		         json_tmp_old[i].sa_handler != SIG_IGN)
			sigaction(json_tmp_signals[i], &sa, NULL);
	}
	if (!tmp)
		json_tmp_live = NULL;
}

/* A device (/dev/null) takes any number of writers: it is no output's own. */
static bool is_device(const struct stat *st)
{
	return S_ISCHR(st->st_mode) || S_ISBLK(st->st_mode);
}

/* The option whose open output (--out, --samples-out, --out-json) is the file st
 * describes, or NULL: two outputs on one file would mix their lines or lose one. A device
 * is no output's own (NULL). */
static const char *output_named(const struct outputs *o, const struct stat *st)
{
	if (is_device(st))
		return NULL;
	FILE *const f[3] = {o->csv, o->samples, o->json};
	static const char *const opt[3] = {"--out", "--samples-out", "--out-json"};
	for (int i = 0; i < 3; i++) {
		struct stat os;
		if (f[i] && fstat(fileno(f[i]), &os) == 0 && os.st_dev == st->st_dev &&
		    os.st_ino == st->st_ino)
			return opt[i];
	}
	return NULL;
}

/* Opens the --out-json target before any work. A regular file (or a new one) is written
 * to a temporary file beside it, "PATH.tmp-PID" (o->json_tmp), renamed over PATH only
 * when complete and removed if a signal ends the run first; anything else (a device) is
 * opened directly (json_tmp stays ""). Refuses an empty name, a directory, a path that
 * cannot be created or written, and a file another output of o already has. Returns
 * the stream or NULL with the reason in err. */
static FILE *json_open(const char *path, struct outputs *o, char *err, size_t err_len)
{
	struct stat st;
	char *tmp = o->json_tmp;
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
	const char *other = exists ? output_named(o, &st) : NULL;
	if (other) {
		snprintf(err, err_len, "%s is also the %s file: give each output its own file", path,
		         other);
		return NULL;
	}
	if (exists && !S_ISREG(st.st_mode)) { /* a device or a pipe (with a reader) */
		bool created;
		int fd = hb_output_open(path, &created, err, err_len);
		FILE *f = fd >= 0 ? fdopen(fd, "w") : NULL;
		if (fd >= 0 && !f) {
			snprintf(err, err_len, "cannot open %s for writing: %s", path, strerror(errno));
			close(fd);
		}
		return f;
	}
	if (exists && access(path, W_OK) != 0) {
		snprintf(err, err_len, "cannot write %s: %s", path, strerror(errno));
		return NULL;
	}
	if (hb_json_tmp_path(tmp, sizeof o->json_tmp, path, (long)getpid()) != 0) {
		snprintf(err, err_len, "%s: the name is too long", path);
		tmp[0] = '\0';
		return NULL;
	}
	/* No signal between the file's creation and its guard: it would stay behind. */
	sigset_t block, old;
	sigemptyset(&block);
	for (size_t i = 0; i < N_JSON_TMP_SIGNALS; i++)
		sigaddset(&block, json_tmp_signals[i]);
	sigprocmask(SIG_BLOCK, &block, &old);
	int fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
	if (fd >= 0)
		guard_json_tmp(tmp);
	sigprocmask(SIG_SETMASK, &old, NULL);
	if (fd < 0) { /* not ours to remove */
		snprintf(err, err_len, "cannot create %.300s: %s", tmp, strerror(errno));
		tmp[0] = '\0';
		return NULL;
	}
	FILE *f = fdopen(fd, "w");
	if (!f) { /* json_discard removes the file */
		snprintf(err, err_len, "cannot open %.300s: %s", tmp, strerror(errno));
		close(fd);
	}
	return f;
}

/* Drops an unfinished --out-json: closes it and removes its temporary file. */
static void json_discard(struct outputs *o)
{
	if (o->json)
		fclose(o->json);
	o->json = NULL;
	if (o->json_tmp[0])
		unlink(o->json_tmp);
	o->json_tmp[0] = '\0';
	guard_json_tmp(NULL);
}

/* Writes the JSON, then renames the temporary file over path: the file at path is the
 * old one or the complete new one, never a partial write. Returns 0 or the errno of the
 * failure (temporary file removed; the caller prints the message). */
static int json_finish(struct outputs *o, const char *path, const struct hb_env *env,
                       const struct hb_case *cases, size_t n_cases)
{
	int bad = hb_json_write(o->json, env, cases, n_cases) != 0;
	int saved = errno;
	if (fclose(o->json) != 0 && !bad) {
		bad = 1;
		saved = errno;
	}
	o->json = NULL;
	if (!bad && o->json_tmp[0] && rename(o->json_tmp, path) != 0) {
		bad = 1;
		saved = errno;
	}
	if (!bad)
		o->json_tmp[0] = '\0';
	json_discard(o);
	return bad ? (saved ? saved : EIO) : 0;
}

/* The --out-json reporter (report.h): at the end of the run, the JSON (json.c) of its
 * cases, written whole to the temporary file and renamed over the path (json_finish). */
static int json_end(struct hb_reporter *self, const struct hb_run *r, int status)
{
	(void)status;
	return json_finish(self->state, self->path, r->env, r->cases, r->n_cases);
}

/* Opens --samples-out into o, refusing the file --out already has and an existing
 * --out-json target (json_path, or NULL), which it is opened before: json_open then
 * refuses the samples' file even when it is new. Returns 0 or -1 with the reason in err. */
static int samples_open(struct outputs *o, const char *path, const char *json_path, char *err,
                        size_t err_len)
{
	struct stat st, js;
	bool exists = stat(path, &st) == 0;
	const char *other = exists ? output_named(o, &st) : NULL;
	if (exists && !other && json_path && stat(json_path, &js) == 0 && !is_device(&st) &&
	    js.st_dev == st.st_dev && js.st_ino == st.st_ino)
		other = "--out-json";
	if (other) {
		snprintf(err, err_len, "%s is also the %s file: give each output its own file", path,
		         other);
		return -1;
	}
	o->samples = hb_samples_open(path, &o->samples_new, err, err_len);
	return o->samples ? 0 : -1;
}

/* Closes --samples-out unwritten (and removes it when remove_new and this run made it). */
static void samples_drop(struct outputs *o, const struct hb_config *c, bool remove_new)
{
	if (!o->samples)
		return;
	hb_output_remove(fileno(o->samples), c->samples_out, remove_new && o->samples_new);
	fclose(o->samples);
	o->samples = NULL;
}

/* Drops every output of a run that ends early: the JSON's temporary file goes, and when
 * the run was refused (exit 2), so do the files it created. */
static void outputs_discard(struct outputs *o, const struct hb_config *c, bool refused)
{
	json_discard(o);
	samples_drop(o, c, refused);
	if (o->csv) {
		hb_output_remove(fileno(o->csv), c->out, refused && o->csv_new); /* still locked */
		fclose(o->csv);
		o->csv = NULL;
	}
}

/* An output on the file standard output is (--out /dev/stdout, /proc/self/fd/1, or the
 * file stdout is redirected to) would take the summary, which goes to stdout, into its
 * rows: then stdout becomes a copy of stderr for the rest of the run, the worker and the
 * valgrind child included. */
static void summary_off_stdout(const struct outputs *o)
{
	struct stat st;
	FILE *const f[3] = {o->csv, o->samples, o->json};
	for (int i = 0; i < 3; i++)
		if (f[i] && fileno(f[i]) == STDOUT_FILENO)
			return; /* stdout was closed and an output got its number: it is not stdout */
	if (fstat(STDOUT_FILENO, &st) == 0 && output_named(o, &st)) {
		fflush(stdout);
		dup2(STDERR_FILENO, STDOUT_FILENO);
	}
}

/* Opens every output of c into o before any work: --resume's file is checked first, then
 * --out, --samples-out and --out-json are opened in that order, none on a file an earlier
 * one has (even a new one: it exists once opened). Under callgrind delegation (delegated)
 * the valgrind child writes the samples and the JSON: here they are only checked. Returns
 * 0, or 2 with the usage error printed and what it created removed. */
static int outputs_open(struct outputs *o, const struct hb_config *c, bool delegated)
{
	char err[400];
	const char *what = NULL;
	/* A file-size limit (ulimit -f) is then a failed write, EFBIG, handled as a full
	 * disk, not a death by SIGXFSZ halfway through a row; workers and valgrind inherit it. */
	signal(SIGXFSZ, SIG_IGN);
	if (c->resume && c->out && hb_resume_check(c->out, err, sizeof err) != 0)
		what = "--resume";
	else if (c->out && !(o->csv = hb_csv_open(c->out, &o->csv_new, err, sizeof err)))
		what = "--out";
	else if (c->samples_out && samples_open(o, c->samples_out, c->out_json, err, sizeof err) != 0)
		what = "--samples-out";
	else if (c->out_json && !(o->json = json_open(c->out_json, o, err, sizeof err)))
		what = "--out-json";
	if (what) {
		outputs_discard(o, c, true);
		return hb_usage_error("%s: %s", what, err);
	}
	summary_off_stdout(o);
	if (delegated) { /* the child writes them: the check was all */
		json_discard(o);
		samples_drop(o, c, true);
	}
	return 0;
}

/* Closes the files of a run that went to its end, after its reporters' end (the JSON is
 * then written and renamed into place): --samples-out and --out. Returns 0 or
 * HB_EXIT_OUTPUT (message printed). */
static int outputs_close(struct outputs *o, const struct hb_config *c)
{
	int rc = 0;
	FILE *const f[2] = {o->samples, o->csv};
	const char *const path[2] = {c->samples_out, c->out};
	for (int i = 0; i < 2; i++)
		if (f[i] && fclose(f[i]) != 0) {
			fprintf(stderr, "dodbench: writing %s: %s\n", path[i], strerror(errno));
			rc = HB_EXIT_OUTPUT;
		}
	o->samples = o->csv = NULL;
	return rc;
}

/* --resume: marks the repetitions --out already holds, and new rows join their run.
 * Returns 0 or 2 (message printed). */
static int resume_load(struct hb_run *r, struct hb_env *env)
{
	const struct hb_config *c = r->c;
	char resume_id[sizeof env->run_id], err[400];
	snprintf(resume_id, sizeof resume_id, "%s", c->run_id ? env->run_id : "");
	/* Under callgrind the child writes a private file: the rows to skip are in the
	 * user's, which the parent holds locked and merges into. */
	const char *from = c->sim_resume_from ? c->sim_resume_from : c->out;
	if (hb_resume_load(r, from, resume_id, sizeof resume_id, err, sizeof err) != 0)
		return hb_usage_error("--resume: %s", err);
	if (resume_id[0]) /* new rows join the run they complete */
		snprintf(env->run_id, sizeof env->run_id, "%s", resume_id);
	if (r->samples && hb_resume_trim_samples(r, fileno(r->samples), c->samples_out,
	                                         resume_id, err, sizeof err) != 0)
		return hb_usage_error("--resume: %s", err);
	if (!c->quiet)
		fprintf(stderr, "dodbench: --resume: %zu repetitions of run %s are already in "
		        "%s and are not run again\n", r->resumed, env->run_id, from);
	return 0;
}

/* The reporters of a run (report.h), in the order each row and the end reach them: the
 * CSV (--out), the console, the JSON (--out-json). */
struct reporters {
	struct hb_reporter csv, console, json;
	struct hb_reporter *list[3];
	size_t n;
};

static void reporters_make(struct reporters *rs, const struct hb_config *c, struct outputs *o)
{
	rs->n = 0;
	if (o->csv) {
		hb_csv_reporter(&rs->csv, o->csv, c->out);
		rs->list[rs->n++] = &rs->csv;
	}
	hb_console_reporter(&rs->console);
	rs->list[rs->n++] = &rs->console;
	if (o->json) {
		rs->json = (struct hb_reporter){.path = c->out_json, .end = json_end, .state = o};
		rs->list[rs->n++] = &rs->json;
	}
}

/* The plan, --resume, the reporters' begin and the repetitions. Returns 0 or the exit
 * status (message printed). */
static int run_plan(struct hb_run *r, struct hb_env *env)
{
	const struct hb_config *c = r->c;
	int rc = hb_plan(c, &r->cases, &r->n_cases) ? 1 : c->resume ? resume_load(r, env) : 0;
	r->name_w = hb_name_width(r->cases, r->n_cases);
	if (rc == 0 && (r->out_errno = hb_report_begin(r->reporters, r->n_reporters, r,
	                                               &r->out_failed)) != 0)
		rc = HB_EXIT_OUTPUT;
	if (rc == 0)
		rc = hb_execute(r, prefault_heap);
	if (rc == HB_EXIT_OUTPUT)
		hb_csv_say_stopped(r->samples_failed ? c->samples_out
		                                     : r->reporters[r->out_failed]->path,
		                   r->out_errno);
	return rc;
}

/* The run in this process (not delegated to callgrind): counters, the plan, --resume, the
 * repetitions, the reporters' end (summary, JSON), then the outputs. Returns the exit
 * status. */
static int run_cases(const struct hb_config *c, struct hb_env *env, struct outputs *o)
{
	struct reporters rs;
	reporters_make(&rs, c, o);
	struct hb_run r = {.c = c, .env = env, .tty = isatty(2), .reporters = rs.list,
	                   .n_reporters = rs.n, .samples = o->samples};
	char notice[400], err[400];
	if (hb_counters_init(c->counters, notice, sizeof notice, err, sizeof err)) {
		outputs_discard(o, c, true);
		return hb_usage_error("%s", err);
	}
	if (notice[0] && !c->quiet)
		fprintf(stderr, "dodbench: %s\n", notice);
	if (!c->quiet && !c->sim_child)
		hb_env_warn(env, stderr);
	int rc = run_plan(&r, env);
	if (rc) {
		outputs_discard(o, c, rc == 2);
		hb_plan_free(r.cases, r.n_cases);
		return rc;
	}
	int failed = 0;
	for (size_t i = 0; i < r.n_cases; i++)
		failed |= r.cases[i].failed;
	rc = hb_report_end(rs.list, rs.n, &r, failed);
	int closed = outputs_close(o, c);
	hb_plan_free(r.cases, r.n_cases);
	return rc ? rc : closed ? closed : failed;
}

static void free_args(char **args, int n)
{
	for (int i = 0; i < n; i++)
		free(args[i]);
	free(args);
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
	if (rc == 0 && !c.help && !c.quiet && !c.sim_child)
		hb_cache_notices(stderr);
	if (rc == 0 && c.help) {
		hb_print_help(stdout);
		free_args(orig, n_orig);
		return 0;
	}
	/* Pinned before the environment is captured: pinned_cpu reads the affinity. */
	if (rc == 0 && c.pin >= 0 && hb_pin((int)c.pin) != 0)
		rc = hb_usage_error("--pin: cannot pin to CPU %ld: %s", c.pin, strerror(errno));
	hb_env_capture(&env);
	if (c.run_id)
		snprintf(env.run_id, sizeof env.run_id, "%s", c.run_id);
	if (rc == 0)
		rc = hb_check_fits(&c);
	/* Every output is opened and checked before any work: a bad path, a file another run
	 * is writing, a full device or two outputs naming one file are refused here (exit 2),
	 * not found after the sweep. */
	struct outputs o = {0};
	bool delegated = rc == 0 && c.counters == HB_COUNTERS_CALLGRIND && !c.sim_child && n_orig > 0;
	if (rc == 0)
		rc = outputs_open(&o, &c, delegated);
	/* The whole plan with each case's shard, once per invocation (not in the callgrind
	 * child, which plans the same cases again). */
	if (rc == 0 && c.shard_n && !c.sim_child)
		rc = hb_shard_manifest(&c, env.run_id);
	if (delegated && rc == 0)
		rc = hb_sim_run(argc, orig, o.csv, &c);
	free_args(orig, n_orig);
	if (rc || delegated) {
		outputs_discard(&o, &c, rc == 2);
		return rc;
	}
	return run_cases(&c, &env, &o);
}

/* Writes the words of the set bits of `bits` (word(b) for bit b < n) joined by '|', or
 * "none", to buf[0 .. len). */
static void join_words(char *buf, size_t len, unsigned bits, const char *(*word)(unsigned b),
                       unsigned n)
{
	size_t at = 0;
	buf[0] = '\0';
	for (unsigned b = 0; b < n; b++)
		if ((bits & (1u << b)) && at < len)
			at += (size_t)snprintf(buf + at, len - at, "%s%s", at ? "|" : "", word(b));
	if (!at)
		snprintf(buf, len, "none");
}
static const char *cap_word(unsigned b) { return dod_cap_names[b]; }
static const char *ext_word(unsigned b) { return dod_ext_descs[b].name; }

/* The columns of `list containers`. */
enum { L_NAME, L_FAMILY, L_REMOVAL, L_ALLOC, L_LAYOUT, L_SIZES, L_EXTS, L_CAPS, L_N_COLS };
#define CELL_LEN 160

/* The cells of container k's line (the header's when k is NULL). */
static void container_cells(const struct hb_container *k, char cells[L_N_COLS][CELL_LEN])
{
	static const char *const heads[L_N_COLS] = {"name", "family", "removal", "alloc", "layout",
	                                            "sizes", "exts", "caps"};
	if (!k) {
		for (int i = 0; i < L_N_COLS; i++)
			snprintf(cells[i], CELL_LEN, "%s", heads[i]);
		return;
	}
	const struct dod_ops *ops = NULL;
	cells[L_SIZES][0] = '\0';
	for (size_t s = 0, at = 0; s < HB_N_SIZES; s++)
		if (k->ops[s]) {
			ops = ops ? ops : k->ops[s];
			at += (size_t)snprintf(cells[L_SIZES] + at, CELL_LEN - at, "%s%zu", at ? "," : "",
			                       hb_elem_sizes[s]);
		}
	snprintf(cells[L_NAME], CELL_LEN, "%s", k->name);
	snprintf(cells[L_FAMILY], CELL_LEN, "%s", ops->family);
	snprintf(cells[L_REMOVAL], CELL_LEN, "%s", ops->removal);
	snprintf(cells[L_ALLOC], CELL_LEN, "%s", ops->alloc);
	snprintf(cells[L_LAYOUT], CELL_LEN, "%s", ops->layout);
	join_words(cells[L_EXTS], CELL_LEN, dod_exts(ops), ext_word, DOD_N_EXTS);
	join_words(cells[L_CAPS], CELL_LEN, ops->caps, cap_word, DOD_N_CAPS);
}

/* `list containers`: one line per variant with its axes, size classes, family extensions
 * (containers/contract.h) and capabilities, each column as wide as its longest cell
 * (--names: the names only, for scripts). */
static void list_containers(bool names_only)
{
	for (size_t i = 0; names_only && i < hb_n_containers; i++)
		puts(hb_containers[i].name);
	if (names_only)
		return;
	char cells[L_N_COLS][CELL_LEN];
	int width[L_N_COLS] = {0};
	for (size_t i = 0; i <= hb_n_containers; i++) { /* the header, then every variant */
		container_cells(i ? &hb_containers[i - 1] : NULL, cells);
		for (int col = 0; col < L_N_COLS; col++)
			width[col] = (int)strlen(cells[col]) > width[col] ? (int)strlen(cells[col])
			                                                  : width[col];
	}
	for (size_t i = 0; i <= hb_n_containers; i++) {
		container_cells(i ? &hb_containers[i - 1] : NULL, cells);
		for (int col = 0; col < L_N_COLS - 1; col++)
			printf("%-*s ", width[col], cells[col]);
		puts(cells[L_CAPS]);
	}
}

/* The parameters that change what scenario s does: the options of the axes it takes
 * (axes.c), then "samples" when it records latency samples, joined by ','. */
static void scenario_params(const struct scn_scenario *s, char *buf, size_t len)
{
	const struct hb_axis *const *axes;
	size_t n = hb_axes(&axes), at = 0;
	buf[0] = '\0';
	for (size_t i = 0; i < n && at < len; i++)
		if (hb_axis_takes(axes[i], s))
			at += (size_t)snprintf(buf + at, len - at, "%s%s", at ? "," : "", axes[i]->option);
	if (s->records_samples && at < len)
		snprintf(buf + at, len - at, ",samples");
}

/* `list scenarios`: name, the parameters that change what it does, and its help line, the
 * first two columns as wide as their longest cell. */
static void list_scenarios(bool names_only)
{
	const struct scn_scenario *const *all;
	size_t n = scn_list(&all);
	char params[400];
	int name_w = (int)strlen("name"), params_w = (int)strlen("parameters");
	for (size_t i = 0; i < n; i++) {
		scenario_params(all[i], params, sizeof params);
		name_w = (int)strlen(all[i]->name) > name_w ? (int)strlen(all[i]->name) : name_w;
		params_w = (int)strlen(params) > params_w ? (int)strlen(params) : params_w;
	}
	if (!names_only)
		printf("%-*s %-*s %s\n", name_w, "name", params_w, "parameters", "what it times");
	for (size_t i = 0; i < n; i++) {
		if (names_only) {
			puts(all[i]->name);
			continue;
		}
		scenario_params(all[i], params, sizeof params);
		printf("%-*s %-*s %s\n", name_w, all[i]->name, params_w, params, all[i]->help);
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

/* `dodbench caches [--curve]`: each level's size from sysfs beside the measured one and
 * the one --n's cache words use (a TSV after a comment line); --curve adds the pointer
 * chase's points. Returns 0, 1 (a level could not be resolved) or 2 (usage). */
static int cmd_caches(int argc, char **argv)
{
	bool curve = argc == 2 && strcmp(argv[1], "--curve") == 0;
	if (argc > 2 || (argc == 2 && !curve))
		return hb_usage_error("usage: dodbench caches [--curve]");
	static const char *const names[] = {"l1", "l2", "llc"};
	static const int levels[] = {1, 2, 0};
	struct hb_cache_size size[3];
	char err[300];
	for (int i = 0; i < 3; i++)
		if (hb_cache_word_bytes(levels[i], &size[i], err, sizeof err))
			return hb_usage_error("%s", err);
	const struct hb_chase *m = hb_chase_curve();
	if (m)
		printf("# measured by a pointer chase: %zu-byte lines, sets 4 KiB .. %llu KiB, "
		       "huge pages %s; the measured size is used when more than 2x from sysfs's\n",
		       m->line_bytes, (unsigned long long)(m->cap_bytes >> 10),
		       m->huge_pages ? "asked" : "refused (TLB misses may add knees)");
	else
		printf("# measured: %s\n", size[0].source ? size[0].source :
		       "not (a faked sysfs, DODBENCH_CACHE_DIR, is not measured)");
	printf("level\tsysfs_bytes\tmeasured_bytes\tused_bytes\tused\n");
	for (int i = 0; i < 3; i++) {
		const struct hb_cache_size *z = &size[i];
		printf("%s\t%llu\t", names[i], (unsigned long long)z->sysfs_bytes);
		if (z->measured_bytes)
			printf("%llu", (unsigned long long)z->measured_bytes);
		printf("\t%llu\t%s\n", (unsigned long long)z->bytes,
		       !z->sysfs_bytes ? "none" : z->used_measured ? "measured" : "sysfs");
	}
	if (curve && m) {
		printf("\nbytes\tns_per_load\n");
		for (size_t i = 0; i < m->n; i++)
			printf("%llu\t%.2f\n", (unsigned long long)m->bytes[i], m->ns[i]);
	}
	return fflush(stdout) == 0 ? 0 : 1;
}

/* The commands dispatch knows, in the order a suggestion prefers them. */
static const char *const commands[] = {"list", "run", "caches", "help", "--list", "--help"};
#define N_COMMANDS (sizeof commands / sizeof *commands)
#define SUGGEST_MAX_LEN 32 /* a longer word is no typo of a command */

/* The optimal string alignment distance between a and b (insertions, deletions,
 * substitutions and swaps of two neighbours, each 1: "lsit" is 1 from "list"); both at
 * most SUGGEST_MAX_LEN bytes. */
static size_t edit_distance(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b), d[SUGGEST_MAX_LEN + 1][SUGGEST_MAX_LEN + 1];
	for (size_t i = 0; i <= la; i++)
		for (size_t j = 0; j <= lb; j++) {
			if (i == 0 || j == 0) {
				d[i][j] = i + j;
				continue;
			}
			size_t best = d[i - 1][j - 1] + (a[i - 1] != b[j - 1]);
			best = d[i - 1][j] + 1 < best ? d[i - 1][j] + 1 : best;
			best = d[i][j - 1] + 1 < best ? d[i][j - 1] + 1 : best;
			if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] &&
			    d[i - 2][j - 2] + 1 < best)
				best = d[i - 2][j - 2] + 1;
			d[i][j] = best;
		}
	return d[la][lb];
}

/* The known command an unknown word is a typo of: the nearest within 2 edits and nearer
 * than its own length ("x" suggests nothing), the first on a tie; or NULL. */
static const char *command_like(const char *word)
{
	const char *best = NULL;
	size_t best_d = 3;
	if (strlen(word) > SUGGEST_MAX_LEN)
		return NULL;
	for (size_t i = 0; i < N_COMMANDS; i++) {
		size_t d = edit_distance(word, commands[i]);
		if (d < best_d && d < strlen(commands[i])) {
			best = commands[i];
			best_d = d;
		}
	}
	return best;
}

static int dispatch(int argc, char **argv)
{
	if (argc < 2)
		return hb_usage_error("missing command: list, run or caches");
	if (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0 ||
	    strcmp(argv[1], "help") == 0) {
		hb_print_help(stdout);
		return 0;
	}
	if (strcmp(argv[1], "list") == 0 || strcmp(argv[1], "--list") == 0) {
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
	if (strcmp(argv[1], "caches") == 0)
		return cmd_caches(argc - 1, argv + 1);
	const char *like = command_like(argv[1]);
	if (like)
		return hb_usage_error("unknown command '%s'; did you mean '%s'?", argv[1], like);
	return hb_usage_error("unknown command '%s': use list, run or caches", argv[1]);
}
