/* realloc.c - the geometric-realloc allocation strategy (see realloc.h). */
#include "realloc.h"

#include <stdint.h>
#include <stdlib.h>

#include "alloc/aligned.h"
#include "dod_common.h"

/* The capacity growth to want elements picks (want > cap): doubling from max(cap, 16)
 * until it suffices, never beyond max_elems (then exactly want). */
static size_t geometric_cap(size_t cap, size_t want, size_t max_elems)
{
	size_t new_cap = cap ? cap : 16;
	while (new_cap < want)
		new_cap = new_cap > SIZE_MAX / 2 ? want : new_cap * 2;
	return new_cap > max_elems ? want : new_cap;
}

int dod_grow_geometric(void **p, size_t *cap, size_t want, size_t elem_bytes,
                       size_t max_elems)
{
	if (want <= *cap)
		return DOD_OK;
	size_t new_cap = geometric_cap(*cap, want, max_elems);
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

int dod_realloc_init_aligned(struct dod_realloc_store *s, size_t elem_bytes,
                             size_t reserve_elems, size_t align)
{
	s->base = NULL;
	s->cap = 0;
	s->elem_bytes = elem_bytes;
	return dod_realloc_reserve_aligned(s, reserve_elems, align);
}

void dod_realloc_free_aligned(struct dod_realloc_store *s)
{
	dod_aligned_free(s->base);
	s->base = NULL;
	s->cap = 0;
}

int dod_realloc_reserve_aligned(struct dod_realloc_store *s, size_t want_elems, size_t align)
{
	size_t eb = s->elem_bytes ? s->elem_bytes : 1;
	if (want_elems <= s->cap)
		return DOD_OK;
	size_t cap = geometric_cap(s->cap, want_elems, SIZE_MAX / eb);
	if (cap > SIZE_MAX / eb)
		return DOD_ENOMEM;
	int err = dod_aligned_realloc(&s->base, s->cap * eb, cap * eb, align);
	if (!err)
		s->cap = cap;
	return err;
}
