/* buddy.c - a binary buddy allocator over one arena (see buddy.h for the calls).
 *
 * Source: Niklas Gray, "Allocation Adventures 3: The Buddy Allocator", Bitsquid blog,
 * 2015: power-of-two blocks split in halves on allocation and merged with their buddy on
 * free; free lists inside the free blocks; one merge bit per buddy pair (the XOR of the
 * two buddies' allocated states); split bits so free(p) needs no size. For the arrays of
 * arrays of "Allocation Adventures 2" (SEEDS D6: lists that grow by powers of two).
 *
 * The tree. Level 0 is one block of 2^depth minimum blocks (leaves); level L has 2^L
 * blocks of min_block_bytes << (depth - L); node (L, i) is bit (2^L - 1 + i) of the bit
 * arrays, heap order, so node n's children are 2n + 1 and 2n + 2. Only internal nodes
 * (levels 0 .. depth - 1) have bits: a leaf cannot split, and the merge bit of a pair is
 * its parent's bit.
 *
 * An arena with 6 usable minimum blocks (depth 3: a tree of 8) after alloc(1 block) and
 * alloc(2 blocks); nodes numbered, each level's blocks and their state:
 *
 *   leaf:       0     1     2     3     4     5     6     7
 *   level 0  [                    0: split                    ]
 *   level 1  [        1: split        ][        2: split        ]
 *   level 2  [ 3: allocated][ 4: free  ][ 5: split  ][ 6: past  ]  the usable part's end
 *   level 3                             [alloc][free]              leaves: no bits
 *   split bits, nodes 0..6:  1 1 1 0 0 1 0
 *   merge bits, nodes 0..6:  0 1 0 0 0 1 0   (node 1: 3 allocated, 4 free; node 5: the
 *                                             two leaves; node 2: 5 split, 6 never free)
 *   lists: head[2] = leaf 2, head[3] = leaf 5; nonempty = levels 2 and 3
 *
 *   arena:  base                              meta_offset             arena_bytes
 *           |<--- usable_bytes: leaves 0..5 --->|pad| merge bits | split bits |
 *   The tree's blocks past the usable part (node 6) overlay the bit arrays and what lies
 *   past the arena: they are never free, never read, never written.
 *
 *   a free block:  [ next | prev | ... ]   uint32 leaf indices of the level's other free
 *                                          blocks (UINT32_MAX: none); head[L] the first
 *
 * A block is in one of three states at its level: free (on its level's list), allocated
 * (handed out, or outside the usable part), split (its two halves are the blocks).
 * "Allocated" in the merge bit's sense is "not free": a split block counts as allocated.
 *
 * Invariants (buddy_check):
 *   - a node exists iff it is the root or its parent is split; split implies the parent
 *     is split; an unsplit node's merge bit is 0, and so are all bits below it
 *   - merge bit of a split node = free(left) XOR free(right), and never both free: two
 *     free buddies are always merged, so the bit is set exactly once per free non-root block
 *   - a free block lies inside [0, usable_bytes); nodes past it are unsplit and never
 *     free, a node across its end is split (so no block straddles it)
 *   - each list is doubly linked (prev of head is nil, next's prev is the block); its
 *     count is n_free[L]; nonempty bit L iff the list is not empty; free_bytes is the sum
 *
 * How free knows its block: the block holding leaf x is the child of x's deepest split
 * ancestor; going up from x's leaf, the first split parent is it (split implies split
 * ancestors). Whether that block is allocated: if one of a pair is known not free, the
 * merge bit is the other's state; bit 0 means both allocated (both free is impossible);
 * bit 1 with a split buddy means the block is free. Left: bit 1 and an unsplit buddy,
 * exactly one of the two free. The free one's links are genuine (it is head of its list,
 * or its prev's next is it); the allocated one's first bytes are the caller's data,
 * which can look like a link only by holding one; if both look free, the level's list
 * is walked. So a double free and a pointer into free memory are always told apart.
 *
 * Costs: alloc O(levels) (the level to split from is the highest set bit of nonempty
 * below the wanted level), free O(levels) (level search up, merges up), realloc O(levels)
 * plus a copy when it moves, stats O(levels), check O(tree nodes). Metadata: 2 bits per
 * internal node = about 2 bits per minimum block (16 KiB for 1 MiB of 16-byte blocks,
 * 1/64 of the arena), plus struct buddy. Waste: up to half of each block (the request
 * rounded up to a power of two), and blocks that cannot merge (fragmentation).
 */
