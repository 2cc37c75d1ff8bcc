/* iterate_inline - calibration (docs/ARCHITECTURE.md, "The container contract"): the
 * hand-written loop that `iterate` on plain_array must match. The setup is iterate's own
 * without holes (scn_fill_dense: the same allocations in the same order, so the same heap
 * and cache state: after the warm-ups both read one buffer at one address); the timed
 * region then sums plain_array's items through a plain uint64_t loop written right here,
 * over the very memory iterate_sum reads (ops->key_array), compiled with the same flags
 * (the same vector loop), with no contract call. A gap between the two is then how the
 * machine runs the two code paths, and no difference between designs smaller than it is
 * resolved by that run (reports/sections/calibration.py). Runs where key_array exists:
 * plain_array at 8-byte elements. Timed as iterate is: K passes of the loop after the
 * same untimed ones (scn_run_passes). ops = K x n. Checksum: the sums; each pass must give
 * n(n-1)/2. */
#include "fill_holes.h"

struct keys {
	const uint64_t *k;
	size_t n;
};

/* One pass: the hand-written loop. */
static uint64_t pass(void *p)
{
	const struct keys *x = p;
	const uint64_t *k = x->k;
	size_t n = x->n;
	DOD_KEEP(k); /* the compiler must not know the keys: no closed form */
	uint64_t sum = 0;
	for (size_t i = 0; i < n; i++)
		sum += k[i];
	return sum;
}

static int run(const struct dod_ops *ops, const struct scn_params *p, struct hb_region *r,
               struct scn_result *res)
{
	struct scn_filled f;
	if (scn_fill_dense(ops, p, &f, res))
		return SCN_ERROR;
	struct keys x = {ops->key_array(f.c), f.n_live};
	struct scn_passes ps = {.pass = pass, .ctx = &x};
	scn_run_passes(p, r, &ps);
	res->ops = ps.k * f.n_live;
	scn_check_passes(res, &ps, f.live_key_sum);
	scn_filled_free(ops, &f);
	return SCN_RAN;
}

static const struct scn_scenario iterate_inline = {
	.name = "iterate_inline",
	.help = "calibration: hand-written sum loop over plain_array's items that iterate must match",
	.axes = SCN_AXES(&hb_axis_cache),
	.cannot_run = scn_needs_key_array,
	.run = run,
};
SCN_REGISTER(iterate_inline)
