/* test_lists.c - the vector-hosted lists (containers/lists/, Thomas Young, "Vector Hosted
 * Lists"): what the issue asks to be proved on the real containers, beside the model
 * that test_conformance and the fuzzer hold them to.
 * - vlist_hosted and vlist_hosted_compacting: a reference to a surviving item reaches
 *   the same key across other erasures, insertions at references and growth of the
 *   buffer (which moves it: dod_growth counts it);
 * - consolidate's remap is exact (every held reference maps to a distinct new one that
 *   reaches the same key, every other reference below ref_bound to DOD_NO_REF), and
 *   after it the hosted list's walk reads nodes 0, 1, 2, ... in order;
 * - vec_dead_entries' encoding: f(f(x)) == x, a dead entry holds -3 - next, insert
 *   reuses the latest dead entry, iteration skips dead entries, dead_count;
 * - bad references (out of range, free, repeated) fail the batch with their error and
 *   change nothing; the invariant checks catch a broken link.
 * White-box reads use the layouts in containers/lists/vlist_hosted.h and
 * vec_dead_entries.h at 8-byte values.
 */
#define ELEM_BYTES 8
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "hb.h"
#include "cmocka_helpers.h"
#include "lists/vec_dead_entries.h"
#include "lists/vlist_hosted.h"

#define MAX_HELD 4096

/* The references a test holds and the key each must reach. */
struct held {
	uint64_t ref[MAX_HELD], key[MAX_HELD];
	size_t n;
};

/* Every held reference reaches its key, one by one and as one batch. */
static void expect_held(const struct dod_ops *ops, const void *c, const struct held *h)
{
	uint64_t sum = 0, want = 0;
	for (size_t i = 0; i < h->n; i++) {
		uint64_t one = ~h->key[i];
		assert_int_equal(ops->lookup_sum(c, &h->ref[i], 1, &one), DOD_OK);
		assert_int_equal(one, h->key[i]);
		want += h->key[i];
	}
	assert_int_equal(ops->lookup_sum(c, h->ref, h->n, &sum), DOD_OK);
	assert_int_equal(sum, want);
	assert_int_equal(ops->size(c), h->n);
	assert_int_equal(ops->iterate_sum(c), want);
	tc_check_ok(ops, c);
}

static void hold(struct held *h, const uint64_t *refs, size_t n, uint64_t first_key)
{
	for (size_t i = 0; i < n; i++) {
		h->ref[h->n] = refs[i];
		h->key[h->n++] = first_key + i;
	}
}

/* Erases k random held references in one batch (dropping them from h). */
static void erase_random(const struct dod_ops *ops, void *c, struct held *h, size_t k,
                         uint64_t *rng)
{
	uint64_t victims[64];
	size_t m = 0;
	for (; m < k && m < 64 && h->n > 0; m++) {
		size_t j = (size_t)dod_rng_below(rng, h->n);
		victims[m] = h->ref[j];
		h->ref[j] = h->ref[h->n - 1];
		h->key[j] = h->key[--h->n];
	}
	assert_int_equal(ops->erase_n(c, victims, m), DOD_OK);
}

static void references_survive(const struct dod_ops *ops)
{
	static struct held h;
	uint64_t refs[64], rng = 7, key = 0;
	void *c;
	h.n = 0;
	assert_int_equal(ops->create(&c, 4), DOD_OK);
	uint64_t grows = dod_growth.grows;
	for (int round = 0; round < 40; round++) {
		assert_int_equal(ops->insert_n(c, 20, key, refs), DOD_OK); /* grows the buffer */
		hold(&h, refs, 20, key);
		key += 20;
		expect_held(ops, c, &h);
		erase_random(ops, c, &h, 12, &rng);
		expect_held(ops, c, &h);
		uint64_t at[8];
		for (size_t i = 0; i < 8; i++)
			at[i] = h.ref[dod_rng_below(&rng, h.n)];
		assert_int_equal(ops->list->insert_at_n(c, at, 8, round & 1, key, refs), DOD_OK);
		hold(&h, refs, 8, key);
		key += 8;
		expect_held(ops, c, &h);
	}
	assert_true(dod_growth.grows > grows); /* the buffer did grow under the references */
	ops->destroy(c);
}

