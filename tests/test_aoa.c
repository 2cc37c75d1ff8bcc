/* test_aoa.c - the arrays-of-arrays family (containers/aoa/, containers/aoa_contract.h;
 * Niklas Gray, "Allocation Adventures 2: Arrays of Arrays"): what the model of
 * test_conformance and the fuzzer cannot see.
 * - aoa_fixed8 refuses a 9th tag cleanly: counted in refused_out, the other items of the
 *   batch added, the entity's 8 kept; a removal makes room again;
 * - the node designs (aoa_linked_nodes, aoa_chunked8, aoa_chunked14) reuse a removed node
 *   (LIFO: the next add takes it), never hand out or write node 0 (nil), keep every
 *   chunk but a chain's head full, and their check catches a written nil;
 * - aoa_buddy's lists grow in place while their buddies are free and move when not, a
 *   full arena is rebuilt larger with every tag kept, clear keeps the arena, and the
 *   check catches a list whose block was freed underneath it;
 * - aoa_chunked8_sorted (aoa/chunk_sort.h): after a scattered build, removals, erasures
 *   and slot reuse, two walks leave every chain contiguous and in slot order from chunk 1
 *   (checked from the chunks' indices, aoa/sort_hook.h, not from the container's own
 *   flag), every entity's tags in the same order as before, and the next walk does no
 *   work; no call runs more steps than its bound (2 per batch item, one pass' worth per
 *   walk; read from the container's step counter, not a clock); reads do not sort; its
 *   check catches a pass that claims a prefix it has not placed;
 * - aoa_vec_add16's capacity grows by exactly 16 tags, each growth a new block with the
 *   whole list copied (dod_growth: moved, every byte copied), the contents kept, where
 *   aoa_vec_of_vecs doubles; its check catches a capacity off the step;
 * - memory statistics are exact on crafted inputs, for every design and the peer;
 * - a bad entity (stale, free, out of range) fails a tags batch whole, changing nothing.
 * White-box reads mirror the front of aoa/aoa_core.h's struct aoa (the entity table's
 * fields, then the design's store, which starts with its struct aoa_pool for the node
 * designs; aoa_buddy's whole store; aoa_chunked8_sorted's sort cursor; the vectors'
 * headers and counts).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "hb.h"
#include "alloc/buddy.h"
#include "aoa/node_pool.h"
#include "aoa/sort_hook.h"
#include "bulk/weak.h"
#include "cmocka_helpers.h"

/* The front of struct aoa (aoa/aoa_core.h) for a node design. */
struct aoa_front {
	void *slots, *hdr;
	size_t cap, hdr_cap, n_slots, high, live;
	struct aoa_pool pool;
};

/* struct aoa of aoa_buddy (aoa/buddy_lists.c): the entity table, its headers and store. */
struct bl_hdr {
	uint32_t *a;
	uint32_t n, cap;
};
struct bl_front {
	void *slots;
	struct bl_hdr *hdr;
	size_t cap, hdr_cap, n_slots, high, live;
	size_t tags, array_bytes;
	struct buddy b;
	char *arena;
	size_t arena_bytes, tree_bytes;
};

/* struct aoa of aoa_chunked8_sorted (aoa/chunked.c): the node front, then its counts and
 * sort cursor. */
struct sorted_front {
	struct aoa_front f;
	size_t live_nodes, tags;
	struct {
		uint32_t entered, at, placed;
		bool dirty;
		uint64_t steps, swaps;
	} sort;
};
void dod_ops_aoa_chunked8_sorted_sort_probe_8(const void *c, struct aoa_sort_probe *out);
int dod_ops_aoa_chunked8_sorted_sort_chain_8(const void *c, uint64_t ent,
                                             uint32_t *chunks_out, size_t room,
                                             size_t *count_out);
size_t dod_ops_aoa_chunked8_sorted_sort_run_8(void *c, size_t steps);

/* struct aoa of aoa_vec_of_vecs and aoa_vec_add16 (aoa/vec_of_vecs.c). */
struct vec_front {
	void *slots;
	struct bl_hdr *hdr;
	size_t cap, hdr_cap, n_slots, high, live;
	size_t tags, array_bytes;
};

static const char *const designs[] = {"aoa_vec_of_vecs", "aoa_vec_add16", "aoa_fixed8",
                                      "aoa_linked_nodes", "aoa_chunked8", "aoa_chunked14",
                                      "aoa_chunked8_sorted",
                                      "aoa_buddy", "peer_std_vector_vector"};
#define N_DESIGNS (sizeof designs / sizeof designs[0])

/* A container of ops with n entities (handles to hs). */
static void *make(const struct dod_ops *ops, size_t n, uint64_t *hs)
{
	void *c;
	assert_int_equal(ops->create(&c, n), DOD_OK);
	assert_int_equal(ops->insert_n(c, n, 100, hs), DOD_OK);
	return c;
}

