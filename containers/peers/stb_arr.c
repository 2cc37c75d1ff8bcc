/* stb_arr.c - peer: swap-and-pop over stb_ds dynamic arrays with an stb_ds hash map as
 * the id -> index lookup table. The peer of Our Machinery's claim (SEEDS.md section A,
 * removal strategy 2) that swap-and-pop needs an id -> index lookup table and that "an
 * array with holes beats a hash table": bulk_swappop_* is the array with holes, this is
 * the hash table, built from what a C programmer would reach for, stb_ds (Sean Barrett,
 * stb_ds.h 0.67, Debian libstb-dev).
 *
 *   items [ A | B | C | D ]            stb_ds array (arrput, arrdelswap): dense, no holes
 *   ids   [ 7 | 2 | 9 | 4 ]            stb_ds array: ids[d] = id of items[d] (as map key)
 *   map   { 2:1, 4:3, 7:0, 9:2 }       stb_ds hash map (hmput, hmgeti, hmdel): id -> d
 *         = [ default | {7,0} | {2,1} | {9,2} | {4,3} ]  its own dense array of entries
 *           + hash index: slots of {hash, entry index} in 8-slot buckets, quadratic probing
 *
 * Handles are the ids: 64-bit, from a per-container counter starting at 1, never reused
 * (not even after clear), so a handle of an erased item is simply absent from the map:
 * stale handles are detected without generations. Errors: a handle that was never issued
 * here (0 or >= the next id) is DOD_ERANGE, found by one compare before any hashing; one
 * not in the map is DOD_ESTALE (erased or cleared); a repeat in one erase_n batch is
 * DOD_EFREE. Another peer_stb_arr's handle is not detected as foreign: it is accepted if
 * its id happens to be live here.
 *
 * Map keys are id_key(id), not the id itself: stb_ds 0.67 hashes an 8-byte key with
 * `d[3] << 24` and `d[7] << 24` on int, undefined behaviour for a byte >= 0x80 (UBSan
 * stops on it); id_key keeps bits 31 and 63 clear, a bijection on the 62-bit id space.
 * Two ALU operations per hashed handle, nothing else changes.
 *
 * Invariants: arrlen(items) == arrlen(ids) == hmlen(map) == live items; for every d,
 * map[ids[d]] == d; every key in the map is id_key of an id below next_id <= 2^62; no
 * value carries the mark bit between calls.
 * Costs: insert O(1) amortized (one arrput to each array, one hmput: hash, probe, and an
 * append to the map's entry array); erase O(1) expected (hmgeti of the handle, hmgeti
 * of the moved item's id to repoint it, hmdel: two probes and a swap inside the map's
 * own entry array; plus the validation pass); lookup O(1) expected: hash, probe the
 * bucket (the hash slot holds the entry's index), load the entry to compare the key and
 * read d, load items[d] - three dependent cache misses at random, where the bulk lookup
 * table has two; iterate O(n) over the dense items; clear O(slots of the index).
 *
 * Allocation ("realloc" in the variant table): stb_ds grows arrays geometrically with
 * realloc (capacity at least doubles; items move, pointers into them are invalidated),
 * the map's entry array likewise, and its hash index doubles when 3/4 full (a new
 * allocation, every entry rehashed from its stored hash) and halves when under 1/4
 * full. Out of memory is a clean DOD_ENOMEM: stb_ds itself does not check realloc, so
 * every stb_ds allocation goes through peers/stb_ds_glue.h (see there and
 * stb_ds_impl.c): insert_n reserves all three arrays and the hash index before it
 * changes anything, after which arrput and hmput cannot allocate; erase_n runs its
 * hmdel calls with the index's shrink and rebuild held and settles once at the end (an
 * allocation failure there leaves a valid, unsettled index; the next insert_n settles
 * it first or fails cleanly). The one divergence from stock stb_ds use: a batch of
 * erases rebuilds the index once at its end instead of as thresholds are crossed.
 *
 * Compiled once per size class (-DELEM_BYTES=N); stb_ds itself is compiled once, in
 * stb_ds_impl.c.
 */
#include <stdbool.h>
#include <stdlib.h>

#include "contract.h"
#include "dod_common.h"
#include "peers/stb_ds_glue.h"

/* stb_ds's key macros take the key's address with (typeof(key)[1]){k}; `typeof` is a GNU
 * keyword that -std=c11 does not have, __typeof__ is the same in every mode. */
