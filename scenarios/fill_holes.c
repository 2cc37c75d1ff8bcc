/* fill_holes.c - the hole setup shared by every scenario with holes (fill_holes.h): the
 * holes' count and choice by pattern, the filled container and its survivors. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "fill_holes.h"

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
