/* iterate - sum the key field over all live items in storage order (the handle_map
 * article's "iterate (sum)"; Our Machinery's bulk-data iteration when there are holes).
 * Setup: n items, then --hole-ratio of them erased by the shared hole setup. Timed: K
 * ops->iterate_sum calls (scn_run_passes: warm, K from the clock's floor), whose loop lives
 * inside the container (holes skipped there). ops = K x surviving items, so ns_per_op is
 * the cost per live item. Checksum: the sums; each pass must give the survivors' key sum
 * (n(n-1)/2 without holes). */
#include "fill_holes.h"

static int run(const struct dod_ops *ops, const struct scn_params *p, struct hb_region *r,
               struct scn_result *res)
{
	struct scn_filled f;
	if (scn_fill_holes(ops, p, &f, res))
		return SCN_ERROR;
	struct scn_iterate_ctx x = {ops, f.c};
	struct scn_passes ps = {.pass = scn_iterate_pass, .ctx = &x};
	scn_run_passes(p, r, &ps);
	res->ops = ps.k * f.n_live;
	scn_check_passes(res, &ps, f.live_key_sum);
	scn_filled_free(ops, &f);
	return SCN_RAN;
}

static const struct scn_scenario iterate = {
	.name = "iterate",
	.help = "sum the key of every live item in storage order (holes skipped)",
	.axes = SCN_AXES(SCN_AXIS_HOLES, &hb_axis_cache),
	.run = run,
};
SCN_REGISTER(iterate)
