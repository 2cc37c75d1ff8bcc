/* handle_map.c - dense/sparse/meta handle map (Jeff Kiah, "Game Engine Containers -
 * handle_map", 2016). Layout, invariants and costs are in handle_map.h; this file adds
 * the why of each step. Compiled once per size class with -DELEM_BYTES=N.
 */
#include "handle_map.h"

#include <stdlib.h>
#include <string.h>

#include "alloc/realloc.h"
#include "contract.h"
#include "stale_hook.h"

#define HMAP struct SFX(hmap)

/* Geometric (x2) growth, so a stream of inserts costs O(1) amortized: the one realloc
 * strategy of containers/alloc/, capped at HMAP_MAX_ELEMS. */
static int grow(void **p, size_t *cap, size_t want, size_t elem_bytes)
{
	return dod_grow_geometric(p, cap, want, elem_bytes, HMAP_MAX_ELEMS);
}

#if HMAP_SORT_DEFRAG
/* Forgets handle_map_sortdefrag's plan: the dense set changed, so the places it holds
 * mean nothing; the next defragment makes a new one. */
static inline void plan_drop(HMAP *m) { m->plan_n = m->plan_next = 0; }
#else
static inline void plan_drop(HMAP *m) { (void)m; }
#endif

/* Dense and meta grow together so they always have the same capacity. */
static int grow_dense(HMAP *m, size_t want)
{
	size_t cap = m->cap, meta_cap = m->cap;
	int err = grow((void **)&m->dense, &cap, want, sizeof *m->dense);
	if (err)
		return err;
	err = grow((void **)&m->meta, &meta_cap, cap, sizeof *m->meta);
	if (err)
		return err; /* dense is merely larger than needed: still consistent */
	m->cap = cap;
	return DOD_OK;
}

HMAP_API int SFX(hmap_create)(HMAP **out, uint16_t type_id, size_t reserve_elems)
{
	if (!out || type_id > HMAP_MAX_TYPE_ID || reserve_elems > HMAP_MAX_ELEMS)
		return DOD_EINVAL;
	HMAP *m = calloc(1, sizeof *m);
	if (!m)
		return DOD_ENOMEM;
	m->type_id = type_id;
	m->free_front = m->free_back = HMAP_END;
	m->defrag_next = 1;
	if (SFX(hmap_reserve)(m, reserve_elems)) {
		SFX(hmap_destroy)(m);
		return DOD_ENOMEM;
	}
	*out = m;
	return DOD_OK;
}

HMAP_API void SFX(hmap_destroy)(HMAP *m)
{
	if (!m)
		return;
	free(m->dense);
	free(m->meta);
	free(m->sparse);
#if HMAP_SORT_DEFRAG
	free(m->plan);
#endif
	free(m);
}

HMAP_API int SFX(hmap_reserve)(HMAP *m, size_t n_elems)
{
	if (n_elems > HMAP_MAX_ELEMS)
		return DOD_EINVAL;
	int err = grow_dense(m, n_elems);
	if (err)
		return err;
	return grow((void **)&m->sparse, &m->slot_cap, n_elems, sizeof *m->sparse);
}

/* Validation shared by get/check/erase. Order matters only for which error is reported:
 * a foreign handle is reported as foreign even if its index happens to be in range. */
static inline int check_id(const HMAP *m, hmap_id h)
{
	if (hmap_id_type(h) != m->type_id)
		return DOD_EFOREIGN;
	uint32_t i = hmap_id_index(h);
	if (i >= m->n_slots)
		return DOD_ERANGE;
	hmap_id s = m->sparse[i];
	if (hmap_id_free(h) || hmap_id_free(s))
		return DOD_EFREE;
	if (hmap_id_generation(s) != hmap_id_generation(h))
		return DOD_ESTALE;
	return DOD_OK;
}

HMAP_API int SFX(hmap_check)(const HMAP *m, hmap_id h) { return check_id(m, h); }

