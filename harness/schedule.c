/* schedule.c - runs the repetitions of the planned cases, in order or interleaved, and
 * writes one CSV row per measured repetition (and its latency samples) as it ends. */
#define _GNU_SOURCE
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "run.h"

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* One updating line on a terminal, a plain line every 10 s otherwise; nothing before
 * progress_after_s seconds (2 by default: short sweeps stay quiet) or with --quiet. */
static void progress(struct hb_run *r, const char *name)
{
	r->step++;
	if (r->c->quiet)
		return;
	double t = now_s(), elapsed = t - r->t_start;
	if (elapsed < r->c->progress_after_s ||
	    (r->t_last_progress > 0 && t - r->t_last_progress < (r->tty ? 0.2 : 10)))
		return;
	r->t_last_progress = t;
	double eta = elapsed / (double)r->step * (double)(r->total_steps - r->step);
	fprintf(stderr, "%s[%zu/%zu] %s ... eta %dm%02ds%s", r->tty ? "\r\033[K" : "", r->step,
	        r->total_steps, name, (int)eta / 60, (int)eta % 60, r->tty ? "" : "\n");
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return (x > y) - (x < y);
}

/* Nearest-rank percentile q (0 < q <= 1) of sorted x[0..n). */
static uint64_t pct(const uint64_t *x, size_t n, double q)
{
	size_t k = (size_t)ceil(q * (double)n);
	return x[k ? k - 1 : 0];
}

FILE *hb_samples_open(const char *path, char *err, size_t err_len)
{
	FILE *f = fopen(path, "a");
	if (!f) {
		snprintf(err, err_len, "cannot open %s for appending: %s", path, strerror(errno));
		return NULL;
	}
	if (ftell(f) == 0)
		fputs("run_id,case,rep,i,ns\n", f);
	return f;
}

/* Fills the percentile fields of row from the region's samples (in ns) and writes the
 * raw samples to the --samples-out file. */
static void latency(struct hb_run *r, const struct hb_case *k, unsigned rep,
                    struct hb_region *reg, struct hb_row *row)
{
	size_t n = reg->samples_n;
	if (n == 0)
		return;
	double tick = hb_ns_per_tick();
	if (r->samples) {
		for (size_t i = 0; i < n; i++)
			fprintf(r->samples, "%s,%s,%u,%zu,%.1f\n", r->env->run_id, k->name, rep, i,
			        (double)reg->samples[i] * tick);
	}
	qsort(reg->samples, n, sizeof *reg->samples, cmp_u64);
	row->samples = (long long)n;
	row->p50_ns = (double)pct(reg->samples, n, 0.50) * tick;
	row->p99_ns = (double)pct(reg->samples, n, 0.99) * tick;
	row->p999_ns = (double)pct(reg->samples, n, 0.999) * tick;
	row->max_ns = (double)reg->samples[n - 1] * tick;
	row->sample_cost_ns = hb_sample_cost_ns();
	r->any_samples = true;
}

/* Runs one repetition of case k: measured (rep >= 0, written to CSV) or warm-up
 * (rep < 0). pos: position in the interleaved order, or -1. */
