/* defrag_frames - what defragmenting costs a game's frames (issue 16): from the shuffled
 * order of defrag_steps (n items, keys 0..n-1, ops->shuffle), frames of
 * { ops->defragment(max_swaps); ops->iterate_sum } until a call moves fewer than
 * --max-swaps items (max_swaps 0: one frame), each frame one latency sample: p50_ns,
 * p99_ns and max_ns are per frame, samples and ops the number of frames (ns_per_op: the
 * mean frame), swaps the items moved in all. The iteration stands for the frame's work
 * over the items, so the samples show what the defragment adds to a frame that reads
 * them (the first call of handle_map_sortdefrag also sorts: its plan). Verification:
 * every frame's iterate_sum is the key sum (checksum: the frames' sums added), no call
 * moves more than max_swaps, and then as defragment's: sorted keys, every handle reaches
 * its item, swaps equal to the moves counted from the shuffled order. No holes. */
#include "defrag_common.h"

static int run(const struct dod_ops *ops, const struct scn_params *p, struct hb_region *r,
               struct scn_result *res)
{
	return scn_defrag_calls(ops, p, r, res, true);
}

static const struct scn_scenario defrag_frames = {
	.name = "defrag_frames",
	.help = "frames of { defragment at most --max-swaps moves; iterate } from a shuffled "
	        "order until sorted, each frame timed (p50/p99/max per frame, samples = frames)",
	.axes = SCN_AXES(&scn_max_swaps_axis),
	.records_samples = true,
	.cannot_run = scn_needs_defragment,
	.run = run,
};
SCN_REGISTER(defrag_frames)
