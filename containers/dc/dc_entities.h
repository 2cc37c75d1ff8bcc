/* dc_entities.h - the entity table every DataComponent container (containers/dc/,
 * dc_contract.h) keeps its components in: slots with generations and a free list, the
 * core operations of containers/contract.h over them, and the helpers the containers' own
 * batch loops call. Written once, as static inline functions in C that also compiles as
 * C++ (dc_naive.cpp uses it), so each container's loops inline them.
 *
 *   slots [ {key, gen, next} | {key, gen, next} | ... n_slots | unused to cap ]  16 B each
 *   comps [ component 0      | component 1      | ... ]        comp_bytes each, parallel
 *
 *   handle = gen << 32 | index      a live slot: next == DC_LIVE
 *   free_head -> slot -> slot -> DC_NIL   free slots (LIFO), next = the next free index
 *
 * A container's struct starts with a struct dc_ents, so the core operations below take
 * the container itself. Its component (comps[i], comp_bytes) is all zeros when empty:
 * insert_n's entities get zeroed components; the container frees a component's memory
 * before its slot is released. Erase bumps the slot's generation (32 bits: a handle of an
 * erased entity is DOD_ESTALE until the slot was reused 2^32 times), clear erases every
 * entity (so old handles stay detectable), a free slot is issued again.
 *
 * Invariants (dc_ents_check): n_slots <= cap, live + n_free == n_slots, the free list holds
 * exactly the n_free slots that are not live, no cycle, no slot left marked (DC_MARK:
 * erase_n's mark of its batch).
 * Costs: insert O(1) amortized (slots and comps grow x2 by realloc, counted in
 * dod_growth), handle check O(1), iterate O(n_slots), clear O(n_slots).
 */
#ifndef DOD_DC_ENTITIES_H
#define DOD_DC_ENTITIES_H

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "alloc/realloc.h"
#include "contract.h"

#define DC_LIVE UINT32_C(0xFFFFFFFF) /* next of a live slot */
#define DC_MARK UINT32_C(0xFFFFFFFE) /* next of a live slot in erase_n's batch */
#define DC_NIL UINT32_C(0xFFFFFFFD)  /* ends the free list */
#define DC_MAX_SLOTS ((size_t)DC_NIL) /* indices 0 .. DC_NIL - 1 */

struct dc_slot {
	uint64_t key;
	uint32_t gen;
	uint32_t next; /* DC_LIVE, DC_MARK, or the next free slot / DC_NIL */
};

struct dc_ents {
	char *slots, *comps;    /* struct dc_slot each; comp_bytes each */
	size_t comp_bytes;
	size_t n_slots, cap, live, n_free;
	uint32_t free_head;
};

static inline struct dc_slot *dc_slot_at(const struct dc_ents *e, size_t i)
{
	return (struct dc_slot *)(void *)(e->slots + i * sizeof(struct dc_slot));
}
static inline void *dc_comp_at(const struct dc_ents *e, size_t i)
{
	return e->comps + i * e->comp_bytes;
}
static inline size_t dc_index(uint64_t h) { return (size_t)(h & UINT32_MAX); }

/* An empty table with room for cap slots. Returns 0, DOD_EINVAL (cap too large) or
 * DOD_ENOMEM (e is then safe to free). */
static inline int dc_ents_init(struct dc_ents *e, size_t comp_bytes, size_t cap)
{
	memset(e, 0, sizeof *e);
	e->comp_bytes = comp_bytes;
	e->free_head = DC_NIL;
	if (cap > DC_MAX_SLOTS)
		return DOD_EINVAL;
	if (!cap)
		return DOD_OK;
	e->slots = (char *)malloc(cap * sizeof(struct dc_slot));
	e->comps = (char *)malloc(cap * comp_bytes);
	if (!e->slots || !e->comps)
		return DOD_ENOMEM;
	e->cap = cap;
	return DOD_OK;
}

static inline void dc_ents_free(struct dc_ents *e)
{
	free(e->slots);
	free(e->comps);
}

