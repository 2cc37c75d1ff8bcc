/* realloc.c - the geometric-realloc allocation strategy (see realloc.h). */
#include "realloc.h"

#include <stdint.h>
#include <stdlib.h>

#include "dod_common.h"

int dod_grow_geometric(void **p, size_t *cap, size_t want, size_t elem_bytes,
                       size_t max_elems)
{
	if (want <= *cap)
		return DOD_OK;
	size_t new_cap = *cap ? *cap : 16;
	while (new_cap < want)
		new_cap = new_cap > SIZE_MAX / 2 ? want : new_cap * 2;
	if (new_cap > max_elems)
		new_cap = want;
	if (elem_bytes && new_cap > SIZE_MAX / elem_bytes)
		return DOD_ENOMEM;
	void *q = realloc(*p, new_cap * elem_bytes);
	if (!q)
		return DOD_ENOMEM;
	*p = q;
	*cap = new_cap;
	return DOD_OK;
}

int dod_realloc_init(struct dod_realloc_store *s, size_t elem_bytes, size_t reserve_elems)
{
	s->base = NULL;
	s->cap = 0;
	s->elem_bytes = elem_bytes;
	return dod_realloc_reserve(s, reserve_elems);
}

void dod_realloc_free(struct dod_realloc_store *s)
{
	free(s->base);
	s->base = NULL;
	s->cap = 0;
}

int dod_realloc_reserve(struct dod_realloc_store *s, size_t want_elems)
{
	return dod_grow_geometric((void **)&s->base, &s->cap, want_elems, s->elem_bytes,
	                          SIZE_MAX / (s->elem_bytes ? s->elem_bytes : 1));
}
