/* erase - erase items one at a time, each erase timed (Our Machinery, "Bulk data",
 * removal strategies: shift is O(n) per erase, swap-and-pop and holes O(1)). Setup: n
 * items (keys 0..n-1). Timed: one ops->erase_n(c, &handle, 1) call per erased item, with a
 * latency sample each (hb_lap): the indirect call per element is deliberate, one erase is
 * the operation measured. Which items, in which order, follows the hole parameters, so
 * here they describe the holes the region makes rather than holes made before it:
 * --hole-ratio r erases round(r * n) items chosen by --hole-pattern (random and clustered
 * in random order, oldest oldest first); r = 0 erases all n in random order (and is
 * written as hole_ratio 0, pattern none).
 * ops = items erased. Verification: every erase returned 0, size is what is left, the
 * erased handles are rejected, the survivors' handles reach their items, and the key sum
 * by iteration is the survivors'. Checksum: that sum. */
#include <stdlib.h>

#include "fill_holes.h"

/* One repetition's arrays, allocated (touched) before the container. */
struct erase_plan {
	size_t n, m;           /* items inserted, items the region erases */
	size_t *order;         /* the insertion indices erased, in erase order */
	unsigned char *erased; /* per insertion index: 1 if the region erases it */
	uint64_t *victims;     /* their handles, in erase order */
	uint64_t survivors;    /* the key sum of the items left */
};

static void plan_free(struct erase_plan *e)
{
	free(e->order);
	free(e->erased);
	free(e->victims);
}

/* Returns 0 or DOD_ENOMEM (e freed). */
static int plan_alloc(struct erase_plan *e, size_t n)
{
	*e = (struct erase_plan){.n = n, .m = n};
	e->order = scn_alloc_touched(n, sizeof *e->order);
	e->erased = scn_alloc_touched(n, 1);
	e->victims = scn_alloc_touched(n, sizeof *e->victims);
	if (e->order && e->erased && e->victims)
		return DOD_OK;
	plan_free(e);
	return DOD_ENOMEM;
}

/* Which items, in which order: round(r * n) by --hole-pattern, or all n in random order
 * (r = 0). Returns 0 or DOD_ENOMEM. */
static int plan_order(struct erase_plan *e, const struct scn_params *p)
{
	if (p->hole_ratio > 0) {
		e->m = scn_hole_indices(p->n, p->hole_ratio, p->hole_pattern, p->seed, e->erased,
		                        e->order);
		return e->m == (size_t)-1 ? DOD_ENOMEM : DOD_OK;
	}
	for (size_t i = 0; i < p->n; i++)
		e->order[i] = i, e->erased[i] = 1;
	uint64_t rng = p->seed;
	dod_shuffle(e->order, p->n, sizeof *e->order, &rng);
	return DOD_OK;
}

/* The victims' handles, and the key sum of the items they leave. */
static void plan_victims(struct erase_plan *e, const uint64_t *handles)
{
	e->survivors = scn_key_sum(e->n);
	for (size_t j = 0; j < e->m; j++) {
		e->victims[j] = handles[e->order[j]];
		e->survivors -= e->order[j];
	}
}

/* The timed region: one erase_n call per item, a latency sample each. Returns 0, or the
 * error of the call that failed with *done_out = the erases before it. */
static int erase_each(const struct dod_ops *ops, void *c, const struct erase_plan *e,
                      struct hb_region *r, size_t *done_out)
{
	int err = 0;
	size_t done = 0;
	hb_begin(r);
	for (; done < e->m; done++) {
		if ((err = ops->erase_n(c, &e->victims[done], 1)) != 0)
			break;
		hb_lap(r);
	}
	DOD_CLOBBER();
	hb_end(r);
	*done_out = done;
	return err;
}

/* After the erases: the survivors' sum by iteration, the erased handles rejected, the
 * size, and every survivor's handle reaching its key. */
static void erase_verify(const struct dod_ops *ops, const void *c, const uint64_t *handles,
                         const struct erase_plan *e, struct scn_result *res)
{
	scn_check_sum(res, ops->iterate_sum(c), e->survivors);
	size_t still_valid = ops->count_valid(c, e->victims, e->m);
	size_t live = 0;
	uint64_t by_handle = 0, one;
	for (size_t i = 0; i < e->n; i++)
		if (!e->erased[i]) {
			live++;
			if (ops->lookup_sum(c, &handles[i], 1, &one) == 0 && one == i)
				by_handle += one;
		}
	if (res->verified && (still_valid || ops->size(c) != live || by_handle != e->survivors))
		scn_fail(res, "after erase: %zu erased handles still valid, size %zu of %zu, "
		         "survivors by handle %llu of %llu", still_valid, ops->size(c), live,
		         (unsigned long long)by_handle, (unsigned long long)e->survivors);
}

static int run(const struct dod_ops *ops, const struct scn_params *p, struct hb_region *r,
               struct scn_result *res)
{
	struct erase_plan e;
	void *c;
	uint64_t *handles;
	if (plan_alloc(&e, p->n))
		return scn_error(res, "erase order", DOD_ENOMEM);
	if (plan_order(&e, p)) {
		plan_free(&e);
		return scn_error(res, "erase setup", DOD_ENOMEM);
	}
	if (scn_fill(ops, p->n, &c, &handles, res)) {
		plan_free(&e);
		return SCN_ERROR; /* res->why already says which call */
	}
	if (hb_samples_reserve(r, e.m)) {
		ops->destroy(c);
		free(handles);
		plan_free(&e);
		return scn_error(res, "erase setup", DOD_ENOMEM);
	}
	plan_victims(&e, handles);
	size_t done;
	int err = erase_each(ops, c, &e, r, &done);
	res->ops = e.m ? e.m : 1;
	/* The CSV's hole columns carry the parameters: 0 (with pattern none) = all erased. */
	res->hole_ratio = p->hole_ratio > 0 ? (double)e.m / (double)p->n : 0;
	if (err)
		scn_fail(res, "erase %zu of %zu failed: %s", done + 1, e.m, dod_strerror(err));
	else
		erase_verify(ops, c, handles, &e, res);
	ops->destroy(c);
	free(handles);
	plan_free(&e);
	return SCN_RAN;
}

static const char *cannot_run(const struct dod_ops *ops)
{
	if (scn_needs_handles(ops))
		return scn_needs_handles(ops);
	if (!ops->erase_n || !ops->count_valid)
		return "no erase_n: cannot erase single items";
	/* The handles are taken before the region and erased one by one: positional ones
	 * (peer_std_vector) shift with each erase (list_erase_random erases those). */
	return ops->caps & DOD_CAP_STABLE_HANDLES ? NULL : "handles are not stable across erase";
}

static const struct scn_scenario erase = {
	.name = "erase",
	.help = "erase items one at a time, each timed (--hole-ratio r: round(r*n) of them by "
	        "--hole-pattern; 0: all, in random order)",
	.axes = SCN_AXES(SCN_AXIS_HOLES),
	.records_samples = true,
	.cannot_run = cannot_run,
	.run = run,
};
SCN_REGISTER(erase)
