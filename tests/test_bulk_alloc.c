/* test_bulk_alloc.c - the allocation strategies of containers/alloc/ (Our Machinery,
 * "Bulk data") and the weak pointers of the bulk containers.
 *   stability        an element's address survives growth to 1M elements (static: within
 *                    its capacity), with its content, exactly for the strategies whose
 *                    MOVES is 0 (store.h: the one declaration of pointer stability, which
 *                    the variant table's stable_pointers is checked against when the bulk
 *                    sources compile); the others (realloc, constgrow, their _copy forms)
 *                    demonstrably move it
 *   growth_counts    dod_growth counts what growth did: the _copy strategies move and copy
 *                    every element at every growth, the block and vm strategies never
 *                    reallocate, and (glibc, no sanitizer) a realloc that remaps a block
 *                    from mmap copies nothing
 *   runs             store_run covers the capacity block by block, at() agrees with it
 *   full             static full and vm reservation exhausted are clean DOD_EFULL, a size
 *                    that cannot fit is DOD_ENOMEM; the store is unchanged and usable
 *   aligned          every strategy's _aligned functions (DOD_STORE_ALIGNED): every run
 *                    starts on a cache line (4- and 40-byte elements) or a 4 KiB
 *                    boundary, wherever the heap was, after growth too, which keeps the
 *                    elements
 *   weak_pointers    every bulk variant: stale, forged (even generation), id 0, past the
 *                    end, repeated in a batch, another container's handle
 *   free_list_slot0  the article's free list (claim A4, bulk/free_list.h): its header is
 *                    slot 0, the list runs from it through the holes and back to 0 (a
 *                    circle through the header), a pop that finds 0 means "grow" (a slot
 *                    is appended), LIFO; and every hole variant (holes.c, holes_bitmask
 *                    included) reuses erased slots in that order, then appends
 */
#include <malloc.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "alloc/constgrow.h"
#include "alloc/fixblocks.h"
#include "alloc/geoblocks.h"
#include "alloc/aligned.h"
#include "alloc/realloc.h"
#include "alloc/static.h"
#include "alloc/vm.h"
#include "bulk/free_list.h"
#include "dod_common.h"
#include "hb.h"

/* Huge requests must fail with DOD_ENOMEM, not abort the sanitizer build. */
const char *__asan_default_options(void);
const char *__asan_default_options(void) { return "allocator_may_return_null=1"; }

/* Every strategy, the moving ones last: where test_stability's blocker lands (right after
 * the buffer, so realloc cannot grow in place) depends on the heap the earlier ones left. */
#define STRATEGY(X)                                                                      \
	X(static) X(fixblocks) X(geoblocks) X(vm) X(realloc) X(constgrow) X(realloc_copy)      \
	X(constgrow_copy)

/* Grows a store of 8-byte elements from 16 to 1M elements (static, which never grows, is
 * given 1M up front), writing element 5 first; checks that element 5 stayed at the same
 * address exactly when the strategy's MOVES says so, and that its value survived; returns
 * whether it stayed. */