/* The hot path of lookup: two compares replace four field checks. h >> HMAP_TYPE_SHIFT
 * is type id and free bit together, so it equals type_id only for a non-free handle of
 * this map; then a live sparse entry equals the handle in every bit above the index
 * (generation, type id, free bit clear), so one compare of (s ^ h) >> HMAP_GEN_SHIFT
 * checks the generation and that the slot is live. Takes the arrays rather than the map
 * so a batch loop can keep them in registers. On success writes the dense index to *d. */
static inline bool resolve(const hmap_id *sparse, size_t n_slots, uint16_t type_id,
                           hmap_id h, uint32_t *d)
{
	uint32_t i = hmap_id_index(h);
	if (i >= n_slots || (h >> HMAP_TYPE_SHIFT) != type_id)
		return false;
	hmap_id s = sparse[i];
	if ((s ^ h) >> HMAP_GEN_SHIFT)
		return false;
	*d = hmap_id_index(s);
	return true;
}

static inline DOD_ELEM *get_fast(const HMAP *m, hmap_id h)
{
	uint32_t d;
	return resolve(m->sparse, m->n_slots, m->type_id, h, &d) ? &m->dense[d] : NULL;
}

HMAP_API DOD_ELEM *SFX(hmap_get)(const HMAP *m, hmap_id h) { return get_fast(m, h); }
HMAP_API bool SFX(hmap_is_valid)(const HMAP *m, hmap_id h) { return get_fast(m, h) != NULL; }

/* Takes a sparse slot for dense index d: the front of the free list (FIFO reuse, keeping
 * the slot's generation) or a new slot with generation 0. Capacity is ensured by the
 * caller. Returns the handle. */
static inline hmap_id take_slot(HMAP *m, uint32_t d)
{
	uint32_t slot;
	uint16_t gen;
	if (m->free_front != HMAP_END) {
		slot = m->free_front;
		gen = hmap_id_generation(m->sparse[slot]);
		if (m->free_front == m->free_back)
			m->free_front = m->free_back = HMAP_END;
		else
			m->free_front = hmap_id_index(m->sparse[slot]);
	} else {
		slot = (uint32_t)m->n_slots++;
		gen = 0;
	}
	m->sparse[slot] = hmap_id_make(d, gen, m->type_id, false);
	m->meta[d] = slot;
	return hmap_id_make(slot, gen, m->type_id, false);
}

/* Number of slots that are free (not live). */
static inline size_t free_slots(const HMAP *m) { return m->n_slots - m->n; }

/* Ensures room for n more items and the slots they may need, without changing the map
 * on failure. */
static int make_room(HMAP *m, size_t n)
{
	if (n > HMAP_MAX_ELEMS - m->n)
		return DOD_EFULL;
	int err = grow_dense(m, m->n + n);
	if (err)
		return err;
	size_t new_slots = n > free_slots(m) ? n - free_slots(m) : 0;
	return grow((void **)&m->sparse, &m->slot_cap, m->n_slots + new_slots, sizeof *m->sparse);
}

HMAP_API int SFX(hmap_insert)(HMAP *m, const DOD_ELEM *item, hmap_id *out)
{
	DOD_ELEM copy = *item; /* item may point into dense, which make_room may move */
	int err = make_room(m, 1);
	if (err)
		return err;
	hmap_id h = take_slot(m, (uint32_t)m->n);
	m->dense[m->n++] = copy;
	m->fragmented = true; /* appending keeps the sorted prefix: defrag_next stays */
	plan_drop(m);
	if (out)
		*out = h;
	return DOD_OK;
}

HMAP_API int SFX(hmap_emplace_n)(HMAP *m, size_t n, hmap_id *out, DOD_ELEM **first_out)
{
	int err = make_room(m, n);
	if (err)
		return err;
	size_t first = m->n;
	for (size_t k = 0; k < n; k++) {
		hmap_id h = take_slot(m, (uint32_t)(first + k));
		if (out)
			out[k] = h;
	}
	m->n += n;
	if (n) {
		m->fragmented = true;
		plan_drop(m);
	}
	if (first_out)
		*first_out = m->dense ? m->dense + first : NULL; /* never NULL + 0 */
	return DOD_OK;
}

