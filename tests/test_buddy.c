/* test_buddy.c - the buddy allocator of containers/alloc/buddy.c (Gray, "Allocation
 * Adventures 3"), on its own:
 *   split          one minimum block from an arena that is one free block splits every
 *                  level: one free block per level, at the offsets the halves have
 *   picture        the state drawn in buddy.c's opening comment, bit for bit
 *   merge          256 minimum blocks freed in several orders (ascending, descending,
 *                  evens then odds, seeded shuffles) always end as the one free block
 *   exhaustion     random sizes until even one byte is DOD_EFULL: the arena is full,
 *                  nothing overlaps, failed calls change nothing, the data survives
 *   not_pow2       arenas of odd sizes: every byte handed out lies in the arena (ASan
 *                  sees the malloc'd arena's end), minimum blocks fill exactly the usable
 *                  part, which is the arena minus the bit arrays, the largest block the
 *                  largest power of two in it; a 1-block arena
 *   errors         bad init parameters (b and the arena untouched), size 0, oversize,
 *                  double free, foreign, mid-block and freed-memory pointers, caller data
 *                  that forges a free-list link: each its code, nothing changed
 *   fragmentation  a crafted pattern's free bytes, largest block, blocks per level and
 *                  fragmentation; the metadata of a 1 MiB arena of 16-byte blocks
 *   grow           growth in place exactly when the block is the left buddy and its
 *                  buddies are free, else a move, the contents kept; DOD_EFULL keeps it
 *   check_catches  buddy_check names each broken invariant: counts, free bytes, the
 *                  non-empty mask, merge and split bits, a link, two free buddies
 *   random         seeded alloc / free / realloc / probe sequences against a model (the
 *                  live blocks and a map of the minimum blocks they hold): sizes,
 *                  alignment, no overlap, free bytes, DOD_EFULL only when no aligned free
 *                  run of the size exists, realloc in place exactly when it can be, the
 *                  contents, a random byte's verdict (block start, DOD_EFREE in free
 *                  memory, DOD_EINVAL inside a live block), buddy_check after every step
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "alloc/buddy.h"
#include "dod_common.h"

static void check_ok(const struct buddy *b)
{
	char why[256];
	if (buddy_check(b, why, sizeof why) != DOD_OK)
		fail_msg("buddy_check: %s", why);
}

static struct buddy_stats stats_of(const struct buddy *b)
{
	struct buddy_stats s;
	buddy_stats(b, &s);
	return s;
}

static void stats_equal(const struct buddy_stats *a, const struct buddy_stats *b)
{
	assert_int_equal(a->free_bytes, b->free_bytes);
	assert_int_equal(a->largest_free_bytes, b->largest_free_bytes);
	assert_int_equal(a->free_blocks, b->free_blocks);
	assert_memory_equal(a->free_blocks_at, b->free_blocks_at, sizeof a->free_blocks_at);
}

/* A malloc'd arena of exactly n bytes (ASan reports any byte past it). */
static char *arena_new(size_t n)
{
	char *a = malloc(n);
	assert_non_null(a);
	return a;
}

static void *alloc_ok(struct buddy *b, size_t bytes)
{
	void *p = NULL;
	assert_int_equal(buddy_alloc(b, bytes, &p), DOD_OK);
	return p;
}

static size_t block_of(const struct buddy *b, const void *p)
{
	size_t n = 0;
	assert_int_equal(buddy_block_bytes(b, p, &n), DOD_OK);
	return n;
}

/* An arena of 4096 usable bytes in 16-byte blocks that starts as one free block. */
#define T_BYTES 4096u
#define T_MIN 16u

static void test_split(void **state)
{
	(void)state;
	size_t n = buddy_arena_bytes(T_BYTES, T_MIN);
	assert_int_equal(n, T_BYTES + 2 * 4 * 8); /* 255 internal nodes: 4 words per array */
	char *a = arena_new(n);
	struct buddy b;
	assert_int_equal(buddy_init(&b, a, n, T_MIN), DOD_OK);
	struct buddy_stats s = stats_of(&b);
	assert_int_equal(s.levels, 9);
	assert_int_equal(s.usable_bytes, T_BYTES);
	assert_int_equal(s.free_blocks_at[0], 1);
	assert_int_equal(s.free_blocks, 1);
	assert_int_equal(s.largest_free_bytes, T_BYTES);
	char *p = alloc_ok(&b, 1);
	assert_ptr_equal(p, a);
	assert_int_equal(block_of(&b, p), T_MIN);
	check_ok(&b);
	s = stats_of(&b);
	assert_int_equal(s.free_blocks_at[0], 0);
	for (unsigned L = 1; L < s.levels; L++)
		assert_int_equal(s.free_blocks_at[L], 1);
	assert_int_equal(s.free_bytes, T_BYTES - T_MIN);
	assert_int_equal(s.largest_free_bytes, T_BYTES / 2);
	/* The right halves are the free blocks: size s at offset s, taken largest first. */
	for (size_t sz = T_BYTES / 2; sz >= T_MIN; sz /= 2) {
		char *q = alloc_ok(&b, sz / 2 + 1); /* rounded up to sz */
		assert_ptr_equal(q, a + sz);
		assert_int_equal(block_of(&b, q), sz);
		check_ok(&b);
	}
	assert_int_equal(stats_of(&b).free_bytes, 0);
	for (size_t sz = T_MIN; sz <= T_BYTES / 2; sz *= 2)
		assert_int_equal(buddy_free(&b, a + sz), DOD_OK);
	assert_int_equal(buddy_free(&b, p), DOD_OK);
	check_ok(&b);
	assert_int_equal(stats_of(&b).free_blocks_at[0], 1);
	p = alloc_ok(&b, T_BYTES); /* the root itself: no split, no merge bit */
	assert_ptr_equal(p, a);
	assert_int_equal(stats_of(&b).free_bytes, 0);
	check_ok(&b);
	assert_int_equal(buddy_free(&b, p), DOD_OK);
	assert_int_equal(buddy_free(&b, p), DOD_EFREE);
	assert_int_equal(stats_of(&b).free_blocks_at[0], 1);
	check_ok(&b);
	free(a);
}