#define typeof __typeof__
#include <stb/stb_ds.h>

#define MARK (UINT64_C(1) << 63) /* erase_n's "seen in this batch" bit in a map value */

struct SFX(stb_arr) {
	DOD_ELEM *items;          /* stb_ds array: the live items, dense */
	uint64_t *ids;            /* stb_ds array: ids[d] = id_key of items[d]'s id */
	struct dod_stbds_kv *map; /* stb_ds hash map: id -> d; never NULL */
	uint64_t next_id;         /* the id the next insert gets; ids 1 .. STBA_MAX_ID */
	bool unsettled;           /* the map's deferred rebuild failed (out of memory) */
};
#define STBA struct SFX(stb_arr)

/* An item costs EB bytes in items, 8 in ids, 16 in the map's entries and at least 21 in
 * its hash index (16 bytes a slot, at most 3/4 full): no count above this fits in memory
 * with stb_ds's doubling headroom, and every byte count below it fits in size_t. */
#define STBA_MAX_ELEMS (SIZE_MAX / 2 / (sizeof(DOD_ELEM) + 64))
#define STBA_MAX_ID ((UINT64_C(1) << 62) - 1)

/* A map key: the id's bits 0..30 in place, its bits 31..61 moved up to 32..62, so the
 * key's bits 31 and 63 (KEY_ZERO_BITS) are clear. */
#define KEY_LOW_BITS 31
#define KEY_LOW_MASK ((UINT64_C(1) << KEY_LOW_BITS) - 1)
#define KEY_ZERO_BITS (UINT64_C(1) << KEY_LOW_BITS | UINT64_C(1) << 63)

/* The map key of an id below 2^62. */
static inline uint64_t id_key(uint64_t id)
{
	return (id & KEY_LOW_MASK) | (id >> KEY_LOW_BITS << (KEY_LOW_BITS + 1));
}
/* The id of a key (id_key's inverse on keys with KEY_ZERO_BITS clear). */
static inline uint64_t key_id(uint64_t key)
{
	return (key & KEY_LOW_MASK) | (key >> (KEY_LOW_BITS + 1) << KEY_LOW_BITS);
}

/* Whether handle h was ever issued by s: 1 <= h < next_id (h - 1 wraps for h = 0). */
static inline bool issued(const struct SFX(stb_arr) *s, uint64_t h)
{
	return h - 1 < s->next_id - 1;
}

static void stba_destroy(void *c)
{
	STBA *s = c;
	if (!s)
		return;
	arrfree(s->items);
	arrfree(s->ids);
	hmfree(s->map);
	free(s);
}

/* Makes room for `total` live items in all three structures, without changing any of
 * them but for capacity. Returns 0 or DOD_ENOMEM. */
static int stba_reserve(STBA *s, size_t total)
{
	int err;
	void *p = dod_stbds_arr_reserve(s->items, sizeof *s->items, total, &err);
	if (err)
		return err;
	s->items = p;
	p = dod_stbds_arr_reserve(s->ids, sizeof *s->ids, total, &err);
	if (err)
		return err;
	s->ids = p;
	return dod_stbds_hm_reserve(&s->map, total);
}

/* An empty container with room for capacity_elems items in the arrays and in the hash
 * index (as many slots as growing to that size would give). Returns 0, DOD_EINVAL
 * (capacity above max_elems) or DOD_ENOMEM (nothing allocated remains). */
static int stba_create(void **out, size_t capacity_elems)
{
	if (capacity_elems > STBA_MAX_ELEMS)
		return DOD_EINVAL;
	STBA *s = calloc(1, sizeof *s);
	if (!s)
		return DOD_ENOMEM;
	s->next_id = 1;
	int err = dod_stbds_hm_create(&s->map);
	if (!err)
		err = stba_reserve(s, capacity_elems);
	if (err) {
		stba_destroy(s);
		return err;
	}
	*out = s;
	return DOD_OK;
}

/* A pending settle of the map is done before anything that may hmput. */
static int stba_settle(STBA *s)
{
	if (s->unsettled && dod_stbds_hm_settle(&s->map, NULL) != DOD_OK)
		return DOD_ENOMEM;
	s->unsettled = false;
	return DOD_OK;
}

/* Appends n items with keys first_key.., ids next_id.. (written to handles_out unless it
 * is NULL). Returns 0, DOD_ENOMEM (the container unchanged but for capacity) or
 * DOD_EFULL (the 62-bit id space would run out). O(n) amortized; may move every item
 * (pointers into the container are invalidated), handles stay valid. */