/* Erase after validation: see hmap_erase. */
static void erase_valid(HMAP *m, uint32_t slot)
{
	hmap_id s = m->sparse[slot];
	uint32_t d = hmap_id_index(s);
	/* Bump the generation first: from here on every handle to this slot is stale. */
	m->sparse[slot] = hmap_id_make(HMAP_END, (uint16_t)(hmap_id_generation(s) + 1),
	                               m->type_id, true);
	if (m->free_back == HMAP_END)
		m->free_front = slot;
	else
		m->sparse[m->free_back] = (m->sparse[m->free_back] & ~(hmap_id)UINT32_MAX) | slot;
	m->free_back = slot;

	size_t last = m->n - 1;
	if (d != last) {
		m->dense[d] = m->dense[last];
		m->meta[d] = m->meta[last];
		m->sparse[m->meta[d]] = (m->sparse[m->meta[d]] & ~(hmap_id)UINT32_MAX) | d;
	}
	m->n = last;
	/* The item moved into d breaks the sorted prefix from d on. */
	if (d < m->defrag_next)
		m->defrag_next = d > 1 ? d : 1;
	m->fragmented = true;
	plan_drop(m);
}

HMAP_API int SFX(hmap_erase)(HMAP *m, hmap_id h)
{
	int err = check_id(m, h);
	if (err)
		return err;
	erase_valid(m, hmap_id_index(h));
	return DOD_OK;
}

HMAP_API int SFX(hmap_erase_batch)(HMAP *m, const hmap_id *hs, size_t n)
{
	/* All or nothing without an extra allocation: pass 1 validates each handle and sets
	 * the free bit of its live sparse entry as a "seen" mark, so a repeated handle fails
	 * as DOD_EFREE; on error the marks are undone. Pass 2 erases. */
	size_t k;
	int err = DOD_OK;
	for (k = 0; k < n; k++) {
		err = check_id(m, hs[k]);
		if (err)
			break;
		m->sparse[hmap_id_index(hs[k])] |= HMAP_FREE_BIT;
	}
	for (size_t j = 0; j < k; j++)
		m->sparse[hmap_id_index(hs[j])] &= ~HMAP_FREE_BIT;
	if (err) {
		/* Report the handle's own error, not one caused by our marks: a handle that is
		 * valid once the marks are gone was a repeat of an earlier one. */
		int own = check_id(m, hs[k]);
		return own ? own : DOD_EFREE;
	}
	for (k = 0; k < n; k++)
		erase_valid(m, hmap_id_index(hs[k]));
	return DOD_OK;
}

HMAP_API void SFX(hmap_clear)(HMAP *m)
{
	size_t s = m->n_slots;
	m->n = 0;
	m->fragmented = false;
	m->defrag_next = 1;
	plan_drop(m);
	if (s == 0)
		return;
	for (size_t i = 0; i < s; i++) {
		uint16_t gen = (uint16_t)(hmap_id_generation(m->sparse[i]) + 1);
		m->sparse[i] = hmap_id_make((uint32_t)(i + 1), gen, m->type_id, true);
	}
	m->sparse[s - 1] = hmap_id_make(HMAP_END, hmap_id_generation(m->sparse[s - 1]),
	                                m->type_id, true);
	m->free_front = 0;
	m->free_back = (uint32_t)(s - 1);
}

HMAP_API void SFX(hmap_reset)(HMAP *m)
{
	m->n = 0;
	m->n_slots = 0;
	m->free_front = m->free_back = HMAP_END;
	m->fragmented = false;
	m->defrag_next = 1;
	plan_drop(m);
}

HMAP_API size_t SFX(hmap_size)(const HMAP *m) { return m->n; }
HMAP_API size_t SFX(hmap_capacity)(const HMAP *m) { return m->cap; }
HMAP_API DOD_ELEM *SFX(hmap_data)(const HMAP *m) { return m->dense; }
HMAP_API hmap_id SFX(hmap_id_at)(const HMAP *m, size_t d)
{
	uint32_t slot = m->meta[d];
	return hmap_id_make(slot, hmap_id_generation(m->sparse[slot]), m->type_id, false);
}