#define GROW_TEST(x)                                                                     \
	static bool grow_keeps_##x(void)                                                     \
	{                                                                                    \
		struct dod_##x##_store s;                                                        \
		size_t first = strcmp(#x, "static") == 0 ? 1 << 20 : 16;                         \
		assert_int_equal(dod_##x##_init(&s, 8, first), DOD_OK);                          \
		uint64_t *p = (uint64_t *)dod_##x##_at(&s, 5, 8);                                \
		*p = 0xfeedu;                                                                    \
		void *blocker = malloc(64); /* realloc cannot simply extend in place */          \
		assert_int_equal(dod_##x##_reserve(&s, 1 << 20), DOD_OK);                        \
		assert_true(dod_##x##_capacity(&s) >= (1u << 20));                               \
		uint64_t *q = (uint64_t *)dod_##x##_at(&s, 5, 8);                                \
		assert_int_equal(*q, 0xfeedu);                                                   \
		*(uint64_t *)dod_##x##_at(&s, (1 << 20) - 1, 8) = 1; /* the last one is usable */ \
		free(blocker);                                                                   \
		assert_int_equal(dod_##x##_MOVES, p != q);                                       \
		dod_##x##_free(&s);                                                              \
		return p == q;                                                                   \
	}
STRATEGY(GROW_TEST)

static void test_stability(void **state)
{
	(void)state;
	int kept = 0, moved = 0;
#define CALL_GROW(x) grow_keeps_##x() ? kept++ : moved++;
	STRATEGY(CALL_GROW)
	/* Both outcomes seen: realloc moves (the article's "pointers invalidated" bug), the
	 * block and vm strategies keep. */
	assert_true(kept > 0 && moved > 0);
}

/* store_run splits the capacity into contiguous runs in which at() is linear. */
#define RUN_TEST(x)                                                                      \
	static void runs_##x(void)                                                           \
	{                                                                                    \
		struct dod_##x##_store s;                                                        \
		assert_int_equal(dod_##x##_init(&s, 16, 100000), DOD_OK);                       \
		size_t cap = dod_##x##_capacity(&s), i = 0, runs = 0;                            \
		while (i < cap) {                                                                \
			size_t run = dod_##x##_run(&s, i);                                           \
			assert_true(run >= 1 && run <= cap - i);                                     \
			char *a = dod_##x##_at(&s, i, 16);                                           \
			assert_ptr_equal(dod_##x##_at(&s, i + run - 1, 16), a + (run - 1) * 16);     \
			if (i % 64 == 0)                                                             \
				assert_true(run >= 64 || run == cap - i); /* 64-slot groups fit */       \
			i += run;                                                                    \
			runs++;                                                                      \
		}                                                                                \
		assert_int_equal(i, cap);                                                        \
		assert_true(dod_##x##_committed_bytes(&s) >= cap * 16);                          \
		assert_true(dod_##x##_reserved_bytes(&s) >= dod_##x##_committed_bytes(&s));     \
		dod_##x##_free(&s);                                                              \
	}
STRATEGY(RUN_TEST)

static void test_runs(void **state)
{
	(void)state;
#define CALL_RUNS(x) runs_##x();
	STRATEGY(CALL_RUNS)
}

/* Every run of a store of eb-byte elements starts on an align boundary; returns how many
 * elements it holds. */
#define ALIGNED_RUNS(x)                                                                  \
	static size_t aligned_runs_##x(const struct dod_##x##_store *s, size_t eb, size_t align) \
	{                                                                                    \
		size_t cap = dod_##x##_capacity(s);                                              \
		for (size_t i = 0; i < cap; i += dod_##x##_run(s, i))                            \
			assert_int_equal((uintptr_t)dod_##x##_at(s, i, eb) % align, 0);             \
		return cap;                                                                      \
	}
STRATEGY(ALIGNED_RUNS)

/* An aligned store starting at each 16-byte offset of the heap (a pad before it), grown
 * to 100K elements with a pattern written first: aligned before and after, the pattern
 * kept. */
#define ALIGNED_TEST(x)                                                                  \
	static void aligned_##x(size_t eb, size_t align)                                     \
	{                                                                                    \
		for (size_t shift = 1; shift <= 4; shift++) {                                    \
			void *pad = malloc(16 * shift);                                              \
			struct dod_##x##_store s;                                                    \
			size_t first = strcmp(#x, "static") == 0 ? 100000 : 100;                     \
			assert_int_equal(dod_##x##_init_aligned(&s, eb, first, align), DOD_OK);      \
			size_t had = aligned_runs_##x(&s, eb, align);                                \
			for (size_t i = 0; i < had; i++)                                             \
				*dod_##x##_at(&s, i, eb) = (char)(i * 7);                                \
			assert_int_equal(dod_##x##_reserve_aligned(&s, 100000, align), DOD_OK);      \
			assert_true(aligned_runs_##x(&s, eb, align) >= 100000);                      \
			for (size_t i = 0; i < had; i++)                                             \
				assert_int_equal(*dod_##x##_at(&s, i, eb), (char)(i * 7));               \
			dod_##x##_free_aligned(&s);                                                  \
			free(pad);                                                                   \
		}                                                                                \
	}
STRATEGY(ALIGNED_TEST)

static void test_aligned(void **state)
{
	(void)state;
#define CALL_ALIGNED(x)                                                                  \
	aligned_##x(4, DOD_LINE_BYTES), aligned_##x(40, DOD_LINE_BYTES),                     \
	        aligned_##x(4, 4096);
	STRATEGY(CALL_ALIGNED)
}

static void test_full(void **state)
{
	(void)state;
	struct dod_static_store st;
	assert_int_equal(dod_static_init(&st, 8, 10), DOD_OK);
	assert_int_equal(dod_static_reserve(&st, 10), DOD_OK);
	assert_int_equal(dod_static_reserve(&st, 11), DOD_EFULL);
	assert_int_equal(dod_static_capacity(&st), 10);
	dod_static_free(&st);

	size_t saved = dod_vm_reserve_bytes;
	dod_vm_reserve_bytes = 1 << 20; /* a small reservation, to exhaust it */
	struct dod_vm_store vm;
	assert_int_equal(dod_vm_init(&vm, 8, 16), DOD_OK);
	assert_int_equal(dod_vm_reserve(&vm, (1 << 20) / 8), DOD_OK);
	*(uint64_t *)dod_vm_at(&vm, (1 << 20) / 8 - 1, 8) = 3; /* the last byte is writable */
	size_t committed = dod_vm_committed_bytes(&vm);
	assert_int_equal(dod_vm_reserve(&vm, (1 << 20) / 8 + 1), DOD_EFULL);
	assert_int_equal(dod_vm_committed_bytes(&vm), committed);
	dod_vm_free(&vm);
	/* A reservation the address space refuses (2^62 bytes: more than any x86-64 or
	 * arm64 user space) is halved until it fits, as under valgrind, which refuses the
	 * default 64 GiB. */
	dod_vm_reserve_bytes = (size_t)1 << 62;
	assert_int_equal(dod_vm_init(&vm, 8, 16), DOD_OK);
	assert_true(dod_vm_reserved_bytes(&vm) < ((size_t)1 << 62));
	assert_true(dod_vm_reserved_bytes(&vm) >= 16 * 8);
	*(uint64_t *)dod_vm_at(&vm, 15, 8) = 3;
	dod_vm_free(&vm);
	dod_vm_reserve_bytes = saved;
	assert_int_equal(dod_vm_init(&vm, 8, SIZE_MAX / 4), DOD_ENOMEM);

	/* Sizes that cannot fit: refused, store unchanged. */
	struct dod_realloc_store re;
	assert_int_equal(dod_realloc_init(&re, 8, 4), DOD_OK);
	assert_int_equal(dod_realloc_reserve(&re, SIZE_MAX / 4), DOD_ENOMEM);
	assert_int_equal(dod_realloc_capacity(&re), 16);
	dod_realloc_free(&re);
	struct dod_fixblocks_store fb;
	assert_int_equal(dod_fixblocks_init(&fb, 8, 1), DOD_OK);
	assert_int_equal(dod_fixblocks_reserve(&fb, SIZE_MAX / 8), DOD_ENOMEM);
	assert_int_equal(dod_fixblocks_capacity(&fb), DOD_FIXBLOCK_ELEMS);
	dod_fixblocks_free(&fb);
	struct dod_geoblocks_store gb;
	assert_int_equal(dod_geoblocks_init(&gb, 256, 1), DOD_OK);
	assert_int_equal(dod_geoblocks_reserve(&gb, SIZE_MAX / 256), DOD_ENOMEM);
	assert_int_equal(dod_geoblocks_capacity(&gb), DOD_GEOBLOCK_FIRST);
	dod_geoblocks_free(&gb);
	assert_int_equal(dod_static_init(&st, 8, SIZE_MAX / 4), DOD_ENOMEM);
}

/* dod_growth as a store of 8-byte elements grows from 16 to `to` elements: the counts
 * the growth added. */
#define GROWTH_OF(x)                                                                     \
	static struct dod_growth_counts growth_of_##x(size_t to)                             \
	{                                                                                    \
		struct dod_##x##_store s;                                                        \
		size_t first = strcmp(#x, "static") == 0 ? to : 16;                              \
		assert_int_equal(dod_##x##_init(&s, 8, first), DOD_OK);                          \
		struct dod_growth_counts before = dod_growth;                                    \
		for (size_t want = first; want <= to; want++) /* one more at a time: pushes */  \
			assert_int_equal(dod_##x##_reserve(&s, want), DOD_OK);                       \
		struct dod_growth_counts d = {dod_growth.grows - before.grows,                   \
		                              dod_growth.moves - before.moves,                   \
		                              dod_growth.copied_bytes - before.copied_bytes};    \
		dod_##x##_free(&s);                                                              \
		return d;                                                                        \
	}
STRATEGY(GROWTH_OF)

#if defined(__SANITIZE_ADDRESS__)
#define ASAN_ALLOCATOR 1 /* its realloc is not glibc's: a move counts as a copy */
#endif

static void test_growth_counts(void **state)
{
	(void)state;
	/* The copying strategies: every growth a move and a copy of what the store held, for
	 * x2 the sum of the capacities before each doubling (16 + 32 + ... = final - 16). */
	struct dod_growth_counts d = growth_of_realloc_copy(100000);
	assert_true(d.grows > 0 && d.moves == d.grows);
	assert_int_equal(d.copied_bytes, (131072 - 16) * 8);
	d = growth_of_constgrow_copy(20000);
	/* init holds 128; every growth copies the old capacity, 128 k for k = 1 .. grows */
	uint64_t g = (20000 - 1) / DOD_CONSTGROW_ELEMS;
	assert_int_equal(d.grows, g);
	assert_int_equal(d.moves, g);
	assert_int_equal(d.copied_bytes, DOD_CONSTGROW_ELEMS * g * (g + 1) / 2 * 8);
	d = growth_of_constgrow(20000);
	assert_true(d.grows == g && d.moves <= d.grows);
	/* Stores that add blocks or commit pages never reallocate (fixblocks' block table
	 * grows past 16 blocks only, beyond this size). */
	size_t n = DOD_FIXBLOCK_ELEMS * 8;
	assert_int_equal(growth_of_static(n).grows, 0);
	assert_int_equal(growth_of_fixblocks(n).grows, 0);
	assert_int_equal(growth_of_geoblocks(n).grows, 0);
	assert_int_equal(growth_of_vm(n).grows, 0);
	/* realloc: counted, a copy at most of each growth's old size. */
	d = growth_of_realloc(100000);
	assert_true(d.grows > 0 && d.moves <= d.grows && d.copied_bytes <= (131072 - 16) * 8);
	/* A block glibc maps on its own grows by mremap: moved or not, no byte copied. A
	 * request goes to mmap when it is above the mmap threshold (set here rather than
	 * assumed) and the heap's free top cannot hold it (free trims the top to below 64 MiB
	 * at most, glibc's largest trim threshold): 128 MiB, untouched but for two bytes. */
	int threshold_set = mallopt(M_MMAP_THRESHOLD, 1 << 20); /* 0 under ASan: no glibc */
	size_t big = (size_t)128 << 20;
	char *p = NULL;
	assert_int_equal(dod_buffer_grow(&p, 0, big, 0), DOD_OK);
	p[0] = p[big - 1] = 1;
	struct dod_growth_counts before = dod_growth;
	assert_int_equal(dod_buffer_grow(&p, big, 2 * big, 0), DOD_OK);
	assert_int_equal(dod_growth.grows - before.grows, 1);
	assert_true(p[0] == 1 && p[big - 1] == 1);
#if defined(__GLIBC__) && !defined(ASAN_ALLOCATOR)
	assert_int_equal(threshold_set, 1);
	assert_int_equal(dod_growth.copied_bytes - before.copied_bytes, 0);
#else
	(void)threshold_set;
#endif
	free(p);
	/* Growth by copying copies it all, and moves. */
	p = NULL;
	assert_int_equal(dod_buffer_grow(&p, 0, 4 << 20, 1), DOD_OK);
	p[(4 << 20) - 1] = 1;
	before = dod_growth;
	assert_int_equal(dod_buffer_grow(&p, 4 << 20, 8 << 20, 1), DOD_OK);
	assert_int_equal(dod_growth.moves - before.moves, 1);
	assert_int_equal(dod_growth.copied_bytes - before.copied_bytes, 4 << 20);
	assert_int_equal(p[(4 << 20) - 1], 1);
	free(p);
}

/* The ops of registered container i at its smallest built size class (size classes run
 * from the smallest, and a 4-byte class exists for the lists only), or NULL. */
static const struct dod_ops *smallest_ops(size_t i)
{
	for (size_t s = 0; s < HB_N_SIZES; s++)
		if (hb_containers[i].ops[s])
			return hb_containers[i].ops[s];
	return NULL;
}

static void test_weak_pointers(void **state)
{
	(void)state;
	size_t checked = 0;
	for (size_t i = 0; i < hb_n_containers; i++) {
		const struct dod_ops *ops = smallest_ops(i);
		if (!ops || strcmp(ops->family, "bulk") != 0)
			continue;
		void *c;
		uint64_t h[4];
		assert_int_equal(ops->create(&c, 4), DOD_OK);
		assert_int_equal(ops->insert_n(c, 4, 10, h), DOD_OK);
		assert_int_equal(ops->erase_n(c, &h[1], 1), DOD_OK);
		uint64_t sum;
		assert_int_equal(ops->lookup_sum(c, &h[1], 1, &sum), DOD_ESTALE);
		uint64_t forged = h[0] + ((uint64_t)1 << 32); /* even generation: never live */
		assert_int_equal(ops->lookup_sum(c, &forged, 1, &sum), DOD_EFREE);
		uint64_t id0 = h[0] & ~(uint64_t)UINT32_MAX, past = h[0] | 1000;
		assert_int_equal(ops->lookup_sum(c, &id0, 1, &sum), DOD_ERANGE);
		assert_int_equal(ops->lookup_sum(c, &past, 1, &sum), DOD_ERANGE);
		uint64_t repeat[2] = {h[0], h[0]};
		assert_int_equal(ops->erase_n(c, repeat, 2), DOD_EFREE);
		/* Reuse: the freed slot gets a new generation, the stale pointer stays stale. */
		uint64_t again;
		assert_int_equal(ops->insert_n(c, 1, 99, &again), DOD_OK);
		assert_int_equal(ops->lookup_sum(c, &h[1], 1, &sum), DOD_ESTALE);
		assert_int_equal(ops->lookup_sum(c, &again, 1, &sum), DOD_OK);
		assert_int_equal(sum, 99);
		/* After clear every old pointer is stale, including after the slots are reused. */
		assert_int_equal(ops->clear(c), DOD_OK);
		uint64_t fresh[4];
		assert_int_equal(ops->insert_n(c, 4, 0, fresh), DOD_OK);
		assert_int_equal(ops->count_valid(c, h, 4), 0);
		assert_int_equal(ops->count_valid(c, fresh, 4), 4);
		ops->destroy(c);
		checked++;
	}
	assert_true(checked >= 20);
}

/* A bare slot table for free_list.h: link and generation per slot, slot 0 the header. */
struct fl_table {
	uint32_t link[8], gen[8];
};
static uint32_t fl_link(const void *c, uint32_t i) { return ((const struct fl_table *)c)->link[i]; }
static void fl_set_link(void *c, uint32_t i, uint32_t next)
{
	((struct fl_table *)c)->link[i] = next;
}
static uint32_t *fl_gen(void *c, uint32_t i) { return &((struct fl_table *)c)->gen[i]; }

/* A4: header in slot 0, the list circles back to it (0), 0 means grow. */
static void test_free_list_slot0(void **state)
{
	(void)state;
	struct fl_table t = {{0}, {0}};
	size_t n_slots = 1, high = 1; /* slot 0 is the header: never an item */
	/* Empty: the header links to itself (0), so a pop says "grow" and a slot is appended. */
	assert_int_equal(bulk_free_pop(&t, fl_link, fl_set_link), 0);
	for (uint32_t want = 1; want <= 5; want++)
		assert_int_equal(bulk_slot_take(&t, &n_slots, &high, fl_link, fl_set_link, fl_gen),
		                 want);
	/* Holes 4 then 2: header -> 2 -> 4 -> 0, the last hole links back to the header. */
	bulk_free_push(&t, 4, fl_link, fl_set_link);
	bulk_free_push(&t, 2, fl_link, fl_set_link);
	assert_int_equal(t.link[0], 2);
	assert_int_equal(t.link[2], 4);
	assert_int_equal(t.link[4], 0);
	/* Taken LIFO from the header, then 0 again: the next take appends slot 6. */
	assert_int_equal(bulk_slot_take(&t, &n_slots, &high, fl_link, fl_set_link, fl_gen), 2);
	assert_int_equal(t.link[0], 4);
	assert_int_equal(bulk_slot_take(&t, &n_slots, &high, fl_link, fl_set_link, fl_gen), 4);
	assert_int_equal(t.link[0], 0);
	assert_int_equal(bulk_slot_take(&t, &n_slots, &high, fl_link, fl_set_link, fl_gen), 6);
	assert_int_equal(n_slots, 7);

	/* Every hole variant through its ops: erased slots 4 then 2 come back 2, 4, then the
	 * next insert appends slot 6 (a handle's low 32 bits are its slot, bulk/weak.h). */
	size_t checked = 0;
	for (size_t i = 0; i < hb_n_containers; i++) {
		const struct dod_ops *ops = smallest_ops(i);
		if (!ops || strcmp(ops->family, "bulk") != 0 ||
		    strncmp(hb_containers[i].name, "bulk_holes", 10) != 0 ||
		    strncmp(hb_containers[i].name, "bulk_holes_runs", 15) == 0)
			continue;
		void *c;
		uint64_t h[5], again[3];
		assert_int_equal(ops->create(&c, 8), DOD_OK);
		assert_int_equal(ops->insert_n(c, 5, 10, h), DOD_OK);
		assert_int_equal((uint32_t)h[0], 1); /* slot 0 is the header */
		assert_int_equal(ops->erase_n(c, &h[3], 1), DOD_OK); /* slot 4 */
		assert_int_equal(ops->erase_n(c, &h[1], 1), DOD_OK); /* slot 2 */
		assert_int_equal(ops->insert_n(c, 3, 20, again), DOD_OK);
		assert_int_equal((uint32_t)again[0], 2);
		assert_int_equal((uint32_t)again[1], 4);
		assert_int_equal((uint32_t)again[2], 6);
		ops->destroy(c);
		checked++;
	}
	assert_true(checked >= 8);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_stability),
		cmocka_unit_test(test_runs),
		cmocka_unit_test(test_full),
		cmocka_unit_test(test_aligned),
		cmocka_unit_test(test_growth_counts),
		cmocka_unit_test(test_weak_pointers),
		cmocka_unit_test(test_free_list_slot0),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