static void test_references_survive_erase_insert_and_growth(void **state)
{
	(void)state;
	static const char *const hosted[] = {"vlist_hosted", "vlist_hosted_compacting"};
	for (size_t i = 0; i < 2; i++) {
		references_survive(tc_find(hosted[i], 8));
		references_survive(tc_find(hosted[i], 16));
	}
}

/* A churned container of ops: refs held in h; keys distinct. */
static void *churned(const struct dod_ops *ops, struct held *h)
{
	uint64_t refs[100], rng = 3;
	void *c;
	h->n = 0;
	assert_int_equal(ops->create(&c, 8), DOD_OK);
	assert_int_equal(ops->insert_n(c, 100, 1000, refs), DOD_OK);
	hold(h, refs, 100, 1000);
	erase_random(ops, c, h, 40, &rng);
	if (ops->list) {
		uint64_t at[30];
		for (size_t i = 0; i < 30; i++)
			at[i] = h->ref[dod_rng_below(&rng, h->n)];
		assert_int_equal(ops->list->insert_at_n(c, at, 30, DOD_LIST_BEFORE, 5000, refs), DOD_OK);
		hold(h, refs, 30, 5000);
	} else {
		assert_int_equal(ops->insert_n(c, 10, 5000, refs), DOD_OK); /* reuses dead ones */
		hold(h, refs, 10, 5000);
		erase_random(ops, c, h, 20, &rng);
	}
	expect_held(ops, c, h);
	return c;
}

/* consolidate's remap: exact, and the held references, remapped, reach their keys. */
static void *consolidated(const struct dod_ops *ops, struct held *h, uint64_t *keys_before)
{
	static uint64_t remap[256];
	static unsigned char taken[256];
	void *c = churned(ops, h);
	size_t bound = ops->consolidate->ref_bound(c), size = ops->size(c);
	assert_true(bound <= 256 && bound > size);
	ops->dump_keys(c, keys_before);
	assert_int_equal(ops->consolidate->consolidate(c, remap), DOD_OK);
	memset(taken, 0, sizeof taken);
	size_t mapped = 0;
	for (size_t i = 0; i < h->n; i++) {
		uint64_t to = remap[h->ref[i]];
		assert_true(to < size);
		assert_false(taken[to]);
		taken[to] = 1;
		h->ref[i] = to;
	}
	for (size_t r = 0; r < bound; r++)
		mapped += remap[r] != DOD_NO_REF;
	assert_int_equal(mapped, h->n); /* every other reference maps to DOD_NO_REF */
	expect_held(ops, c, h);
	return c;
}

static void test_consolidate_hosted_list(void **state)
{
	(void)state;
	static struct held h;
	static uint64_t before[256], after[256];
	const struct dod_ops *ops = tc_find("vlist_hosted_compacting", 8);
	void *c = consolidated(ops, &h, before);
	size_t size = ops->size(c);
	ops->dump_keys(c, after);
	assert_memory_equal(before, after, size * sizeof *after); /* the sequence is kept */
	/* The walk reads the buffer front to back: node k is the k-th of the sequence. */
	const struct vlist_8 *l = c;
	uint32_t i = l->head;
	for (size_t k = 0; k < size; k++, i = ((struct vlist_node_8 *)l->nodes.base)[i].next)
		assert_int_equal(i, k);
	assert_int_equal(i, VLIST_NIL);
	assert_int_equal(l->tail, size - 1);
	assert_int_equal(ops->consolidate->ref_bound(c), size);
	/* The references still work for the list operations. */
	uint64_t ref;
	assert_int_equal(ops->list->insert_at_n(c, &h.ref[0], 1, DOD_LIST_AFTER, 9999, &ref), DOD_OK);
	tc_check_ok(ops, c);
	ops->destroy(c);
}

