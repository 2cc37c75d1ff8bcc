/* fixblocks.c - fixed-size blocks (see fixblocks.h). */
#include "fixblocks.h"

#include <stdint.h>
#include <stdlib.h>

#include "alloc/aligned.h"
#include "alloc/realloc.h"
#include "dod_common.h"

static int reserve(struct dod_fixblocks_store *s, size_t want_elems, size_t align);

/* init, its blocks from malloc (align 0) or dod_aligned_alloc: both freed by free(). */
static int init(struct dod_fixblocks_store *s, size_t elem_bytes, size_t reserve_elems,
                size_t align)
{
	s->blocks = NULL;
	s->n_blocks = s->blocks_cap = 0;
	s->elem_bytes = elem_bytes;
	/* reserve keeps a block table it grew when a block then fails (harmless for a live
	 * store); a store that fails to start must hold nothing (found by tests/fuzz: the
	 * table leaked when create's first block allocation failed). */
	int err = reserve(s, reserve_elems, align);
	if (err)
		dod_fixblocks_free(s);
	return err;
}

int dod_fixblocks_init(struct dod_fixblocks_store *s, size_t elem_bytes, size_t reserve_elems)
{
	return init(s, elem_bytes, reserve_elems, 0);
}

int dod_fixblocks_init_aligned(struct dod_fixblocks_store *s, size_t elem_bytes,
                               size_t reserve_elems, size_t align)
{
	return init(s, elem_bytes, reserve_elems, align);
}

void dod_fixblocks_free(struct dod_fixblocks_store *s)
{
	for (size_t b = 0; b < s->n_blocks; b++)
		free(s->blocks[b]);
	free(s->blocks);
	s->blocks = NULL;
	s->n_blocks = s->blocks_cap = 0;
}

/* Blocks added by a call that then fails are freed again: s is unchanged on error. */
static int reserve(struct dod_fixblocks_store *s, size_t want_elems, size_t align)
{
	size_t need = want_elems / DOD_FIXBLOCK_ELEMS + (want_elems % DOD_FIXBLOCK_ELEMS != 0);
	if (need <= s->n_blocks)
		return DOD_OK;
	if (DOD_FIXBLOCK_ELEMS > SIZE_MAX / s->elem_bytes)
		return DOD_ENOMEM;
	int err = dod_grow_geometric((void **)&s->blocks, &s->blocks_cap, need,
	                             sizeof *s->blocks, SIZE_MAX / sizeof *s->blocks);
	if (err)
		return err;
	size_t had = s->n_blocks, bytes = DOD_FIXBLOCK_ELEMS * s->elem_bytes;
	for (; s->n_blocks < need; s->n_blocks++) {
		if (!(s->blocks[s->n_blocks] = align ? dod_aligned_alloc(bytes, align) : malloc(bytes))) {
			while (s->n_blocks > had)
				free(s->blocks[--s->n_blocks]);
			return DOD_ENOMEM;
		}
	}
	return DOD_OK;
}

int dod_fixblocks_reserve(struct dod_fixblocks_store *s, size_t want_elems)
{
	return reserve(s, want_elems, 0);
}

int dod_fixblocks_reserve_aligned(struct dod_fixblocks_store *s, size_t want_elems,
                                  size_t align)
{
	return reserve(s, want_elems, align);
}
