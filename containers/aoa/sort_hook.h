/* sort_hook.h - the test-only functions aoa_chunked8_sorted (aoa/chunk_sort.h) exports
 * beside its ops table, so tests/test_aoa.c can see its sort from outside: how much work
 * each call did, and where every chunk is. The harness never calls them.
 *
 * sort_probe(c, out): the sort's counters since create (steps: every step of the pass;
 *   swaps: the steps that swapped two chunks), whether the container holds itself sorted
 *   (a pass ended clean, nothing changed since) and its live chunks. O(1).
 * sort_chain(c, ent, chunks_out, room, count_out): *count_out = the chunks of entity
 *   ent's chain; the indices of the first min(count, room), head first, to chunks_out
 *   (may be NULL when room is 0). Returns 0 or the entity's error (DOD_ESTALE, DOD_EFREE,
 *   DOD_ERANGE). O(chain).
 * sort_run(c, steps): runs at most steps steps of the pass, as a call would after its
 *   batch; returns the steps run (fewer once sorted). Lets a test stop the pass at every
 *   cursor position and change the container there.
 * Named dod_ops_NAME_sort_probe_BYTES, ..._sort_chain_BYTES and ..._sort_run_BYTES
 * (dod_ops_aoa_chunked8_sorted_sort_probe_8).
 */
#ifndef DOD_AOA_SORT_HOOK_H
#define DOD_AOA_SORT_HOOK_H

#include <stddef.h>
#include <stdint.h>

#include "dod_common.h"

struct aoa_sort_probe {
	uint64_t steps, swaps; /* since create */
	int sorted;            /* 1: every chain contiguous, in slot order, from chunk 1 */
	size_t chunks;         /* live chunks: 1 .. chunks */
};

#ifdef DOD_VARIANT_NAME
#define AOA_SORT_PROBE DOD_CAT(DOD_CAT(DOD_VARIANT_OPS, sort_probe), ELEM_BYTES)
#define AOA_SORT_CHAIN DOD_CAT(DOD_CAT(DOD_VARIANT_OPS, sort_chain), ELEM_BYTES)
#define AOA_SORT_RUN DOD_CAT(DOD_CAT(DOD_VARIANT_OPS, sort_run), ELEM_BYTES)
void AOA_SORT_PROBE(const void *c, struct aoa_sort_probe *out);
int AOA_SORT_CHAIN(const void *c, uint64_t ent, uint32_t *chunks_out, size_t room,
                   size_t *count_out);
size_t AOA_SORT_RUN(void *c, size_t steps);
#endif

#endif
