/* test_holes_create.c - create of every array-with-holes variant (containers/bulk/
 * holes_core.h: removal strategies holes, holes_bitmask, holes_runs, every allocation
 * strategy and slot layout, every size class) frees what it made when any one of its
 * allocations fails: for k = 1, 2, ... the k-th allocation of create and every one after
 * it fail (as real exhaustion persists), until create no longer allocates k times. Each
 * failed create must return DOD_ENOMEM and leave as many heap blocks and memory mappings
 * as it found; the create that succeeds must have made at least one allocation per store
 * its removal strategy keeps, plus the container, so every store's failure was seen.
 *
 * The binary is linked with -Wl,--wrap for the allocator and mmap, munmap and mprotect
 * (the Makefile's HOLES_CREATE_WRAP): the wrappers count live blocks and mappings and
 * refuse when armed, then forward to the real functions (ASan's under the san build,
 * whose leak check covers the heap at exit as well). Allocations made by shared
 * libraries are not wrapped, and none is made by create itself but its own. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include <cmocka.h>

#include "hb.h"

void *__real_malloc(size_t n);
void *__real_calloc(size_t n, size_t m);
void *__real_realloc(void *p, size_t n);
void *__real_aligned_alloc(size_t align, size_t n);
int __real_posix_memalign(void **out, size_t align, size_t n);
void __real_free(void *p);
void *__real_mmap(void *addr, size_t len, int prot, int flags, int fd, off_t off);
int __real_munmap(void *addr, size_t len);
int __real_mprotect(void *addr, size_t len, int prot);

static long fail_at, calls; /* fail_at > 0: the fail_at-th call from arm() on fails, and after */
static long blocks, maps;   /* live heap blocks and mappings made through the wrappers */

static void arm(long k)
{
	fail_at = k;
	calls = 0;
}
static int refuse(void) { return ++calls >= fail_at && fail_at > 0; }
static void *counted(void *p)
{
	blocks += p != NULL;
	return p;
}

void *__wrap_malloc(size_t n) { return refuse() ? NULL : counted(__real_malloc(n)); }
void *__wrap_calloc(size_t n, size_t m) { return refuse() ? NULL : counted(__real_calloc(n, m)); }
void *__wrap_realloc(void *p, size_t n)
{
	if (refuse())
		return NULL;
	void *q = __real_realloc(p, n);
	return p ? q : counted(q);
}
void *__wrap_aligned_alloc(size_t align, size_t n)
{
	return refuse() ? NULL : counted(__real_aligned_alloc(align, n));
}
int __wrap_posix_memalign(void **out, size_t align, size_t n)
{
	if (refuse())
		return ENOMEM;
	int err = __real_posix_memalign(out, align, n);
	blocks += err == 0;
	return err;
}
void __wrap_free(void *p)
{
	blocks -= p != NULL;
	__real_free(p);
}
void *__wrap_mmap(void *addr, size_t len, int prot, int flags, int fd, off_t off)
{
	if (refuse())
		return MAP_FAILED;
	void *p = __real_mmap(addr, len, prot, flags, fd, off);
	maps += p != MAP_FAILED;
	return p;
}
int __wrap_munmap(void *addr, size_t len)
{
	int rc = __real_munmap(addr, len);
	maps -= rc == 0;
	return rc;
}
int __wrap_mprotect(void *addr, size_t len, int prot)
{
	return refuse() ? -1 : __real_mprotect(addr, len, prot);
}

/* The stores of each removal strategy: the items (generations beside them or, for
 * holes_bitmask, apart), plus the mask or the skip array. */
static int stores_of(const char *removal)
{
	if (strcmp(removal, "holes") == 0)
		return 1;
	if (strcmp(removal, "holes_runs") == 0)
		return 2;
	return strcmp(removal, "holes_bitmask") == 0 ? 3 : 0;
}

/* Fails each allocation of ops->create in turn; returns how many failure points it saw. */
static long create_fails_cleanly(const struct dod_ops *ops)
{
	for (long k = 1;; k++) {
		long blocks_before = blocks, maps_before = maps;
		void *c = NULL;
		arm(k);
		int err = ops->create(&c, 1000);
		long made = calls;
		arm(0);
		if (err == DOD_OK) {
			if (made < 1 + stores_of(ops->removal))
				fail_msg("%s/%zu: create made %ld allocations, fewer than its %d stores and "
				         "the container", ops->name, ops->elem_bytes, made,
				         stores_of(ops->removal));
			assert_int_equal(ops->insert_n(c, 10, 0, NULL), DOD_OK);
			ops->destroy(c);
			if (blocks != blocks_before || maps != maps_before)
				fail_msg("%s/%zu: create then destroy left %ld blocks, %ld mappings", ops->name,
				         ops->elem_bytes, blocks - blocks_before, maps - maps_before);
			return k - 1;
		}
		if (err != DOD_ENOMEM)
			fail_msg("%s/%zu: create with allocation %ld failing returned %s, not DOD_ENOMEM",
			         ops->name, ops->elem_bytes, k, dod_strerror(err));
		if (blocks != blocks_before || maps != maps_before)
			fail_msg("%s/%zu: create with allocation %ld failing leaked %ld heap blocks and "
			         "%ld mappings", ops->name, ops->elem_bytes, k, blocks - blocks_before,
			         maps - maps_before);
		assert_true(k < 1000);
	}
}

static void test_every_holes_variant_create_frees_what_it_made(void **state)
{
	(void)state;
	size_t variants = 0;
	long points = 0;
	for (size_t i = 0; i < hb_n_containers; i++)
		for (size_t s = 0; s < HB_N_SIZES; s++) {
			const struct dod_ops *ops = hb_containers[i].ops[s];
			if (!ops || strcmp(ops->family, "bulk") != 0 || !stores_of(ops->removal))
				continue;
			points += create_fails_cleanly(ops);
			variants++;
		}
	fprintf(stderr, "holes_create: %zu variant/size pairs, %ld failing allocations, each "
	        "DOD_ENOMEM with nothing left behind\n", variants, points);
	/* Every alloc word of holes, holes_bitmask and holes_runs, each at 2-4 sizes. */
	assert_true(variants >= 60);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_every_holes_variant_create_frees_what_it_made),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
