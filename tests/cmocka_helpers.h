/* cmocka_helpers.h - assertions the container tests share (include after <cmocka.h> and
 * "hb.h"): the registered ops of a variant, its invariant check, a batch that must fail
 * whole. Each fails the running cmocka test with a message naming the container.
 */
#ifndef DOD_TESTS_CMOCKA_HELPERS_H
#define DOD_TESTS_CMOCKA_HELPERS_H

/* The registered ops of name at size class elem_bytes (bytes); fails the test if none. */
static inline const struct dod_ops *tc_find(const char *name, size_t elem_bytes)
{
	const struct dod_ops *ops = hb_find_ops(name, elem_bytes);
	if (!ops)
		fail_msg("%s/%zu is not registered", name, elem_bytes);
	return ops;
}

/* Fails the test unless c passes its container's invariant check (none: passes). */
static inline void tc_check_ok(const struct dod_ops *ops, const void *c)
{
	char why[256];
	if (ops->check && ops->check(c, why, sizeof why) != DOD_OK)
		fail_msg("%s/%zu: invariant check: %s", ops->name, ops->elem_bytes, why);
}

/* erase_n(hs, n) must return err and change nothing: size, iterate_sum, the check. */
static inline void tc_erase_fails(const struct dod_ops *ops, void *c, const uint64_t *hs,
                                  size_t n, int err)
{
	size_t size = ops->size(c);
	uint64_t sum = ops->iterate_sum(c);
	assert_int_equal(ops->erase_n(c, hs, n), err);
	assert_int_equal(ops->size(c), size);
	assert_int_equal(ops->iterate_sum(c), sum);
	tc_check_ok(ops, c);
}

#endif
