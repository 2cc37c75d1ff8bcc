/* schedule.c - runs the repetitions of the planned cases, in order or interleaved, and
 * hands one row per measured repetition to the run's reporters (report.h: the CSV, ...)
 * and writes its latency samples as it ends.
 *
 * Case isolation (issue 8). The repetitions run in a child process, the worker, so that a
 * case that crashes, aborts, is killed for memory or hangs takes only itself down:
 *   - in order: one worker per case, forked from a parent that never runs container code,
 *     so every case starts from the same process state; it runs the case's warm-ups, then
 *     its measured repetitions, exactly as before;
 *   - interleaved: one worker runs the whole schedule (all warm-ups, then the shuffled
 *     repetitions), as one process did before. When it dies, the case in flight is
 *     stopped and a new worker takes the rest of the schedule, after warm-ups of the
 *     cases it still has to run (a warm-up in another process warms nothing).
 * Everything measured happens in the worker, as it did in one process: the region, the
 * row (written by the worker, one write each) and the samples. The parent only starts
 * workers and sleeps; the worker reports each job in shared memory (struct shared), which
 * the parent reads when it wakes: when the worker begins its first job, when it ends,
 * when the case in flight reaches --timeout, or to print progress, never once per
 * repetition (a wake-up beside a timed region could take its CPU). The parent keeps the cases' figures for the summary and the
 * JSON, prints failures, and writes the row of a repetition whose worker died.
 * The job in flight is the first job after the last one reported that the worker does not
 * skip; both sides apply the same skip rule (stopped cases) to the same job list.
 * --no-fork runs the same jobs in this process (for a debugger). */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <stdatomic.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "report.h"
#include "run.h"

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

const char *const hb_status_names[] = {"ok", "failed", "crashed", "timeout", "oom"};

/* Seconds between two wake-ups of the parent that print progress (run.h). */
static double progress_interval_s(const struct hb_run *r)
{
	return r->tty ? HB_PROGRESS_TTY_S : HB_PROGRESS_LOG_S;
}

/* One updating line on a terminal, a plain line every HB_PROGRESS_LOG_S otherwise; nothing
 * before progress_after_s seconds (HB_PROGRESS_AFTER_S by default: short sweeps stay
 * quiet) or with --quiet. */
static void progress(struct hb_run *r, const char *name)
{
	r->step++;
	if (!hb_shows_progress(r->c) || r->worker)
		return;
	double t = now_s(), elapsed = t - r->t_start;
	if (elapsed < r->c->progress_after_s ||
	    (r->t_last_progress > 0 && t - r->t_last_progress < progress_interval_s(r)))
		return;
	r->t_last_progress = t;
	double eta = elapsed / (double)r->step * (double)(r->total_steps - r->step);
	fprintf(stderr, "%s[%zu/%zu] %s ... eta %dm%02ds%s", r->tty ? "\r\033[K" : "", r->step,
	        r->total_steps, name, (int)eta / 60, (int)eta % 60, r->tty ? "" : "\n");
}

/* Writes a repetition's raw samples (ns) to the --samples-out file, whole lines only:
 * a failed write (full disk, file-size limit) cuts the file back to where they began
 * and, like a failed --out row, stops the sweep (r->out_errno). */
static void put_samples(struct hb_run *r, const struct hb_case *k, long long rep,
                        const struct hb_region *reg, double tick)
{
	long long mark = hb_out_mark(r->samples);
	for (size_t i = 0; i < reg->samples_n && !ferror(r->samples); i++)
		fprintf(r->samples, "%s,%s,%lld,%zu,%.1f\n", r->env->run_id, k->name, rep, i,
		        (double)reg->samples[i] * tick);
	int e = hb_out_commit(r->samples, mark); /* a crash later loses none of them */
	if (e) {
		r->out_errno = e;
		r->samples_failed = true;
	}
}

/* Takes the growth marks (HB_SAMPLE_GREW) off the n samples x and fills row's grow_*
 * fields: the marked samples' count, p50 and max, and the others' max (ticks x tick ns). */
static void growth_latency(uint64_t *x, size_t n, double tick, struct hb_row *row)
{
	struct hb_growth_latency g;
	hb_growth_latency_of(x, n, &g);
	row->grow_samples = (long long)g.grew;
	row->plain_max_ns = (double)g.plain_max * tick;
	if (g.grew) { /* else the grow_* fields stay empty */
		row->grow_p50_ns = (double)g.grew_p50 * tick;
		row->grow_max_ns = (double)g.grew_max * tick;
	}
}

