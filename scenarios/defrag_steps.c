/* defrag_steps - defragment as a game calls it: one call a frame, each moving at most
 * --max-swaps items, until the order is sorted; every call timed. It measures three of
 * the handle_map article's claims (Jeff Kiah, 2016, defragment): maxSwaps bounds the
 * work of a call so it can run every frame; the insertion sort is adaptive (a nearly
 * sorted order costs O(n + moves)); the fragmented flag makes a call free when nothing
 * changed. Setup (untimed): n items (keys 0..n-1) in the order --defrag-input names:
 * shuffled (ops->shuffle, as the defragment scenario), near_sorted (inserted one call
 * each in key order with SCN_NEAR_SORTED_PERCENT % of n disjoint adjacent pairs
 * swapped), sorted (inserted in key order, so the container still counts itself
 * fragmented) or defragmented (sorted, then one complete defragment). Timed: calls of
 * ops->defragment(max_swaps) until one moves fewer than max_swaps items (max_swaps 0:
 * one call), one latency sample per call: p50_ns ... max_ns are per call, samples and ops
 * are the number of calls (ns_per_op: the mean call), swaps the items moved in all. Verification as defragment's: sorted keys, every handle reaches its
 * item, swaps equal to the moves counted from the starting order, no call over
 * max_swaps. Checksum: sum of key * (position + 1). No holes: the inputs are orders, not
 * erasures. */
#include "defrag_common.h"

/* The setup, the calls and the verification are shared with defrag_frames. */
static int run(const struct dod_ops *ops, const struct scn_params *p, struct hb_region *r,
               struct scn_result *res)
{
	return scn_defrag_calls(ops, p, r, res, false);
}

static const struct scn_scenario defrag_steps = {
	.name = "defrag_steps",
	.help = "defragment from --defrag-input order in calls of at most --max-swaps moves, "
	        "each call timed (p50/p99/max per call, samples = calls)",
	.axes = SCN_AXES(&scn_defrag_input_axis, &scn_max_swaps_axis),
	.records_samples = true,
	.cannot_run = scn_needs_defragment,
	.run = run,
};
SCN_REGISTER(defrag_steps)
