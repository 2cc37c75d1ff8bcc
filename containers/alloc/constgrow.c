/* constgrow.c - growth by a constant number of elements, by realloc or by copying (see
 * constgrow.h). */
#include "constgrow.h"

#include <stdint.h>
#include <stdlib.h>

#include "alloc/aligned.h"
#include "alloc/realloc.h"
#include "dod_common.h"

/* init of either form, aligned (align > 0) or not. */
static int init(struct dod_constgrow_store *s, size_t elem_bytes, size_t reserve_elems,
                size_t align, int copy)
{
	s->base = NULL;
	s->cap = 0;
	s->elem_bytes = elem_bytes;
	s->copy = copy;
	return align ? dod_constgrow_reserve_aligned(s, reserve_elems, align)
	             : dod_constgrow_reserve(s, reserve_elems);
}

int dod_constgrow_init(struct dod_constgrow_store *s, size_t elem_bytes, size_t reserve_elems)
{
	return init(s, elem_bytes, reserve_elems, 0, 0);
}

int dod_constgrow_copy_init(struct dod_constgrow_store *s, size_t elem_bytes,
                            size_t reserve_elems)
{
	return init(s, elem_bytes, reserve_elems, 0, 1);
}

void dod_constgrow_free(struct dod_constgrow_store *s)
{
	free(s->base);
	s->base = NULL;
	s->cap = 0;
}

/* The capacity for want_elems > s->cap, in steps of DOD_CONSTGROW_ELEMS: 0, or DOD_ENOMEM
 * when it or its byte size does not fit in size_t. */
static int constgrow_cap(const struct dod_constgrow_store *s, size_t want_elems, size_t *cap)
{
	size_t steps = (want_elems - s->cap + DOD_CONSTGROW_ELEMS - 1) / DOD_CONSTGROW_ELEMS;
	if (steps > (SIZE_MAX - s->cap) / DOD_CONSTGROW_ELEMS)
		return DOD_ENOMEM;
	*cap = s->cap + steps * DOD_CONSTGROW_ELEMS;
	return s->elem_bytes && *cap > SIZE_MAX / s->elem_bytes ? DOD_ENOMEM : DOD_OK;
}

int dod_constgrow_reserve(struct dod_constgrow_store *s, size_t want_elems)
{
	size_t cap;
	if (want_elems <= s->cap)
		return DOD_OK;
	if (constgrow_cap(s, want_elems, &cap) ||
	    dod_buffer_grow(&s->base, s->cap * s->elem_bytes, cap * s->elem_bytes, s->copy))
		return DOD_ENOMEM;
	s->cap = cap;
	return DOD_OK;
}

int dod_constgrow_init_aligned(struct dod_constgrow_store *s, size_t elem_bytes,
                               size_t reserve_elems, size_t align)
{
	return init(s, elem_bytes, reserve_elems, align, 0);
}

int dod_constgrow_copy_init_aligned(struct dod_constgrow_store *s, size_t elem_bytes,
                                    size_t reserve_elems, size_t align)
{
	return init(s, elem_bytes, reserve_elems, align, 1);
}

void dod_constgrow_free_aligned(struct dod_constgrow_store *s)
{
	dod_aligned_free(s->base);
	s->base = NULL;
	s->cap = 0;
}

int dod_constgrow_reserve_aligned(struct dod_constgrow_store *s, size_t want_elems,
                                  size_t align)
{
	size_t cap;
	if (want_elems <= s->cap)
		return DOD_OK;
	if (constgrow_cap(s, want_elems, &cap) ||
	    dod_aligned_realloc(&s->base, s->cap * s->elem_bytes, cap * s->elem_bytes, align,
	                        s->copy))
		return DOD_ENOMEM;
	s->cap = cap;
	return DOD_OK;
}
