/* test_stb_arr.c - the stb_ds peer (containers/peers/stb_arr.c) and its glue
 * (containers/peers/stb_ds_glue.h). The conformance suite drives it against the model;
 * here what is particular to it:
 *   handles        ids from 1, never reused (stale after erase and after clear); a
 *                  never-issued id is DOD_ERANGE, an erased one DOD_ESTALE, a repeat in
 *                  a batch DOD_EFREE, and a failed batch leaves no mark behind
 *   out_of_memory  every stb_ds allocation of create, insert_n and erase_n's deferred
 *                  rebuild made to fail in turn: a clean DOD_ENOMEM (or, for erase_n,
 *                  success with the rebuild postponed), the container unchanged and
 *                  usable; sizes that cannot fit
 *   map_glue       reserve gives the slot count stb_ds's own growth gives; hold/settle
 *                  shrinks as hmdel would; clear in place; the byte count of the index
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "dod_common.h"
#include "hb.h"
#include "peers/stb_ds_glue.h"

#define typeof __typeof__ /* as in stb_arr.c: stb_ds's macros use it, -std=c11 lacks it */
#include <stb/stb_ds.h>

/* Huge requests must fail with DOD_ENOMEM, not abort the sanitizer build. */
const char *__asan_default_options(void);
const char *__asan_default_options(void) { return "allocator_may_return_null=1"; }

static const struct dod_ops *stb_ops(size_t elem_bytes)
{
	const struct dod_ops *ops = hb_find_ops("peer_stb_arr", elem_bytes);
	assert_non_null(ops);
	return ops;
}

static uint64_t lookup(const struct dod_ops *ops, void *c, uint64_t h, int *err)
{
	uint64_t sum = 0;
	*err = ops->lookup_sum(c, &h, 1, &sum);
	return sum;
}

static void test_handles(void **state)
{
	(void)state;
	static const size_t sizes[] = {8, 64};
	for (size_t z = 0; z < 2; z++) {
		const struct dod_ops *ops = stb_ops(sizes[z]);
		void *c;
		uint64_t h[10], more[2];
		int err;
		assert_int_equal(ops->create(&c, 0), DOD_OK);
		assert_int_equal(ops->insert_n(c, 10, 100, h), DOD_OK);
		for (size_t i = 0; i < 10; i++)
			assert_int_equal(h[i], i + 1);
		assert_int_equal(ops->erase_n(c, &h[2], 1), DOD_OK);
		lookup(ops, c, h[2], &err);
		assert_int_equal(err, DOD_ESTALE);
		assert_int_equal(ops->erase_n(c, &h[2], 1), DOD_ESTALE);
		uint64_t never[] = {0, 11, UINT64_MAX};
		for (size_t i = 0; i < 3; i++) {
			assert_int_equal(ops->erase_n(c, &never[i], 1), DOD_ERANGE);
			lookup(ops, c, never[i], &err);
			assert_int_equal(err, DOD_ERANGE);
		}
		/* Failing batches change nothing and leave no mark: h[4] erases alone after. */
		uint64_t repeat[] = {h[4], h[6], h[4]}, stale[] = {h[4], h[6], h[2]};
		assert_int_equal(ops->erase_n(c, repeat, 3), DOD_EFREE);
		assert_int_equal(ops->erase_n(c, stale, 3), DOD_ESTALE);
		assert_int_equal(ops->size(c), 9);
		assert_int_equal(lookup(ops, c, h[4], &err), 104);
		assert_int_equal(err, DOD_OK);
		assert_int_equal(ops->erase_n(c, &h[4], 1), DOD_OK);
		/* Items moved by swap-and-pop keep their handles. */
		assert_int_equal(ops->erase_n(c, &h[0], 1), DOD_OK);
		uint64_t live[] = {h[1], h[3], h[5], h[6], h[7], h[8], h[9]}, sum = 0;
		assert_int_equal(ops->lookup_sum(c, live, 7, &sum), DOD_OK);
		assert_int_equal(sum, 101 + 103 + 105 + 106 + 107 + 108 + 109);
		assert_int_equal(ops->count_valid(c, h, 10), 7);
		/* clear: every old handle stale, new ids continue (never reused). */
		assert_int_equal(ops->clear(c), DOD_OK);
		assert_int_equal(ops->count_valid(c, h, 10), 0);
		lookup(ops, c, h[1], &err);
		assert_int_equal(err, DOD_ESTALE);
		assert_int_equal(ops->insert_n(c, 2, 7, more), DOD_OK);
		assert_int_equal(more[0], 11);
		assert_int_equal(more[1], 12);
		assert_int_equal(ops->iterate_sum(c), 15);
		ops->destroy(c);
	}
}

