/* slots_pow2.h - the slot layout aos_pow2 of holes.c (variant bulk_holes_vm_pow2): one of
 * the four slots_*.h a design file of the array with holes includes first, before
 * bulk/holes_core.h (the interface: holes_core.h's opening comment).
 *
 * The slot { generation; item } padded to a power of two and the store aligned to the
 * cache line, so a weak-pointer lookup touches one line.
 *
 *   line   [ g . item(16) pad(8) | g . item(16) pad(8) ]   16 B items: 32 B slots
 *   line   [ g . item(64) ....                         ]   64 B items: 128 B slots
 *            ^ generation first: with the key beside it, in the slot's first 16 bytes
 *
 * With the article's { item; generation } a 16 B item makes a 24 B slot and one slot in
 * four straddles two lines (items at line offsets 48 and 56); a 64 B item puts the
 * generation in the next line always. Padding to 16, 32, 128, 512 B (8, 16, 64, 256 B
 * items) costs 0, 8, 56, 248 B a slot over the article's 16, 24, 72, 264. Only `holes`
 * takes this layout (holes_runs keeps two links in the item, holes_bitmask its
 * generations apart).
 * Measured (issue 16's target: random lookup, n = 1M, 16 B items, no holes, against
 * plain_array's raw index; this 2-core AMD EPYC VM, 32 MB L3, 4 KiB pages, no THP):
 *   callgrind (build/dodbench-sim, one rep, deterministic), per lookup:
 *     design              instr  D1 read misses  LL misses (32 MB LL)  (8 MB LL)
 *     plain_array           8       1.124           0                   0.767
 *     bulk_holes_vm        18       1.374           0                   1.081
 *     bulk_holes_vm_pow2   17       1.125           0.349               0.994
 *     bulk_holes_vm_line   24       1.124           0                   0.879
 *   (0.124 of each D1 figure is the handle array itself): the one-line layouts remove
 *   the straddle's 0.25 misses a lookup exactly.
 *   time / plain_array's, median [95% bootstrap CI], interleaved, prefaulted:
 *     21 reps, load ~2:     bulk_holes_vm 1.654 [1.614, 1.755]   pow2 2.272 [2.217, 2.468]
 *                           line 2.531 [2.479, 2.693]
 *     11 reps, load ~4-5:   bulk_holes_vm 1.504 [1.397, 2.025]   pow2 1.743 [1.675, 2.367]
 *                           line 2.325 [2.184, 3.157]
 *   Neither one-line layout is faster here: at 32 B a slot pow2's 32 MB is the whole L3
 *   (LL misses above), and line's index arithmetic (a multiply for i / 3) makes the
 *   lookup 24 instructions, so fewer independent lookups fit in the out-of-order window
 *   and overlap their misses. The target (<= 1.15x) is missed by all three.
 *   bytes a slot (memory scenario, n = 2^20, committed / slots): 16 B items 24.06,
 *   32.06, 21.38 (article, pow2, line); 8 B items 16.06, 16.06, 12.81.
 */
#ifndef DOD_BULK_SLOTS_POW2_H
#define DOD_BULK_SLOTS_POW2_H

#define DOD_STORE_ALIGNED 64 /* every run of slots starts on a cache line (alloc/store.h) */

#include <stddef.h>
#include <stdint.h>

#include "alloc/store.h"
#include "bulk/weak.h"
#include "dod_common.h"

/* { generation; item } padded to the next power of two (16 .. 512 B). */
#define BULK_SLOT_BYTES                                                                  \
	(ELEM_BYTES + 8 <= 16    ? 16                                                          \
	 : ELEM_BYTES + 8 <= 32  ? 32                                                          \
	 : ELEM_BYTES + 8 <= 64  ? 64                                                          \
	 : ELEM_BYTES + 8 <= 128 ? 128                                                         \
	 : ELEM_BYTES + 8 <= 256 ? 256                                                         \
	                         : 512)
union SFX(bulk_slot) {
	struct {
		uint32_t gen;     /* first: in the key's line whatever the item's size */
		uint32_t unused;
		DOD_ELEM item;    /* a free slot's first 4 bytes: next free */
	};
	unsigned char bytes[BULK_SLOT_BYTES]; /* the padding */
};
_Static_assert(sizeof(union SFX(bulk_slot)) == BULK_SLOT_BYTES, "a power-of-two slot");
#define BH_SLOT_T union SFX(bulk_slot)
#include "bulk/slots_one_store.h"

#endif
