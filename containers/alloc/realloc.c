/* realloc.c - the geometric-realloc allocation strategy and its copying form (see
 * realloc.h), grown through alloc/grow.h's dod_buffer_grow (aligned: alloc/aligned.h). */
#include "realloc.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

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
	char *q = *p;
	if (dod_buffer_grow(&q, *cap * elem_bytes, new_cap * elem_bytes, 0))
		return DOD_ENOMEM;
	*p = q;
	*cap = new_cap;
	return DOD_OK;
}

/* The capacity s grows to for want_elems > s->cap: doubled (geometric_cap) or in steps of
 * s->step elements. Returns 0, or DOD_ENOMEM when it or its byte size does not fit in
 * size_t. */
static int next_cap(const struct dod_realloc_store *s, size_t want_elems, size_t *cap)
{
	size_t eb = s->elem_bytes ? s->elem_bytes : 1;
	if (!s->step) {
		*cap = geometric_cap(s->cap, want_elems, SIZE_MAX / eb);
	} else {
		size_t steps = (want_elems - s->cap + s->step - 1) / s->step;
		if (steps > (SIZE_MAX - s->cap) / s->step)
			return DOD_ENOMEM;
		*cap = s->cap + steps * s->step;
	}
	return *cap > SIZE_MAX / eb ? DOD_ENOMEM : DOD_OK;
}

int dod_realloc_init_with(struct dod_realloc_store *s, size_t elem_bytes, size_t reserve_elems,
                          size_t align, int copy, size_t step)
{
	s->base = NULL;
	s->cap = 0;
	s->elem_bytes = elem_bytes;
	s->step = step;
	s->copy = copy;
	return align ? dod_realloc_reserve_aligned(s, reserve_elems, align)
	             : dod_realloc_reserve(s, reserve_elems);
}

void dod_realloc_free(struct dod_realloc_store *s)
{
	free(s->base);
	s->base = NULL;
	s->cap = 0;
}

int dod_realloc_reserve(struct dod_realloc_store *s, size_t want_elems)
{
	size_t cap;
	if (want_elems <= s->cap)
		return DOD_OK;
	if (next_cap(s, want_elems, &cap) ||
	    dod_buffer_grow(&s->base, s->cap * s->elem_bytes, cap * s->elem_bytes, s->copy))
		return DOD_ENOMEM;
	s->cap = cap;
	return DOD_OK;
}

void dod_realloc_free_aligned(struct dod_realloc_store *s)
{
	dod_aligned_free(s->base);
	s->base = NULL;
	s->cap = 0;
}

int dod_realloc_reserve_aligned(struct dod_realloc_store *s, size_t want_elems, size_t align)
{
	size_t cap;
	if (want_elems <= s->cap)
		return DOD_OK;
	if (next_cap(s, want_elems, &cap) ||
	    dod_aligned_realloc(&s->base, s->cap * s->elem_bytes, cap * s->elem_bytes, align,
	                        s->copy))
		return DOD_ENOMEM;
	s->cap = cap;
	return DOD_OK;
}
