/* sparse_set_paged.c - an EnTT-style sparse set that issues its own versioned ids
 * (Michele Caini, EnTT: entt::basic_sparse_set, its paged sparse array, and the entity
 * storage that keeps released entities after the live ones; "ECS back and forth", part 2
 * and 9). A C rewrite of the design, not of the code.
 *
 *   pages  [ p0 | p1 | NULL-free table grows x2 ... ]    page table (pointers)
 *   p0     [ 2 | 0 | 3 | 1 | ... 4096 entries ]           sparse: id index -> dense position
 *   dense  [ 1|v | 3|v | 0|v | 2|v' ]                     versioned ids: index | version << 32
 *            '---- n live ------'  '-- released --'       [0, n) live, [n, n_ids) free ids
 *   items  [ itm | itm | itm ]                            parallel to dense[0, n)
 *
 * Handles are the versioned ids: bits 0..31 the index (the id), bits 32..63 the version.
 * EnTT's 32-bit entity splits 20 index + 12 version bits; its 64-bit entity, which the
 * contract's 64-bit handle matches, splits 32 + 32, and so does this one: 32 index bits
 * give the ~2^32 items every other design here can index, and the other 32 bits would
 * otherwise be wasted. As EnTT's entt_traits::next, a release adds one to the version and
 * skips the all-ones version (EnTT's tombstone, here also erase_n's "seen" mark), so a
 * version runs through 2^32 - 1 values: a handle whose id was reused 2^16 or 2^32 times
 * is rejected, one reused exactly 2^32 - 1 times (or a multiple) is not.
 *
 * Ids: EnTT leaves issuing entities to its registry, whose entity storage keeps the
 * released ones in its own dense array after the live ones. This container issues ids
 * itself the same way, in the dense array it already has: dense[n, n_ids) holds the
 * released ids with their bumped versions, each still mapped by sparse to its position.
 * Insert takes dense[n] (the id released last: LIFO) and its item slot items[n], or, when
 * there is none, the new id n_ids with version 0. Erase swaps the id with the last live one
 * (dense and items: swap-and-pop, so iteration stays dense), bumps its version, and n
 * shrinks by one, which puts it on top of the free ids. Pages of the sparse array are
 * allocated (4096 entries, 16 KiB, all "no position") when the first id of the page is
 * issued; as ids are issued in order, every page below n_ids exists.
 *
 * Invariants (checked by ssp_check): n <= n_ids <= SSP_MAX_IDS; dense holds n_ids ids
 * and items n items; n_pages * 4096 >= n_ids and pages[0, n_pages) are allocated; for
 * every position p < n_ids, dense[p]'s index is < n_ids, its version is not the
 * tombstone, and sparse[index] == p (so dense[0, n_ids) is a permutation of the ids);
 * every sparse entry of an id >= n_ids is SSP_NO_POS; every live handle resolves to its
 * item.
 * Costs: insert O(1) amortized, erase O(1) (one item moved), lookup O(1): four dependent
 * or parallel loads (page table, sparse entry, then dense id and item side by side),
 * iterate O(n) over a dense array, clear O(n) (every live version bumped).
 * Bytes: per id issued 8 (dense) + 4 (sparse, in 16 KiB pages), per live item EB
 * (items), each array with x2 growth's spare capacity. Measured (memory scenario, n =
 * 2^20): 20, 76, 268 B a slot at 8, 64, 256 B items; with half the items erased 40, 152,
 * 536 B a live item (erase frees nothing: the ids stay issued, the arrays keep their size).
 * Random lookup at n = 1M, 16 B items: 3.138 D1 read misses a lookup (callgrind; page
 * table, sparse entry, dense id and item in four lines), 3.6x plain_array's time.
 */
#include <stdlib.h>
#include <string.h>

#include "alloc/realloc.h"
#include "alloc/store.h"
#include "contract.h"
#include "dod_common.h"
#include "stale_hook.h"

DOD_STORE_CHECK_STABLE_POINTERS(1); /* swap-and-pop moves the last item into the hole */

#define EB sizeof(DOD_ELEM)
#define SSP_PAGE_BITS 12
#define SSP_PAGE (1u << SSP_PAGE_BITS)      /* sparse entries a page (EnTT's page size) */
#define SSP_NO_POS UINT32_MAX               /* sparse entry of an id never issued */
#define SSP_TOMB UINT32_MAX                 /* a version never issued (EnTT's tombstone) */
#define SSP_MAX_IDS (UINT32_MAX - 1)        /* ids 0 .. 2^32 - 3; index 2^32 - 1 is null */
#define SSP_MAX_PAGES ((SSP_MAX_IDS + (size_t)SSP_PAGE - 1) / SSP_PAGE)

