/* run.h - the parts of one `dodbench run`, one file each (harness-private):
 *   axes.c      the case axes, each defined once (axes.h): options, values, names
 *   cli.c       options -> struct hb_config (every check before any work: exit 2)
 *   plan.c      config -> the product of cases, skips, and the size check
 *   schedule.c  runs the repetitions (in order or interleaved), hands their rows to
 *               the reporters (report.h), writes latency samples, prints progress
 *   summary.c   medians, dispersion, ratios to the baseline with bootstrap CIs
 *   main.c      dispatch: list, run, help
 */
#ifndef HB_RUN_H
#define HB_RUN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "hb.h"
#include "scenario.h"

/* The values given for one axis, distinct, in the order given. */
struct hb_axis_values {
	union hb_axis_value *v;
	size_t n;
};

struct hb_config {
	const struct hb_container **containers; /* selected, in the order given */
	size_t n_containers;
	const struct scn_scenario **scenarios;
	size_t n_scenarios;
	struct hb_axis_values axis[HB_MAX_AXES]; /* the values of each axis (hb_axes order) */
	unsigned long long reps, warmup, seed;
	const char *out, *out_json, *samples_out, *run_id, *baseline, *sim_d1, *sim_ll;
	const char *sim_resume_from; /* callgrind child with --resume: the user's --out file */
	enum hb_counter_mode counters;
	int quiet, interleave, prefault, sim_child, resume;
	int progress;               /* --progress: progress lines even with --quiet */
	int no_fork;                /* --no-fork: cases run in this process */
	int help;                   /* --help: the options after it are not read */
	double timeout_s;           /* --timeout: seconds a case may run in all; 0: none */
	long pin;
	unsigned shard_k, shard_n;  /* --shard K/N: the cases of shard K of N; 0/0: all */
	double progress_after_s;    /* no progress line before this many seconds */
};

/* Parses the options of `run` (argv[0] = "run") into c and checks them against each other;
 * it neither pins nor prints help (c->pin, c->help: the caller does). Returns 0, or 2 after
 * printing a usage error. Allocations live until the process ends. */