/* The state drawn in buddy.c's opening comment, bit for bit: 6 usable 16-byte blocks
 * (112 bytes: 96 and two 8-byte bit words), after alloc(16) and alloc(32). */
static void test_picture(void **state)
{
	(void)state;
	char *a = arena_new(112);
	struct buddy b;
	assert_int_equal(buddy_init(&b, a, 112, 16), DOD_OK);
	struct buddy_stats s = stats_of(&b);
	assert_int_equal(s.levels, 4);
	assert_int_equal(s.usable_bytes, 96);
	assert_int_equal(s.free_blocks_at[1], 1); /* 4 leaves at 0, 2 at 4 */
	assert_int_equal(s.free_blocks_at[2], 1);
	assert_ptr_equal(alloc_ok(&b, 16), a + 64);
	assert_ptr_equal(alloc_ok(&b, 32), a);
	assert_int_equal(b.split[0], 0x27); /* nodes 0, 1, 2, 5 */
	assert_int_equal(b.merge[0], 0x22); /* nodes 1, 5 */
	assert_int_equal(b.head[2], 2);
	assert_int_equal(b.head[3], 5);
	assert_int_equal(b.nonempty, (1u << 2) | (1u << 3));
	assert_ptr_equal((char *)b.merge, a + 96);
	check_ok(&b);
	free(a);
}

/* Frees the 256 minimum blocks of ps in the order idx gives, checking as it goes; ends
 * with the one free block. */
static void free_in_order(struct buddy *b, char **ps, const size_t *idx, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		assert_int_equal(buddy_free(b, ps[idx[i]]), DOD_OK);
		check_ok(b);
		assert_int_equal(stats_of(b).free_bytes, (i + 1) * T_MIN);
	}
	struct buddy_stats s = stats_of(b);
	assert_int_equal(s.free_blocks, 1);
	assert_int_equal(s.free_blocks_at[0], 1);
	assert_int_equal(s.largest_free_bytes, T_BYTES);
	assert_int_equal(s.fragmentation, 0);
}

static void test_merge(void **state)
{
	(void)state;
	enum { N = T_BYTES / T_MIN };
	size_t n = buddy_arena_bytes(T_BYTES, T_MIN), idx[N];
	char *a = arena_new(n), *ps[N];
	struct buddy b;
	assert_int_equal(buddy_init(&b, a, n, T_MIN), DOD_OK);
	for (int order = 0; order < 6; order++) {
		for (size_t i = 0; i < N; i++) {
			ps[i] = alloc_ok(&b, T_MIN);
			assert_ptr_equal(ps[i], a + i * T_MIN); /* a fresh arena fills in address order */
		}
		void *p;
		assert_int_equal(buddy_alloc(&b, 1, &p), DOD_EFULL);
		for (size_t i = 0; i < N; i++) /* ascending, descending, evens then odds */
			idx[i] = order == 1 ? N - 1 - i : order == 2 ? (2 * i) % N + (2 * i >= N) : i;
		if (order >= 3) { /* seeded shuffles */
			uint64_t rng = (uint64_t)order;
			dod_shuffle(idx, N, sizeof *idx, &rng);
		}
		free_in_order(&b, ps, idx, N);
	}
	free(a);
}

/* Allocates random sizes (1 .. 300 bytes) until one byte no longer fits; returns how many
 * blocks it got, in ps (room for max), each filled with its index's low byte. */
static size_t fill_up(struct buddy *b, char **ps, size_t max, uint64_t seed)
{
	size_t n = 0;
	uint64_t rng = seed;
	for (;;) {
		size_t want = 1 + (size_t)dod_rng_below(&rng, 300);
		void *p = NULL;
		struct buddy_stats before = stats_of(b);
		int err = buddy_alloc(b, want, &p);
		if (err == DOD_EFULL) {
			struct buddy_stats after = stats_of(b);
			stats_equal(&before, &after);
			assert_true(before.largest_free_bytes < want);
			if (buddy_alloc(b, 1, &p) == DOD_EFULL)
				return n;
			want = 1;
		}
		assert_int_not_equal(n, max);
		ps[n] = p;
		memset(p, (int)(n & 0xff), block_of(b, p));
		n++;
	}
}

