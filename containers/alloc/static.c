/* static.c - the static allocation strategy (see static.h). */
#include "static.h"

#include <stdint.h>
#include <stdlib.h>

#include "dod_common.h"

int dod_static_init(struct dod_static_store *s, size_t elem_bytes, size_t reserve_elems)
{
	s->elem_bytes = elem_bytes;
	s->cap = reserve_elems ? reserve_elems : 1;
	if (s->cap > SIZE_MAX / elem_bytes || !(s->base = malloc(s->cap * elem_bytes))) {
		s->cap = 0;
		s->base = NULL;
		return DOD_ENOMEM;
	}
	return DOD_OK;
}

void dod_static_free(struct dod_static_store *s)
{
	free(s->base);
	s->base = NULL;
	s->cap = 0;
}

int dod_static_reserve(struct dod_static_store *s, size_t want_elems)
{
	return want_elems <= s->cap ? DOD_OK : DOD_EFULL;
}