/* Fills the percentile fields of row from the region's samples (in ns), those of the
 * growth operations apart, and writes the raw samples to the --samples-out file. */
static void latency(struct hb_run *r, const struct hb_case *k, long long rep,
                    struct hb_region *reg, struct hb_row *row)
{
	size_t n = reg->samples_n;
	if (n == 0)
		return;
	double tick = hb_ns_per_tick();
	growth_latency(reg->samples, n, tick, row);
	if (r->samples && !r->out_errno)
		put_samples(r, k, rep, reg, tick);
	struct hb_latency l; /* after put_samples: it leaves the samples partly ordered */
	hb_latency_of(reg->samples, n, &l);
	row->samples = (long long)n;
	row->p50_ns = (double)l.p50 * tick;
	row->p99_ns = (double)l.p99 * tick;
	row->p999_ns = (double)l.p999 * tick;
	row->max_ns = (double)l.max * tick;
	row->sample_cost_ns = hb_sample_cost_ns();
	r->any_samples = true;
}

/* One repetition to run: of case i, measured (rep >= 0) or warm-up (rep < 0: warm-up
 * -rep - 1); pos: its position in the interleaved order, or -1; slot: its entry in the
 * measured-repetition list (measured only). */
struct job {
	size_t i;
	long long rep, pos;
	size_t slot;
};

/* What happened in one job (in the worker: its report to the parent, struct shared). */
struct done {
	double t_end;           /* when it ended (now_s, CLOCK_MONOTONIC) */
	unsigned char set;      /* reported */
	uint64_t elapsed_ns, cpu_ns, ops;
	uint64_t passes;        /* times the region repeated its work (>= 1) */
	double hole_ratio;
	int out_errno;          /* the row or the samples could not be written: the sweep stops */
	bool samples_failed;    /* as in struct hb_run */
	size_t out_failed;      /* as in struct hb_run */
	unsigned char ran;      /* the scenario returned SCN_RAN */
	unsigned char verified;
	unsigned char oom;      /* a container call returned DOD_ENOMEM */
	unsigned char any_samples;
	char why[200];
};

/* A row of this repetition with the case's axes; the caller sets the rest. */
static struct hb_row case_row(const struct hb_run *r, const struct hb_case *k, long long rep,
                              long long pos, const struct hb_region *reg)
{
	struct hb_row row = {
		.env = r->env, .ops_desc = k->ops, .scenario = k->scn->name, .taken = k->taken,
		.seed = r->c->seed, .rep = rep, .region = reg, .prefault = r->c->prefault,
		.interleave_pos = pos, .samples = -1, .swaps = -1, .reserved_bytes = -1,
		.committed_bytes = -1, .placed_blocks = -1, .measured_bytes = -1,
		.grow_max_at = -1, .grow_max_copied = -1,
	};
	memcpy(row.axis, k->axis, sizeof row.axis);
	return row;
}

/* Hands the row, stamped with the time, to the run's reporters (report.h); the first
 * that cannot write it stops the sweep (r->out_errno, r->out_failed). */
static void put_row(struct hb_run *r, struct hb_row *row)
{
	if (r->out_errno)
		return;
	hb_utc_now(row->timestamp, sizeof row->timestamp);
	r->out_errno = hb_report_row(r->reporters, r->n_reporters, row, NULL, &r->out_failed);
}

/* The case's heap placement for job j's repetition (the axis place; the random mode's seed
 * from --seed, the case and the repetition), then the scenario; glibc's placement again
 * after it. Returns the scenario's outcome; *placed gets the blocks placed (-1: no
 * allocator layer in this build). */
