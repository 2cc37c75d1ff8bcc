/* test_alloc_fail.c - allocation failure (issue 8, deliverable 5), as Lua's and SQLite's
 * test builds do it: an allocator hook fails the k-th allocation from a chosen moment on,
 * for k = 1, 2, 3, ... until the operation no longer allocates that often. Every
 * registered container (from the registry: containers added later are covered without an
 * edit here) must then return its error (DOD_ENOMEM; DOD_EFULL only for a fixed capacity)
 * and stay unchanged and usable: same size, same key sum by iteration and by handle, and
 * the same operation succeeds once allocation works again. It found one bug: Debian's
 * plf::colony crashes when a reserve() of several groups fails after the first group
 * (containers/peers/colony.cpp works around it). Operations: create, and
 * insert_n that grows the container. (The vm strategy commits with mprotect, not malloc:
 * its growth cannot fail this way, and the test accepts an insert that does not fail.)
 *
 * The hook interposes malloc, calloc and realloc in this executable and forwards to
 * glibc's __libc_* entry points (like harness/alloc_count.c, which this binary does not
 * link); C++ operator new reaches malloc. Under AddressSanitizer, which interposes the
 * allocator itself, the test is skipped. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "hb.h"

#if defined(__SANITIZE_ADDRESS__)
#define HOOKED 0
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define HOOKED 0
#endif
#endif
#ifndef HOOKED
#define HOOKED 1
#endif

/* 0: allocation works; k > 0: the k-th allocation from now fails, and so does every one
 * after it until fail_at is reset (a failure that persists, like real exhaustion). */
static long fail_at, calls;

#if HOOKED
extern void *__libc_malloc(size_t);
extern void *__libc_calloc(size_t, size_t);
extern void *__libc_realloc(void *, size_t);

static int refuse(void) { return fail_at > 0 && ++calls >= fail_at; }
void *malloc(size_t n) { return refuse() ? NULL : __libc_malloc(n); }
void *calloc(size_t n, size_t m) { return refuse() ? NULL : __libc_calloc(n, m); }
void *realloc(void *p, size_t n) { return refuse() ? NULL : __libc_realloc(p, n); }
#endif

static void arm(long k)
{
	calls = 0;
	fail_at = k;
}

/* The state a failed call must leave alone. */
struct snap {
	size_t size;
	uint64_t sum, by_handle;
};

static struct snap snap_of(const struct dod_ops *ops, void *c, const uint64_t *hs, size_t n)
{
	struct snap s = {ops->size(c), ops->iterate_sum(c), 0};
	if (ops->caps & DOD_CAP_HANDLES)
		assert_int_equal(ops->lookup_sum(c, hs, n, &s.by_handle), DOD_OK);
	return s;
}

#define BASE 100   /* items before the failing insert */
#define MORE 600   /* the insert that must grow (a container created with room for 8) */

static void insert_fails_cleanly(const struct dod_ops *ops)
{
	static uint64_t hs[BASE + MORE];
	bool fixed = ops->caps & DOD_CAP_FIXED_CAPACITY;
	for (long k = 1;; k++) {
		void *c = NULL;
		assert_int_equal(ops->create(&c, fixed ? BASE + MORE : 8), DOD_OK);
		assert_int_equal(ops->insert_n(c, BASE, 0, hs), DOD_OK);
		struct snap before = snap_of(ops, c, hs, BASE);
		arm(k);
		int err = ops->insert_n(c, MORE, BASE, hs + BASE);
		long made = calls;
		arm(0);
		if (err == DOD_OK) { /* no k-th allocation happened: every failure point seen */
			assert_int_equal(ops->size(c), BASE + MORE);
			ops->destroy(c);
			break;
		}
		if (err != DOD_ENOMEM)
			fail_msg("%s/%zu: insert_n with allocation %ld failing returned %s, not "
			         "DOD_ENOMEM", ops->name, ops->elem_bytes, k, dod_strerror(err));
		struct snap after = snap_of(ops, c, hs, BASE);
		if (after.size != before.size || after.sum != before.sum ||
		    after.by_handle != before.by_handle)
			fail_msg("%s/%zu: a failed insert_n (allocation %ld of %ld) changed the "
			         "container", ops->name, ops->elem_bytes, k, made);
		/* Usable again: the same insert now succeeds and every handle reaches its item. */
		assert_int_equal(ops->insert_n(c, MORE, BASE, hs + BASE), DOD_OK);
		uint64_t sum = 0;
		if (ops->caps & DOD_CAP_HANDLES) {
			assert_int_equal(ops->lookup_sum(c, hs, BASE + MORE, &sum), DOD_OK);
			assert_int_equal(sum, ops->iterate_sum(c));
		}
		assert_int_equal(ops->size(c), BASE + MORE);
		ops->destroy(c);
		assert_true(k < 100000); /* an insert cannot allocate without bound */
	}
}

static void create_fails_cleanly(const struct dod_ops *ops)
{
	for (long k = 1;; k++) {
		void *c = NULL;
		arm(k);
		int err = ops->create(&c, 1000);
		arm(0);
		if (err == DOD_OK) {
			assert_int_equal(ops->insert_n(c, 10, 0, NULL), DOD_OK);
			ops->destroy(c);
			break;
		}
		if (err != DOD_ENOMEM)
			fail_msg("%s/%zu: create with allocation %ld failing returned %s", ops->name,
			         ops->elem_bytes, k, dod_strerror(err));
		assert_true(k < 1000);
	}
}

static void test_every_container_survives_allocation_failure(void **state)
{
	(void)state;
	if (!HOOKED)
		skip(); /* ASan owns the allocator: the release build runs this test */
	size_t checked = 0;
	for (size_t i = 0; i < hb_n_containers; i++)
		for (size_t s = 0; s < HB_N_SIZES; s++) {
			const struct dod_ops *ops = hb_containers[i].ops[s];
			if (!ops)
				continue;
			create_fails_cleanly(ops);
			insert_fails_cleanly(ops);
			checked++;
		}
	assert_true(checked >= hb_n_containers);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_every_container_survives_allocation_failure),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