/* Adds count tags (first, first + 1, ...) to entity e; returns the refusals. */
static size_t add_to(const struct dod_ops *ops, void *c, uint64_t e, uint32_t first,
                     size_t count)
{
	uint64_t ents[64];
	uint32_t tags[64];
	size_t refused = SIZE_MAX;
	assert_true(count <= 64);
	for (size_t i = 0; i < count; i++) {
		ents[i] = e;
		tags[i] = first + (uint32_t)i;
	}
	assert_int_equal(ops->tags->add_n(c, ents, tags, count, &refused), DOD_OK);
	tc_check_ok(ops, c);
	return refused;
}

static size_t count_of(const struct dod_ops *ops, const void *c, uint64_t e)
{
	size_t n = SIZE_MAX;
	assert_int_equal(ops->tags->tags_of(c, e, NULL, 0, &n), DOD_OK);
	return n;
}

static void test_fixed8_refuses_a_ninth_tag(void **state)
{
	(void)state;
	const struct dod_ops *ops = tc_find("aoa_fixed8", 8);
	uint64_t hs[2];
	void *c = make(ops, 2, hs);
	assert_int_equal(ops->tags->max_tags, 8);
	assert_int_equal(add_to(ops, c, hs[0], 1, 8), 0);
	/* A batch of the full entity's 9th and 10th and the other entity's first: two
	 * refused, the other added, the full one unchanged. */
	uint64_t ents[3] = {hs[0], hs[1], hs[0]};
	uint32_t tags[3] = {9, 50, 10}, got[9];
	size_t refused = 0, n = 0, removed = 0;
	assert_int_equal(ops->tags->add_n(c, ents, tags, 3, &refused), DOD_OK);
	assert_int_equal(refused, 2);
	assert_int_equal(ops->tags->tags_of(c, hs[0], got, 9, &n), DOD_OK);
	assert_int_equal(n, 8);
	for (size_t i = 0; i < 8; i++)
		assert_true(got[i] >= 1 && got[i] <= 8);
	assert_int_equal(count_of(ops, c, hs[1]), 1);
	/* One removed: room for one more. */
	assert_int_equal(ops->tags->remove_n(c, &hs[0], (uint32_t[]){3}, 1, &removed), DOD_OK);
	assert_int_equal(removed, 1);
	assert_int_equal(add_to(ops, c, hs[0], 9, 2), 1);
	assert_int_equal(count_of(ops, c, hs[0]), 8);
	tc_check_ok(ops, c);
	ops->destroy(c);
}

/* A removed node is the next one taken (LIFO), node 0 is never handed out nor written,
 * and a written nil is caught by the check. k: tags a node holds (linked: 1). */
static void node_reuse(const char *name, size_t k)
{
	const struct dod_ops *ops = tc_find(name, 8);
	uint64_t hs[2], ents[40];
	uint32_t tags[40];
	void *c = make(ops, 2, hs);
	struct aoa_front *a = c;
	assert_int_equal(add_to(ops, c, hs[0], 1, 40), 0);
	size_t nodes = a->pool.n_nodes, removed = 0, head = 40 % k ? 40 % k : k;
	uint64_t grows = dod_growth.grows;
	/* The head node's tags (the latest added): one node freed. */
	for (size_t i = 0; i < 40; i++)
		ents[i] = hs[0], tags[i] = (uint32_t)(40 - i);
	assert_int_equal(ops->tags->remove_n(c, ents, tags, head, &removed), DOD_OK);
	assert_int_equal(removed, head);
	assert_int_equal(a->pool.n_free, 1);
	assert_true(a->pool.free_head != 0);
	assert_int_equal(add_to(ops, c, hs[1], 100, 1), 0);
	assert_int_equal(a->pool.free_head, 0); /* taken again */
	assert_int_equal(a->pool.n_nodes, nodes);
	/* Remove the rest, add as many again: the same nodes, no growth. */
	assert_int_equal(ops->tags->remove_n(c, ents + head, tags + head, 40 - head, &removed),
	                 DOD_OK);
	assert_int_equal(removed, 40 - head);
	assert_int_equal(count_of(ops, c, hs[0]), 0);
	assert_int_equal(add_to(ops, c, hs[0], 1000, 40 - head), 0);
	assert_int_equal(a->pool.n_nodes, nodes);
	assert_int_equal(dod_growth.grows, grows);
	for (size_t b = 0; b < 8; b++) /* the smallest node: linked's {tag, next} */
		assert_int_equal(a->pool.base[b], 0);
	a->pool.base[0] = 1; /* nil written: caught */
	char why[256];
	assert_int_not_equal(ops->check(c, why, sizeof why), DOD_OK);
	assert_non_null(strstr(why, "nil"));
	a->pool.base[0] = 0;
	tc_check_ok(ops, c);
	ops->destroy(c);
}

