/* packed_array.c - Bitsquid's "ID lookup table" (Niklas Gray, bitsquid blog, "Managing
 * Decoupling Part 4: The ID Lookup Table", 2011), in C, growable, and answering the
 * contract (containers/contract.h). The struct is in packed_array.h.
 *
 *   objs  [ id | item ][ id | item ] ...   n objects, packed: iteration order; each
 *                                           object stores its own id (no meta array)
 *   ix    [ id | index | next ] ...         n_slots entries of 16 bytes:
 *            live -> {id, place in objs, PA_END}
 *            free -> {id of its last item, PA_END, next entry of the free queue}
 *   deq -> free -> free -> ... -> enq       FIFO: erase enqueues at the back, insert
 *                                           dequeues at the front (the post's
 *                                           _freelist_enqueue / _freelist_dequeue)
 *
 * The id (the handle) is generation << 32 | slot: the post's 32-bit id kept the slot in
 * its low 16 bits and added 0x10000 on every add; here the slot takes the contract's 32
 * bits and the generation the high 32, added as 1 << 32 on every insert into the slot,
 * never on erase (as the post). A new entry starts at id = slot, so the first id issued
 * for slot s has generation 1. A handle is valid iff ix[slot].id equals it and the entry
 * is live (index != PA_END): the post's has(). An erased item's handle is then rejected
 * (its entry is free) until the slot is reused, and after that because the id moved on;
 * the generation is 32 bits, so after 2^32 reuses of a slot its old ids come back (the
 * FIFO queue makes a slot's reuse as late as the free entries allow).
 * Growth: the post's fixed MAX_OBJECTS index is a growing array here (x2 by realloc,
 * containers/alloc/realloc.h); an empty queue appends an entry.
 *
 * Invariants (checked by check_all):
 *   - n <= n_slots <= slot_cap, n <= cap, n_slots <= PA_MAX_ELEMS;
 *   - every entry's id names its own slot (pa_id_slot(ix[s].id) == s);
 *   - for every d < n: objs[d].id names a live entry whose index is d, whose id equals
 *     objs[d].id and whose next is PA_END; exactly n entries are live;
 *   - the n_slots - n free entries form one queue from deq to enq through next, ending in
 *     PA_END (deq == enq == PA_END iff it is empty).
 * Costs: insert O(1) amortized, lookup and erase O(1) (swap-and-pop: the last object moves
 * into the hole; its stored id says which entry to fix), clear O(n) (every live entry
 * enqueued; ids kept, so old handles stay rejected), reset O(1) (the index forgotten:
 * generations restart, an old handle may match again). Memory: 16 bytes per slot (index
 * entry) + elem + 8 per object (the stored id), capacities x2: elem + 24 bytes per live
 * item when no slot is free. Compiled once per size class (-DELEM_BYTES=N).
 */
#include "id_lookup/packed_array.h"

#include <stdbool.h>
#include <stdlib.h>

#include "alloc/realloc.h"
#include "contract.h"
#include "stale_hook.h"

#define PA struct SFX(pa)
#define OBJ struct SFX(pa_obj)

static int pa_create(void **out, size_t capacity_elems)
{
	if (capacity_elems > PA_MAX_ELEMS)
		return DOD_EINVAL;
	PA *m = calloc(1, sizeof *m);
	if (!m)
		return DOD_ENOMEM;
	m->deq = m->enq = PA_END;
	if (dod_grow_geometric((void **)&m->objs, &m->cap, capacity_elems, sizeof *m->objs,
	                       PA_MAX_ELEMS) ||
	    dod_grow_geometric((void **)&m->ix, &m->slot_cap, capacity_elems, sizeof *m->ix,
	                       PA_MAX_ELEMS)) {
		free(m->objs);
		free(m);
		return DOD_ENOMEM;
	}
	*out = m;
	return DOD_OK;
}

static void pa_destroy(void *c)
{
	PA *m = c;
	if (!m)
		return;
	free(m->objs);
	free(m->ix);
	free(m);
}

/* Handle -> place in objs: the post's has() then lookup(). Takes the arrays so a batch
 * loop keeps them in registers. */
static inline bool resolve(const struct pa_index *ix, size_t n_slots, uint64_t h, uint32_t *d)
{
	uint32_t s = pa_id_slot(h);
	if (s >= n_slots)
		return false;
	struct pa_index e = ix[s];
	if (e.id != h || e.index == PA_END)
		return false;
	*d = e.index;
	return true;
}

/* The reason h is not valid (0: it is): DOD_ERANGE (slot never used), DOD_ESTALE (the
 * slot was reused since, or the item was erased: its entry is free), DOD_EFREE (seen
 * earlier in the batch erase_n is checking). */
static int check_handle(const PA *m, uint64_t h)
{
	uint32_t s = pa_id_slot(h);
	if (s >= m->n_slots)
		return DOD_ERANGE;
	const struct pa_index *e = &m->ix[s];
	if (e->id != h || e->index == PA_END)
		return DOD_ESTALE;
	return e->next == PA_MARK ? DOD_EFREE : DOD_OK;
}