HMAP_API size_t SFX(hmap_footprint_bytes)(const HMAP *m)
{
	return sizeof *m + m->cap * (sizeof *m->dense + sizeof *m->meta) +
	       m->slot_cap * sizeof *m->sparse
#if HMAP_SORT_DEFRAG
	       + m->plan_cap * sizeof *m->plan
#endif
	       ;
}

/* Points the sparse entry of the item now at dense index d back at d. */
static inline void fix_sparse(HMAP *m, size_t d)
{
	uint32_t slot = m->meta[d];
	m->sparse[slot] = (m->sparse[slot] & ~(hmap_id)UINT32_MAX) | (uint32_t)d;
}

static inline int cmp_key(const DOD_ELEM *a, const DOD_ELEM *b)
{
	return (a->key > b->key) - (a->key < b->key);
}

/* Shifts dense and meta [j, i) one place right and drops item i's copy (tmp, tmp_meta)
 * into j, fixing the sparse entry of every item that moved. The article's path for
 * trivially copyable items: one memmove per array, then the fixes. With
 * HMAP_ELEMENTWISE_MOVES (the handle_map_elementwise variant, containers/
 * handle_map_elementwise.c) its path for the other items instead: one move per item
 * with its sparse fix in the same loop, as its std::move loop does, which the compiler
 * cannot turn into a memmove (the sparse store may alias the items). */
static inline void shift_run(HMAP *m, size_t j, size_t i, const DOD_ELEM *tmp,
                             uint32_t tmp_meta)
{
#if HMAP_ELEMENTWISE_MOVES
	for (size_t k = i; k > j; k--) {
		m->dense[k] = m->dense[k - 1];
		m->meta[k] = m->meta[k - 1];
		fix_sparse(m, k);
	}
	m->dense[j] = *tmp;
	m->meta[j] = tmp_meta;
	fix_sparse(m, j);
#else
	memmove(&m->dense[j + 1], &m->dense[j], (i - j) * sizeof *m->dense);
	memmove(&m->meta[j + 1], &m->meta[j], (i - j) * sizeof *m->meta);
	m->dense[j] = *tmp;
	m->meta[j] = tmp_meta;
	for (size_t k = j; k <= i; k++)
		fix_sparse(m, k);
#endif
}

/* One insertion sort over the dense set, the article's algorithm: take item i, scan left
 * past every item that must go after it, shift that run one to the right (shift_run),
 * drop the item in. Always inlined so that each caller below gets a copy specialized on
 * cmp: the by-key sort compares inline, with no indirect call per element. */
static inline __attribute__((always_inline)) size_t
defrag_run(HMAP *m, SFX(hmap_cmp) cmp, size_t max_swaps)
{
	size_t swaps = 0, i = m->defrag_next;
	for (; i < m->n && (max_swaps == 0 || swaps < max_swaps); i++) {
		DOD_ELEM tmp = m->dense[i];
		uint32_t tmp_meta = m->meta[i];
		size_t j = i;
		while (j > 0 && (cmp ? cmp(&m->dense[j - 1], &tmp) : cmp_key(&m->dense[j - 1], &tmp)) > 0)
			j--;
		if (j == i)
			continue;
		shift_run(m, j, i, &tmp, tmp_meta);
		swaps++;
	}
	m->defrag_next = i;
	return swaps;
}

#if HMAP_SORT_DEFRAG
/* The by-key defragment of handle_map_sortdefrag: a sort, then swaps along the
 * permutation's cycles. containers/handle_map_sortdefrag.c includes this file and
 * defines it after. Returns 0 or DOD_ENOMEM (map unchanged). */
static int defrag_by_key(HMAP *m, size_t max_swaps, size_t *swaps);
#else
/* The by-key defragment: the article's insertion sort. Returns 0. */
static inline int defrag_by_key(HMAP *m, size_t max_swaps, size_t *swaps)
{
	*swaps = defrag_run(m, NULL, max_swaps);
	return DOD_OK;
}
#endif