static int run_placed(struct hb_run *r, const struct job *j, struct hb_region *reg,
                      struct scn_result *res, long long *placed)
{
	static size_t place_id = SIZE_MAX;
	if (place_id == SIZE_MAX)
		place_id = hb_axis_id("axis_place");
	struct hb_case *k = &r->cases[j->i];
	unsigned long long before = hb_placed_blocks ? hb_placed_blocks() : 0;
	if (hb_place_set && (k->taken & (1u << place_id)))
		hb_place_set((enum hb_place)k->axis[place_id].u,
		             r->c->seed ^ ((uint64_t)j->i << 32) ^ (uint64_t)(j->rep + 1) * 0x9E37u);
	int rc = k->scn->run(k->ops, &k->p, reg, res);
	if (hb_place_set)
		hb_place_set(HB_PLACE_MALLOC, 0);
	*placed = hb_placed_blocks ? (long long)(hb_placed_blocks() - before) : -1;
	return rc;
}

/* Runs job j in this process: the repetition, its row (a measured one, or a failed
 * warm-up) and its samples. Returns what happened. */
static struct done run_rep(struct hb_run *r, const struct job *j)
{
	struct hb_case *k = &r->cases[j->i];
	struct hb_region reg = {0};
	struct scn_result res = {.swaps = -1, .reserved_bytes = -1, .committed_bytes = -1,
	                         .measured_bytes = -1, .grow_max_at = -1, .grow_max_copied = -1};
	long long placed;
	int rc = run_placed(r, j, &reg, &res, &placed);
	if (rc == SCN_RAN && res.ops == 0)
		scn_fail(&res, "scenario %s reported 0 operations", k->scn->name);
	struct done d = {.ran = rc == SCN_RAN, .verified = rc == SCN_RAN && res.verified,
	                 .oom = rc != SCN_RAN && res.err == DOD_ENOMEM};
	snprintf(d.why, sizeof d.why, "%s", res.why[0] ? res.why : "not verified");
	if (j->rep >= 0 || !d.verified) {
		struct hb_row row = case_row(r, k, j->rep, j->pos, &reg);
		row.measured = d.ran;
		if (d.ran) /* the fraction really erased */
			row.axis[HB_AXIS_HOLE_RATIO].d = res.hole_ratio;
		row.checksum = res.checksum;
		row.verified = d.verified;
		row.ops = res.ops;
		row.swaps = res.swaps;
		row.reserved_bytes = res.reserved_bytes;
		row.committed_bytes = res.committed_bytes;
		row.measured_bytes = res.measured_bytes;
		row.grow_max_at = res.grow_max_at;
		row.grow_max_copied = res.grow_max_copied;
		row.placed_blocks = placed;
		row.status = hb_status_names[d.verified ? HB_OK : d.oom ? HB_OOM : HB_FAILED];
		row.status_detail = d.verified ? NULL : d.why;
		if (d.ran && j->rep >= 0)
			latency(r, k, j->rep, &reg, &row);
		put_row(r, &row);
	}
	d.elapsed_ns = reg.elapsed_ns;
	d.cpu_ns = reg.cpu_ns;
	d.ops = res.ops;
	d.passes = reg.passes ? reg.passes : 1;
	if (d.verified && reg.passes && !k->p.passes)
		k->p.passes = reg.passes; /* the case's K, kept for its later repetitions */
	d.hole_ratio = res.hole_ratio;
	d.any_samples = r->any_samples;
	d.out_errno = r->out_errno;
	d.samples_failed = r->samples_failed;
	d.out_failed = r->out_failed;
	hb_region_release(&reg);
	return d;
}

/* Prints a case's failure line (on stdout, beside the summary it precedes, in its name
 * column). */
static void say_failed(const struct hb_run *r, const struct hb_case *k, const char *what,
                       long long rep, const char *why)
{
	if (r->worker)
		return;
	if (r->tty && r->t_last_progress > 0)
		fputs("\r\033[K", stderr);
	printf("%-*s %s (%s %lld): %s\n", r->name_w, k->name, what, rep < 0 ? "warm-up" : "rep",
	       rep < 0 ? -rep - 1 : rep, why);
	fflush(stdout);
}

/* Marks case k ended with status s in repetition rep (the first status other than ok is
 * kept), and stops its remaining repetitions when stop. */
static void set_status(struct hb_case *k, enum hb_status s, long long rep, const char *why,
                       bool stop)
{
	k->failed = true;
	k->stopped |= stop;
	k->errored |= stop;
	if (k->status == HB_OK) {
		k->status = s;
		k->status_rep = rep;
		snprintf(k->status_detail, sizeof k->status_detail, "%s", why);
	}
}