static void test_nodes_reused_nil_kept(void **state)
{
	(void)state;
	node_reuse("aoa_linked_nodes", 1);
	node_reuse("aoa_chunked8", 8);
	node_reuse("aoa_chunked14", 14);
}

/* Whether entity e holds exactly the tags first .. first + count - 1 (in any order). */
static bool holds_run(const struct dod_ops *ops, const void *c, uint64_t e, uint32_t first,
                      size_t count)
{
	uint32_t got[256];
	bool seen[256] = {false};
	size_t n = 0;
	assert_true(count <= 256);
	assert_int_equal(ops->tags->tags_of(c, e, got, 256, &n), DOD_OK);
	if (n != count)
		return false;
	for (size_t i = 0; i < n; i++) {
		if (got[i] < first || got[i] - first >= count || seen[got[i] - first])
			return false;
		seen[got[i] - first] = true;
	}
	return true;
}

/* aoa_buddy (create(2): a 1 KiB tree): entity 0's list grows in place while its buddies
 * are free; entity 1's first block lands in its buddy (the smallest free block that fits),
 * so it moves next; a list larger than the free space rebuilds the arena larger (one
 * counted growth that moved), every tag kept; clear keeps the arena; a block freed under
 * a list fails the check. */
static void test_buddy_lists_grow_in_place_move_and_rebuild(void **state)
{
	(void)state;
	const struct dod_ops *ops = tc_find("aoa_buddy", 8);
	uint64_t hs[2];
	void *c = make(ops, 2, hs);
	struct bl_front *a = c;
	const uint32_t e0 = bulk_weak_id(hs[0]), e1 = bulk_weak_id(hs[1]);
	assert_int_equal(a->tree_bytes, 1024);
	add_to(ops, c, hs[0], 1, 2);
	uint32_t *first = a->hdr[e0].a;
	assert_int_equal(a->hdr[e0].cap, 2);
	struct dod_growth_counts before = dod_growth;
	add_to(ops, c, hs[0], 3, 6); /* 2 -> 4 -> 8 tags' room, in place */
	assert_ptr_equal(a->hdr[e0].a, first);
	assert_int_equal(a->hdr[e0].cap, 8);
	assert_int_equal(dod_growth.grows - before.grows, 2);
	assert_int_equal(dod_growth.moves, before.moves);
	add_to(ops, c, hs[1], 100, 1); /* 8 B: the free 32 B buddy of entity 0's block, split */
	assert_ptr_equal((char *)a->hdr[e1].a, (char *)first + 32);
	add_to(ops, c, hs[0], 9, 1); /* 16 tags' room: the buddy is taken, so it moves */
	assert_ptr_not_equal(a->hdr[e0].a, first);
	assert_int_equal(dod_growth.moves - before.moves, 1);
	assert_int_equal(dod_growth.copied_bytes - before.copied_bytes, 32);
	/* Entity 1 to 150 tags: a 1 KiB block, past the free space: the arena is rebuilt. */
	char *arena = a->arena;
	before = dod_growth;
	for (uint32_t k = 0; k < 149; k += 50)
		add_to(ops, c, hs[1], 101 + k, k + 50 <= 149 ? 50 : 149 - k);
	assert_ptr_not_equal(a->arena, arena);
	assert_int_equal(a->tree_bytes, 4096); /* twice 1600 B: 64 + 512 B of blocks, 1 KiB asked */
	assert_true(dod_growth.moves > before.moves);
	assert_true(holds_run(ops, c, hs[0], 1, 9) && holds_run(ops, c, hs[1], 100, 150));
	assert_int_equal(ops->footprint_bytes(c), sizeof *a + a->cap * 16 +
	                 a->hdr_cap * sizeof(struct bl_hdr) + a->arena_bytes);
	/* clear: the same arena, empty; lists start again. */
	size_t tree = a->tree_bytes;
	arena = a->arena;
	assert_int_equal(ops->clear(c), DOD_OK);
	tc_check_ok(ops, c);
	assert_int_equal(ops->insert_n(c, 2, 7, hs), DOD_OK);
	add_to(ops, c, hs[0], 5, 3);
	assert_true(a->arena == arena && a->tree_bytes == tree && holds_run(ops, c, hs[0], 5, 3));
	/* A list's block freed underneath it: caught. */
	assert_int_equal(buddy_free(&a->b, a->hdr[bulk_weak_id(hs[0])].a), DOD_OK);
	char why[256];
	assert_int_not_equal(ops->check(c, why, sizeof why), DOD_OK);
	assert_non_null(strstr(why, "not an allocated block"));
	ops->destroy(c);
}

/* ---- aoa_chunked8_sorted (aoa/chunk_sort.h) ---- */