HMAP_API int SFX(hmap_defragment)(HMAP *m, SFX(hmap_cmp) cmp, size_t max_swaps, size_t *swaps_out)
{
	size_t swaps = 0;
	int err = DOD_OK;
	if (m->defrag_cmp != cmp) {
		/* A different order: the sorted prefix means nothing for it. */
		m->defrag_cmp = cmp;
		m->defrag_next = 1;
		m->fragmented = m->n > 1;
		plan_drop(m);
	}
	if (m->fragmented) {
		if (cmp)
			swaps = defrag_run(m, cmp, max_swaps);
		else
			err = defrag_by_key(m, max_swaps, &swaps);
		if (m->defrag_next >= m->n)
			m->fragmented = false;
	}
	if (swaps_out)
		*swaps_out = swaps;
	return err;
}

HMAP_API int SFX(hmap_shuffle)(HMAP *m, uint64_t seed)
{
	uint64_t rng = seed;
	for (size_t i = m->n; i > 1; i--) {
		size_t j = (size_t)dod_rng_below(&rng, i);
		DOD_ELEM t = m->dense[i - 1];
		m->dense[i - 1] = m->dense[j];
		m->dense[j] = t;
		uint32_t tm = m->meta[i - 1];
		m->meta[i - 1] = m->meta[j];
		m->meta[j] = tm;
	}
	for (size_t d = 0; d < m->n; d++)
		fix_sparse(m, d);
	m->fragmented = m->n > 1;
	m->defrag_next = 1;
	plan_drop(m);
	return DOD_OK;
}

#if HMAP_SORT_DEFRAG
/* handle_map_sortdefrag's plan while one is under way: made for the map's n items (every
 * change drops it) while it is fragmented, every target in range, the items below
 * plan_next in their places, so in key order. */
static int check_plan(const HMAP *m, char *why, size_t len)
{
	if (m->plan_n == 0)
		return DOD_OK;
	if (m->plan_n != m->n || m->plan_next > m->plan_n || !m->fragmented)
		return dod_check_fail(why, len, "a plan of %zu items (next %zu) for %zu items%s",
		                      m->plan_n, m->plan_next, m->n,
		                      m->fragmented ? "" : ", not fragmented");
	for (size_t d = 0; d < m->plan_n; d++)
		if (m->plan[d] >= m->plan_n || (d < m->plan_next && m->plan[d] != d) ||
		    (d > 0 && d < m->plan_next && m->dense[d - 1].key > m->dense[d].key))
			return dod_check_fail(why, len, "plan[%zu] = %u, next %zu: not in place or "
			                      "out of order", d, m->plan[d], m->plan_next);
	return DOD_OK;
}
#else
static inline int check_plan(const HMAP *m, char *why, size_t len)
{
	(void)m, (void)why, (void)len;
	return DOD_OK;
}
#endif

/* Every invariant of handle_map.h, with the first violation's reason in why (see
 * dod_ops.check): counts, dense <-> meta <-> sparse, the free list (in bounds, free,
 * acyclic, every free slot exactly once, ending at free_back), the fast lookup path
 * (every live item's handle resolves to it), defragment's sorted prefix and
 * handle_map_sortdefrag's plan. */
