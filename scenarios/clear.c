/* clear and reset - remove every item. Setup: n items, then (clear only) the shared
 * hole setup erases --hole-ratio of them. Timed: one ops->clear (or ops->reset) call;
 * ops = the live items it removed. Checksum: how many of the n old handles the container
 * rejects afterwards; expected n (for handle_map::clear because generations were bumped,
 * for reset because the sparse set is gone, for peers because the keys/indices are gone),
 * and size must be 0. The container must also accept new items afterwards (insert n
 * again, sum their keys). */
#include "fill_holes.h"

static int run_with(int (*op)(void *), const char *what, const struct dod_ops *ops,
                    const struct scn_params *p, struct hb_region *r, struct scn_result *res)
{
	struct scn_filled f;
	if (scn_fill_holes(ops, p, &f, res))
		return SCN_ERROR;
	void *c = f.c;
	uint64_t *handles = f.handles;
	hb_begin(r);
	int err = op(c);
	DOD_CLOBBER();
	hb_end(r);
	res->ops = f.n_live;
	if (err) {
		scn_filled_free(ops, &f);
		return scn_error(res, what, err);
	}
	size_t rejected = p->n - ops->count_valid(c, handles, p->n);
	size_t size_after = ops->size(c);
	res->checksum = rejected;
	res->verified = rejected == p->n && size_after == 0;
	if (!res->verified) {
		scn_fail(res, "after %s: size %zu, %zu of %zu old handles rejected", what,
		         size_after, rejected, p->n);
	} else if ((err = ops->insert_n(c, p->n, 0, handles)) != 0) {
		scn_fail(res, "insert after %s failed: %d", what, err);
	} else {
		uint64_t sum = 0;
		if (ops->lookup_sum(c, handles, p->n, &sum) || sum != scn_key_sum(p->n))
			scn_fail(res, "items inserted after %s are not found by handle", what);
	}
	scn_filled_free(ops, &f);
	return SCN_RAN;
}

static int run_clear(const struct dod_ops *ops, const struct scn_params *p,
                     struct hb_region *r, struct scn_result *res)
{
	return run_with(ops->clear, "clear", ops, p, r, res);
}

static int run_reset(const struct dod_ops *ops, const struct scn_params *p,
                     struct hb_region *r, struct scn_result *res)
{
	return run_with(ops->reset, "reset", ops, p, r, res);
}

static const char *cannot_clear(const struct dod_ops *ops)
{
	if (scn_needs_handles(ops))
		return scn_needs_handles(ops);
	return ops->clear && ops->count_valid ? NULL : "no clear operation";
}

static const char *cannot_reset(const struct dod_ops *ops)
{
	if (scn_needs_handles(ops))
		return scn_needs_handles(ops);
	return ops->reset && ops->count_valid
	               ? NULL
	               : "no reset distinct from clear (no handle bookkeeping to drop)";
}

static const struct scn_scenario clear = {
	.name = "clear",
	.help = "remove every item; old handles must be rejected afterwards",
	.axes = SCN_AXES(SCN_AXIS_HOLES),
	.cannot_run = cannot_clear,
	.run = run_clear,
};
SCN_REGISTER(clear)

static const struct scn_scenario reset = {
	.name = "reset",
	.help = "remove every item and drop handle bookkeeping (handle_map::reset)",
	.cannot_run = cannot_reset,
	.run = run_reset,
};
SCN_REGISTER(reset)
