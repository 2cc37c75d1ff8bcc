/* swappop.c - bulk data kept densely packed (Our Machinery, "Data Structures for game
 * programmers: Bulk Data", removal strategies 1 and 2) with an id -> index lookup table,
 * for the removal strategies `swappop` and `shift` and every allocation strategy of
 * containers/alloc/ (the variant table picks both; this file adapts with #if).
 *
 *   items  [ A | B | C | D ]          dense, n live items, no holes
 *   ids    [ 3 | 1 | 4 | 2 ]          dense index -> slot of the lookup table
 *   slots  [ hdr | {g,1} | {g,3} | {g,0} | {g,2} | {g,next} ... ]
 *            slot 0: free-list header; {generation, dense index or next free slot}
 *
 * The lookup table is the article's "array with holes" (better than a hash table): its
 * free list is bulk/free_list.h's, with the header in slot 0, and a weak pointer is
 * {slot, generation} (bulk/weak.h). Erase:
 *   swappop  items[d] = items[--n] (and ids, and the moved item's slot): O(1), order lost
 *   shift    items[d..n-2] = items[d+1..n-1], every moved item's slot updated: O(n - d),
 *            keeps insertion order (what vector::erase does; the article calls it the
 *            slow baseline)
 * Items move on every erase (and on growth with realloc), so pointers are never stable;
 * weak pointers are. Iteration is a plain loop over the dense items.
 *
 * Invariants: slots[ids[d]].index == d for d < n; live slots have odd generations; the
 * free list holds the n_slots - 1 - n free slots below n_slots; slots in [n_slots, high)
 * keep their generations across clear.
 * Costs: insert O(1) (amortized with growth), erase O(1) / O(n - d), lookup O(1) (two
 * dependent loads), iterate O(n), clear O(n).
 */
#include <stdlib.h>

#include "alloc/store.h"
#include "bulk/free_list.h"
#include "bulk/weak.h"
#include "contract.h"
#include "dod_common.h"

#if defined(DOD_REMOVAL_shift)
#define BULK_SHIFT 1
#elif defined(DOD_REMOVAL_swappop)
#define BULK_SHIFT 0
#else
#error "swappop.c serves the removal strategies swappop and shift"
#endif
DOD_STORE_CHECK_STABLE_POINTERS(1); /* erase moves items: the last one, or the tail */

#define EB sizeof(DOD_ELEM)

struct bulk_slot {
	uint32_t gen;   /* odd: live; bit 31: erase_n's mark */
	uint32_t index; /* live: dense index; free: next free slot (0 ends the list) */
};

struct SFX(bulk_dense) {
	dod_store items; /* DOD_ELEM per dense index */
	dod_store ids;   /* uint32_t per dense index */
	dod_store slots; /* struct bulk_slot per slot */
	size_t n, n_slots, high;
};
#define BD struct SFX(bulk_dense)

static inline DOD_ELEM *item(const BD *b, size_t d) { return (DOD_ELEM *)store_at(&b->items, d, EB); }
static inline uint32_t *id_at(const BD *b, size_t d) { return (uint32_t *)store_at(&b->ids, d, 4); }
static inline struct bulk_slot *slot(const BD *b, size_t s)
{
	return (struct bulk_slot *)store_at(&b->slots, s, sizeof(struct bulk_slot));
}

/* Accessors for bulk/free_list.h and bulk/weak.h: a free slot's index is its link. */
static uint32_t *gen_of(void *c, uint32_t s) { return &slot(c, s)->gen; }
static uint32_t free_link(const void *c, uint32_t s) { return slot(c, s)->index; }
static void set_free_link(void *c, uint32_t s, uint32_t next) { slot(c, s)->index = next; }

static void bd_destroy(void *c)
{
	BD *b = c;
	if (!b)
		return;
	store_free(&b->items);
	store_free(&b->ids);
	store_free(&b->slots);
	free(b);
}

static int bd_create(void **out, size_t capacity_elems)
{
	if (capacity_elems > BULK_MAX_SLOTS)
		return DOD_EINVAL;
	BD *b = calloc(1, sizeof *b);
	if (!b)
		return DOD_ENOMEM;
	int err = store_init(&b->items, EB, capacity_elems ? capacity_elems : 1);
	if (!err && (err = store_init(&b->ids, 4, capacity_elems ? capacity_elems : 1)) != 0)
		store_free(&b->items);
	if (!err && (err = store_init(&b->slots, sizeof(struct bulk_slot), capacity_elems + 1))) {
		store_free(&b->items);
		store_free(&b->ids);
	}
	if (err) {
		free(b);
		return err;
	}
	b->n_slots = b->high = 1;
	*slot(b, 0) = (struct bulk_slot){0, 0};
	*out = b;
	return DOD_OK;
}

