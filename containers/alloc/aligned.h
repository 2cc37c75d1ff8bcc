/* aligned.h - aligned memory for the aligned stores (store.h, DOD_STORE_ALIGNED). A
 * container whose kernels run packed SIMD loops over its stores (particles.c) asks for
 * every run of elements to start on a boundary of its choice: malloc aligns to 16 bytes
 * only, so where an array starts within a cache line, and which cache sets its lines
 * fall in, would otherwise depend on every allocation made before it in the process (the
 * particle kernels moved by 5-50% with the size of an unrelated struct). The same reason
 * the build aligns loops (-falign-loops=64): placement must not decide a comparison.
 *
 *   what realloc returned
 *   v
 *   [ slack ........ | off | e0 e1 e2 ... ]   e0 on an align boundary; off = e0 - what
 *                     ^ the size_t before e0 holds off (for the next realloc and for free)
 */
#ifndef DOD_ALLOC_ALIGNED_H
#define DOD_ALLOC_ALIGNED_H

#include <stddef.h>

#define DOD_LINE_BYTES 64 /* a cache line */

/* Grows the buffer *base (NULL: none yet), aligned to align (a power of two, at least
 * 16), to new_bytes >= old_bytes, keeping its first old_bytes: one dod_buffer_grow
 * (alloc/realloc.h: realloc, in place when the allocator can, or with copy 1 a new buffer
 * and a copy) of new_bytes + align, then a memmove when the new allocation puts the
 * boundary at another offset (counted in dod_growth as a move and a copy). Returns 0, or
 * DOD_ENOMEM (the size does not fit, or the allocation failed) with *base unchanged.
 * Invalidates pointers into it when it moves. */
int dod_aligned_realloc(char **base, size_t old_bytes, size_t new_bytes, size_t align,
                        int copy);
/* The page size, bytes (sysconf, read once): the alignment of a store whose arrays must
 * start on pages (particles.c's soa_pagealigned). */
size_t dod_page_bytes(void);
/* Frees a buffer of dod_aligned_realloc; NULL is ignored. */
void dod_aligned_free(char *base);
/* bytes (rounded up to align, a power of two) starting on an align boundary, freed by
 * free(); NULL when out of memory. */
void *dod_aligned_alloc(size_t bytes, size_t align);

#endif
