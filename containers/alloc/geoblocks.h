/* geoblocks.h - geometric blocks (Our Machinery, "Bulk data": blocks of 16, 32, 64, ...
 * elements that never move): block b holds DOD_GEOBLOCK_FIRST << b elements, so n
 * elements need about log2(n) blocks and at most half of the last block is unused. The
 * first block holds 64 (not the article's 16) so that every block holds whole 64-slot
 * groups (the bitmask containers' occupancy words never straddle two blocks).
 *
 *   block 0: 64 | block 1: 128 | block 2: 256 | ...    element i lives in block
 *   b = log2(i / 64 + 1) at offset i - 64 (2^b - 1): a count-leading-zeros and a load
 */
#ifndef DOD_ALLOC_GEOBLOCKS_H
#define DOD_ALLOC_GEOBLOCKS_H

#include <stddef.h>
#include <stdint.h>

#define DOD_GEOBLOCK_SHIFT 6
#define DOD_GEOBLOCK_FIRST ((size_t)1 << DOD_GEOBLOCK_SHIFT)
#define DOD_GEOBLOCK_MAX 48 /* 64 << 47 elements: beyond any address space */

struct dod_geoblocks_store {
	char *blocks[DOD_GEOBLOCK_MAX];
	size_t n_blocks, elem_bytes;
};
enum { dod_geoblocks_MOVES = 0 };
int dod_geoblocks_init(struct dod_geoblocks_store *s, size_t elem_bytes, size_t reserve_elems);
void dod_geoblocks_free(struct dod_geoblocks_store *s);
int dod_geoblocks_reserve(struct dod_geoblocks_store *s, size_t want_elems);
/* The same with every block starting on an align boundary (alloc/aligned.h), for
 * DOD_STORE_ALIGNED; free is the same. */
int dod_geoblocks_init_aligned(struct dod_geoblocks_store *s, size_t elem_bytes,
                               size_t reserve_elems, size_t align);
int dod_geoblocks_reserve_aligned(struct dod_geoblocks_store *s, size_t want_elems,
                                  size_t align);
#define dod_geoblocks_free_aligned dod_geoblocks_free
static inline unsigned dod_geoblocks_block_of(size_t i)
{
	return 63u - (unsigned)__builtin_clzll((uint64_t)(i >> DOD_GEOBLOCK_SHIFT) + 1);
}
static inline size_t dod_geoblocks_first(unsigned b)
{
	return DOD_GEOBLOCK_FIRST * (((size_t)1 << b) - 1);
}
static inline char *dod_geoblocks_at(const struct dod_geoblocks_store *s, size_t i, size_t eb)
{
	unsigned b = dod_geoblocks_block_of(i);
	return s->blocks[b] + (i - dod_geoblocks_first(b)) * eb;
}
static inline size_t dod_geoblocks_run(const struct dod_geoblocks_store *s, size_t i)
{
	(void)s;
	unsigned b = dod_geoblocks_block_of(i);
	return dod_geoblocks_first(b + 1) - i;
}
static inline size_t dod_geoblocks_capacity(const struct dod_geoblocks_store *s)
{
	return dod_geoblocks_first((unsigned)s->n_blocks);
}
static inline size_t dod_geoblocks_reserved_bytes(const struct dod_geoblocks_store *s)
{
	return dod_geoblocks_capacity(s) * s->elem_bytes;
}
static inline size_t dod_geoblocks_committed_bytes(const struct dod_geoblocks_store *s)
{
	return dod_geoblocks_reserved_bytes(s);
}

#endif