static int check_all(const HMAP *m, char *why, size_t len)
{
	if (m->n > m->n_slots || m->n > m->cap || m->n_slots > m->slot_cap ||
	    m->n_slots > HMAP_MAX_ELEMS)
		return dod_check_fail(why, len, "counts: n %zu, cap %zu, n_slots %zu, slot_cap %zu",
		                      m->n, m->cap, m->n_slots, m->slot_cap);
	size_t live_slots = 0;
	for (size_t i = 0; i < m->n_slots; i++) {
		hmap_id s = m->sparse[i];
		if (hmap_id_type(s) != m->type_id)
			return dod_check_fail(why, len, "sparse[%zu] has type id %u, not %u", i,
			                      hmap_id_type(s), m->type_id);
		if (!hmap_id_free(s))
			live_slots++;
	}
	if (live_slots != m->n)
		return dod_check_fail(why, len, "%zu live sparse entries for %zu items", live_slots,
		                      m->n);
	for (size_t d = 0; d < m->n; d++) {
		uint32_t slot = m->meta[d], got;
		if (slot >= m->n_slots)
			return dod_check_fail(why, len, "meta[%zu] = %u, past %zu slots", d, slot,
			                      m->n_slots);
		hmap_id s = m->sparse[slot];
		if (hmap_id_free(s) || hmap_id_index(s) != d)
			return dod_check_fail(why, len, "meta[%zu] = %u, but sparse[%u] is %s index %u", d,
			                      slot, slot, hmap_id_free(s) ? "free," : "live at",
			                      hmap_id_index(s));
		hmap_id h = SFX(hmap_id_at)(m, d);
		if (!resolve(m->sparse, m->n_slots, m->type_id, h, &got) || got != d)
			return dod_check_fail(why, len, "the handle of dense[%zu] does not resolve to it", d);
	}
	/* Walking at most free_slots + 1 steps: a cycle or a live entry on the list shows. */
	size_t n_free = 0;
	uint32_t prev = HMAP_END;
	for (uint32_t i = m->free_front; i != HMAP_END; i = hmap_id_index(m->sparse[i])) {
		if (i >= m->n_slots)
			return dod_check_fail(why, len, "free list reaches slot %u, past %zu slots", i,
			                      m->n_slots);
		if (!hmap_id_free(m->sparse[i]))
			return dod_check_fail(why, len, "free list reaches live slot %u", i);
		if (++n_free > free_slots(m))
			return dod_check_fail(why, len, "free list longer than the %zu free slots (a cycle)",
			                      free_slots(m));
		prev = i;
	}
	if (n_free != free_slots(m))
		return dod_check_fail(why, len, "free list holds %zu of %zu free slots", n_free,
		                      free_slots(m));
	if (prev != m->free_back)
		return dod_check_fail(why, len, "free list ends at %u, free_back is %u", prev,
		                      m->free_back);
	if ((m->free_front == HMAP_END) != (m->free_back == HMAP_END))
		return dod_check_fail(why, len, "free_front %u, free_back %u", m->free_front,
		                      m->free_back);
	/* Defragment trusts dense[0, defrag_next) to be sorted, and all of it when the map is
	 * not fragmented. */
	if (m->defrag_next < 1)
		return dod_check_fail(why, len, "defrag_next is 0");
	size_t sorted = m->fragmented ? (m->defrag_next < m->n ? m->defrag_next : m->n) : m->n;
	for (size_t d = 1; d < sorted; d++) {
		int c = m->defrag_cmp ? m->defrag_cmp(&m->dense[d - 1], &m->dense[d])
		                      : cmp_key(&m->dense[d - 1], &m->dense[d]);
		if (c > 0)
			return dod_check_fail(why, len, "dense[%zu] and [%zu] out of order inside the "
			                      "sorted prefix of %zu%s", d - 1, d, sorted,
			                      m->fragmented ? "" : " (not fragmented)");
	}
	return check_plan(m, why, len);
}

HMAP_API int SFX(hmap_check_invariants)(const HMAP *m) { return check_all(m, NULL, 0); }

/* ---- dodbench contract (containers/contract.h) ---- */

static int ops_create(void **out, size_t capacity_elems)
{
	/* Handles from a map with another type id are rejected as foreign. */
	return SFX(hmap_create)((HMAP **)out, DOD_DEFAULT_TYPE_ID, capacity_elems);
}

static int ops_create_typed(void **out, size_t capacity_elems, unsigned type_id)
{
	if (type_id > HMAP_MAX_TYPE_ID)
		return DOD_EINVAL;
	return SFX(hmap_create)((HMAP **)out, (uint16_t)type_id, capacity_elems);
}

static const struct dod_type_id_ops type_ids = {
	.version = DOD_TYPE_ID_OPS_VERSION,
	.create_typed = ops_create_typed,
	.max_type_id = HMAP_MAX_TYPE_ID,
};

static void ops_destroy(void *c) { SFX(hmap_destroy)(c); }

