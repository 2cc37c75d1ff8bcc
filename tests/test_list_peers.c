/* test_list_peers.c - the list family's peers (peer_malloc_list, peer_std_list,
 * peer_std_vector) at both size classes, through the core operations with their list
 * meanings and the list extension (containers/list_contract.h):
 *   build              insert_n appends: dump_keys and iterate_sum follow the sequence
 *   insert_at          before / after a reference, batches that name one reference twice
 *   sorted_insert      insert_sorted_n keeps the sequence ascending; refs_out reach the keys
 *   erase_at_positions the erased keys' sum; a position past size - i fails whole
 *   bad_references     out-of-range, erased, repeated references and a bad `where` fail
 *                      with their error and change nothing
 *   stable_references  the lists' references survive other insertions and erasures;
 *                      an erased reference is issued again (no stale detection)
 *   vector_positions   std_vector's references are positions: they shift
 *   vector_scenarios   the core scenarios with holes hand std_vector the survivors'
 *                      positions (scn_fill_holes) and verify; erase, which erases held
 *                      handles one by one, skips it with a reason
 * Allocation failure in these operations: tests/test_alloc_fail.c (every list container).
 * The invariant check (dod_ops.check, where the peer has one) runs after every change. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "contract.h"
#include "hb.h"
#include "scenario.h"

#define N_PEERS 3
#define N_SIZES 2
static const char *const peer_names[N_PEERS] = {"peer_malloc_list", "peer_std_list",
                                                "peer_std_vector"};
static const size_t peer_sizes[N_SIZES] = {8, 16};
#define MAX_KEYS 64

static const struct dod_ops *peer(size_t i, size_t s)
{
	const struct dod_ops *ops = hb_find_ops(peer_names[i], peer_sizes[s]);
	assert_non_null(ops);
	assert_non_null(ops->list);
	assert_int_equal(dod_exts(ops), DOD_EXT_LIST);
	return ops;
}

static int stable(const struct dod_ops *ops) { return (ops->caps & DOD_CAP_STABLE_HANDLES) != 0; }

static void *make(const struct dod_ops *ops, size_t n, uint64_t *refs)
{
	void *c;
	assert_int_equal(ops->create(&c, 4), DOD_OK);
	assert_int_equal(ops->insert_n(c, n, 0, refs), DOD_OK);
	return c;
}

/* The sequence is exactly want[0 .. n) (dump_keys, size, iterate_sum) and the peer's
 * invariant check holds. */
static void expect_keys(const struct dod_ops *ops, const void *c, const uint64_t *want, size_t n)
{
	uint64_t got[MAX_KEYS], sum = 0;
	char why[256];
	if (ops->size(c) != n)
		fail_msg("%s/%zu: size %zu, want %zu", ops->name, ops->elem_bytes, ops->size(c), n);
	ops->dump_keys(c, got);
	for (size_t i = 0; i < n; i++) {
		if (got[i] != want[i])
			fail_msg("%s/%zu: key %zu is %llu, want %llu", ops->name, ops->elem_bytes, i,
			         (unsigned long long)got[i], (unsigned long long)want[i]);
		sum += want[i];
	}
	assert_int_equal(ops->iterate_sum(c), sum);
	if (ops->check && ops->check(c, why, sizeof why) != DOD_OK)
		fail_msg("%s/%zu: check: %s", ops->name, ops->elem_bytes, why);
}

/* The reference of the item at position pos whose stable reference (if the peer has
 * stable ones) is r. */
static uint64_t ref_at(const struct dod_ops *ops, uint64_t r, uint64_t pos)
{
	return stable(ops) ? r : pos;
}

static uint64_t key_of(const struct dod_ops *ops, const void *c, uint64_t ref)
{
	uint64_t sum = 0;
	assert_int_equal(ops->lookup_sum(c, &ref, 1, &sum), DOD_OK);
	return sum;
}

static void test_build(void **state)
{
	(void)state;
	for (size_t i = 0; i < N_PEERS; i++)
		for (size_t s = 0; s < N_SIZES; s++) {
			const struct dod_ops *ops = peer(i, s);
			uint64_t r[8];
			void *c = make(ops, 5, r);
			assert_int_equal(ops->insert_n(c, 3, 5, r + 5), DOD_OK);
			expect_keys(ops, c, (uint64_t[]){0, 1, 2, 3, 4, 5, 6, 7}, 8);
			for (uint64_t k = 0; k < 8; k++)
				assert_int_equal(key_of(ops, c, r[k]), k);
			assert_int_equal(ops->clear(c), DOD_OK);
			expect_keys(ops, c, NULL, 0);
			assert_int_equal(ops->insert_n(c, 2, 40, NULL), DOD_OK);
			expect_keys(ops, c, (uint64_t[]){40, 41}, 2);
			ops->destroy(c);
		}
}

