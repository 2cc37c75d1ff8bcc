/* test_caches.c - the knee finder of the cache measurement (harness/caches.c,
 * hb_find_knees) on made-up latency curves: no timing, so the detection rules are tested
 * on any machine. The measuring itself is exercised by tests/python/test_stream_read.py. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "hb.h"

/* The working sets hb_chase_measure tries: 4, 6, 8, 12 ... KiB. */
static size_t sets(uint64_t *bytes, size_t n)
{
	for (size_t i = 0; i < n; i++)
		bytes[i] = (4096ull << (i / 2)) + (i % 2 ? 2048ull << (i / 2) : 0);
	return n;
}

/* A curve of n points: level k's latency lat[k] up to and including set edge[k]. */
static void steps(const uint64_t *bytes, double *ns, size_t n, const uint64_t *edge,
                  const double *lat, size_t levels)
{
	for (size_t i = 0; i < n; i++) {
		size_t k = 0;
		while (k + 1 < levels && bytes[i] > edge[k])
			k++;
		ns[i] = lat[k];
	}
}

static void test_flat_and_drifting_curves_have_no_knee(void **state)
{
	(void)state;
	uint64_t bytes[20];
	double ns[20];
	size_t idx[3], n = sets(bytes, 20);
	for (size_t i = 0; i < n; i++)
		ns[i] = 1.0;
	assert_int_equal(hb_find_knees(bytes, ns, n, 1.4, idx, 3), 0);
	/* 1.15x per doubling: a slow drift (TLB, a few conflict misses), never a knee. */
	for (size_t i = 0; i < n; i++)
		ns[i] = i < 2 ? 1.0 : ns[i - 2] * 1.15;
	assert_int_equal(hb_find_knees(bytes, ns, n, 1.4, idx, 3), 0);
}

static void test_three_steps_give_three_sizes(void **state)
{
	(void)state;
	uint64_t bytes[36];
	double ns[36];
	size_t idx[3], n = sets(bytes, 36);
	const uint64_t edge[] = {48 << 10, 1 << 20, 32 << 20};
	const double lat[] = {1, 4, 15, 90};
	steps(bytes, ns, n, edge, lat, 4);
	assert_int_equal(hb_find_knees(bytes, ns, n, 1.4, idx, 3), 3);
	assert_int_equal(bytes[idx[0] - 1], 48 << 10); /* the 48 KiB half step is a size */
	assert_int_equal(bytes[idx[1] - 1], 1 << 20);
	assert_int_equal(bytes[idx[2] - 1], 32 << 20);
	/* At most max_knees. */
	assert_int_equal(hb_find_knees(bytes, ns, n, 1.4, idx, 2), 2);
	assert_int_equal(bytes[idx[1] - 1], 1 << 20);
}

/* A transition spread over several sets, each step under the factor but the doubling
 * over it: one knee, where the doubling first rises by the factor, not one per set. */
static void test_gradual_transition_is_one_knee(void **state)
{
	(void)state;
	const uint64_t bytes[] = {256 << 10, 384 << 10, 512 << 10, 768 << 10, 1 << 20,
	                          3 << 19, 2 << 20, 3 << 20, 4 << 20, 6 << 20, 8 << 20};
	/* No set is 1.4x the one before it; 1.5 MiB is 1.66x 768 KiB. */
	const double ns[] = {4.0, 4.2, 4.5, 5.0, 6.2, 8.3, 11.0, 13.0, 13.5, 13.6, 13.8};
	size_t idx[3];
	assert_int_equal(hb_find_knees(bytes, ns, 11, 1.4, idx, 3), 1);
	assert_int_equal(bytes[idx[0] - 1], 1 << 20);
}

/* One slow set (another process's burst) between two fast ones is noise; a rise at the
 * last set measured has no next set to confirm it and counts. */
static void test_a_lone_spike_is_no_knee(void **state)
{
	(void)state;
	uint64_t bytes[12];
	double ns[12];
	size_t idx[3], n = sets(bytes, 12);
	for (size_t i = 0; i < n; i++)
		ns[i] = 2.0;
	ns[6] = 9.0;
	assert_int_equal(hb_find_knees(bytes, ns, n, 1.4, idx, 3), 0);
	ns[6] = 2.0;
	ns[11] = 9.0;
	assert_int_equal(hb_find_knees(bytes, ns, n, 1.4, idx, 3), 1);
	assert_int_equal(idx[0], 11);
	/* Fewer than two sets, or none half as large as another: nothing to compare. */
	assert_int_equal(hb_find_knees(bytes, ns, 1, 1.4, idx, 3), 0);
	assert_int_equal(hb_find_knees(bytes + 1, ns + 1, 1, 1.4, idx, 3), 0);
}

/* A curve hb_chase_measure measured on a KVM guest (sysfs: 32K L1d, 1M L2, 32M L3; the
 * chase finds 32K, 512K and 4M: past 4 MiB the loads go to DRAM). */
static void test_a_measured_curve(void **state)
{
	(void)state;
	uint64_t bytes[23];
	size_t idx[3], n = sets(bytes, 23);
	const double ns[] = {1.08, 1.09, 1.08, 1.08, 1.08, 1.08, 1.26, 3.81, 3.80, 3.82, 3.81,
	                     3.86, 3.88, 4.46, 5.04, 7.35, 8.77, 11.81, 13.80, 16.30, 17.27,
	                     24.63, 90.80};
	assert_int_equal(hb_find_knees(bytes, ns, n, 1.4, idx, 3), 3);
	assert_int_equal(bytes[idx[0] - 1], 32 << 10);
	assert_int_equal(bytes[idx[1] - 1], 512 << 10);
	assert_int_equal(bytes[idx[2] - 1], 4 << 20);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_flat_and_drifting_curves_have_no_knee),
		cmocka_unit_test(test_three_steps_give_three_sizes),
		cmocka_unit_test(test_gradual_transition_is_one_knee),
		cmocka_unit_test(test_a_lone_spike_is_no_knee),
		cmocka_unit_test(test_a_measured_curve),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
