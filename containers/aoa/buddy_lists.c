/* buddy_lists.c - aoa_buddy: every entity's tags in an array of its own that doubles, as
 * aoa_vec_of_vecs', but each array a block of one buddy allocator over one buffer (Niklas
 * Gray, "Allocation Adventures 2: Arrays of Arrays" and "3: The Buddy Allocator", Bitsquid
 * 2015: lists that grow by powers of two from a buddy allocator, so a list often grows in
 * place into its free buddy and all lists share one allocation; containers/alloc/buddy.h).
 *
 *   hdr    [ nil | {a, n, cap} | {a, n, cap} | ... ]   16 B a header, parallel to the
 *                  |              |                     entity slots (aoa/aoa_core.h)
 *                  v              v
 *   arena  [ t0 t1 t2 . | t0 t1 | free 8 B | t0 .. t5 . . | free ... | bit arrays ]
 *            a block of cap x 4 B an entity (cap = 2, 4, 8 ...), blocks of 2^k x 8 B at
 *            multiples of their size; the usable part is one tree of tree_bytes
 *
 * Invariants: aoa/vec_hooks.h's (the hooks it shares with aoa_vec_of_vecs); besides, each
 * live entity's array is an allocated block of exactly cap x 4 bytes (cap a power of two,
 * at least 2), the allocator's own invariants hold (buddy_check), and the blocks of the
 * lists are every allocated block: array_bytes = tree_bytes - the allocator's free bytes
 * (no block leaked or shared).
 *
 * Costs: a full list takes a block twice its size (buddy_realloc: grown in place when its
 * buddies are free, else moved, O(levels) plus the copy). When no free block is large
 * enough (the arena full or too fragmented), the arena is rebuilt: a new buffer whose tree
 * holds twice the lists' blocks and the request (never smaller than the old one), every
 * list allocated in it again in slot order and its tags copied, O(entity slots + tags),
 * counted in dod_growth as one growth that moved. A rebuild that grows the tree doubles it
 * at least, so add is O(1) amortized while the lists grow, as a vector's push; one that
 * only compacts (a fragmented arena at most half full of lists) costs as much and is not
 * bounded that way: how often it comes depends on the workload's fragmentation. The
 * process sees one allocation per rebuild where aoa_vec_of_vecs makes one a list (D1).
 * Remove, has and the walk are aoa_vec_of_vecs' (a removed tag's room is kept). Memory: a
 * list's block is a power of two of at least 8 B (as the vectors' x2 capacity); the tree
 * is at most four times the lists' largest total so far; the arena's metadata is 2 bits
 * per 8 B (1/32).
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "alloc/buddy.h"
#include "alloc/realloc.h" /* dod_growth_note */

struct aoa_store {
	size_t tags;        /* stored, over every entity */
	size_t array_bytes; /* the blocks of every list, in bytes */
	struct buddy b;
	char *arena;        /* malloc'd: arena_bytes, whose usable part is one tree */
	size_t arena_bytes, tree_bytes;
};

#include "aoa/vec_hdr.h" /* the header {a, n, cap} */

#include "aoa/aoa_core.h"

#include "aoa/vec_hooks.h" /* the hooks vec_of_vecs and buddy_lists share */

#define BL_MIN_BLOCK ((size_t)8)    /* two tags: a free block holds its two links */
#define BL_MIN_TREE ((size_t)1024)  /* the smallest arena's tree */
/* The largest tree: 2^30 minimum blocks (8 GiB), as buddy_init takes an arena of at most
 * 2^31 and the bit arrays follow the tree. A list's block is at most half of it. */
#define BL_MAX_TREE (BL_MIN_BLOCK << (BUDDY_MAX_LEVELS - 2))
#define BL_MAX_CAP ((uint32_t)(BL_MAX_TREE / 2 / sizeof(uint32_t))) /* tags an entity holds */

/* A buffer of tree_bytes (a power of two of at least BL_MIN_TREE, at most BL_MAX_TREE) with
 * an empty allocator over it, into *b, *arena, *arena_bytes. 0 or DOD_ENOMEM. */
static int bl_arena_new(size_t tree_bytes, struct buddy *b, char **arena, size_t *arena_bytes)
{
	size_t bytes = buddy_arena_bytes(tree_bytes, BL_MIN_BLOCK);
	char *p = bytes ? malloc(bytes) : NULL; /* malloc's alignment: buddy_init's 8 bytes */
	if (!p)
		return DOD_ENOMEM;
	int err = buddy_init(b, p, bytes, BL_MIN_BLOCK);
	if (err) {
		free(p);
		return err;
	}
	*arena = p;
	*arena_bytes = bytes;
	return DOD_OK;
}

static int store_create(struct aoa *a, size_t capacity_entities)
{
	/* Room for a two-tag list per entity, as the node designs reserve a node each. */
	size_t tree = BL_MIN_TREE;
	while (tree < BL_MAX_TREE && tree / BL_MIN_BLOCK < capacity_entities)
		tree *= 2;
	a->s.tags = a->s.array_bytes = 0;
	a->s.tree_bytes = tree;
	return bl_arena_new(tree, &a->s.b, &a->s.arena, &a->s.arena_bytes);
}

static void store_destroy(struct aoa *a) { free(a->s.arena); }

static void hdr_release(struct aoa *a, uint32_t i)
{
	AOA_HDR *h = &a->hdr[i];
	if (h->a)
		(void)buddy_free(&a->s.b, h->a); /* a block start it allocated: cannot fail */
	a->s.tags -= h->n;
	a->s.array_bytes -= (size_t)h->cap * sizeof(uint32_t);
	hdr_init(a, i);
}

