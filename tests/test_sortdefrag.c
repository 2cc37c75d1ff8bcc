/* test_sortdefrag.c - cmocka tests for handle_map_sortdefrag (containers/
 * handle_map_sortdefrag.c): handle_map whose defragment sorts by a radix-sorted plan and
 * swaps along its cycles, whole or at most max_swaps swaps a call. Through the registry
 * and the contract, at every size class it is built at; the invariant check (ops->check:
 * dense, meta and sparse agree, and the sorted prefix the fragmented flag promises) runs
 * after every call. Allocation failure of the plan: tests/test_alloc_fail.c (it owns the
 * failing allocator).
 *
 * Tests:
 *   full_sort            shuffle, one call: keys ascending, every handle reaches its
 *                        item, swaps = n minus the permutation's cycles; then nothing to
 *                        do; a sorted input (as inserted) moves nothing
 *   incremental_budgets  budgets 1, 7, 4096: each call <= budget, the total the same as
 *                        the whole sort (<= n), sorted at the end
 *   plan_dropped         an insert, an erase, a shuffle or a clear between incremental
 *                        calls: still sorted at the end, every handle valid
 *   check_sees_the_plan  the invariant check names a corrupt plan (a target out of
 *                        range, a plan for another n, an index past plan_next not in
 *                        place) and passes again once it is undone
 */
/* The variant's layout at 8-byte items, for the corruption test (its functions are static
 * in it; before every include: dod_common.h reads ELEM_BYTES). */
#define ELEM_BYTES 8
#define HMAP_SORT_DEFRAG 1
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "hb.h"
#include "scenario.h"
#include "defrag_common.h"
#include "handle_map.h"

#define N 3000

static const size_t sizes[] = {8, 16, 64, 256};

static void check_ok(const struct dod_ops *ops, void *c)
{
	char why[256];
	if (ops->check(c, why, sizeof why) != DOD_OK)
		fail_msg("%s/%zu: %s", ops->name, ops->elem_bytes, why);
}

/* keys[0, n) nondecreasing, and each of the n handles reaches an item of key keys_of[k]
 * (keys_of NULL: k). */
static void check_sorted_and_handles(const struct dod_ops *ops, void *c, const uint64_t *hs,
                                     const uint64_t *keys_of, size_t n)
{
	uint64_t *keys = malloc(n * sizeof *keys);
	assert_non_null(keys);
	assert_int_equal(ops->size(c), n);
	ops->dump_keys(c, keys);
	for (size_t d = 1; d < n; d++)
		if (keys[d - 1] > keys[d])
			fail_msg("%s/%zu: keys[%zu] = %llu > keys[%zu] = %llu", ops->name,
			         ops->elem_bytes, d - 1, (unsigned long long)keys[d - 1], d,
			         (unsigned long long)keys[d]);
	for (size_t k = 0; k < n; k++) {
		uint64_t key;
		assert_int_equal(ops->lookup_sum(c, &hs[k], 1, &key), DOD_OK);
		assert_int_equal(key, keys_of ? keys_of[k] : k);
	}
	check_ok(ops, c);
	free(keys);
}

/* A container of keys 0..N-1 (handles in hs), shuffled with seed; *expect gets the swaps
 * of the whole sort from that order. */
static void *shuffled(const struct dod_ops *ops, uint64_t *hs, uint64_t seed,
                      struct scn_moves *expect)
{
	void *c;
	uint64_t *keys = malloc(N * sizeof *keys);
	assert_non_null(keys);
	assert_int_equal(ops->create(&c, 0), DOD_OK);
	assert_int_equal(ops->insert_n(c, N, 0, hs), DOD_OK);
	assert_int_equal(ops->shuffle(c, seed), DOD_OK);
	check_ok(ops, c);
	ops->dump_keys(c, keys);
	assert_int_equal(scn_expected_moves(keys, N, expect), DOD_OK);
	free(keys);
	return c;
}

static void test_full_sort(void **state)
{
	(void)state;
	static uint64_t hs[N];
	for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
		const struct dod_ops *ops = hb_find_ops("handle_map_sortdefrag", sizes[s]);
		assert_non_null(ops);
		struct scn_moves expect;
		void *c = shuffled(ops, hs, 11 + s, &expect);
		size_t swaps = SIZE_MAX;
		assert_int_equal(ops->defragment(c, 0, &swaps), DOD_OK);
		assert_int_equal(swaps, expect.cycles);
		assert_true(swaps <= N && swaps > N / 2);
		check_sorted_and_handles(ops, c, hs, NULL, N);
		/* Nothing changed since: nothing to do. */
		assert_int_equal(ops->defragment(c, 0, &swaps), DOD_OK);
		assert_int_equal(swaps, 0);
		/* Appending larger keys keeps the order (fragmented, yet sorted): no moves. */
		uint64_t more[2];
		assert_int_equal(ops->insert_n(c, 2, N, more), DOD_OK);
		assert_int_equal(ops->defragment(c, 5, &swaps), DOD_OK);
		assert_int_equal(swaps, 0);
		check_ok(ops, c);
		ops->destroy(c);
	}
}

