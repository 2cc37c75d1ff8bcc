/* scenario.c - the scenario registry (linker section dod_scenarios) and the helpers the
 * scenarios share: fills, the hole setup, checksums, error texts. */
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

/* Uniform double in (0, 1]. */
static double rng_unit(uint64_t *rng)
{
	return (double)((dod_rng_next(rng) >> 11) + 1) * 0x1.0p-53;
}

size_t scn_hole_count(size_t n, double ratio)
{
	if (n == 0 || ratio <= 0)
		return 0;
	size_t m = (size_t)llround(ratio * (double)n);
	return m > n - 1 ? n - 1 : m; /* at least one survivor: every scenario visits something */
}

size_t scn_hole_indices(size_t n, double ratio, enum scn_hole_pattern pattern, uint64_t seed,
                        unsigned char *erased, size_t *order_out)
{
	memset(erased, 0, n);
	size_t m = scn_hole_count(n, ratio);
	if (pattern == SCN_HOLES_NONE || m == 0)
		return 0;
	uint64_t rng = seed ^ 0x401e5ca77e12edull;
	switch (pattern) {
	case SCN_HOLES_OLDEST:
		memset(erased, 1, m);
		break;
	case SCN_HOLES_RANDOM:
		/* Floyd's sampling: m distinct indices, O(m) RNG calls. */
		for (size_t j = n - m; j < n; j++) {
			size_t t = (size_t)dod_rng_below(&rng, j + 1);
			erased[erased[t] ? j : t] = 1;
		}
		break;
	case SCN_HOLES_CLUSTERED: {
		/* Runs of geometric length (mean SCN_CLUSTER_MEAN) until m are erased, then the
		 * n - m survivors are spread over the k + 1 gaps before, between and after the k
		 * runs uniformly (adjacent runs with an empty gap merge, as real ones do). */
		double q = log1p(-1.0 / SCN_CLUSTER_MEAN);
		size_t k = 0, total = 0;
		size_t *runs = malloc((m ? m : 1) * sizeof *runs), *gaps;
		if (!runs)
			return (size_t)-1;
		while (total < m) {
			size_t len = 1 + (size_t)floor(log(rng_unit(&rng)) / q);
			if (len > m - total)
				len = m - total;
			runs[k++] = len;
			total += len;
		}
		if (!(gaps = calloc(k + 1, sizeof *gaps))) {
			free(runs);
			return (size_t)-1;
		}
		for (size_t s = 0; s < n - m; s++)
			gaps[dod_rng_below(&rng, k + 1)]++;
		size_t at = 0;
		for (size_t r = 0; r < k; r++) {
			at += gaps[r];
			memset(erased + at, 1, runs[r]);
			at += runs[r];
		}
		free(runs);
		free(gaps);
		break;
	}
	case SCN_HOLES_NONE:
		break;
	}
	if (order_out) {
		size_t j = 0;
		for (size_t i = 0; i < n; i++)
			if (erased[i])
				order_out[j++] = i;
		if (pattern != SCN_HOLES_OLDEST)
			dod_shuffle(order_out, m, sizeof *order_out, &rng);
	}
	return m;
}

int scn_fill_dense(const struct dod_ops *ops, const struct scn_params *p,
                   struct scn_filled *f, struct scn_result *res)
{
	struct scn_params no_holes = *p;
	no_holes.hole_ratio = 0;
	no_holes.hole_pattern = SCN_HOLES_NONE;
	return scn_fill_holes(ops, &no_holes, f, res);
}

