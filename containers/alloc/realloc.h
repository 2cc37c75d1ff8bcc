/* realloc.h - the geometric-realloc allocation strategy (Our Machinery, "Bulk data":
 * "the simplest strategy: grow the array by a factor when it is full, moving every
 * element"), written once for every container that grows by realloc. Other strategies
 * (static, fixed-size blocks, geometric blocks, virtual-memory reserve) will sit beside it
 * in containers/alloc/, each behind the same few calls.
 *
 *   [ e0 e1 ... e(cap-1) ]  --full-->  realloc to 2 x cap: every element moves, every
 *                                      pointer into the array is invalidated
 *
 * Costs: O(1) amortized per element appended (each element is copied about once more on
 * average), with a worst-case spike of one full copy on the push that grows it.
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

#endif
