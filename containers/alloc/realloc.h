/* realloc.h - the geometric-realloc allocation strategy (Our Machinery, "Bulk data":
 * grow the array by a factor when it is full, moving every element), written once for
 * every container that grows by realloc.
 *
 *   [ e0 e1 ... e(cap-1) ]  --full-->  realloc to 2 x cap: every element moves, every
 *                                      pointer into the array is invalidated
 *
 * Costs: O(1) amortized per element appended (each element is copied about once more on
 * average), with a worst-case spike of one full copy on the push that grows it, and up to
 * 50% of the capacity unused after a doubling. See store.h for the common interface.
 *
 * The copy is the allocator's choice: glibc grows a block it got from mmap (above its
 * mmap threshold, 128 KiB and up) with mremap, which moves pages and copies nothing, so
 * on Linux the spike the article describes does not occur for large arrays.
 * realloc_copy is the same strategy grown as std::vector grows: a new buffer, a memcpy of
 * every element, the old one freed, so the copy always happens. dod_growth
 * (dod_common.h) counts what each growth did.
 */
#ifndef DOD_ALLOC_REALLOC_H
#define DOD_ALLOC_REALLOC_H

#include <stddef.h>

#include "alloc/grow.h" /* dod_buffer_grow, dod_growth_note: every growth of a buffer */

/* Grows the array *p of *cap elements of elem_bytes each so that it holds at least want
 * elements: capacity doubles from max(*cap, 16) until it suffices, never beyond
 * max_elems (then exactly want). Returns 0 (also when want <= *cap: nothing to do), or
 * DOD_ENOMEM (the byte size does not fit in size_t, or realloc failed), leaving *p and
 * *cap unchanged. Invalidates pointers into *p when it moves. */
int dod_grow_geometric(void **p, size_t *cap, size_t want, size_t elem_bytes,
                       size_t max_elems);

/* The store.h interface over one realloc'd buffer. The growth policy is data: step 0
 * doubles the capacity (realloc, realloc_copy), step K adds K elements (constgrow.h's
 * stores are this store with step DOD_CONSTGROW_ELEMS). */
struct dod_realloc_store {
	char *base;
	size_t cap, elem_bytes;
	size_t step; /* 0: capacity x2; else + step elements */
	int copy;    /* realloc_copy, constgrow_copy: grown by malloc, memcpy, free */
};
/* Any of the four stores: capacity policy step (0: x2), copy 1 to grow by copying,
 * align 0 for malloc's alignment, else the elements start on an align boundary (a power
 * of two, at least 16: alloc/aligned.h; free such a store with dod_realloc_free_aligned,
 * never dod_realloc_free). Reserves reserve_elems. Returns 0 or DOD_ENOMEM (the size does
 * not fit in size_t, or the allocation failed; s is then empty, safe to free). */
int dod_realloc_init_with(struct dod_realloc_store *s, size_t elem_bytes, size_t reserve_elems,
                          size_t align, int copy, size_t step);
enum { dod_realloc_MOVES = 1 };
static inline int dod_realloc_init(struct dod_realloc_store *s, size_t elem_bytes,
                                   size_t reserve_elems)
{
	return dod_realloc_init_with(s, elem_bytes, reserve_elems, 0, 0, 0);
}
void dod_realloc_free(struct dod_realloc_store *s);
/* Capacity >= want_elems by the store's policy: 0, or DOD_ENOMEM (the byte size does not
 * fit in size_t, or the allocation failed) with s unchanged. */
int dod_realloc_reserve(struct dod_realloc_store *s, size_t want_elems);
/* The same with the elements starting on an align boundary (alloc/aligned.h: a memmove
 * after a realloc that moved the buffer to another offset), for DOD_STORE_ALIGNED; a
 * store made so is reserved and freed only by these. */
static inline int dod_realloc_init_aligned(struct dod_realloc_store *s, size_t elem_bytes,
                                           size_t reserve_elems, size_t align)
{
	return dod_realloc_init_with(s, elem_bytes, reserve_elems, align, 0, 0);
}
void dod_realloc_free_aligned(struct dod_realloc_store *s);
int dod_realloc_reserve_aligned(struct dod_realloc_store *s, size_t want_elems, size_t align);
static inline char *dod_realloc_at(const struct dod_realloc_store *s, size_t i, size_t eb)
{
	return s->base + i * eb;
}
static inline size_t dod_realloc_run(const struct dod_realloc_store *s, size_t i)
{
	return s->cap - i;
}
static inline size_t dod_realloc_capacity(const struct dod_realloc_store *s) { return s->cap; }
static inline size_t dod_realloc_reserved_bytes(const struct dod_realloc_store *s)
{
	return s->cap * s->elem_bytes;
}
static inline size_t dod_realloc_committed_bytes(const struct dod_realloc_store *s)
{
	return s->cap * s->elem_bytes;
}

/* realloc_copy: the same store, grown by copying (dod_buffer_grow with copy 1); only init
 * differs. */
#define dod_realloc_copy_store dod_realloc_store
enum { dod_realloc_copy_MOVES = 1 };
static inline int dod_realloc_copy_init(struct dod_realloc_store *s, size_t elem_bytes,
                                        size_t reserve_elems)
{
	return dod_realloc_init_with(s, elem_bytes, reserve_elems, 0, 1, 0);
}
static inline int dod_realloc_copy_init_aligned(struct dod_realloc_store *s, size_t elem_bytes,
                                                size_t reserve_elems, size_t align)
{
	return dod_realloc_init_with(s, elem_bytes, reserve_elems, align, 1, 0);
}
#define dod_realloc_copy_free dod_realloc_free
#define dod_realloc_copy_reserve dod_realloc_reserve
#define dod_realloc_copy_free_aligned dod_realloc_free_aligned
#define dod_realloc_copy_reserve_aligned dod_realloc_reserve_aligned
#define dod_realloc_copy_at dod_realloc_at
#define dod_realloc_copy_run dod_realloc_run
#define dod_realloc_copy_capacity dod_realloc_capacity
#define dod_realloc_copy_reserved_bytes dod_realloc_reserved_bytes
#define dod_realloc_copy_committed_bytes dod_realloc_committed_bytes

#endif
