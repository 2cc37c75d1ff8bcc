/* holes_core.h - the array with holes (Our Machinery, "Data Structures for game
 * programmers: Bulk Data", "leave a hole" and "weak pointers") written once for its three
 * removal strategies, one design file each: holes.c (`holes`: a free list through the
 * holes), holes_bitmask.c (`holes_bitmask`: the same plus an occupancy bitmask) and
 * holes_runs.c (`holes_runs`: a list of runs of holes), over every allocation strategy of
 * containers/alloc/ (alloc/store.h: the variant table's alloc column picks it).
 *
 *   items  [ hdr | item | free | item | item | free | ... ]   slot 0 is the header
 *             |            |                    ^
 *             '-- next ----'--- next -----------'--> ... --> 0 (empty: append a slot)
 *   gen    [  0  |   3   |  4   |  1   |  7   |  2   | ... ]  odd = live, even = free
 *
 * The slot index is the item's stable id: items never move, and with a non-moving
 * allocation strategy (static, fixblocks, geoblocks, vm) neither do pointers. A weak
 * pointer is {slot, generation} (bulk/weak.h); slots [1, n_slots) are live or holes,
 * slots [n_slots, high) keep the generation they had (bulk/free_list.h), so handles from
 * before a clear stay stale when the slot is handed out again.
 *
 * A design file is three parts, in this order:
 *   1. one slot layout (where an item and its generation live), a bulk/slots_*.h:
 *      slots_inline.h { item; generation } (the article's), slots_pow2.h and
 *      slots_line.h (one cache line a lookup), slots_apart.h (generations in a parallel
 *      store). It defines BH_ITEM_BYTES and BH_SLOTS_PER_ELEM (bytes and slots a store
 *      element of the items), BH_LAYOUT_N (its stores: the items first), bh_item_elems,
 *      bh_slot_item and bh_slot_gen over the container's stores, and BH_LAYOUT_STORES
 *      (their struct bh_store_spec initializers);
 *   2. this header: the container (the counts and the stores), the operations every
 *      removal strategy shares, and the singly linked free list of holes and
 *      holes_bitmask (bh_list_*: its header in slot 0, a hole's link in the first 4 bytes
 *      of its item, bulk/free_list.h's list);
 *   3. the removal strategy: its stores after the layout's, its hooks (struct bh_design:
 *      what create, insert, erase, clear and check do for it) and its iterate_sum, then
 *      BH_DESIGN_FUNCTIONS(design) and its ops table with BH_CORE_OPS.
 * The hooks are static and the design a static const object, so the calls inline into
 * the shared loops as bulk/free_list.h's accessors do; nothing here names a design file.
 * Every store is created, grown, freed and counted by the loops over bh_design.stores, so
 * create's error path frees exactly what it made for every combination of layout,
 * removal strategy and allocation strategy (tests/test_holes_create.c fails each of its
 * allocations in turn).
 *
 * Invariants: 1 <= n_slots <= high <= capacity; live = slots with odd generation; every
 * store holds the elements that slots [0, high) need; plus the design's (its check hook).
 * Costs: insert O(1) (amortized when the strategy grows), erase O(1), lookup O(1),
 * iterate: the design's, clear O(high).
 */
#ifndef DOD_BULK_HOLES_CORE_H
#define DOD_BULK_HOLES_CORE_H

#include <stdlib.h>
#include <string.h>

#include "alloc/store.h"
#include "bulk/free_list.h"
#include "bulk/weak.h"
#include "contract.h"
#include "dod_common.h"
#include "stale_hook.h"

DOD_STORE_CHECK_STABLE_POINTERS(0); /* an erased item leaves a hole: none moves */

#define BH_SOURCE "Niklas Gray, Data Structures for game programmers: Bulk Data (Our Machinery)"

struct SFX(bulk_holes) {
	size_t n_slots; /* slots in use or on the free list, slot 0 included */
	size_t high;    /* slots ever handed out (their generations are meaningful) */
	size_t live;
	dod_store st[]; /* bh_design.stores: st[0] the items (and generations if inline) */
};
#define BH struct SFX(bulk_holes)

/* One store of a design: its element's bytes, the elements that hold slots [0, slots)
 * (what create and reserve ask for and check demands), its name in check's messages. */
struct bh_store_spec {
	size_t elem_bytes;
	size_t (*elems)(size_t slots);
	const char *what;
};

/* What a removal strategy adds to the shared operations (hooks NULL where it adds
 * nothing). */