int scn_fill_holes(const struct dod_ops *ops, const struct scn_params *p,
                   struct scn_filled *f, struct scn_result *res)
{
	memset(f, 0, sizeof *f);
	f->n = f->n_live = p->n;
	f->live_key_sum = scn_key_sum(p->n);
	res->hole_ratio = 0;
	if (scn_fill(ops, p->n, &f->c, &f->handles, res))
		return SCN_ERROR;
	if (p->hole_ratio <= 0 || p->hole_pattern == SCN_HOLES_NONE) {
		f->live = f->handles;
		return 0;
	}
	unsigned char *erased = scn_alloc_touched(p->n, 1);
	size_t *order = scn_alloc_touched(p->n, sizeof *order);
	uint64_t *victims = scn_alloc_touched(p->n, sizeof *victims);
	f->live = scn_alloc_touched(p->n, sizeof *f->live);
	f->live_keys = scn_alloc_touched(p->n, sizeof *f->live_keys);
	size_t m = erased && order && victims && f->live && f->live_keys
	                   ? scn_hole_indices(p->n, p->hole_ratio, p->hole_pattern, p->seed, erased,
	                                      order)
	                   : (size_t)-1;
	int err = m == (size_t)-1 ? DOD_ENOMEM : DOD_OK;
	if (!err) {
		for (size_t j = 0; j < m; j++) {
			victims[j] = f->handles[order[j]];
			f->live_key_sum -= order[j]; /* key = insertion index */
		}
		err = ops->erase_n(f->c, victims, m);
	}
	if (!err) {
		f->n_live = 0;
		for (size_t i = 0; i < p->n; i++)
			if (!erased[i]) {
				f->live_keys[f->n_live] = i;
				/* A positional handle (no stable handles: peer_std_vector) after the
				 * erase is the survivor's position. */
				f->live[f->n_live] = ops->caps & DOD_CAP_STABLE_HANDLES ? f->handles[i]
				                                                        : f->n_live;
				f->n_live++;
			}
		res->hole_ratio = (double)m / (double)p->n;
	}
	free(erased);
	free(order);
	free(victims);
	if (err) {
		scn_filled_free(ops, f);
		return scn_error(res, "hole setup (erase_n)", err);
	}
	return 0;
}

int scn_fill_ordered(const struct dod_ops *ops, const struct scn_params *p,
                     struct scn_filled *f, struct scn_result *res)
{
	if (scn_fill_holes(ops, p, f, res))
		return SCN_ERROR;
	if (p->order == SCN_RANDOM) {
		uint64_t rng = p->seed;
		dod_shuffle(f->live, f->n_live, sizeof *f->live, &rng);
	}
	return 0;
}

void scn_filled_free(const struct dod_ops *ops, struct scn_filled *f)
{
	if (f->c)
		ops->destroy(f->c);
	if (f->live != f->handles)
		free(f->live);
	free(f->live_keys);
	free(f->handles);
	memset(f, 0, sizeof *f);
}

long long scn_count_moves(const uint64_t *keys, size_t n)
{
	long long moves = 0;
	uint64_t max = 0;
	for (size_t i = 0; i < n; i++) {
		if (i > 0 && keys[i] < max)
			moves++;
		else
			max = keys[i];
	}
	return moves;
}

/* One item of the sort that gives the cycle count: its key and storage position. */
struct key_pos {
	uint64_t key;
	size_t pos;
};

static int key_pos_cmp(const void *a, const void *b)
{
	const struct key_pos *x = a, *y = b;
	if (x->key != y->key)
		return x->key < y->key ? -1 : 1;
	return (x->pos > y->pos) - (x->pos < y->pos);
}

/* Swaps along the cycles of the stable sorting permutation of keys[0..n): n minus its
 * cycles (fixed points are cycles of one). -1 when out of memory. */
static long long count_cycle_swaps(const uint64_t *keys, size_t n)
{
	struct key_pos *kp = malloc((n ? n : 1) * sizeof *kp);
	unsigned char *seen = calloc(n ? n : 1, 1);
	size_t *to = malloc((n ? n : 1) * sizeof *to);
	long long swaps = -1;
	if (kp && seen && to) {
		for (size_t i = 0; i < n; i++)
			kp[i] = (struct key_pos){keys[i], i};
		qsort(kp, n, sizeof *kp, key_pos_cmp);
		for (size_t r = 0; r < n; r++)
			to[kp[r].pos] = r;
		swaps = (long long)n;
		for (size_t i = 0; i < n; i++) {
			if (seen[i])
				continue;
			swaps--;
			for (size_t j = i; !seen[j]; j = to[j])
				seen[j] = 1;
		}
	}
	free(kp);
	free(seen);
	free(to);
	return swaps;
}

int scn_expected_moves(const uint64_t *keys, size_t n, struct scn_moves *out)
{
	out->insertion = scn_count_moves(keys, n);
	out->cycles = count_cycle_swaps(keys, n);
	return out->cycles < 0 ? DOD_ENOMEM : DOD_OK;
}