static int ops_insert_n(void *c, size_t n, uint64_t first_key, uint64_t *handles_out)
{
	DOD_ELEM *items;
	int err = SFX(hmap_emplace_n)(c, n, handles_out, &items);
	if (err)
		return err;
	for (size_t k = 0; k < n; k++)
		SFX(dod_elem_init)(&items[k], first_key + k);
	return DOD_OK;
}

static uint64_t ops_iterate_sum(const void *c)
{
	const HMAP *m = c;
	uint64_t sum = 0;
	for (size_t d = 0; d < m->n; d++)
		sum += m->dense[d].key;
	return sum;
}

static int ops_lookup_sum(const void *c, const uint64_t *hs, size_t n, uint64_t *sum_out)
{
	const HMAP *m = c;
	const hmap_id *sparse = m->sparse;
	const DOD_ELEM *dense = m->dense;
	size_t n_slots = m->n_slots;
	uint16_t type_id = m->type_id;
	uint64_t sum = 0;
	for (size_t k = 0; k < n; k++) {
		uint32_t d;
		if (!resolve(sparse, n_slots, type_id, hs[k], &d))
			return check_id(m, hs[k]);
		sum += dense[d].key;
	}
	*sum_out = sum;
	return DOD_OK;
}

static size_t ops_count_valid(const void *c, const uint64_t *hs, size_t n)
{
	size_t valid = 0;
	for (size_t k = 0; k < n; k++)
		valid += get_fast(c, hs[k]) != NULL;
	return valid;
}

static int ops_erase_n(void *c, const uint64_t *hs, size_t n)
{
	return SFX(hmap_erase_batch)(c, hs, n);
}

static int ops_clear(void *c) { SFX(hmap_clear)(c); return DOD_OK; }
static int ops_reset(void *c) { SFX(hmap_reset)(c); return DOD_OK; }
static int ops_shuffle(void *c, uint64_t seed) { return SFX(hmap_shuffle)(c, seed); }
static int ops_defragment(void *c, size_t max_swaps, size_t *swaps_out)
{
	return SFX(hmap_defragment)(c, NULL, max_swaps, swaps_out);
}

static void ops_dump_keys(const void *c, uint64_t *keys_out)
{
	const HMAP *m = c;
	for (size_t d = 0; d < m->n; d++)
		keys_out[d] = m->dense[d].key;
}

static size_t ops_size(const void *c) { return SFX(hmap_size)(c); }
static int ops_check(const void *c, char *why, size_t len) { return check_all(c, why, len); }
static size_t ops_footprint(const void *c) { return SFX(hmap_footprint_bytes)(c); }

/* Test hook (stale_hook.h): k more (insert, erase) cycles of the free slot of h. Each
 * erase adds 1 to the slot's 16-bit generation (erase_valid), so k of them add k mod
 * 2^16; insert takes the generation as it is. */
int DOD_SKIP_REUSES(void *c, uint64_t h, uint64_t k)
{
	HMAP *m = c;
	uint32_t i = hmap_id_index(h);
	if (i >= m->n_slots || !hmap_id_free(m->sparse[i]))
		return DOD_EINVAL;
	hmap_id s = m->sparse[i];
	m->sparse[i] = hmap_id_make(hmap_id_index(s), (uint16_t)(hmap_id_generation(s) + k),
	                            m->type_id, true);
	return DOD_OK;
}

const struct dod_ops DOD_OPS_SYMBOL = {
	DOD_DESCRIPTOR,
	.source = "Jeff Kiah, Game Engine Containers - handle_map (2016)",
	.max_elems = HMAP_MAX_ELEMS,
	.create = ops_create,
	.destroy = ops_destroy,
	.insert_n = ops_insert_n,
	.iterate_sum = ops_iterate_sum,
	.lookup_sum = ops_lookup_sum,
	.erase_n = ops_erase_n,
	.count_valid = ops_count_valid,
	.clear = ops_clear,
	.reset = ops_reset,
	.shuffle = ops_shuffle,
	.defragment = ops_defragment,
	.dump_keys = ops_dump_keys,
	.size = ops_size,
	.footprint_bytes = ops_footprint,
	.check = ops_check,
	.type_ids = &type_ids,
};