static void test_insert_at(void **state)
{
	(void)state;
	for (size_t i = 0; i < N_PEERS; i++)
		for (size_t s = 0; s < N_SIZES; s++) {
			const struct dod_ops *ops = peer(i, s);
			const struct dod_list_ops *l = ops->list;
			uint64_t r[5], out[2];
			void *c = make(ops, 5, r); /* 0 1 2 3 4 */
			uint64_t at2 = ref_at(ops, r[2], 2);
			assert_int_equal(l->insert_at_n(c, &at2, 1, DOD_LIST_BEFORE, 100, out), DOD_OK);
			expect_keys(ops, c, (uint64_t[]){0, 1, 100, 2, 3, 4}, 6);
			assert_int_equal(key_of(ops, c, out[0]), 100);
			uint64_t at4 = ref_at(ops, r[4], 5);
			assert_int_equal(l->insert_at_n(c, &at4, 1, DOD_LIST_AFTER, 200, out), DOD_OK);
			expect_keys(ops, c, (uint64_t[]){0, 1, 100, 2, 3, 4, 200}, 7);
			assert_int_equal(key_of(ops, c, out[0]), 200);
			/* Two before item 0, then two after item 3: positional references are read
			 * after the insertions before them. */
			uint64_t b[2] = {ref_at(ops, r[0], 0), ref_at(ops, r[0], 1)};
			assert_int_equal(l->insert_at_n(c, b, 2, DOD_LIST_BEFORE, 300, NULL), DOD_OK);
			expect_keys(ops, c, (uint64_t[]){300, 301, 0, 1, 100, 2, 3, 4, 200}, 9);
			uint64_t a[2] = {ref_at(ops, r[3], 6), ref_at(ops, r[3], 6)};
			assert_int_equal(l->insert_at_n(c, a, 2, DOD_LIST_AFTER, 400, out), DOD_OK);
			expect_keys(ops, c, (uint64_t[]){300, 301, 0, 1, 100, 2, 3, 401, 400, 4, 200}, 11);
			assert_int_equal(key_of(ops, c, out[1]), 401);
			/* The vector's out[0] (7) has shifted to 8 with 401; the lists' has not. */
			assert_int_equal(key_of(ops, c, stable(ops) ? out[0] : out[0] + 1), 400);
			ops->destroy(c);
		}
}

static void test_sorted_insert(void **state)
{
	(void)state;
	static const uint64_t keys[] = {5, 1, 9, 3, 3, 7, 0, 9, 4};
	static const uint64_t sorted[] = {0, 1, 3, 3, 4, 5, 7, 9, 9};
	for (size_t i = 0; i < N_PEERS; i++)
		for (size_t s = 0; s < N_SIZES; s++) {
			const struct dod_ops *ops = peer(i, s);
			uint64_t out[9];
			void *c;
			assert_int_equal(ops->create(&c, 0), DOD_OK);
			assert_int_equal(ops->list->insert_sorted_n(c, keys, 9, out), DOD_OK);
			expect_keys(ops, c, sorted, 9);
			if (stable(ops))
				for (size_t k = 0; k < 9; k++)
					assert_int_equal(key_of(ops, c, out[k]), keys[k]);
			else /* the last one's position has not shifted since */
				assert_int_equal(key_of(ops, c, out[8]), 4);
			/* Into a sequence that holds items already: before the first greater key. */
			assert_int_equal(ops->list->insert_sorted_n(c, (uint64_t[]){6, 10}, 2, out), DOD_OK);
			expect_keys(ops, c, (uint64_t[]){0, 1, 3, 3, 4, 5, 6, 7, 9, 9, 10}, 11);
			assert_int_equal(key_of(ops, c, out[1]), 10);
			ops->destroy(c);
		}
}

static void test_erase_at_positions(void **state)
{
	(void)state;
	for (size_t i = 0; i < N_PEERS; i++)
		for (size_t s = 0; s < N_SIZES; s++) {
			const struct dod_ops *ops = peer(i, s);
			const struct dod_list_ops *l = ops->list;
			void *c = make(ops, 10, NULL);
			uint64_t sum = 0;
			/* 0 at 0; then 9 at 8 of 1..9; then 4 at 3 of 1..8. */
			assert_int_equal(l->erase_at_positions_n(c, (uint64_t[]){0, 8, 3}, 3, &sum), DOD_OK);
			assert_int_equal(sum, 0 + 9 + 4);
			expect_keys(ops, c, (uint64_t[]){1, 2, 3, 5, 6, 7, 8}, 7);
			/* The second position must be < 7 - 1: the whole batch fails. */
			sum = 77;
			assert_int_equal(l->erase_at_positions_n(c, (uint64_t[]){6, 6}, 2, &sum), DOD_ERANGE);
			assert_int_equal(l->erase_at_positions_n(c, (uint64_t[]){UINT64_MAX}, 1, NULL),
			                 DOD_ERANGE);
			assert_int_equal(sum, 77);
			expect_keys(ops, c, (uint64_t[]){1, 2, 3, 5, 6, 7, 8}, 7);
			assert_int_equal(l->erase_at_positions_n(c, (uint64_t[]){6, 5, 0, 0, 0, 0, 0}, 7, NULL),
			                 DOD_OK);
			expect_keys(ops, c, NULL, 0);
			assert_int_equal(l->erase_at_positions_n(c, (uint64_t[]){0}, 1, NULL), DOD_ERANGE);
			ops->destroy(c);
		}
}

