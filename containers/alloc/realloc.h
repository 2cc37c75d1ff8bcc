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
 */
#ifndef DOD_ALLOC_REALLOC_H
#define DOD_ALLOC_REALLOC_H

#include <stddef.h>

/* Grows the array *p of *cap elements of elem_bytes each so that it holds at least want
 * elements: capacity doubles from max(*cap, 16) until it suffices, never beyond
 * max_elems (then exactly want). Returns 0 (also when want <= *cap: nothing to do), or
 * DOD_ENOMEM (the byte size does not fit in size_t, or realloc failed), leaving *p and
 * *cap unchanged. Invalidates pointers into *p when it moves. */
int dod_grow_geometric(void **p, size_t *cap, size_t want, size_t elem_bytes,
                       size_t max_elems);

/* The store.h interface over one realloc'd buffer. */
struct dod_realloc_store {
	char *base;
	size_t cap, elem_bytes;
};
enum { dod_realloc_MOVES = 1 };
int dod_realloc_init(struct dod_realloc_store *s, size_t elem_bytes, size_t reserve_elems);
void dod_realloc_free(struct dod_realloc_store *s);
int dod_realloc_reserve(struct dod_realloc_store *s, size_t want_elems);
/* The same with the elements starting on an align boundary (alloc/aligned.h: a memmove
 * after a realloc that moved the buffer to another offset), for DOD_STORE_ALIGNED. */
int dod_realloc_init_aligned(struct dod_realloc_store *s, size_t elem_bytes,
                             size_t reserve_elems, size_t align);
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

#endif
