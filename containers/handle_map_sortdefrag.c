/* handle_map_sortdefrag.c - handle_map whose defragment sorts in O(n log n) (issue 16:
 * the article's insertion sort takes seconds for a shuffled 100k-item set). This is
 * containers/handle_map.c compiled again with HMAP_SORT_DEFRAG: everything is
 * handle_map's own code except the by-key defragment (defrag_by_key), defined here:
 *
 *   1. the order after the sorted prefix is checked (O(n)); in order: nothing moves and
 *      the map is no longer fragmented (the article's flag, as handle_map's);
 *   2. else a plan: plan[d] = the dense index where the item now at d belongs, from an
 *      LSD radix sort of (key, dense index) pairs, 8 bits a pass, skipping the bytes every
 *      key shares (3 passes for keys below 2^24). Radix sorting is stable, so equal keys
 *      keep their dense order as in the insertion sort. O(n); scratch of 2n pairs
 *      allocated and freed here, the plan (4 bytes an item) kept in the map;
 *   3. swaps along the plan's cycles: at the first misplaced index i, swap the item at i
 *      with the one at plan[i], where it belongs, fixing both meta entries and sparse
 *      entries (so every handle stays valid after every swap), until i holds its own
 *      item. Each swap puts one item in its final place (a cycle of L items takes L - 1
 *      swaps, the last placing two), so at most max_swaps swaps a call keep the
 *      container whole between calls, and a call that makes fewer has finished.
 *
 * The plan survives between calls (max_swaps > 0) and is dropped by every change to the
 * dense set (insert, emplace_n, erase, clear, reset, shuffle, another comparator: see
 * plan_drop in handle_map.c). Costs: a complete call O(n) for the sort plus n swaps of
 * random access; the first incremental call pays the sort, the others at most max_swaps
 * swaps plus the skipping of items already in place (O(n) over all calls). A comparator
 * (hmap_defragment's cmp) still gets the insertion sort. Public functions are static here
 * (HMAP_API), as in handle_map_elementwise.c; the variant's line in
 * containers/variants.tsv names this file.
 */
#define HMAP_SORT_DEFRAG 1
#define HMAP_API static __attribute__((unused))
#include "handle_map.c"

/* One item of the sort: its key and where it is now. */
struct plan_pair {
	uint64_t key;
	uint32_t pos;
};

/* One stable counting pass of the radix sort: src by the byte of the key at shift into
 * dst. */
static void radix_pass(const struct plan_pair *src, struct plan_pair *dst, size_t n,
                       unsigned shift)
{
	size_t start[256] = {0};
	for (size_t i = 0; i < n; i++)
		start[(src[i].key >> shift) & 0xFF]++;
	size_t sum = 0;
	for (size_t b = 0; b < 256; b++) {
		size_t count = start[b];
		start[b] = sum;
		sum += count;
	}
	for (size_t i = 0; i < n; i++)
		dst[start[(src[i].key >> shift) & 0xFF]++] = src[i];
}

/* Writes the plan of the map's n items into m->plan (room for n): the (key, dense index)
 * pairs in pairs[0, n), radix sorted with tmp[0, n) as the other buffer. */
static void plan_fill(HMAP *m, struct plan_pair *pairs, struct plan_pair *tmp)
{
	size_t n = m->n;
	uint64_t any = 0, all = UINT64_MAX;
	for (size_t d = 0; d < n; d++) {
		pairs[d] = (struct plan_pair){m->dense[d].key, (uint32_t)d};
		any |= pairs[d].key;
		all &= pairs[d].key;
	}
	/* A byte every key shares leaves the order as it is: no pass for it. */
	uint64_t varies = any ^ all;
	for (unsigned shift = 0; shift < 64; shift += 8) {
		if (!((varies >> shift) & 0xFF))
			continue;
		radix_pass(pairs, tmp, n, shift);
		struct plan_pair *t = pairs;
		pairs = tmp;
		tmp = t;
	}
	for (size_t d = 0; d < n; d++)
		m->plan[pairs[d].pos] = (uint32_t)d;
}

/* Makes the plan of the map as it is. Returns 0, or DOD_ENOMEM with the map unchanged
 * (no plan, the old plan's buffer and capacity kept). */
static int plan_make(HMAP *m)
{
	size_t n = m->n;
	struct plan_pair *pairs = malloc(2 * n * sizeof *pairs);
	if (!pairs)
		return DOD_ENOMEM;
	if (n > m->plan_cap) {
		/* The old plan's contents are not needed: a new buffer, no realloc copy. */
		uint32_t *plan = malloc(n * sizeof *plan);
		if (!plan) {
			free(pairs);
			return DOD_ENOMEM;
		}
		free(m->plan);
		m->plan = plan;
		m->plan_cap = n;
	}
	plan_fill(m, pairs, pairs + n);
	free(pairs);
	m->plan_n = n;
	m->plan_next = 0;
	return DOD_OK;
}

/* Swaps the items (and meta entries) at dense a and b and points their sparse entries at
 * their new places. */
static inline void swap_items(HMAP *m, size_t a, size_t b)
{
	DOD_ELEM t = m->dense[a];
	m->dense[a] = m->dense[b];
	m->dense[b] = t;
	uint32_t tm = m->meta[a];
	m->meta[a] = m->meta[b];
	m->meta[b] = tm;
	fix_sparse(m, a);
	fix_sparse(m, b);
}

/* Follows the plan's cycles from plan_next on, at most budget swaps; each sends the item
 * at the cycle's start to its place. Skips the items in place after the last swap too,
 * so a call that completes the plan says so (plan_next == plan_n). Returns the swaps. */
static size_t plan_apply(HMAP *m, size_t budget)
{
	uint32_t *plan = m->plan;
	size_t i = m->plan_next, swaps = 0;
	while (i < m->plan_n) {
		size_t to = plan[i];
		if (to == i) {
			i++;
			continue;
		}
		if (swaps == budget)
			break;
		swap_items(m, i, to);
		plan[i] = plan[to]; /* the item now at i came from to */
		plan[to] = (uint32_t)to;
		swaps++;
	}
	m->plan_next = i;
	return swaps;
}

/* Whether dense[from - 1, n) is in key order (from >= 1: dense[0, from) is already). */
static bool sorted_after(const HMAP *m, size_t from)
{
	for (size_t d = from; d < m->n; d++)
		if (m->dense[d - 1].key > m->dense[d].key)
			return false;
	return true;
}

/* See handle_map.c: the declaration, and this file's opening comment. Keeps
 * hmap_defragment's bookkeeping: defrag_next = n (all sorted) when done, else 1 (the
 * swaps break any sorted prefix), so the caller clears the fragmented flag exactly when
 * the set is sorted. */
static int defrag_by_key(HMAP *m, size_t max_swaps, size_t *swaps)
{
	*swaps = 0;
	if (m->plan_n == 0) {
		if (sorted_after(m, m->defrag_next)) {
			m->defrag_next = m->n > 1 ? m->n : 1;
			return DOD_OK;
		}
		int err = plan_make(m);
		if (err)
			return err;
	}
	*swaps = plan_apply(m, max_swaps ? max_swaps : SIZE_MAX);
	if (m->plan_next < m->plan_n) {
		m->defrag_next = 1;
	} else {
		plan_drop(m);
		m->defrag_next = m->n > 1 ? m->n : 1;
	}
	return DOD_OK;
}
