/* handle_map.h - dense/sparse/meta handle map with 64-bit generational handles.
 *
 * Source: Jeff Kiah, "Game Engine Containers - handle_map" (2016, griffin-containers).
 * This is a C rewrite of the design, not of the code:
 * errors are returned instead of asserted, and the defragment is resumable.
 *
 * Contents
 *   hmap_id            64-bit handle: index 32 | generation 16 | type id 15 | free 1
 *   hmap_create        make an empty map, reserve room            O(reserve)
 *   hmap_destroy       free everything                            O(1)
 *   hmap_reserve       grow dense/meta/sparse capacity            O(n)
 *   hmap_insert        copy one item in, get its handle           O(1) amortized
 *   hmap_emplace_n     append n items, get n handles              O(n) amortized
 *   hmap_erase         remove by handle (swap-and-pop)            O(1)
 *   hmap_erase_batch   remove n handles, all or nothing           O(n)
 *   hmap_get           handle -> item pointer or NULL             O(1)
 *   hmap_check         handle -> 0 or the reason it is invalid    O(1)
 *   hmap_is_valid      handle -> bool                             O(1)
 *   hmap_clear         drop items, keep sparse set, stale handles detected   O(slots)
 *   hmap_reset         drop items and sparse set                  O(1)
 *   hmap_size / hmap_capacity / hmap_data / hmap_id_at            O(1)
 *   hmap_defragment    resumable insertion sort of the dense set  O(n + moves)
 *                      (handle_map_sortdefrag: a radix sort, then
 *                      swaps along the permutation's cycles)      O(n)
 *   hmap_shuffle       seeded permutation of the dense set        O(n)
 *   hmap_check_invariants  full consistency check (tests)         O(slots)
 *
 * Invalidation: insert, emplace_n and reserve may reallocate the dense set, so item
 * pointers (hmap_get, hmap_data) are invalidated by them; erase moves the last item into
 * the hole (swap-and-pop) and defragment/shuffle move items, so pointers and dense
 * indices are invalidated by those too. Handles stay valid until their own item is
 * erased, cleared or reset: that is what the map is for.
 *
 * This header is per size class: define ELEM_BYTES (8, 16, 64, 256) before including
 * it, once per translation unit; names get the size suffix (hmap_insert_64, ...).
 */
#ifndef HANDLE_MAP_ID_H
#define HANDLE_MAP_ID_H
#include <stdbool.h>
#include <stdint.h>

/* The article's Id_T as one uint64_t, so handles compare and sort as integers:
 *   bits  0..31  index       outer id: sparse-set slot (inner id: dense index / next free)
 *   bits 32..47  generation  bumped on every erase and clear of the slot; wraps mod 2^16
 *   bits 48..62  type id     which map issued the handle (0..32767)
 *   bit  63      free        set on free sparse entries; never set on a handle we issue
 * The article used a bit-field union; explicit shifts give the same little-endian layout
 * without implementation-defined bit-field order. */
typedef uint64_t hmap_id;

#define HMAP_GEN_SHIFT 32  /* generation: bits 32..47; the index is the low 32 bits */
#define HMAP_TYPE_SHIFT 48 /* type id: bits 48..62; h >> HMAP_TYPE_SHIFT is type id and
                            * free bit together */
#define HMAP_FREE_SHIFT 63 /* free: bit 63 */
#define HMAP_MAX_TYPE_ID 0x7FFF /* 15 bits: also the type id's mask */
#define HMAP_FREE_BIT ((hmap_id)1 << HMAP_FREE_SHIFT)
#define HMAP_END UINT32_C(0xFFFFFFFF)    /* end of the free list; never a valid index */
#define HMAP_MAX_ELEMS UINT32_C(0xFFFFFFFE) /* largest number of live items and slots */

static inline uint32_t hmap_id_index(hmap_id h) { return (uint32_t)h; }
static inline uint16_t hmap_id_generation(hmap_id h) { return (uint16_t)(h >> HMAP_GEN_SHIFT); }
static inline uint16_t hmap_id_type(hmap_id h)
{
	return (uint16_t)((h >> HMAP_TYPE_SHIFT) & HMAP_MAX_TYPE_ID);
}
static inline bool hmap_id_free(hmap_id h) { return (h >> HMAP_FREE_SHIFT) != 0; }
static inline hmap_id hmap_id_make(uint32_t index, uint16_t generation, uint16_t type_id,
                                   bool free_bit)
{
	return (hmap_id)index | (hmap_id)generation << HMAP_GEN_SHIFT |
	       (hmap_id)(type_id & HMAP_MAX_TYPE_ID) << HMAP_TYPE_SHIFT |
	       (hmap_id)free_bit << HMAP_FREE_SHIFT;
}
#endif /* HANDLE_MAP_ID_H */

#ifndef ELEM_BYTES
#error "define ELEM_BYTES before including handle_map.h"
#endif
#include <stddef.h>
#include "dod_common.h"