#include "alloc/buddy.h"

#include <string.h>

#include "dod_common.h"

#define NIL UINT32_MAX
#define MAX_LEAVES ((size_t)1 << (BUDDY_MAX_LEVELS - 1))

/* The links a free block holds in its first 8 bytes. */
struct buddy_link {
	uint32_t next, prev;
};

static inline int bit_get(const uint64_t *w, size_t i)
{
	return (int)((w[i >> 6] >> (i & 63)) & 1);
}
static inline void bit_set(uint64_t *w, size_t i) { w[i >> 6] |= (uint64_t)1 << (i & 63); }
static inline void bit_clear(uint64_t *w, size_t i) { w[i >> 6] &= ~((uint64_t)1 << (i & 63)); }
/* Flips bit i and returns its new value. */
static inline int bit_flip(uint64_t *w, size_t i)
{
	w[i >> 6] ^= (uint64_t)1 << (i & 63);
	return bit_get(w, i);
}

/* Leaves (minimum blocks) in a block of level L. */
static inline uint32_t leaves_at(const struct buddy *b, unsigned L)
{
	return (uint32_t)1 << (b->depth - L);
}
static inline size_t bytes_at(const struct buddy *b, unsigned L)
{
	return (size_t)leaves_at(b, L) << b->min_shift;
}
/* The node of the level-L block that holds leaf x. */
static inline size_t node_of(const struct buddy *b, unsigned L, uint32_t x)
{
	return ((size_t)1 << L) - 1 + (x >> (b->depth - L));
}
/* The merge bit (the parent node) of the pair the level-L block holding leaf x is in. */
static inline size_t pair_of(const struct buddy *b, unsigned L, uint32_t x)
{
	return node_of(b, L - 1, x);
}
static inline struct buddy_link *link_at(const struct buddy *b, uint32_t x)
{
	return (struct buddy_link *)(void *)(b->base + ((size_t)x << b->min_shift));
}
/* The level-L block starting at leaf x lies inside the usable part (x need not be
 * valid: it may come from a block's data). */
static inline int inside(const struct buddy *b, unsigned L, uint64_t x)
{
	return (x & (leaves_at(b, L) - 1)) == 0 && x + leaves_at(b, L) <= b->usable_leaves;
}

static void list_push(struct buddy *b, unsigned L, uint32_t x)
{
	struct buddy_link *k = link_at(b, x);
	k->prev = NIL;
	k->next = b->head[L];
	if (b->head[L] != NIL)
		link_at(b, b->head[L])->prev = x;
	b->head[L] = x;
	b->nonempty |= (uint32_t)1 << L;
	b->n_free[L]++;
	b->free_bytes += bytes_at(b, L);
}

/* O(1): the links are in the block, so a buddy in the middle of its list comes out
 * without a walk (the article's reason for doubly linked lists). */
static void list_remove(struct buddy *b, unsigned L, uint32_t x)
{
	struct buddy_link *k = link_at(b, x);
	if (k->prev != NIL)
		link_at(b, k->prev)->next = k->next;
	else
		b->head[L] = k->next;
	if (k->next != NIL)
		link_at(b, k->next)->prev = k->prev;
	if (b->head[L] == NIL)
		b->nonempty &= ~((uint32_t)1 << L);
	b->n_free[L]--;
	b->free_bytes -= bytes_at(b, L);
}

static inline int is_pow2(size_t n) { return n && !(n & (n - 1)); }
/* A minimum block holds the links of a free block and is a power of two. */
static inline int min_block_ok(size_t n) { return n >= sizeof(struct buddy_link) && is_pow2(n); }

/* The smallest k with 2^k >= n, for n >= 1. */
static inline unsigned ceil_log2(uint64_t n)
{
	return n <= 1 ? 0 : 64 - (unsigned)__builtin_clzll(n - 1);
}

/* Bytes of the two bit arrays for a tree of depth levels below the root. */
static size_t meta_bytes_for(unsigned depth)
{
	size_t nodes = ((size_t)1 << depth) - 1, words = (nodes + 63) / 64;
	return 2 * (words ? words : 1) * sizeof(uint64_t);
}

/* Leaves usable in an arena of n bytes whose tree has the given depth: what lies before
 * the 8-byte aligned bit arrays at its end, in whole minimum blocks (0: too small). */
static size_t usable_leaves_for(size_t n, size_t shift, unsigned depth)
{
	size_t meta = meta_bytes_for(depth);
	return n < meta ? 0 : ((n - meta) & ~(size_t)7) >> shift;
}

