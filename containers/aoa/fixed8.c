/* fixed8.c - aoa_fixed8: every entity's tags in a fixed record {n; tags[8]}, one record an
 * entity, all in one buffer (Niklas Gray, "Allocation Adventures 2: Arrays of Arrays",
 * Bitsquid 2015: "the simplest solution: a fixed maximum of tags per entity";
 * containers/aoa_contract.h).
 *
 *   hdr   [ nil | {n; t0 .. t7} | {n; ...} | ... ]   36 B a record, parallel to the entity
 *                                                    slots (containers/aoa/aoa_core.h)
 *   walk  for each slot: tags[0 .. n)                 one record, one or two cache lines
 *
 * Invariants: n <= 8 in every record; a free slot's record has n = 0. Costs: add O(1) and
 * never allocates (an entity that holds 8 tags refuses a 9th: counted in add_n's
 * refused_out, the article's "fixed maximum"); remove and has O(8) (the last tag moves
 * into the removed one's place); the walk reads 36 B an entity whatever it holds, so the
 * record wastes space below the maximum (D2): 4 x tags / (36 x entities) of it is tags.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define AOA_MAX_TAGS 8
typedef struct {
	uint32_t n;
	uint32_t tags[AOA_MAX_TAGS];
} AOA_HDR;
struct aoa_store {
	size_t tags; /* stored, over every entity */
};

#include "aoa/aoa_core.h"
#include "aoa/tag_array.h" /* aoa_array_remove, has, list over {n; tags[8]} */

static int store_create(struct aoa *a, size_t capacity_entities)
{
	(void)capacity_entities;
	a->s.tags = 0;
	return DOD_OK;
}
static void store_destroy(struct aoa *a) { (void)a; }
static void hdr_init(struct aoa *a, uint32_t i) { a->hdr[i].n = 0; }
static void hdr_release(struct aoa *a, uint32_t i)
{
	a->s.tags -= a->hdr[i].n;
	a->hdr[i].n = 0;
}
static bool hdr_empty(const struct aoa *a, uint32_t i) { return a->hdr[i].n == 0; }
static void store_clear(struct aoa *a)
{
	for (size_t i = 1; i < a->n_slots; i++)
		a->hdr[i].n = 0;
	a->s.tags = 0;
}
static void batch_begin(struct aoa *a) { (void)a; }

static int tag_add(struct aoa *a, uint32_t i, uint32_t tag)
{
	AOA_HDR *h = &a->hdr[i];
	if (h->n == AOA_MAX_TAGS)
		return 0;
	h->tags[h->n++] = tag;
	a->s.tags++;
	return 1;
}

static int tag_remove(struct aoa *a, uint32_t i, uint32_t tag)
{
	AOA_HDR *h = &a->hdr[i];
	if (!aoa_array_remove(h->tags, &h->n, tag))
		return 0;
	a->s.tags--;
	return 1;
}

static bool tag_has(const struct aoa *a, uint32_t i, uint32_t tag)
{
	return aoa_array_has(a->hdr[i].tags, a->hdr[i].n, tag);
}

static size_t tags_list(const struct aoa *a, uint32_t i, uint32_t *out, size_t room)
{
	return aoa_array_list(a->hdr[i].tags, a->hdr[i].n, out, room);
}

static uint64_t walk(const struct aoa *a)
{
	uint64_t sum = 0;
	for (size_t i = 1; i < a->n_slots; i++) {
		const AOA_HDR *h = &a->hdr[i];
		for (uint32_t j = 0; j < h->n; j++)
			sum += h->tags[j];
	}
	return sum;
}

static void store_memory(const struct aoa *a, struct dod_tags_memory *m)
{
	m->tags = a->s.tags;
	m->unit_bytes = a->live * sizeof(AOA_HDR);
}

static size_t store_bytes(const struct aoa *a)
{
	(void)a;
	return 0; /* the records are the headers */
}

static int store_check(const struct aoa *a, char *why, size_t len)
{
	size_t tags = 0;
	for (uint32_t i = 1; i < a->n_slots; i++) {
		if (a->hdr[i].n > AOA_MAX_TAGS)
			return dod_check_fail(why, len, "entity slot %u holds %u tags", i, a->hdr[i].n);
		tags += a->hdr[i].n;
	}
	if (tags != a->s.tags)
		return dod_check_fail(why, len, "%zu tags in the records, count %zu", tags, a->s.tags);
	return DOD_OK;
}

const struct dod_ops DOD_OPS_SYMBOL = {
	DOD_DESCRIPTOR,
	.source = "Niklas Gray, \"Allocation Adventures 2: Arrays of Arrays\" (Bitsquid, 2015): "
	          "a fixed maximum, {n; tags[8]} per entity",
	AOA_CORE_OPS,
};