/* 0 when h names a live entity, else DOD_ERANGE, DOD_ESTALE or DOD_EFREE (free, or marked:
 * a repeat in erase_n's batch). */
static inline int dc_ents_error(const struct dc_ents *e, uint64_t h)
{
	size_t i = dc_index(h);
	if (i >= e->n_slots)
		return DOD_ERANGE;
	const struct dc_slot *s = dc_slot_at(e, i);
	if (s->gen != (uint32_t)(h >> 32))
		return DOD_ESTALE;
	return s->next == DC_LIVE ? DOD_OK : DOD_EFREE;
}

/* Room for k more entities (free slots first): 0, DOD_EFULL or DOD_ENOMEM, unchanged but
 * for capacity. */
static inline int dc_ents_reserve(struct dc_ents *e, size_t k)
{
	size_t fresh = k > e->n_free ? k - e->n_free : 0;
	if (fresh > DC_MAX_SLOTS - e->n_slots)
		return DOD_EFULL;
	size_t want = e->n_slots + fresh;
	if (want <= e->cap)
		return DOD_OK;
	size_t cap = e->cap < 16 ? 16 : e->cap;
	while (cap < want)
		cap = cap > DC_MAX_SLOTS / 2 ? DC_MAX_SLOTS : 2 * cap;
	if (dod_buffer_grow(&e->slots, e->cap * sizeof(struct dc_slot),
	                    cap * sizeof(struct dc_slot), 0) ||
	    dod_buffer_grow(&e->comps, e->cap * e->comp_bytes, cap * e->comp_bytes, 0))
		return DOD_ENOMEM; /* the slots may have grown: the content did not change */
	e->cap = cap;
	return DOD_OK;
}

/* A live entity of key (room reserved), its component zeroed; returns its handle. */
static inline uint64_t dc_ents_take(struct dc_ents *e, uint64_t key)
{
	size_t i;
	if (e->free_head != DC_NIL) {
		i = e->free_head;
		e->free_head = dc_slot_at(e, i)->next;
		e->n_free--;
	} else {
		i = e->n_slots++;
		dc_slot_at(e, i)->gen = 0;
	}
	struct dc_slot *s = dc_slot_at(e, i);
	s->key = key;
	s->next = DC_LIVE;
	memset(dc_comp_at(e, i), 0, e->comp_bytes);
	e->live++;
	return (uint64_t)s->gen << 32 | i;
}

/* The entity in slot i dies (its component already freed): generation bumped, slot on the
 * free list. */
static inline void dc_ents_release(struct dc_ents *e, size_t i)
{
	struct dc_slot *s = dc_slot_at(e, i);
	s->gen++;
	s->next = e->free_head;
	e->free_head = (uint32_t)i;
	e->n_free++;
	e->live--;
}

/* erase_n's first pass: every handle live and distinct (each is marked; a repeat finds its
 * mark: DOD_EFREE), or its error with every mark removed. The caller then frees each
 * component and calls dc_ents_release (which overwrites the mark). */
static inline int dc_ents_mark(struct dc_ents *e, const uint64_t *hs, size_t n)
{
	for (size_t k = 0; k < n; k++) {
		int err = dc_ents_error(e, hs[k]);
		if (err) {
			for (size_t j = 0; j < k; j++)
				dc_slot_at(e, dc_index(hs[j]))->next = DC_LIVE;
			return err;
		}
		dc_slot_at(e, dc_index(hs[k]))->next = DC_MARK;
	}
	return DOD_OK;
}

/* ---- the checks every DataComponent operation makes before it changes anything ---- */

static inline int dc_type_ok(uint32_t t) { return t >= DOD_DC_BOOL && t < DOD_DC_N_TYPES; }
/* Strings and float arrays: values with a payload of their own. */
static inline int dc_has_payload(uint32_t t) { return t == DOD_DC_STRING || t == DOD_DC_FLOATS; }
/* The payload's bytes of a value (0 for bool and float). */
static inline size_t dc_payload_bytes(const struct dod_dc_value *v)
{
	return v->type == DOD_DC_STRING ? v->n : v->type == DOD_DC_FLOATS ? (size_t)v->n * 4 : 0;
}

