/* plain_array.c - calibration baseline: a growable C array with push and iterate only.
 *
 *   items [ item | item | item | ... | (capacity - n unused) ]
 *
 * Not from an article: it is the floor every container's iteration is compared with.
 * DESIGN.md asks that iterating it match a hand-written loop over the same memory within
 * a few %, which shows the contract's batch calls add no per-element overhead. It has no
 * handles, so lookup, clear, reset and defragment scenarios skip it with a reason.
 * Compiled once per size class (-DELEM_BYTES=N).
 */
#include <stdlib.h>

#include "contract.h"
#include "dod_common.h"

struct SFX(parr) {
	DOD_ELEM *items;
	size_t n, cap;
};
#define PARR struct SFX(parr)

static int parr_create(void **out, size_t capacity_elems)
{
	if (capacity_elems > SIZE_MAX / sizeof(DOD_ELEM))
		return DOD_ENOMEM;
	PARR *a = calloc(1, sizeof *a);
	if (!a)
		return DOD_ENOMEM;
	if (capacity_elems && !(a->items = malloc(capacity_elems * sizeof *a->items))) {
		free(a);
		return DOD_ENOMEM;
	}
	a->cap = capacity_elems;
	*out = a;
	return DOD_OK;
}

static void parr_destroy(void *c)
{
	PARR *a = c;
	if (a)
		free(a->items);
	free(a);
}

/* Push n items, growing x2 like std::vector when the reserve runs out. */
static int parr_insert_n(void *c, size_t n, uint64_t first_key, uint64_t *handles_out)
{
	PARR *a = c;
	(void)handles_out;
	if (n > SIZE_MAX / sizeof(DOD_ELEM) - a->n)
		return DOD_ENOMEM;
	if (a->n + n > a->cap) {
		size_t cap = a->cap ? a->cap : 16;
		while (cap < a->n + n)
			cap = cap > SIZE_MAX / sizeof(DOD_ELEM) / 2 ? a->n + n : cap * 2;
		DOD_ELEM *p = realloc(a->items, cap * sizeof *p);
		if (!p)
			return DOD_ENOMEM;
		a->items = p;
		a->cap = cap;
	}
	for (size_t k = 0; k < n; k++)
		SFX(dod_elem_init)(&a->items[a->n + k], first_key + k);
	a->n += n;
	return DOD_OK;
}

static uint64_t parr_iterate_sum(const void *c)
{
	const PARR *a = c;
	uint64_t sum = 0;
	for (size_t i = 0; i < a->n; i++)
		sum += a->items[i].key;
	return sum;
}

static void parr_dump_keys(const void *c, uint64_t *keys_out)
{
	const PARR *a = c;
	for (size_t i = 0; i < a->n; i++)
		keys_out[i] = a->items[i].key;
}

static size_t parr_size(const void *c) { return ((const PARR *)c)->n; }
static size_t parr_footprint(const void *c)
{
	return sizeof(PARR) + ((const PARR *)c)->cap * sizeof(DOD_ELEM);
}

const struct dod_ops SFX(plain_array_ops) = {
	.version = DOD_OPS_VERSION,
	.name = "plain_array",
	.family = "baseline",
	.alloc = "geometric_realloc",
	.layout = "aos",
	.source = "calibration baseline (DESIGN.md)",
	.caps = DOD_CAP_KEEPS_ORDER,
	.elem_bytes = ELEM_BYTES,
	.max_elems = SIZE_MAX / ELEM_BYTES,
	.create = parr_create,
	.destroy = parr_destroy,
	.insert_n = parr_insert_n,
	.iterate_sum = parr_iterate_sum,
	.dump_keys = parr_dump_keys,
	.size = parr_size,
	.footprint_bytes = parr_footprint,
};