static void test_exhaustion(void **state)
{
	(void)state;
	static const size_t arenas[][2] = { { 0, 16 }, { 50000, 16 }, { 12345, 8 } };
	for (size_t k = 0; k < sizeof arenas / sizeof *arenas; k++) {
		size_t n = arenas[k][0] ? arenas[k][0] : buddy_arena_bytes(1 << 15, 16);
		char *a = arena_new(n), *ps[8192];
		struct buddy b;
		assert_int_equal(buddy_init(&b, a, n, arenas[k][1]), DOD_OK);
		struct buddy_stats fresh = stats_of(&b);
		size_t got = fill_up(&b, ps, 8192, 11 + k), handed = 0;
		check_ok(&b);
		struct buddy_stats s = stats_of(&b);
		assert_int_equal(s.free_bytes, 0);
		assert_int_equal(s.free_blocks, 0);
		assert_int_equal(s.fragmentation, 0);
		for (size_t i = 0; i < got; i++) {
			size_t bytes = block_of(&b, ps[i]);
			handed += bytes;
			for (size_t j = 0; j < bytes; j++)
				assert_int_equal((unsigned char)ps[i][j], i & 0xff);
		}
		/* Each block kept its fill (no overlap) and the sizes add up (nothing lost). */
		assert_int_equal(handed, s.usable_bytes);
		for (size_t i = 0; i < got; i++)
			assert_int_equal(buddy_free(&b, ps[i]), DOD_OK);
		check_ok(&b);
		s = stats_of(&b);
		stats_equal(&fresh, &s);
		free(a);
	}
}

/* An arena of n bytes (min blocks of m): geometry, every minimum block inside it. */
static void odd_arena(size_t n, size_t m)
{
	char *a = arena_new(n);
	struct buddy b;
	assert_int_equal(buddy_init(&b, a, n, m), DOD_OK);
	check_ok(&b);
	struct buddy_stats s = stats_of(&b);
	size_t internal = ((size_t)1 << (s.levels - 1)) - 1, words = (internal + 63) / 64;
	assert_int_equal(s.metadata_bytes, 2 * 8 * (words ? words : 1));
	assert_int_equal(s.usable_bytes + s.metadata_bytes + s.unused_bytes, n);
	assert_true(s.unused_bytes < m + 8);
	assert_int_equal(s.usable_bytes % m, 0);
	assert_true(s.usable_bytes <= m << (s.levels - 1)); /* the tree holds the usable part */
	size_t pow2 = m;
	while (pow2 * 2 <= s.usable_bytes)
		pow2 *= 2;
	assert_int_equal(s.largest_free_bytes, pow2);
	assert_int_equal(s.free_bytes, s.usable_bytes);
	size_t count = 0;
	void *p;
	while (buddy_alloc(&b, m, &p) == DOD_OK) {
		assert_true((char *)p >= a && (char *)p + m <= a + s.usable_bytes);
		memset(p, 0x5a, m);
		count++;
	}
	assert_int_equal(count * m, s.usable_bytes);
	check_ok(&b);
	/* The bit arrays survived the writes: freeing everything merges back. */
	for (size_t off = 0; off < s.usable_bytes; off += m)
		assert_int_equal(buddy_free(&b, a + off), DOD_OK);
	check_ok(&b);
	struct buddy_stats again = stats_of(&b);
	stats_equal(&s, &again);
	/* The largest block, and nothing larger. */
	p = alloc_ok(&b, pow2);
	assert_ptr_equal(p, a);
	void *q;
	assert_int_equal(buddy_alloc(&b, pow2 + 1, &q), DOD_EFULL);
	assert_int_equal(buddy_free(&b, p), DOD_OK);
	free(a);
}

static void test_not_pow2(void **state)
{
	(void)state;
	odd_arena(1000, 8);
	odd_arena(3008, 16);
	odd_arena(100000, 16);
	odd_arena(65536, 16);
	odd_arena((1 << 20) + 12345, 64);
	odd_arena(777, 256);
	odd_arena(32, 16); /* one block: depth 0, the bit arrays 16 bytes */
	char *a = arena_new(32);
	struct buddy b;
	assert_int_equal(buddy_init(&b, a, 32, 16), DOD_OK);
	assert_int_equal(stats_of(&b).levels, 1);
	void *p = alloc_ok(&b, 16), *q;
	assert_ptr_equal(p, a);
	assert_int_equal(buddy_alloc(&b, 1, &q), DOD_EFULL);
	assert_int_equal(buddy_free(&b, p), DOD_OK);
	assert_int_equal(buddy_free(&b, p), DOD_EFREE);
	check_ok(&b);
	free(a);
}

