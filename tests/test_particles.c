/* test_particles.c - the particle layouts' own test (containers/particles.c), compiled into
 * this file as one variant, soa_staggered on the realloc strategy (ten field stores, each
 * behind its stagger lead), so the test can see where the arrays are: every field starts
 * on a cache line whatever the heap held before (the stores are DOD_STORE_ALIGNED), for
 * arrays from the heap and from mmap, and still after growth moved them, with the
 * particles' values kept. */
#define ELEM_BYTES 40
#define DOD_VARIANT_NAME "test_particles_soa_staggered"
#define DOD_VARIANT_OPS dod_ops_test_particles_soa_staggered
#define DOD_VARIANT_FAMILY "particles"
#define DOD_VARIANT_REMOVAL "holes"
#define DOD_VARIANT_ALLOC "realloc"
#define DOD_VARIANT_LAYOUT "soa_staggered"
#define DOD_VARIANT_CAPS (DOD_CAP_HANDLES | DOD_CAP_STABLE_HANDLES | DOD_CAP_DETECTS_STALE | \
                          DOD_CAP_HOLES)
#define DOD_ALLOC_realloc 1
#define DOD_REMOVAL_holes 1
#define DOD_LAYOUT_soa_staggered 1

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "particles.c"

#define LINE 64 /* a cache line, in bytes */

/* Whether every field of s starts on a line. */
static int fields_placed(const PS *s)
{
	for (int f = 0; f < N_FIELDS; f++)
		if ((uintptr_t)fld(s, f, 0) % LINE)
			return 0;
	return 1;
}

/* Creates with room for `capacity`, checks the fields, grows past it (every array
 * reallocated), checks them again and the particles' keys and invariants. */
static void create_and_grow(size_t capacity, size_t n)
{
	const struct dod_ops *ops = &DOD_OPS_SYMBOL;
	void *c = NULL; /* -O3 does not see through the assert that create set it */
	char why[200];
	assert_int_equal(ops->create(&c, capacity), DOD_OK);
	assert_true(fields_placed(c));
	assert_int_equal(ops->insert_n(c, n, 7, NULL), DOD_OK);
	assert_true(fields_placed(c));
	assert_int_equal(ops->iterate_sum(c), (uint64_t)n * 7 + (uint64_t)n * (n - 1) / 2);
	assert_int_equal(ops->check(c, why, sizeof why), DOD_OK);
	ops->destroy(c);
}

static void test_fields_start_on_cache_lines(void **state)
{
	(void)state;
	/* Small arrays come from the heap: move its top by 16-byte steps before each, so each
	 * lands at another offset in a line unless the store aligns it. */
	for (size_t shift = 1; shift <= 8; shift++) {
		void *pad = malloc(16 * shift);
		assert_non_null(pad);
		create_and_grow(100, 5000);
		free(pad);
	}
	/* Large ones from mmap: a page plus malloc's 16-byte header, unless aligned. */
	create_and_grow(200000, 300000);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_fields_start_on_cache_lines),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