static void test_consolidate_dead_entries(void **state)
{
	(void)state;
	static struct held h;
	static uint64_t before[256];
	const struct dod_ops *ops = tc_find("vec_dead_entries", 8);
	void *c = consolidated(ops, &h, before);
	/* Live entries slid to the front in index order: the index-order dump is unchanged,
	 * and it is now the buffer itself, no dead entry left. */
	const struct vdead_8 *v = c;
	size_t size = ops->size(c);
	assert_int_equal(v->n, size);
	assert_int_equal(v->dead_count, 0);
	assert_int_equal(v->first_dead, -1);
	for (size_t k = 0; k < size; k++)
		assert_int_equal(((dod_elem_8 *)v->entries.base)[k].key, before[k]);
	ops->destroy(c);
}

/* The value of entry i of a vec_dead_entries at 8-byte values, read as int64. */
static int64_t entry_value(const void *c, size_t i)
{
	return (int64_t)((const dod_elem_8 *)((const struct vdead_8 *)c)->entries.base)[i].key;
}

static void test_dead_entry_encoding(void **state)
{
	(void)state;
	const int64_t xs[] = {-1, 0, 1, 2, 5, 1000, INT64_MAX - 3, -2, -7, INT64_MIN};
	for (size_t i = 0; i < sizeof xs / sizeof xs[0]; i++)
		assert_int_equal(vdead_code(vdead_code(xs[i])), xs[i]);
	assert_int_equal(vdead_code(-1), -2);
	const struct dod_ops *ops = tc_find("vec_dead_entries", 8);
	void *c;
	uint64_t refs[6], ref;
	assert_int_equal(ops->create(&c, 2), DOD_OK);
	assert_int_equal(ops->insert_n(c, 6, 10, refs), DOD_OK); /* keys 10 .. 15 at 0 .. 5 */
	for (size_t i = 0; i < 6; i++)
		assert_int_equal(refs[i], i);
	const uint64_t kill[3] = {3, 1, 5};
	for (size_t i = 0; i < 3; i++)
		assert_int_equal(ops->erase_n(c, &kill[i], 1), DOD_OK);
	const struct vdead_8 *v = c;
	assert_int_equal(v->first_dead, 5);
	assert_int_equal(v->dead_count, 3);
	assert_int_equal(entry_value(c, 5), -3 - 1); /* the latest dead: next is 1 */
	assert_int_equal(entry_value(c, 1), -3 - 3);
	assert_int_equal(entry_value(c, 3), -2);     /* -3 - (-1): the end of the list */
	assert_int_equal(ops->iterate_sum(c), 10 + 12 + 14); /* dead entries skipped */
	uint64_t keys[6];
	ops->dump_keys(c, keys);
	assert_int_equal(keys[0], 10);
	assert_int_equal(keys[1], 12);
	assert_int_equal(keys[2], 14);
	const uint64_t reuse[4] = {5, 1, 3, 6}; /* LIFO, then a push */
	for (size_t i = 0; i < 4; i++) {
		assert_int_equal(ops->insert_n(c, 1, 20 + i, &ref), DOD_OK);
		assert_int_equal(ref, reuse[i]);
		assert_int_equal(v->dead_count, i < 3 ? 2 - i : 0);
		tc_check_ok(ops, c);
	}
	/* Values are >= 0: a key past INT64_MAX is refused, nothing changed. */
	assert_int_equal(ops->insert_n(c, 1, (uint64_t)INT64_MAX + 1, &ref), DOD_EINVAL);
	assert_int_equal(ops->insert_n(c, 2, INT64_MAX, refs), DOD_EINVAL);
	assert_int_equal(ops->size(c), 7);
	assert_int_equal(ops->insert_n(c, 1, INT64_MAX, &ref), DOD_OK);
	assert_int_equal(entry_value(c, ref), INT64_MAX);
	tc_check_ok(ops, c);
	ops->destroy(c);
}