static inline uint32_t ssp_index(uint64_t h) { return (uint32_t)h; }
static inline uint32_t ssp_version(uint64_t h) { return (uint32_t)(h >> 32); }
static inline uint64_t ssp_make(uint32_t index, uint32_t version)
{
	return (uint64_t)version << 32 | index;
}
/* EnTT's entt_traits::next: the version plus one, skipping the tombstone. */
static inline uint64_t ssp_next(uint64_t h)
{
	uint32_t v = ssp_version(h) + 1;
	return ssp_make(ssp_index(h), v + (v == SSP_TOMB));
}

struct SFX(ssp) {
	dod_store dense;   /* uint64_t per id issued: [0, n) live, [n, n_ids) released */
	dod_store items;   /* DOD_ELEM per live item, parallel to dense[0, n) */
	uint32_t **pages;  /* page table: pages[p] = sparse entries of ids p * 4096 .. */
	size_t n_pages, pages_cap;
	size_t n, n_ids;
};
#define SSP struct SFX(ssp)

static inline uint64_t *dense_at(const SSP *s, size_t p)
{
	return (uint64_t *)store_at(&s->dense, p, sizeof(uint64_t));
}
static inline DOD_ELEM *item_at(const SSP *s, size_t p) { return (DOD_ELEM *)store_at(&s->items, p, EB); }
static inline uint32_t *sparse_at(const SSP *s, uint32_t id)
{
	return &s->pages[id >> SSP_PAGE_BITS][id & (SSP_PAGE - 1)];
}

static void ssp_destroy(void *c)
{
	SSP *s = c;
	if (!s)
		return;
	for (size_t p = 0; p < s->n_pages; p++)
		free(s->pages[p]);
	free(s->pages);
	store_free(&s->dense);
	store_free(&s->items);
	free(s);
}

/* Pages for ids [0, ids): the table grows x2 (alloc/realloc.h), each missing page is
 * allocated with every entry "no position". On DOD_ENOMEM the pages made so far stay
 * (empty pages past n_ids: harmless, the invariants allow them). */
static int reserve_pages(SSP *s, size_t ids)
{
	size_t want = (ids + SSP_PAGE - 1) / SSP_PAGE;
	int err = dod_grow_geometric((void **)&s->pages, &s->pages_cap, want, sizeof *s->pages,
	                             SSP_MAX_PAGES);
	while (!err && s->n_pages < want) {
		uint32_t *page = malloc(SSP_PAGE * sizeof *page);
		if (!page)
			return DOD_ENOMEM;
		memset(page, 0xFF, SSP_PAGE * sizeof *page);
		s->pages[s->n_pages++] = page;
	}
	return err;
}

static int ssp_create(void **out, size_t capacity_elems)
{
	if (capacity_elems > SSP_MAX_IDS)
		return DOD_EINVAL;
	SSP *s = calloc(1, sizeof *s);
	if (!s)
		return DOD_ENOMEM;
	int err = store_init(&s->dense, sizeof(uint64_t), capacity_elems);
	if (err) {
		free(s);
		return err;
	}
	if ((err = store_init(&s->items, EB, capacity_elems)) != 0) {
		store_free(&s->dense);
		free(s);
		return err;
	}
	/* The page table's room for the reserve; the pages come with their first id. */
	if ((err = dod_grow_geometric((void **)&s->pages, &s->pages_cap,
	                              (capacity_elems + SSP_PAGE - 1) / SSP_PAGE,
	                              sizeof *s->pages, SSP_MAX_PAGES)) != 0) {
		ssp_destroy(s);
		return err;
	}
	*out = s;
	return DOD_OK;
}

/* Room for k more items and the new ids they need, the container unchanged on error
 * (a store or table that did grow keeps its larger capacity). */
static int make_room(SSP *s, size_t k)
{
	if (k > SSP_MAX_IDS - s->n)
		return DOD_EFULL;
	size_t ids = s->n + k > s->n_ids ? s->n + k : s->n_ids;
	int err = store_reserve(&s->items, s->n + k);
	if (!err)
		err = store_reserve(&s->dense, ids);
	if (!err)
		err = reserve_pages(s, ids);
	return err;
}

static int ssp_insert_n(void *c, size_t k, uint64_t first_key, uint64_t *handles_out)
{
	SSP *s = c;
	int err = make_room(s, k);
	if (err)
		return err;
	for (size_t j = 0; j < k; j++) {
		size_t p = s->n + j;
		uint64_t h;
		if (p < s->n_ids) { /* the id released last, already mapped to p */
			h = *dense_at(s, p);
		} else {           /* a new id, version 0 */
			uint32_t id = (uint32_t)s->n_ids++;
			h = ssp_make(id, 0);
			*dense_at(s, p) = h;
			*sparse_at(s, id) = (uint32_t)p;
		}
		SFX(dod_elem_init)(item_at(s, p), first_key + j);
		if (handles_out)
			handles_out[j] = h;
	}
	s->n += k;
	return DOD_OK;
}