/* Room for n more objects and the entries they may need; unchanged on error (an array
 * grown before the other failed is merely larger). */
static int make_room(PA *m, size_t n)
{
	if (n > PA_MAX_ELEMS - m->n)
		return DOD_EFULL;
	int err = dod_grow_geometric((void **)&m->objs, &m->cap, m->n + n, sizeof *m->objs,
	                             PA_MAX_ELEMS);
	if (err)
		return err;
	size_t free_slots = m->n_slots - m->n;
	size_t new_slots = n > free_slots ? n - free_slots : 0;
	return dod_grow_geometric((void **)&m->ix, &m->slot_cap, m->n_slots + new_slots,
	                          sizeof *m->ix, PA_MAX_ELEMS);
}

/* The post's add(): the front of the free queue, or a new entry (id = its slot), gets the
 * next generation and points at objs[d]; the object stores the id. Room is the caller's. */
static inline uint64_t add(PA *m, uint32_t d)
{
	uint32_t s = m->deq;
	if (s != PA_END) {
		m->deq = m->ix[s].next;
		if (s == m->enq)
			m->enq = PA_END;
	} else {
		s = (uint32_t)m->n_slots++;
		m->ix[s].id = s;
	}
	struct pa_index *e = &m->ix[s];
	e->id += PA_GEN_ADD;
	e->index = d;
	e->next = PA_END;
	m->objs[d].id = e->id;
	return e->id;
}

static int pa_insert_n(void *c, size_t n, uint64_t first_key, uint64_t *handles_out)
{
	PA *m = c;
	int err = make_room(m, n);
	if (err)
		return err;
	for (size_t k = 0; k < n; k++) {
		uint64_t id = add(m, (uint32_t)(m->n + k));
		SFX(dod_elem_init)(&m->objs[m->n + k].item, first_key + k);
		if (handles_out)
			handles_out[k] = id;
	}
	m->n += n;
	return DOD_OK;
}

/* Puts free entry s at the back of the queue. */
static inline void enqueue(PA *m, uint32_t s)
{
	m->ix[s].next = PA_END;
	if (m->enq == PA_END)
		m->deq = s;
	else
		m->ix[m->enq].next = s;
	m->enq = s;
}

/* The post's remove(): the last object moves into the hole and its entry, found through
 * the id the object stores, follows it; the entry goes free, to the back of the queue. */
static void remove_valid(PA *m, uint32_t s)
{
	struct pa_index *e = &m->ix[s];
	uint32_t d = e->index;
	m->objs[d] = m->objs[--m->n];
	m->ix[pa_id_slot(m->objs[d].id)].index = d;
	e->index = PA_END;
	enqueue(m, s);
}

/* All or nothing without an allocation: pass 1 checks each handle and marks its entry's
 * next (a repeat then fails as DOD_EFREE), the marks are undone, pass 2 erases. */
static int pa_erase_n(void *c, const uint64_t *hs, size_t n)
{
	PA *m = c;
	size_t k;
	int err = DOD_OK;
	for (k = 0; k < n; k++) {
		if ((err = check_handle(m, hs[k])) != 0)
			break;
		m->ix[pa_id_slot(hs[k])].next = PA_MARK;
	}
	for (size_t j = 0; j < k; j++)
		m->ix[pa_id_slot(hs[j])].next = PA_END;
	if (err) {
		int own = check_handle(m, hs[k]); /* its own error, not one a mark caused */
		return own ? own : DOD_EFREE;
	}
	for (k = 0; k < n; k++)
		remove_valid(m, pa_id_slot(hs[k]));
	return DOD_OK;
}

static uint64_t pa_iterate_sum(const void *c)
{
	const PA *m = c;
	uint64_t sum = 0;
	for (size_t d = 0; d < m->n; d++)
		sum += m->objs[d].item.key;
	return sum;
}

static int pa_lookup_sum(const void *c, const uint64_t *hs, size_t n, uint64_t *sum_out)
{
	const PA *m = c;
	const struct pa_index *ix = m->ix;
	const OBJ *objs = m->objs;
	size_t n_slots = m->n_slots;
	uint64_t sum = 0;
	for (size_t k = 0; k < n; k++) {
		uint32_t d;
		if (!resolve(ix, n_slots, hs[k], &d))
			return check_handle(m, hs[k]);
		sum += objs[d].item.key;
	}
	*sum_out = sum;
	return DOD_OK;
}

static size_t pa_count_valid(const void *c, const uint64_t *hs, size_t n)
{
	const PA *m = c;
	size_t valid = 0;
	uint32_t d;
	for (size_t k = 0; k < n; k++)
		valid += resolve(m->ix, m->n_slots, hs[k], &d);
	return valid;
}

/* Every live entry freed and enqueued, in storage order; ids kept, so every old handle
 * is rejected (free entry) and stays so after reuse (the id moves on). O(n). */
