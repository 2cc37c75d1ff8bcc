/* test_particles_pagealigned.c - particles.c's soa_pagealigned layout, compiled into this
 * file as one variant on the realloc strategy, so the test can see where its ten field
 * arrays are: each starts on a page (the page size asked of sysconf, never assumed),
 * whatever the heap held before, for arrays from the heap and from mmap, and still after
 * growth moved them, with the particles' values kept. This is the premise of the
 * article's warning that page-aligned SoA arrays conflict in the cache sets: element i
 * of every field falls in the same set. */
#define ELEM_BYTES 40
#define DOD_VARIANT_NAME "test_particles_soa_pagealigned"
#define DOD_VARIANT_OPS dod_ops_test_particles_soa_pagealigned
#define DOD_VARIANT_FAMILY "particles"
#define DOD_VARIANT_REMOVAL "holes"
#define DOD_VARIANT_ALLOC "realloc"
#define DOD_VARIANT_LAYOUT "soa_pagealigned"
#define DOD_VARIANT_CAPS (DOD_CAP_HANDLES | DOD_CAP_STABLE_HANDLES | DOD_CAP_DETECTS_STALE | \
                          DOD_CAP_HOLES)
#define DOD_ALLOC_realloc 1
#define DOD_REMOVAL_holes 1
#define DOD_LAYOUT_soa_pagealigned 1

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <unistd.h>

#include <cmocka.h>

#include "particles.c"

/* Whether every field of s starts on a page. */
static int fields_on_pages(const PS *s)
{
	uintptr_t page = (uintptr_t)sysconf(_SC_PAGESIZE);
	for (int f = 0; f < N_FIELDS; f++)
		if ((uintptr_t)fld(s, f, 0) % page)
			return 0;
	return 1;
}

/* Creates with room for `capacity`, checks the fields, grows past it (every array
 * reallocated), checks them again, the keys and the invariants, then one update. */
static void create_and_grow(size_t capacity, size_t n)
{
	const struct dod_ops *ops = &DOD_OPS_SYMBOL;
	void *c;
	char why[200];
	assert_int_equal(ops->create(&c, capacity), DOD_OK);
	assert_true(fields_on_pages(c));
	assert_int_equal(ops->insert_n(c, n, 7, NULL), DOD_OK);
	assert_true(fields_on_pages(c));
	assert_int_equal(ops->iterate_sum(c), (uint64_t)n * 7 + (uint64_t)n * (n - 1) / 2);
	double t, pos;
	ops->particles->update(c, DOD_PARTICLE_DT, 3);
	ops->particles->particle_sums(c, &t, &pos);
	assert_true(t == 3.0 * DOD_PARTICLE_DT * (double)n);
	assert_int_equal(ops->check(c, why, sizeof why), DOD_OK);
	ops->destroy(c);
}

static void test_fields_start_on_pages(void **state)
{
	(void)state;
	/* Small arrays come from the heap: move its top by 16-byte steps before each. */
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
		cmocka_unit_test(test_fields_start_on_pages),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
