/* iterate - sum the key field over all live items in storage order (the handle_map
 * article's "iterate (sum)"; Our Machinery's bulk-data iteration when there are holes).
 * Setup: n items, then --hole-ratio of them erased by the shared hole setup. Timed: one
 * ops->iterate_sum call, whose loop lives inside the container (holes skipped there).
 * ops = surviving items, so ns_per_op is the cost per live item. Checksum: the sum;
 * expected the survivors' key sum (n(n-1)/2 without holes). */
#include "scenario.h"

static int run(const struct dod_ops *ops, const struct scn_params *p, struct hb_region *r,
               struct scn_result *res)
{
	struct scn_filled f;
	if (scn_fill_holes(ops, p, &f, res))
		return SCN_ERROR;
	hb_begin(r);
	uint64_t sum = ops->iterate_sum(f.c);
	DOD_KEEP(sum);
	hb_end(r);
	res->ops = f.n_live;
	scn_check_sum(res, sum, f.live_key_sum);
	scn_filled_free(ops, &f);
	return SCN_RAN;
}

static const struct scn_scenario iterate = {
	.name = "iterate",
	.help = "sum the key of every live item in storage order (holes skipped)",
	.uses_holes = true,
	.run = run,
};
SCN_REGISTER(iterate)