static void init_errors(void)
{
	char *a = arena_new(4096);
	memset(a, 0x33, 4096);
	struct buddy b, pristine;
	memset(&b, 0xab, sizeof b);
	memcpy(&pristine, &b, sizeof b);
	const struct { char *arena; size_t n, m; int err; } cases[] = {
		{ a, 4096, 0, DOD_EINVAL },   { a, 4096, 4, DOD_EINVAL },   /* below the links */
		{ a, 4096, 24, DOD_EINVAL },  { a, 4096, 7, DOD_EINVAL },   /* not a power of two */
		{ a + 4, 4092, 16, DOD_EINVAL },                            /* misaligned arena */
		{ a, 0, 16, DOD_EINVAL },     { a, 16, 16, DOD_EINVAL },    /* too small: only */
		{ a, 31, 16, DOD_EINVAL },                                  /* bits, no block */
		{ NULL, 4096, 16, DOD_EINVAL },
		{ a, SIZE_MAX, 8, DOD_ENOMEM },                             /* does not fit */
		{ a, ((size_t)1 << 34) + 8, 8, DOD_ENOMEM },                /* 2^31 + 1 blocks */
	};
	for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
		assert_int_equal(buddy_init(&b, cases[i].arena, cases[i].n, cases[i].m), cases[i].err);
		assert_memory_equal(&b, &pristine, sizeof b);
	}
	assert_int_equal(buddy_init(NULL, a, 4096, 16), DOD_EINVAL);
	for (size_t i = 0; i < 4096; i++)
		assert_int_equal(a[i], 0x33);
	assert_int_equal(buddy_arena_bytes(4096, 24), 0);
	assert_int_equal(buddy_arena_bytes(3000, 16), 0);
	assert_int_equal(buddy_arena_bytes(8, 16), 0);
	free(a);
}

/* Every call in the list fails with its code and changes nothing. */
static void expect_free_error(struct buddy *b, const void *p, int err)
{
	struct buddy_stats before = stats_of(b), after;
	assert_int_equal(buddy_free(b, (void *)(uintptr_t)p), err);
	size_t bytes = 12345;
	assert_int_equal(buddy_block_bytes(b, p, &bytes), err);
	assert_int_equal(bytes, 12345);
	after = stats_of(b);
	stats_equal(&before, &after);
	check_ok(b);
}

static void alloc_errors(struct buddy *b, size_t n)
{
	struct buddy_stats before = stats_of(b), after;
	void *out = &out;
	assert_int_equal(buddy_alloc(b, 0, &out), DOD_EINVAL);
	assert_int_equal(buddy_alloc(b, n + 1, &out), DOD_EINVAL);
	assert_int_equal(buddy_alloc(b, SIZE_MAX, &out), DOD_EINVAL);
	assert_int_equal(buddy_alloc(b, 16, NULL), DOD_EINVAL);
	assert_int_equal(buddy_alloc(NULL, 16, &out), DOD_EINVAL);
	assert_int_equal(buddy_alloc(b, T_BYTES + 1, &out), DOD_EFULL); /* fits the arena, no block */
	assert_ptr_equal(out, &out);
	after = stats_of(b);
	stats_equal(&before, &after);
}

static void call_errors(void)
{
	size_t n = buddy_arena_bytes(T_BYTES, T_MIN);
	char *a = arena_new(n), *other = arena_new(64), local[16];
	struct buddy b;
	assert_int_equal(buddy_init(&b, a, n, T_MIN), DOD_OK);
	char *p = alloc_ok(&b, 16), *q = alloc_ok(&b, 16), *r = alloc_ok(&b, 64);
	assert_ptr_equal(r, a + 64); /* free: 32 at 32, then 128, 256, ... */
	alloc_errors(&b, n);
	expect_free_error(&b, NULL, DOD_EINVAL);
	expect_free_error(&b, local, DOD_EINVAL);
	expect_free_error(&b, other, DOD_EINVAL);
	expect_free_error(&b, a + n, DOD_EINVAL);
	expect_free_error(&b, a + T_BYTES, DOD_EINVAL); /* the bit arrays */
	expect_free_error(&b, r + 16, DOD_EINVAL);      /* inside an allocated block */
	expect_free_error(&b, r + 1, DOD_EINVAL);
	expect_free_error(&b, p + 8, DOD_EINVAL);
	expect_free_error(&b, a + 32, DOD_EFREE);       /* a free block */
	expect_free_error(&b, a + 40, DOD_EFREE);       /* inside one */
	assert_int_equal(buddy_free(&b, q), DOD_OK);
	expect_free_error(&b, q, DOD_EFREE);            /* double free, buddy allocated */
	assert_int_equal(buddy_free(&b, p), DOD_OK);    /* merges up to 64 at 0 */
	assert_int_equal(stats_of(&b).free_blocks_at[6], 1); /* 64 bytes: 16 << (8 - 6) */
	expect_free_error(&b, p, DOD_EFREE);            /* double free after a merge */
	expect_free_error(&b, q, DOD_EFREE);
	void *pp = p, *rr = r;
	assert_int_equal(buddy_realloc(&b, &pp, 128), DOD_EFREE);
	assert_int_equal(buddy_realloc(&b, &rr, 0), DOD_EINVAL);
	assert_int_equal(buddy_realloc(&b, &rr, n + 1), DOD_EINVAL);
	assert_int_equal(buddy_realloc(&b, NULL, 16), DOD_EINVAL);
	assert_ptr_equal(pp, p);
	assert_ptr_equal(rr, r);
	assert_int_equal(block_of(&b, r), 64);
	assert_int_equal(buddy_free(&b, r), DOD_OK);
	expect_free_error(&b, r, DOD_EFREE);
	assert_int_equal(stats_of(&b).free_blocks_at[0], 1);
	free(other);
	free(a);
}

