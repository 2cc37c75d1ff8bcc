/* aoa_core.h - the entity table and the operations every arrays-of-arrays design shares
 * (containers/aoa_contract.h: entities are the core items, each with a list of 32-bit
 * tags), written once and compiled into each design's file (fixed8.c, vec_of_vecs.c,
 * linked_nodes.c, chunked.c). Source: Niklas Gray, "Allocation Adventures 2: Arrays of
 * Arrays" (Bitsquid, 2015): the TagComponent's entities; the slots and free list are Our
 * Machinery's "Bulk data" ones (containers/bulk/free_list.h, bulk/weak.h).
 *
 *   slots [ hdr | e1 | free | e3 | ... n_slots | (handed out before a clear) high | cap ]
 *   slot  { uint64_t key; uint32_t gen; uint32_t link; }   16 B: the entity's key, its
 *         generation (odd while live, bulk/weak.h) and, free, the next free slot
 *   hdr   [ h0 | h1 | h2 | ... ]   the design's per-entity header (AOA_HDR), parallel to
 *         the slots: {n; tags[8]} (fixed8), {array, n, cap} (vec_of_vecs), the first
 *         node of a chain (linked_nodes, chunked)
 *
 * An entity's handle is the weak pointer {slot, generation}: stale after its entity is
 * destroyed (erase_n, clear), DOD_ERANGE past the slots, DOD_EFREE for a free slot.
 * Invariants (aoa_check, then the design's store_check): slot 0 is the free-list header
 * (generation 0); 1 <= n_slots <= high <= cap and high <= hdr_cap; the free list holds exactly the
 * n_slots - 1 - live free slots (bulk_check_free_list, bulk_check_gens); the header of
 * every slot below n_slots that is not live is empty (no tags), so the walk visits slots
 * [1, n_slots) without reading a generation.
 *
 * Costs: create O(capacity); insert_n O(n) amortized (slots and headers grow x2 by
 * realloc, counted in dod_growth); erase_n O(n + the tags it drops); lookup O(1) a
 * handle; iterate O(n_slots); clear O(n_slots + tags). Every tags operation first checks
 * every entity reference of its batch (one pass over their generations: a bad one fails
 * the batch before anything changes), then runs the design's loop. add_n takes back what
 * it added if memory runs out halfway (tag_undo), so it is all or nothing too.
 *
 * A design file defines, before including this header, AOA_HDR (its header type),
 * struct aoa_store (its tag storage) and AOA_MAX_TAGS (0: no limit; then tag_add may
 * fail with DOD_ENOMEM or DOD_EFULL and must have a tag_undo), and after it the hooks
 * declared below (static: they inline into the loops here).
 */
#ifndef DOD_AOA_CORE_H
#define DOD_AOA_CORE_H

#include <stdbool.h>
#include <stdlib.h>

#include "alloc/realloc.h"
#include "bulk/free_list.h"
#include "bulk/weak.h"
#include "contract.h"
#include "dod_common.h"

struct aoa_slot {
	uint64_t key;
	uint32_t gen, link; /* link: the next free slot while free (0 ends the list) */
};

struct aoa {
	struct aoa_slot *slots;
	AOA_HDR *hdr;
	size_t cap, hdr_cap;        /* slots and headers allocated */
	size_t n_slots, high, live; /* as bulk/free_list.h */
	struct aoa_store s;         /* the design's tag storage */
};

/* ---- the design's hooks ---- */
/* Its storage for an empty container; on failure it has freed what it took. 0 or
 * DOD_ENOMEM. */
static int store_create(struct aoa *a, size_t capacity_entities);
static void store_destroy(struct aoa *a);      /* every tag and buffer it holds */
static void hdr_init(struct aoa *a, uint32_t i); /* header of a new entity: no tags */
static void hdr_release(struct aoa *a, uint32_t i); /* drops entity i's tags: empty */
static bool hdr_empty(const struct aoa *a, uint32_t i);
/* Every entity's tags dropped, every header of [1, n_slots) empty. */
static void store_clear(struct aoa *a);
static void batch_begin(struct aoa *a);        /* an add_n batch starts (undo bookkeeping) */
/* Entity i gets tag: 1 added, 0 refused (it holds AOA_MAX_TAGS), or DOD_ENOMEM,
 * DOD_EFULL with nothing changed by this call. */