/* The error of handle h: DOD_ERANGE (an id never issued), DOD_EFREE (the tombstone
 * version, never issued, or erase_n's mark; or the current version of a released id:
 * forged), DOD_ESTALE (the id's version moved on: the item was erased), or DOD_OK. */
static int ssp_check_handle(const SSP *s, uint64_t h)
{
	uint32_t id = ssp_index(h);
	if (id >= s->n_ids)
		return DOD_ERANGE;
	if (ssp_version(h) == SSP_TOMB)
		return DOD_EFREE;
	uint32_t p = *sparse_at(s, id);
	if (*dense_at(s, p) != h)
		return DOD_ESTALE;
	return p < s->n ? DOD_OK : DOD_EFREE;
}

/* The hot path: page, sparse entry, then the id at its dense position (equal to h only
 * for a live or released id of this version: the position tells which) and the item
 * beside it. */
static int ssp_lookup_sum(const void *c, const uint64_t *hs, size_t k, uint64_t *sum_out)
{
	const SSP *s = c;
	uint32_t *const *pages = s->pages;
	size_t n = s->n, n_ids = s->n_ids;
	uint64_t sum = 0;
	for (size_t j = 0; j < k; j++) {
		uint64_t h = hs[j];
		uint32_t id = ssp_index(h);
		if (id >= n_ids)
			return DOD_ERANGE;
		uint32_t p = pages[id >> SSP_PAGE_BITS][id & (SSP_PAGE - 1)];
		if (*dense_at(s, p) != h || p >= n)
			return ssp_check_handle(s, h);
		sum += item_at(s, p)->key;
	}
	*sum_out = sum;
	return DOD_OK;
}

static size_t ssp_count_valid(const void *c, const uint64_t *hs, size_t k)
{
	size_t valid = 0;
	for (size_t j = 0; j < k; j++)
		valid += ssp_check_handle(c, hs[j]) == DOD_OK;
	return valid;
}

/* Swap-and-pop of the live handle h: the last live id and item move into its position,
 * h's id goes to the old last position with its version bumped, which is now dense[n],
 * the top of the released ids. */
static void erase_valid(SSP *s, uint64_t h)
{
	uint32_t id = ssp_index(h), p = *sparse_at(s, id);
	size_t last = s->n - 1;
	if (p != last) {
		uint64_t moved = *dense_at(s, last);
		*item_at(s, p) = *item_at(s, last);
		*dense_at(s, p) = moved;
		*sparse_at(s, ssp_index(moved)) = p;
	}
	*dense_at(s, last) = ssp_next(h);
	*sparse_at(s, id) = (uint32_t)last;
	s->n = last;
}

/* All or nothing without an extra allocation: pass 1 checks each handle and marks its
 * dense entry with the tombstone version (a repeat then no longer matches); the marks are
 * undone from the handles themselves; pass 2 erases. */
static int ssp_erase_n(void *c, const uint64_t *hs, size_t k)
{
	SSP *s = c;
	size_t j;
	int err = DOD_OK;
	for (j = 0; j < k; j++) {
		if ((err = ssp_check_handle(s, hs[j])) != DOD_OK)
			break;
		*dense_at(s, *sparse_at(s, ssp_index(hs[j]))) = ssp_make(ssp_index(hs[j]), SSP_TOMB);
	}
	for (size_t i = 0; i < j; i++)
		*dense_at(s, *sparse_at(s, ssp_index(hs[i]))) = hs[i];
	if (err) {
		/* Its own error, not one our marks caused: valid once unmarked means a repeat. */
		int own = ssp_check_handle(s, hs[j]);
		return own ? own : DOD_EFREE;
	}
	for (j = 0; j < k; j++)
		erase_valid(s, hs[j]);
	return DOD_OK;
}

static uint64_t ssp_iterate_sum(const void *c)
{
	const SSP *s = c;
	uint64_t sum = 0;
	for (size_t p = 0; p < s->n;) {
		size_t run = store_run(&s->items, p);
		run = run < s->n - p ? run : s->n - p;
		const DOD_ELEM *it = item_at(s, p);
		for (size_t j = 0; j < run; j++)
			sum += it[j].key;
		p += run;
	}
	return sum;
}

/* Every live id is released with its version bumped (as EnTT's registry clear releases
 * every entity): old handles are stale; the ids are issued again in dense order. */
static int ssp_clear(void *c)
{
	SSP *s = c;
	for (size_t p = 0; p < s->n; p++)
		*dense_at(s, p) = ssp_next(*dense_at(s, p));
	s->n = 0;
	return DOD_OK;
}

static void ssp_dump_keys(const void *c, uint64_t *keys_out)
{
	const SSP *s = c;
	for (size_t p = 0; p < s->n; p++)
		keys_out[p] = item_at(s, p)->key;
}