/* Caller data that looks like a free-list link (white box: a free block's first 8 bytes
 * are uint32 next, prev, leaf indices) cannot fool free: the level's list decides. */
static void forged_links(void)
{
	size_t n = buddy_arena_bytes(T_BYTES, T_MIN);
	char *a = arena_new(n);
	struct buddy b;
	assert_int_equal(buddy_init(&b, a, n, T_MIN), DOD_OK);
	char *p = alloc_ok(&b, 16), *q = alloc_ok(&b, 16), *c = alloc_ok(&b, 16);
	assert_ptr_equal(c, a + 32);
	assert_int_equal(buddy_free(&b, q), DOD_OK); /* p's buddy is free, p is not */
	uint32_t leaf_c = 2, leaf_p = 0;
	memcpy(p + 4, &leaf_c, 4); /* p.prev = c */
	memcpy(c, &leaf_p, 4);     /* c.next = p */
	check_ok(&b);
	expect_free_error(&b, q, DOD_EFREE);
	assert_int_equal(block_of(&b, p), 16);
	assert_int_equal(buddy_free(&b, p), DOD_OK);
	check_ok(&b);
	expect_free_error(&b, p, DOD_EFREE);
	assert_int_equal(buddy_free(&b, c), DOD_OK);
	assert_int_equal(stats_of(&b).free_blocks_at[0], 1);
	free(a);
}

static void test_errors(void **state)
{
	(void)state;
	init_errors();
	call_errors();
	forged_links();
}

static void near(double x, double want)
{
	if (x < want - 1e-12 || x > want + 1e-12)
		fail_msg("%.17g, expected %.17g", x, want);
}

static void test_fragmentation(void **state)
{
	(void)state;
	enum { N = T_BYTES / T_MIN };
	size_t n = buddy_arena_bytes(T_BYTES, T_MIN);
	char *a = arena_new(n), *ps[N];
	struct buddy b;
	assert_int_equal(buddy_init(&b, a, n, T_MIN), DOD_OK);
	for (size_t i = 0; i < N; i++)
		ps[i] = alloc_ok(&b, T_MIN);
	for (size_t i = 0; i < N; i += 2) /* every other block: no two free buddies */
		assert_int_equal(buddy_free(&b, ps[i]), DOD_OK);
	struct buddy_stats s = stats_of(&b);
	assert_int_equal(s.free_bytes, 2048);
	assert_int_equal(s.largest_free_bytes, 16);
	assert_int_equal(s.free_blocks, 128);
	assert_int_equal(s.free_blocks_at[8], 128);
	near(s.fragmentation, 1.0 - 16.0 / 2048.0);
	for (size_t i = 1; i < N / 2; i += 2) /* the first half merges into one block */
		assert_int_equal(buddy_free(&b, ps[i]), DOD_OK);
	s = stats_of(&b);
	assert_int_equal(s.free_bytes, 3072);
	assert_int_equal(s.largest_free_bytes, 2048);
	assert_int_equal(s.free_blocks, 65);
	assert_int_equal(s.free_blocks_at[1], 1);
	assert_int_equal(s.free_blocks_at[8], 64);
	near(s.fragmentation, 1.0 / 3.0);
	void *p = alloc_ok(&b, 1024); /* splits the 2048 */
	s = stats_of(&b);
	assert_int_equal(s.free_bytes, 2048);
	assert_int_equal(s.largest_free_bytes, 1024);
	assert_int_equal(s.free_blocks_at[1], 0);
	assert_int_equal(s.free_blocks_at[2], 1);
	near(s.fragmentation, 0.5);
	check_ok(&b);
	assert_int_equal(buddy_free(&b, p), DOD_OK);
	free(a);
}

/* A 1 MiB arena of 16-byte blocks: 2^16 leaves, 2 x (2^16 - 1) bits in 2 x 1024 words. */
static void test_metadata(void **state)
{
	(void)state;
	size_t n = (size_t)1 << 20;
	char *a = arena_new(n);
	struct buddy b;
	assert_int_equal(buddy_init(&b, a, n, 16), DOD_OK);
	struct buddy_stats s = stats_of(&b);
	assert_int_equal(s.metadata_bytes, 16384);
	assert_int_equal(s.usable_bytes, n - 16384);
	assert_int_equal(s.unused_bytes, 0);
	assert_int_equal(s.levels, 17);
	assert_int_equal(s.largest_free_bytes, n / 2);
	assert_int_equal(s.free_blocks, 6); /* 512K, 256K, ..., 16K: the bits take the last 16K */
	for (unsigned L = 1; L <= 6; L++)
		assert_int_equal(s.free_blocks_at[L], 1);
	near(s.fragmentation, 1.0 - 524288.0 / (double)(n - 16384));
	check_ok(&b);
	free(a);
}