/* Takes what job j reported into the case (in the worker too: its skip rule needs it). */
static void apply(struct hb_run *r, const struct job *j, const struct done *d, bool *slot_done)
{
	struct hb_case *k = &r->cases[j->i];
	progress(r, k->name);
	if (!d->verified) {
		enum hb_status s = d->oom ? HB_OOM : HB_FAILED;
		say_failed(r, k, d->oom ? "OUT OF MEMORY" : "FAILED", j->rep, d->why);
		set_status(k, s, j->rep, d->why, !d->ran); /* a failed call stops the case */
	}
	r->any_samples |= d->any_samples;
	if (d->out_errno) {
		r->out_errno = d->out_errno;
		r->samples_failed = d->samples_failed;
		r->out_failed = d->out_failed;
	}
	if (j->rep < 0 || !d->ran)
		return;
	slot_done[j->slot] = true;
	/* Per pass: the summary and the JSON compare repetitions, and cases, whose K may
	 * differ (a case resumed in another process chose its K again). */
	k->elapsed_ns[k->done] = (d->elapsed_ns + d->passes / 2) / d->passes;
	k->cpu_ns[k->done] = (d->cpu_ns + d->passes / 2) / d->passes;
	k->done++;
	k->ns_per_op_div = (double)d->ops / (double)d->passes;
	k->passes = d->passes;
	k->short_regions += d->elapsed_ns < hb_min_region_ns();
	k->hole_ratio = d->hole_ratio;
}

/* The worker and the parent skip the same jobs: those of stopped cases. */
static size_t next_job(const struct hb_run *r, const struct job *jobs, size_t n, size_t from)
{
	while (from < n && r->cases[jobs[from].i].stopped)
		from++;
	return from;
}

/* The measured repetitions still to run, in schedule order. */
struct slot {
	size_t i;
	unsigned long long rep;
};

static bool slot_pending(const struct hb_run *r, const struct slot *s, bool done)
{
	return !done && !r->cases[s->i].stopped;
}

/* The next segment of jobs one worker runs (see the top of the file): in order, the
 * warm-ups and pending repetitions of the first case with any; interleaved (and
 * --no-fork), the warm-ups of every case with pending repetitions, then all of those in
 * schedule order. Returns the number of jobs written to jobs (0: nothing left). */
static size_t build_segment(const struct hb_run *r, const struct slot *slots, size_t n_slots,
                            const bool *slot_done, struct job *jobs)
{
	const struct hb_config *c = r->c;
	size_t n = 0, first = 0;
	while (first < n_slots && !slot_pending(r, &slots[first], slot_done[first]))
		first++;
	if (first == n_slots)
		return 0;
	if (!c->interleave) {
		size_t i = slots[first].i;
		for (unsigned long long w = 0; w < c->warmup; w++)
			jobs[n++] = (struct job){i, -(long long)w - 1, -1, 0};
		for (size_t s = first; s < n_slots && slots[s].i == i; s++)
			if (slot_pending(r, &slots[s], slot_done[s]))
				jobs[n++] = (struct job){i, (long long)slots[s].rep, -1, s};
		return n;
	}
	for (size_t i = 0; i < r->n_cases; i++) {
		bool pending = false;
		for (size_t s = first; s < n_slots && !pending; s++)
			pending = slots[s].i == i && slot_pending(r, &slots[s], slot_done[s]);
		for (unsigned long long w = 0; pending && w < c->warmup; w++)
			jobs[n++] = (struct job){i, -(long long)w - 1, -1, 0};
	}
	for (size_t s = first; s < n_slots; s++)
		if (slot_pending(r, &slots[s], slot_done[s]))
			jobs[n++] = (struct job){slots[s].i, (long long)slots[s].rep, (long long)s, s};
	return n;
}

/* For progress: the n jobs of this segment, plus (in order) the warm-ups and pending
 * repetitions of the cases after it. */
static size_t steps_left(const struct hb_run *r, const struct slot *slots, size_t n_slots,
                         const bool *slot_done, const struct job *jobs, size_t n)
{
	size_t left = n, prev = SIZE_MAX;
	for (size_t s = 0; !r->c->interleave && s < n_slots; s++) {
		if (!slot_pending(r, &slots[s], slot_done[s]) || slots[s].i == jobs[0].i)
			continue;
		left += 1 + (slots[s].i != prev ? r->c->warmup : 0);
		prev = slots[s].i;
	}
	return left;
}