#define SN 200   /* entities */
#define SMAX 40  /* most tags one gets */

struct sorted_run {
	const struct dod_ops *ops;
	void *c;
	uint64_t by_slot[SN + 1]; /* the live entity of each slot, 0: free */
	uint64_t rng;
};

static uint64_t s_rand(struct sorted_run *r, uint64_t below)
{
	r->rng ^= r->rng << 13;
	r->rng ^= r->rng >> 7;
	r->rng ^= r->rng << 17;
	return r->rng % below;
}

static struct aoa_sort_probe s_probe(const void *c)
{
	struct aoa_sort_probe p;
	dod_ops_aoa_chunked8_sorted_sort_probe_8(c, &p);
	return p;
}

/* add_n, or remove_n (remove), of n pairs: at most 2 steps an item, swaps among them. */
static void s_batch(struct sorted_run *r, const uint64_t *ents, const uint32_t *tags,
                    size_t n, bool remove)
{
	struct aoa_sort_probe b = s_probe(r->c), e;
	size_t out;
	assert_int_equal(remove ? r->ops->tags->remove_n(r->c, ents, tags, n, &out)
	                        : r->ops->tags->add_n(r->c, ents, tags, n, &out), DOD_OK);
	e = s_probe(r->c);
	assert_true(e.steps - b.steps <= 2 * n);
	assert_true(e.swaps - b.swaps <= e.steps - b.steps);
	tc_check_ok(r->ops, r->c);
}

/* A walk: the sum; at most one step per slot and chunk. Returns its steps. */
static uint64_t s_walk(struct sorted_run *r, uint64_t sum)
{
	struct aoa_sort_probe b = s_probe(r->c), e;
	assert_int_equal(r->ops->tags->walk_sum(r->c), sum);
	e = s_probe(r->c);
	assert_true(e.steps - b.steps <= SN + b.chunks);
	tc_check_ok(r->ops, r->c);
	return e.steps - b.steps;
}

/* From the chunks' indices alone: the chains of the live entities by_slot[1 .. slots]
 * (0: a free slot) in slot order are chunks 1, 2, ..., every live chunk. */
static bool chains_contiguous(const void *c, const uint64_t *by_slot, size_t slots)
{
	uint32_t idx[SMAX + 8];
	size_t next = 1, count;
	for (size_t i = 1; i <= slots; i++) {
		if (!by_slot[i])
			continue;
		assert_int_equal(dod_ops_aoa_chunked8_sorted_sort_chain_8(c, by_slot[i], idx,
		                                                          SMAX + 8, &count), DOD_OK);
		assert_true(count <= SMAX + 8);
		for (size_t k = 0; k < count; k++)
			if (idx[k] != next++)
				return false;
	}
	return next - 1 == s_probe(c).chunks;
}
static bool s_contiguous(const struct sorted_run *r)
{
	return chains_contiguous(r->c, r->by_slot, SN);
}

/* Every live entity's tags in the design's order (room SMAX + 8 each); returns their sum. */
static uint64_t s_lists(const struct sorted_run *r, uint32_t (*lists)[SMAX + 8],
                        size_t *counts)
{
	uint64_t sum = 0;
	for (size_t i = 1; i <= SN; i++) {
		counts[i] = 0;
		if (r->by_slot[i])
			assert_int_equal(r->ops->tags->tags_of(r->c, r->by_slot[i], lists[i], SMAX + 8,
			                                       &counts[i]), DOD_OK);
		for (size_t k = 0; k < counts[i]; k++)
			sum += lists[i][k];
	}
	return sum;
}

/* SN entities, 1..SMAX tags each added in one shuffled interleaving (batches of 1..64),
 * then a third of the planned tags removed (some twice), 20 entities erased, 10 new ones
 * in their slots with a few tags. */