/* Every failing call on c (sequence 0 1 2 3 4, item 1 erased: 0 2 3 4) leaves it so. */
static void bad_references_fail(const struct dod_ops *ops, void *c, uint64_t dead,
                                const uint64_t *live)
{
	const struct dod_list_ops *l = ops->list;
	static const uint64_t after[] = {0, 2, 3, 4};
	uint64_t sum, far = 1000, max = UINT64_MAX;
	int dead_err = stable(ops) ? DOD_EFREE : DOD_ERANGE;
	assert_int_equal(ops->erase_n(c, &dead, 1), dead_err);
	assert_int_equal(ops->erase_n(c, &far, 1), DOD_ERANGE);
	assert_int_equal(ops->erase_n(c, &max, 1), DOD_ERANGE);
	assert_int_equal(ops->lookup_sum(c, &dead, 1, &sum), dead_err);
	assert_int_equal(ops->lookup_sum(c, &far, 1, &sum), DOD_ERANGE);
	assert_int_equal(ops->count_valid(c, (uint64_t[]){dead, far, live[0], live[1]}, 4), 2);
	/* Batches with good references first (the vector's dead 5 is still past the end
	 * when the second item goes in: 5 >= 4 + 1). */
	assert_int_equal(ops->erase_n(c, (uint64_t[]){live[0], live[1], live[0]}, 3), DOD_EFREE);
	assert_int_equal(ops->erase_n(c, (uint64_t[]){live[0], live[1], far}, 3), DOD_ERANGE);
	assert_int_equal(l->insert_at_n(c, (uint64_t[]){live[0], far}, 2, DOD_LIST_BEFORE, 9, NULL),
	                 DOD_ERANGE);
	assert_int_equal(l->insert_at_n(c, (uint64_t[]){live[0], dead}, 2, DOD_LIST_AFTER, 9, NULL),
	                 dead_err);
	assert_int_equal(l->insert_at_n(c, live, 1, 2, 9, NULL), DOD_EINVAL);
	expect_keys(ops, c, after, 4);
	/* No mark left behind: the references of the failed batches still erase. */
	assert_int_equal(ops->erase_n(c, (uint64_t[]){live[0], live[1]}, 2), DOD_OK);
}

static void test_bad_references(void **state)
{
	(void)state;
	for (size_t i = 0; i < N_PEERS; i++)
		for (size_t s = 0; s < N_SIZES; s++) {
			const struct dod_ops *ops = peer(i, s);
			uint64_t r[5];
			void *c = make(ops, 5, r);
			assert_int_equal(ops->erase_n(c, &r[1], 1), DOD_OK);
			/* For the vector, position 5 is past the end even after one insertion, and
			 * 0, 1 are keys 0 and 2. */
			uint64_t dead = stable(ops) ? r[1] : 5;
			uint64_t live[2] = {ref_at(ops, r[0], 0), ref_at(ops, r[2], 1)};
			bad_references_fail(ops, c, dead, live);
			expect_keys(ops, c, (uint64_t[]){3, 4}, 2);
			ops->destroy(c);
		}
}

/* The lists: references survive other insertions and erasures; an erased reference is
 * issued again by a later insertion (LIFO), with no stale detection. */