static int pa_clear(void *c)
{
	PA *m = c;
	for (size_t d = 0; d < m->n; d++) {
		uint32_t s = pa_id_slot(m->objs[d].id);
		m->ix[s].index = PA_END;
		enqueue(m, s);
	}
	m->n = 0;
	return DOD_OK;
}

/* Forgets the index: O(1), and generations restart (a new entry's id is its slot), so an
 * old handle may match a new item undetected (as handle_map's reset). */
static int pa_reset(void *c)
{
	PA *m = c;
	m->n = m->n_slots = 0;
	m->deq = m->enq = PA_END;
	return DOD_OK;
}

static void pa_dump_keys(const void *c, uint64_t *keys_out)
{
	const PA *m = c;
	for (size_t d = 0; d < m->n; d++)
		keys_out[d] = m->objs[d].item.key;
}

static size_t pa_size(const void *c) { return ((const PA *)c)->n; }

static size_t pa_footprint(const void *c)
{
	const PA *m = c;
	return sizeof *m + m->cap * sizeof *m->objs + m->slot_cap * sizeof *m->ix;
}

/* The free queue: in bounds, free, acyclic, every free entry once, ending at enq. */
static int check_queue(const PA *m, char *why, size_t len)
{
	size_t n_free = 0, want = m->n_slots - m->n;
	uint32_t prev = PA_END;
	for (uint32_t s = m->deq; s != PA_END; s = m->ix[s].next) {
		if (s >= m->n_slots || m->ix[s].index != PA_END)
			return dod_check_fail(why, len, "free queue reaches %s entry %u",
			                      s >= m->n_slots ? "out-of-range" : "live", s);
		if (++n_free > want)
			return dod_check_fail(why, len, "free queue longer than the %zu free entries "
			                      "(a cycle)", want);
		prev = s;
	}
	if (n_free != want || prev != m->enq)
		return dod_check_fail(why, len, "free queue holds %zu of %zu free entries, ends at "
		                      "%u, enq %u", n_free, want, prev, m->enq);
	return DOD_OK;
}

/* Every invariant of the opening comment, with the first violation's reason. */
static int check_all(const void *c, char *why, size_t len)
{
	const PA *m = c;
	if (m->n > m->n_slots || m->n > m->cap || m->n_slots > m->slot_cap ||
	    m->n_slots > PA_MAX_ELEMS)
		return dod_check_fail(why, len, "counts: n %zu, cap %zu, n_slots %zu, slot_cap %zu",
		                      m->n, m->cap, m->n_slots, m->slot_cap);
	size_t live = 0;
	for (size_t s = 0; s < m->n_slots; s++) {
		if (pa_id_slot(m->ix[s].id) != s)
			return dod_check_fail(why, len, "ix[%zu].id names slot %u", s,
			                      pa_id_slot(m->ix[s].id));
		live += m->ix[s].index != PA_END;
	}
	if (live != m->n)
		return dod_check_fail(why, len, "%zu live entries for %zu objects", live, m->n);
	for (size_t d = 0; d < m->n; d++) {
		uint64_t id = m->objs[d].id;
		uint32_t s = pa_id_slot(id), got;
		if (s >= m->n_slots || m->ix[s].index != d || m->ix[s].id != id ||
		    m->ix[s].next != PA_END)
			return dod_check_fail(why, len, "objs[%zu].id %#llx: its entry does not point "
			                      "back at it", d, (unsigned long long)id);
		if (!resolve(m->ix, m->n_slots, id, &got) || got != d)
			return dod_check_fail(why, len, "the id of objs[%zu] does not resolve", d);
	}
	return check_queue(m, why, len);
}

/* Test hook (stale_hook.h): k more (insert, erase) cycles of the free entry of h. Each
 * cycle adds PA_GEN_ADD once (at insert), in uint64_t arithmetic that wraps the
 * generation mod 2^32 and never touches the slot bits, as add() does. */
int DOD_SKIP_REUSES(void *c, uint64_t h, uint64_t k)
{
	PA *m = c;
	uint32_t s = pa_id_slot(h);
	if (s >= m->n_slots || m->ix[s].index != PA_END)
		return DOD_EINVAL;
	m->ix[s].id += k * PA_GEN_ADD;
	return DOD_OK;
}

const struct dod_ops DOD_OPS_SYMBOL = {
	DOD_DESCRIPTOR,
	.source = "Niklas Gray, bitsquid blog, Managing Decoupling Part 4: The ID Lookup "
	          "Table (2011)",
	.max_elems = PA_MAX_ELEMS,
	.create = pa_create,
	.destroy = pa_destroy,
	.insert_n = pa_insert_n,
	.iterate_sum = pa_iterate_sum,
	.lookup_sum = pa_lookup_sum,
	.erase_n = pa_erase_n,
	.count_valid = pa_count_valid,
	.clear = pa_clear,
	.reset = pa_reset,
	.dump_keys = pa_dump_keys,
	.size = pa_size,
	.footprint_bytes = pa_footprint,
	.check = check_all,
};
