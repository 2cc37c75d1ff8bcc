/* test_measure.c - the timed region (harness/measure.c): what it measures without a PMU,
 * that unmeasured figures are marked so (never 0), and the perf time_enabled/running
 * probe behind the pmu_scale column, exercised with a software event (this machine has
 * no PMU; the harness opens the same probe on cycles when PAPI has counters). */
#define _GNU_SOURCE
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <linux/perf_event.h>

#include <cmocka.h>

#include "hb.h"

static void test_region_without_counters(void **state)
{
	(void)state;
	char notice[400], err[400];
	assert_int_equal(hb_counters_init(HB_COUNTERS_NONE, notice, sizeof notice, err, sizeof err), 0);
	assert_string_equal(hb_counter_source(), "none");
	size_t bytes = 8u << 20;
	char *p = malloc(bytes);
	assert_non_null(p);
	struct hb_region r = {0};
	hb_begin(&r);
	memset(p, 1, bytes); /* fresh pages: first-touch faults inside the region */
	__asm__ volatile("" : : "r"(p) : "memory");
	hb_end(&r);
	free(p);
	assert_true(r.elapsed_ns > 0 && r.cpu_ns > 0);
	assert_true(r.minflt > 100); /* 8 MiB = 2048 pages of 4 KiB, some may be huge pages */
	for (int i = 0; i < HB_N_COUNTERS; i++)
		assert_false(r.have[i]);
	assert_false(r.have_pmu_scale); /* no PAPI: no probe */
	assert_false(r.have_sim);
	assert_false(r.have_allocs); /* the allocation counter is not linked into tests */
}

static void test_perf_probe_reports_enabled_and_running(void **state)
{
	(void)state;
	int fd = hb_perf_probe_open(PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK);
	if (fd < 0)
		skip(); /* perf_event_open forbidden here (perf_event_paranoid 3, seccomp) */
	uint64_t enabled = 0, running = 0;
	hb_perf_probe_start(fd);
	volatile double x = 0;
	for (int i = 0; i < 3000000; i++)
		x += i;
	assert_int_equal(hb_perf_probe_stop(fd, &enabled, &running), 0);
	assert_true(enabled > 100000);             /* > 0.1 ms of task clock */
	assert_true(running > 0 && running <= enabled);
	assert_true((double)enabled / (double)running < 1.01); /* never time-shared */
	/* Stopped: the times do not advance any more. */
	uint64_t e2, r2;
	assert_int_equal(hb_perf_probe_stop(fd, &e2, &r2), 0);
	assert_true(e2 == enabled);
	close(fd);
}

/* Latency samples: one per hb_lap up to the reserved count, the rest dropped; hb_begin
 * keeps the buffer; the laps add up to at most the region's own TSC time (both read the
 * same monotonic counter); release frees and empties. */
static void test_latency_samples(void **state)
{
	(void)state;
	char notice[400], err[400];
	assert_int_equal(hb_counters_init(HB_COUNTERS_NONE, notice, sizeof notice, err, sizeof err), 0);
	struct hb_region r = {0};
	assert_int_equal(hb_samples_reserve(&r, 100), 0);
	assert_int_equal(r.samples_cap, 100);
	volatile uint64_t sink = 0;
	hb_begin(&r);
	for (int i = 0; i < 150; i++) {
		sink += (uint64_t)i * 3;
		hb_lap(&r);
	}
	hb_end(&r);
	assert_int_equal(r.samples_n, 100);
	uint64_t total = 0;
	for (size_t i = 0; i < r.samples_n; i++)
		total += r.samples[i];
#ifdef HB_HAVE_TSC
	assert_true(r.have_tsc);
	assert_true(total <= r.tsc_cycles);
#endif
	hb_region_release(&r);
	assert_null(r.samples);
	assert_int_equal(r.samples_n + r.samples_cap, 0);
	assert_true(hb_ns_per_tick() > 0);
	assert_true(hb_sample_cost_ns() >= 0);
	assert_int_equal(hb_samples_reserve(&r, SIZE_MAX), -1); /* does not fit: refused */
	assert_null(r.samples);
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return (x > y) - (x < y);
}

/* hb_select_kth leaves at x[k] what a sort puts there, <= before and >= after, for random
 * values, heavy repeats (latency ticks), sorted, reversed and constant inputs, and every k
 * of a small array; chained as schedule.c chains it (p50, then p99 above it, then max). */
static void test_select_kth_matches_a_sort(void **state)
{
	(void)state;
	enum { N = 5000 };
	uint64_t *x = malloc(N * sizeof *x), *ref = malloc(N * sizeof *ref);
	assert_non_null(x);
	assert_non_null(ref);
	uint64_t rng = 12345;
	for (int kind = 0; kind < 5; kind++) {
		for (size_t i = 0; i < N; i++) {
			rng = rng * 6364136223846793005u + 1442695040888963407u;
			x[i] = kind == 0 ? rng >> 11 : kind == 1 ? (rng >> 33) % 7 : kind == 2 ? i
			     : kind == 3 ? N - i : 42;
		}
		memcpy(ref, x, N * sizeof *x);
		qsort(ref, N, sizeof *ref, cmp_u64);
		size_t ks[] = {N / 2, N * 99 / 100, N * 999 / 1000, N - 1};
		size_t lo = 0;
		for (size_t j = 0; j < sizeof ks / sizeof ks[0]; j++) {
			hb_select_kth(x, lo, N, ks[j]);
			assert_int_equal(x[ks[j]], ref[ks[j]]);
			for (size_t i = lo; i < N; i++)
				assert_true(i < ks[j] ? x[i] <= x[ks[j]] : x[i] >= x[ks[j]]);
			lo = ks[j];
		}
	}
	for (size_t k = 0; k < 64; k++) {
		for (size_t i = 0; i < 64; i++)
			x[i] = (i * 37 + 11) % 17;
		memcpy(ref, x, 64 * sizeof *x);
		qsort(ref, 64, sizeof *ref, cmp_u64);
		hb_select_kth(x, 0, 64, k);
		assert_int_equal(x[k], ref[k]);
	}
	free(x);
	free(ref);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_latency_samples),
		cmocka_unit_test(test_select_kth_matches_a_sort),
		cmocka_unit_test(test_region_without_counters),
		cmocka_unit_test(test_perf_probe_reports_enabled_and_running),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