static int stba_insert_n(void *c, size_t n, uint64_t first_key, uint64_t *handles_out)
{
	STBA *s = c;
	size_t len = arrlenu(s->items);
	if (n > STBA_MAX_ELEMS - len)
		return DOD_ENOMEM;
	if (n > STBA_MAX_ID + 1 - s->next_id) /* after 2^62 inserts */
		return DOD_EFULL;
	int err = stba_settle(s);
	if (!err)
		err = stba_reserve(s, len + n);
	if (err)
		return err;
	/* From here nothing allocates: arrput finds capacity, hmput a roomy index. */
	for (size_t k = 0; k < n; k++) {
		DOD_ELEM e;
		uint64_t id = s->next_id++;
		SFX(dod_elem_init)(&e, first_key + k);
		arrput(s->items, e);
		arrput(s->ids, id_key(id));
		hmput(s->map, id_key(id), (uint64_t)(len + k));
		if (handles_out)
			handles_out[k] = id;
	}
	return DOD_OK;
}

/* The map index of handle h, or an error (< 0): DOD_ERANGE (never issued: not hashed),
 * DOD_ESTALE (not in the map: erased or cleared). hmgeti_ts writes nothing in the map. */
static ptrdiff_t find(const STBA *s, uint64_t h)
{
	if (!issued(s, h))
		return DOD_ERANGE;
	struct dod_stbds_kv *m = s->map;
	ptrdiff_t tmp, i = hmgeti_ts(m, id_key(h), tmp);
	return i < 0 ? DOD_ESTALE : i;
}

/* Erases the items of n handles, all or nothing. Pass 1 looks every handle up and sets
 * the mark bit in its map value, so a repeat in the batch is found in O(1) without an
 * allocation (DOD_EFREE); on any error the marks set so far are cleared (a second
 * lookup each) and the container is unchanged. Pass 2 erases: hmgeti for d, swap-and-pop
 * in both arrays, repoint the moved item's entry, hmdel. Returns 0 or the first failing
 * handle's error. O(n) expected; moves items, other handles stay valid. */
static int stba_erase_n(void *c, const uint64_t *hs, size_t n)
{
	STBA *s = c;
	size_t k;
	int err = DOD_OK;
	if (n == 0)
		return DOD_OK;
	for (k = 0; k < n; k++) {
		ptrdiff_t i = find(s, hs[k]);
		if (i < 0) {
			err = (int)i;
			break;
		}
		if (s->map[i].value & MARK) {
			err = DOD_EFREE;
			break;
		}
		s->map[i].value |= MARK;
	}
	if (err) {
		for (size_t j = 0; j < k; j++) {
			s->map[find(s, hs[j])].value &= ~MARK;
		}
		return err;
	}
	struct dod_stbds_hold hold;
	dod_stbds_hm_hold(s->map, &hold);
	for (k = 0; k < n; k++) {
		ptrdiff_t i = hmgeti(s->map, id_key(hs[k]));
		size_t d = (size_t)(s->map[i].value & ~MARK), last = arrlenu(s->items) - 1;
		if (d != last) {
			ptrdiff_t j = hmgeti(s->map, s->ids[last]);
			s->map[j].value = (s->map[j].value & MARK) | d;
		}
		arrdelswap(s->items, d);
		arrdelswap(s->ids, d);
		hmdel(s->map, id_key(hs[k]));
	}
	/* The items are gone whatever happens now; a failed rebuild only postpones it. */
	s->unsettled = dod_stbds_hm_settle(&s->map, &hold) != DOD_OK;
	return DOD_OK;
}

static uint64_t stba_iterate_sum(const void *c)
{
	const STBA *s = c;
	const DOD_ELEM *it = s->items;
	size_t n = arrlenu(it);
	uint64_t sum = 0;
	for (size_t d = 0; d < n; d++)
		sum += it[d].key;
	return sum;
}

/* Sums the keys of n handles, each validated. Returns 0, or the first invalid handle's
 * DOD_ERANGE / DOD_ESTALE. O(n) expected. */