/* The linkage of the functions below: external; containers/handle_map_elementwise.c
 * compiles this design a second time with them static (HMAP_API defined first), so the
 * two objects can be linked into one program. */
#ifndef HMAP_API
#define HMAP_API
#endif

/* Memory layout (n = live items, s = sparse slots ever used, s >= n):
 *
 *   dense  [ item | item | item | ... ]   n items, tightly packed, iteration order
 *   meta   [ d2s  | d2s  | d2s  | ... ]   n uint32: dense index -> sparse index
 *   sparse [ id   | id   | id   | ... ]   s hmap_id: live -> {dense index, gen, type, 0}
 *                                                    free -> {next free,   gen, type, 1}
 *
 * Invariants (checked by hmap_check_invariants):
 *   - for every dense d < n: sparse[meta[d]] is live and its index is d;
 *   - exactly s - n sparse entries are free, and they form one singly linked list from
 *     free_front to free_back through their index fields, ending in HMAP_END;
 *   - free_front == free_back == HMAP_END iff the list is empty;
 *   - every sparse entry below n_slots carries the map's type id;
 *   - dense[0, defrag_next) is sorted under defrag_cmp, and all of dense when the map is
 *     not fragmented (defragment relies on both).
 * The free list is FIFO: erase appends at the back, insert takes the front, so a slot is
 * reused as late as possible and a stale handle survives many reuses before its
 * generation can wrap around to match again (it does after 65536 erases of one slot:
 * with 16-bit generations that ABA case is undetectable, as in the article).
 */
/* Orders two items for hmap_defragment: < 0 if a goes before b, 0 if equal, > 0 after. */
typedef int (*SFX(hmap_cmp))(const DOD_ELEM *a, const DOD_ELEM *b);

struct SFX(hmap) {
	DOD_ELEM *dense;
	uint32_t *meta;
	hmap_id *sparse;
	size_t n, cap;              /* dense/meta: live items, allocated items */
	size_t n_slots, slot_cap;   /* sparse: slots in use (live + free), allocated */
	uint32_t free_front, free_back;
	uint16_t type_id;
	bool fragmented;            /* dense set may be out of order; defragment has work */
	size_t defrag_next;         /* dense[0, defrag_next) is sorted under defrag_cmp */
	SFX(hmap_cmp) defrag_cmp;   /* comparator defrag_next refers to (NULL = by key) */
#if HMAP_SORT_DEFRAG
	/* handle_map_sortdefrag's plan (containers/handle_map_sortdefrag.c): plan[d] is the
	 * dense index where the item now at d belongs in key order; plan_n is n when a plan
	 * is under way (0: none), every d < plan_next is in its place (plan[d] == d). */
	uint32_t *plan;
	size_t plan_n, plan_next, plan_cap;
#endif
};
#define HMAP struct SFX(hmap)


/* Creates an empty map whose handles carry type_id (0..32767) with room for reserve_elems
 * items. Returns 0 and sets *out; DOD_EINVAL if type_id > 32767, out is NULL or
 * reserve_elems > HMAP_MAX_ELEMS; DOD_ENOMEM if allocation fails (*out untouched). */
HMAP_API int SFX(hmap_create)(HMAP **out, uint16_t type_id, size_t reserve_elems);

/* Frees the map and its arrays. NULL is ignored. Invalidates everything. */
HMAP_API void SFX(hmap_destroy)(HMAP *m);

/* Grows capacity so that n_elems items (and slots) fit without reallocation. Returns 0,
 * DOD_EINVAL if n_elems > HMAP_MAX_ELEMS, DOD_ENOMEM (map unchanged). Invalidates item
 * pointers when it reallocates. O(n). */
HMAP_API int SFX(hmap_reserve)(HMAP *m, size_t n_elems);

/* Copies *item (which may point into this map) in at the end of the dense set. Returns 0 and writes the handle to *out
 * (out may be NULL); DOD_EFULL when HMAP_MAX_ELEMS items are live; DOD_ENOMEM. Map
 * unchanged on error. Reuses the oldest free slot (FIFO). O(1) amortized. */
HMAP_API int SFX(hmap_insert)(HMAP *m, const DOD_ELEM *item, hmap_id *out);

/* The article's emplaceItems(n): appends n items to the dense set and writes their n
 * handles to out[0..n) (out may be NULL). *first_out (may be NULL) receives a pointer to
 * the first new item; the n new items are contiguous and their contents indeterminate:
 * the caller writes them before use. Returns 0, DOD_EFULL, DOD_ENOMEM (map unchanged).
 * O(n) amortized; one reallocation at most. */
HMAP_API int SFX(hmap_emplace_n)(HMAP *m, size_t n, hmap_id *out, DOD_ELEM **first_out);

/* Erases the item of handle h: bumps the slot's generation, appends the slot to the back
 * of the free list, moves the last dense item into the hole (swap-and-pop). Returns 0 or
 * the hmap_check error (map unchanged). O(1). */