static void test_stable_references(void **state)
{
	(void)state;
	for (size_t i = 0; i < N_PEERS; i++)
		for (size_t s = 0; s < N_SIZES; s++) {
			const struct dod_ops *ops = peer(i, s);
			if (!stable(ops))
				continue;
			uint64_t r[20], more[3];
			void *c = make(ops, 20, r);
			assert_int_equal(ops->erase_n(c, (uint64_t[]){r[3], r[11], r[0]}, 3), DOD_OK);
			assert_int_equal(ops->list->insert_at_n(c, (uint64_t[]){r[19], r[1], r[7]}, 3,
			                                        DOD_LIST_BEFORE, 50, more), DOD_OK);
			uint64_t sum = 0;
			assert_int_equal(ops->list->erase_at_positions_n(c, (uint64_t[]){0}, 1, &sum), DOD_OK);
			assert_int_equal(sum, 51); /* inserted before item 1, now the first */
			for (uint64_t k = 1; k < 20; k++)
				if (k != 3 && k != 11)
					assert_int_equal(key_of(ops, c, r[k]), k);
			assert_int_equal(key_of(ops, c, more[0]), 50);
			assert_int_equal(key_of(ops, c, more[2]), 52);
			/* LIFO reuse: the erased references came back (0, 11, 3: the last erased
			 * first), then 51's (11) again, then a new one. */
			assert_int_equal(more[0], r[0]);
			assert_int_equal(more[1], r[11]);
			assert_int_equal(more[2], r[3]);
			uint64_t again[2];
			assert_int_equal(ops->insert_n(c, 2, 60, again), DOD_OK);
			assert_int_equal(again[0], r[11]);
			assert_int_equal(again[1], 20);
			assert_int_equal(key_of(ops, c, r[11]), 60);
			assert_int_equal(ops->size(c), 21);
			char why[256];
			assert_int_equal(ops->check(c, why, sizeof why), DOD_OK);
			ops->destroy(c);
		}
}

/* std_vector: a reference is a position; insertions and erasures shift the tail, and
 * erase_n takes the positions as they are when the call starts. */
static void test_vector_positions(void **state)
{
	(void)state;
	for (size_t s = 0; s < N_SIZES; s++) {
		const struct dod_ops *ops = peer(2, s);
		assert_false(stable(ops));
		uint64_t r[6];
		void *c = make(ops, 6, r);
		for (uint64_t k = 0; k < 6; k++)
			assert_int_equal(r[k], k);
		assert_int_equal(ops->erase_n(c, (uint64_t[]){1}, 1), DOD_OK); /* 0 2 3 4 5 */
		assert_int_equal(key_of(ops, c, 1), 2);
		uint64_t sum;
		assert_int_equal(ops->lookup_sum(c, (uint64_t[]){5}, 1, &sum), DOD_ERANGE);
		assert_int_equal(ops->erase_n(c, (uint64_t[]){3, 0, 1}, 3), DOD_OK);
		expect_keys(ops, c, (uint64_t[]){3, 5}, 2);
		uint64_t out[2];
		assert_int_equal(ops->list->insert_at_n(c, (uint64_t[]){0, 3}, 2, DOD_LIST_BEFORE, 7, out),
		                 DOD_OK); /* 7 3 5, then 8 appended at 3 */
		assert_int_equal(out[0], 0);
		assert_int_equal(out[1], 3);
		expect_keys(ops, c, (uint64_t[]){7, 3, 5, 8}, 4);
		assert_int_equal(ops->list->insert_at_n(c, (uint64_t[]){4}, 1, DOD_LIST_AFTER, 9, NULL),
		                 DOD_ERANGE);
		assert_int_equal(ops->list->insert_at_n(c, (uint64_t[]){3}, 1, DOD_LIST_AFTER, 9, out),
		                 DOD_OK);
		assert_int_equal(out[0], 4);
		expect_keys(ops, c, (uint64_t[]){7, 3, 5, 8, 9}, 5);
		ops->destroy(c);
	}
}

static void test_vector_scenarios(void **state)
{
	(void)state;
	const struct dod_ops *ops = peer(2, 0);
	static const char *const with_holes[] = {"lookup", "iterate", "validate", "memory"};
	for (size_t k = 0; k < 4; k++) {
		const struct scn_scenario *scn = scn_find(with_holes[k]);
		assert_non_null(scn);
		struct scn_params p = {.n = 500, .order = SCN_RANDOM, .seed = 7,
		                       .hole_pattern = SCN_HOLES_RANDOM, .hole_ratio = 0.4};
		assert_null(scn_cannot_run(scn, ops, &p));
		struct hb_region r = {0};
		struct scn_result res = {.swaps = -1};
		assert_int_equal(scn->run(ops, &p, &r, &res), SCN_RAN);
		if (!res.verified)
			fail_msg("%s/%s: %s", scn->name, ops->name, res.why);
	}
	struct scn_params p = {.n = 500, .seed = 7};
	const char *why = scn_cannot_run(scn_find("erase"), ops, &p);
	assert_non_null(why);
	assert_string_equal(why, "handles are not stable across erase");
	assert_null(scn_cannot_run(scn_find("erase"), peer(0, 0), &p));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_build),
		cmocka_unit_test(test_insert_at),
		cmocka_unit_test(test_sorted_insert),
		cmocka_unit_test(test_erase_at_positions),
		cmocka_unit_test(test_bad_references),
		cmocka_unit_test(test_stable_references),
		cmocka_unit_test(test_vector_positions),
		cmocka_unit_test(test_vector_scenarios),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
