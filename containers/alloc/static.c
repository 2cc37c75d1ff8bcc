/* static.c - the static allocation strategy (see static.h). */
#include "static.h"

#include <stdint.h>
#include <stdlib.h>

#include "alloc/aligned.h"
#include "dod_common.h"

/* init with malloc (align 0) or dod_aligned_alloc: both freed by free(). */
static int init(struct dod_static_store *s, size_t elem_bytes, size_t reserve_elems,
                size_t align)
{
	s->elem_bytes = elem_bytes;
	s->cap = reserve_elems ? reserve_elems : 1;
	size_t bytes = s->cap * elem_bytes;
	if (s->cap > SIZE_MAX / elem_bytes ||
	    !(s->base = align ? dod_aligned_alloc(bytes, align) : malloc(bytes))) {
		s->cap = 0;
		s->base = NULL;
		return DOD_ENOMEM;
	}
	return DOD_OK;
}

int dod_static_init(struct dod_static_store *s, size_t elem_bytes, size_t reserve_elems)
{
	return init(s, elem_bytes, reserve_elems, 0);
}

int dod_static_init_aligned(struct dod_static_store *s, size_t elem_bytes, size_t reserve_elems,
                            size_t align)
{
	return init(s, elem_bytes, reserve_elems, align);
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