/* What a worker and its parent share (an anonymous MAP_SHARED mapping made before the
 * fork): the worker writes d[x] when job x ends, then publishes reported = x + 1 (release);
 * the parent reads reported (acquire) and every d[] below it that is set. */
struct shared {
	_Atomic size_t reported;    /* jobs below this index have ended or were skipped */
	_Atomic double t_start;     /* when the worker began its first job (now_s) */
	struct done d[];            /* per job; d[x].set when job x ran */
};

/* Runs a segment in this process (--no-fork, and the worker). In the worker each job's
 * report goes to sh; the worker stops after a row --out could not take. */
static void run_jobs(struct hb_run *r, const struct job *jobs, size_t n, bool *slot_done,
                     struct shared *sh)
{
	for (size_t x = next_job(r, jobs, n, 0); x < n && !r->out_errno;
	     x = next_job(r, jobs, n, x + 1)) {
		struct done d = run_rep(r, &jobs[x]);
		apply(r, &jobs[x], &d, slot_done);
		if (sh) {
			d.t_end = now_s();
			d.set = 1;
			sh->d[x] = d;
			atomic_store_explicit(&sh->reported, x + 1, memory_order_release);
		}
	}
}

/* The worker's exit status when its parent died before it could run (EX_OSERR): no one
 * is left to read it; it only makes a process listing or a core dump explicable. */
const int hb_stop_signals[HB_N_STOP_SIGNALS] = {SIGINT, SIGTERM, SIGHUP};

#define WORKER_ORPHANED_EXIT 71

/* The child side: dies with the parent, opens its own counters, pre-faults its own heap,
 * says on the pipe fd that its first job begins (the parent's --timeout clock starts
 * then), runs the segment, reports each job in sh, and exits without running the parent's
 * atexit handlers or flushing its stdio buffers twice. */
static _Noreturn void worker(struct hb_run *r, const struct job *jobs, size_t n,
                             bool *slot_done, struct shared *sh, pid_t parent, int fd,
                             void (*prefault)(const struct hb_config *))
{
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	if (getppid() != parent)
		_exit(WORKER_ORPHANED_EXIT);
	/* The parent's handlers (main.c's removes the --out-json temporary file) are not the
	 * worker's business; a signal the user ignores (nohup) stays ignored. */
	for (size_t i = 0; i < HB_N_STOP_SIGNALS; i++) {
		struct sigaction sa;
		if (sigaction(hb_stop_signals[i], NULL, &sa) == 0 && sa.sa_handler != SIG_IGN)
			signal(hb_stop_signals[i], SIG_DFL);
	}
	r->worker = true;
	hb_counters_fork_child();
	if (prefault && r->c->prefault)
		prefault(r->c);
	sh->t_start = now_s();
	/* One byte wakes the parent before the first region, never beside one; if it cannot
	 * be written the parent still sees t_start at its next wake-up. */
	while (write(fd, "s", 1) < 0 && errno == EINTR)
		;
	run_jobs(r, jobs, n, slot_done, sh);
	if (r->samples)
		fflush(r->samples);
	fflush(stdout);
	_exit(0);
}

/* Describes how a worker ended: status and why. */
static enum hb_status died_how(int wstatus, bool killed_by_us, char *why, size_t len)
{
	if (killed_by_us) {
		snprintf(why, len, "stopped after --timeout");
		return HB_TIMEOUT;
	}
	if (WIFSIGNALED(wstatus)) {
		int sig = WTERMSIG(wstatus);
		if (sig == SIGKILL) {
			snprintf(why, len, "killed by SIGKILL, not sent by dodbench: the kernel's "
			         "OOM killer, as a rule");
			return HB_OOM;
		}
		snprintf(why, len, "killed by signal %d (SIG%s: %s)%s", sig, sigabbrev_np(sig)
		         ? sigabbrev_np(sig) : "?", strsignal(sig),
		         WCOREDUMP(wstatus) ? ", core dumped" : "");
		return HB_CRASHED;
	}
	snprintf(why, len, "the process exited with status %d mid-case%s",
	         WEXITSTATUS(wstatus), WEXITSTATUS(wstatus) == 1
	                 ? " (a sanitizer report or exit(1) in the container?)" : "");
	return HB_CRASHED;
}