static void test_incremental_budgets(void **state)
{
	(void)state;
	static uint64_t hs[N];
	const size_t budgets[] = {1, 7, 4096};
	for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++)
		for (size_t b = 0; b < sizeof budgets / sizeof budgets[0]; b++) {
			const struct dod_ops *ops = hb_find_ops("handle_map_sortdefrag", sizes[s]);
			struct scn_moves expect;
			void *c = shuffled(ops, hs, 5, &expect);
			size_t swaps, total = 0, calls = 0;
			do {
				assert_int_equal(ops->defragment(c, budgets[b], &swaps), DOD_OK);
				assert_true(swaps <= budgets[b]);
				total += swaps;
				calls++;
				if (calls % 97 == 0 || swaps < budgets[b])
					check_ok(ops, c); /* whole between calls */
				assert_true(calls <= N + 1);
			} while (swaps == budgets[b]);
			assert_int_equal(total, expect.cycles);
			assert_true(total <= N);
			check_sorted_and_handles(ops, c, hs, NULL, N);
			ops->destroy(c);
		}
}

/* Runs budget-7 calls until half the whole sort's swaps are done. */
static void half_sort(const struct dod_ops *ops, void *c, size_t n)
{
	size_t swaps, total = 0;
	while (total < n / 2) {
		assert_int_equal(ops->defragment(c, 7, &swaps), DOD_OK);
		assert_int_equal(swaps, 7); /* far from done */
		total += swaps;
	}
	check_ok(ops, c);
}

/* Budget-7 calls until one makes fewer: then sorted, handles valid. */
static void finish(const struct dod_ops *ops, void *c, const uint64_t *hs,
                   const uint64_t *keys_of, size_t n)
{
	size_t swaps;
	do {
		assert_int_equal(ops->defragment(c, 7, &swaps), DOD_OK);
		assert_true(swaps <= 7);
	} while (swaps == 7);
	check_sorted_and_handles(ops, c, hs, keys_of, n);
}

static void test_plan_dropped(void **state)
{
	(void)state;
	static uint64_t hs[N + 3], keys_of[N + 3];
	for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
		const struct dod_ops *ops = hb_find_ops("handle_map_sortdefrag", sizes[s]);
		struct scn_moves expect;
		/* Insert: three duplicates of small keys appended mid-plan must end sorted too. */
		void *c = shuffled(ops, hs, 3, &expect);
		half_sort(ops, c, N);
		assert_int_equal(ops->insert_n(c, 3, 10, hs + N), DOD_OK);
		for (size_t k = 0; k < N + 3; k++)
			keys_of[k] = k < N ? k : 10 + (k - N);
		finish(ops, c, hs, keys_of, N + 3);
		ops->destroy(c);
		/* Erase (swap-and-pop moves the last item into the hole, and n shrinks). */
		c = shuffled(ops, hs, 4, &expect);
		half_sort(ops, c, N);
		assert_int_equal(ops->erase_n(c, &hs[N / 3], 1), DOD_OK);
		memmove(&hs[N / 3], &hs[N / 3 + 1], (N - N / 3 - 1) * sizeof *hs);
		for (size_t k = 0; k < N - 1; k++)
			keys_of[k] = k < N / 3 ? k : k + 1;
		finish(ops, c, hs, keys_of, N - 1);
		ops->destroy(c);
		/* Shuffle mid-plan: a new order, a new plan. */
		c = shuffled(ops, hs, 6, &expect);
		half_sort(ops, c, N);
		assert_int_equal(ops->shuffle(c, 77), DOD_OK);
		finish(ops, c, hs, NULL, N);
		/* Clear mid-plan, then new items: the new set gets its own plan. */
		assert_int_equal(ops->shuffle(c, 78), DOD_OK);
		half_sort(ops, c, N);
		assert_int_equal(ops->clear(c), DOD_OK);
		assert_int_equal(ops->insert_n(c, N, 0, hs), DOD_OK);
		assert_int_equal(ops->shuffle(c, 79), DOD_OK);
		finish(ops, c, hs, NULL, N);
		ops->destroy(c);
	}
}

/* Corrupts one field, expects the check to fail naming the plan, undoes it. */
#define EXPECT_CAUGHT(ops, c, field, bad)                                                \
	do {                                                                             \
		char why_[256];                                                          \
		__typeof__(field) saved_ = (field);                                      \
		(field) = (bad);                                                         \
		assert_int_not_equal((ops)->check((c), why_, sizeof why_), DOD_OK);      \
		assert_non_null(strstr(why_, "plan"));                                   \
		(field) = saved_;                                                        \
		check_ok((ops), (c));                                                    \
	} while (0)

static void test_check_sees_the_plan(void **state)
{
	(void)state;
	static uint64_t hs[N];
	const struct dod_ops *ops = hb_find_ops("handle_map_sortdefrag", 8);
	struct scn_moves expect;
	size_t swaps;
	void *c = shuffled(ops, hs, 21, &expect);
	assert_int_equal(ops->defragment(c, 7, &swaps), DOD_OK);
	assert_int_equal(swaps, 7);
	struct hmap_8 *m = c;
	assert_int_equal(m->plan_n, N); /* a plan under way */
	check_ok(ops, c);
	EXPECT_CAUGHT(ops, c, m->plan[N - 1], (uint32_t)N);
	EXPECT_CAUGHT(ops, c, m->plan_n, (size_t)N - 1);
	EXPECT_CAUGHT(ops, c, m->plan_next, (size_t)N);
	finish(ops, c, hs, NULL, N);
	assert_int_equal(m->plan_n, 0); /* done: dropped */
	ops->destroy(c);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_full_sort),
		cmocka_unit_test(test_incremental_budgets),
		cmocka_unit_test(test_plan_dropped),
		cmocka_unit_test(test_check_sees_the_plan),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
