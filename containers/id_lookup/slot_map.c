/* slot_map.c - the slot map of SG14's P0661 (Allan Deutsch, "slot_map", P0661r0-r2,
 * 2017-2018; Arthur O'Dwyer's reference implementation stdext::slot_map in the SG14
 * repository, SG14/slot_map.h), in C, answering the contract (containers/contract.h).
 * The struct is in slot_map.h.
 *
 *   slots   [ index | gen ][ index | gen ] ...   n_slots keys of 8 bytes:
 *              live -> {place in values, generation}
 *              free -> {SM_FREE | next free slot, generation}
 *   values  [ item | item | ... ]                n values, packed: iteration order
 *   reverse [ slot | slot | ... ]                n uint32: value place -> its slot
 *   next_free -> free -> free -> ... -> n_slots  LIFO: erase pushes, insert pops; the
 *                                                list ends in n_slots ("append a slot")
 *
 * The key (the handle) is {slot, generation} as generation << 32 | slot. Insert pops the
 * head of the free list (or appends a slot of generation 0), stores the value's place in
 * it and returns {slot, its generation}; erase moves the last value into the hole,
 * fixes the moved value's slot through reverse, pushes the slot on the free list and
 * increments its generation, so every key to it is stale. Generations are incremented on
 * erase only (the reference implementation's "Fix generation skipping", 2019; before it
 * insert incremented too) and are 32 bits: after 2^32 reuses of a slot its old keys match
 * again; with LIFO reuse (P0661r0's free list, and the reference implementation's until
 * 2018-09, when it took the paper's FIFO alternative) one slot erased and refilled in a
 * loop takes every increment. A find() in P0661
 * compares generations only: a key never issued that names a free slot with its
 * generation would reach a value. The contract rejects such handles, so a free slot also
 * carries SM_FREE in its index, and a lookup checks generation and SM_FREE in one
 * compare of the slot with the key (slots are then limited to 2^31 - 1).
 *
 * Invariants (checked by check_all):
 *   - n <= n_slots <= slot_cap, n <= cap, n_slots <= SM_MAX_ELEMS;
 *   - for every place p < n: reverse[p] < n_slots, that slot is live and its index is p;
 *     exactly n slots are live (SM_FREE clear);
 *   - the n_slots - n free slots form one list from next_free through their indexes
 *     (SM_FREE | next), ending in n_slots.
 * Costs: insert O(1) amortized, lookup O(1) (the slot, then the value), erase O(1), clear
 * O(n) (P0661's erase(begin(), end()): every slot's generation bumped, old keys stale),
 * reset O(1) (P0661's clear(): slots forgotten, generations restart). Memory: 8 bytes per
 * slot + elem + 4 per value (reverse), capacities x2 (containers/alloc/realloc.h): elem +
 * 12 bytes per live item when no slot is free. Compiled once per size class.
 */
#include "id_lookup/slot_map.h"

#include <stdbool.h>
#include <stdlib.h>

#include "alloc/realloc.h"
#include "contract.h"
#include "stale_hook.h"

#define SM struct SFX(sm)

/* values and reverse grow together, so they always have the same capacity. */
static int grow_values(SM *m, size_t want)
{
	size_t cap = m->cap, rcap = m->cap;
	int err = dod_grow_geometric((void **)&m->values, &cap, want, sizeof *m->values,
	                             SM_MAX_ELEMS);
	if (err)
		return err;
	err = dod_grow_geometric((void **)&m->reverse, &rcap, cap, sizeof *m->reverse,
	                         SM_MAX_ELEMS);
	if (err)
		return err; /* values is merely larger than needed: still consistent */
	m->cap = cap;
	return DOD_OK;
}

static void sm_destroy(void *c)
{
	SM *m = c;
	if (!m)
		return;
	free(m->slots);
	free(m->values);
	free(m->reverse);
	free(m);
}

static int sm_create(void **out, size_t capacity_elems)
{
	if (capacity_elems > SM_MAX_ELEMS)
		return DOD_EINVAL;
	SM *m = calloc(1, sizeof *m);
	if (!m)
		return DOD_ENOMEM;
	if (grow_values(m, capacity_elems) ||
	    dod_grow_geometric((void **)&m->slots, &m->slot_cap, capacity_elems,
	                       sizeof *m->slots, SM_MAX_ELEMS)) {
		sm_destroy(m);
		return DOD_ENOMEM;
	}
	*out = m;
	return DOD_OK;
}

/* Key -> value place: P0661's find() plus the free check, in one compare: the bits of
 * the slot from 31 up (SM_FREE, generation) must equal the key's (a slot below
 * SM_MAX_ELEMS has bit 31 clear, the generation must match). */
static inline bool resolve(const uint64_t *slots, size_t n_slots, uint64_t h, uint32_t *p)
{
	uint32_t i = sm_index(h);
	if (i >= n_slots)
		return false;
	uint64_t s = slots[i];
	if ((s ^ h) >> 31)
		return false;
	*p = sm_index(s);
	return true;
}

