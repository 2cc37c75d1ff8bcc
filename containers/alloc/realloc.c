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