/* The depth of the tree for an arena of n bytes (n >> shift <= MAX_LEAVES): the smallest
 * whose 2^depth leaves hold the usable part its own bit arrays leave. */
static unsigned depth_for(size_t n, size_t shift)
{
	unsigned depth = ceil_log2(n >> shift);
	while (depth > 0 && usable_leaves_for(n, shift, depth - 1) <= (size_t)1 << (depth - 1))
		depth--;
	return depth;
}

/* Makes the level-L block at leaf x free at init: its ancestors split, its pair's bit
 * flipped (its buddy is not free: the blocks init frees are maximal). */
static void init_free_block(struct buddy *b, unsigned L, uint32_t x)
{
	for (unsigned l = L; l > 0; l--) {
		size_t parent = pair_of(b, l, x);
		if (bit_get(b->split, parent))
			break;
		bit_set(b->split, parent);
	}
	if (L > 0)
		bit_flip(b->merge, pair_of(b, L, x));
	list_push(b, L, x);
}

int buddy_init(struct buddy *b, void *arena, size_t arena_bytes, size_t min_block_bytes)
{
	if (!b || !arena || ((uintptr_t)arena & 7) || !min_block_ok(min_block_bytes))
		return DOD_EINVAL;
	size_t shift = (size_t)__builtin_ctzll(min_block_bytes);
	if ((arena_bytes >> shift) > MAX_LEAVES)
		return DOD_ENOMEM;
	unsigned depth = depth_for(arena_bytes, shift);
	size_t usable = usable_leaves_for(arena_bytes, shift, depth);
	if (usable == 0)
		return DOD_EINVAL;
	struct buddy t = {
		.base = arena, .arena_bytes = arena_bytes, .usable_bytes = usable << shift,
		.meta_bytes = meta_bytes_for(depth), .min_shift = (uint32_t)shift,
		.depth = depth, .usable_leaves = (uint32_t)usable,
	};
	t.meta_offset = (arena_bytes - t.meta_bytes) & ~(size_t)7;
	t.merge = (uint64_t *)(void *)(t.base + t.meta_offset);
	t.split = t.merge + t.meta_bytes / 2 / sizeof(uint64_t);
	memset(t.merge, 0, t.meta_bytes);
	for (unsigned L = 0; L < BUDDY_MAX_LEVELS; L++)
		t.head[L] = NIL;
	/* The usable part as maximal aligned blocks, left to right: each as large as its
	 * alignment and the end allow, so no two are buddies. */
	for (uint32_t x = 0; x < t.usable_leaves;) {
		unsigned k = x ? (unsigned)__builtin_ctz(x) : depth;
		while (x + ((uint64_t)1 << k) > t.usable_leaves)
			k--;
		init_free_block(&t, depth - k, x);
		x += (uint32_t)1 << k;
	}
	*b = t;
	return DOD_OK;
}

size_t buddy_arena_bytes(size_t tree_bytes, size_t min_block_bytes)
{
	if (!min_block_ok(min_block_bytes) || tree_bytes < min_block_bytes || !is_pow2(tree_bytes) ||
	    tree_bytes / min_block_bytes > MAX_LEAVES)
		return 0;
	size_t meta = meta_bytes_for(ceil_log2(tree_bytes / min_block_bytes));
	return tree_bytes > SIZE_MAX - meta ? 0 : tree_bytes + meta;
}

/* The level of the smallest block that holds bytes (1 <= bytes), or -1 if none does. */
static int level_for(const struct buddy *b, size_t bytes)
{
	unsigned k = ceil_log2(((uint64_t)bytes - 1) / ((uint64_t)1 << b->min_shift) + 1);
	return k > b->depth ? -1 : (int)(b->depth - k);
}

/* Does the level-L block at leaf x hold the links of a free block of its level (the head
 * of the list, or its prev's next)? A free block always does; an allocated one only if
 * the caller's data in it and in the block it names happen to form such a link. */
static int looks_free(const struct buddy *b, unsigned L, uint32_t x)
{
	if (!inside(b, L, x))
		return 0;
	uint32_t prev = link_at(b, x)->prev;
	if (prev == NIL)
		return b->head[L] == x;
	return prev != x && inside(b, L, prev) && link_at(b, prev)->next == x;
}

/* Is the level-L block at leaf x on its level's list? O(its length); stops at a link
 * that leaves the usable part (a corrupt list, for buddy_check). */
