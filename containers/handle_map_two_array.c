/* handle_map_two_array.c - the handle map the commenters of Jeff Kiah's "Game Engine
 * Containers - handle_map" (2016) proposed instead (Bitsquid's "ID lookup table"): two
 * arrays, the sparse index stored inside each dense object, no meta set and no type id.
 *
 *   objects [ item | slot ][ item | slot ] ...   n records, packed, iteration order;
 *                                                 slot = the item's index entry
 *   index   [ entry | entry | ... ]               s uint64 entries:
 *              live -> {dense index 32, generation 31, 0}
 *              free -> {next free 32,   generation 31, 1}
 *
 * A handle is {slot 32, generation 31, 0} (bit 63 never set on an issued handle). The
 * record is sizeof(item) + 4 rounded up to the item's 8-byte alignment, so the slot costs
 * 8 bytes per item where handle_map's meta set costs 4 (an 8-byte item doubles to 16:
 * iteration reads twice the bytes); the index entry costs 8 bytes as handle_map's sparse
 * entry does.
 *
 * Invariants (checked by check_all):
 *   - for every dense d < n: index[objects[d].slot] is live and its dense index is d;
 *   - exactly s - n entries are free, on one FIFO list from free_front to free_back
 *     ending in TWO_END (both TWO_END iff the list is empty);
 *   - objects[0, defrag_next) is sorted by key, all of them when not fragmented.
 * What it gives up against handle_map: a handle of another map aliases one of this map's
 * items undetected (no type id), and erase reads the moved record's slot from the record
 * rather than from a 4-byte meta array. Same O(1) insert, lookup and erase (swap-and-pop,
 * FIFO slot reuse), same defragment (insertion sort, fragmented flag, max_swaps), clear
 * (generations bumped) and reset (index forgotten) as handle_map, so the two compare
 * layouts, not algorithms. Generations are 31 bits: a slot's generation wraps after 2^31
 * erases (handle_map's 16-bit one after 65536). Costs: insert O(1) amortized (x2
 * realloc), lookup and erase O(1), clear O(slots), reset O(1), defragment O(n + moves).
 * Compiled once per size class (-DELEM_BYTES=N); everything but the ops table is static.
 */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "alloc/realloc.h"
#include "contract.h"
#include "dod_common.h"
#include "stale_hook.h"

#define TWO_END UINT32_C(0xFFFFFFFF)        /* end of the free list; never an index */
#define TWO_MAX_ELEMS UINT32_C(0xFFFFFFFE)  /* largest number of items and slots */
#define TWO_GEN_SHIFT 32                    /* generation: bits 32..62 */
#define TWO_GEN_MASK UINT32_C(0x7FFFFFFF)
#define TWO_FREE_BIT ((uint64_t)1 << 63)
#define TWO_INDEX_MASK ((uint64_t)UINT32_MAX)

struct SFX(two_obj) {
	DOD_ELEM item;
	uint32_t slot; /* the item's index entry: what handle_map keeps in its meta set */
};
#define OBJ struct SFX(two_obj)

struct SFX(two) {
	OBJ *objs;
	uint64_t *index;
	size_t n, cap;            /* objects: live, allocated */
	size_t n_slots, slot_cap; /* index entries: in use (live + free), allocated */
	uint32_t free_front, free_back;
	bool fragmented;          /* objects may be out of key order */
	size_t defrag_next;       /* objs[0, defrag_next) is sorted by key */
};
#define TWO struct SFX(two)

static inline uint64_t entry_make(uint32_t idx, uint32_t gen, bool free_bit)
{
	return (uint64_t)idx | (uint64_t)(gen & TWO_GEN_MASK) << TWO_GEN_SHIFT |
	       (free_bit ? TWO_FREE_BIT : 0);
}
static inline uint32_t entry_idx(uint64_t e) { return (uint32_t)e; }
static inline uint32_t entry_gen(uint64_t e) { return (uint32_t)(e >> TWO_GEN_SHIFT) & TWO_GEN_MASK; }
static inline bool entry_free(uint64_t e) { return (e & TWO_FREE_BIT) != 0; }

static int two_create(void **out, size_t capacity_elems)
{
	if (capacity_elems > TWO_MAX_ELEMS)
		return DOD_EINVAL;
	TWO *m = calloc(1, sizeof *m);
	if (!m)
		return DOD_ENOMEM;
	m->free_front = m->free_back = TWO_END;
	m->defrag_next = 1;
	if (dod_grow_geometric((void **)&m->objs, &m->cap, capacity_elems, sizeof *m->objs,
	                       TWO_MAX_ELEMS) ||
	    dod_grow_geometric((void **)&m->index, &m->slot_cap, capacity_elems,
	                       sizeof *m->index, TWO_MAX_ELEMS)) {
		free(m->objs);
		free(m);
		return DOD_ENOMEM;
	}
	*out = m;
	return DOD_OK;
}