static int stba_lookup_sum(const void *c, const uint64_t *hs, size_t n, uint64_t *sum_out)
{
	const STBA *s = c;
	const struct dod_stbds_kv *m = s->map;
	const DOD_ELEM *it = s->items;
	uint64_t sum = 0;
	for (size_t k = 0; k < n; k++) {
		ptrdiff_t i = find(s, hs[k]);
		if (i < 0)
			return (int)i;
		sum += it[m[i].value].key;
	}
	*sum_out = sum;
	return DOD_OK;
}

static size_t stba_count_valid(const void *c, const uint64_t *hs, size_t n)
{
	size_t valid = 0;
	for (size_t k = 0; k < n; k++)
		valid += find(c, hs[k]) >= 0;
	return valid;
}

/* Removes every item, keeping every capacity (the map in place: it cannot fail). Ids are
 * not reused, so every old handle is stale afterwards. */
static int stba_clear(void *c)
{
	STBA *s = c;
	arrsetlen(s->items, 0);
	arrsetlen(s->ids, 0);
	dod_stbds_hm_clear(s->map);
	s->unsettled = false; /* an empty index has no tombstones */
	return DOD_OK;
}

static void stba_dump_keys(const void *c, uint64_t *keys_out)
{
	const STBA *s = c;
	for (size_t d = 0; d < arrlenu(s->items); d++)
		keys_out[d] = s->items[d].key;
}

static size_t stba_size(const void *c) { return arrlenu(((const STBA *)c)->items); }

/* Bytes of an stb_ds array as requested from realloc: its header and its capacity. */
static size_t arr_bytes(size_t cap, size_t elem_bytes)
{
	return cap ? sizeof(stbds_array_header) + cap * elem_bytes : 0;
}

/* Committed heap bytes as requested from the allocator (its own headers not visible):
 * the struct, both arrays' capacities, the map's entry array and its hash index
 * (dod_stbds_hm_bytes: (slots / 8) 128-byte buckets + index header + 63). */
static size_t stba_footprint(const void *c)
{
	const STBA *s = c;
	return sizeof *s + arr_bytes(arrcap(s->items), sizeof *s->items) +
	       arr_bytes(arrcap(s->ids), sizeof *s->ids) + dod_stbds_hm_bytes(s->map);
}

/* dod_ops.check: the invariants of the opening comment: items, ids and map hold the same
 * number of entries; every ids[d] is the key of an issued id and maps to d, without the
 * mark bit (so every live handle resolves to its item). O(n) expected. */
static int stba_check(const void *c, char *why, size_t len)
{
	const STBA *s = c;
	size_t n = arrlenu(s->items);
	if (arrlenu(s->ids) != n || (size_t)hmlen(s->map) != n)
		return dod_check_fail(why, len, "%zu items, %zu ids, %zu map entries", n,
		                      arrlenu(s->ids), (size_t)hmlen(s->map));
	if (s->next_id < 1 || s->next_id > STBA_MAX_ID + 1)
		return dod_check_fail(why, len, "next_id %llu", (unsigned long long)s->next_id);
	for (size_t d = 0; d < n; d++) {
		uint64_t key = s->ids[d];
		uint64_t id = key_id(key);
		if ((key & KEY_ZERO_BITS) || id_key(id) != key ||
		    !issued(s, id))
			return dod_check_fail(why, len, "ids[%zu] = %#llx is not the key of an issued id", d,
			                      (unsigned long long)key);
		ptrdiff_t i = find(s, id);
		if (i < 0 || s->map[i].value != d)
			return dod_check_fail(why, len, "id %llu of items[%zu] maps to %lld",
			                      (unsigned long long)id, d,
			                      i < 0 ? (long long)i : (long long)s->map[i].value);
	}
	return DOD_OK;
}

const struct dod_ops DOD_OPS_SYMBOL = {
	DOD_DESCRIPTOR,
	.source = "stb_ds (Sean Barrett, libstb-dev): arrput/arrdelswap + hmput/hmgeti/hmdel "
	          "id -> index map; peer of Bulk Data's swap-and-pop lookup table",
	.max_elems = STBA_MAX_ELEMS,
	.create = stba_create,
	.destroy = stba_destroy,
	.insert_n = stba_insert_n,
	.iterate_sum = stba_iterate_sum,
	.lookup_sum = stba_lookup_sum,
	.erase_n = stba_erase_n,
	.count_valid = stba_count_valid,
	.clear = stba_clear,
	.dump_keys = stba_dump_keys,
	.size = stba_size,
	.footprint_bytes = stba_footprint,
	.check = stba_check,
};