static void run_rep(struct hb_run *r, struct hb_case *k, long long rep, long long pos)
{
	if (k->errored)
		return;
	struct hb_region reg = {0};
	struct scn_result res = {.swaps = -1, .reserved_bytes = -1, .committed_bytes = -1};
	int rc = k->scn->run(k->ops, &k->p, &reg, &res);
	progress(r, k->name);
	if (rc == SCN_RAN && res.ops == 0)
		scn_fail(&res, "scenario %s reported 0 operations", k->scn->name);
	if (rc != SCN_RAN || !res.verified) {
		if (r->tty && !r->c->quiet)
			fputs("\r\033[K", stderr);
		printf("%-60s FAILED (%s %lld): %s\n", k->name, rep < 0 ? "warm-up" : "rep",
		       rep < 0 ? -rep - 1 : rep, res.why[0] ? res.why : "not verified");
		k->failed = true;
		k->errored = rc != SCN_RAN;
		if (k->errored) {
			hb_region_release(&reg);
			return;
		}
	}
	if (rep < 0) {
		hb_region_release(&reg);
		return;
	}
	k->elapsed_ns[k->done] = reg.elapsed_ns;
	k->cpu_ns[k->done] = reg.cpu_ns;
	k->done++;
	k->ns_per_op_div = (double)res.ops;
	k->hole_ratio = res.hole_ratio;
	struct hb_row row = {
		.env = r->env, .ops_desc = k->ops, .scenario = k->scn->name,
		.order = k->p.order == SCN_RANDOM ? "random" : "seq", .n = k->p.n,
		.hole_ratio = res.hole_ratio,
		.hole_pattern = scn_hole_pattern_names[k->p.hole_pattern], .seed = r->c->seed,
		.rep = (unsigned)rep, .region = &reg, .checksum = res.checksum,
		.verified = res.verified, .ops = res.ops, .swaps = res.swaps,
		.reserved_bytes = res.reserved_bytes, .committed_bytes = res.committed_bytes,
		.prefault = r->c->prefault, .interleave_pos = pos, .samples = -1,
	};
	latency(r, k, (unsigned)rep, &reg, &row);
	if (r->csv && !r->out_errno) {
		hb_utc_now(row.timestamp, sizeof row.timestamp);
		r->out_errno = hb_csv_put_row(r->csv, &row);
	}
	hb_region_release(&reg);
}

int hb_execute(struct hb_run *r)
{
	const struct hb_config *c = r->c;
	for (size_t i = 0; i < r->n_cases; i++)
		if (!r->cases[i].skip && r->cases[i].resumed < c->reps)
			r->total_steps += c->warmup + c->reps - r->cases[i].resumed;
	r->t_start = now_s();
	if (!c->interleave) {
		for (size_t i = 0; i < r->n_cases; i++) {
			struct hb_case *k = &r->cases[i];
			if (k->skip || k->resumed >= c->reps)
				continue;
			for (unsigned long long w = 0; w < c->warmup; w++)
				run_rep(r, k, -(long long)w - 1, -1);
			for (unsigned long long rep = 0; rep < c->reps && !r->out_errno; rep++)
				if (!k->have || !k->have[rep])
					run_rep(r, k, (long long)rep, -1);
			if (r->out_errno)
				break;
		}
	} else {
		/* Interleaved: all warm-ups first (case order), then every measured repetition
		 * of every case in one seeded random order. */
		struct slot { size_t i; unsigned long long rep; };
		size_t n_slots = 0;
		for (size_t i = 0; i < r->n_cases; i++)
			n_slots += r->cases[i].skip ? 0 : c->reps - r->cases[i].resumed;
		struct slot *slots = malloc((n_slots ? n_slots : 1) * sizeof *slots);
		if (!slots) {
			fprintf(stderr, "dodbench: out of memory for the interleaved schedule\n");
			return 1;
		}
		for (size_t i = 0; i < r->n_cases; i++) {
			const struct hb_case *k = &r->cases[i];
			for (unsigned long long w = 0; w < c->warmup && !k->skip && k->resumed < c->reps;
			     w++)
				run_rep(r, &r->cases[i], -(long long)w - 1, -1);
		}
		size_t s = 0;
		for (size_t i = 0; i < r->n_cases; i++)
			for (unsigned long long rep = 0; rep < c->reps && !r->cases[i].skip; rep++)
				if (!r->cases[i].have || !r->cases[i].have[rep])
					slots[s++] = (struct slot){i, rep};
		uint64_t rng = c->seed ^ 0x1e7e41ea5e5ull;
		dod_shuffle(slots, n_slots, sizeof *slots, &rng);
		for (size_t pos = 0; pos < n_slots && !r->out_errno; pos++)
			run_rep(r, &r->cases[slots[pos].i], (long long)slots[pos].rep, (long long)pos);
		free(slots);
	}
	if (r->tty && !c->quiet && r->t_last_progress > 0)
		fputs("\r\033[K", stderr);
	return r->out_errno ? HB_EXIT_OUTPUT : 0;
}