static void two_destroy(void *c)
{
	TWO *m = c;
	if (!m)
		return;
	free(m->objs);
	free(m->index);
	free(m);
}

/* Handle -> dense index: after refusing a handle with the free bit, one compare of the
 * bits above the index checks the generation and that the entry is live (a free entry
 * carries bit 63, an issued handle never). */
static inline bool resolve(const uint64_t *index, size_t n_slots, uint64_t h, uint32_t *d)
{
	uint32_t i = entry_idx(h);
	if (i >= n_slots || (h & TWO_FREE_BIT))
		return false;
	uint64_t e = index[i];
	if ((e ^ h) >> TWO_GEN_SHIFT)
		return false;
	*d = entry_idx(e);
	return true;
}

/* The reason h is not valid (0: it is), for the errors the contract names. */
static int check_handle(const TWO *m, uint64_t h)
{
	uint32_t i = entry_idx(h);
	if (i >= m->n_slots)
		return DOD_ERANGE;
	uint64_t e = m->index[i];
	if (entry_free(h) || entry_free(e))
		return DOD_EFREE;
	return entry_gen(e) == entry_gen(h) ? DOD_OK : DOD_ESTALE;
}

/* Room for n more objects and the entries they may need; the map is unchanged on error
 * (an array grown before the other failed is merely larger). */
static int make_room(TWO *m, size_t n)
{
	if (n > TWO_MAX_ELEMS - m->n)
		return DOD_EFULL;
	int err = dod_grow_geometric((void **)&m->objs, &m->cap, m->n + n, sizeof *m->objs,
	                             TWO_MAX_ELEMS);
	if (err)
		return err;
	size_t free_slots = m->n_slots - m->n;
	size_t new_slots = n > free_slots ? n - free_slots : 0;
	return dod_grow_geometric((void **)&m->index, &m->slot_cap, m->n_slots + new_slots,
	                          sizeof *m->index, TWO_MAX_ELEMS);
}

/* Takes the oldest free entry (FIFO, as Bitsquid's enqueue/dequeue) or a new one for the
 * object at dense index d. Returns its handle. Room is the caller's. */
static inline uint64_t take_slot(TWO *m, uint32_t d)
{
	uint32_t slot, gen = 0;
	if (m->free_front != TWO_END) {
		slot = m->free_front;
		gen = entry_gen(m->index[slot]);
		m->free_front = slot == m->free_back ? TWO_END : entry_idx(m->index[slot]);
		if (m->free_front == TWO_END)
			m->free_back = TWO_END;
	} else {
		slot = (uint32_t)m->n_slots++;
	}
	m->index[slot] = entry_make(d, gen, false);
	m->objs[d].slot = slot;
	return entry_make(slot, gen, false);
}

static int two_insert_n(void *c, size_t n, uint64_t first_key, uint64_t *handles_out)
{
	TWO *m = c;
	int err = make_room(m, n);
	if (err)
		return err;
	for (size_t k = 0; k < n; k++) {
		uint64_t h = take_slot(m, (uint32_t)(m->n + k));
		SFX(dod_elem_init)(&m->objs[m->n + k].item, first_key + k);
		if (handles_out)
			handles_out[k] = h;
	}
	m->n += n;
	m->fragmented |= n > 0; /* appending keeps the sorted prefix: defrag_next stays */
	return DOD_OK;
}

static inline void fix_index(TWO *m, size_t d)
{
	uint32_t slot = m->objs[d].slot;
	m->index[slot] = (m->index[slot] & ~TWO_INDEX_MASK) | (uint32_t)d;
}

/* Erases the live entry slot: generation bumped (every handle to it is now stale), entry
 * appended to the free list, the last object moved into the hole (its own slot field
 * says which entry to fix: the commenters' point). */
static void erase_valid(TWO *m, uint32_t slot)
{
	uint64_t e = m->index[slot];
	uint32_t d = entry_idx(e);
	m->index[slot] = entry_make(TWO_END, entry_gen(e) + 1, true);
	if (m->free_back == TWO_END)
		m->free_front = slot;
	else
		m->index[m->free_back] = (m->index[m->free_back] & ~TWO_INDEX_MASK) | slot;
	m->free_back = slot;
	size_t last = m->n - 1;
	if (d != last) {
		m->objs[d] = m->objs[last];
		fix_index(m, d);
	}
	m->n = last;
	if (d < m->defrag_next) /* the object moved into d breaks the sorted prefix there */
		m->defrag_next = d > 1 ? d : 1;
	m->fragmented = true;
}

/* All or nothing as handle_map's erase_batch: pass 1 validates and marks each entry with
 * the free bit (a repeat then fails as DOD_EFREE), the marks are undone, pass 2 erases. */
