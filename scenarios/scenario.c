/* scenario.c - the scenario registry (linker section dod_scenarios), the axis lookups and
 * the small helpers every scenario shares (scenario.h): the fill, checksums, error texts,
 * repeatable work (scn_run_passes). The hole setup is fill_holes.c, the defragment
 * helpers defrag_common.c, the list model list_model.c. */
#define _GNU_SOURCE /* clock_gettime */
#include "scenario.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *const scn_hole_pattern_names[SCN_N_HOLE_PATTERNS] = {
	"none", "random", "clustered", "oldest",
};

/* Bounds of the section, defined by the linker for sections named like C identifiers. */
extern const struct scn_scenario *const __start_dod_scenarios[];
extern const struct scn_scenario *const __stop_dod_scenarios[];

static int by_name(const void *a, const void *b)
{
	return strcmp((*(const struct scn_scenario *const *)a)->name,
	              (*(const struct scn_scenario *const *)b)->name);
}

size_t scn_list(const struct scn_scenario *const **out)
{
	static const struct scn_scenario **sorted;
	static size_t count;
	if (!sorted) {
		count = (size_t)(__stop_dod_scenarios - __start_dod_scenarios);
		sorted = malloc((count ? count : 1) * sizeof *sorted);
		if (!sorted) {
			*out = __start_dod_scenarios; /* link order: still every scenario */
			return count;
		}
		memcpy(sorted, __start_dod_scenarios, count * sizeof *sorted);
		qsort(sorted, count, sizeof *sorted, by_name);
	}
	*out = sorted;
	return count;
}

const struct scn_scenario *scn_find(const char *name)
{
	const struct scn_scenario *const *all;
	size_t n = scn_list(&all);
	for (size_t i = 0; i < n; i++)
		if (strcmp(all[i]->name, name) == 0)
			return all[i];
	return NULL;
}

bool scn_lists_axis(const struct scn_scenario *scn, const struct hb_axis *a)
{
	for (const struct hb_axis *const *l = scn->axes; l && *l; l++)
		if (*l == a)
			return true;
	return false;
}

union hb_axis_value scn_axis_value(const struct scn_params *p, const struct hb_axis *a)
{
	for (size_t i = 0; p->axes && i < p->n_axes; i++)
		if (p->axes[i] == a)
			return p->axis[i];
	return a->absent;
}

const char *scn_cannot_run(const struct scn_scenario *scn, const struct dod_ops *ops,
                           const struct scn_params *p)
{
	unsigned missing = scn->needs_ext & ~dod_exts(ops);
	if (missing)
		return dod_ext_descs[__builtin_ctz(missing)].missing;
	const char *why = scn->cannot_run ? scn->cannot_run(ops) : NULL;
	if (!why && scn->cannot_run_with)
		why = scn->cannot_run_with(ops, p);
	if (why)
		return why;
	if (scn->grows_from_empty && (ops->caps & DOD_CAP_FIXED_CAPACITY))
		return "fixed capacity: cannot grow from empty (inserts would hit DOD_EFULL)";
	if (scn_lists_axis(scn, &hb_axis_hole_ratio) && p->hole_ratio > 0) {
		if (scn_needs_handles(ops))
			return scn_needs_handles(ops);
		if (!ops->erase_n)
			return "no erase_n: cannot make holes";
	}
	return NULL;
}

uint64_t scn_key_sum(size_t n)
{
	/* n(n-1)/2 without overflow: halve whichever factor is even. */
	uint64_t a = n, b = n ? n - 1 : 0;
	return (a % 2 == 0) ? (a / 2) * b : a * (b / 2);
}

void scn_check_sum(struct scn_result *res, uint64_t sum, uint64_t expect)
{
	res->checksum = sum;
	res->verified = sum == expect;
	if (!res->verified)
		scn_fail(res, "key sum %llu, expected %llu", (unsigned long long)sum,
		         (unsigned long long)expect);
}

