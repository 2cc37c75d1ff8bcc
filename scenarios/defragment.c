/* defragment - sort a shuffled dense set back into key order (the handle_map article's
 * "defragment (shuffled, near worst case)"). Setup: n items, the shared hole setup, then
 * ops->shuffle(seed) permutes the storage order *keeping the sparse and meta sets
 * consistent* (the article's own benchmark shuffled only the items; we do not copy
 * that). Timed: one ops->defragment(max_swaps = 0, i.e. complete); ops = live items.
 * Verification: the keys in storage order are the survivors' keys ascending, every
 * surviving handle still reaches its own item, and the swaps reported equal a count
 * computed independently from the shuffled order: the insertion sort's (it moves exactly
 * the items that are not a running maximum) or, for a sort applied by swaps along the
 * permutation's cycles (handle_map_sortdefrag), n minus the cycles. Checksum: sum of key * (position + 1), which only the
 * sorted order produces. */
#include <stdlib.h>

#include "defrag_common.h"

static int run(const struct dod_ops *ops, const struct scn_params *p, struct hb_region *r,
               struct scn_result *res)
{
	struct scn_filled f;
	uint64_t *keys = scn_alloc_touched(p->n, sizeof *keys);
	if (!keys)
		return scn_error(res, "keys array", DOD_ENOMEM);
	if (scn_fill_holes(ops, p, &f, res)) {
		free(keys);
		return SCN_ERROR;
	}
	int err = ops->shuffle(f.c, p->seed);
	if (err) {
		scn_filled_free(ops, &f);
		free(keys);
		return scn_error(res, "shuffle", err);
	}
	ops->dump_keys(f.c, keys);
	struct scn_moves expect;
	if ((err = scn_expected_moves(keys, f.n_live, &expect))) {
		scn_filled_free(ops, &f);
		free(keys);
		return scn_error(res, "expected moves", err);
	}

	size_t swaps = 0;
	hb_begin(r);
	err = ops->defragment(f.c, 0, &swaps);
	DOD_CLOBBER();
	hb_end(r);
	res->swaps = (long long)swaps;
	res->ops = f.n_live;
	return scn_defragment_done(ops, &f, keys, err, expect, res);
}

static const struct scn_scenario defragment = {
	.name = "defragment",
	.help = "shuffle the dense order (handles kept valid), then sort it back; reports swaps",
	.axes = SCN_AXES(SCN_AXIS_HOLES),
	.cannot_run = scn_needs_defragment,
	.run = run,
};
SCN_REGISTER(defragment)