static int two_erase_n(void *c, const uint64_t *hs, size_t n)
{
	TWO *m = c;
	size_t k;
	int err = DOD_OK;
	for (k = 0; k < n; k++) {
		if ((err = check_handle(m, hs[k])) != 0)
			break;
		m->index[entry_idx(hs[k])] |= TWO_FREE_BIT;
	}
	for (size_t j = 0; j < k; j++)
		m->index[entry_idx(hs[j])] &= ~TWO_FREE_BIT;
	if (err) {
		int own = check_handle(m, hs[k]);
		return own ? own : DOD_EFREE;
	}
	for (k = 0; k < n; k++)
		erase_valid(m, entry_idx(hs[k]));
	return DOD_OK;
}

static uint64_t two_iterate_sum(const void *c)
{
	const TWO *m = c;
	uint64_t sum = 0;
	for (size_t d = 0; d < m->n; d++)
		sum += m->objs[d].item.key;
	return sum;
}

static int two_lookup_sum(const void *c, const uint64_t *hs, size_t n, uint64_t *sum_out)
{
	const TWO *m = c;
	const uint64_t *index = m->index;
	const OBJ *objs = m->objs;
	size_t n_slots = m->n_slots;
	uint64_t sum = 0;
	for (size_t k = 0; k < n; k++) {
		uint32_t d;
		if (!resolve(index, n_slots, hs[k], &d))
			return check_handle(m, hs[k]);
		sum += objs[d].item.key;
	}
	*sum_out = sum;
	return DOD_OK;
}

static size_t two_count_valid(const void *c, const uint64_t *hs, size_t n)
{
	const TWO *m = c;
	size_t valid = 0;
	uint32_t d;
	for (size_t k = 0; k < n; k++)
		valid += resolve(m->index, m->n_slots, hs[k], &d);
	return valid;
}

/* Every entry free with its generation bumped, so every old handle is stale; the free
 * list rebuilt in slot order. O(slots). */
static int two_clear(void *c)
{
	TWO *m = c;
	size_t s = m->n_slots;
	m->n = 0;
	m->fragmented = false;
	m->defrag_next = 1;
	if (s == 0)
		return DOD_OK;
	for (size_t i = 0; i < s; i++)
		m->index[i] = entry_make((uint32_t)(i + 1), entry_gen(m->index[i]) + 1, true);
	m->index[s - 1] = entry_make(TWO_END, entry_gen(m->index[s - 1]), true);
	m->free_front = 0;
	m->free_back = (uint32_t)(s - 1);
	return DOD_OK;
}

/* Forgets the index: O(1), and generations restart at 0, so an old handle may match a
 * new item undetected (as handle_map::reset). */
static int two_reset(void *c)
{
	TWO *m = c;
	m->n = m->n_slots = 0;
	m->free_front = m->free_back = TWO_END;
	m->fragmented = false;
	m->defrag_next = 1;
	return DOD_OK;
}

static int two_shuffle(void *c, uint64_t seed)
{
	TWO *m = c;
	uint64_t rng = seed;
	for (size_t i = m->n; i > 1; i--) {
		size_t j = (size_t)dod_rng_below(&rng, i);
		OBJ t = m->objs[i - 1];
		m->objs[i - 1] = m->objs[j];
		m->objs[j] = t;
	}
	for (size_t d = 0; d < m->n; d++)
		fix_index(m, d);
	m->fragmented = m->n > 1;
	m->defrag_next = 1;
	return DOD_OK;
}

/* handle_map's defragment on this layout: a stable insertion sort by key that resumes at
 * defrag_next, moves a run of records with one memmove (the item and its slot travel
 * together: there is no second array to move) and fixes the index entries of the moved
 * records. At most max_swaps items moved (0: no limit); returns at once when the
 * fragmented flag is clear. */
static int two_defragment(void *c, size_t max_swaps, size_t *swaps_out)
{
	TWO *m = c;
	size_t swaps = 0, i = m->defrag_next;
	for (; m->fragmented && i < m->n && (max_swaps == 0 || swaps < max_swaps); i++) {
		OBJ tmp = m->objs[i];
		size_t j = i;
		while (j > 0 && m->objs[j - 1].item.key > tmp.item.key)
			j--;
		if (j == i)
			continue;
		memmove(&m->objs[j + 1], &m->objs[j], (i - j) * sizeof *m->objs);
		m->objs[j] = tmp;
		for (size_t k = j; k <= i; k++)
			fix_index(m, k);
		swaps++;
	}
	if (m->fragmented) {
		m->defrag_next = i;
		m->fragmented = i < m->n;
	}
	if (swaps_out)
		*swaps_out = swaps;
	return DOD_OK;
}