static int on_list(const struct buddy *b, unsigned L, uint32_t x)
{
	uint32_t y = b->head[L];
	for (uint32_t n = 0; y != x && inside(b, L, y) && n < b->n_free[L]; n++)
		y = link_at(b, y)->next;
	return y == x;
}

/* Is the unsplit level-L block at leaf x free? Exact; O(1) unless caller data looks like
 * a link (the opening comment). */
static int block_is_free(const struct buddy *b, unsigned L, uint32_t x)
{
	if (L == 0)
		return b->head[0] == x;
	if (!bit_get(b->merge, pair_of(b, L, x)))
		return 0; /* both allocated: both free cannot be */
	uint32_t buddy = x ^ leaves_at(b, L);
	if ((L < b->depth && bit_get(b->split, node_of(b, L, buddy))) || !inside(b, L, buddy))
		return 1; /* the buddy is not free, so x is */
	int me = looks_free(b, L, x), other = looks_free(b, L, buddy);
	return me != other ? me : on_list(b, L, x);
}

/* The block p points into: *x its first leaf, *level its level. Returns 0 if p starts an
 * allocated block, DOD_EFREE if p lies in a free one, else DOD_EINVAL. */
static int find_block(const struct buddy *b, const void *p, uint32_t *x, unsigned *level)
{
	if (!b || !p)
		return DOD_EINVAL;
	uintptr_t a = (uintptr_t)p, base = (uintptr_t)b->base;
	if (a < base || a - base >= b->usable_bytes)
		return DOD_EINVAL;
	size_t off = a - base;
	uint32_t leaf = (uint32_t)(off >> b->min_shift);
	unsigned L = b->depth;
	while (L > 0 && !bit_get(b->split, pair_of(b, L, leaf)))
		L--;
	uint32_t start = leaf & ~(leaves_at(b, L) - 1);
	if (block_is_free(b, L, start))
		return DOD_EFREE;
	if (start != leaf || (off & (((size_t)1 << b->min_shift) - 1)))
		return DOD_EINVAL;
	*x = start;
	*level = L;
	return DOD_OK;
}

int buddy_alloc(struct buddy *b, size_t bytes, void **out)
{
	if (!b || !out || bytes == 0 || bytes > b->arena_bytes)
		return DOD_EINVAL;
	int want = level_for(b, bytes);
	uint32_t mask = want < 0 ? 0 : b->nonempty & (uint32_t)(((uint64_t)2 << want) - 1);
	if (!mask)
		return DOD_EFULL;
	unsigned L = 31 - (unsigned)__builtin_clz(mask); /* the smallest free block that fits */
	uint32_t x = b->head[L];
	list_remove(b, L, x);
	if (L > 0)
		bit_flip(b->merge, pair_of(b, L, x));
	/* Split down: the left half goes on, the right half is freed (its pair's bit: left
	 * allocated or split, right free). */
	for (; L < (unsigned)want; L++) {
		bit_set(b->split, node_of(b, L, x));
		list_push(b, L + 1, x + leaves_at(b, L + 1));
		bit_flip(b->merge, node_of(b, L, x));
	}
	*out = b->base + ((size_t)x << b->min_shift);
	return DOD_OK;
}

/* Frees the allocated level-L block at leaf x, merging up while its buddy is free. */
static void release(struct buddy *b, uint32_t x, unsigned L)
{
	for (; L > 0; L--) {
		size_t parent = pair_of(b, L, x);
		if (bit_flip(b->merge, parent)) { /* now 1: the buddy is allocated */
			list_push(b, L, x);
			return;
		}
		list_remove(b, L, x ^ leaves_at(b, L)); /* 0: the buddy is free; merge */
		bit_clear(b->split, parent);
		x &= ~leaves_at(b, L);
	}
	list_push(b, 0, x);
}

int buddy_free(struct buddy *b, void *p)
{
	uint32_t x;
	unsigned L;
	int err = find_block(b, p, &x, &L);
	if (err)
		return err;
	release(b, x, L);
	return DOD_OK;
}

int buddy_block_bytes(const struct buddy *b, const void *p, size_t *bytes_out)
{
	uint32_t x;
	unsigned L;
	int err = bytes_out ? find_block(b, p, &x, &L) : DOD_EINVAL;
	if (err)
		return err;
	*bytes_out = bytes_at(b, L);
	return DOD_OK;
}

/* Can the allocated level-L block at x become its level-want ancestor in place? It must
 * be the left child at each level in between, and each right buddy free: since the left
 * one is known not free (allocated, then split), the merge bit is the buddy's state. */