struct bh_design {
	const struct bh_store_spec *stores; /* the layout's (BH_LAYOUT_STORES), then its own */
	size_t n_stores;
	void (*reset)(BH *b);                 /* empty free list: after create and clear */
	uint32_t (*take_hole)(BH *b);         /* a hole for a new item, or 0: append a slot */
	void (*appended)(BH *b, uint32_t i, size_t had); /* slot i appended; had: high before */
	void (*filled)(BH *b, uint32_t i);    /* slot i holds a new item (generation odd) */
	void (*freed)(BH *b, uint32_t i);     /* slot i's item erased (generation even) */
	int (*check)(const BH *b, char *why, size_t len); /* its invariants (dod_ops.check) */
};

static inline DOD_ELEM *bh_item(const BH *b, size_t i) { return bh_slot_item(b->st, i); }
static inline uint32_t *bh_gen(const BH *b, size_t i) { return bh_slot_gen(b->st, i); }
/* A hole's link (first 4 bytes of its item): the next hole. */
static inline uint32_t bh_next_of(const BH *b, size_t i)
{
	uint32_t next;
	memcpy(&next, bh_item(b, i), sizeof next);
	return next;
}
static inline void bh_set_next(BH *b, size_t i, uint32_t next) { memcpy(bh_item(b, i), &next, sizeof next); }
/* Accessors for bulk/free_list.h and bulk/weak.h. */
static uint32_t *bh_gen_of(void *c, uint32_t id) { return bh_gen(c, id); }
static inline uint32_t bh_free_link(const void *c, uint32_t x) { return bh_next_of(c, x); }
static inline void bh_set_free_link(void *c, uint32_t x, uint32_t next) { bh_set_next(c, x, next); }

/* ---- the singly linked free list of holes and holes_bitmask (bulk/free_list.h) ---- */
static inline void bh_list_reset(BH *b) { bh_set_next(b, 0, 0); }
static inline uint32_t bh_list_take(BH *b) { return bulk_free_pop(b, bh_free_link, bh_set_free_link); }
static inline void bh_list_put(BH *b, uint32_t i) { bulk_free_push(b, i, bh_free_link, bh_set_free_link); }
/* Exactly the free slots below n_slots, in bounds, acyclic, each once, ending at 0. */
static inline int bh_list_check(const BH *b, char *why, size_t len)
{
	return bulk_check_free_list(b, bh_free_link, bh_gen_of, b->n_slots, b->n_slots - 1 - b->live,
	                            why, len);
}

/* ---- the shared operations (dod_ops, containers/contract.h) ---- */
static inline void bh_core_destroy(const struct bh_design *d, void *c)
{
	BH *b = c;
	if (!b)
		return;
	for (size_t k = 0; k < d->n_stores; k++)
		store_free(&b->st[k]);
	free(b);
}

/* Every store made in order; the first failure frees those made before it and the
 * container, and returns the store's DOD_ENOMEM or DOD_EFULL. */
static inline int bh_core_create(const struct bh_design *d, void **out, size_t capacity_elems)
{
	if (capacity_elems > BULK_MAX_SLOTS)
		return DOD_EINVAL;
	BH *b = calloc(1, sizeof *b + d->n_stores * sizeof b->st[0]);
	if (!b)
		return DOD_ENOMEM;
	for (size_t k = 0; k < d->n_stores; k++) {
		const struct bh_store_spec *s = &d->stores[k];
		int err = store_init(&b->st[k], s->elem_bytes, s->elems(capacity_elems + 1));
		if (err) {
			while (k--)
				store_free(&b->st[k]);
			free(b);
			return err;
		}
	}
	b->n_slots = b->high = 1;
	*bh_gen(b, 0) = 0;
	d->reset(b);
	*out = b;
	return DOD_OK;
}

/* Room for slots [0, slots): all stores grow together, all or nothing (a store that did
 * grow keeps its larger capacity, which is harmless). */
static inline int bh_reserve_slots(const struct bh_design *d, BH *b, size_t slots)
{
	int err = DOD_OK;
	for (size_t k = 0; k < d->n_stores && !err; k++)
		err = store_reserve(&b->st[k], d->stores[k].elems(slots));
	return err;
}

/* Hands out one slot: the design's hole, else the next slot (bulk_slot_append). Capacity
 * must have been reserved. */
static inline uint32_t bh_take_slot(const struct bh_design *d, BH *b)
{
	uint32_t i = d->take_hole(b);
	if (i)
		return i;
	size_t had = b->high;
	i = bulk_slot_append(&b->n_slots, &b->high, bh_gen_of, b);
	if (d->appended)
		d->appended(b, i, had);
	return i;
}