static size_t ssp_size(const void *c) { return ((const SSP *)c)->n; }

/* The container, its page table and pages, and what `bytes` says of each store. */
static size_t bytes_held(const SSP *s, size_t (*bytes)(const dod_store *))
{
	return sizeof *s + s->pages_cap * sizeof *s->pages +
	       s->n_pages * SSP_PAGE * sizeof(uint32_t) + bytes(&s->dense) + bytes(&s->items);
}
static size_t ssp_footprint(const void *c) { return bytes_held(c, store_committed_bytes); }
static size_t ssp_reserved(const void *c) { return bytes_held(c, store_reserved_bytes); }

static int check_counts(const SSP *s, char *why, size_t len)
{
	if (s->n > s->n_ids || s->n_ids > SSP_MAX_IDS || store_capacity(&s->dense) < s->n_ids ||
	    store_capacity(&s->items) < s->n || s->n_pages > s->pages_cap ||
	    s->n_pages * SSP_PAGE < s->n_ids)
		return dod_check_fail(why, len, "counts: n %zu, n_ids %zu, dense cap %zu, items cap "
		                      "%zu, pages %zu of %zu", s->n, s->n_ids,
		                      store_capacity(&s->dense), store_capacity(&s->items), s->n_pages,
		                      s->pages_cap);
	for (size_t p = 0; p < s->n_pages; p++)
		if (!s->pages[p])
			return dod_check_fail(why, len, "page %zu of %zu is not allocated", p, s->n_pages);
	return DOD_OK;
}

/* The invariants of the opening comment, with the first violation's reason in why (see
 * dod_ops.check): counts and capacities, dense and sparse inverse permutations over the
 * ids issued, no tombstone version stored, no position for an id not issued, every live
 * handle accepted. O(n_pages * 4096). */
static int ssp_check(const void *c, char *why, size_t len)
{
	const SSP *s = c;
	int err = check_counts(s, why, len);
	if (err)
		return err;
	for (size_t p = 0; p < s->n_ids; p++) {
		uint64_t h = *dense_at(s, p);
		if (ssp_index(h) >= s->n_ids || ssp_version(h) == SSP_TOMB)
			return dod_check_fail(why, len, "dense[%zu] holds id %u version %u (%zu ids)", p,
			                      ssp_index(h), ssp_version(h), s->n_ids);
		if (*sparse_at(s, ssp_index(h)) != p)
			return dod_check_fail(why, len, "dense[%zu] holds id %u, whose sparse entry is %u",
			                      p, ssp_index(h), *sparse_at(s, ssp_index(h)));
		if ((p < s->n) != (ssp_check_handle(s, h) == DOD_OK))
			return dod_check_fail(why, len, "the handle at dense[%zu] is %s (n %zu)", p,
			                      p < s->n ? "rejected" : "accepted", s->n);
	}
	for (size_t id = s->n_ids; id < s->n_pages * SSP_PAGE; id++)
		if (*sparse_at(s, (uint32_t)id) != SSP_NO_POS)
			return dod_check_fail(why, len, "id %zu, never issued, has position %u", id,
			                      *sparse_at(s, (uint32_t)id));
	return DOD_OK;
}

/* Test hook (stale_hook.h): k more (insert, erase) cycles of the released id of handle h.
 * Each cycle adds one to the version and skips the tombstone, so the versions run
 * through the 2^32 - 1 values 0 .. 2^32 - 2: k cycles add k mod (2^32 - 1). */
int DOD_SKIP_REUSES(void *c, uint64_t h, uint64_t k)
{
	SSP *s = c;
	uint32_t id = ssp_index(h);
	if (id >= s->n_ids || *sparse_at(s, id) < s->n)
		return DOD_EINVAL;
	uint64_t *d = dense_at(s, *sparse_at(s, id));
	*d = ssp_make(id, (uint32_t)((ssp_version(*d) + k % SSP_TOMB) % SSP_TOMB));
	return DOD_OK;
}

const struct dod_ops DOD_OPS_SYMBOL = {
	DOD_DESCRIPTOR,
	.source = "Michele Caini, EnTT basic_sparse_set (paged sparse, versioned entities)",
	.max_elems = SSP_MAX_IDS,
	.create = ssp_create,
	.destroy = ssp_destroy,
	.insert_n = ssp_insert_n,
	.iterate_sum = ssp_iterate_sum,
	.lookup_sum = ssp_lookup_sum,
	.erase_n = ssp_erase_n,
	.count_valid = ssp_count_valid,
	.clear = ssp_clear,
	.dump_keys = ssp_dump_keys,
	.size = ssp_size,
	.footprint_bytes = ssp_footprint,
	.reserved_bytes = ssp_reserved,
	.check = ssp_check,
};