static void s_build(struct sorted_run *r)
{
	static uint64_t ents[SN * SMAX];
	static uint32_t tags[SN * SMAX];
	uint64_t hs[SN];
	size_t total = 0;
	r->ops = tc_find("aoa_chunked8_sorted", 8);
	r->c = make(r->ops, SN, hs);
	for (size_t e = 0; e < SN; e++) {
		r->by_slot[bulk_weak_id(hs[e])] = hs[e];
		for (size_t j = 1 + s_rand(r, SMAX); j; j--, total++)
			ents[total] = hs[e], tags[total] = 2 * (uint32_t)total + 1;
	}
	for (size_t k = total - 1; k; k--) { /* shuffle the pairs (tags stay distinct) */
		size_t j = s_rand(r, k + 1);
		uint64_t te = ents[k];
		uint32_t tt = tags[k];
		ents[k] = ents[j], tags[k] = tags[j], ents[j] = te, tags[j] = tt;
	}
	for (size_t at = 0, b; at < total; at += b) {
		b = 1 + s_rand(r, 64);
		b = b < total - at ? b : total - at;
		s_batch(r, ents + at, tags + at, b, false);
	}
	for (size_t at = 0; at < total; at += 21) /* pairs (at .. at + 6) of every 21 */
		s_batch(r, ents + at, tags + at, at + 7 < total ? 7 : total - at, true);
	for (size_t k = 0; k < 20; k++) {
		uint32_t i = 1 + 10 * (uint32_t)k;
		struct aoa_sort_probe b = s_probe(r->c);
		assert_int_equal(r->ops->erase_n(r->c, &r->by_slot[i], 1), DOD_OK);
		assert_true(s_probe(r->c).steps - b.steps <= 2);
		r->by_slot[i] = 0;
	}
	assert_int_equal(r->ops->insert_n(r->c, 10, 7, hs), DOD_OK);
	for (size_t k = 0; k < 10; k++) {
		r->by_slot[bulk_weak_id(hs[k])] = hs[k];
		uint64_t e[12] = {hs[k], hs[k], hs[k], hs[k], hs[k], hs[k], hs[k], hs[k], hs[k],
		                  hs[k], hs[k], hs[k]};
		uint32_t t[12];
		for (uint32_t j = 0; j < 12; j++)
			t[j] = 1000001 + 2 * (12 * (uint32_t)k + j);
		s_batch(r, e, t, 1 + k, false);
	}
	tc_check_ok(r->ops, r->c);
}

static void test_sorted_chains_become_contiguous(void **state)
{
	(void)state;
	static uint32_t before[SN + 1][SMAX + 8], after[SN + 1][SMAX + 8];
	size_t nb[SN + 1], na[SN + 1], found;
	struct sorted_run r = {.rng = 0x5EED};
	s_build(&r);
	uint64_t sum = s_lists(&r, before, nb), steps = s_probe(r.c).steps;
	/* Reads do not sort. */
	assert_int_equal(r.ops->tags->has_n(r.c, &r.by_slot[2], before[2], 1, &found), DOD_OK);
	assert_int_equal(s_probe(r.c).steps, steps);
	/* Two walks: sorted, from the indices; the lists as they were; a third walk idle. */
	s_walk(&r, sum);
	s_walk(&r, sum);
	assert_true(s_probe(r.c).sorted && s_contiguous(&r));
	assert_true(s_probe(r.c).swaps > 0);
	assert_int_equal(s_lists(&r, after, na), sum);
	for (size_t i = 1; i <= SN; i++) {
		assert_int_equal(na[i], nb[i]);
		assert_memory_equal(after[i], before[i], nb[i] * sizeof before[i][0]);
	}
	assert_int_equal(s_walk(&r, sum), 0);
	/* A new head for slot 2 (8 tags: at least one new chunk, taken at the end), then
	 * every tag of slot 5 gone (its chunks in the middle freed): scattered again; two
	 * walks sort it again. */
	uint64_t e2[8];
	uint32_t t2[8];
	for (uint32_t j = 0; j < 8; j++)
		e2[j] = r.by_slot[2], t2[j] = 3000001 + 2 * j, sum += t2[j];
	s_batch(&r, e2, t2, 8, false);
	assert_false(s_probe(r.c).sorted || s_contiguous(&r));
	uint64_t e5[SMAX + 8];
	for (size_t k = 0; k < nb[5]; k++)
		e5[k] = r.by_slot[5], sum -= before[5][k];
	s_batch(&r, e5, before[5], nb[5], true);
	/* The check sees a clean pass that claims one chunk more than it placed. */
	struct sorted_front *a = r.c;
	char why[256];
	bool dirty = a->sort.dirty;
	a->sort.dirty = false;
	a->sort.placed++;
	assert_int_not_equal(r.ops->check(r.c, why, sizeof why), DOD_OK);
	assert_true(strstr(why, "placed") || strstr(why, "clean pass"));
	a->sort.dirty = dirty;
	a->sort.placed--;
	tc_check_ok(r.ops, r.c);
	s_walk(&r, sum);
	s_walk(&r, sum);
	assert_true(s_probe(r.c).sorted && s_contiguous(&r)); /* slot 5 lives on, no tags */
	r.ops->destroy(r.c);
}

/* A small world: slots 1 and 6 without tags, 2: 9 tags (2 chunks), 3: 1, 4: 17 (3
 * chunks), 5: 1, added one a call round robin, so the chains interleave: 7 chunks, a pass
 * of 6 + 7 steps. */
static const uint32_t small_counts[6] = {0, 9, 1, 17, 1, 0};