/* Takes the jobs the worker has reported since *seen into the cases; returns the index
 * of the job in flight (the first not reported that the worker does not skip) and sets
 * *t_in_flight to when it began (the end of the job before it). */
static size_t take_reports(struct hb_run *r, const struct job *jobs, size_t n, bool *slot_done,
                           struct shared *sh, size_t *seen, double *t_in_flight)
{
	size_t upto = atomic_load_explicit(&sh->reported, memory_order_acquire);
	for (; *seen < upto; (*seen)++) {
		const struct done *d = &sh->d[*seen];
		if (!d->set)
			continue;
		struct hb_case *k = &r->cases[jobs[*seen].i];
		k->spent_s += d->t_end - *t_in_flight;
		*t_in_flight = d->t_end;
		apply(r, &jobs[*seen], d, slot_done);
	}
	return next_job(r, jobs, n, *seen);
}

/* The parent side of one worker. It does not wake per repetition (a wake-up beside a
 * timed region could share its CPU): it sleeps in poll on a pipe whose only writer is the
 * worker, which writes one byte when its first job begins (after its pre-fault), so poll
 * returns then and when the worker ends; or when the case in flight reaches --timeout
 * (then SIGKILL; the wait is in ms, so a timeout below 1 s is honoured); or every
 * progress interval (run.h) to print progress. Then it reaps the worker and, when it died with a job in flight, gives that
 * job's case its status and a row. Returns 0. */
static int supervise(struct hb_run *r, const struct job *jobs, size_t n, bool *slot_done,
                     pid_t pid, int fd, struct shared *sh)
{
	const double timeout = r->c->timeout_s;
	const bool show = hb_shows_progress(r->c);
	size_t seen = 0, next = next_job(r, jobs, n, 0);
	double t_in_flight = 0;
	bool killed = false;
	for (;;) {
		double started = sh->t_start; /* 0 until the worker has pre-faulted its heap */
		if (t_in_flight == 0 && started > 0)
			t_in_flight = started;
		if (t_in_flight > 0)
			next = take_reports(r, jobs, n, slot_done, sh, &seen, &t_in_flight);
		double wait_s = show ? progress_interval_s(r) : -1;
		/* Before the worker has started, its start byte wakes the parent. */
		if (timeout > 0 && next < n && !killed && started > 0) {
			double left = timeout - r->cases[jobs[next].i].spent_s - (now_s() - t_in_flight);
			if (left <= 0) {
				kill(pid, SIGKILL);
				killed = true;
				continue;
			}
			wait_s = wait_s < 0 || left < wait_s ? left : wait_s;
		}
		int wait_ms = wait_s < 0 ? -1 : wait_s > 1e6 ? 1000000000 : (int)ceil(wait_s * 1000);
		struct pollfd p = {.fd = fd, .events = POLLIN};
		int got = poll(&p, 1, wait_ms);
		if (got > 0) {
			char byte;
			if (read(fd, &byte, 1) <= 0)
				break; /* end of file: the worker has ended */
		}
	}
	int wstatus = 0;
	while (waitpid(pid, &wstatus, 0) < 0 && errno == EINTR)
		;
	if (t_in_flight == 0)
		t_in_flight = sh->t_start > 0 ? sh->t_start : now_s();
	next = take_reports(r, jobs, n, slot_done, sh, &seen, &t_in_flight);
	if (r->out_errno || next >= n || (WIFEXITED(wstatus) && WEXITSTATUS(wstatus) == 0))
		return 0;
	/* It died in jobs[next]. */
	const struct job *j = &jobs[next];
	struct hb_case *k = &r->cases[j->i];
	char why[160];
	enum hb_status s = died_how(wstatus, killed, why, sizeof why);
	if (s == HB_TIMEOUT)
		snprintf(why, sizeof why, "stopped after --timeout %g s (%.1f s in its repetitions)",
		         timeout, k->spent_s + (now_s() - t_in_flight));
	static const char *const what[] = {"", "FAILED", "CRASHED", "TIMED OUT", "OUT OF MEMORY"};
	r->step++;
	say_failed(r, k, what[s], j->rep, why);
	set_status(k, s, j->rep, why, true);
	struct hb_region none = {0};
	struct hb_row row = case_row(r, k, j->rep, j->pos, &none);
	row.status = hb_status_names[s];
	row.status_detail = why;
	put_row(r, &row);
	return 0;
}

