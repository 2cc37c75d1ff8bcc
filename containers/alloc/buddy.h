/* buddy.h - a binary buddy allocator over one caller-provided buffer, the arena (Niklas
 * Gray, "Allocation Adventures 3: The Buddy Allocator", Bitsquid blog, 2015). Its layout,
 * invariants and costs are the opening comment of buddy.c.
 *
 * Blocks are power-of-two multiples of a minimum block size; a request gets the smallest
 * block that holds it (so up to half of a block is slack). The allocator never calls
 * malloc: its free lists live inside the free blocks and its two bit arrays (one merge bit
 * per buddy pair, one split bit per block that can split) at the end of the arena.
 *
 *   int  buddy_init(b, arena, arena_bytes, min_block_bytes)   0, DOD_EINVAL, DOD_ENOMEM
 *   int  buddy_alloc(b, bytes, &p)       smallest block >= bytes: 0, DOD_EINVAL, DOD_EFULL
 *   int  buddy_free(b, p)                0, DOD_EINVAL (not a block start), DOD_EFREE
 *   int  buddy_realloc(b, &p, bytes)     grown in place when the buddies are free, else
 *                                        moved: 0, DOD_EINVAL, DOD_EFREE, DOD_EFULL
 *   int  buddy_block_bytes(b, p, &n)     the size of p's block: 0, DOD_EINVAL, DOD_EFREE
 *   void buddy_stats(b, &s)              free bytes, largest free block, free blocks per
 *                                        level, fragmentation, metadata bytes
 *   int  buddy_check(b, why, why_len)    the invariants of buddy.c's opening comment
 *   size_t buddy_arena_bytes(tree_bytes, min_block_bytes)  the arena whose whole usable
 *                                        part is one free block of tree_bytes
 *
 * Every function that can fail returns 0 or a negative DOD_* code (dod_common.h) and then
 * has changed nothing. Nothing prints, nothing exits. Sizes are in bytes.
 */
#ifndef DOD_ALLOC_BUDDY_H
#define DOD_ALLOC_BUDDY_H

#include <stddef.h>
#include <stdint.h>

/* Levels are 0 (the whole tree) to depth <= 31: a block is named in the free lists by the
 * index of its first minimum block, a uint32_t, with UINT32_MAX as nil. */
#define BUDDY_MAX_LEVELS 32

struct buddy {
	char *base;              /* the arena; block offsets are relative to it */
	size_t arena_bytes;      /* as given to buddy_init */
	size_t usable_bytes;     /* [0, usable_bytes) is handed out: leaves x min_block_bytes */
	size_t meta_offset;      /* the two bit arrays: [meta_offset, meta_offset + meta_bytes) */
	size_t meta_bytes;
	size_t free_bytes;       /* sum of the free lists' block sizes */
	uint64_t *merge;         /* bit n: allocated(left child) XOR allocated(right child) */
	uint64_t *split;         /* bit n: node n is split into its two children */
	uint32_t min_shift;      /* log2(min_block_bytes) */
	uint32_t depth;          /* level depth's blocks are min_block_bytes */
	uint32_t usable_leaves;  /* usable_bytes >> min_shift */
	uint32_t nonempty;       /* bit L: free list L is not empty */
	uint32_t head[BUDDY_MAX_LEVELS];   /* first free block of each level, or UINT32_MAX */
	uint32_t n_free[BUDDY_MAX_LEVELS]; /* free blocks on each level's list */
};

struct buddy_stats {
	size_t arena_bytes;        /* as given to buddy_init */
	size_t usable_bytes;       /* the part blocks are carved from */
	size_t metadata_bytes;     /* the bit arrays at the arena's end */
	size_t unused_bytes;       /* arena - usable - metadata: alignment and the partial
	                            * minimum block before the bit arrays */
	size_t min_block_bytes;
	size_t free_bytes;         /* usable bytes in free blocks */
	size_t largest_free_bytes; /* the largest free block (0: none): the largest request
	                            * that can succeed now */
	size_t free_blocks;        /* free blocks of all levels */
	double fragmentation;      /* 1 - largest_free / free (0 when nothing is free): 0 =
	                            * all free bytes in one block */
	unsigned levels;           /* depth + 1 */
	uint32_t free_blocks_at[BUDDY_MAX_LEVELS]; /* per level; level L's blocks are
	                                            * min_block_bytes << (levels - 1 - L) */
};