/* 0 when set s can be applied: a live entity (else its error), DOD_EINVAL for key 0, no
 * path, a bad type, or a payload with no data. */
static inline int dc_set_error(const struct dc_ents *e, const struct dod_dc_set *s)
{
	int err = dc_ents_error(e, s->entity);
	if (err)
		return err;
	if (!s->key || !s->path || !dc_type_ok(s->value.type) ||
	    (dc_has_payload(s->value.type) && s->value.n && !s->value.s))
		return DOD_EINVAL;
	return DOD_OK;
}

/* The same for a get: a live entity, DOD_EINVAL for key 0, no path or a bad type. */
static inline int dc_get_error(const struct dc_ents *e, const struct dod_dc_get *g)
{
	int err = dc_ents_error(e, g->entity);
	if (err)
		return err;
	return !g->key || !g->path || !dc_type_ok(g->type) ? DOD_EINVAL : DOD_OK;
}

/* ---- what every container's batches share ---- */

/* A container's scratch buffer for its batches (set_n's arrays, copy_n's copies), kept
 * between calls so a batch allocates it only when it grows. */
struct dc_scratch {
	void *p;
	size_t bytes;
};
/* s holds at least bytes: 0 or DOD_ENOMEM (unchanged). Grown by dod_buffer_grow, so
 * dod_growth counts it as every container buffer's growth. */
static inline int dc_scratch_room(struct dc_scratch *s, size_t bytes)
{
	if (bytes <= s->bytes)
		return DOD_OK;
	char *p = (char *)s->p;
	if (dod_buffer_grow(&p, s->bytes, bytes, 0))
		return DOD_ENOMEM;
	s->p = p;
	s->bytes = bytes;
	return DOD_OK;
}

/* *out = a zeroed container of container_bytes starting with its table (components of
 * comp_bytes, cap reserved). Returns 0, DOD_EINVAL or DOD_ENOMEM. */
static inline int dc_create(void **out, size_t container_bytes, size_t comp_bytes, size_t cap)
{
	struct dc_ents *e = (struct dc_ents *)calloc(1, container_bytes);
	if (!e)
		return DOD_ENOMEM;
	int err = dc_ents_init(e, comp_bytes, cap);
	if (err) {
		dc_ents_free(e);
		free(e);
		return err;
	}
	*out = e;
	return DOD_OK;
}

/* copy_n's checks before it allocates: every source live (else its error), room for n
 * entities. */
static inline int dc_copy_check(struct dc_ents *e, const uint64_t *src, size_t n)
{
	for (size_t k = 0; k < n; k++) {
		int err = dc_ents_error(e, src[k]);
		if (err)
			return err;
	}
	return dc_ents_reserve(e, n);
}

/* get_sum_n and get_n (dod_dc_ops) of a container whose
 *     static int get_one(const void *c, const struct dod_dc_get *g, struct dod_dc_value *out)
 * reads one value or returns its error: the two loops, written once, get_one inlined. */
#define DC_GET_LOOPS(get_sum_n, get_n, get_one)                                             \
	static int get_sum_n(const void *c, const struct dod_dc_get *gets, size_t n,              \
	                     uint64_t *sum_out)                                                  \
	{                                                                                        \
		uint64_t sum = 0;                                                                    \
		for (size_t k = 0; k < n; k++) {                                                     \
			struct dod_dc_value v;                                                           \
			int err = get_one(c, &gets[k], &v);                                              \
			if (err)                                                                         \
				return err;                                                                  \
			sum += dod_dc_value_sum(&v);                                                     \
		}                                                                                    \
		*sum_out = sum;                                                                      \
		return DOD_OK;                                                                       \
	}                                                                                        \
	static int get_n(const void *c, const struct dod_dc_get *gets, size_t n,                  \
	                 struct dod_dc_value *out)                                               \
	{                                                                                        \
		for (size_t k = 0; k < n; k++) {                                                     \
			int err = get_one(c, &gets[k], &out[k]);                                         \
			if (err)                                                                         \
				return err;                                                                  \
		}                                                                                    \
		return DOD_OK;                                                                       \
	}