static int grows_in_place(const struct buddy *b, uint32_t x, unsigned L, unsigned want)
{
	for (unsigned l = L; l > want; l--)
		if ((x & leaves_at(b, l)) || !bit_get(b->merge, pair_of(b, l, x)))
			return 0;
	return 1;
}

int buddy_realloc(struct buddy *b, void **p, size_t bytes)
{
	if (!b || !p)
		return DOD_EINVAL;
	if (!*p)
		return buddy_alloc(b, bytes, p);
	uint32_t x;
	unsigned L;
	int err = find_block(b, *p, &x, &L);
	if (err)
		return err;
	if (bytes == 0 || bytes > b->arena_bytes)
		return DOD_EINVAL;
	int want = level_for(b, bytes);
	if (want < 0)
		return DOD_EFULL;
	if ((unsigned)want >= L)
		return DOD_OK;
	if (grows_in_place(b, x, L, (unsigned)want)) {
		for (unsigned l = L; l > (unsigned)want; l--) {
			list_remove(b, l, x + leaves_at(b, l));
			bit_flip(b->merge, pair_of(b, l, x)); /* 1 -> 0: one block now */
			bit_clear(b->split, pair_of(b, l, x));
		}
		return DOD_OK;
	}
	void *q;
	if ((err = buddy_alloc(b, bytes, &q)))
		return err;
	memcpy(q, *p, bytes_at(b, L));
	release(b, x, L);
	*p = q;
	return DOD_OK;
}

void buddy_stats(const struct buddy *b, struct buddy_stats *out)
{
	memset(out, 0, sizeof *out);
	out->arena_bytes = b->arena_bytes;
	out->usable_bytes = b->usable_bytes;
	out->metadata_bytes = b->meta_bytes;
	out->unused_bytes = b->arena_bytes - b->usable_bytes - b->meta_bytes;
	out->min_block_bytes = (size_t)1 << b->min_shift;
	out->free_bytes = b->free_bytes;
	out->levels = b->depth + 1;
	for (unsigned L = 0; L <= b->depth; L++) {
		out->free_blocks_at[L] = b->n_free[L];
		out->free_blocks += b->n_free[L];
	}
	if (b->nonempty)
		out->largest_free_bytes = bytes_at(b, (unsigned)__builtin_ctz(b->nonempty));
	if (b->free_bytes)
		out->fragmentation = 1.0 - (double)out->largest_free_bytes / (double)out->free_bytes;
}

/* ---- buddy_check ---- */

static int check_geometry(const struct buddy *b, char *why, size_t why_len)
{
	if (b->depth >= BUDDY_MAX_LEVELS || b->min_shift < 3 || b->usable_leaves == 0 ||
	    b->usable_leaves > ((uint64_t)1 << b->depth) ||
	    b->usable_bytes != (size_t)b->usable_leaves << b->min_shift)
		return dod_check_fail(why, why_len, "geometry: depth %u, min_shift %u, %u leaves",
		                      (unsigned)b->depth, (unsigned)b->min_shift,
		                      (unsigned)b->usable_leaves);
	if (b->meta_bytes != meta_bytes_for(b->depth) || b->meta_offset < b->usable_bytes ||
	    b->meta_offset + b->meta_bytes > b->arena_bytes ||
	    (char *)b->merge != b->base + b->meta_offset ||
	    b->split != b->merge + b->meta_bytes / 2 / sizeof(uint64_t))
		return dod_check_fail(why, why_len, "bit arrays: %zu bytes at %zu of %zu",
		                      b->meta_bytes, b->meta_offset, b->arena_bytes);
	for (unsigned L = b->depth + 1; L < BUDDY_MAX_LEVELS; L++)
		if (b->head[L] != NIL || b->n_free[L] || (b->nonempty >> L & 1))
			return dod_check_fail(why, why_len, "level %u past depth %u has blocks", L,
			                      (unsigned)b->depth);
	return DOD_OK;
}

/* What is wrong with internal node n = (L, i), or NULL. */
static const char *node_fault(const struct buddy *b, unsigned L, uint64_t i)
{
	size_t n = ((size_t)1 << L) - 1 + i;
	uint64_t lo = i << (b->depth - L), hi = lo + leaves_at(b, L);
	int split = bit_get(b->split, n);
	int parent_split = n == 0 || bit_get(b->split, (n - 1) / 2);
	if (split && !parent_split)
		return "split, its parent not";
	if (!split && bit_get(b->merge, n))
		return "unsplit with a merge bit";
	if (split && lo >= b->usable_leaves)
		return "split past the usable part";
	if (!split && parent_split && lo < b->usable_leaves && hi > b->usable_leaves)
		return "across the usable part's end, unsplit";
	return NULL;
}

