/* grow.h - the one place a heap buffer grows by reallocation (dod_buffer_grow), and the
 * count of every container growth in dod_growth (dod_common.h). Below both the realloc
 * stores (alloc/realloc.h, which includes this header) and the aligned buffers
 * (alloc/aligned.h), which grow through it. */
#ifndef DOD_ALLOC_GROW_H
#define DOD_ALLOC_GROW_H

#include <stddef.h>

/* Grows the heap buffer *p of old_bytes (NULL: none, old_bytes 0) to new_bytes >=
 * old_bytes, keeping its first old_bytes: with copy 0 by realloc (in place, or moved:
 * by mremap without a copy for a block glibc got from mmap, else copied), with copy 1 as
 * std::vector grows (malloc, memcpy, free: moves and copies every time). Counts the
 * growth of an existing buffer in dod_growth (dod_common.h). Returns 0 or DOD_ENOMEM
 * (*p unchanged). Invalidates pointers into *p when it moves. */
int dod_buffer_grow(char **p, size_t old_bytes, size_t new_bytes, int copy);

/* Counts in dod_growth one growth of an existing buffer that a container made itself (a
 * layout dod_buffer_grow cannot keep, e.g. several arrays moved into one new block):
 * moved nonzero when the buffer now starts elsewhere, copied_bytes the bytes it copied.
 * dod_buffer_grow counts its own growths through it. */
void dod_growth_note(int moved, size_t copied_bytes);

/* Amends the growth dod_buffer_grow just counted when the container then moved its data
 * within the new block itself (an aligned buffer realigning, alloc/aligned.c): the growth
 * counts as one that moved (not twice: counted_moved nonzero when dod_buffer_grow already
 * counted it so), plus copied_bytes. Counts no new growth. */
void dod_growth_note_move(int counted_moved, size_t copied_bytes);

#endif
