/* defrag_common.h - what the defragment scenarios share (defrag_common.c): the expected
 * moves and the check of a sorted order; for defrag_steps and defrag_frames the setup,
 * the timed defragment calls and their verification, and the axes they list. */
#ifndef SCN_DEFRAG_COMMON_H
#define SCN_DEFRAG_COMMON_H

#include "fill_holes.h"

/* Handles, shuffle, defragment and dump_keys (the defragment scenarios), or why not. */
const char *scn_needs_defragment(const struct dod_ops *ops);

/* Items an insertion sort of keys[0..n) moves: those smaller than some item before them
 * (what defragment's swaps must be). */
long long scn_count_moves(const uint64_t *keys, size_t n);
/* The swaps a complete defragment of keys[0..n) (a storage order) reports, by the two
 * algorithms the containers use; both are the same for any max_swaps. */
struct scn_moves {
	long long insertion; /* an insertion sort (handle_map): scn_count_moves */
	long long cycles;    /* swaps along the cycles of the stable sorting permutation
	                      * (handle_map_sortdefrag): n minus its cycles, fixed points
	                      * counted as cycles */
};
/* Fills *out for keys[0..n) (untimed: O(n log n), allocates). Returns 0 or DOD_ENOMEM. */
int scn_expected_moves(const uint64_t *keys, size_t n, struct scn_moves *out);
/* Verification after a complete defragment of f's container: the keys in storage order
 * (written to keys, room for f->n_live) are the survivors' keys ascending, every
 * survivor's handle reaches its item, and swaps equals one of expect's counts (the
 * contract does not say which algorithm sorts; each count is exact for its algorithm).
 * Sets res->checksum to the sum of key * (position + 1), which only the sorted order
 * produces, and res->verified (res->why says what failed). */
void scn_check_defragmented(const struct dod_ops *ops, const struct scn_filled *f,
                            uint64_t *keys, long long swaps, struct scn_moves expect,
                            struct scn_result *res);
/* The end of a defragment scenario's run, after its region: with err (a DOD error of the
 * defragment calls) SCN_ERROR with res->why, else scn_check_defragmented and SCN_RAN;
 * frees f's container and keys either way. */
int scn_defragment_done(const struct dod_ops *ops, struct scn_filled *f, uint64_t *keys,
                        int err, struct scn_moves expect, struct scn_result *res);

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