void scn_check_defragmented(const struct dod_ops *ops, const struct scn_filled *f,
                            uint64_t *keys, long long swaps, struct scn_moves expect,
                            struct scn_result *res)
{
	/* The survivors' keys ascending are scn_live_key(f, 0..n_live-1). */
	ops->dump_keys(f->c, keys);
	uint64_t checksum = 0, expect_sum = 0;
	bool sorted = ops->size(f->c) == f->n_live;
	for (size_t d = 0; d < f->n_live; d++) {
		checksum += keys[d] * (d + 1);
		expect_sum += scn_live_key(f, d) * (d + 1);
		sorted &= keys[d] == scn_live_key(f, d);
	}
	size_t wrong = 0;
	for (size_t k = 0; k < f->n_live; k++) {
		uint64_t key;
		if (ops->lookup_sum(f->c, &f->live[k], 1, &key) || key != scn_live_key(f, k))
			wrong++;
	}
	bool swaps_ok = swaps == expect.insertion || swaps == expect.cycles;
	res->checksum = checksum;
	res->verified = sorted && checksum == expect_sum && wrong == 0 && swaps_ok;
	if (!res->verified)
		scn_fail(res, "sorted %d, %zu handles lost their item, swaps %lld expected %lld "
		         "(insertion sort) or %lld (swaps along cycles)", sorted, wrong, swaps,
		         expect.insertion, expect.cycles);
}

int scn_defragment_done(const struct dod_ops *ops, struct scn_filled *f, uint64_t *keys,
                        int err, struct scn_moves expect, struct scn_result *res)
{
	int rc = SCN_RAN;
	if (err)
		rc = scn_error(res, "defragment", err);
	else
		scn_check_defragmented(ops, f, keys, res->swaps, expect, res);
	scn_filled_free(ops, f);
	free(keys);
	return rc;
}

const char *scn_needs_defragment(const struct dod_ops *ops)
{
	if (scn_needs_handles(ops))
		return scn_needs_handles(ops);
	return ops->shuffle && ops->defragment && ops->dump_keys ? NULL : "no defragment operation";
}

/* ---- the list scenarios' shared setup ---- */

int scn_ranks_init(struct scn_ranks *r, size_t n, bool present)
{
	r->n = n;
	if (!(r->t = scn_alloc_touched(n + 1, sizeof *r->t)))
		return DOD_ENOMEM;
	for (size_t i = 1; present && i <= n; i++) {
		r->t[i] += 1;
		size_t up = i + (i & -i); /* linear build: each node adds itself to its parent */
		if (up <= n)
			r->t[up] += r->t[i];
	}
	return DOD_OK;
}

void scn_ranks_add(struct scn_ranks *r, size_t i, int64_t delta)
{
	for (size_t j = i + 1; j <= r->n; j += j & -j)
		r->t[j] += (uint64_t)delta;
}

size_t scn_ranks_before(const struct scn_ranks *r, size_t i)
{
	uint64_t s = 0;
	for (size_t j = i; j > 0; j -= j & -j)
		s += r->t[j];
	return (size_t)s;
}

size_t scn_ranks_select(const struct scn_ranks *r, size_t k)
{
	size_t pos = 0, step = 1;
	while (step <= r->n / 2)
		step <<= 1;
	for (; step; step >>= 1)
		if (pos + step <= r->n && r->t[pos + step] <= k) {
			pos += step;
			k -= (size_t)r->t[pos];
		}
	return pos; /* the largest prefix holding <= k present slots: the slot after it */
}

void scn_ranks_free(struct scn_ranks *r)
{
	free(r->t);
	r->t = NULL;
}

const char *scn_needs_list_family(const struct dod_ops *ops)
{
	if (!(dod_exts(ops) & (DOD_EXT_LIST | DOD_EXT_CONSOLIDATE)))
		return "not a list container: no list or consolidate extension";
	if (scn_needs_handles(ops))
		return scn_needs_handles(ops);
	return ops->dump_keys ? NULL : "no dump_keys: the sequence cannot be checked";
}

