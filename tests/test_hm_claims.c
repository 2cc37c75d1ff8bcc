/* test_hm_claims.c - cmocka tests for what measures the handle_map article's claims B6-B15
 * (issue 15): the commenters' two-array container (containers/handle_map_two_array.c),
 * the element-wise variant, and the figures of the scenarios defrag_steps and validate
 * on small n (counts, never timings). Through the registry and the contract only.
 *
 * Tests:
 *   two_array_handles        errors of stale, free, out-of-range and repeated handles;
 *                            erase_n all or nothing; FIFO slot reuse keeps stale handles
 *                            stale; clear detects, reset forgets
 *   two_array_defragment     max_swaps steps add up; the fragmented flag
 *   overhead_per_item        footprint per item: handle_map item + 12 bytes, two_array
 *                            item rounded up to 8 + 8 bytes (B12, B15)
 *   elementwise_same_moves   the element-wise variant sorts the same shuffle with the
 *                            same swaps and order as handle_map (B9: same work)
 *   defrag_steps_figures     swaps and calls for every input and max_swaps (B10, B11, B14)
 *   validate_figures         rejected handles per kind and container (B8, B13, B15)
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "hb.h"
#include "cmocka_helpers.h"
#include "scenario.h"
#include "defrag_common.h"

#define N_SMALL 1000

static void test_two_array_handles(void **state)
{
	(void)state;
	const struct dod_ops *ops = tc_find("handle_map_two_array", 8);
	void *c;
	uint64_t hs[8], again[8], sum;
	assert_int_equal(ops->create(&c, 4), DOD_OK);
	assert_int_equal(ops->insert_n(c, 8, 100, hs), DOD_OK);
	tc_check_ok(ops, c);
	/* All or nothing: a repeat fails the batch as DOD_EFREE and erases nothing. */
	assert_int_equal(ops->erase_n(c, (uint64_t[]){hs[1], hs[2], hs[1]}, 3), DOD_EFREE);
	assert_int_equal(ops->size(c), 8);
	assert_int_equal(ops->erase_n(c, (uint64_t[]){hs[1], hs[2]}, 2), DOD_OK);
	tc_check_ok(ops, c);
	assert_int_equal(ops->lookup_sum(c, &hs[1], 1, &sum), DOD_EFREE);
	assert_int_equal(ops->lookup_sum(c, (uint64_t[]){hs[0] + 1000}, 1, &sum), DOD_ERANGE);
	assert_int_equal(ops->lookup_sum(c, (uint64_t[]){hs[0] | (1ull << 63)}, 1, &sum), DOD_EFREE);
	/* The freed slots are reused first (FIFO), with a new generation: the old handles
	 * stay stale though their slots are live again. */
	assert_int_equal(ops->insert_n(c, 2, 200, again), DOD_OK);
	assert_int_equal((uint32_t)again[0], (uint32_t)hs[1]);
	assert_int_equal(ops->lookup_sum(c, &hs[1], 1, &sum), DOD_ESTALE);
	assert_int_equal(ops->count_valid(c, hs, 8), 6);
	assert_int_equal(ops->lookup_sum(c, again, 2, &sum), DOD_OK);
	assert_int_equal(sum, 200 + 201);
	/* clear: every old handle detected, even once the slots are reused. */
	assert_int_equal(ops->clear(c), DOD_OK);
	assert_int_equal(ops->insert_n(c, 8, 0, again), DOD_OK);
	assert_int_equal(ops->count_valid(c, hs, 8), 0);
	tc_check_ok(ops, c);
	/* reset: generations restart, so old handles alias the new items. */
	assert_int_equal(ops->reset(c), DOD_OK);
	assert_int_equal(ops->insert_n(c, 8, 0, hs), DOD_OK);
	assert_int_equal(ops->count_valid(c, (uint64_t[]){hs[0]}, 1), 1);
	tc_check_ok(ops, c);
	ops->destroy(c);
}

