/* lookup - visit every live item through its handle and sum the keys (the handle_map
 * article's "iterate by handle"; a weak-pointer dereference in Our Machinery's terms).
 * Setup: n items, the shared hole setup, then the survivors' handles in insertion order
 * (--order seq) or a seeded shuffle of them (random). Timed: K ops->lookup_sum calls over
 * all surviving handles (scn_run_passes: warm, K from the clock's floor); every handle is
 * validated inside, as a real lookup must. ops = K x surviving handles. Checksum: the
 * sums; each pass must give the survivors' key sum. Then,
 * untimed, for a container that promises DOD_CAP_DETECTS_STALE: of all n handles issued,
 * exactly the survivors must be valid, and a lookup through an erased (stale) weak
 * pointer must fail. */
#include "fill_holes.h"

struct ctx {
	const struct dod_ops *ops;
	const struct scn_filled *f;
	int err; /* the first error of a pass */
};

static uint64_t pass(void *p)
{
	struct ctx *x = p;
	uint64_t sum = 0;
	int err = x->ops->lookup_sum(x->f->c, x->f->live, x->f->n_live, &sum);
	if (err && !x->err)
		x->err = err;
	return sum;
}

static int run(const struct dod_ops *ops, const struct scn_params *p, struct hb_region *r,
               struct scn_result *res)
{
	struct scn_filled f;
	if (scn_fill_ordered(ops, p, &f, res))
		return SCN_ERROR;
	struct ctx x = {ops, &f, 0};
	struct scn_passes ps = {.pass = pass, .ctx = &x};
	scn_run_passes(p, r, &ps);
	res->ops = ps.k * f.n_live;
	if (x.err) {
		res->checksum = ps.sum;
		scn_fail(res, "lookup_sum rejected a live handle: %s", dod_strerror(x.err));
	} else {
		scn_check_passes(res, &ps, f.live_key_sum);
	}
	if (res->verified && (ops->caps & DOD_CAP_DETECTS_STALE) && f.n_live < f.n) {
		size_t valid = ops->count_valid(f.c, f.handles, f.n);
		size_t stale = 0;
		while (stale < f.n && ops->count_valid(f.c, &f.handles[stale], 1))
			stale++;
		uint64_t ignored;
		if (valid != f.n_live)
			scn_fail(res, "%zu of the %zu handles issued are valid, but %zu items live",
			         valid, f.n, f.n_live);
		else if (stale < f.n && ops->lookup_sum(f.c, &f.handles[stale], 1, &ignored) == DOD_OK)
			scn_fail(res, "lookup_sum accepted the stale weak pointer of erased item %zu",
			         stale);
	}
	scn_filled_free(ops, &f);
	return SCN_RAN;
}

static const struct scn_scenario lookup = {
	.name = "lookup",
	.help = "visit every live item through its handle (--order seq|random), sum the keys",
	.axes = SCN_AXES(&hb_axis_order, SCN_AXIS_HOLES, &hb_axis_cache),
	.cannot_run = scn_needs_handles,
	.run = run,
};
SCN_REGISTER(lookup)