/* Starts an allocator over arena[0 .. arena_bytes) with blocks of min_block_bytes << k.
 * arena: 8-byte aligned (the bit arrays are uint64_t words); a block of s bytes starts at
 * an offset that is a multiple of s, so it is aligned to min(s, the arena's alignment).
 * min_block_bytes: a power of two >= 8 (a free block holds its two 32-bit list links).
 * The bit arrays take the arena's last meta_bytes (2 bits per internal node of the tree,
 * rounded to 64-bit words); the blocks before them are usable; the tree covers the
 * smallest power of two of minimum blocks that holds the usable part, and its blocks past
 * it are never free. Returns 0; DOD_EINVAL (b or arena NULL, arena misaligned,
 * min_block_bytes not a power of two or below 8, arena too small for the bit arrays and
 * one minimum block); DOD_ENOMEM (the arena holds more than 2^31 minimum blocks: the
 * links are 32 bits). On error b and the arena are untouched. O(usable_bytes /
 * min_block_bytes / 64 + depth^2). Writes the arena's bit arrays and the links of the
 * initial free blocks; nothing the arena held before survives. */
int buddy_init(struct buddy *b, void *arena, size_t arena_bytes, size_t min_block_bytes);

/* *out = the start of a block of at least bytes bytes, the smallest free one that fits
 * (split down from a larger one when no block of that size is free). Returns 0; DOD_EINVAL
 * (b or out NULL, bytes 0 or larger than the arena); DOD_EFULL (no free block is large
 * enough: the arena is full or too fragmented; buddy_stats' largest_free_bytes is the
 * largest request that fits). On error *out and b are unchanged. O(levels): the level to
 * split from is one bit scan. Invalidates nothing. Article, "Allocation". */
int buddy_alloc(struct buddy *b, size_t bytes, void **out);

/* Frees the block that starts at p, found from the split bits (the caller does not pass
 * its size), and merges it with its buddy, level after level, while the buddy is free.
 * Returns 0; DOD_EINVAL (b or p NULL, p outside the usable part of the arena, or p inside
 * an allocated block but not at its start); DOD_EFREE (p lies in a free block: a double
 * free, or a pointer into freed memory). On error nothing changes. Detection is exact:
 * the one thing no allocator without per-block generations can tell is a stale pointer
 * whose block was freed and handed out again, which then frees the new owner's block.
 * O(levels); only when the block's or its buddy's first 8 bytes hold what looks like a
 * free-list link (data the caller wrote) is the level's free list walked to decide,
 * O(free blocks of that level). Invalidates p. Article, "Freeing" and "Merge bits". */
int buddy_free(struct buddy *b, void *p);

/* Grows the block at *p to hold bytes (Gray's lists that double), keeping its contents:
 * in place when *p is the left buddy at each level it must grow through and those
 * buddies are free (merged into it), else into a new block (buddy_alloc, a memcpy of the
 * old block, buddy_free of the old one). A block that already holds bytes is left as it
 * is (never shrunk). *p NULL: buddy_alloc. Returns 0 (*p updated); DOD_EINVAL (b or p
 * NULL, bytes 0 or larger than the arena, *p not a block start: as buddy_free);
 * DOD_EFREE (*p is free); DOD_EFULL (no room for the new block: the old one is kept).
 * On error *p and b are unchanged. O(levels) plus the copy. Invalidates *p when it moves. */
int buddy_realloc(struct buddy *b, void **p, size_t bytes);

/* *bytes_out = the size of the allocated block that starts at p. Returns 0, DOD_EINVAL
 * or DOD_EFREE as buddy_free (nothing written on error). O(levels). */
int buddy_block_bytes(const struct buddy *b, const void *p, size_t *bytes_out);

/* Fills *out (every field). O(levels): the counts are kept by alloc and free. */
void buddy_stats(const struct buddy *b, struct buddy_stats *out);

/* The invariants of buddy.c's opening comment: geometry, split bits shaped as a tree
 * (a split node's parent is split, an unsplit node has no merge bit, nodes past the
 * usable part unsplit, nodes across its end split), every free list doubly linked and
 * inside the usable part, each free block an unsplit node whose parent is split with its
 * pair's merge bit set and its buddy not free, merge bits set exactly once per free block,
 * the counts, the non-empty mask and free_bytes equal to the lists' sum. Returns 0, or
 * DOD_EINVAL with the first broken one written to why[0 .. why_len) (as dod_check_fail).
 * Never changes b, never prints. O(tree nodes + free blocks). */
int buddy_check(const struct buddy *b, char *why, size_t why_len);

/* The arena size whose usable part is exactly one free block of tree_bytes (a power-of-
 * two multiple of min_block_bytes): tree_bytes plus its bit arrays. 0 when tree_bytes or
 * min_block_bytes is not valid for buddy_init or the sum does not fit in size_t. O(1). */
size_t buddy_arena_bytes(size_t tree_bytes, size_t min_block_bytes);

#endif