static void two_dump_keys(const void *c, uint64_t *keys_out)
{
	const TWO *m = c;
	for (size_t d = 0; d < m->n; d++)
		keys_out[d] = m->objs[d].item.key;
}

static size_t two_size(const void *c) { return ((const TWO *)c)->n; }

static size_t two_footprint(const void *c)
{
	const TWO *m = c;
	return sizeof *m + m->cap * sizeof *m->objs + m->slot_cap * sizeof *m->index;
}

/* The free list: in bounds, free, acyclic, every free entry once, ending at free_back. */
static int check_free_list(const TWO *m, char *why, size_t len)
{
	size_t n_free = 0, want = m->n_slots - m->n;
	uint32_t prev = TWO_END;
	for (uint32_t i = m->free_front; i != TWO_END; i = entry_idx(m->index[i])) {
		if (i >= m->n_slots || !entry_free(m->index[i]))
			return dod_check_fail(why, len, "free list reaches %s slot %u",
			                      i >= m->n_slots ? "out-of-range" : "live", i);
		if (++n_free > want)
			return dod_check_fail(why, len, "free list longer than the %zu free slots", want);
		prev = i;
	}
	if (n_free != want || prev != m->free_back)
		return dod_check_fail(why, len, "free list holds %zu of %zu free slots, ends at %u, "
		                      "free_back %u", n_free, want, prev, m->free_back);
	return DOD_OK;
}

/* Every invariant of the opening comment, with the first violation's reason. */
static int check_all(const void *c, char *why, size_t len)
{
	const TWO *m = c;
	if (m->n > m->n_slots || m->n > m->cap || m->n_slots > m->slot_cap)
		return dod_check_fail(why, len, "counts: n %zu, cap %zu, n_slots %zu, slot_cap %zu",
		                      m->n, m->cap, m->n_slots, m->slot_cap);
	size_t live = 0;
	for (size_t i = 0; i < m->n_slots; i++)
		live += !entry_free(m->index[i]);
	if (live != m->n)
		return dod_check_fail(why, len, "%zu live entries for %zu items", live, m->n);
	for (size_t d = 0; d < m->n; d++) {
		uint32_t slot = m->objs[d].slot, got;
		if (slot >= m->n_slots || entry_free(m->index[slot]) ||
		    entry_idx(m->index[slot]) != d)
			return dod_check_fail(why, len, "objs[%zu].slot = %u does not point back at it",
			                      d, slot);
		uint64_t h = entry_make(slot, entry_gen(m->index[slot]), false);
		if (!resolve(m->index, m->n_slots, h, &got) || got != d)
			return dod_check_fail(why, len, "the handle of objs[%zu] does not resolve", d);
	}
	if (check_free_list(m, why, len))
		return DOD_EINVAL;
	size_t sorted = !m->fragmented ? m->n : m->defrag_next < m->n ? m->defrag_next : m->n;
	for (size_t d = 1; d < sorted; d++)
		if (m->objs[d - 1].item.key > m->objs[d].item.key)
			return dod_check_fail(why, len, "objs[%zu] and [%zu] out of order in the sorted "
			                      "prefix of %zu", d - 1, d, sorted);
	return m->defrag_next >= 1 ? DOD_OK : dod_check_fail(why, len, "defrag_next is 0");
}

/* Test hook (stale_hook.h): k more (insert, erase) cycles of the free entry of h. Each
 * erase adds 1 to the 31-bit generation (erase_valid, entry_make's mask), so k of them
 * add k mod 2^31; insert takes the generation as it is. */
int DOD_SKIP_REUSES(void *c, uint64_t h, uint64_t k)
{
	TWO *m = c;
	uint32_t i = entry_idx(h);
	if (i >= m->n_slots || !entry_free(m->index[i]))
		return DOD_EINVAL;
	uint64_t e = m->index[i];
	m->index[i] = entry_make(entry_idx(e), (uint32_t)(entry_gen(e) + k), true);
	return DOD_OK;
}

const struct dod_ops DOD_OPS_SYMBOL = {
	DOD_DESCRIPTOR,
	.source = "commenters of Jeff Kiah's handle_map (2016): Bitsquid's ID lookup table",
	.max_elems = TWO_MAX_ELEMS,
	.create = two_create,
	.destroy = two_destroy,
	.insert_n = two_insert_n,
	.iterate_sum = two_iterate_sum,
	.lookup_sum = two_lookup_sum,
	.erase_n = two_erase_n,
	.count_valid = two_count_valid,
	.clear = two_clear,
	.reset = two_reset,
	.shuffle = two_shuffle,
	.defragment = two_defragment,
	.dump_keys = two_dump_keys,
	.size = two_size,
	.footprint_bytes = two_footprint,
	.check = check_all,
};