/* The state a failed batch must leave alone. */
struct snap {
	size_t size;
	uint64_t sum, keys[16];
};
static struct snap snap_of(const struct dod_ops *ops, const void *c)
{
	struct snap s = {ops->size(c), ops->iterate_sum(c), {0}};
	ops->dump_keys(c, s.keys);
	tc_check_ok(ops, c);
	return s;
}
static void expect_unchanged(const struct dod_ops *ops, const void *c, const struct snap *was)
{
	struct snap now = snap_of(ops, c);
	assert_int_equal(now.size, was->size);
	assert_int_equal(now.sum, was->sum);
	assert_memory_equal(now.keys, was->keys, sizeof now.keys);
	const uint64_t live[2] = {0, 1};
	assert_int_equal(ops->count_valid(c, live, 2), 2);
}

static void list_batches_fail_whole(const struct dod_ops *ops, void *c, const struct snap *s)
{
	const struct dod_list_ops *l = ops->list;
	uint64_t out[2], sum;
	assert_int_equal(l->insert_at_n(c, (uint64_t[]){0, 2}, 2, DOD_LIST_AFTER, 50, out),
	                 DOD_EFREE);
	expect_unchanged(ops, c, s);
	assert_int_equal(l->insert_at_n(c, (uint64_t[]){0, 99}, 2, DOD_LIST_BEFORE, 50, out),
	                 DOD_ERANGE);
	expect_unchanged(ops, c, s);
	assert_int_equal(l->insert_at_n(c, (uint64_t[]){0}, 1, 5, 50, out), DOD_EINVAL);
	expect_unchanged(ops, c, s);
	/* size 7: {0, 6} is fine at the start, but 6 is past the 6 left after the first. */
	assert_int_equal(l->erase_at_positions_n(c, (uint64_t[]){0, 6}, 2, &sum), DOD_ERANGE);
	expect_unchanged(ops, c, s);
	assert_int_equal(l->erase_at_positions_n(c, (uint64_t[]){7}, 1, &sum), DOD_ERANGE);
	expect_unchanged(ops, c, s);
}

static void bad_references(const struct dod_ops *ops)
{
	void *c;
	uint64_t refs[8], sum;
	assert_int_equal(ops->create(&c, 8), DOD_OK);
	assert_int_equal(ops->insert_n(c, 8, 0, refs), DOD_OK);
	assert_int_equal(ops->erase_n(c, &refs[2], 1), DOD_OK);
	struct snap s = snap_of(ops, c);
	assert_int_equal(ops->erase_n(c, (uint64_t[]){0, 99}, 2), DOD_ERANGE);
	expect_unchanged(ops, c, &s);
	assert_int_equal(ops->erase_n(c, (uint64_t[]){0, 1, 2}, 3), DOD_EFREE); /* free */
	expect_unchanged(ops, c, &s);
	assert_int_equal(ops->erase_n(c, (uint64_t[]){0, 1, 0}, 3), DOD_EFREE); /* repeat */
	expect_unchanged(ops, c, &s);
	assert_int_equal(ops->erase_n(c, (uint64_t[]){UINT64_MAX}, 1), DOD_ERANGE);
	expect_unchanged(ops, c, &s);
	assert_int_equal(ops->lookup_sum(c, (uint64_t[]){0, 2}, 2, &sum), DOD_EFREE);
	assert_int_equal(ops->lookup_sum(c, (uint64_t[]){8}, 1, &sum), DOD_ERANGE);
	assert_int_equal(ops->count_valid(c, (uint64_t[]){0, 2, 8, 1u << 31}, 4), 1);
	if (ops->list)
		list_batches_fail_whole(ops, c, &s);
	assert_int_equal(ops->erase_n(c, (uint64_t[]){0, 1}, 2), DOD_OK); /* then it works */
	assert_int_equal(ops->size(c), 5);
	tc_check_ok(ops, c);
	ops->destroy(c);
}