void scn_list_free(const struct dod_ops *ops, struct scn_list *l)
{
	if (l->c)
		ops->destroy(l->c);
	free(l->ref);
	free(l->next);
	free(l->prev);
	free(l->alive);
	free(l->slot);
	scn_ranks_free(&l->ranks);
	memset(l, 0, sizeof *l);
}

int scn_list_model(const struct dod_ops *ops, size_t cap, struct scn_list *l)
{
	*l = (struct scn_list){.cap = cap, .positional = !(ops->caps & DOD_CAP_STABLE_HANDLES)};
	l->ref = scn_alloc_touched(cap, sizeof *l->ref);
	l->next = scn_alloc_touched(cap + 1, sizeof *l->next);
	l->prev = scn_alloc_touched(cap + 1, sizeof *l->prev);
	l->alive = scn_alloc_touched(cap, 1);
	bool ok = l->ref && l->next && l->prev && l->alive;
	if (ok && l->positional)
		ok = (l->slot = scn_alloc_touched(cap, sizeof *l->slot)) &&
		     scn_ranks_init(&l->ranks, cap, false) == DOD_OK;
	if (!ok) {
		scn_list_free(ops, l);
		return DOD_ENOMEM;
	}
	l->next[cap] = l->prev[cap] = cap; /* empty: the sentinel alone */
	return DOD_OK;
}

/* Links key k into the model next to key at (cap: the sentinel), before or after it. */
static void model_link(struct scn_list *l, size_t k, size_t at, int where)
{
	size_t before = where == DOD_LIST_BEFORE ? l->prev[at] : at;
	size_t after = l->next[before];
	l->prev[k] = before, l->next[k] = after;
	l->next[before] = k, l->prev[after] = k;
}

void scn_list_appended(struct scn_list *l, size_t n)
{
	for (size_t k = l->n_keys; k < l->n_keys + n; k++) {
		model_link(l, k, l->cap, DOD_LIST_BEFORE); /* before the sentinel: at the end */
		l->alive[k] = 1;
		l->live_key_sum += k;
	}
	l->n_keys += n;
	l->n_live += n;
}

int scn_list_fill(const struct dod_ops *ops, const struct scn_params *p, size_t extra,
                  struct scn_list *l, struct scn_result *res)
{
	struct scn_filled f;
	if (scn_list_model(ops, p->n + extra, l))
		return scn_error(res, "list model", DOD_ENOMEM);
	if (scn_fill_holes(ops, p, &f, res)) {
		scn_list_free(ops, l);
		return SCN_ERROR;
	}
	l->c = f.c;
	f.c = NULL;
	for (size_t k = 0; k < p->n; k++)
		l->ref[k] = f.handles ? f.handles[k] : k;
	scn_list_appended(l, p->n);
	memset(l->alive, 0, p->n); /* then the survivors of the holes live again */
	for (size_t i = 0; i < f.n_live; i++)
		l->alive[scn_live_key(&f, i)] = 1;
	l->n_live = f.n_live;
	l->live_key_sum = f.live_key_sum;
	scn_filled_free(ops, &f);
	return 0;
}

/* Positional references: numbers the model's order (l->slot) and marks the live keys'
 * slots present (l->ranks), so scn_ranks_before(slot[k]) is k's position. */
static void model_number(struct scn_list *l)
{
	size_t s = 0;
	memset(l->ranks.t, 0, (l->cap + 1) * sizeof *l->ranks.t);
	for (size_t k = l->next[l->cap]; k != l->cap; k = l->next[k], s++) {
		l->slot[k] = s;
		if (l->alive[k])
			scn_ranks_add(&l->ranks, s, 1);
	}
}

/* The live keys in sequence order into keys (room for n_live). */
static void model_live_keys(const struct scn_list *l, uint64_t *keys)
{
	size_t p = 0;
	for (size_t k = l->next[l->cap]; k != l->cap; k = l->next[k])
		if (l->alive[k])
			keys[p++] = k;
}

void scn_list_live_refs(const struct scn_list *l, uint64_t *refs_out, uint64_t *keys_out)
{
	size_t p = 0;
	for (size_t k = l->next[l->cap]; k != l->cap; k = l->next[k])
		if (l->alive[k]) {
			refs_out[p] = l->positional ? p : l->ref[k];
			if (keys_out)
				keys_out[p] = k;
			p++;
		}
}