static inline int bh_core_insert_n(const struct bh_design *d, void *c, size_t n,
                                   uint64_t first_key, uint64_t *handles_out)
{
	BH *b = c;
	size_t fresh;
	int err = bulk_fresh_slots(b->n_slots, b->live, n, &fresh);
	if (!err)
		err = bh_reserve_slots(d, b, b->n_slots + fresh);
	if (err)
		return err;
	for (size_t k = 0; k < n; k++) {
		uint32_t i = bh_take_slot(d, b);
		uint32_t g = bulk_gen_next(*bh_gen(b, i));
		*bh_gen(b, i) = g;
		SFX(dod_elem_init)(bh_item(b, i), first_key + k);
		if (d->filled)
			d->filled(b, i);
		if (handles_out)
			handles_out[k] = bulk_weak(i, g);
	}
	b->live += n;
	return DOD_OK;
}

static inline int bh_weak_error(const BH *b, uint64_t h)
{
	return bulk_weak_check_at(h, b->n_slots, bh_gen_of, b);
}

/* All or nothing without an extra allocation: bulk_weak_check_batch validates every weak
 * pointer first (a repeat fails as DOD_EFREE), then all are erased. */
static inline int bh_core_erase_n(const struct bh_design *d, void *c, const uint64_t *hs,
                                  size_t n)
{
	BH *b = c;
	int err = bulk_weak_check_batch(hs, n, b->n_slots, bh_gen_of, b);
	if (err)
		return err;
	for (size_t k = 0; k < n; k++) {
		uint32_t i = bulk_weak_id(hs[k]);
		*bh_gen(b, i) = bulk_gen_next(*bh_gen(b, i));
		d->freed(b, i);
	}
	b->live -= n;
	return DOD_OK;
}

/* Every item goes; live slots' generations are bumped, so old weak pointers are stale;
 * the slots are handed out again in order. */
static inline int bh_core_clear(const struct bh_design *d, void *c)
{
	BH *b = c;
	for (size_t i = 1; i < b->n_slots; i++)
		if (*bh_gen(b, i) & BULK_LIVE)
			*bh_gen(b, i) = bulk_gen_next(*bh_gen(b, i));
	b->n_slots = 1;
	b->live = 0;
	d->reset(b);
	return DOD_OK;
}

/* The container and what `bytes` says of each of its stores: committed bytes (the
 * footprint: what the process holds; a vm reservation beyond it costs nothing) or
 * reserved address space. */
static inline size_t bh_core_bytes(const struct bh_design *d, const BH *b,
                                   size_t (*bytes)(const dod_store *))
{
	size_t sum = sizeof *b + d->n_stores * sizeof b->st[0];
	for (size_t k = 0; k < d->n_stores; k++)
		sum += bytes(&b->st[k]);
	return sum;
}

/* The counts, and every store holding what the slots ever handed out need. */
static inline int bh_check_counts(const struct bh_design *d, const BH *b, char *why, size_t len)
{
	size_t cap = store_capacity(&b->st[0]) * BH_SLOTS_PER_ELEM;
	if (b->n_slots < 1 || b->n_slots > b->high || b->high > cap || b->live > b->n_slots - 1)
		return dod_check_fail(why, len, "counts: n_slots %zu, high %zu, capacity %zu, live %zu",
		                      b->n_slots, b->high, cap, b->live);
	for (size_t k = 1; k < d->n_stores; k++) {
		size_t need = d->stores[k].elems(b->high);
		if (store_capacity(&b->st[k]) < need)
			return dod_check_fail(why, len, "%s hold %zu elements, %zu slots need %zu",
			                      d->stores[k].what, store_capacity(&b->st[k]), b->high, need);
	}
	return DOD_OK;
}

/* The invariants (see dod_ops.check), the first violation's reason in why: counts and
 * capacities, generations (bulk_check_gens: slot 0 and the slots past n_slots never live,
 * no erase_n mark left, every live slot's weak pointer valid), then the design's. O(high)
 * plus the design's. */
static inline int bh_core_check(const struct bh_design *d, const void *c, char *why, size_t len)
{
	const BH *b = c;
	int err = bh_check_counts(d, b, why, len);
	if (!err)
		err = bulk_check_gens(b, bh_gen_of, b->n_slots, b->high, b->live, why, len);
	if (!err)
		err = d->check(b, why, len);
	return err;
}