static void *small_world(const struct dod_ops *ops, uint64_t *by_slot)
{
	uint64_t hs[6];
	void *c = make(ops, 6, hs);
	for (uint32_t round = 0; round < 17; round++)
		for (size_t e = 0; e < 6; e++)
			if (round < small_counts[e])
				add_to(ops, c, hs[e], 100 * (uint32_t)e + 1 + round, 1);
	for (size_t e = 0; e < 6; e++)
		by_slot[bulk_weak_id(hs[e])] = hs[e];
	return c;
}

/* Sum of every tag by tags_of (a read: no sort step). */
static uint64_t small_sum(const struct dod_ops *ops, const void *c, const uint64_t *by_slot)
{
	uint32_t t[SMAX + 8];
	size_t n;
	uint64_t sum = 0;
	for (size_t i = 1; i <= 6; i++)
		if (by_slot[i]) {
			assert_int_equal(ops->tags->tags_of(c, by_slot[i], t, SMAX + 8, &n), DOD_OK);
			for (size_t k = 0; k < n; k++)
				sum += t[k];
		}
	return sum;
}

/* Change number `change` of slot i: 0 its head chunk emptied (freed), 1 eight tags more
 * (a new head chunk), 2 the entity erased. Returns the change in the tags' sum. */
static int64_t small_change(const struct dod_ops *ops, void *c, uint64_t *by_slot, size_t i,
                            int change)
{
	uint32_t t[SMAX + 8];
	uint64_t ents[SMAX + 8];
	size_t n, out;
	int64_t delta = 0;
	assert_int_equal(ops->tags->tags_of(c, by_slot[i], t, SMAX + 8, &n), DOD_OK);
	if (change == 2) {
		assert_int_equal(ops->erase_n(c, &by_slot[i], 1), DOD_OK);
		by_slot[i] = 0;
		for (size_t k = 0; k < n; k++)
			delta -= t[k];
		return delta;
	}
	size_t head = change ? 8 : (n % 8 ? n % 8 : n ? 8 : 0); /* tags_of: head chunk first */
	for (size_t k = 0; k < head; k++) {
		ents[k] = by_slot[i];
		if (change)
			t[k] = 9001 + 2 * (uint32_t)k;
		delta += change ? (int64_t)t[k] : -(int64_t)t[k];
	}
	assert_int_equal(change ? ops->tags->add_n(c, ents, t, head, &out)
	                        : ops->tags->remove_n(c, ents, t, head, &out), DOD_OK);
	assert_int_equal(out, change ? 0 : head);
	return delta;
}

/* Every cursor position of the pass (through the rest of the pass the build left and the
 * whole next one) x every kind of change to every slot: the check holds right after, no
 * tag is lost or gained, and the pass then sorts the buffer. */
static void test_sorted_every_cursor_every_change(void **state)
{
	(void)state;
	const struct dod_ops *ops = tc_find("aoa_chunked8_sorted", 8);
	for (size_t k = 0; k <= 2 * 13 + 2; k++)
		for (size_t i = 1; i <= 6; i++)
			for (int change = 0; change < 3; change++) {
				uint64_t by_slot[7] = {0};
				void *c = small_world(ops, by_slot);
				dod_ops_aoa_chunked8_sorted_sort_run_8(c, k);
				tc_check_ok(ops, c);
				uint64_t sum = small_sum(ops, c, by_slot);
				sum += (uint64_t)small_change(ops, c, by_slot, i, change);
				tc_check_ok(ops, c);
				assert_int_equal(small_sum(ops, c, by_slot), sum);
				dod_ops_aoa_chunked8_sorted_sort_run_8(c, 1000);
				tc_check_ok(ops, c);
				if (!s_probe(c).sorted || !chains_contiguous(c, by_slot, 6))
					fail_msg("%zu steps, change %d of slot %zu: not sorted after", k,
					         change, i);
				assert_int_equal(ops->tags->walk_sum(c), sum);
				ops->destroy(c);
			}
}

/* The bound is what a call runs when the pass has work: a batch of k items runs exactly
 * 2k steps on a scattered buffer, a walk at most a pass, nothing once sorted; an add that
 * takes no chunk keeps the buffer sorted. */
