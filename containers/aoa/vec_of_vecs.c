/* vec_of_vecs.c - aoa_vec_of_vecs: one malloc'd growable array of tags per entity, the
 * article's starting point (Niklas Gray, "Allocation Adventures 2: Arrays of Arrays",
 * Bitsquid 2015: vector<vector<unsigned>>, "one allocation per entity that has tags"),
 * in C: realloc, x2 growth from 1 (as libstdc++'s vector), so peer_std_vector_vector
 * differs from it only by std::vector's new-copy-delete growth and 24-byte header.
 *
 *   hdr   [ nil | {a, n, cap} | {a, n, cap} | ... ]   16 B a header, parallel to the
 *                  |                                  entity slots (aoa/aoa_core.h)
 *                  v
 *         heap:  [ t0 t1 t2 . ]   one block an entity (cap x 4 B), wherever malloc put it
 *
 * Invariants: n <= cap; a == NULL iff cap == 0; a free slot's header is {NULL, 0, 0};
 * array_bytes = the sum of cap x 4. Costs: add O(1) amortized, a realloc when n reaches
 * cap (1, 2, 4, ...: D1's one allocation per list, and more as it grows; a failed
 * realloc leaves the array as it was); remove and has O(n) (the last tag moves into the
 * removed one's place; the array is kept, as std::vector keeps its capacity); the walk
 * loads one pointer an entity and jumps to its block. Memory: the blocks' capacity plus
 * malloc's own header per block (not seen here: unit_bytes counts capacity only).
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define AOA_MAX_TAGS 0
typedef struct {
	uint32_t *a;
	uint32_t n, cap;
} AOA_HDR;
struct aoa_store {
	size_t tags;        /* stored, over every entity */
	size_t array_bytes; /* the capacity of every array, in bytes */
};

#include "aoa/aoa_core.h"

#define VEC_MAX_CAP (UINT32_C(1) << 31) /* tags an entity can hold */

static int store_create(struct aoa *a, size_t capacity_entities)
{
	(void)capacity_entities;
	a->s = (struct aoa_store){0, 0};
	return DOD_OK;
}
static void hdr_init(struct aoa *a, uint32_t i) { a->hdr[i] = (AOA_HDR){NULL, 0, 0}; }
static void hdr_release(struct aoa *a, uint32_t i)
{
	AOA_HDR *h = &a->hdr[i];
	a->s.tags -= h->n;
	a->s.array_bytes -= (size_t)h->cap * sizeof(uint32_t);
	free(h->a);
	hdr_init(a, i);
}
static bool hdr_empty(const struct aoa *a, uint32_t i) { return a->hdr[i].cap == 0; }
static void store_clear(struct aoa *a)
{
	for (uint32_t i = 1; i < a->n_slots; i++)
		hdr_release(a, i);
}
static void store_destroy(struct aoa *a) { store_clear(a); }
static void batch_begin(struct aoa *a) { (void)a; }

static int tag_add(struct aoa *a, uint32_t i, uint32_t tag)
{
	AOA_HDR *h = &a->hdr[i];
	if (h->n == h->cap) {
		if (h->cap == VEC_MAX_CAP)
			return DOD_EFULL;
		uint32_t cap = h->cap ? 2 * h->cap : 1;
		if (dod_buffer_grow((char **)&h->a, (size_t)h->cap * sizeof(uint32_t),
		                    (size_t)cap * sizeof(uint32_t), 0))
			return DOD_ENOMEM;
		a->s.array_bytes += (size_t)(cap - h->cap) * sizeof(uint32_t);
		h->cap = cap;
	}
	h->a[h->n++] = tag;
	a->s.tags++;
	return 1;
}

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

static size_t store_bytes(const struct aoa *a) { return a->s.array_bytes; }

static int store_check(const struct aoa *a, char *why, size_t len)
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

const struct dod_ops DOD_OPS_SYMBOL = {
	DOD_DESCRIPTOR,
	.source = "Niklas Gray, \"Allocation Adventures 2: Arrays of Arrays\" (Bitsquid, 2015): "
	          "vector<vector<unsigned>>, one malloc'd array per entity, x2 growth",
	AOA_CORE_OPS,
};
