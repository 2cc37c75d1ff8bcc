/* constgrow.h - growth by a constant (Our Machinery, "Bulk data": "growing by a constant,
 * e.g. +128 elements, instead makes push O(n) per element"): one buffer, realloc'd to
 * DOD_CONSTGROW_ELEMS more elements each time it is full. Built to measure that claim
 * against geometric growth (realloc.h); no design should pick it. See store.h for the
 * common interface.
 *
 *   [ e0 ... e(cap-1) ]  --full-->  realloc to cap + 128: a copy of everything every 128
 *                                   pushes, unless the allocator can grow in place
 *                                   (glibc remaps large blocks with mremap instead)
 *
 * constgrow_copy grows as a std::vector would (a new buffer, a memcpy, the old one freed;
 * dod_buffer_grow in alloc/realloc.h), so every growth copies everything, as the article
 * assumes: with it the claim is measured where its premise holds.
 */
#ifndef DOD_ALLOC_CONSTGROW_H
#define DOD_ALLOC_CONSTGROW_H

#include <stddef.h>

#define DOD_CONSTGROW_ELEMS 128

struct dod_constgrow_store {
	char *base;
	size_t cap, elem_bytes;
	int copy; /* constgrow_copy: grown by malloc, memcpy, free */
};
enum { dod_constgrow_MOVES = 1 };
int dod_constgrow_init(struct dod_constgrow_store *s, size_t elem_bytes, size_t reserve_elems);
void dod_constgrow_free(struct dod_constgrow_store *s);
/* Capacity >= want_elems in steps of DOD_CONSTGROW_ELEMS: 0, or DOD_ENOMEM (the byte size
 * does not fit in size_t, or realloc failed) with s unchanged. */
int dod_constgrow_reserve(struct dod_constgrow_store *s, size_t want_elems);
/* The same with the elements starting on an align boundary (as realloc.h's), for
 * DOD_STORE_ALIGNED. */
int dod_constgrow_init_aligned(struct dod_constgrow_store *s, size_t elem_bytes,
                               size_t reserve_elems, size_t align);
void dod_constgrow_free_aligned(struct dod_constgrow_store *s);
int dod_constgrow_reserve_aligned(struct dod_constgrow_store *s, size_t want_elems,
                                  size_t align);
static inline char *dod_constgrow_at(const struct dod_constgrow_store *s, size_t i, size_t eb)
{
	return s->base + i * eb;
}
static inline size_t dod_constgrow_run(const struct dod_constgrow_store *s, size_t i)
{
	return s->cap - i;
}
static inline size_t dod_constgrow_capacity(const struct dod_constgrow_store *s) { return s->cap; }
static inline size_t dod_constgrow_reserved_bytes(const struct dod_constgrow_store *s)
{
	return s->cap * s->elem_bytes;
}
static inline size_t dod_constgrow_committed_bytes(const struct dod_constgrow_store *s)
{
	return s->cap * s->elem_bytes;
}

/* constgrow_copy: the same store, grown by copying; only init differs. */
#define dod_constgrow_copy_store dod_constgrow_store
enum { dod_constgrow_copy_MOVES = 1 };
int dod_constgrow_copy_init(struct dod_constgrow_store *s, size_t elem_bytes,
                            size_t reserve_elems);
int dod_constgrow_copy_init_aligned(struct dod_constgrow_store *s, size_t elem_bytes,
                                    size_t reserve_elems, size_t align);
#define dod_constgrow_copy_free dod_constgrow_free
#define dod_constgrow_copy_reserve dod_constgrow_reserve
#define dod_constgrow_copy_free_aligned dod_constgrow_free_aligned
#define dod_constgrow_copy_reserve_aligned dod_constgrow_reserve_aligned
#define dod_constgrow_copy_at dod_constgrow_at
#define dod_constgrow_copy_run dod_constgrow_run
#define dod_constgrow_copy_capacity dod_constgrow_capacity
#define dod_constgrow_copy_reserved_bytes dod_constgrow_reserved_bytes
#define dod_constgrow_copy_committed_bytes dod_constgrow_committed_bytes

#endif
