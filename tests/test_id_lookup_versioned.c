/* test_id_lookup_versioned.c - cmocka tests of what the opening comments of
 * containers/id_lookup/sparse_set_paged.c, containers/id_lookup/slotmap_versioned.c and
 * the one-line layouts of containers/bulk/holes.c promise beyond the conformance model,
 * through the registry and the contract only:
 *   sparse_set_handles     errors of stale, repeated, forged (tombstone version) and
 *                          never-issued ids; erase_n all or nothing; swap-and-pop keeps
 *                          iteration dense; LIFO reuse of the id released last with its
 *                          version + 1; clear bumps every live version
 *   sparse_set_pages       the sparse array grows a 16 KiB page exactly when the first
 *                          id of a page is issued
 *   slotmap_handles        index 0 (the sentinel) out of range, an even version never
 *                          valid, LIFO reuse with the version + 2, clear in slot order
 *                          (the last slot is reused first)
 *   one_line_bytes         bytes a slot of bulk_holes_vm_pow2 (32 at 16 B items) and
 *                          bulk_holes_vm_line (64 / 3 at 16 B, 64 / 5 at 8 B)
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "hb.h"
#include "cmocka_helpers.h"

static uint32_t version(uint64_t h) { return (uint32_t)(h >> 32); }
static uint32_t index_of(uint64_t h) { return (uint32_t)h; }

static void test_sparse_set_handles(void **state)
{
	(void)state;
	const struct dod_ops *ops = tc_find("sparse_set_paged", 16);
	void *c;
	uint64_t hs[4], nh, sum, keys[4];
	assert_int_equal(ops->create(&c, 4), DOD_OK);
	assert_int_equal(ops->insert_n(c, 4, 0, hs), DOD_OK);
	for (uint32_t i = 0; i < 4; i++)
		assert_true(hs[i] == i); /* ids 0..3, version 0 */
	assert_int_equal(ops->erase_n(c, &hs[1], 1), DOD_OK);
	/* Swap-and-pop: the last item (key 3) moved into position 1. */
	ops->dump_keys(c, keys);
	assert_int_equal(keys[0], 0);
	assert_int_equal(keys[1], 3);
	assert_int_equal(keys[2], 2);
	assert_int_equal(ops->lookup_sum(c, &hs[1], 1, &sum), DOD_ESTALE);
	tc_erase_fails(ops, c, (uint64_t[]){hs[0], hs[2], hs[0]}, 3, DOD_EFREE);
	tc_erase_fails(ops, c, (uint64_t[]){hs[0], hs[1]}, 2, DOD_ESTALE);
	tc_erase_fails(ops, c, (uint64_t[]){hs[3], 4}, 2, DOD_ERANGE);
	/* The tombstone version is never issued (and is erase_n's mark). */
	tc_erase_fails(ops, c, (uint64_t[]){hs[3], hs[3] | (uint64_t)UINT32_MAX << 32}, 2, DOD_EFREE);
	/* The released id's current version was never issued either: forged. */
	assert_int_equal(ops->count_valid(c, (uint64_t[]){(uint64_t)1 << 32 | 1}, 1), 0);
	assert_int_equal(ops->insert_n(c, 1, 10, &nh), DOD_OK);
	assert_int_equal(index_of(nh), 1);
	assert_int_equal(version(nh), 1);
	assert_int_equal(ops->count_valid(c, hs, 4), 3);
	tc_check_ok(ops, c);
	/* Clear: every live version bumped, old handles stale, ids issued again. */
	uint64_t live[4] = {hs[0], nh, hs[2], hs[3]}, again[4];
	assert_int_equal(ops->clear(c), DOD_OK);
	assert_int_equal(ops->count_valid(c, live, 4), 0);
	assert_int_equal(ops->insert_n(c, 4, 20, again), DOD_OK);
	assert_int_equal(ops->count_valid(c, live, 4), 0);
	assert_int_equal(ops->count_valid(c, again, 4), 4);
	tc_check_ok(ops, c);
	ops->destroy(c);
}

static void test_sparse_set_pages(void **state)
{
	(void)state;
	const struct dod_ops *ops = tc_find("sparse_set_paged", 8);
	void *c;
	uint64_t h;
	/* The arrays reserved for 8192 items: only pages change the footprint. Ids 0..4095
	 * fill the first page; id 4096 brings the second; a reused id brings none. */
	assert_int_equal(ops->create(&c, 8192), DOD_OK);
	size_t empty = ops->footprint_bytes(c);
	assert_int_equal(ops->insert_n(c, 4096, 0, NULL), DOD_OK);
	size_t before = ops->footprint_bytes(c);
	assert_int_equal(before - empty, 4096 * sizeof(uint32_t));
	assert_int_equal(ops->insert_n(c, 1, 4096, &h), DOD_OK);
	assert_int_equal(ops->footprint_bytes(c) - before, 4096 * sizeof(uint32_t));
	assert_int_equal(ops->erase_n(c, &h, 1), DOD_OK);
	assert_int_equal(ops->insert_n(c, 1, 4097, &h), DOD_OK);
	assert_int_equal(ops->footprint_bytes(c) - before, 4096 * sizeof(uint32_t));
	tc_check_ok(ops, c);
	ops->destroy(c);
}