static void test_grow(void **state)
{
	(void)state;
	size_t n = buddy_arena_bytes(T_BYTES, T_MIN);
	char *a = arena_new(n);
	struct buddy b;
	assert_int_equal(buddy_init(&b, a, n, T_MIN), DOD_OK);
	void *p = alloc_ok(&b, 16), *q, *r, *z = NULL;
	memset(p, 0x11, 16);
	assert_int_equal(buddy_realloc(&b, &p, 2048), DOD_OK); /* left buddy, all buddies free */
	assert_ptr_equal(p, a);
	assert_int_equal(block_of(&b, p), 2048);
	assert_int_equal(stats_of(&b).free_bytes, 2048);
	check_ok(&b);
	q = alloc_ok(&b, 16);
	assert_ptr_equal(q, a + 2048);
	assert_int_equal(buddy_realloc(&b, &q, 64), DOD_OK);
	assert_ptr_equal(q, a + 2048);
	r = alloc_ok(&b, 16);
	assert_ptr_equal(r, a + 2112);
	memset(r, 0x33, 16);
	assert_int_equal(buddy_realloc(&b, &r, 128), DOD_OK); /* the right one of a 128: moves */
	assert_ptr_equal(r, a + 2176);
	assert_int_equal(block_of(&b, r), 128);
	for (size_t i = 0; i < 16; i++) {
		assert_int_equal(((unsigned char *)p)[i], 0x11);
		assert_int_equal(((unsigned char *)r)[i], 0x33);
	}
	check_ok(&b);
	assert_int_equal(buddy_realloc(&b, &r, 100), DOD_OK); /* fits: unchanged */
	assert_ptr_equal(r, a + 2176);
	assert_int_equal(block_of(&b, r), 128);
	struct buddy_stats before = stats_of(&b), after;
	assert_int_equal(buddy_realloc(&b, &p, 4096), DOD_EFULL);
	assert_ptr_equal(p, a);
	after = stats_of(&b);
	stats_equal(&before, &after);
	assert_int_equal(buddy_realloc(&b, &z, 16), DOD_OK);
	assert_int_equal(block_of(&b, z), 16);
	void *all[] = { p, q, r, z };
	for (size_t i = 0; i < 4; i++)
		assert_int_equal(buddy_free(&b, all[i]), DOD_OK);
	check_ok(&b);
	assert_int_equal(stats_of(&b).free_blocks_at[0], 1);
	free(a);
}

/* A state to corrupt and restore: the allocator and its arena (the bits live there). */
struct snapshot {
	struct buddy b;
	char *arena;
	size_t n;
};

static void snap(struct snapshot *s, const struct buddy *b)
{
	s->b = *b;
	memcpy(s->arena, b->base, s->n);
}

/* buddy_check must name the broken invariant; then the snapshot comes back. */
static void expect_caught(struct buddy *b, const struct snapshot *s, const char *needle)
{
	char why[256] = "";
	assert_int_equal(buddy_check(b, why, sizeof why), DOD_EINVAL);
	if (!strstr(why, needle))
		fail_msg("check said \"%s\", expected \"%s\"", why, needle);
	*b = s->b;
	memcpy(b->base, s->arena, s->n);
	check_ok(b);
}

static void flip(uint64_t *bits, size_t i) { bits[i >> 6] ^= (uint64_t)1 << (i & 63); }

/* White box (buddy.h's fields, buddy.c's node numbering: node (L, i) = 2^L - 1 + i; a
 * free block's first 8 bytes are uint32 next, prev). From p = 0 and q = 16 allocated: */
static void test_check_catches(void **state)
{
	(void)state;
	size_t n = buddy_arena_bytes(T_BYTES, T_MIN);
	char *a = arena_new(n);
	struct buddy b;
	struct snapshot s = { .arena = arena_new(n), .n = n };
	assert_int_equal(buddy_init(&b, a, n, T_MIN), DOD_OK);
	char *p = alloc_ok(&b, 16), *q = alloc_ok(&b, 16);
	assert_ptr_equal(p, a);
	snap(&s, &b);
	b.free_bytes += 16;
	expect_caught(&b, &s, "free_bytes");
	b.n_free[7]++;
	expect_caught(&b, &s, "count");
	b.nonempty ^= 1u << 7;
	expect_caught(&b, &s, "bit");
	flip(b.merge, 127); /* the pair (p, q): both allocated */
	expect_caught(&b, &s, "merge bits set");
	flip(b.merge, 63);  /* (level 6, 0): 32 at 0 split, 32 at 32 free */
	expect_caught(&b, &s, "merge bit is 0");
	flip(b.merge, 200); /* an unsplit node deep in the free 2048 */
	expect_caught(&b, &s, "unsplit with a merge bit");
	flip(b.split, 2);   /* (level 1, 1): the free 2048 at 2048 */
	expect_caught(&b, &s, "split");
	flip(b.split, 63);  /* 64 at 0 unsplit (and its merge bit cleared): 32 at 0 is */
	flip(b.merge, 63);  /* split under an unsplit parent */
	expect_caught(&b, &s, "split, its parent not");
	uint32_t bad = 3;   /* the free 32 at 32 (leaf 2): prev -> leaf 3 */
	memcpy(a + 32 + 4, &bad, 4);
	expect_caught(&b, &s, "prev");
	/* Free q, then put p on the list as well: two free buddies, unmerged. */
	assert_int_equal(buddy_free(&b, q), DOD_OK);
	snap(&s, &b);
	uint32_t link[2] = { 1, UINT32_MAX }, p_leaf = 0; /* p: next q, prev none */
	memcpy(p, link, sizeof link);
	memcpy(q + 4, &p_leaf, 4);
	b.head[8] = 0;
	b.n_free[8]++;
	b.free_bytes += 16;
	expect_caught(&b, &s, "buddy is free too");
	free(s.arena);
	free(a);
}

