/* geoblocks.c - geometric blocks (see geoblocks.h). */
#include "geoblocks.h"

#include <stdlib.h>

#include "alloc/aligned.h"
#include "dod_common.h"

/* Blocks added by a call that then fails are freed again: s is unchanged on error. The
 * blocks come from malloc (align 0) or dod_aligned_alloc: both freed by free(). */
static int reserve(struct dod_geoblocks_store *s, size_t want_elems, size_t align)
{
	size_t had = s->n_blocks;
	while (dod_geoblocks_capacity(s) < want_elems) {
		size_t elems = DOD_GEOBLOCK_FIRST << s->n_blocks, bytes = elems * s->elem_bytes;
		char *p = s->n_blocks + 1 < DOD_GEOBLOCK_MAX && elems <= SIZE_MAX / s->elem_bytes
		                  ? (align ? dod_aligned_alloc(bytes, align) : malloc(bytes))
		                  : NULL;
		if (!p) {
			while (s->n_blocks > had)
				free(s->blocks[--s->n_blocks]);
			return DOD_ENOMEM;
		}
		s->blocks[s->n_blocks++] = p;
	}
	return DOD_OK;
}

int dod_geoblocks_init(struct dod_geoblocks_store *s, size_t elem_bytes, size_t reserve_elems)
{
	s->n_blocks = 0;
	s->elem_bytes = elem_bytes;
	return reserve(s, reserve_elems, 0);
}

int dod_geoblocks_init_aligned(struct dod_geoblocks_store *s, size_t elem_bytes,
                               size_t reserve_elems, size_t align)
{
	s->n_blocks = 0;
	s->elem_bytes = elem_bytes;
	return reserve(s, reserve_elems, align);
}

void dod_geoblocks_free(struct dod_geoblocks_store *s)
{
	for (size_t b = 0; b < s->n_blocks; b++)
		free(s->blocks[b]);
	s->n_blocks = 0;
}

int dod_geoblocks_reserve(struct dod_geoblocks_store *s, size_t want_elems)
{
	return reserve(s, want_elems, 0);
}

int dod_geoblocks_reserve_aligned(struct dod_geoblocks_store *s, size_t want_elems,
                                  size_t align)
{
	return reserve(s, want_elems, align);
}