/* Every list dropped at once: the allocator started again over the same arena. */
static void store_clear(struct aoa *a)
{
	(void)buddy_init(&a->s.b, a->s.arena, a->s.arena_bytes, BL_MIN_BLOCK); /* as before */
	for (uint32_t i = 1; i < a->n_slots; i++)
		hdr_init(a, i);
	a->s.tags = a->s.array_bytes = 0;
}

/* Every list into a new arena whose tree holds at least twice the lists' blocks and want
 * more bytes. An empty tree into which blocks are only allocated keeps at most one free
 * block a level, so free blocks of distinct powers of two: any request no larger than the
 * free bytes fits. Every list's block is allocated again that way, in slot order, and the
 * request of want bytes (at most half of the tree) fits afterwards: half the tree is free.
 * Returns 0; DOD_ENOMEM (no buffer) or DOD_EFULL (past BL_MAX_TREE), nothing changed. */
static int bl_rebuild(struct aoa *a, size_t want)
{
	size_t tree = a->s.tree_bytes, need = a->s.array_bytes + want;
	while (tree / 2 < need) {
		if (tree >= BL_MAX_TREE)
			return DOD_EFULL;
		tree *= 2;
	}
	struct buddy b;
	char *arena;
	size_t arena_bytes, copied = 0;
	int err = bl_arena_new(tree, &b, &arena, &arena_bytes);
	if (err)
		return err;
	for (uint32_t i = 1; i < a->n_slots; i++) {
		AOA_HDR *h = &a->hdr[i];
		void *p = NULL;
		if (!h->a)
			continue;
		(void)buddy_alloc(&b, (size_t)h->cap * sizeof(uint32_t), &p); /* fits: see above */
		memcpy(p, h->a, (size_t)h->n * sizeof(uint32_t));
		copied += (size_t)h->n * sizeof(uint32_t);
		h->a = p;
	}
	free(a->s.arena);
	a->s.b = b;
	a->s.arena = arena;
	a->s.arena_bytes = arena_bytes;
	a->s.tree_bytes = tree;
	dod_growth_note(1, copied);
	return DOD_OK;
}

/* Entity i's list doubled (a first list: two tags' room). 0, DOD_ENOMEM or DOD_EFULL with
 * the list as it was (its tags, possibly at a new address after a rebuild). */
static int bl_grow(struct aoa *a, uint32_t i)
{
	AOA_HDR *h = &a->hdr[i];
	if (h->cap == BL_MAX_CAP)
		return DOD_EFULL;
	uint32_t cap = h->cap ? 2 * h->cap : (uint32_t)(BL_MIN_BLOCK / sizeof(uint32_t));
	size_t old_bytes = (size_t)h->cap * sizeof(uint32_t), bytes = (size_t)cap * sizeof(uint32_t);
	void *p = h->a;
	/* (buddy_realloc refuses a block larger than the arena as invalid: none is free.) */
	int err = bytes <= a->s.tree_bytes ? buddy_realloc(&a->s.b, &p, bytes) : DOD_EFULL;
	if (err == DOD_EFULL && (err = bl_rebuild(a, bytes)) == DOD_OK) {
		p = h->a;
		err = buddy_realloc(&a->s.b, &p, bytes); /* fits: half the new tree is free */
	}
	if (err)
		return err;
	if (old_bytes)
		dod_growth_note(p != h->a, p != h->a ? old_bytes : 0);
	h->a = p;
	h->cap = cap;
	a->s.array_bytes += bytes - old_bytes;
	return DOD_OK;
}

static int tag_add(struct aoa *a, uint32_t i, uint32_t tag)
{
	AOA_HDR *h = &a->hdr[i];
	if (h->n == h->cap) {
		int err = bl_grow(a, i);
		if (err)
			return err;
	}
	h->a[h->n++] = tag;
	a->s.tags++;
	return 1;
}

static size_t store_bytes(const struct aoa *a) { return a->s.arena_bytes; }

static int store_check(const struct aoa *a, char *why, size_t len)
{
	int err = vec_check_headers(a, why, len);
	if (!err)
		err = buddy_check(&a->s.b, why, len);
	for (uint32_t i = 1; !err && i < a->n_slots; i++) {
		const AOA_HDR *h = &a->hdr[i];
		size_t bytes = 0;
		if (h->a && (buddy_block_bytes(&a->s.b, h->a, &bytes) != DOD_OK ||
		             bytes != (size_t)h->cap * sizeof(uint32_t)))
			err = dod_check_fail(why, len, "entity slot %u: its array of %u tags is not an "
			                     "allocated block of %zu B (%zu B)", i, h->cap,
			                     (size_t)h->cap * sizeof(uint32_t), bytes);
	}
	struct buddy_stats st;
	buddy_stats(&a->s.b, &st);
	if (!err && (st.usable_bytes != a->s.tree_bytes ||
	             a->s.array_bytes != st.usable_bytes - st.free_bytes))
		err = dod_check_fail(why, len, "lists hold %zu B, the allocator %zu of %zu B (tree %zu)",
		                     a->s.array_bytes, st.usable_bytes - st.free_bytes,
		                     st.usable_bytes, a->s.tree_bytes);
	return err;
}

const struct dod_ops DOD_OPS_SYMBOL = {
	DOD_DESCRIPTOR,
	.source = "Niklas Gray, \"Allocation Adventures 2: Arrays of Arrays\" and \"3: The Buddy "
	          "Allocator\" (Bitsquid, 2015): lists that double, blocks of one buddy allocator",
	AOA_CORE_OPS,
};
