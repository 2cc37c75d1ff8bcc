/* constgrow.h - growth by a constant (Our Machinery, "Bulk data": "growing by a constant,
 * e.g. +128 elements, instead makes push O(n) per element"): one buffer, realloc'd to
 * DOD_CONSTGROW_ELEMS more elements each time it is full. Built to measure that claim
 * against geometric growth (realloc.h); no design should pick it. See store.h for the
 * common interface; the store is realloc.h's with a growth step.
 *
 *   [ e0 ... e(cap-1) ]  --full-->  realloc to cap + 128: a copy of everything every 128
 *                                   pushes, unless the allocator can grow in place
 *                                   (glibc remaps large blocks with mremap instead)
 *
 * constgrow_copy grows as a std::vector would (a new buffer, a memcpy, the old one freed;
 * dod_buffer_grow in alloc/grow.h), so every growth copies everything, as the article
 * assumes: with it the claim is measured where its premise holds.
 */
#ifndef DOD_ALLOC_CONSTGROW_H
#define DOD_ALLOC_CONSTGROW_H

#include <stddef.h>

#include "alloc/realloc.h"

#define DOD_CONSTGROW_ELEMS 128

/* realloc.h's store with a growth step of DOD_CONSTGROW_ELEMS: only init differs. */
#define dod_constgrow_store dod_realloc_store
enum { dod_constgrow_MOVES = 1 };
static inline int dod_constgrow_init(struct dod_realloc_store *s, size_t elem_bytes,
                                     size_t reserve_elems)
{
	return dod_realloc_init_with(s, elem_bytes, reserve_elems, 0, 0, DOD_CONSTGROW_ELEMS);
}
static inline int dod_constgrow_init_aligned(struct dod_realloc_store *s, size_t elem_bytes,
                                             size_t reserve_elems, size_t align)
{
	return dod_realloc_init_with(s, elem_bytes, reserve_elems, align, 0, DOD_CONSTGROW_ELEMS);
}
/* constgrow_copy: grown by copying (malloc, memcpy, free). */
#define dod_constgrow_copy_store dod_realloc_store
enum { dod_constgrow_copy_MOVES = 1 };
static inline int dod_constgrow_copy_init(struct dod_realloc_store *s, size_t elem_bytes,
                                          size_t reserve_elems)
{
	return dod_realloc_init_with(s, elem_bytes, reserve_elems, 0, 1, DOD_CONSTGROW_ELEMS);
}
static inline int dod_constgrow_copy_init_aligned(struct dod_realloc_store *s,
                                                  size_t elem_bytes, size_t reserve_elems,
                                                  size_t align)
{
	return dod_realloc_init_with(s, elem_bytes, reserve_elems, align, 1, DOD_CONSTGROW_ELEMS);
}
/* Everything else is realloc.h's (capacity in steps of DOD_CONSTGROW_ELEMS: 0, or
 * DOD_ENOMEM with s unchanged; aligned stores reserved and freed by the _aligned forms). */
#define dod_constgrow_free dod_realloc_free
#define dod_constgrow_reserve dod_realloc_reserve
#define dod_constgrow_free_aligned dod_realloc_free_aligned
#define dod_constgrow_reserve_aligned dod_realloc_reserve_aligned
#define dod_constgrow_at dod_realloc_at
#define dod_constgrow_run dod_realloc_run
#define dod_constgrow_capacity dod_realloc_capacity
#define dod_constgrow_reserved_bytes dod_realloc_reserved_bytes
#define dod_constgrow_committed_bytes dod_realloc_committed_bytes
#define dod_constgrow_copy_free dod_realloc_free
#define dod_constgrow_copy_reserve dod_realloc_reserve
#define dod_constgrow_copy_free_aligned dod_realloc_free_aligned
#define dod_constgrow_copy_reserve_aligned dod_realloc_reserve_aligned
#define dod_constgrow_copy_at dod_realloc_at
#define dod_constgrow_copy_run dod_realloc_run
#define dod_constgrow_copy_capacity dod_realloc_capacity
#define dod_constgrow_copy_reserved_bytes dod_realloc_reserved_bytes
#define dod_constgrow_copy_committed_bytes dod_realloc_committed_bytes

#endif