/* A branch per check, predicted taken: the item's address comes straight from the id, so
 * independent lookups overlap their cache misses. (A branch-free variant that reads slot 0
 * for an out-of-range id and ORs mismatches together was measured slower: 1.8x against
 * this loop's 1.4x of plain_array's time at n = 1M, 16 B, random order.) */
static int bh_lookup_sum(const void *c, const uint64_t *hs, size_t n, uint64_t *sum_out)
{
	const BH *b = c;
	size_t n_slots = b->n_slots;
	uint64_t sum = 0;
	for (size_t k = 0; k < n; k++) {
		uint32_t id = bulk_weak_id(hs[k]);
		if (id - 1u >= n_slots - 1 || *bh_gen(b, id) != bulk_weak_gen(hs[k]) ||
		    !(bulk_weak_gen(hs[k]) & BULK_LIVE))
			return bh_weak_error(b, hs[k]);
		sum += bh_item(b, id)->key;
	}
	*sum_out = sum;
	return DOD_OK;
}

/* dod_ops.item_addr: the slot's item, where the store holds it now. */
static const void *bh_item_addr(const void *c, uint64_t h)
{
	return bh_weak_error(c, h) == DOD_OK ? (const void *)bh_item(c, bulk_weak_id(h)) : NULL;
}

static size_t bh_count_valid(const void *c, const uint64_t *hs, size_t n)
{
	return bulk_weak_count_valid(hs, n, ((const BH *)c)->n_slots, bh_gen_of, c);
}

static void bh_dump_keys(const void *c, uint64_t *keys_out)
{
	const BH *b = c;
	for (size_t i = 1; i < b->n_slots; i++)
		if (*bh_gen(b, i) & BULK_LIVE)
			*keys_out++ = bh_item(b, i)->key;
}

static size_t bh_size(const void *c) { return ((const BH *)c)->live; }

/* Test hook (stale_hook.h): k more (insert, erase) cycles of the free slot of weak
 * pointer h (a hole, or a slot past n_slots that keeps its generation). Insert and erase
 * each add 1 to the 31-bit generation (bulk_gen_next), so k cycles add 2k mod 2^31. */
int DOD_SKIP_REUSES(void *c, uint64_t h, uint64_t k)
{
	BH *b = c;
	uint32_t i = bulk_weak_id(h);
	if (i == 0 || i >= b->high || (*bh_gen(b, i) & BULK_LIVE))
		return DOD_EINVAL;
	*bh_gen(b, i) = (uint32_t)((*bh_gen(b, i) + 2 * k) & BULK_GEN_MASK);
	return DOD_OK;
}

/* The operations that take the design, bound to design D (a static const struct
 * bh_design) as the static functions BH_CORE_OPS names. */
#define BH_DESIGN_FUNCTIONS(D)                                                           \
	static int bh_create(void **out, size_t cap) { return bh_core_create(&(D), out, cap); } \
	static void bh_destroy(void *c) { bh_core_destroy(&(D), c); }                           \
	static int bh_insert_n(void *c, size_t n, uint64_t first_key, uint64_t *handles_out)    \
	{                                                                                      \
		return bh_core_insert_n(&(D), c, n, first_key, handles_out);                        \
	}                                                                                      \
	static int bh_erase_n(void *c, const uint64_t *hs, size_t n)                            \
	{                                                                                      \
		return bh_core_erase_n(&(D), c, hs, n);                                             \
	}                                                                                      \
	static int bh_clear(void *c) { return bh_core_clear(&(D), c); }                          \
	static size_t bh_footprint(const void *c)                                               \
	{                                                                                      \
		return bh_core_bytes(&(D), c, store_committed_bytes);                               \
	}                                                                                      \
	static size_t bh_reserved(const void *c) { return bh_core_bytes(&(D), c, store_reserved_bytes); } \
	static int bh_check(const void *c, char *why, size_t len)                               \
	{                                                                                      \
		return bh_core_check(&(D), c, why, len);                                            \
	}

/* The ops table's entries every design shares (its own: DOD_DESCRIPTOR, source,
 * iterate_sum). */
#define BH_CORE_OPS                                                                      \
	.max_elems = BULK_MAX_SLOTS - 1, .create = bh_create, .destroy = bh_destroy,          \
	.insert_n = bh_insert_n, .lookup_sum = bh_lookup_sum, .erase_n = bh_erase_n,          \
	.count_valid = bh_count_valid, .clear = bh_clear, .dump_keys = bh_dump_keys,          \
	.size = bh_size, .footprint_bytes = bh_footprint, .reserved_bytes = bh_reserved,      \
	.check = bh_check, .item_addr = bh_item_addr

#endif