/* The reason h is not valid (0: it is): DOD_ERANGE (slot never used), DOD_ESTALE
 * (generation differs: the item was erased), DOD_EFREE (a free slot's generation: never
 * issued; or seen earlier in the batch erase_n is checking). */
static int check_handle(const SM *m, uint64_t h)
{
	uint32_t i = sm_index(h);
	if (i >= m->n_slots)
		return DOD_ERANGE;
	uint64_t s = m->slots[i];
	if (sm_gen(s) != sm_gen(h))
		return DOD_ESTALE;
	return sm_index(s) & SM_FREE ? DOD_EFREE : DOD_OK;
}

/* Room for n more values and the slots they may need; unchanged on error. */
static int make_room(SM *m, size_t n)
{
	if (n > SM_MAX_ELEMS - m->n)
		return DOD_EFULL;
	int err = grow_values(m, m->n + n);
	if (err)
		return err;
	size_t free_slots = m->n_slots - m->n;
	size_t new_slots = n > free_slots ? n - free_slots : 0;
	return dod_grow_geometric((void **)&m->slots, &m->slot_cap, m->n_slots + new_slots,
	                          sizeof *m->slots, SM_MAX_ELEMS);
}

/* P0661's emplace() for the value at place p: the head of the free list, or a new slot
 * of generation 0, now points at p. Returns the key. Room is the caller's. */
static inline uint64_t take_slot(SM *m, uint32_t p)
{
	uint32_t i = m->next_free, gen = 0;
	if (i == m->n_slots) {
		m->n_slots++;
		m->next_free = (uint32_t)m->n_slots;
	} else {
		gen = sm_gen(m->slots[i]);
		m->next_free = sm_index(m->slots[i]) & ~SM_FREE;
	}
	m->slots[i] = sm_key(p, gen);
	m->reverse[p] = i;
	return sm_key(i, gen);
}

static int sm_insert_n(void *c, size_t n, uint64_t first_key, uint64_t *handles_out)
{
	SM *m = c;
	int err = make_room(m, n);
	if (err)
		return err;
	for (size_t k = 0; k < n; k++) {
		uint64_t h = take_slot(m, (uint32_t)(m->n + k));
		SFX(dod_elem_init)(&m->values[m->n + k], first_key + k);
		if (handles_out)
			handles_out[k] = h;
	}
	m->n += n;
	return DOD_OK;
}

/* Slot i's key expires: generation incremented, pushed on the free list. */
static inline void push_free(SM *m, uint32_t i)
{
	m->slots[i] = sm_key(SM_FREE | m->next_free, sm_gen(m->slots[i]) + 1);
	m->next_free = i;
}

/* P0661's erase_slot_iter(): the last value moves into the hole, its slot and reverse
 * entry follow it, the slot expires. */
static void erase_valid(SM *m, uint32_t i)
{
	uint32_t p = sm_index(m->slots[i]);
	size_t last = --m->n;
	if (p != last) {
		uint32_t back = m->reverse[last];
		m->values[p] = m->values[last];
		m->slots[back] = sm_key(p, sm_gen(m->slots[back]));
		m->reverse[p] = back;
	}
	push_free(m, i);
}

/* All or nothing without an allocation: pass 1 checks each key and marks its slot with
 * SM_FREE (a repeat then fails as DOD_EFREE), the marks are undone, pass 2 erases. */
static int sm_erase_n(void *c, const uint64_t *hs, size_t n)
{
	SM *m = c;
	size_t k;
	int err = DOD_OK;
	for (k = 0; k < n; k++) {
		if ((err = check_handle(m, hs[k])) != 0)
			break;
		m->slots[sm_index(hs[k])] |= SM_FREE;
	}
	for (size_t j = 0; j < k; j++)
		m->slots[sm_index(hs[j])] &= ~(uint64_t)SM_FREE;
	if (err) {
		int own = check_handle(m, hs[k]); /* its own error, not one a mark caused */
		return own ? own : DOD_EFREE;
	}
	for (k = 0; k < n; k++)
		erase_valid(m, sm_index(hs[k]));
	return DOD_OK;
}

static uint64_t sm_iterate_sum(const void *c)
{
	const SM *m = c;
	uint64_t sum = 0;
	for (size_t p = 0; p < m->n; p++)
		sum += m->values[p].key;
	return sum;
}

static int sm_lookup_sum(const void *c, const uint64_t *hs, size_t n, uint64_t *sum_out)
{
	const SM *m = c;
	const uint64_t *slots = m->slots;
	const DOD_ELEM *values = m->values;
	size_t n_slots = m->n_slots;
	uint64_t sum = 0;
	for (size_t k = 0; k < n; k++) {
		uint32_t p;
		if (!resolve(slots, n_slots, hs[k], &p))
			return check_handle(m, hs[k]);
		sum += values[p].key;
	}
	*sum_out = sum;
	return DOD_OK;
}