static void test_bad_references_fail_whole(void **state)
{
	(void)state;
	static const char *const names[] = {"vlist_hosted", "vlist_hosted_compacting",
	                                    "vec_dead_entries"};
	for (size_t i = 0; i < 3; i++) {
		bad_references(tc_find(names[i], 8));
		bad_references(tc_find(names[i], 16));
	}
}

/* Size class 4 (the article's int payload): the hosted lists hold 32-bit keys, up to
 * UINT32_MAX, and refuse a wider key whole (DOD_EINVAL, nothing changed) rather than store
 * it truncated. */
static void test_int_payload_keys(void **state)
{
	(void)state;
	static const char *const names[] = {"vlist_hosted", "vlist_hosted_compacting"};
	for (size_t i = 0; i < 2; i++) {
		const struct dod_ops *ops = tc_find(names[i], 4);
		void *c;
		assert_int_equal(ops->elem_bytes, 4);
		assert_int_equal(ops->create(&c, 0), DOD_OK);
		const uint64_t keys[] = {7, UINT32_MAX, 3}, wide[] = {9, (uint64_t)UINT32_MAX + 1};
		assert_int_equal(ops->list->insert_sorted_n(c, keys, 3, NULL), DOD_OK);
		assert_int_equal(ops->list->insert_sorted_n(c, wide, 2, NULL), DOD_EINVAL);
		assert_int_equal(ops->size(c), 3);
		assert_int_equal(ops->iterate_sum(c), 10 + (uint64_t)UINT32_MAX);
		uint64_t got[3];
		ops->dump_keys(c, got);
		assert_true(got[0] == 3 && got[1] == 7 && got[2] == UINT32_MAX);
		tc_check_ok(ops, c);
		ops->destroy(c);
	}
}

/* The checks name a broken link, a cycle and a lost dead entry, and pass once undone. */
static void test_checks_catch_corruption(void **state)
{
	(void)state;
	const struct dod_ops *ops = tc_find("vlist_hosted", 8);
	void *c;
	char why[256];
	uint64_t refs[6];
	assert_int_equal(ops->create(&c, 8), DOD_OK);
	assert_int_equal(ops->insert_n(c, 6, 0, refs), DOD_OK);
	assert_int_equal(ops->erase_n(c, &refs[4], 1), DOD_OK);
	struct vlist_node_8 *nodes = (struct vlist_node_8 *)((struct vlist_8 *)c)->nodes.base;
	uint32_t saved = nodes[2].prev;
	nodes[2].prev = 0; /* node 1 is before it */
	assert_int_not_equal(ops->check(c, why, sizeof why), DOD_OK);
	assert_non_null(strstr(why, "prev"));
	nodes[2].prev = saved;
	saved = nodes[5].next;
	nodes[5].next = 0; /* the tail back to the head */
	assert_int_not_equal(ops->check(c, why, sizeof why), DOD_OK);
	assert_non_null(strstr(why, "cycle"));
	nodes[5].next = saved;
	tc_check_ok(ops, c);
	ops->destroy(c);
	ops = tc_find("vec_dead_entries", 8);
	assert_int_equal(ops->create(&c, 8), DOD_OK);
	assert_int_equal(ops->insert_n(c, 6, 0, refs), DOD_OK);
	assert_int_equal(ops->erase_n(c, (uint64_t[]){1, 4}, 2), DOD_OK);
	struct vdead_8 *v = c;
	v->first_dead = 1; /* entry 4 left off the list */
	assert_int_not_equal(ops->check(c, why, sizeof why), DOD_OK);
	v->first_dead = 4;
	tc_check_ok(ops, c);
	ops->destroy(c);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_references_survive_erase_insert_and_growth),
		cmocka_unit_test(test_consolidate_hosted_list),
		cmocka_unit_test(test_consolidate_dead_entries),
		cmocka_unit_test(test_dead_entry_encoding),
		cmocka_unit_test(test_bad_references_fail_whole),
		cmocka_unit_test(test_checks_catch_corruption),
		cmocka_unit_test(test_int_payload_keys),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