static void test_slotmap_handles(void **state)
{
	(void)state;
	const struct dod_ops *ops = tc_find("slotmap_versioned", 16);
	void *c;
	uint64_t hs[4], nh, sum;
	assert_int_equal(ops->create(&c, 4), DOD_OK);
	assert_int_equal(ops->insert_n(c, 4, 0, hs), DOD_OK);
	for (uint32_t i = 0; i < 4; i++) {
		assert_int_equal(index_of(hs[i]), i + 1); /* slot 0 is the sentinel */
		assert_int_equal(version(hs[i]), 1);
	}
	assert_int_equal(ops->count_valid(c, (uint64_t[]){(uint64_t)1 << 32}, 1), 0);
	assert_int_equal(ops->erase_n(c, &hs[1], 1), DOD_OK);
	assert_int_equal(ops->lookup_sum(c, &hs[1], 1, &sum), DOD_ESTALE);
	tc_erase_fails(ops, c, (uint64_t[]){hs[0], (uint64_t)1 << 32}, 2, DOD_ERANGE);
	tc_erase_fails(ops, c, (uint64_t[]){hs[0], hs[2], hs[0]}, 3, DOD_EFREE);
	/* The free slot's own (even) version: never a valid handle. */
	tc_erase_fails(ops, c, (uint64_t[]){hs[0], (uint64_t)2 << 32 | index_of(hs[1])}, 2, DOD_EFREE);
	assert_int_equal(ops->insert_n(c, 1, 10, &nh), DOD_OK);
	assert_int_equal(index_of(nh), index_of(hs[1]));
	assert_int_equal(version(nh), 3);
	/* Values are not dense: iteration skips the free slot, keys in slot order. */
	assert_int_equal(ops->erase_n(c, &hs[2], 1), DOD_OK);
	uint64_t keys[3];
	ops->dump_keys(c, keys);
	assert_int_equal(keys[0], 0);
	assert_int_equal(keys[1], 10);
	assert_int_equal(keys[2], 3);
	assert_int_equal(ops->iterate_sum(c), 13);
	/* Clear drains in slot order: the last slot heads the free list. */
	assert_int_equal(ops->clear(c), DOD_OK);
	assert_int_equal(ops->count_valid(c, (uint64_t[]){hs[0], nh, hs[3]}, 3), 0);
	assert_int_equal(ops->insert_n(c, 1, 30, &nh), DOD_OK);
	assert_int_equal(index_of(nh), 4);
	tc_check_ok(ops, c);
	ops->destroy(c);
}

/* Committed bytes of n items (8 KiB of slack for the container and the vm granule). */
static double bytes_a_slot(const char *name, size_t elem_bytes, size_t n)
{
	const struct dod_ops *ops = tc_find(name, elem_bytes);
	void *c;
	assert_int_equal(ops->create(&c, 0), DOD_OK);
	assert_int_equal(ops->insert_n(c, n, 0, NULL), DOD_OK);
	tc_check_ok(ops, c);
	double b = (double)ops->footprint_bytes(c) / (double)n;
	ops->destroy(c);
	return b;
}

static void test_one_line_bytes(void **state)
{
	(void)state;
	const size_t n = 1 << 16;
	double slack = (double)(128 << 10) / (double)n; /* one commit granule and the struct */
	double pow2 = bytes_a_slot("bulk_holes_vm_pow2", 16, n);
	double line16 = bytes_a_slot("bulk_holes_vm_line", 16, n);
	double line8 = bytes_a_slot("bulk_holes_vm_line", 8, n);
	double article = bytes_a_slot("bulk_holes_vm", 16, n);
	assert_true(pow2 >= 32 && pow2 <= 32 + slack);
	assert_true(line16 >= 64.0 / 3 && line16 <= 64.0 / 3 + slack);
	assert_true(line8 >= 64.0 / 5 && line8 <= 64.0 / 5 + slack);
	assert_true(article >= 24 && article <= 24 + slack);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_sparse_set_handles),
		cmocka_unit_test(test_sparse_set_pages),
		cmocka_unit_test(test_slotmap_handles),
		cmocka_unit_test(test_one_line_bytes),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