static void test_two_array_defragment(void **state)
{
	(void)state;
	const struct dod_ops *ops = tc_find("handle_map_two_array", 16);
	void *c;
	uint64_t hs[300], keys[300];
	size_t swaps, total = 0, calls = 0;
	assert_int_equal(ops->create(&c, 0), DOD_OK);
	assert_int_equal(ops->insert_n(c, 300, 0, hs), DOD_OK);
	assert_int_equal(ops->shuffle(c, 7), DOD_OK);
	ops->dump_keys(c, keys);
	long long want = scn_count_moves(keys, 300);
	do {
		assert_int_equal(ops->defragment(c, 7, &swaps), DOD_OK);
		tc_check_ok(ops, c);
		total += swaps;
		calls++;
		assert_true(swaps <= 7);
	} while (swaps == 7);
	assert_int_equal(total, want);
	assert_true(calls >= (size_t)(want + 6) / 7);
	ops->dump_keys(c, keys);
	for (size_t i = 0; i < 300; i++) {
		uint64_t key;
		assert_int_equal(keys[i], i);
		assert_int_equal(ops->lookup_sum(c, &hs[i], 1, &key), DOD_OK);
		assert_int_equal(key, i);
	}
	/* Nothing changed: no moves; an erase (swap-and-pop) fragments again. */
	assert_int_equal(ops->defragment(c, 0, &swaps), DOD_OK);
	assert_int_equal(swaps, 0);
	assert_int_equal(ops->erase_n(c, &hs[5], 1), DOD_OK);
	ops->dump_keys(c, keys); /* the last item (key 299) now at 5: 6..298 move past it */
	assert_int_equal(ops->defragment(c, 0, &swaps), DOD_OK);
	assert_int_equal(swaps, scn_count_moves(keys, 299));
	assert_int_equal(swaps, 293);
	tc_check_ok(ops, c);
	ops->destroy(c);
}

/* Footprint per item at n = 2^14 grown from empty (x2 growth from 16 lands on n exactly):
 * the arrays' bytes per item beyond the item itself, plus the struct over n. */
static double overhead_per_item(const struct dod_ops *ops)
{
	void *c;
	size_t n = 1u << 14;
	assert_int_equal(ops->create(&c, 0), DOD_OK);
	for (size_t i = 0; i < n; i += 1024)
		assert_int_equal(ops->insert_n(c, 1024, i, NULL), DOD_OK);
	double per = ((double)ops->footprint_bytes(c) - (double)(n * ops->elem_bytes)) / (double)n;
	ops->destroy(c);
	return per;
}

static void test_overhead_per_item(void **state)
{
	(void)state;
	static const size_t sizes[] = {8, 16, 64, 256};
	for (size_t s = 0; s < 4; s++) {
		/* handle_map: meta 4 + sparse 8 whatever the item (B12). */
		double hm = overhead_per_item(tc_find("handle_map", sizes[s]));
		assert_true(hm >= 12 && hm < 12.1);
		/* two_array: the slot in the record, rounded up to 8 by the item's alignment,
		 * + the index entry 8. */
		double two = overhead_per_item(tc_find("handle_map_two_array", sizes[s]));
		assert_true(two >= 16 && two < 16.1);
	}
}

static void test_elementwise_same_moves(void **state)
{
	(void)state;
	const struct dod_ops *a = tc_find("handle_map", 64), *b = tc_find("handle_map_elementwise", 64);
	void *ca, *cb;
	uint64_t ka[500], kb[500];
	size_t sa, sb;
	assert_int_equal(a->create(&ca, 0), DOD_OK);
	assert_int_equal(b->create(&cb, 0), DOD_OK);
	assert_int_equal(a->insert_n(ca, 500, 0, NULL), DOD_OK);
	assert_int_equal(b->insert_n(cb, 500, 0, NULL), DOD_OK);
	assert_int_equal(a->shuffle(ca, 3), DOD_OK);
	assert_int_equal(b->shuffle(cb, 3), DOD_OK);
	a->dump_keys(ca, ka);
	long long want = scn_count_moves(ka, 500);
	assert_int_equal(a->defragment(ca, 0, &sa), DOD_OK);
	assert_int_equal(b->defragment(cb, 0, &sb), DOD_OK);
	assert_int_equal(sa, want);
	assert_int_equal(sb, want);
	a->dump_keys(ca, ka);
	b->dump_keys(cb, kb);
	assert_memory_equal(ka, kb, sizeof ka);
	tc_check_ok(b, cb);
	a->destroy(ca);
	b->destroy(cb);
}

/* Runs scenario name on ops with p; returns its result (verified) and the calls in *calls. */
static struct scn_result run_scn(const char *name, const struct dod_ops *ops,
                                 const struct scn_params *p, size_t *calls)
{
	struct hb_region r = {0};
	struct scn_result res = {.swaps = -1};
	const struct scn_scenario *s = scn_find(name);
	assert_non_null(s);
	assert_null(scn_cannot_run(s, ops, p));
	assert_int_equal(s->run(ops, p, &r, &res), SCN_RAN);
	if (!res.verified)
		fail_msg("%s/%s: %s", name, ops->name, res.why);
	if (calls)
		*calls = r.samples_n;
	hb_region_release(&r);
	return res;
}