/* Split bits shaped as a tree, merge bits only on split nodes, the usable part's end
 * crossing only split nodes. *merge_bits = the merge bits set. */
static int check_tree(const struct buddy *b, size_t *merge_bits, char *why, size_t why_len)
{
	size_t set = 0;
	for (unsigned L = 0; L < b->depth; L++) {
		for (uint64_t i = 0; i < ((uint64_t)1 << L); i++) {
			const char *fault = node_fault(b, L, i);
			if (fault)
				return dod_check_fail(why, why_len, "node (level %u, %llu): %s", L,
				                      (unsigned long long)i, fault);
			set += (size_t)bit_get(b->merge, ((size_t)1 << L) - 1 + i);
		}
	}
	*merge_bits = set;
	return DOD_OK;
}

/* What is wrong with the level-L block at leaf x, reached from its list, or NULL: where
 * it is, that it is a block (parent split, itself not), its pair's bit, its buddy. */
static const char *free_block_fault(const struct buddy *b, unsigned L, uint32_t x)
{
	if (!inside(b, L, x))
		return "misaligned or outside the usable part";
	if (L < b->depth && bit_get(b->split, node_of(b, L, x)))
		return "split";
	if (L == 0)
		return NULL;
	if (!bit_get(b->split, pair_of(b, L, x)))
		return "its parent is not split";
	if (!bit_get(b->merge, pair_of(b, L, x)))
		return "its merge bit is 0";
	uint32_t buddy = x ^ leaves_at(b, L);
	int buddy_split = L < b->depth && bit_get(b->split, node_of(b, L, buddy));
	if (!buddy_split && looks_free(b, L, buddy) && on_list(b, L, buddy))
		return "its buddy is free too: not merged";
	return NULL;
}

/* Level L's list: doubly linked, its blocks sound, as long as its count and its
 * nonempty bit say. Adds its bytes to *bytes and, below the root, its blocks to *blocks. */
static int check_list(const struct buddy *b, unsigned L, size_t *bytes, size_t *blocks,
                      char *why, size_t why_len)
{
	uint32_t prev = NIL;
	uint64_t n = 0;
	for (uint32_t x = b->head[L]; x != NIL; prev = x, x = link_at(b, x)->next, n++) {
		const char *fault = n >= b->n_free[L] ? "the list is longer than its count"
		                                      : free_block_fault(b, L, x);
		if (!fault && link_at(b, x)->prev != prev)
			fault = "its prev link is not the block before it";
		if (fault)
			return dod_check_fail(why, why_len, "level %u, free block at leaf %u: %s", L,
			                      (unsigned)x, fault);
	}
	if (n != b->n_free[L] || (b->nonempty >> L & 1) != (n > 0))
		return dod_check_fail(why, why_len, "level %u: %llu blocks listed, count %u, bit %u",
		                      L, (unsigned long long)n, (unsigned)b->n_free[L],
		                      (unsigned)(b->nonempty >> L & 1));
	*bytes += (size_t)n * bytes_at(b, L);
	*blocks += L > 0 ? (size_t)n : 0;
	return DOD_OK;
}

int buddy_check(const struct buddy *b, char *why, size_t why_len)
{
	if (!b || !b->base)
		return dod_check_fail(why, why_len, "no allocator");
	size_t merge_bits = 0, bytes = 0, blocks = 0;
	int err = check_geometry(b, why, why_len);
	if (!err)
		err = check_tree(b, &merge_bits, why, why_len);
	for (unsigned L = 0; !err && L <= b->depth; L++)
		err = check_list(b, L, &bytes, &blocks, why, why_len);
	if (err)
		return err;
	if (bytes != b->free_bytes)
		return dod_check_fail(why, why_len, "free_bytes %zu, the lists hold %zu",
		                      b->free_bytes, bytes);
	/* Each free block's pair bit is set and no pair has two free blocks, so a set bit
	 * without a free child is all that is left to rule out. */
	if (merge_bits != blocks)
		return dod_check_fail(why, why_len, "%zu merge bits set for %zu free blocks",
		                      merge_bits, blocks);
	return DOD_OK;
}