/* ---- the randomized sequence against a model ---- */

#define MAX_LIVE 8192

struct live {
	char *p;
	size_t block;       /* bytes of its block */
	unsigned char fill; /* every byte of the block holds it */
};

struct model {
	struct buddy b;
	char *a;
	size_t arena_bytes, min, usable, tree, live_bytes, n_live;
	unsigned char *owned; /* per minimum block: 1 if a live block holds it */
	struct live live[MAX_LIVE];
	uint64_t rng;
};

/* The block a request of bytes gets: the smallest min << k that holds it. */
static size_t block_for(const struct model *m, size_t bytes)
{
	size_t s = m->min;
	while (s < bytes)
		s *= 2;
	return s;
}

static void mark(struct model *m, const char *p, size_t block, unsigned char to)
{
	size_t off = (size_t)(p - m->a);
	assert_int_equal(off % block, 0); /* aligned to its size */
	assert_true(off + block <= m->usable);
	for (size_t i = off / m->min; i < (off + block) / m->min; i++) {
		assert_int_equal(m->owned[i], !to); /* no overlap */
		m->owned[i] = to;
	}
}

/* Is [off, off + s) free in the model, or held by the block at keep (NULL: none)? */
static int run_free(const struct model *m, size_t off, size_t s, const char *keep, size_t keep_block)
{
	size_t k = keep ? (size_t)(keep - m->a) : SIZE_MAX;
	for (size_t i = off / m->min; i < (off + s) / m->min; i++)
		if (m->owned[i] && !(i * m->min >= k && i * m->min < k + keep_block))
			return 0;
	return 1;
}

/* DOD_EFULL for a block of s bytes is right only if no aligned run of s is free. */
static void assert_no_room(const struct model *m, size_t s)
{
	for (size_t off = 0; s <= m->tree && off + s <= m->usable; off += s)
		if (run_free(m, off, s, NULL, 0))
			fail_msg("DOD_EFULL for %zu bytes, but [%zu, +%zu) is free", s, off, s);
}

static void verify(const struct live *l)
{
	for (size_t i = 0; i < l->block; i++)
		if ((unsigned char)l->p[i] != l->fill)
			fail_msg("block at %p: byte %zu is %d, not %d", (void *)l->p, i, l->p[i], l->fill);
}

static void put(struct model *m, struct live *l, char *p, size_t block)
{
	l->p = p;
	l->block = block;
	l->fill = (unsigned char)dod_rng_next(&m->rng);
	mark(m, p, block, 1);
	memset(p, l->fill, block);
	m->live_bytes += block;
}

static size_t random_bytes(struct model *m)
{
	uint64_t r = dod_rng_below(&m->rng, 100);
	size_t top = r < 60 ? 64 : r < 90 ? 1024 : m->usable / 4;
	return 1 + (size_t)dod_rng_below(&m->rng, top);
}

static void step_alloc(struct model *m)
{
	size_t bytes = random_bytes(m);
	void *p = NULL;
	int err = buddy_alloc(&m->b, bytes, &p);
	if (err == DOD_EFULL) {
		assert_null(p);
		assert_no_room(m, block_for(m, bytes));
		return;
	}
	assert_int_equal(err, DOD_OK);
	assert_int_equal(block_of(&m->b, p), block_for(m, bytes));
	put(m, &m->live[m->n_live++], p, block_for(m, bytes));
}

static void step_free(struct model *m)
{
	size_t j = (size_t)dod_rng_below(&m->rng, m->n_live);
	struct live *l = &m->live[j];
	verify(l);
	assert_int_equal(buddy_free(&m->b, l->p), DOD_OK);
	mark(m, l->p, l->block, 0);
	m->live_bytes -= l->block;
	*l = m->live[--m->n_live];
}

/* Can the live block l become the aligned block of want bytes that starts where it does
 * (it starts that block, which lies in the usable part, and the rest of it is free)? */