/* Sets p's value of the axis with CSV column name (hb_params_set), asserting it took. */
static void set_axis(struct scn_params *p, const char *name, const char *value)
{
	if (hb_params_set(p, name, value))
		fail_msg("no axis %s, or '%s' is not its value", name, value);
}

static void test_defrag_steps_figures(void **state)
{
	(void)state;
	static const char *const names[] = {"handle_map", "handle_map_elementwise",
	                                    "handle_map_two_array"};
	for (size_t k = 0; k < 3; k++) {
		const struct dod_ops *ops = tc_find(names[k], 8);
		struct scn_params p = {.n = N_SMALL, .seed = 5};
		size_t calls;
		/* near_sorted: 1% of n pairs swapped, each one move; sorted: none. */
		set_axis(&p, "axis_defrag_input", "near_sorted");
		struct scn_result res = run_scn("defrag_steps", ops, &p, &calls);
		assert_int_equal(res.swaps, N_SMALL / 100);
		assert_int_equal(calls, 1);
		set_axis(&p, "axis_max_swaps", "3"); /* 10 moves, 3 a call: 3, 3, 3, 1 */
		res = run_scn("defrag_steps", ops, &p, &calls);
		assert_int_equal(res.swaps, 10);
		assert_int_equal(calls, 4);
		assert_int_equal(res.ops, 4);
		set_axis(&p, "axis_defrag_input", "sorted");
		res = run_scn("defrag_steps", ops, &p, &calls);
		assert_int_equal(res.swaps, 0);
		assert_int_equal(calls, 1);
		set_axis(&p, "axis_defrag_input", "defragmented");
		set_axis(&p, "axis_max_swaps", "0");
		res = run_scn("defrag_steps", ops, &p, &calls);
		assert_int_equal(res.swaps, 0);
		assert_int_equal(calls, 1);
		/* shuffled in steps of 16: every call but the last moves 16. */
		set_axis(&p, "axis_defrag_input", "shuffled");
		set_axis(&p, "axis_max_swaps", "16");
		res = run_scn("defrag_steps", ops, &p, &calls);
		assert_true(res.swaps > N_SMALL / 2);
		assert_int_equal(calls, (size_t)res.swaps / 16 + 1);
	}
}

static void test_validate_figures(void **state)
{
	(void)state;
	/* rejected of N_SMALL: erased, cleared, reset, foreign */
	static const char *const kinds[] = {"erased", "cleared", "reset", "foreign"};
	static const struct { const char *name; size_t rejected[4]; } want[] = {
		{"handle_map", {N_SMALL, N_SMALL, 0, N_SMALL}},
		{"handle_map_elementwise", {N_SMALL, N_SMALL, 0, N_SMALL}},
		{"handle_map_two_array", {N_SMALL, N_SMALL, 0, 0}}, /* no type id */
	};
	for (size_t k = 0; k < sizeof want / sizeof *want; k++)
		for (int h = 0; h < 4; h++) {
			struct scn_params p = {.n = N_SMALL, .seed = 9};
			set_axis(&p, "axis_old_handles", kinds[h]);
			struct scn_result res = run_scn("validate", tc_find(want[k].name, 16), &p, NULL);
			if (res.checksum != want[k].rejected[h] || res.ops != N_SMALL)
				fail_msg("validate/%s/%s: %llu rejected of %llu, want %zu", want[k].name,
				         kinds[h], (unsigned long long)res.checksum,
				         (unsigned long long)res.ops, want[k].rejected[h]);
		}
	/* A design without stale detection: old indices alias the new items after clear. */
	struct scn_params p = {.n = N_SMALL, .seed = 9};
	set_axis(&p, "axis_old_handles", "cleared");
	assert_int_equal(run_scn("validate", tc_find("plain_array", 8), &p, NULL).checksum, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_two_array_handles),
		cmocka_unit_test(test_two_array_defragment),
		cmocka_unit_test(test_overhead_per_item),
		cmocka_unit_test(test_elementwise_same_moves),
		cmocka_unit_test(test_defrag_steps_figures),
		cmocka_unit_test(test_validate_figures),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
