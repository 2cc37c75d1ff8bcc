/* defrag_calls.h - what defrag_steps and defrag_frames share (defrag_calls.c): the
 * setup, the timed defragment calls and their verification, and the axes they list. */
#ifndef SCN_DEFRAG_CALLS_H
#define SCN_DEFRAG_CALLS_H

#include "scenario.h"

/* --defrag-input (CSV column axis_defrag_input): the storage order defrag_steps starts
 * from; --max-swaps (axis_max_swaps): items moved per call, 0 = no limit. */
extern const struct hb_axis scn_defrag_input_axis, scn_max_swaps_axis;

/* defrag_steps and defrag_frames (one run, iterate chooses): the starting order of
 * p's defrag_input (defrag_steps' opening comment; shuffled where not listed), then calls
 * of ops->defragment(max_swaps) until one moves fewer than max_swaps (max_swaps 0: one
 * call), each call one latency sample; with iterate each call is a frame that also runs
 * ops->iterate_sum, and every frame's sum must be the key sum (res->checksum: the sum of
 * the frames' sums). res->ops = calls, res->swaps = items moved in all. Verification:
 * scn_check_defragmented, and no call moved more than max_swaps. Returns SCN_RAN or
 * SCN_ERROR. */
int scn_defrag_calls(const struct dod_ops *ops, const struct scn_params *p,
                     struct hb_region *r, struct scn_result *res, bool iterate);

#endif