static uint64_t mono_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* Untimed batches of passes, each 10 times the last (2 times when close), until one lasts
 * a quarter of want: a pass's time from a batch well above the clock's floor (one pass of
 * 60 ns timed alone reads the clock's 60 ns too); that batch is timed once more and the
 * faster of the two kept (a batch the scheduler interrupted would make K too small).
 * Returns the K whose region lasts SCN_REGION_MARGIN x want by that estimate. */
static uint64_t choose_k(struct scn_passes *ps, uint64_t want, uint64_t max_k)
{
	uint64_t batch = 1, t = 0;
	for (;;) {
		uint64_t t0 = mono_ns();
		for (uint64_t i = 0; i < batch; i++)
			ps->warm_sum += ps->pass(ps->ctx);
		t = mono_ns() - t0;
		ps->warm += batch;
		if (t >= want / 4 || batch >= max_k)
			break;
		batch *= t && t >= want / 40 ? 2 : 10;
		batch = batch > max_k ? max_k : batch;
	}
	if (batch < max_k / 2) { /* the second timing, within the passes max_k allows */
		uint64_t t0 = mono_ns();
		for (uint64_t i = 0; i < batch; i++)
			ps->warm_sum += ps->pass(ps->ctx);
		uint64_t t2 = mono_ns() - t0;
		ps->warm += batch;
		t = t2 < t ? t2 : t;
	}
	double k = ceil(SCN_REGION_MARGIN * (double)want * (double)batch / (double)(t ? t : 1));
	return k >= (double)max_k ? max_k : (uint64_t)k;
}

const char *const scn_cache_names[SCN_N_CACHES] = {"warm", "cold"};

uint64_t scn_iterate_pass(void *ctx)
{
	const struct scn_iterate_ctx *x = ctx;
	return x->ops->iterate_sum(x->c);
}

/* The cold form of scn_run_passes: one pass, after every cached line was flushed. */
static void run_cold(struct hb_region *r, struct scn_passes *ps)
{
	ps->sum = ps->warm_sum = ps->warm = 0;
	hb_evict_caches();
	hb_begin(r);
	uint64_t sum = ps->pass(ps->ctx);
	DOD_KEEP(sum);
	hb_end(r);
	ps->k = 1;
	ps->sum = sum;
	r->passes = 1;
	r->cache = scn_cache_names[SCN_CACHE_COLD];
}

void scn_run_passes(const struct scn_params *p, struct hb_region *r, struct scn_passes *ps)
{
	if (p->cache == SCN_CACHE_COLD) {
		run_cold(r, ps);
		return;
	}
	ps->sum = ps->warm_sum = 0;
	ps->warm = 0;
	for (int w = 0; w < SCN_WARM_PASSES; w++, ps->warm++)
		ps->warm_sum += ps->pass(ps->ctx);
	uint64_t k = p->passes;
	if (!k) {
		uint64_t want = hb_min_region_ns(), min_k = ps->min_k ? ps->min_k : 1;
		uint64_t max_k = ps->max_k ? ps->max_k : SCN_MAX_PASSES;
		k = want ? choose_k(ps, want, max_k) : 1;
		k = k < min_k ? min_k : k;
	}
	uint64_t sum = 0;
	hb_begin(r);
	for (uint64_t i = 0; i < k; i++)
		sum += ps->pass(ps->ctx);
	DOD_KEEP(sum);
	hb_end(r);
	ps->k = k;
	ps->sum = sum;
	r->passes = k;
	r->cache = scn_cache_names[SCN_CACHE_WARM];
}

void scn_check_passes(struct scn_result *res, const struct scn_passes *ps, uint64_t expect)
{
	scn_check_sum(res, ps->sum, ps->k * expect);
	if (res->verified && ps->warm_sum != ps->warm * expect)
		scn_fail(res, "%llu untimed passes: sum %llu, expected %llu",
		         (unsigned long long)ps->warm, (unsigned long long)ps->warm_sum,
		         (unsigned long long)(ps->warm * expect));
}

void *scn_alloc_touched(size_t count, size_t size)
{
	if (size && count > SIZE_MAX / size)
		return NULL;
	size_t bytes = count * size;
	void *p = malloc(bytes ? bytes : 1);
	if (p)
		memset(p, 0, bytes);
	return p;
}

int scn_fail(struct scn_result *res, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(res->why, sizeof res->why, fmt, ap);
	va_end(ap);
	res->verified = false;
	return SCN_RAN;
}

int scn_error(struct scn_result *res, const char *what, int err)
{
	snprintf(res->why, sizeof res->why, "%s: %s", what, dod_strerror(err));
	res->verified = false;
	res->err = err;
	return SCN_ERROR;
}

const char *scn_needs_handles(const struct dod_ops *ops)
{
	return (ops->caps & DOD_CAP_HANDLES) && ops->lookup_sum
	               ? NULL
	               : "no handles: the container offers push and iterate only";
}

const char *scn_needs_item_addr(const struct dod_ops *ops)
{
	if (scn_needs_handles(ops))
		return scn_needs_handles(ops);
	return ops->item_addr ? NULL : "no item_addr: item addresses not exposed";
}

const char *scn_needs_key_array(const struct dod_ops *ops)
{
	return ops->key_array && ops->elem_bytes == 8
	               ? NULL
	               : "hand-written loop: needs key_array (plain_array at 8-byte elements)";
}

int scn_handles_array(const struct dod_ops *ops, size_t n, uint64_t **out,
                      struct scn_result *res)
{
	*out = NULL;
	if (!(ops->caps & DOD_CAP_HANDLES))
		return 0;
	if (!(*out = scn_alloc_touched(n, sizeof **out)))
		return scn_error(res, "handles array", DOD_ENOMEM);
	return 0;
}

int scn_fill(const struct dod_ops *ops, size_t n, void **c_out, uint64_t **handles_out,
             struct scn_result *res)
{
	if (scn_handles_array(ops, n, handles_out, res))
		return SCN_ERROR;
	int err = ops->create(c_out, n);
	if (err) {
		*c_out = NULL;
		free(*handles_out);
		*handles_out = NULL;
		return scn_error(res, "create", err);
	}
	if ((err = ops->insert_n(*c_out, n, 0, *handles_out))) {
		ops->destroy(*c_out);
		*c_out = NULL; /* the caller's cleanup must not destroy it again */
		free(*handles_out);
		*handles_out = NULL;
		return scn_error(res, "insert_n", err);
	}
	return 0;
}
