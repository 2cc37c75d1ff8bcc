/* fixblocks.h - fixed-size blocks (Our Machinery, "Bulk data": "allocate in blocks of,
 * say, 16K elements"): elements never move; element i is blocks[i / per][i % per], so a
 * lookup costs one more load than a flat array; waste is bounded by one block. Loops go
 * block by block (store_run). See store.h for the common interface.
 *
 *   blocks [ *--> e0 .. e(per-1) ][ *--> e(per) .. ][ ... ]   only this pointer array
 *                                                             is ever reallocated
 */
#ifndef DOD_ALLOC_FIXBLOCKS_H
#define DOD_ALLOC_FIXBLOCKS_H

#include <stddef.h>

#define DOD_FIXBLOCK_SHIFT 14
#define DOD_FIXBLOCK_ELEMS ((size_t)1 << DOD_FIXBLOCK_SHIFT) /* 16K elements a block */

struct dod_fixblocks_store {
	char **blocks;
	size_t n_blocks, blocks_cap, elem_bytes;
};
enum { dod_fixblocks_MOVES = 0 };
int dod_fixblocks_init(struct dod_fixblocks_store *s, size_t elem_bytes, size_t reserve_elems);
void dod_fixblocks_free(struct dod_fixblocks_store *s);
int dod_fixblocks_reserve(struct dod_fixblocks_store *s, size_t want_elems);
/* The same with every block starting on an align boundary (alloc/aligned.h), for
 * DOD_STORE_ALIGNED; free is the same. */
int dod_fixblocks_init_aligned(struct dod_fixblocks_store *s, size_t elem_bytes,
                               size_t reserve_elems, size_t align);
int dod_fixblocks_reserve_aligned(struct dod_fixblocks_store *s, size_t want_elems,
                                  size_t align);
#define dod_fixblocks_free_aligned dod_fixblocks_free
static inline char *dod_fixblocks_at(const struct dod_fixblocks_store *s, size_t i, size_t eb)
{
	return s->blocks[i >> DOD_FIXBLOCK_SHIFT] + (i & (DOD_FIXBLOCK_ELEMS - 1)) * eb;
}
static inline size_t dod_fixblocks_run(const struct dod_fixblocks_store *s, size_t i)
{
	(void)s;
	return DOD_FIXBLOCK_ELEMS - (i & (DOD_FIXBLOCK_ELEMS - 1));
}
static inline size_t dod_fixblocks_capacity(const struct dod_fixblocks_store *s)
{
	return s->n_blocks << DOD_FIXBLOCK_SHIFT;
}
static inline size_t dod_fixblocks_reserved_bytes(const struct dod_fixblocks_store *s)
{
	return (s->n_blocks << DOD_FIXBLOCK_SHIFT) * s->elem_bytes +
	       s->blocks_cap * sizeof *s->blocks;
}
static inline size_t dod_fixblocks_committed_bytes(const struct dod_fixblocks_store *s)
{
	return dod_fixblocks_reserved_bytes(s);
}

#endif