static void test_sorted_work_per_call_bounded(void **state)
{
	(void)state;
	struct sorted_run r = {.rng = 0xB0B};
	s_build(&r);
	struct aoa_sort_probe b = s_probe(r.c);
	uint64_t ent = r.by_slot[3];
	uint32_t tag = 7;
	size_t removed;
	assert_false(b.sorted);
	assert_int_equal(r.ops->tags->remove_n(r.c, &ent, &tag, 1, &removed), DOD_OK);
	assert_int_equal(removed, 0);
	assert_int_equal(s_probe(r.c).steps - b.steps, 2); /* an absent tag is an access too */
	uint64_t sum = r.ops->tags->walk_sum(r.c), walked = s_probe(r.c).steps - b.steps - 2;
	assert_true(walked > 0 && walked <= SN + b.chunks);
	while (!s_probe(r.c).sorted)
		s_walk(&r, sum);
	assert_true(s_contiguous(&r));
	b = s_probe(r.c);
	assert_int_equal(r.ops->tags->remove_n(r.c, &ent, &tag, 1, &removed), DOD_OK);
	assert_int_equal(s_probe(r.c).steps, b.steps);
	/* Slot 3's head has room (its chain was not built to a multiple of 8) or not: add
	 * until a tag lands without a new chunk and check the buffer stayed sorted. */
	size_t count;
	assert_int_equal(r.ops->tags->tags_of(r.c, ent, NULL, 0, &count), DOD_OK);
	if (count % 8) {
		s_batch(&r, &ent, (uint32_t[]){5000001}, 1, false);
		assert_true(s_probe(r.c).sorted && s_contiguous(&r));
	}
	r.ops->destroy(r.c);
}

/* aoa_vec_add16: entity 0 to 48 tags in steps, entity 1's adds between them. Room for 16,
 * 32, 48 tags (memory's unit_bytes and the header); each growth one dod_growth growth that
 * moved (malloc before free: never the same block) and copied the whole list, realloc
 * never asked; every tag kept. aoa_vec_of_vecs on the same adds: 1, 2, 4, ... 64. A cap
 * off the step fails the check. */
static void test_add16_grows_by_16_and_copies(void **state)
{
	(void)state;
	const struct dod_ops *ops = tc_find("aoa_vec_add16", 8), *x2 = tc_find("aoa_vec_of_vecs", 8);
	uint64_t hs[2], hx[2];
	void *c = make(ops, 2, hs), *cx = make(x2, 2, hx);
	struct vec_front *a = c;
	const uint32_t e0 = bulk_weak_id(hs[0]);
	struct dod_tags_memory m;
	size_t room = 0, added = 0;
	for (size_t step = 0; step < 6; step++) { /* 1, 15, 1, 15, 1, 15 tags */
		size_t k = step % 2 ? 15 : 1;
		uint32_t *was = a->hdr[e0].a;
		struct dod_growth_counts before = dod_growth;
		add_to(ops, c, hs[0], 1 + (uint32_t)added, k);
		if (added + k > room) { /* one growth (the first add's, from nothing, not counted) */
			assert_int_equal(dod_growth.grows - before.grows, room ? 1 : 0);
			assert_int_equal(dod_growth.moves - before.moves, room ? 1 : 0);
			assert_int_equal(dod_growth.copied_bytes - before.copied_bytes, room * 4);
			assert_ptr_not_equal(a->hdr[e0].a, was);
			room += 16;
		} else {
			assert_int_equal(dod_growth.grows, before.grows);
			assert_ptr_equal(a->hdr[e0].a, was);
		}
		add_to(x2, cx, hx[0], 1 + (uint32_t)added, k);
		add_to(ops, c, hs[1], 1000 + (uint32_t)step, 1);
		added += k;
		assert_int_equal(a->hdr[e0].cap, room);
		assert_int_equal(a->hdr[e0].n, added);
		ops->tags->memory(c, &m);
		assert_int_equal(m.tags, added + step + 1);
		assert_int_equal(m.unit_bytes, (room + 16) * 4); /* entity 1: under 16 tags */
		assert_true(holds_run(ops, c, hs[0], 1, added));
	}
	assert_int_equal(room, 48);
	x2->tags->memory(cx, &m);
	assert_int_equal(m.unit_bytes, 64 * 4); /* 48 tags: x2's 64 tags' room */
	assert_true(holds_run(x2, cx, hx[0], 1, added));
	a->hdr[e0].cap = 56; /* (not written to) the bytes count too: only the step is wrong */
	a->array_bytes += 8 * 4;
	char why[256];
	assert_int_not_equal(ops->check(c, why, sizeof why), DOD_OK);
	assert_non_null(strstr(why, "not a multiple of 16"));
	a->hdr[e0].cap = 48;
	a->array_bytes -= 8 * 4;
	tc_check_ok(ops, c);
	ops->destroy(c);
	x2->destroy(cx);
}

