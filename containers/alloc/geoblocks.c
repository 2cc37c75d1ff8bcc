/* geoblocks.c - geometric blocks (see geoblocks.h). */
#include "geoblocks.h"

#include <stdlib.h>

#include "dod_common.h"

int dod_geoblocks_init(struct dod_geoblocks_store *s, size_t elem_bytes, size_t reserve_elems)
{
	s->n_blocks = 0;
	s->elem_bytes = elem_bytes;
	return dod_geoblocks_reserve(s, reserve_elems);
}

void dod_geoblocks_free(struct dod_geoblocks_store *s)
{
	for (size_t b = 0; b < s->n_blocks; b++)
		free(s->blocks[b]);
	s->n_blocks = 0;
}

/* Blocks added by a call that then fails are freed again: s is unchanged on error. */
int dod_geoblocks_reserve(struct dod_geoblocks_store *s, size_t want_elems)
{
	size_t had = s->n_blocks;
	while (dod_geoblocks_capacity(s) < want_elems) {
		size_t elems = DOD_GEOBLOCK_FIRST << s->n_blocks;
		char *p = s->n_blocks + 1 < DOD_GEOBLOCK_MAX && elems <= SIZE_MAX / s->elem_bytes
		                  ? malloc(elems * s->elem_bytes)
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