int hb_parse_run(struct hb_config *c, int argc, char **argv);
/* Prints dodbench's help text (every command and option) to f. */
void hb_print_help(FILE *f);
/* Prints "dodbench: <message>\n(see dodbench --help)" on stderr; returns 2. */
int hb_usage_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* How a repetition (and a case: its first status other than ok) ended; the CSV's status
 * column. failed: not verified, or a container call failed; crashed: a signal or an
 * abnormal exit of the child that ran it; timeout: --timeout; oom: a container call
 * returned DOD_ENOMEM, or the child was killed by SIGKILL that dodbench did not send (the
 * kernel's OOM killer, as a rule). */
enum hb_status { HB_OK, HB_FAILED, HB_CRASHED, HB_TIMEOUT, HB_OOM };
/* The signals that stop a run, SIGINT, SIGTERM and SIGHUP (schedule.c): the parent's
 * --out-json cleanup (main.c), the worker's reset (schedule.c) and the callgrind parent's
 * pass-on (sim.c) handle these three; each leaves one the user ignores (nohup) ignored. */
#define HB_N_STOP_SIGNALS 3
extern const int hb_stop_signals[HB_N_STOP_SIGNALS];

/* The --out-json temporary file of process pid: "PATH.tmp-PID" into buf[0 .. len), written
 * by main.c's json_open, removed by the callgrind parent (sim.c) when its child died before
 * renaming it. Returns 0, or -1 when the name does not fit (buf then holds ""). */
int hb_json_tmp_path(char *buf, size_t len, const char *path, long pid);

extern const char *const hb_status_names[]; /* "ok", "failed", "crashed", "timeout", "oom" */

struct hb_case {
	const struct hb_container *container;
	const struct dod_ops *ops;   /* NULL when the variant has no such size class */
	const struct scn_scenario *scn;
	struct scn_params p;         /* what the scenario sees of the axes (their binds) */
	union hb_axis_value axis[HB_MAX_AXES]; /* its value of every axis (hb_axes order) */
	unsigned taken;              /* bit i: axis i applies to it (hb_axes_taken) */
	char *name;                  /* hb_case_name */
	const char *skip;            /* reason it cannot run, or NULL */
	bool cannot_run;             /* skip is scn_cannot_run's: its container lacks what the
	                                scenario needs (the summary gives one line per container
	                                and reason), not an axis's refusal of its own values */
	uint64_t *elapsed_ns, *cpu_ns; /* per measured repetition, ns per pass (the region's
	                                time / its passes) */
	double ns_per_op_div;        /* ops of one pass of the last repetition (summary) */
	uint64_t passes;             /* passes of the last repetition's region (>= 1; 0: none
	                                measured) */
	size_t short_regions;        /* measured repetitions whose region lasted less than
	                                hb_min_region_ns() */
	double hole_ratio;           /* the real fraction erased (last repetition) */
	size_t done;                 /* measured repetitions done */
	bool failed;                 /* a repetition was not verified, or a call failed */
	bool errored;                /* a container call failed: remaining reps not run */
	unsigned char *have;         /* --resume: have[rep] = 1 when --out already holds it */
	size_t resumed;              /* how many of its reps --out already holds */
	enum hb_status status;       /* the first status other than ok, else HB_OK */
	char status_detail[200];     /* why (a signal, the failed call, the check) */
	long long status_rep;        /* the repetition it happened in; < 0: a warm-up */
	bool stopped;                /* its remaining repetitions are not run */
	double spent_s;              /* wall time its repetitions took so far (--timeout) */
};

/* The cases of c: the product scenarios x containers x the axes' values, the `outer` axes
 * (elem_bytes) first, then the others in table order (n, order, hole ratio, hole pattern,
 * ...). An axis that does not apply to a case (its scenario does not take it: order
 * without uses_order; or its `applies` says no: the pattern of ratio 0) runs once with its
 * absent value. A case an axis's `skip` refuses (a ratio that rounds to 0 holes at an n)
 * is skipped there. Returns 0 or 1 (out of memory, message printed). */
int hb_plan(const struct hb_config *c, struct hb_case **cases_out, size_t *n_out);
/* Rejects sizes a container cannot index or this process cannot hold (scn_mem_limit:
 * free memory, ulimit, cgroup; the message names the limit), and what an axis's `check`
 * refuses (a hole ratio that rounds to 0 holes at every n). Returns 0 or 2. */
int hb_check_fits(const struct hb_config *c);
void hb_plan_free(struct hb_case *cases, size_t n);

/* --shard K/N (harness/plan.c). A case belongs to shard hb_shard_owner(name, N) in 1..N:
 * the FNV-1a hash of its name modulo N, plus 1. A case's shard depends on its name alone,
 * so it is the same in every invocation, order of the options, --resume or sweep line; a
 * shard may hold no case. hb_plan keeps the cases of shard c->shard_k only. */
unsigned hb_shard_owner(const char *name, unsigned n);
/* The shard manifest of a --shard run: the file beside c->out (its name with ".csv"
 * replaced by, or else followed by, ".plan.tsv") into buf[0 .. len). Returns 0, or -1 when
 * it does not fit. */
int hb_shard_manifest_path(char *buf, size_t len, const char *out);
/* Appends to that manifest one line per case of the whole plan (every shard's) that runs
 * (not skipped): run_id, seed, this shard "K/N", the owner shard and the case name,
 * tab-separated, under a header line when the file is new; the merge
 * (reports/merge_shards.py) checks the shards' rows against it. Returns 0, or 2 after
 * printing why (out of memory, the file cannot be written). */
int hb_shard_manifest(const struct hb_config *c, const char *run_id);

struct hb_reporter;

struct hb_run {
	const struct hb_config *c;
	const struct hb_env *env;
	struct hb_reporter *const *reporters; /* every row goes to each (report.h) */
	size_t n_reporters;
	FILE *samples;
	struct hb_case *cases;
	size_t n_cases;
	size_t step, total_steps;  /* for progress */
	double t_start, t_last_progress;
	bool tty;
	bool any_samples;
	int out_errno;             /* a failed write of a --out row or of --samples-out
	                              samples: the sweep stops */
	bool samples_failed;       /* out_errno is --samples-out's, not a reporter's */
	size_t out_failed;         /* else the index of the reporter whose row failed */
	bool worker;               /* this process is a child running cases for the parent */
	int name_w;                /* the summary's name column (hb_name_width) */
	size_t resumed;            /* --resume: repetitions found in --out, not run again */
};

/* --resume (resume.c): marks in each case's `have` the repetitions the --out file at
 * path already holds, verified, for run run_id (when empty: the run of the file's last
 * row, written back to run_id) and the run's seed; sets the cases' and r's `resumed`.
 * Returns 0, or -1 with the reason in err (unreadable file, not a regular file, a column
 * missing, memory, a planned case the run measured with another seed). */
int hb_resume_load(struct hb_run *r, const char *path, char *run_id, size_t run_id_len,
                   char *err, size_t err_len);
/* Checks before any work that --resume can read the rows at path: a regular file or no
 * file yet (a pipe, a device or /dev/stdout is refused). Returns 0, or -1 with the
 * reason in err. */
int hb_resume_check(const char *path, char *err, size_t err_len);
/* --resume with --samples-out: a run killed while it measured a repetition leaves that
 * repetition's samples (some or all) at the end of the samples file without its row in
 * --out; the repetition runs again and would have its samples twice. Cuts off the lines at
 * the end of the file (fd, opened and locked as path) that belong to run run_id and to a
 * planned case's repetition whose have[] mark hb_resume_load left unset, with a notice.
 * Nothing else is touched: a file that is not regular, or no run_id, is left as it is.
 * Returns 0, or -1 with the reason in err (out of memory, the file cannot be cut). */
int hb_resume_trim_samples(const struct hb_run *r, int fd, const char *path,
                           const char *run_id, char *err, size_t err_len);

/* Progress lines (schedule.c, on stderr; with --quiet only if --progress): none before
 * c->progress_after_s (HB_PROGRESS_AFTER_S, or DODBENCH_PROGRESS_AFTER), then one updating
 * line every HB_PROGRESS_TTY_S seconds on a terminal, else a plain line every
 * HB_PROGRESS_LOG_S seconds (a log file gets no flood). */
/* Whether this run prints progress lines: unless --quiet, or --quiet with --progress. */
static inline bool hb_shows_progress(const struct hb_config *c)
{
	return !c->quiet || c->progress;
}
#define HB_PROGRESS_AFTER_S 2
#define HB_PROGRESS_TTY_S 0.2
#define HB_PROGRESS_LOG_S 10
#define HB_STR_(x) #x
#define HB_STR(x) HB_STR_(x) /* a macro's value as a string literal (the help text) */

/* Exit status when an output file cannot be written mid-run (full disk, I/O error):
 * distinct from 1 (verification failed) and 2 (usage, checked before any work). */
#define HB_EXIT_OUTPUT 3

/* Runs every repetition of every case that is not skipped (warm-ups first; interleaved
 * with --interleave); stops at the first row a reporter or samples --samples-out cannot
 * take (r->out_errno, r->samples_failed, r->out_failed). Unless
 * --no-fork, the repetitions run in child processes (schedule.c): one per case, or with
 * --interleave one per schedule, replaced after a failure; a crash, a kill or --timeout
 * stops that case only (its status, a row, the sweep goes on). prefault (may be NULL)
 * runs in the process that measures, before its first repetition. Returns 0, 1 when the
 * schedule does not fit in memory or a child cannot be started, HB_EXIT_OUTPUT on a
 * failed write. */
int hb_execute(struct hb_run *r, void (*prefault)(const struct hb_config *));
/* The width of the summary's name column: the longest name of the n cases that get a
 * line of their own (all but those of a container that cannot run their scenario), so
 * that a failure line printed mid-run (schedule.c) lines up with the summary after it.
 * 0 when there is none. */
int hb_name_width(const struct hb_case *cases, size_t n);
/* Prints the per-case summary (name column r->name_w wide, each figure's column as wide
 * as its widest value), the cases their containers cannot run (one line per container and
 * reason), and the ratios to container `base`. */
void hb_summarize(const struct hb_run *r, const char *base);

#endif