static int tag_add(struct aoa *a, uint32_t i, uint32_t tag);
/* One occurrence of tag taken from entity i: 1, or 0 when it holds none. */
static int tag_remove(struct aoa *a, uint32_t i, uint32_t tag);
static bool tag_has(const struct aoa *a, uint32_t i, uint32_t tag);
/* Entity i's tags: the first room of them to out; returns how many it holds. */
static size_t tags_list(const struct aoa *a, uint32_t i, uint32_t *out, size_t room);
static uint64_t walk(const struct aoa *a);     /* dod_tags_ops.walk_sum */
/* tags and unit_bytes of dod_tags_memory. */
static void store_memory(const struct aoa *a, struct dod_tags_memory *m);
static size_t store_bytes(const struct aoa *a); /* heap bytes beyond slots and headers */
static int store_check(const struct aoa *a, char *why, size_t len);
#if !AOA_MAX_TAGS
/* Takes back the latest tag_add to entity i of the current batch. */
static void tag_undo(struct aoa *a, uint32_t i);
#endif
/* Optional (a design defines AOA_TIDY): a storage that reorganizes itself a bounded
 * amount per access (chunked.c's chunk8_sorted: steps of a sort of its chunks).
 * store_tidy runs at the end of every insert_n, erase_n, add_n and remove_n that
 * succeeded, with the batch's item count (never inside a batch, so add_n's undo sees the
 * buffer as its takes left it); tidy_reset after clear. */
#ifdef AOA_TIDY
static void store_tidy(struct aoa *a, size_t items);
static void tidy_reset(struct aoa *a);
#else
static inline void store_tidy(struct aoa *a, size_t items) { (void)a, (void)items; }
static inline void tidy_reset(struct aoa *a) { (void)a; }
#endif

/* ---- the entity table ---- */

static uint32_t aoa_link(const void *c, uint32_t i)
{
	return ((const struct aoa *)c)->slots[i].link;
}
static void aoa_set_link(void *c, uint32_t i, uint32_t next)
{
	((struct aoa *)c)->slots[i].link = next;
}
static uint32_t *aoa_gen(void *c, uint32_t i) { return &((struct aoa *)c)->slots[i].gen; }

/* Room for want slots and headers. 0 or DOD_ENOMEM (a grown array keeps its capacity). */
static int aoa_reserve(struct aoa *a, size_t want)
{
	int err = dod_grow_geometric((void **)&a->slots, &a->cap, want, sizeof *a->slots,
	                             (size_t)BULK_MAX_SLOTS + 1);
	if (!err)
		err = dod_grow_geometric((void **)&a->hdr, &a->hdr_cap, want, sizeof *a->hdr,
		                         (size_t)BULK_MAX_SLOTS + 1);
	return err;
}

static int aoa_create(void **out, size_t capacity_elems)
{
	if (capacity_elems > BULK_MAX_SLOTS - 1)
		return DOD_EINVAL;
	struct aoa *a = calloc(1, sizeof *a);
	if (!a)
		return DOD_ENOMEM;
	int err = aoa_reserve(a, capacity_elems + 1);
	if (!err)
		err = store_create(a, capacity_elems);
	if (err) {
		free(a->slots);
		free(a->hdr);
		free(a);
		return err;
	}
	a->slots[0] = (struct aoa_slot){0, 0, 0};
	hdr_init(a, 0);
	a->n_slots = a->high = 1;
	*out = a;
	return DOD_OK;
}

static void aoa_destroy(void *c)
{
	struct aoa *a = c;
	if (!a)
		return;
	store_destroy(a);
	free(a->slots);
	free(a->hdr);
	free(a);
}

/* n entities, no tags. All or nothing: the room is reserved first. */
static int aoa_insert_n(void *c, size_t n, uint64_t first_key, uint64_t *handles_out)
{
	struct aoa *a = c;
	size_t fresh;
	int err = bulk_fresh_slots(a->n_slots, a->live, n, &fresh);
	if (!err)
		err = aoa_reserve(a, a->n_slots + fresh);
	if (err)
		return err;
	for (size_t k = 0; k < n; k++) {
		uint32_t i = bulk_slot_take(a, &a->n_slots, &a->high, aoa_link, aoa_set_link, aoa_gen);
		uint32_t g = bulk_gen_next(a->slots[i].gen);
		a->slots[i].gen = g;
		a->slots[i].key = first_key + k;
		hdr_init(a, i);
		if (handles_out)
			handles_out[k] = bulk_weak(i, g);
	}
	a->live += n;
	store_tidy(a, n);
	return DOD_OK;
}

