/* malloc_ptrs.c - peer: the handle_map article's std::vector<std::unique_ptr<T>>, in C:
 * an array of pointers to individually malloc'd payloads.
 *
 *   ptrs [ p0 | p1 | p2 | ... ]      handle = index into ptrs
 *           |    |    '--> T (own malloc block, wherever the allocator puts it)
 *           |    '-------> T
 *           '------------> T
 *
 * Source: Jeff Kiah, "Game Engine Containers - handle_map" (2016), the comparison column
 * "vector of unique_ptr". Each item costs one malloc on create and one free on clear;
 * iteration chases one pointer per item. A handle is a plain index.
 *
 * Erase is what game code holding indices into such a vector does: unique_ptr::reset()
 * in place. The item is freed and its slot keeps a NULL pointer (a tombstone), so the
 * indices of the other items stay valid; iteration tests every slot for NULL. Slots are
 * never reused until clear, so an erased handle is rejected (DOD_EFREE), but after clear
 * the indices are issued again: old handles are not detected as stale in general.
 *
 * Invariants: n = slots in use (live + tombstones), live = non-NULL slots <= n.
 * Costs: insert O(1) amortized + one malloc; erase O(1) + one free; iterate O(n slots).
 * Compiled once per size class (-DELEM_BYTES=N).
 */
#include <stdlib.h>

#include "alloc/realloc.h"
#include "contract.h"
#include "dod_common.h"

struct SFX(mptrs) {
	DOD_ELEM **ptrs;   /* NULL = tombstone of an erased item */
	size_t n, cap;     /* slots used, slots allocated */
	size_t live;       /* non-NULL slots */
};
#define MPTRS struct SFX(mptrs)
/* erase_n's "seen in this batch" tag: a pointer's low bit, always clear in what malloc
 * returns (aligned to at least 8 bytes). */
#define SEEN_TAG ((uintptr_t)1)

static int mptrs_create(void **out, size_t capacity_elems)
{
	if (capacity_elems > SIZE_MAX / sizeof(DOD_ELEM *))
		return DOD_ENOMEM;
	MPTRS *v = calloc(1, sizeof *v);
	if (!v)
		return DOD_ENOMEM;
	if (capacity_elems && !(v->ptrs = malloc(capacity_elems * sizeof *v->ptrs))) {
		free(v);
		return DOD_ENOMEM;
	}
	v->cap = capacity_elems;
	*out = v;
	return DOD_OK;
}

static int mptrs_clear(void *c)
{
	MPTRS *v = c;
	for (size_t i = 0; i < v->n; i++)
		free(v->ptrs[i]);
	v->n = v->live = 0;
	return DOD_OK;
}

static void mptrs_destroy(void *c)
{
	if (!c)
		return;
	mptrs_clear(c);
	free(((MPTRS *)c)->ptrs);
	free(c);
}

/* On allocation failure the items added by this call are freed again: all or nothing. */
static int mptrs_insert_n(void *c, size_t n, uint64_t first_key, uint64_t *handles_out)
{
	MPTRS *v = c;
	if (n > SIZE_MAX / sizeof(DOD_ELEM *) - v->n)
		return DOD_ENOMEM;
	int err = dod_grow_geometric((void **)&v->ptrs, &v->cap, v->n + n, sizeof *v->ptrs,
	                             SIZE_MAX / sizeof *v->ptrs);
	if (err)
		return err;
	for (size_t k = 0; k < n; k++) {
		DOD_ELEM *e = malloc(sizeof *e);
		if (!e) {
			while (k--)
				free(v->ptrs[v->n + k]);
			return DOD_ENOMEM;
		}
		SFX(dod_elem_init)(e, first_key + k);
		v->ptrs[v->n + k] = e;
		if (handles_out)
			handles_out[k] = v->n + k;
	}
	v->n += n;
	v->live += n;
	return DOD_OK;
}

/* The error of handle h: out of range, or a tombstone. */
static int check_handle(const MPTRS *v, uint64_t h)
{
	if (h >= v->n)
		return DOD_ERANGE;
	return v->ptrs[h] ? DOD_OK : DOD_EFREE;
}

/* All or nothing without an extra allocation: pass 1 validates each handle and tags its
 * pointer's low bit (malloc returns pointers aligned to at least 8 bytes) as a "seen"
 * mark, so a repeated handle fails as DOD_EFREE; the tags are removed before pass 2
 * frees, or before returning the error. */