/* The container's state as the model sees it: size, iteration sum, lookup of hs. */
struct snap {
	size_t size;
	uint64_t sum, by_handle;
};
static struct snap snap_of(const struct dod_ops *ops, void *c, const uint64_t *hs, size_t n)
{
	struct snap s = {ops->size(c), ops->iterate_sum(c), 0};
	assert_int_equal(ops->lookup_sum(c, hs, n, &s.by_handle), DOD_OK);
	assert_int_equal(s.by_handle, s.sum);
	return s;
}

static void test_out_of_memory(void **state)
{
	(void)state;
	enum { N = 3000 };
	static uint64_t hs[2 * N];
	const struct dod_ops *ops = stb_ops(16);
	int failed_create = 0, failed_insert = 0, postponed = 0, failed_settle = 0;
	for (unsigned long k = 1; k <= 12; k++) {
		void *c = NULL;
		/* create: each of its allocations (struct by malloc, not stb_ds; map array,
		 * index, items, ids, map reserve) in turn. */
		dod_stbds_fail_nth_alloc(k);
		int err = ops->create(&c, 100);
		dod_stbds_fail_nth_alloc(0);
		if (err) {
			assert_int_equal(err, DOD_ENOMEM);
			failed_create++;
			assert_int_equal(ops->create(&c, 100), DOD_OK);
		}
		assert_int_equal(ops->insert_n(c, 50, 0, hs), DOD_OK);
		/* insert_n growing every structure: the k-th allocation fails. */
		struct snap before = snap_of(ops, c, hs, 50);
		dod_stbds_fail_nth_alloc(k);
		err = ops->insert_n(c, N, 50, hs + 50);
		dod_stbds_fail_nth_alloc(0);
		if (err) {
			assert_int_equal(err, DOD_ENOMEM);
			failed_insert++;
			struct snap after = snap_of(ops, c, hs, 50);
			assert_memory_equal(&before, &after, sizeof before);
			assert_int_equal(ops->insert_n(c, N, 50, hs + 50), DOD_OK);
		}
		size_t n = N + 50;
		/* erase_n of 90%: the index shrinks at the end; if that fails the erase still
		 * succeeds, and the next insert_n settles first or fails cleanly. */
		size_t before_bytes = ops->footprint_bytes(c);
		dod_stbds_fail_nth_alloc(k);
		assert_int_equal(ops->erase_n(c, hs, n - 300), DOD_OK);
		int shrank = ops->footprint_bytes(c) < before_bytes;
		dod_stbds_fail_nth_alloc(0);
		assert_int_equal(ops->count_valid(c, hs, n - 300), 0);
		memmove(hs, hs + n - 300, 300 * sizeof *hs);
		n = 300;
		before = snap_of(ops, c, hs, n);
		if (!shrank) {
			postponed++;
			dod_stbds_fail_nth_alloc(1);
			err = ops->insert_n(c, 10, 9000, hs + n);
			dod_stbds_fail_nth_alloc(0);
			assert_int_equal(err, DOD_ENOMEM);
			failed_settle++;
			struct snap after = snap_of(ops, c, hs, n);
			assert_memory_equal(&before, &after, sizeof before);
		}
		assert_int_equal(ops->insert_n(c, 10, 9000, hs + n), DOD_OK);
		n += 10;
		assert_int_equal(snap_of(ops, c, hs, n).size, 310);
		assert_true(ops->footprint_bytes(c) < before_bytes);
		ops->destroy(c);
	}
	assert_true(failed_create >= 4);  /* map array, index, items, ids */
	assert_true(failed_insert >= 4);  /* items, ids, map array, index */
	assert_true(postponed >= 1 && failed_settle == postponed);

	/* Sizes that cannot fit: above max_elems is DOD_EINVAL, below it realloc fails. */
	void *c;
	assert_int_equal(ops->create(&c, ops->max_elems + 1), DOD_EINVAL);
	assert_int_equal(ops->create(&c, ops->max_elems), DOD_ENOMEM);
	assert_int_equal(ops->create(&c, 0), DOD_OK);
	assert_int_equal(ops->insert_n(c, 3, 1, hs), DOD_OK);
	assert_int_equal(ops->insert_n(c, ops->max_elems / 2, 4, NULL), DOD_ENOMEM);
	assert_int_equal(ops->insert_n(c, SIZE_MAX, 4, NULL), DOD_ENOMEM);
	assert_int_equal(ops->size(c), 3);
	assert_int_equal(ops->iterate_sum(c), 6);
	ops->destroy(c);
}

