/* slots_line.h - the slot layout aos_line of holes.c (variant bulk_holes_vm_line): one of
 * the four slots_*.h a design file of the array with holes includes first, before
 * bulk/holes_core.h (the interface: holes_core.h's opening comment).
 *
 * As many slots as fit whole in one 64 B line, their items first and their generations
 * after them, the store aligned to the line; slot i is in line i / K at place i % K (K
 * constant: a multiply, no division):
 *
 *   line   [ item0 | item1 | item2 | g0 g1 g2 | pad 4 ]    16 B items: K = 3, 21.3 B a slot
 *   line   [ item0 ... item4 (8 B each) | g0 .. g4 | 4 ]    8 B items:  K = 5, 12.8 B a slot
 *
 * A lookup reads one line, like aos_pow2 (bulk/slots_pow2.h, with the measurements of
 * both), at fewer bytes a slot than the article's { item; generation } (24 B at 16 B
 * items, 16 B at 8 B): only items of at most 16 B fit more than one to a line, so the
 * variant has the sizes 8 and 16.
 */
#ifndef DOD_BULK_SLOTS_LINE_H
#define DOD_BULK_SLOTS_LINE_H

#define DOD_STORE_ALIGNED 64 /* every run of lines starts on a cache line (alloc/store.h) */

#include <stddef.h>
#include <stdint.h>

#include "alloc/store.h"
#include "bulk/weak.h"
#include "dod_common.h"

#define BULK_PER_LINE (64 / (ELEM_BYTES + 4))
_Static_assert(BULK_PER_LINE >= 2, "layout aos_line needs items of at most 16 bytes");
union SFX(bulk_line) {
	struct {
		DOD_ELEM item[BULK_PER_LINE]; /* a free slot's first 4 bytes: next free */
		uint32_t gen[BULK_PER_LINE];
	};
	unsigned char bytes[64]; /* the padding */
};
_Static_assert(sizeof(union SFX(bulk_line)) == 64, "one cache line");
#define BH_ITEM_BYTES sizeof(union SFX(bulk_line)) /* a store element: a line of slots */
#define BH_SLOTS_PER_ELEM BULK_PER_LINE
#define BH_LAYOUT_N 1 /* stores: the lines (generations in them) */

/* Store elements (lines) that hold slots [0, slots). */
static inline size_t bh_item_elems(size_t slots) { return (slots + BULK_PER_LINE - 1) / BULK_PER_LINE; }
static inline union SFX(bulk_line) *bh_line(const dod_store *st, size_t i)
{
	return (union SFX(bulk_line) *)store_at(&st[0], i / BULK_PER_LINE, BH_ITEM_BYTES);
}
static inline DOD_ELEM *bh_slot_item(const dod_store *st, size_t i)
{
	return &bh_line(st, i)->item[i % BULK_PER_LINE];
}
static inline uint32_t *bh_slot_gen(const dod_store *st, size_t i)
{
	return &bh_line(st, i)->gen[i % BULK_PER_LINE];
}
/* The layout's stores for holes_core.h's bh_design (struct bh_store_spec initializers). */
#define BH_LAYOUT_STORES {BH_ITEM_BYTES, bh_item_elems, "lines"}

/* The keys of the live slots of [1, n_slots) summed, each masked by its generation (slot
 * 0's is 0): whole lines run by run; the slots of the last line at or past n_slots may
 * never have been handed out, so that line is read slot by slot. */
static inline uint64_t bh_masked_sum(const dod_store *st, size_t n_slots)
{
	uint64_t sum = 0;
	size_t full = n_slots / BULK_PER_LINE;
	for (size_t l = 0; l < full;) {
		size_t run = store_run(&st[0], l);
		run = run < full - l ? run : full - l;
		const union SFX(bulk_line) *ln = (const union SFX(bulk_line) *)store_at(&st[0], l, BH_ITEM_BYTES);
		for (size_t k = 0; k < run; k++)
			for (unsigned j = 0; j < BULK_PER_LINE; j++)
				sum += ln[k].item[j].key & -(uint64_t)(ln[k].gen[j] & BULK_LIVE);
		l += run;
	}
	for (size_t i = full * BULK_PER_LINE; i < n_slots; i++)
		sum += bh_slot_item(st, i)->key & -(uint64_t)(*bh_slot_gen(st, i) & BULK_LIVE);
	return sum;
}

#endif
