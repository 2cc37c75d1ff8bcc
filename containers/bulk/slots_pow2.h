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
#define BH_ITEM_BYTES sizeof(union SFX(bulk_slot)) /* bytes a store element: one slot */
#define BH_SLOTS_PER_ELEM 1
#define BH_LAYOUT_N 1 /* stores: the items (generations in them) */

static inline size_t bh_item_elems(size_t slots) { return slots; }
static inline union SFX(bulk_slot) *bh_slot(const dod_store *st, size_t i)
{
	return (union SFX(bulk_slot) *)store_at(&st[0], i, BH_ITEM_BYTES);
}
static inline DOD_ELEM *bh_slot_item(const dod_store *st, size_t i) { return &bh_slot(st, i)->item; }
static inline uint32_t *bh_slot_gen(const dod_store *st, size_t i) { return &bh_slot(st, i)->gen; }
/* The layout's stores for holes_core.h's bh_design (struct bh_store_spec initializers). */
#define BH_LAYOUT_STORES {BH_ITEM_BYTES, bh_item_elems, "items"}

/* The keys of the live slots of [1, n_slots) summed, branch-free (key & -(gen & 1)),
 * run by run: every slot is read. */
static inline uint64_t bh_masked_sum(const dod_store *st, size_t n_slots)
{
	uint64_t sum = 0;
	for (size_t i = 1; i < n_slots;) {
		size_t run = store_run(&st[0], i);
		run = run < n_slots - i ? run : n_slots - i;
		const union SFX(bulk_slot) *s = bh_slot(st, i);
		for (size_t k = 0; k < run; k++)
			sum += s[k].item.key & -(uint64_t)(s[k].gen & BULK_LIVE);
		i += run;
	}
	return sum;
}

#endif