/* Destroys the entities and their tags, all or nothing (a repeat: DOD_EFREE). */
static int aoa_erase_n(void *c, const uint64_t *hs, size_t n)
{
	struct aoa *a = c;
	int err = bulk_weak_check_batch(hs, n, a->n_slots, aoa_gen, a);
	if (err)
		return err;
	for (size_t k = 0; k < n; k++) {
		uint32_t i = bulk_weak_id(hs[k]);
		hdr_release(a, i);
		a->slots[i].gen = bulk_gen_next(a->slots[i].gen);
		bulk_free_push(a, i, aoa_link, aoa_set_link);
	}
	a->live -= n;
	store_tidy(a, n);
	return DOD_OK;
}

/* The entities' keys in slot order, free slots skipped without a branch. */
static uint64_t aoa_iterate_sum(const void *c)
{
	const struct aoa *a = c;
	uint64_t sum = 0;
	for (size_t i = 1; i < a->n_slots; i++)
		sum += a->slots[i].key & (0 - (uint64_t)(a->slots[i].gen & BULK_LIVE));
	return sum;
}

static inline int aoa_ref_error(const struct aoa *a, uint64_t h)
{
	return bulk_weak_check_at(h, a->n_slots, aoa_gen, a);
}

static int aoa_lookup_sum(const void *c, const uint64_t *hs, size_t n, uint64_t *sum_out)
{
	const struct aoa *a = c;
	uint64_t sum = 0;
	for (size_t k = 0; k < n; k++) {
		int err = aoa_ref_error(a, hs[k]);
		if (err)
			return err;
		sum += a->slots[bulk_weak_id(hs[k])].key;
	}
	*sum_out = sum;
	return DOD_OK;
}

static size_t aoa_count_valid(const void *c, const uint64_t *hs, size_t n)
{
	size_t valid = 0;
	for (size_t k = 0; k < n; k++)
		valid += aoa_ref_error(c, hs[k]) == DOD_OK;
	return valid;
}

/* Every entity destroyed; their handles stay stale (generations kept below high). */
static int aoa_clear(void *c)
{
	struct aoa *a = c;
	store_clear(a);
	for (size_t i = 1; i < a->n_slots; i++)
		if (a->slots[i].gen & BULK_LIVE)
			a->slots[i].gen = bulk_gen_next(a->slots[i].gen);
	a->n_slots = 1;
	a->live = 0;
	aoa_set_link(a, 0, 0);
	tidy_reset(a);
	return DOD_OK;
}

static void aoa_dump_keys(const void *c, uint64_t *keys_out)
{
	const struct aoa *a = c;
	for (size_t i = 1; i < a->n_slots; i++)
		if (a->slots[i].gen & BULK_LIVE)
			*keys_out++ = a->slots[i].key;
}

static size_t aoa_size(const void *c) { return ((const struct aoa *)c)->live; }

static size_t aoa_footprint(const void *c)
{
	const struct aoa *a = c;
	return sizeof *a + a->cap * sizeof *a->slots + a->hdr_cap * sizeof *a->hdr + store_bytes(a);
}

static int aoa_check(const void *c, char *why, size_t len)
{
	const struct aoa *a = c;
	if (a->n_slots < 1 || a->n_slots > a->high || a->high > a->cap || a->high > a->hdr_cap ||
	    a->live > a->n_slots - 1)
		return dod_check_fail(why, len, "counts: n_slots %zu, high %zu, cap %zu, headers "
		                      "%zu, live %zu", a->n_slots, a->high, a->cap, a->hdr_cap, a->live);
	int err = bulk_check_gens(a, aoa_gen, a->n_slots, a->high, a->live, why, len);
	if (!err)
		err = bulk_check_free_list(a, aoa_link, aoa_gen, a->n_slots, a->n_slots - 1 - a->live,
		                           why, len);
	for (uint32_t i = 1; !err && i < a->n_slots; i++)
		if (!(a->slots[i].gen & BULK_LIVE) && !hdr_empty(a, i))
			err = dod_check_fail(why, len, "free slot %u keeps tags", i);
	return err ? err : store_check(a, why, len);
}