/* ---- the core operations over the entities (c: a container starting with dc_ents) ---- */

static inline uint64_t dc_iterate_sum(const void *c)
{
	const struct dc_ents *e = (const struct dc_ents *)c;
	uint64_t sum = 0;
	for (size_t i = 0; i < e->n_slots; i++) {
		const struct dc_slot *s = dc_slot_at(e, i);
		sum += s->next == DC_LIVE ? s->key : 0;
	}
	return sum;
}

static inline int dc_lookup_sum(const void *c, const uint64_t *hs, size_t n, uint64_t *sum_out)
{
	const struct dc_ents *e = (const struct dc_ents *)c;
	uint64_t sum = 0;
	for (size_t k = 0; k < n; k++) {
		int err = dc_ents_error(e, hs[k]);
		if (err)
			return err;
		sum += dc_slot_at(e, dc_index(hs[k]))->key;
	}
	*sum_out = sum;
	return DOD_OK;
}

static inline size_t dc_count_valid(const void *c, const uint64_t *hs, size_t n)
{
	size_t valid = 0;
	for (size_t k = 0; k < n; k++)
		valid += dc_ents_error((const struct dc_ents *)c, hs[k]) == DOD_OK;
	return valid;
}

static inline void dc_dump_keys(const void *c, uint64_t *keys_out)
{
	const struct dc_ents *e = (const struct dc_ents *)c;
	for (size_t i = 0; i < e->n_slots; i++)
		if (dc_slot_at(e, i)->next == DC_LIVE)
			*keys_out++ = dc_slot_at(e, i)->key;
}

/* insert_n: n entities without values. */
static inline int dc_insert_n(void *c, size_t n, uint64_t first_key, uint64_t *handles_out)
{
	struct dc_ents *e = (struct dc_ents *)c;
	int err = dc_ents_reserve(e, n);
	for (size_t k = 0; !err && k < n; k++) {
		uint64_t h = dc_ents_take(e, first_key + k);
		if (handles_out)
			handles_out[k] = h;
	}
	return err;
}

static inline size_t dc_size(const void *c) { return ((const struct dc_ents *)c)->live; }

/* Bytes of the table itself (slots and components at capacity). */
static inline size_t dc_ents_bytes(const struct dc_ents *e)
{
	return e->cap * (sizeof(struct dc_slot) + e->comp_bytes);
}

/* The table's invariants (file comment). */
static inline int dc_ents_check(const struct dc_ents *e, char *why, size_t len)
{
	if (e->n_slots > e->cap || e->live + e->n_free != e->n_slots)
		return dod_check_fail(why, len, "%zu slots (cap %zu), %zu live + %zu free", e->n_slots,
		                      e->cap, e->live, e->n_free);
	size_t steps = 0, live = 0;
	for (uint32_t i = e->free_head; i != DC_NIL; i = dc_slot_at(e, i)->next) {
		if (i >= e->n_slots || ++steps > e->n_free)
			return dod_check_fail(why, len, "free list: slot %u after %zu steps (%zu free, "
			                      "%zu slots): out of range or a cycle", i, steps, e->n_free,
			                      e->n_slots);
		uint32_t next = dc_slot_at(e, i)->next;
		if (next == DC_LIVE || next == DC_MARK)
			return dod_check_fail(why, len, "free list reaches live slot %u", i);
	}
	for (size_t i = 0; i < e->n_slots; i++) {
		if (dc_slot_at(e, i)->next == DC_MARK)
			return dod_check_fail(why, len, "slot %zu is left marked", i);
		live += dc_slot_at(e, i)->next == DC_LIVE;
	}
	if (steps != e->n_free || live != e->live)
		return dod_check_fail(why, len, "free list %zu of %zu free; %zu live slots, live %zu",
		                      steps, e->n_free, live, e->live);
	return DOD_OK;
}

#endif