/* Forks a worker for the segment and supervises it. Returns 0 or 1 (no fork, no pipe,
 * no shared memory). */
static int run_segment_forked(struct hb_run *r, const struct job *jobs, size_t n,
                              bool *slot_done, void (*prefault)(const struct hb_config *))
{
	size_t bytes = sizeof(struct shared) + n * sizeof(struct done);
	struct shared *sh = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS,
	                         -1, 0);
	if (sh == MAP_FAILED) {
		fprintf(stderr, "dodbench: cannot map memory for the worker's reports: %s\n",
		        strerror(errno));
		return 1;
	}
	int fds[2];
	if (pipe2(fds, O_CLOEXEC) != 0) {
		fprintf(stderr, "dodbench: cannot make a pipe for the worker: %s\n", strerror(errno));
		munmap(sh, bytes);
		return 1;
	}
	fflush(NULL); /* nothing buffered is written twice */
	pid_t parent = getpid(), pid = fork();
	if (pid < 0) {
		fprintf(stderr, "dodbench: cannot start a worker process: %s\n", strerror(errno));
		close(fds[0]);
		close(fds[1]);
		munmap(sh, bytes);
		return 1;
	}
	if (pid == 0) {
		close(fds[0]);
		worker(r, jobs, n, slot_done, sh, parent, fds[1], prefault);
	}
	close(fds[1]);
	int rc = supervise(r, jobs, n, slot_done, pid, fds[0], sh);
	close(fds[0]);
	munmap(sh, bytes);
	return rc;
}

int hb_execute(struct hb_run *r, void (*prefault)(const struct hb_config *))
{
	const struct hb_config *c = r->c;
	const bool fork_cases = !c->no_fork && !c->sim_child;
	/* Every measured repetition still to run, in case order or shuffled (seeded). */
	size_t n_slots = 0;
	for (size_t i = 0; i < r->n_cases; i++)
		if (!r->cases[i].skip)
			n_slots += c->reps - r->cases[i].resumed;
	size_t max_jobs = n_slots + r->n_cases * c->warmup;
	struct slot *slots = malloc((n_slots ? n_slots : 1) * sizeof *slots);
	bool *slot_done = calloc(n_slots ? n_slots : 1, sizeof *slot_done);
	struct job *jobs = max_jobs < SIZE_MAX / sizeof *jobs
	                           ? malloc((max_jobs ? max_jobs : 1) * sizeof *jobs) : NULL;
	if (!slots || !slot_done || !jobs) {
		fprintf(stderr, "dodbench: out of memory for the schedule\n");
		free(slots);
		free(slot_done);
		free(jobs);
		return 1;
	}
	size_t s = 0;
	for (size_t i = 0; i < r->n_cases; i++)
		for (unsigned long long rep = 0; rep < c->reps && !r->cases[i].skip; rep++)
			if (!r->cases[i].have || !r->cases[i].have[rep])
				slots[s++] = (struct slot){i, rep};
	if (c->interleave) {
		uint64_t rng = c->seed ^ 0x1e7e41ea5e5ull;
		dod_shuffle(slots, n_slots, sizeof *slots, &rng);
	}
	/* Calibrated once here, so that no child spends its own 20 ms on it. */
	hb_ns_per_tick();
	hb_sample_cost_ns();
	hb_clock_floor_ns(); /* every child's rows then give the same floor */
	r->t_start = now_s();
	int rc = 0;
	if (fork_cases)
		hb_counters_fork_prepare();
	else if (prefault && c->prefault)
		prefault(c);
	size_t n;
	while (!rc && !r->out_errno && (n = build_segment(r, slots, n_slots, slot_done, jobs))) {
		r->total_steps = r->step + steps_left(r, slots, n_slots, slot_done, jobs, n);
		if (fork_cases)
			rc = run_segment_forked(r, jobs, n, slot_done, prefault);
		else
			run_jobs(r, jobs, n, slot_done, NULL);
	}
	free(slots);
	free(slot_done);
	free(jobs);
	if (r->tty && r->t_last_progress > 0)
		fputs("\r\033[K", stderr);
	return r->out_errno ? HB_EXIT_OUTPUT : rc;
}
