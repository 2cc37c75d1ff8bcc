/* stale_hook.h - the one test-only function a generational handle design exports beside
 * its ops table, so tests/test_stale_wrap.c can reach a slot's 2^32nd reuse without
 * looping four billion times (reports/data/stale_detection.csv: which designs still
 * reject a handle whose slot was reused 2^16 and 2^32 times). The harness never calls it.
 *
 * skip_reuses(c, h, k): h is the handle of an item just erased, whose slot is free. The
 * slot's generation becomes what k more cycles of (insert into that slot, erase it) would
 * leave, computed in the design's own generation arithmetic (field width, increments per
 * cycle), without running them; nothing else changes (the free list keeps its order).
 * Returns 0, or DOD_EINVAL when h's slot is out of range or not free. O(1). The test
 * proves each hook against real cycles (the same handle bits after 65536 real cycles as
 * after the hook's 65535 and one real one) before it trusts it with 2^32 - 1.
 */
#ifndef DOD_STALE_HOOK_H
#define DOD_STALE_HOOK_H

#include <stdint.h>

#include "dod_common.h"

typedef int (*dod_skip_reuses_fn)(void *c, uint64_t h, uint64_t k);

#ifdef DOD_VARIANT_NAME
/* The hook's name in the variant and size class being compiled:
 * dod_ops_NAME_skip_reuses_BYTES (dod_ops_packed_array_skip_reuses_8). */
#define DOD_SKIP_REUSES DOD_CAT(DOD_CAT(DOD_VARIANT_OPS, skip_reuses), ELEM_BYTES)
int DOD_SKIP_REUSES(void *c, uint64_t h, uint64_t k);
#endif

#endif
