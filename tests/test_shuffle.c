/* test_shuffle.c - the seeded shuffles of setup code (containers/dod_common.c):
 * dod_shuffle and dod_shuffle_prefix permute, draw exactly the numbers their comments
 * name (so a scenario's setup is the same for a seed whichever of them it calls), and the
 * prefix's k elements are distinct. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "dod_common.h"

#define N 1000

static void assert_permutation(const size_t *a, size_t n)
{
	static unsigned char seen[N];
	memset(seen, 0, sizeof seen);
	for (size_t i = 0; i < n; i++) {
		assert_true(a[i] < n);
		assert_false(seen[a[i]]);
		seen[a[i]] = 1;
	}
}

static void iota(size_t *a, size_t n)
{
	for (size_t i = 0; i < n; i++)
		a[i] = i;
}

/* The prefix shuffle is the partial Fisher-Yates from the front, draw for draw. */
static void test_prefix_is_the_partial_fisher_yates(void **state)
{
	(void)state;
	static size_t got[N], want[N];
	for (size_t k = 0; k <= N; k += 250) {
		uint64_t r1 = 42, r2 = 42;
		iota(got, N), iota(want, N);
		dod_shuffle_prefix(got, N, k, sizeof *got, &r1);
		for (size_t j = 0; j < k; j++) {
			size_t t = j + (size_t)dod_rng_below(&r2, N - j), x = want[j];
			want[j] = want[t], want[t] = x;
		}
		assert_memory_equal(got, want, sizeof got);
		assert_int_equal(r1, r2); /* the same draws, no more */
		assert_permutation(got, N);
	}
}

static void test_prefix_of_zero_draws_nothing_and_moves_nothing(void **state)
{
	(void)state;
	static size_t a[N], b[N];
	uint64_t r = 7;
	iota(a, N), iota(b, N);
	dod_shuffle_prefix(a, N, 0, sizeof *a, &r);
	assert_int_equal(r, 7);
	assert_memory_equal(a, b, sizeof a);
}

static void test_full_shuffle_permutes_and_moves_most(void **state)
{
	(void)state;
	static size_t a[N];
	uint64_t r = 3;
	size_t fixed = 0;
	iota(a, N);
	dod_shuffle(a, N, sizeof *a, &r);
	assert_permutation(a, N);
	for (size_t i = 0; i < N; i++)
		fixed += a[i] == i;
	assert_true(fixed < N / 10); /* a uniform permutation fixes 1 point on average */
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_prefix_is_the_partial_fisher_yates),
		cmocka_unit_test(test_prefix_of_zero_draws_nothing_and_moves_nothing),
		cmocka_unit_test(test_full_shuffle_permutes_and_moves_most),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