static size_t sm_count_valid(const void *c, const uint64_t *hs, size_t n)
{
	const SM *m = c;
	size_t valid = 0;
	uint32_t p;
	for (size_t k = 0; k < n; k++)
		valid += resolve(m->slots, m->n_slots, hs[k], &p);
	return valid;
}

/* P0661's erase(begin(), end()): every live slot expires (generation bumped), so every
 * old key is stale. O(n). */
static int sm_clear(void *c)
{
	SM *m = c;
	for (size_t p = 0; p < m->n; p++)
		push_free(m, m->reverse[p]);
	m->n = 0;
	return DOD_OK;
}

/* P0661's clear(): the slots forgotten, O(1); generations restart at 0, so an old key
 * may match a new value undetected (its "undefined-behavior-izes" find() for old keys). */
static int sm_reset(void *c)
{
	SM *m = c;
	m->n = m->n_slots = 0;
	m->next_free = 0;
	return DOD_OK;
}

static void sm_dump_keys(const void *c, uint64_t *keys_out)
{
	const SM *m = c;
	for (size_t p = 0; p < m->n; p++)
		keys_out[p] = m->values[p].key;
}

static size_t sm_size(const void *c) { return ((const SM *)c)->n; }

static size_t sm_footprint(const void *c)
{
	const SM *m = c;
	return sizeof *m + m->cap * (sizeof *m->values + sizeof *m->reverse) +
	       m->slot_cap * sizeof *m->slots;
}

/* The free list: in bounds, free, acyclic, every free slot once, ending in n_slots. */
static int check_free_list(const SM *m, char *why, size_t len)
{
	size_t n_free = 0, want = m->n_slots - m->n;
	uint32_t i = m->next_free;
	for (; i != m->n_slots; i = sm_index(m->slots[i]) & ~SM_FREE) {
		if (i > m->n_slots || !(sm_index(m->slots[i]) & SM_FREE))
			return dod_check_fail(why, len, "free list reaches %s slot %u",
			                      i > m->n_slots ? "out-of-range" : "live", i);
		if (++n_free > want)
			return dod_check_fail(why, len, "free list longer than the %zu free slots "
			                      "(a cycle)", want);
	}
	if (n_free != want)
		return dod_check_fail(why, len, "free list holds %zu of %zu free slots", n_free,
		                      want);
	return DOD_OK;
}

/* Every invariant of the opening comment, with the first violation's reason. */
static int check_all(const void *c, char *why, size_t len)
{
	const SM *m = c;
	if (m->n > m->n_slots || m->n > m->cap || m->n_slots > m->slot_cap ||
	    m->n_slots > SM_MAX_ELEMS)
		return dod_check_fail(why, len, "counts: n %zu, cap %zu, n_slots %zu, slot_cap %zu",
		                      m->n, m->cap, m->n_slots, m->slot_cap);
	size_t live = 0;
	for (size_t i = 0; i < m->n_slots; i++)
		live += !(sm_index(m->slots[i]) & SM_FREE);
	if (live != m->n)
		return dod_check_fail(why, len, "%zu live slots for %zu values", live, m->n);
	for (size_t p = 0; p < m->n; p++) {
		uint32_t i = m->reverse[p], got;
		if (i >= m->n_slots || sm_index(m->slots[i]) != p)
			return dod_check_fail(why, len, "reverse[%zu] = %u does not point back at it",
			                      p, i);
		if (!resolve(m->slots, m->n_slots, sm_key(i, sm_gen(m->slots[i])), &got) ||
		    got != p)
			return dod_check_fail(why, len, "the key of values[%zu] does not resolve", p);
	}
	return check_free_list(m, why, len);
}

/* Test hook (stale_hook.h): k more (insert, erase) cycles of the free slot of h. Each
 * cycle increments the generation once (at erase), in uint32_t arithmetic as push_free
 * does. */
int DOD_SKIP_REUSES(void *c, uint64_t h, uint64_t k)
{
	SM *m = c;
	uint32_t i = sm_index(h);
	if (i >= m->n_slots || !(sm_index(m->slots[i]) & SM_FREE))
		return DOD_EINVAL;
	m->slots[i] = sm_key(sm_index(m->slots[i]), (uint32_t)(sm_gen(m->slots[i]) + k));
	return DOD_OK;
}

const struct dod_ops DOD_OPS_SYMBOL = {
	DOD_DESCRIPTOR,
	.source = "SG14 P0661 slot_map (Allan Deutsch; Arthur O'Dwyer's stdext::slot_map)",
	.max_elems = SM_MAX_ELEMS,
	.create = sm_create,
	.destroy = sm_destroy,
	.insert_n = sm_insert_n,
	.iterate_sum = sm_iterate_sum,
	.lookup_sum = sm_lookup_sum,
	.erase_n = sm_erase_n,
	.count_valid = sm_count_valid,
	.clear = sm_clear,
	.reset = sm_reset,
	.dump_keys = sm_dump_keys,
	.size = sm_size,
	.footprint_bytes = sm_footprint,
	.check = check_all,
};
