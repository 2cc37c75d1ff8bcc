/* test_passes.c - repeatable work (scenarios/scenario.c, scn_run_passes and
 * scn_check_passes; issue 26) and the clock's floor it is sized by (harness/measure.c).
 * No assertion depends on how fast this machine is: K is checked against its bounds and
 * the counts of passes, never against a time. */
#define _GNU_SOURCE
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <time.h>

#include <cmocka.h>

#include "hb.h"
#include "scenario.h"

/* A pass that counts its calls and returns `value`, or `bad` on call number `bad_at`
 * (1-based; 0: never). */
struct counter {
	uint64_t calls, value, bad, bad_at;
};

static uint64_t count_pass(void *p)
{
	struct counter *c = p;
	c->calls++;
	return c->bad_at && c->calls == c->bad_at ? c->bad : c->value;
}

static void test_a_given_k_is_kept(void **state)
{
	(void)state;
	struct counter c = {.value = 5};
	struct scn_params p = {.n = 1, .passes = 7};
	struct scn_passes ps = {.pass = count_pass, .ctx = &c};
	struct hb_region r = {0};
	scn_run_passes(&p, &r, &ps);
	assert_int_equal(ps.k, 7);
	assert_int_equal(r.passes, 7);
	assert_string_equal(r.cache, "warm");
	assert_int_equal(ps.warm, SCN_WARM_PASSES); /* no calibration when K is given */
	assert_int_equal(c.calls, SCN_WARM_PASSES + 7);
	assert_int_equal(ps.sum, 7 * 5);
	assert_int_equal(ps.warm_sum, SCN_WARM_PASSES * 5);
	struct scn_result res = {0};
	scn_check_passes(&res, &ps, 5);
	assert_true(res.verified);
	assert_int_equal(res.checksum, 35);
}

static void test_a_chosen_k_stays_within_its_bounds(void **state)
{
	(void)state;
	/* An empty pass is far below any clock's floor: K would be huge, max_k caps it, and
	 * the calibration batches never exceed it either. */
	struct counter c = {.value = 1};
	struct scn_params p = {.n = 1};
	struct scn_passes ps = {.pass = count_pass, .ctx = &c, .max_k = 50};
	struct hb_region r = {0};
	scn_run_passes(&p, &r, &ps);
	assert_true(ps.k >= 1 && ps.k <= 50);
	assert_int_equal(r.passes, ps.k);
	assert_true(ps.warm >= SCN_WARM_PASSES);
	assert_int_equal(c.calls, ps.warm + ps.k);
	assert_int_equal(ps.warm_sum, ps.warm);
	/* min_k raises K whatever the clock says. */
	struct counter c2 = {.value = 1};
	struct scn_passes ps2 = {.pass = count_pass, .ctx = &c2, .min_k = 3000, .max_k = 4000};
	scn_run_passes(&p, &r, &ps2);
	assert_true(ps2.k >= 3000 && ps2.k <= 4000);
	assert_int_equal(c2.calls, ps2.warm + ps2.k);
	struct scn_result res = {0};
	scn_check_passes(&res, &ps2, 1);
	assert_true(res.verified);
}

static void test_a_wrong_pass_fails_verification(void **state)
{
	(void)state;
	struct scn_params p = {.n = 1, .passes = 4};
	/* One timed pass wrong (the 4th call: the second timed one). */
	struct counter c = {.value = 9, .bad = 10, .bad_at = SCN_WARM_PASSES + 2};
	struct scn_passes ps = {.pass = count_pass, .ctx = &c};
	struct hb_region r = {0};
	scn_run_passes(&p, &r, &ps);
	struct scn_result res = {0};
	scn_check_passes(&res, &ps, 9);
	assert_false(res.verified);
	assert_non_null(strstr(res.why, "key sum 37, expected 36"));
	/* One untimed pass wrong: the timed sum is right, the warm one is not. */
	struct counter w = {.value = 9, .bad = 1, .bad_at = 1};
	struct scn_passes pw = {.pass = count_pass, .ctx = &w};
	scn_run_passes(&p, &r, &pw);
	struct scn_result rw = {0};
	scn_check_passes(&rw, &pw, 9);
	assert_false(rw.verified);
	assert_non_null(strstr(rw.why, "2 untimed passes: sum 10, expected 18"));
}

/* Cold: no untimed pass, one timed pass, whatever min_k says; the caches flushed before
 * it (hb_evict_caches: whether lines left cannot be seen without a clock, so what is
 * checked is that it runs on this process's memory and changes none of it). */
static void test_cold_is_one_pass_after_the_flush(void **state)
{
	(void)state;
	struct counter c = {.value = 3};
	struct scn_params p = {.n = 1, .cache = SCN_CACHE_COLD, .passes = 9};
	struct scn_passes ps = {.pass = count_pass, .ctx = &c, .min_k = 100};
	struct hb_region r = {0};
	scn_run_passes(&p, &r, &ps);
	assert_int_equal(ps.k, 1);
	assert_int_equal(ps.warm, 0);
	assert_int_equal(c.calls, 1);
	assert_int_equal(r.passes, 1);
	assert_string_equal(r.cache, "cold");
	struct scn_result res = {0};
	scn_check_passes(&res, &ps, 3);
	assert_true(res.verified);
	if (!hb_can_evict()) {
		assert_int_equal(hb_evict_caches(), -1);
		return;
	}
	enum { N = 1 << 16 };
	static uint64_t data[N];
	for (size_t i = 0; i < N; i++)
		data[i] = i * 3;
	assert_int_equal(hb_evict_caches(), 0);
	for (size_t i = 0; i < N; i++)
		assert_int_equal(data[i], i * 3);
}

static void test_clock_floor(void **state)
{
	(void)state;
	double floor_ns = hb_clock_floor_ns();
	struct timespec res;
	assert_int_equal(clock_getres(CLOCK_MONOTONIC, &res), 0);
	assert_true(floor_ns >= 1);
	assert_true(floor_ns >= (double)res.tv_sec * 1e9 + (double)res.tv_nsec);
	assert_true(hb_clock_floor_ns() == floor_ns); /* measured once per process */
	assert_int_equal(hb_min_region_ns(), (uint64_t)(floor_ns * HB_MIN_REGION_FLOORS));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_a_given_k_is_kept),
		cmocka_unit_test(test_a_chosen_k_stays_within_its_bounds),
		cmocka_unit_test(test_a_wrong_pass_fails_verification),
		cmocka_unit_test(test_cold_is_one_pass_after_the_flush),
		cmocka_unit_test(test_clock_floor),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
