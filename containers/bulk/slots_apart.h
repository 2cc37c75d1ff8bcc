/* slots_apart.h - the slot layout of holes_bitmask.c: items in one store, their
 * generations in a parallel one, as boost's proposed `hub` keeps its metadata apart, so
 * a loop over the items streams items only. One of the four slots_*.h a design file of
 * the array with holes includes first, before bulk/holes_core.h (the interface:
 * holes_core.h's opening comment).
 *
 *   items  [ hdr | item | item | ... ]   st[0]: a free slot's first 4 bytes: next free
 *   gens   [  0  |  3   |  4   | ... ]   st[BH_GENS]: uint32_t a slot
 */
#ifndef DOD_BULK_SLOTS_APART_H
#define DOD_BULK_SLOTS_APART_H

#include <stddef.h>
#include <stdint.h>

#include "alloc/store.h"
#include "dod_common.h"

#define BH_ITEM_BYTES sizeof(DOD_ELEM) /* bytes a store element: one item */
#define BH_SLOTS_PER_ELEM 1
enum { BH_GENS = 1, BH_LAYOUT_N = 2 }; /* stores: the items, then the generations */

static inline size_t bh_item_elems(size_t slots) { return slots; }
static inline DOD_ELEM *bh_slot_item(const dod_store *st, size_t i)
{
	return (DOD_ELEM *)store_at(&st[0], i, BH_ITEM_BYTES);
}
static inline uint32_t *bh_slot_gen(const dod_store *st, size_t i)
{
	return (uint32_t *)store_at(&st[BH_GENS], i, 4);
}
/* The layout's stores for holes_core.h's bh_design (struct bh_store_spec initializers). */
#define BH_LAYOUT_STORES {BH_ITEM_BYTES, bh_item_elems, "items"}, {4, bh_item_elems, "gens"}

#endif
