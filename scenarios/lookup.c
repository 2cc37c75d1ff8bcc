/* lookup - visit every live item through its handle and sum the keys (the handle_map
 * article's "iterate by handle"; a weak-pointer dereference in Our Machinery's terms).
 * Setup: n items, the shared hole setup, then the survivors' handles in insertion order
 * (--order seq) or a seeded shuffle of them (random). Timed: one ops->lookup_sum over
 * all surviving handles; every handle is validated inside, as a real lookup must.
 * ops = surviving handles. Checksum: the sum; expected the survivors' key sum. */
#include "scenario.h"

static int run(const struct dod_ops *ops, const struct scn_params *p, struct hb_region *r,
               struct scn_result *res)
{
	struct scn_filled f;
	if (scn_fill_holes(ops, p, &f, res))
		return SCN_ERROR;
	if (p->order == SCN_RANDOM) {
		uint64_t rng = p->seed;
		dod_shuffle(f.live, f.n_live, sizeof *f.live, &rng);
	}
	uint64_t sum = 0;
	hb_begin(r);
	int err = ops->lookup_sum(f.c, f.live, f.n_live, &sum);
	DOD_KEEP(sum);
	hb_end(r);
	res->ops = f.n_live;
	if (err) {
		res->checksum = sum;
		scn_fail(res, "lookup_sum rejected a live handle: %s", dod_strerror(err));
	} else {
		scn_check_sum(res, sum, f.live_key_sum);
	}
	scn_filled_free(ops, &f);
	return SCN_RAN;
}

static const struct scn_scenario lookup = {
	.name = "lookup",
	.help = "visit every live item through its handle (--order seq|random), sum the keys",
	.uses_order = true,
	.uses_holes = true,
	.cannot_run = scn_needs_handles,
	.run = run,
};
SCN_REGISTER(lookup)