HMAP_API int SFX(hmap_erase)(HMAP *m, hmap_id h);

/* Erases n handles, all or nothing, with the same effect as erasing them one by one in
 * order. Returns 0 if all were erased, or the hmap_check error of the first invalid
 * handle (a repeat of an earlier handle in hs: DOD_EFREE) with the map unchanged. O(n). */
HMAP_API int SFX(hmap_erase_batch)(HMAP *m, const hmap_id *hs, size_t n);

/* Returns 0 if h refers to a live item of this map, else DOD_EFOREIGN (type id differs),
 * DOD_ERANGE (index past the sparse set), DOD_EFREE (free bit or free slot) or
 * DOD_ESTALE (generation differs). O(1). */
HMAP_API int SFX(hmap_check)(const HMAP *m, hmap_id h);

/* The item of h, or NULL when hmap_check(m, h) != 0. Never asserts. O(1). */
HMAP_API DOD_ELEM *SFX(hmap_get)(const HMAP *m, hmap_id h);
HMAP_API bool SFX(hmap_is_valid)(const HMAP *m, hmap_id h);

/* Removes all items, keeps the sparse set: every slot becomes free with its generation
 * bumped, so every outstanding handle is detected as stale; the free list is rebuilt in
 * slot order. Capacity is kept. O(slots). */
HMAP_API void SFX(hmap_clear)(HMAP *m);

/* Removes all items and forgets the sparse set and free list. Faster than clear, but
 * generations restart at 0, so an old handle may later match a new item undetected.
 * Capacity is kept. O(1). */
HMAP_API void SFX(hmap_reset)(HMAP *m);

HMAP_API size_t SFX(hmap_size)(const HMAP *m);      /* live items */
HMAP_API size_t SFX(hmap_capacity)(const HMAP *m);  /* items that fit without reallocation */
HMAP_API size_t SFX(hmap_footprint_bytes)(const HMAP *m); /* heap bytes held (capacities) */
/* The dense set: hmap_size(m) items in iteration order (NULL when never allocated). */
HMAP_API DOD_ELEM *SFX(hmap_data)(const HMAP *m);
/* The handle of the item at dense index d (< hmap_size). O(1). */
HMAP_API hmap_id SFX(hmap_id_at)(const HMAP *m, size_t d);

/* Sorts the dense set by cmp (NULL = key ascending) with a stable insertion sort that
 * keeps every handle pointing at its item (sparse entries are fixed as items move).
 * Moves at most max_swaps items per call (0 = no limit); *swaps_out (may be NULL) gets
 * the number of items moved, the article's "swaps". The sort resumes where the last call
 * stopped as long as cmp is the same; inserts keep the sorted prefix, an erase shortens
 * it. When nothing changed since the last complete sort (the "fragmented" flag is clear)
 * it returns at once. Returns 0. Cost: O(n + items shifted); O(n^2) moves when the
 * order is random (the article's 100k-item case), O(n) when nearly sorted. Invalidates
 * item pointers and dense indices, not handles.
 *
 * handle_map_sortdefrag (HMAP_SORT_DEFRAG) sorts by key (cmp NULL) another way: an O(n)
 * check of the order after the sorted prefix; if it is out of order, a plan (the target
 * index of every item: an LSD radix sort of (key, dense index) pairs, stable, so equal
 * keys keep their order as in the insertion sort; 4 bytes an item kept in the map, 32
 * bytes an item of scratch allocated and freed by the call that makes it); then swaps
 * along the plan's cycles, each sending the item at the cycle's start to its place (a
 * "swap" here: one item put in its final place; n minus the plan's cycles in all, at
 * most max_swaps a call, the last swap of a cycle placing two). The plan is kept between
 * calls and dropped by insert, emplace_n, erase, clear, reset and shuffle (the next call
 * makes a new one). Returns 0, or DOD_ENOMEM when the plan's memory cannot be had (map
 * unchanged, *swaps_out 0). A call that moves fewer than max_swaps items leaves the set
 * sorted, as the insertion sort does. A comparator (cmp not NULL) gets the insertion
 * sort. */
HMAP_API int SFX(hmap_defragment)(HMAP *m, SFX(hmap_cmp) cmp, size_t max_swaps, size_t *swaps_out);

/* Permutes the dense set uniformly (Fisher-Yates, splitmix64 seeded with seed) and
 * fixes meta and sparse so every handle still finds its item. Benchmark setup for
 * defragment; marks the map fragmented. Returns 0. O(n). */
HMAP_API int SFX(hmap_shuffle)(HMAP *m, uint64_t seed);

/* Checks every invariant listed above. Returns 0, or DOD_EINVAL at the first violation
 * (the contract's dod_ops.check gives the same check with its reason). For tests;
 * O(slots). */
HMAP_API int SFX(hmap_check_invariants)(const HMAP *m);

#undef HMAP