void scn_list_inserts_free(struct scn_list_inserts *plan)
{
	free(plan->refs);
	free(plan->refs_out);
	plan->refs = plan->refs_out = NULL;
}

/* Each planned item's reference: its target's (stable), or the target's position when
 * the item's turn comes in call order (positional: the items before it counted). */
static void plan_refs(struct scn_list *l, struct scn_list_inserts *plan, const uint64_t *target)
{
	if (l->positional)
		model_number(l); /* the new keys are linked, not yet alive */
	for (size_t i = 0; i < plan->m; i++) {
		size_t t = (size_t)target[i];
		plan->refs[i] = l->positional ? scn_ranks_before(&l->ranks, l->slot[t]) : l->ref[t];
		if (l->positional)
			scn_ranks_add(&l->ranks, l->slot[plan->first_key + i], 1);
	}
}

int scn_list_plan_inserts(struct scn_list *l, size_t m, uint64_t seed,
                          struct scn_list_inserts *plan, struct scn_result *res)
{
	*plan = (struct scn_list_inserts){.m = m, .first_key = l->n_keys};
	if (m > l->cap - l->n_keys || !l->n_live)
		return scn_error(res, "list insertions: no room in the model or no item", DOD_EINVAL);
	uint64_t *held = scn_alloc_touched(l->n_live, sizeof *held);
	plan->refs = scn_alloc_touched(m, sizeof *plan->refs);
	plan->refs_out = scn_alloc_touched(m, sizeof *plan->refs_out);
	if (!held || !plan->refs || !plan->refs_out) {
		free(held);
		scn_list_inserts_free(plan);
		return scn_error(res, "list insertions", DOD_ENOMEM);
	}
	model_live_keys(l, held);
	uint64_t rng = seed ^ 0x115e27a7ull;
	for (size_t i = 0; i < m; i++)
		plan->n_before += dod_rng_next(&rng) & 1; /* a coin each: before or after */
	/* plan->refs holds the targets until plan_refs turns them into references */
	for (size_t i = 0; i < m; i++) {
		plan->refs[i] = held[dod_rng_below(&rng, l->n_live)];
		model_link(l, plan->first_key + i, (size_t)plan->refs[i],
		           i < plan->n_before ? DOD_LIST_BEFORE : DOD_LIST_AFTER);
	}
	memcpy(plan->refs_out, plan->refs, m * sizeof *plan->refs);
	plan_refs(l, plan, plan->refs_out);
	for (size_t i = 0; i < m; i++) {
		l->alive[plan->first_key + i] = 1;
		l->live_key_sum += plan->first_key + i;
	}
	l->n_keys += m;
	l->n_live += m;
	free(held);
	return 0;
}

int scn_list_insert(const struct dod_ops *ops, struct scn_list *l,
                    const struct scn_list_inserts *plan)
{
	size_t b = plan->n_before;
	int err = b ? ops->list->insert_at_n(l->c, plan->refs, b, DOD_LIST_BEFORE, plan->first_key,
	                                     plan->refs_out)
	            : 0;
	if (!err && plan->m > b)
		err = ops->list->insert_at_n(l->c, plan->refs + b, plan->m - b, DOD_LIST_AFTER,
		                             plan->first_key + b, plan->refs_out + b);
	return err;
}

void scn_list_inserted(struct scn_list *l, struct scn_list_inserts *plan)
{
	for (size_t i = 0; i < plan->m; i++)
		l->ref[plan->first_key + i] = plan->refs_out[i];
	scn_list_inserts_free(plan);
}

int scn_list_plan_erase(struct scn_list *l, size_t m, uint64_t seed, uint64_t *refs_out)
{
	uint64_t *keys = scn_alloc_touched(l->n_live, sizeof *keys);
	if (!keys)
		return DOD_ENOMEM;
	model_live_keys(l, keys);
	m = m > l->n_live ? l->n_live : m;
	uint64_t rng = seed ^ 0xe7a5e11ull;
	if (l->positional)
		model_number(l);
	for (size_t j = 0; j < m; j++) {
		size_t t = j + (size_t)dod_rng_below(&rng, l->n_live - j), v = (size_t)keys[t];
		keys[t] = keys[j], keys[j] = v; /* a partial Fisher-Yates: a random order */
		refs_out[j] = l->positional ? scn_ranks_before(&l->ranks, l->slot[v]) : l->ref[v];
		if (l->positional)
			scn_ranks_add(&l->ranks, l->slot[v], -1);
		l->alive[v] = 0;
		l->live_key_sum -= v;
	}
	l->n_live -= m;
	free(keys);
	return DOD_OK;
}