static int mptrs_erase_n(void *c, const uint64_t *hs, size_t n)
{
	MPTRS *v = c;
	size_t k;
	int err = DOD_OK;
	for (k = 0; k < n; k++) {
		if ((err = check_handle(v, hs[k])) != DOD_OK)
			break;
		uintptr_t p = (uintptr_t)v->ptrs[hs[k]];
		if (p & SEEN_TAG) {
			err = DOD_EFREE;
			break;
		}
		v->ptrs[hs[k]] = (DOD_ELEM *)(p | SEEN_TAG);
	}
	for (size_t j = 0; j < k; j++)
		v->ptrs[hs[j]] = (DOD_ELEM *)((uintptr_t)v->ptrs[hs[j]] & ~SEEN_TAG);
	if (err)
		return err;
	for (k = 0; k < n; k++) {
		free(v->ptrs[hs[k]]);
		v->ptrs[hs[k]] = NULL;
	}
	v->live -= n;
	return DOD_OK;
}

static uint64_t mptrs_iterate_sum(const void *c)
{
	const MPTRS *v = c;
	uint64_t sum = 0;
	for (size_t i = 0; i < v->n; i++)
		if (v->ptrs[i])
			sum += v->ptrs[i]->key;
	return sum;
}

static int mptrs_lookup_sum(const void *c, const uint64_t *hs, size_t n, uint64_t *sum_out)
{
	const MPTRS *v = c;
	uint64_t sum = 0;
	for (size_t k = 0; k < n; k++) {
		if (hs[k] >= v->n || !v->ptrs[hs[k]])
			return check_handle(v, hs[k]);
		sum += v->ptrs[hs[k]]->key;
	}
	*sum_out = sum;
	return DOD_OK;
}

static size_t mptrs_count_valid(const void *c, const uint64_t *hs, size_t n)
{
	size_t valid = 0;
	for (size_t k = 0; k < n; k++)
		valid += check_handle(c, hs[k]) == DOD_OK;
	return valid;
}

static void mptrs_dump_keys(const void *c, uint64_t *keys_out)
{
	const MPTRS *v = c;
	for (size_t i = 0; i < v->n; i++)
		if (v->ptrs[i])
			*keys_out++ = v->ptrs[i]->key;
}

static size_t mptrs_size(const void *c) { return ((const MPTRS *)c)->live; }
/* Payload bytes as requested from malloc; the allocator's own headers are not visible. */
static size_t mptrs_footprint(const void *c)
{
	const MPTRS *v = c;
	return sizeof *v + v->cap * sizeof *v->ptrs + v->live * sizeof(DOD_ELEM);
}

/* dod_ops.check: n slots fit the capacity, live is the number of non-NULL slots, and no
 * pointer keeps erase_n's low-bit mark. O(n). */
static int mptrs_check(const void *c, char *why, size_t len)
{
	const MPTRS *v = c;
	if (v->n > v->cap || v->live > v->n)
		return dod_check_fail(why, len, "n %zu, capacity %zu, live %zu", v->n, v->cap, v->live);
	size_t live = 0;
	for (size_t i = 0; i < v->n; i++) {
		if ((uintptr_t)v->ptrs[i] & SEEN_TAG)
			return dod_check_fail(why, len, "slot %zu keeps erase_n's mark", i);
		live += v->ptrs[i] != NULL;
	}
	if (live != v->live)
		return dod_check_fail(why, len, "%zu non-NULL slots, live count %zu", live, v->live);
	return DOD_OK;
}

const struct dod_ops DOD_OPS_SYMBOL = {
	DOD_DESCRIPTOR,
	.source = "vector<unique_ptr<T>> as in Kiah, handle_map (2016)",
	.max_elems = SIZE_MAX / sizeof(void *),
	.create = mptrs_create,
	.destroy = mptrs_destroy,
	.insert_n = mptrs_insert_n,
	.iterate_sum = mptrs_iterate_sum,
	.lookup_sum = mptrs_lookup_sum,
	.erase_n = mptrs_erase_n,
	.count_valid = mptrs_count_valid,
	.clear = mptrs_clear,
	.dump_keys = mptrs_dump_keys,
	.size = mptrs_size,
	.footprint_bytes = mptrs_footprint,
	.check = mptrs_check,
};
