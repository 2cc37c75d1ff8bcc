/* vec_hooks.h - the aoa_core.h hooks that aoa_vec_of_vecs (and its
 * +16 form aoa_vec_add16) and aoa_buddy share: each keeps an entity's tags in one array of
 * its own whose capacity doubles (aoa_vec_add16: grows by 16 tags), wherever its allocator
 * put it (malloc, or a block of the buddy arena). A design file defines its struct
 * aoa_store, holding size_t tags (stored, over every entity) and array_bytes (the capacity
 * of every array, in bytes), then includes aoa/vec_hdr.h (the header {a, n, cap}, no tag
 * limit), aoa/aoa_core.h and this header; the design's own hooks follow (store_create,
 * store_destroy, hdr_release, store_clear, tag_add, store_bytes, store_check).
 *
 * Header invariants (vec_check_headers): n <= cap; a == NULL iff cap == 0; a free slot's
 * header is {NULL, 0, 0}; array_bytes = the sum of cap x 4, tags the sum of n. Remove
 * moves the last tag into the removed one's place and keeps the capacity (as std::vector
 * does); the walk loads one pointer an entity and jumps to its array.
 */
#ifndef DOD_AOA_VEC_HOOKS_H
#define DOD_AOA_VEC_HOOKS_H

#include <stdbool.h>
#include <stdint.h>

#include "aoa/tag_array.h"
#include "dod_common.h"

static void hdr_init(struct aoa *a, uint32_t i) { a->hdr[i] = (AOA_HDR){NULL, 0, 0}; }
static bool hdr_empty(const struct aoa *a, uint32_t i) { return a->hdr[i].cap == 0; }
static void batch_begin(struct aoa *a) { (void)a; }

static void tag_undo(struct aoa *a, uint32_t i)
{
	a->hdr[i].n--;
	a->s.tags--;
}

static int tag_remove(struct aoa *a, uint32_t i, uint32_t tag)
{
	AOA_HDR *h = &a->hdr[i];
	if (!aoa_array_remove(h->a, &h->n, tag))
		return 0;
	a->s.tags--;
	return 1;
}

static bool tag_has(const struct aoa *a, uint32_t i, uint32_t tag)
{
	return aoa_array_has(a->hdr[i].a, a->hdr[i].n, tag);
}

static size_t tags_list(const struct aoa *a, uint32_t i, uint32_t *out, size_t room)
{
	return aoa_array_list(a->hdr[i].a, a->hdr[i].n, out, room);
}

static uint64_t walk(const struct aoa *a)
{
	uint64_t sum = 0;
	for (size_t i = 1; i < a->n_slots; i++) {
		const uint32_t *t = a->hdr[i].a;
		for (uint32_t j = 0, n = a->hdr[i].n; j < n; j++)
			sum += t[j];
	}
	return sum;
}

static void store_memory(const struct aoa *a, struct dod_tags_memory *m)
{
	m->tags = a->s.tags;
	m->unit_bytes = a->s.array_bytes;
}

/* The header invariants above. Returns 0 or dod_check_fail's DOD_EINVAL. O(n_slots). */
static int vec_check_headers(const struct aoa *a, char *why, size_t len)
{
	size_t tags = 0, bytes = 0;
	for (uint32_t i = 1; i < a->n_slots; i++) {
		const AOA_HDR *h = &a->hdr[i];
		if (h->n > h->cap || (h->a == NULL) != (h->cap == 0))
			return dod_check_fail(why, len, "entity slot %u: n %u, cap %u, array %s", i, h->n,
			                      h->cap, h->a ? "set" : "NULL");
		tags += h->n;
		bytes += (size_t)h->cap * sizeof(uint32_t);
	}
	if (tags != a->s.tags || bytes != a->s.array_bytes)
		return dod_check_fail(why, len, "%zu tags in %zu B of arrays, counts %zu and %zu", tags,
		                      bytes, a->s.tags, a->s.array_bytes);
	return DOD_OK;
}

#endif