int scn_list_churn(const struct dod_ops *ops, const struct scn_params *p, struct scn_list *l,
                   struct scn_result *res)
{
	if (scn_list_fill(ops, p, p->n, l, res))
		return SCN_ERROR;
	size_t m = p->n - l->n_live;
	if (!m || !(dod_exts(ops) & DOD_EXT_LIST))
		return 0;
	struct scn_list_inserts plan;
	if (scn_list_plan_inserts(l, m, p->seed, &plan, res)) {
		scn_list_free(ops, l);
		return SCN_ERROR;
	}
	int err = scn_list_insert(ops, l, &plan);
	if (err) {
		scn_list_inserts_free(&plan);
		scn_list_free(ops, l);
		return scn_error(res, "churn (insert_at_n)", err);
	}
	scn_list_inserted(l, &plan);
	return 0;
}

/* The sequence part of scn_list_check: dump_keys against the model. */
static bool check_sequence(const struct dod_ops *ops, const struct scn_list *l, uint64_t *got,
                           uint64_t *want, struct scn_result *res)
{
	size_t size = ops->size(l->c), bad = 0, first = 0;
	if (size != l->n_live)
		return scn_fail(res, "size %zu, expected %zu", size, l->n_live), false;
	ops->dump_keys(l->c, got);
	model_live_keys(l, want);
	uint64_t checksum = 0;
	for (size_t p = 0; p < size; p++) {
		checksum += got[p] * (p + 1);
		if (got[p] != want[p] && !bad++)
			first = p;
	}
	res->checksum = checksum;
	if (bad)
		return scn_fail(res, "sequence: %zu of %zu positions wrong, the first %zu (key %llu, "
		                "expected %llu)", bad, size, first, (unsigned long long)got[first],
		                (unsigned long long)want[first]), false;
	return true;
}

bool scn_list_check(const struct dod_ops *ops, const struct scn_list *l,
                    struct scn_result *res)
{
	uint64_t *got = scn_alloc_touched(l->n_live, sizeof *got);
	uint64_t *want = scn_alloc_touched(l->n_live, sizeof *want);
	bool ok = got && want && check_sequence(ops, l, got, want, res);
	if (!got || !want)
		scn_fail(res, "sequence check: out of memory");
	uint64_t sum = 0;
	int err = 0;
	if (ok) {
		scn_list_live_refs(l, got, NULL);
		err = ops->lookup_sum(l->c, got, l->n_live, &sum);
		ok = !err && sum == l->live_key_sum;
		if (!ok)
			scn_fail(res, "the live items' references: %s, key sum %llu, expected %llu",
			         dod_strerror(err), (unsigned long long)sum,
			         (unsigned long long)l->live_key_sum);
	}
	char why[120];
	if (ok && ops->check && ops->check(l->c, why, sizeof why)) {
		ok = false;
		scn_fail(res, "the container's check: %s", why);
	}
	free(got);
	free(want);
	res->verified = ok;
	return ok;
}

bool scn_list_remapped(struct scn_list *l, const uint64_t *remap, size_t bound,
                       struct scn_result *res)
{
	size_t p = 0, wrong = 0, mapped = 0;
	for (size_t i = 0; i < bound; i++)
		mapped += remap[i] != DOD_NO_REF;
	for (size_t k = l->next[l->cap]; k != l->cap; k = l->next[k])
		if (l->alive[k]) {
			uint64_t old = l->positional ? p : l->ref[k];
			wrong += old >= bound || remap[old] != p;
			l->ref[k] = p++;
		}
	if (wrong || mapped != l->n_live)
		return scn_fail(res, "consolidate's remap: %zu live items not moved to their sequence "
		                "position, %zu references mapped for %zu items", wrong, mapped,
		                l->n_live), false;
	return true;
}
