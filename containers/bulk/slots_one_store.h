/* slots_one_store.h - what the two one-store slot layouts share (slots_inline.h,
 * slots_pow2.h): one store, a slot per element, the generation inside the slot. The
 * including layout defines its slot type first as BH_SLOT_T (a struct or a union with
 * members `item` and `gen`). */
#ifndef DOD_BULK_SLOTS_ONE_STORE_H
#define DOD_BULK_SLOTS_ONE_STORE_H

#define BH_ITEM_BYTES sizeof(BH_SLOT_T) /* bytes a store element: one slot */
#define BH_SLOTS_PER_ELEM 1
#define BH_LAYOUT_N 1 /* stores: the items (generations in them) */

static inline size_t bh_item_elems(size_t slots) { return slots; }
static inline BH_SLOT_T *bh_slot(const dod_store *st, size_t i)
{
	return (BH_SLOT_T *)store_at(&st[0], i, BH_ITEM_BYTES);
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
		const BH_SLOT_T *s = bh_slot(st, i);
		for (size_t k = 0; k < run; k++)
			sum += s[k].item.key & -(uint64_t)(s[k].gen & BULK_LIVE);
		i += run;
	}
	return sum;
}

#endif
