/* plain_array.c - calibration baseline: a growable C array; a handle is the raw index.
 *
 *   items [ item | item | item | ... | (capacity - n unused) ]
 *           ^ handle 0
 *
 * Not from an article: it is the floor every container is compared with. Iterating it
 * must match a hand-written loop over the same memory within a few % (docs/ARCHITECTURE.md), which
 * shows the contract's batch calls add no per-element overhead; lookup by index with a
 * bounds check only is the floor of every handle design (no generation, no indirection).
 * It cannot erase single items (no erase_n: hole scenarios skip it) and cannot detect a
 * stale index: clear makes every old index out of range, a new insert reuses them.
 * Costs: insert O(1) amortized (x2 realloc), lookup O(1), iterate O(n), clear O(1).
 * Compiled once per size class (-DELEM_BYTES=N).
 */
#include <stdlib.h>

#include "alloc/realloc.h"
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

/* Push n items, growing x2 like std::vector when the reserve runs out (alloc/realloc.h). */
static int parr_insert_n(void *c, size_t n, uint64_t first_key, uint64_t *handles_out)
{
	PARR *a = c;
	if (n > SIZE_MAX / sizeof(DOD_ELEM) - a->n)
		return DOD_ENOMEM;
	int err = dod_grow_geometric((void **)&a->items, &a->cap, a->n + n, sizeof *a->items,
	                             SIZE_MAX / sizeof *a->items);
	if (err)
		return err;
	for (size_t k = 0; k < n; k++)
		SFX(dod_elem_init)(&a->items[a->n + k], first_key + k);
	if (handles_out)
		for (size_t k = 0; k < n; k++)
			handles_out[k] = a->n + k;
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

/* Lookup by raw index: the bounds check is the only validation. */
static int parr_lookup_sum(const void *c, const uint64_t *hs, size_t n, uint64_t *sum_out)
{
	const PARR *a = c;
	const DOD_ELEM *items = a->items;
	size_t size = a->n;
	uint64_t sum = 0;
	for (size_t k = 0; k < n; k++) {
		if (hs[k] >= size)
			return DOD_ERANGE;
		sum += items[hs[k]].key;
	}
	*sum_out = sum;
	return DOD_OK;
}

static size_t parr_count_valid(const void *c, const uint64_t *hs, size_t n)
{
	size_t valid = 0;
	for (size_t k = 0; k < n; k++)
		valid += hs[k] < ((const PARR *)c)->n;
	return valid;
}

static int parr_clear(void *c)
{
	((PARR *)c)->n = 0;
	return DOD_OK;
}

static void parr_dump_keys(const void *c, uint64_t *keys_out)
{
	const PARR *a = c;
	for (size_t i = 0; i < a->n; i++)
		keys_out[i] = a->items[i].key;
}

/* At 8-byte elements the items are exactly their keys, one after another. */
static const uint64_t *parr_key_array(const void *c)
{
	return ELEM_BYTES == 8 ? (const uint64_t *)((const PARR *)c)->items : NULL;
}

static size_t parr_size(const void *c) { return ((const PARR *)c)->n; }
static size_t parr_footprint(const void *c)
{
	return sizeof(PARR) + ((const PARR *)c)->cap * sizeof(DOD_ELEM);
}

/* dod_ops.check: n items fit the capacity, which has memory behind it. O(1). */
static int parr_check(const void *c, char *why, size_t len)
{
	const PARR *a = c;
	if (a->n > a->cap || (a->cap && !a->items))
		return dod_check_fail(why, len, "n %zu, capacity %zu, items %s", a->n, a->cap,
		                      a->items ? "allocated" : "NULL");
	return DOD_OK;
}

const struct dod_ops DOD_OPS_SYMBOL = {
	DOD_DESCRIPTOR,
	.source = "calibration baseline (docs/ARCHITECTURE.md)",
	.max_elems = SIZE_MAX / ELEM_BYTES,
	.create = parr_create,
	.destroy = parr_destroy,
	.insert_n = parr_insert_n,
	.iterate_sum = parr_iterate_sum,
	.lookup_sum = parr_lookup_sum,
	.count_valid = parr_count_valid,
	.clear = parr_clear,
	.dump_keys = parr_dump_keys,
	.key_array = parr_key_array,
	.size = parr_size,
	.footprint_bytes = parr_footprint,
	.check = parr_check,
};