/* Entity 0: 3 tags, entity 1: 9, entity 2: none; then 2 of entity 1's removed. */
static void crafted(const char *name, size_t tags1, size_t unit1, size_t tags2, size_t unit2)
{
	const struct dod_ops *ops = tc_find(name, 8);
	uint64_t hs[3];
	void *c = make(ops, 3, hs);
	struct dod_tags_memory m;
	add_to(ops, c, hs[0], 1, 3);
	add_to(ops, c, hs[1], 11, 9);
	ops->tags->memory(c, &m);
	if (m.tags != tags1 || m.unit_bytes != unit1 || m.held_bytes != ops->footprint_bytes(c))
		fail_msg("%s: %zu tags in %zu B (held %zu), want %zu in %zu B", name, m.tags,
		         m.unit_bytes, m.held_bytes, tags1, unit1);
	size_t removed = 0;
	uint64_t ents[2] = {hs[1], hs[1]};
	assert_int_equal(ops->tags->remove_n(c, ents, (uint32_t[]){11, 12}, 2, &removed), DOD_OK);
	assert_int_equal(removed, 2);
	ops->tags->memory(c, &m);
	if (m.tags != tags2 || m.unit_bytes != unit2)
		fail_msg("%s after removals: %zu tags in %zu B, want %zu in %zu B", name, m.tags,
		         m.unit_bytes, tags2, unit2);
	tc_check_ok(ops, c);
	ops->destroy(c);
}

static void test_memory_statistics_exact(void **state)
{
	(void)state;
	/* fixed8: one 36-byte record an entity, the 9th tag refused. */
	crafted("aoa_fixed8", 11, 3 * 36, 9, 3 * 36);
	/* vectors: capacity 1, 2, 4 ... : 4 + 16 tags' room; kept after removals. */
	crafted("aoa_vec_of_vecs", 12, (4 + 16) * 4, 10, (4 + 16) * 4);
	crafted("peer_std_vector_vector", 12, (4 + 16) * 4, 10, (4 + 16) * 4);
	/* +16: 16 tags' room each (3 and 9 tags). */
	crafted("aoa_vec_add16", 12, (16 + 16) * 4, 10, (16 + 16) * 4);
	/* buddy blocks: 8 B at least, then x2: 4 and 16 tags' room, as the vectors'. */
	crafted("aoa_buddy", 12, (4 + 16) * 4, 10, (4 + 16) * 4);
	/* {tag, next}: 8 B a tag. */
	crafted("aoa_linked_nodes", 12, 12 * 8, 10, 10 * 8);
	/* chunks of 8 (40 B): 1 + 2, then 1 + 1; of 14 (64 B): 1 + 1. */
	crafted("aoa_chunked8", 12, 3 * 40, 10, 2 * 40);
	crafted("aoa_chunked14", 12, 2 * 64, 10, 2 * 64);
	/* the sorted chunks of 8: 44 B (a back link each). */
	crafted("aoa_chunked8_sorted", 12, 3 * 44, 10, 2 * 44);
}

/* A stale, a free-marked, an out-of-range entity: every tags operation fails whole. */
static void test_bad_entities_change_nothing(void **state)
{
	(void)state;
	for (size_t d = 0; d < N_DESIGNS; d++) {
		const struct dod_ops *ops = tc_find(designs[d], 8);
		uint64_t hs[3];
		void *c = make(ops, 3, hs);
		add_to(ops, c, hs[0], 1, 2);
		assert_int_equal(ops->erase_n(c, &hs[2], 1), DOD_OK);
		const uint64_t bad[3] = {hs[2], hs[1] & ~(UINT64_C(1) << 32), UINT64_C(1000)};
		const int err[3] = {DOD_ESTALE, DOD_EFREE, DOD_ERANGE};
		for (size_t b = 0; b < 3; b++) {
			uint64_t ents[2] = {hs[0], bad[b]};
			uint32_t tags[2] = {7, 8};
			size_t out = 0;
			assert_int_equal(ops->tags->add_n(c, ents, tags, 2, &out), err[b]);
			assert_int_equal(ops->tags->remove_n(c, (uint64_t[]){hs[0], bad[b]},
			                                     (uint32_t[]){1, 1}, 2, &out), err[b]);
			assert_int_equal(ops->tags->has_n(c, ents, tags, 2, &out), err[b]);
			assert_int_equal(ops->tags->tags_of(c, bad[b], NULL, 0, &out), err[b]);
			assert_int_equal(count_of(ops, c, hs[0]), 2);
			assert_int_equal(ops->tags->walk_sum(c), 1 + 2);
		}
		/* A new entity in the erased slot starts with no tags. */
		assert_int_equal(ops->insert_n(c, 1, 5, &hs[2]), DOD_OK);
		assert_int_equal(count_of(ops, c, hs[2]), 0);
		tc_check_ok(ops, c);
		ops->destroy(c);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_fixed8_refuses_a_ninth_tag),
		cmocka_unit_test(test_nodes_reused_nil_kept),
		cmocka_unit_test(test_buddy_lists_grow_in_place_move_and_rebuild),
		cmocka_unit_test(test_sorted_chains_become_contiguous),
		cmocka_unit_test(test_sorted_work_per_call_bounded),
		cmocka_unit_test(test_sorted_every_cursor_every_change),
		cmocka_unit_test(test_add16_grows_by_16_and_copies),
		cmocka_unit_test(test_memory_statistics_exact),
		cmocka_unit_test(test_bad_entities_change_nothing),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
