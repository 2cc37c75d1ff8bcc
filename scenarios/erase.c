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

#include "scenario.h"

static int run(const struct dod_ops *ops, const struct scn_params *p, struct hb_region *r,
               struct scn_result *res)
{
	void *c;
	uint64_t *handles;
	size_t *order = scn_alloc_touched(p->n, sizeof *order);
	unsigned char *erased = scn_alloc_touched(p->n, 1);
	uint64_t *victims = scn_alloc_touched(p->n, sizeof *victims);
	if (!order || !erased || !victims) {
		free(order);
		free(erased);
		free(victims);
		return scn_error(res, "erase order", DOD_ENOMEM);
	}
	size_t m = p->n;
	if (p->hole_ratio > 0) {
		m = scn_hole_indices(p->n, p->hole_ratio, p->hole_pattern, p->seed, erased, order);
	} else {
		for (size_t i = 0; i < p->n; i++)
			order[i] = i, erased[i] = 1;
		uint64_t rng = p->seed;
		dod_shuffle(order, p->n, sizeof *order, &rng);
	}
	int err = m == (size_t)-1 ? DOD_ENOMEM : 0;
	if (!err && scn_fill(ops, p->n, &c, &handles, res))
		err = DOD_ENOMEM; /* res->why already says which call */
	if (!err && hb_samples_reserve(r, m)) {
		ops->destroy(c);
		free(handles);
		err = DOD_ENOMEM;
	}
	if (err) {
		free(order);
		free(erased);
		free(victims);
		return res->why[0] ? SCN_ERROR : scn_error(res, "erase setup", err);
	}
	uint64_t survivors = scn_key_sum(p->n);
	for (size_t j = 0; j < m; j++) {
		victims[j] = handles[order[j]];
		survivors -= order[j];
	}

	size_t done = 0;
	hb_begin(r);
	for (; done < m; done++) {
		if ((err = ops->erase_n(c, &victims[done], 1)) != 0)
			break;
		hb_lap(r);
	}
	DOD_CLOBBER();
	hb_end(r);
	res->ops = m ? m : 1;
	/* The CSV's hole columns carry the parameters: 0 (with pattern none) = all erased. */
	res->hole_ratio = p->hole_ratio > 0 ? (double)m / (double)p->n : 0;

	if (err) {
		scn_fail(res, "erase %zu of %zu failed: %s", done + 1, m, dod_strerror(err));
	} else {
		scn_check_sum(res, ops->iterate_sum(c), survivors);
		size_t still_valid = ops->count_valid(c, victims, m);
		size_t live = 0;
		uint64_t by_handle = 0, one;
		for (size_t i = 0; i < p->n; i++)
			if (!erased[i]) {
				live++;
				if (ops->lookup_sum(c, &handles[i], 1, &one) == 0 && one == i)
					by_handle += one;
			}
		if (res->verified && (still_valid || ops->size(c) != live || by_handle != survivors))
			scn_fail(res, "after erase: %zu erased handles still valid, size %zu of %zu, "
			         "survivors by handle %llu of %llu", still_valid, ops->size(c), live,
			         (unsigned long long)by_handle, (unsigned long long)survivors);
	}
	ops->destroy(c);
	free(handles);
	free(order);
	free(erased);
	free(victims);
	return SCN_RAN;
}

static const char *cannot_run(const struct dod_ops *ops)
{
	if (scn_needs_handles(ops))
		return scn_needs_handles(ops);
	return ops->erase_n && ops->count_valid ? NULL : "no erase_n: cannot erase single items";
}

static const struct scn_scenario erase = {
	.name = "erase",
	.help = "erase items one at a time, each timed (--hole-ratio r: round(r*n) of them by "
	        "--hole-pattern; 0: all, in random order)",
	.uses_holes = true,
	.records_samples = true,
	.cannot_run = cannot_run,
	.run = run,
};
SCN_REGISTER(erase)