/* ---- the tags extension ---- */

/* The error of the first reference of ents that is not a live entity's, or 0. */
static int aoa_check_ents(const struct aoa *a, const uint64_t *ents, size_t n)
{
	for (size_t k = 0; k < n; k++) {
		int err = aoa_ref_error(a, ents[k]);
		if (err)
			return err;
	}
	return DOD_OK;
}

static int aoa_add_n(void *c, const uint64_t *ents, const uint32_t *tags, size_t n,
                     size_t *refused_out)
{
	struct aoa *a = c;
	int err = aoa_check_ents(a, ents, n);
	if (err)
		return err;
	size_t refused = 0;
	batch_begin(a);
	for (size_t k = 0; k < n; k++) {
		int r = tag_add(a, bulk_weak_id(ents[k]), tags[k]);
#if !AOA_MAX_TAGS
		if (r < 0) { /* nothing was refused: every tag before k was added */
			while (k--)
				tag_undo(a, bulk_weak_id(ents[k]));
			return r;
		}
#endif
		refused += r == 0;
	}
	if (refused_out)
		*refused_out = refused;
	store_tidy(a, n);
	return DOD_OK;
}

static int aoa_remove_n(void *c, const uint64_t *ents, const uint32_t *tags, size_t n,
                        size_t *removed_out)
{
	struct aoa *a = c;
	int err = aoa_check_ents(a, ents, n);
	if (err)
		return err;
	size_t removed = 0;
	for (size_t k = 0; k < n; k++)
		removed += (size_t)tag_remove(a, bulk_weak_id(ents[k]), tags[k]);
	if (removed_out)
		*removed_out = removed;
	store_tidy(a, n);
	return DOD_OK;
}

static int aoa_has_n(const void *c, const uint64_t *ents, const uint32_t *tags, size_t n,
                     size_t *found_out)
{
	const struct aoa *a = c;
	int err = aoa_check_ents(a, ents, n);
	if (err)
		return err;
	size_t found = 0;
	for (size_t k = 0; k < n; k++)
		found += tag_has(a, bulk_weak_id(ents[k]), tags[k]);
	*found_out = found;
	return DOD_OK;
}

static uint64_t aoa_walk_sum(const void *c) { return walk(c); }

static int aoa_tags_of(const void *c, uint64_t ent, uint32_t *tags_out, size_t room,
                       size_t *count_out)
{
	const struct aoa *a = c;
	int err = aoa_ref_error(a, ent);
	if (err)
		return err;
	*count_out = tags_list(a, bulk_weak_id(ent), tags_out, room);
	return DOD_OK;
}

static void aoa_memory(const void *c, struct dod_tags_memory *out)
{
	store_memory(c, out);
	out->held_bytes = aoa_footprint(c);
}

static const struct dod_tags_ops aoa_tags_ops = {
	.version = DOD_TAGS_OPS_VERSION,
	.max_tags = AOA_MAX_TAGS,
	.add_n = aoa_add_n,
	.remove_n = aoa_remove_n,
	.has_n = aoa_has_n,
	.walk_sum = aoa_walk_sum,
	.tags_of = aoa_tags_of,
	.memory = aoa_memory,
};

/* The ops table's core part: a design file's table is
 *   { DOD_DESCRIPTOR, .source = ..., AOA_CORE_OPS };  */
#define AOA_CORE_OPS                                                                     \
	.max_elems = BULK_MAX_SLOTS - 1, .create = aoa_create, .destroy = aoa_destroy,       \
	.insert_n = aoa_insert_n, .iterate_sum = aoa_iterate_sum, .lookup_sum = aoa_lookup_sum, \
	.erase_n = aoa_erase_n, .count_valid = aoa_count_valid, .clear = aoa_clear,          \
	.dump_keys = aoa_dump_keys, .size = aoa_size, .footprint_bytes = aoa_footprint,      \
	.check = aoa_check, .tags = &aoa_tags_ops

#endif
