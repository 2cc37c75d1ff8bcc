/* slots_inline.h - the slot layout of Our Machinery's "Bulk data": each slot { item;
 * generation; }, so a weak-pointer lookup reads one place. The layout of holes.c (layout
 * word aos) and holes_runs.c; one of the four slots_*.h a design file of the array with
 * holes includes first, before bulk/holes_core.h (the interface: holes_core.h's opening
 * comment).
 *
 *   items  [ hdr | item g | item g | item g | ... ]   one store, a slot per element
 *
 * The link of a free slot lives in the first 4 bytes of its item (holes_runs: 8 bytes,
 * next and prev); the generation lives outside that union because a hole needs it too.
 */
#ifndef DOD_BULK_SLOTS_INLINE_H
#define DOD_BULK_SLOTS_INLINE_H

#include <stddef.h>
#include <stdint.h>

#include "alloc/store.h"
#include "bulk/weak.h"
#include "dod_common.h"

struct SFX(bulk_slot) {
	DOD_ELEM item;  /* a free slot's first 4 bytes: next free (holes_runs: then prev) */
	uint32_t gen;   /* outside the union: a hole has one too */
};
#define BH_ITEM_BYTES sizeof(struct SFX(bulk_slot)) /* bytes a store element: one slot */
#define BH_SLOTS_PER_ELEM 1
#define BH_LAYOUT_N 1 /* stores: the items (generations in them) */

static inline size_t bh_item_elems(size_t slots) { return slots; }
static inline struct SFX(bulk_slot) *bh_slot(const dod_store *st, size_t i)
{
	return (struct SFX(bulk_slot) *)store_at(&st[0], i, BH_ITEM_BYTES);
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
		const struct SFX(bulk_slot) *s = bh_slot(st, i);
		for (size_t k = 0; k < run; k++)
			sum += s[k].item.key & -(uint64_t)(s[k].gen & BULK_LIVE);
		i += run;
	}
	return sum;
}

#endif