static void test_map_glue(void **state)
{
	(void)state;
	enum { N = 1000 };
	struct dod_stbds_kv *grown = NULL, *reserved;
	/* Stock stb_ds growth, one hmput at a time (unguarded: a failure here aborts). */
	for (uint64_t i = 1; i <= N; i++)
		hmput(grown, i, i);
	assert_int_equal(dod_stbds_hm_create(&reserved), DOD_OK);
	assert_int_equal(dod_stbds_hm_slots(reserved), 8);
	assert_int_equal(dod_stbds_hm_reserve(&reserved, N), DOD_OK);
	assert_int_equal(dod_stbds_hm_slots(reserved), dod_stbds_hm_slots(grown));
	assert_int_equal(dod_stbds_hm_slots(reserved), 2048); /* 1000 > 3/4 of 1024 */
	/* The index is one allocation: 2048 / 8 buckets of 128 bytes, header, 63 slack. */
	size_t array = sizeof(stbds_array_header) + arrcap(reserved - 1) * sizeof *reserved;
	size_t index = dod_stbds_hm_bytes(reserved) - array;
	assert_true(index >= 256 * 128 + 63 + 64 && index <= 256 * 128 + 63 + 256);
	for (uint64_t i = 1; i <= N; i++)
		hmput(reserved, i, i * 3);
	assert_int_equal(dod_stbds_hm_slots(reserved), 2048);
	/* Hold: 900 deletions rebuild nothing; settle then shrinks as far as hmdel would
	 * have (100 entries: 2048 -> 1024 -> 512 -> 256, where 100 >= 256 / 4). */
	struct dod_stbds_hold hold;
	dod_stbds_hm_hold(reserved, &hold);
	for (uint64_t i = 1; i <= 900; i++)
		hmdel(reserved, i);
	assert_int_equal(dod_stbds_hm_slots(reserved), 2048);
	assert_int_equal(dod_stbds_hm_settle(&reserved, &hold), DOD_OK);
	assert_int_equal(dod_stbds_hm_slots(reserved), 256);
	assert_int_equal(hmlen(reserved), 100);
	for (uint64_t i = 1; i <= N; i++)
		assert_int_equal(hmgeti(reserved, i) >= 0, i > 900);
	assert_int_equal(hmget(reserved, 950), 2850);
	/* Clear in place: no entry, same slots; usable again. */
	dod_stbds_hm_clear(reserved);
	assert_int_equal(hmlen(reserved), 0);
	assert_int_equal(dod_stbds_hm_slots(reserved), 256);
	assert_true(hmgeti(reserved, 950) < 0);
	hmput(reserved, 5, 6);
	assert_int_equal(hmget(reserved, 5), 6);
	hmfree(grown);
	hmfree(reserved);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_handles),
		cmocka_unit_test(test_out_of_memory),
		cmocka_unit_test(test_map_glue),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
