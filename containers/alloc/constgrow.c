/* constgrow.c - growth by a constant number of elements (see constgrow.h). */
#include "constgrow.h"

#include <stdint.h>
#include <stdlib.h>

#include "dod_common.h"

int dod_constgrow_init(struct dod_constgrow_store *s, size_t elem_bytes, size_t reserve_elems)
{
	s->base = NULL;
	s->cap = 0;
	s->elem_bytes = elem_bytes;
	return dod_constgrow_reserve(s, reserve_elems);
}

void dod_constgrow_free(struct dod_constgrow_store *s)
{
	free(s->base);
	s->base = NULL;
	s->cap = 0;
}

int dod_constgrow_reserve(struct dod_constgrow_store *s, size_t want_elems)
{
	if (want_elems <= s->cap)
		return DOD_OK;
	size_t steps = (want_elems - s->cap + DOD_CONSTGROW_ELEMS - 1) / DOD_CONSTGROW_ELEMS;
	if (steps > (SIZE_MAX - s->cap) / DOD_CONSTGROW_ELEMS)
		return DOD_ENOMEM;
	size_t cap = s->cap + steps * DOD_CONSTGROW_ELEMS;
	if (s->elem_bytes && cap > SIZE_MAX / s->elem_bytes)
		return DOD_ENOMEM;
	char *q = realloc(s->base, cap * s->elem_bytes);
	if (!q)
		return DOD_ENOMEM;
	s->base = q;
	s->cap = cap;
	return DOD_OK;
}