static int in_place_possible(const struct model *m, const struct live *l, size_t want)
{
	size_t off = (size_t)(l->p - m->a);
	return off % want == 0 && want <= m->tree && off + want <= m->usable &&
	       run_free(m, off, want, l->p, l->block);
}

/* Grows a live block to between 1 and 2 times its size again: in place exactly when the
 * model says it can, else moved, or DOD_EFULL only when neither is possible. */
static void step_realloc(struct model *m)
{
	struct live *l = &m->live[dod_rng_below(&m->rng, m->n_live)];
	size_t bytes = l->block + 1 + (size_t)dod_rng_below(&m->rng, l->block), want = block_for(m, bytes);
	void *p = l->p;
	if (bytes > m->arena_bytes) {
		assert_int_equal(buddy_realloc(&m->b, &p, bytes), DOD_EINVAL);
		assert_ptr_equal(p, l->p);
		return;
	}
	int in_place = in_place_possible(m, l, want), err = buddy_realloc(&m->b, &p, bytes);
	if (err == DOD_EFULL) {
		assert_ptr_equal(p, l->p);
		assert_no_room(m, want);
		assert_false(in_place);
		return;
	}
	assert_int_equal(err, DOD_OK);
	assert_int_equal(p == l->p, in_place);
	for (size_t i = 0; i < l->block; i++) /* the old contents came along */
		assert_int_equal(((unsigned char *)p)[i], l->fill);
	mark(m, l->p, l->block, 0);
	m->live_bytes -= l->block;
	assert_int_equal(block_of(&m->b, p), want);
	put(m, l, p, want);
}

/* A random byte of the usable part: a live block's start gives its size; a byte no live
 * block holds is in a free block (DOD_EFREE); any other byte is inside a live block
 * (DOD_EINVAL). Errors must change nothing. */
static void step_probe(struct model *m)
{
	size_t off = (size_t)dod_rng_below(&m->rng, m->usable), bytes = 0;
	const struct live *start = NULL;
	for (size_t j = 0; j < m->n_live && !start; j++)
		start = m->live[j].p == m->a + off ? &m->live[j] : NULL;
	if (start) {
		assert_int_equal(buddy_block_bytes(&m->b, m->a + off, &bytes), DOD_OK);
		assert_int_equal(bytes, start->block);
		return;
	}
	int want = m->owned[off / m->min] ? DOD_EINVAL : DOD_EFREE;
	size_t free_bytes = stats_of(&m->b).free_bytes;
	assert_int_equal(buddy_block_bytes(&m->b, m->a + off, &bytes), want);
	assert_int_equal(buddy_free(&m->b, m->a + off), want);
	assert_int_equal(stats_of(&m->b).free_bytes, free_bytes);
}

static void random_run(size_t arena_bytes, size_t min, uint64_t seed, int steps)
{
	struct model *m = calloc(1, sizeof *m);
	assert_non_null(m);
	m->a = arena_new(arena_bytes);
	m->arena_bytes = arena_bytes;
	m->min = min;
	m->rng = seed;
	assert_int_equal(buddy_init(&m->b, m->a, arena_bytes, min), DOD_OK);
	struct buddy_stats fresh = stats_of(&m->b);
	m->usable = fresh.usable_bytes;
	m->tree = min << (fresh.levels - 1);
	m->owned = calloc(m->usable / min, 1);
	assert_non_null(m->owned);
	for (int i = 0; i < steps; i++) {
		uint64_t r = dod_rng_below(&m->rng, 100);
		if (m->n_live == 0 || (r < 45 && m->n_live < MAX_LIVE))
			step_alloc(m);
		else if (r < 70)
			step_free(m);
		else if (r < 85)
			step_realloc(m);
		else
			step_probe(m);
		check_ok(&m->b);
		assert_int_equal(stats_of(&m->b).free_bytes, m->usable - m->live_bytes);
		for (size_t j = 0; i % 256 == 255 && j < m->n_live; j++)
			verify(&m->live[j]);
	}
	while (m->n_live)
		step_free(m);
	struct buddy_stats end = stats_of(&m->b);
	stats_equal(&fresh, &end);
	free(m->owned);
	free(m->a);
	free(m);
}

static void test_random(void **state)
{
	(void)state;
	static const uint64_t seeds[] = { 1, 2026 };
	for (size_t i = 0; i < sizeof seeds / sizeof *seeds; i++) {
		random_run(buddy_arena_bytes(1 << 15, 16), 16, seeds[i], 3000);
		random_run(50000, 8, seeds[i] + 100, 3000);
		random_run(40000, 64, seeds[i] + 200, 3000);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_split),
		cmocka_unit_test(test_picture),
		cmocka_unit_test(test_merge),
		cmocka_unit_test(test_exhaustion),
		cmocka_unit_test(test_not_pow2),
		cmocka_unit_test(test_errors),
		cmocka_unit_test(test_fragmentation),
		cmocka_unit_test(test_metadata),
		cmocka_unit_test(test_grow),
		cmocka_unit_test(test_check_catches),
		cmocka_unit_test(test_random),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