static int bd_insert_n(void *c, size_t n, uint64_t first_key, uint64_t *handles_out)
{
	BD *b = c;
	size_t fresh;
	int err = bulk_fresh_slots(b->n_slots, b->n, n, &fresh);
	if (!err)
		err = store_reserve(&b->items, b->n + n);
	if (!err)
		err = store_reserve(&b->ids, b->n + n);
	if (!err)
		err = store_reserve(&b->slots, b->n_slots + fresh);
	if (err)
		return err;
	for (size_t k = 0; k < n; k++) {
		uint32_t s = bulk_slot_take(b, &b->n_slots, &b->high, free_link, set_free_link, gen_of);
		struct bulk_slot *e = slot(b, s);
		e->gen = bulk_gen_next(e->gen);
		e->index = (uint32_t)b->n;
		*id_at(b, b->n) = s;
		SFX(dod_elem_init)(item(b, b->n), first_key + k);
		b->n++;
		if (handles_out)
			handles_out[k] = bulk_weak(s, e->gen);
	}
	return DOD_OK;
}


/* Removes the live item of slot s from the dense array and frees the slot. */
static void erase_valid(BD *b, uint32_t s)
{
	struct bulk_slot *e = slot(b, s);
	size_t d = e->index, last = b->n - 1;
#if BULK_SHIFT
	for (size_t k = d; k < last; k++) {
		*item(b, k) = *item(b, k + 1);
		uint32_t moved = *id_at(b, k + 1);
		*id_at(b, k) = moved;
		slot(b, moved)->index = (uint32_t)k;
	}
#else
	if (d != last) {
		*item(b, d) = *item(b, last);
		uint32_t moved = *id_at(b, last);
		*id_at(b, d) = moved;
		slot(b, moved)->index = (uint32_t)d;
	}
#endif
	b->n = last;
	e->gen = bulk_gen_next(e->gen);
	bulk_free_push(b, s, free_link, set_free_link);
}

static inline int check(const BD *b, uint64_t h)
{
	return bulk_weak_check_at(h, b->n_slots, gen_of, b);
}

/* All or nothing without an extra allocation: bulk_weak_check_batch validates every weak
 * pointer first (a repeat fails as DOD_EFREE), then all are erased. */
static int bd_erase_n(void *c, const uint64_t *hs, size_t n)
{
	BD *b = c;
	int err = bulk_weak_check_batch(hs, n, b->n_slots, gen_of, b);
	if (err)
		return err;
	for (size_t k = 0; k < n; k++)
		erase_valid(b, bulk_weak_id(hs[k]));
	return DOD_OK;
}

static uint64_t bd_iterate_sum(const void *c)
{
	const BD *b = c;
	uint64_t sum = 0;
	for (size_t d = 0; d < b->n;) {
		size_t run = store_run(&b->items, d);
		run = run < b->n - d ? run : b->n - d;
		const DOD_ELEM *it = item(b, d);
		for (size_t k = 0; k < run; k++)
			sum += it[k].key;
		d += run;
	}
	return sum;
}

static int bd_lookup_sum(const void *c, const uint64_t *hs, size_t n, uint64_t *sum_out)
{
	const BD *b = c;
	size_t n_slots = b->n_slots;
	uint64_t sum = 0;
	for (size_t k = 0; k < n; k++) {
		uint32_t s = bulk_weak_id(hs[k]), g = bulk_weak_gen(hs[k]);
		const struct bulk_slot *e;
		if (s - 1u >= n_slots - 1 || (e = slot(b, s))->gen != g || !(g & BULK_LIVE))
			return check(b, hs[k]);
		sum += item(b, e->index)->key;
	}
	*sum_out = sum;
	return DOD_OK;
}

/* dod_ops.item_addr: the item the slot points at, where the store holds it now. */
static const void *bd_item_addr(const void *c, uint64_t h)
{
	const BD *b = c;
	return check(b, h) == DOD_OK ? (const void *)item(b, slot(b, bulk_weak_id(h))->index)
	                             : NULL;
}

static size_t bd_count_valid(const void *c, const uint64_t *hs, size_t n)
{
	return bulk_weak_count_valid(hs, n, ((const BD *)c)->n_slots, gen_of, c);
}

/* Every item goes; their slots' generations are bumped, so old weak pointers are stale. */
static int bd_clear(void *c)
{
	BD *b = c;
	for (size_t d = 0; d < b->n; d++) {
		struct bulk_slot *e = slot(b, *id_at(b, d));
		e->gen = bulk_gen_next(e->gen);
	}
	b->n = 0;
	b->n_slots = 1;
	slot(b, 0)->index = 0;
	return DOD_OK;
}

static void bd_dump_keys(const void *c, uint64_t *keys_out)
{
	const BD *b = c;
	for (size_t d = 0; d < b->n; d++)
		keys_out[d] = item(b, d)->key;
}

static size_t bd_size(const void *c) { return ((const BD *)c)->n; }

static size_t bd_footprint(const void *c)
{
	const BD *b = c;
	return sizeof *b + store_committed_bytes(&b->items) + store_committed_bytes(&b->ids) +
	       store_committed_bytes(&b->slots);
}

static size_t bd_reserved(const void *c)
{
	const BD *b = c;
	return sizeof *b + store_reserved_bytes(&b->items) + store_reserved_bytes(&b->ids) +
	       store_reserved_bytes(&b->slots);
}

/* The invariants of the opening comment, with the first violation's reason in why (see
 * dod_ops.check): counts and capacities; ids and slots agree (slots[ids[d]] is live and
 * points back at d, so every weak pointer of a live item resolves to it); generations
 * (slot 0 and the slots past n_slots never live, no erase_n mark left, as many live slots
 * as items); the free list holds exactly the free slots below n_slots (in bounds,
 * acyclic, each once, ending at 0). O(high). */
static int bd_check(const void *c, char *why, size_t len)
{
	const BD *b = c;
	if (b->n_slots < 1 || b->n_slots > b->high || b->high > store_capacity(&b->slots) ||
	    b->n > b->n_slots - 1 || b->n > store_capacity(&b->items) ||
	    b->n > store_capacity(&b->ids))
		return dod_check_fail(why, len, "counts: n %zu, n_slots %zu, high %zu, capacities %zu "
		                      "items %zu ids %zu slots", b->n, b->n_slots, b->high,
		                      store_capacity(&b->items), store_capacity(&b->ids),
		                      store_capacity(&b->slots));
	if (bulk_check_gens(b, gen_of, b->n_slots, b->high, b->n, why, len) != DOD_OK)
		return DOD_EINVAL;
	for (size_t d = 0; d < b->n; d++) {
		uint32_t s = *id_at(b, d);
		if (s == 0 || s >= b->n_slots)
			return dod_check_fail(why, len, "ids[%zu] = %u, outside [1, %zu)", d, s, b->n_slots);
		const struct bulk_slot *e = slot(b, s);
		if (!(e->gen & BULK_LIVE) || e->index != d)
			return dod_check_fail(why, len, "ids[%zu] = %u, but slot %u is %s index %u", d, s, s,
			                      e->gen & BULK_LIVE ? "live at" : "free, next", e->index);
	}
	return bulk_check_free_list(b, free_link, gen_of, b->n_slots, b->n_slots - 1 - b->n, why,
	                            len);
}

const struct dod_ops DOD_OPS_SYMBOL = {
	DOD_DESCRIPTOR,
	.source = "Niklas Gray, Data Structures for game programmers: Bulk Data (Our Machinery), "
#if BULK_SHIFT
	          "shift down (vector::erase)",
#else
	          "swap-and-pop + id lookup table",
#endif
	.max_elems = BULK_MAX_SLOTS - 1,
	.create = bd_create,
	.destroy = bd_destroy,
	.insert_n = bd_insert_n,
	.iterate_sum = bd_iterate_sum,
	.lookup_sum = bd_lookup_sum,
	.erase_n = bd_erase_n,
	.count_valid = bd_count_valid,
	.clear = bd_clear,
	.dump_keys = bd_dump_keys,
	.size = bd_size,
	.footprint_bytes = bd_footprint,
	.reserved_bytes = bd_reserved,
	.check = bd_check,
	.item_addr = bd_item_addr,
};
