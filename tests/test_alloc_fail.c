/* test_alloc_fail.c - allocation failure (issue 8, deliverable 5), as Lua's and SQLite's
 * test builds do it: an allocator hook fails the k-th allocation from a chosen moment on,
 * for k = 1, 2, 3, ... until the operation no longer allocates that often. Every
 * registered container (from the registry: containers added later are covered without an
 * edit here) must then return its error (DOD_ENOMEM; DOD_EFULL only for a fixed capacity)
 * and stay unchanged and usable: same size, same key sum by iteration and by handle, and
 * the same operation succeeds once allocation works again. It found one bug: Debian's
 * plf::colony crashes when a reserve() of several groups fails after the first group
 * (containers/peers/colony.cpp works around it). Operations: create, insert_n that grows
 * the container, and every other operation that changes it: erase_n, clear, reset,
 * shuffle and defragment (whole and with a swap budget), and the list family's
 * insert_at_n and insert_sorted_n (both made to grow), erase_at_positions_n and
 * consolidate, the tags family's add_n (made to grow; its entities hold tags already, so
 * erase_n and clear drop tags too) and the DataComponent's set_n and copy_n, on a
 * container with holes, compared with the reference model (tests/model.h, with the
 * invariant check) after the failure and after the retry. Most
 * of them allocate nothing, and then pass at k = 1. The family extensions' operations
 * that return no error (the particle kernels, consolidate) must allocate nothing at all
 * (model_run_exts with every allocation failing; consolidate here).
 * (The vm strategy commits with mprotect, not malloc: its growth cannot fail this way,
 * and the test accepts an insert that does not fail.) The fuzzer (tests/fuzz/) drives
 * the same failures at random points of random operation sequences, under ASan.
 *
 * The hook interposes malloc, calloc and realloc in this executable and forwards to
 * glibc's __libc_* entry points (like harness/alloc_count.c, which this binary does not
 * link); C++ operator new reaches malloc. Under AddressSanitizer, which interposes the
 * allocator itself, the test is skipped. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "hb.h"
#include "model.h"
#include "model_dc.h"

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

/* The operations after insert, each on a container of the fixture below; the list
 * family's (containers/list_contract.h) on the containers with its extensions. */
enum { OP_ERASE, OP_CLEAR, OP_RESET, OP_SHUFFLE, OP_DEFRAG, OP_DEFRAG_STEP, OP_INSERT_AT,
       OP_INSERT_SORTED, OP_ERASE_AT, OP_CONSOLIDATE, OP_TAGS_ADD, OP_DC_SET, OP_DC_COPY,
       N_OPS };
static const char *const op_names[N_OPS] = {"erase_n", "clear", "reset", "shuffle",
                                            "defragment(0)", "defragment(3)", "insert_at_n",
                                            "insert_sorted_n", "erase_at_positions_n",
                                            "consolidate", "tags add_n", "dc set_n",
                                            "dc copy_n"};

static bool offers(const struct dod_ops *ops, int op)
{
	switch (op) {
	case OP_ERASE: return ops->erase_n;
	case OP_CLEAR: return ops->clear;
	case OP_RESET: return ops->reset;
	case OP_SHUFFLE: return ops->shuffle;
	case OP_INSERT_AT:
	case OP_INSERT_SORTED:
	case OP_ERASE_AT: return dod_exts(ops) & DOD_EXT_LIST;
	case OP_CONSOLIDATE: return dod_exts(ops) & DOD_EXT_CONSOLIDATE;
	case OP_TAGS_ADD: return dod_exts(ops) & DOD_EXT_TAGS;
	case OP_DC_SET:
	case OP_DC_COPY: return dod_exts(ops) & DOD_EXT_DC;
	default: return ops->defragment && ops->shuffle;
	}
}

/* The list operations' arguments, made from the fixture before the hook is armed:
 * LIST_MORE insertions (more than the fixture's free nodes and spare capacity, so a
 * hosted list must grow), every other item erased by position. */
#define LIST_MORE (2 * BASE)
#define TAGS_MORE (12 * BASE) /* tags add_n puts on the victims: ~36 each, past the
                              * fixture's node and chunk capacity */
static struct {
	uint64_t tag_ents[TAGS_MORE];
	uint32_t tags[TAGS_MORE];
	size_t refused; /* add_n's refusals */
	uint64_t refs[LIST_MORE], keys[LIST_MORE], hs[LIST_MORE], positions[BASE];
	size_t n_positions;
	uint64_t remap[BASE], key_sum; /* consolidate's remap (ref_bound <= BASE), erased keys */
	size_t bound;                  /* ref_bound when consolidate started */
} la;

static void list_args(const struct model *m, const uint64_t *victims, size_t n_victims)
{
	for (size_t i = 0; i < LIST_MORE; i++) {
		la.refs[i] = n_victims ? victims[i % n_victims] : 0;
		la.keys[i] = (i * 7919) % (2 * BASE);
	}
	for (size_t i = 0; i < TAGS_MORE; i++) {
		la.tag_ents[i] = n_victims ? victims[i % n_victims] : 0;
		la.tags[i] = (uint32_t)(i * 2654435761u);
	}
	la.n_positions = m->n / 2;
	for (size_t i = 0; i < la.n_positions; i++)
		la.positions[i] = (i * 31) % (m->n - i);
}

/* The DataComponent's arguments (containers/dc_contract.h): DC_SETS random sets (strings
 * and arrays among them, so the flat designs allocate blocks and every design grows),
 * made before the hook is armed; copy_n copies the victims. */
#define DC_SETS 64
static struct {
	struct dod_dc_set sets[DC_SETS];
	uint64_t hs[BASE];
} da;

static void dc_args(const struct model *m, uint64_t seed)
{
	for (size_t k = 0; k < DC_SETS;)
		k += model_dc_sets(m, &seed, da.sets + k, DC_SETS - k < 8 ? DC_SETS - k : 8, 0);
}

/* Runs a list operation (op >= OP_INSERT_AT) on c with la's arguments. */
static int run_list_op(const struct dod_ops *ops, void *c, int op, uint64_t next_key)
{
	switch (op) {
	case OP_INSERT_AT:
		return ops->list->insert_at_n(c, la.refs, LIST_MORE, DOD_LIST_AFTER, next_key, la.hs);
	case OP_INSERT_SORTED: return ops->list->insert_sorted_n(c, la.keys, LIST_MORE, la.hs);
	case OP_ERASE_AT:
		return ops->list->erase_at_positions_n(c, la.positions, la.n_positions, &la.key_sum);
	case OP_TAGS_ADD: return ops->tags->add_n(c, la.tag_ents, la.tags, TAGS_MORE, &la.refused);
	default:
		la.bound = ops->consolidate->ref_bound(c);
		assert_true(la.bound <= BASE);
		return ops->consolidate->consolidate(c, la.remap);
	}
}

/* Runs op on c (the model is left alone: it allocates, and the hook may be armed).
 * victims: the handles erase_n gets. */
static int run_op(const struct dod_ops *ops, void *c, int op, const uint64_t *victims,
                  size_t n_victims, uint64_t next_key)
{
	size_t swaps = 0;
	switch (op) {
	case OP_ERASE: return ops->erase_n(c, victims, n_victims);
	case OP_CLEAR: return ops->clear(c);
	case OP_RESET: return ops->reset(c);
	case OP_SHUFFLE: return ops->shuffle(c, 99);
	case OP_DEFRAG: return ops->defragment(c, 0, &swaps);
	case OP_DEFRAG_STEP: return ops->defragment(c, 3, &swaps);
	case OP_DC_SET: return ops->dc->set_n(c, da.sets, DC_SETS);
	case OP_DC_COPY: return ops->dc->copy_n(c, victims, n_victims, next_key, da.hs);
	default: return run_list_op(ops, c, op, next_key);
	}
}

/* What a successful op did, applied to the model. Returns 0 or -1 with why. */
static int apply_op(struct model *m, int op, const uint64_t *victims, size_t n_victims,
                    char *why, size_t len)
{
	switch (op) {
	case OP_ERASE: model_erased(m, victims, n_victims); break;
	case OP_CLEAR: model_cleared(m, MODEL_DIED_CLEAR); break;
	case OP_RESET: model_cleared(m, MODEL_DIED_RESET); break;
	case OP_DEFRAG: m->sorted = true; break;
	case OP_INSERT_AT:
		return model_inserted_at(m, la.refs, LIST_MORE, DOD_LIST_AFTER, la.hs, why, len);
	case OP_INSERT_SORTED: return model_inserted_sorted(m, la.keys, LIST_MORE, la.hs, why, len);
	case OP_ERASE_AT:
		if (model_erased_at(m, la.positions, la.n_positions) != la.key_sum) {
			snprintf(why, len, "erase_at_positions_n: a key sum other than the model's");
			return -1;
		}
		break;
	case OP_CONSOLIDATE: return model_consolidated(m, la.remap, la.bound, why, len);
	case OP_TAGS_ADD:
		if (model_tags_added(m, la.tag_ents, la.tags, TAGS_MORE) != la.refused) {
			snprintf(why, len, "tags add_n: %zu refused, not the model's count", la.refused);
			return -1;
		}
		break;
	case OP_DC_SET: model_dc_applied(m, da.sets, DC_SETS); break;
	case OP_DC_COPY: return model_dc_copied(m, victims, n_victims, da.hs, why, len);
	default: break;
	}
	return 0;
}

/* The tags family: three tags on every live entity (one add_n), so the operations drop
 * tags too. */
static void fixture_tags(const struct dod_ops *ops, void *c, struct model *m)
{
	static uint64_t ents[3 * BASE];
	static uint32_t tags[3 * BASE];
	size_t k = 0, refused = SIZE_MAX;
	for (size_t i = 0; i < m->n; i++)
		for (uint32_t j = 0; j < 3; j++, k++) {
			ents[k] = m->live[i].handle;
			tags[k] = (uint32_t)(i * 3 + j);
		}
	assert_int_equal(ops->tags->add_n(c, ents, tags, k, &refused), DOD_OK);
	assert_int_equal(refused, model_tags_added(m, ents, tags, k));
}

/* A container with BASE items, every third erased (holes), shuffled when it can be;
 * m models it. Victims: every other live item. */
static void *fixture(const struct dod_ops *ops, struct model *m, uint64_t *victims,
                     size_t *n_victims)
{
	static uint64_t hs[BASE], gone[BASE];
	char why[256];
	void *c = NULL;
	if (model_init(m, ops, why, sizeof why) != 0)
		fail_msg("%s", why);
	assert_int_equal(ops->create(&c, ops->caps & DOD_CAP_FIXED_CAPACITY ? BASE : 8), DOD_OK);
	assert_int_equal(ops->insert_n(c, BASE, 0, hs), DOD_OK);
	assert_int_equal(model_inserted(m, BASE, hs, why, sizeof why), 0);
	size_t k = 0;
	for (size_t i = 0; ops->erase_n && i < BASE; i += 3)
		gone[k++] = hs[i];
	if (k) {
		assert_int_equal(ops->erase_n(c, gone, k), DOD_OK);
		model_erased(m, gone, k);
	}
	if (ops->shuffle)
		assert_int_equal(ops->shuffle(c, 7), DOD_OK);
	if (dod_exts(ops) & DOD_EXT_TAGS)
		fixture_tags(ops, c, m);
	*n_victims = 0;
	for (size_t i = 0; i < m->n; i += 2)
		victims[(*n_victims)++] = m->live[i].handle;
	list_args(m, victims, *n_victims);
	if (m->dc) { /* values to copy, then the batch a DC_SET applies */
		dc_args(m, 5);
		assert_int_equal(ops->dc->set_n(c, da.sets, DC_SETS), DOD_OK);
		model_dc_applied(m, da.sets, DC_SETS);
		dc_args(m, 6);
	}
	return c;
}

static size_t op_failures; /* DOD_ENOMEM seen from the operations after insert */

/* Every k-th allocation failing inside op: DOD_ENOMEM leaves the container as the model
 * says (unchanged, invariants hold), and op then succeeds. */
static void op_fails_cleanly(const struct dod_ops *ops, int op)
{
	static uint64_t victims[BASE];
	static struct model m;
	char why[512];
	for (long k = 1;; k++) {
		size_t n_victims;
		void *c = fixture(ops, &m, victims, &n_victims);
		if (model_compare(&m, c, why, sizeof why) != 0)
			fail_msg("%s/%zu: before %s: %s", ops->name, ops->elem_bytes, op_names[op], why);
		arm(k);
		int err = run_op(ops, c, op, victims, n_victims, m.next_key);
		long made = calls;
		arm(0);
		if (op == OP_CONSOLIDATE && made) /* it returns no error: it must not allocate */
			fail_msg("%s/%zu: consolidate allocated (%ld calls)", ops->name, ops->elem_bytes,
			         made);
		if (err == DOD_ENOMEM) {
			op_failures++;
			if (model_compare(&m, c, why, sizeof why) != 0)
				fail_msg("%s/%zu: %s failing at allocation %ld changed the container: %s",
				         ops->name, ops->elem_bytes, op_names[op], k, why);
			err = run_op(ops, c, op, victims, n_victims, m.next_key);
		}
		if (err != DOD_OK)
			fail_msg("%s/%zu: %s (allocation %ld failing, then again): %s", ops->name,
			         ops->elem_bytes, op_names[op], k, dod_strerror(err));
		if (apply_op(&m, op, victims, n_victims, why, sizeof why) != 0)
			fail_msg("%s/%zu: %s: %s", ops->name, ops->elem_bytes, op_names[op], why);
		if (model_compare(&m, c, why, sizeof why) != 0)
			fail_msg("%s/%zu: after %s: %s", ops->name, ops->elem_bytes, op_names[op], why);
		bool done = made < k; /* it never reached a k-th allocation: all points seen */
		ops->destroy(c);
		model_free(&m);
		if (done)
			break;
		assert_true(k < 100000);
	}
}

/* The family extensions' operations that return no error (model_run_exts with
 * MODEL_EXTS_NO_ALLOC: the particle kernels) must not allocate: run with every allocation
 * failing, they allocate nothing and do what the model says; type ids' create_typed
 * fails cleanly. The list operations and consolidate: op_fails_cleanly. */
static size_t exts_checked;
static void exts_allocate_nothing(const struct dod_ops *ops)
{
	static uint64_t victims[BASE];
	static struct model m;
	char why[512];
	size_t n_victims;
	void *c = fixture(ops, &m, victims, &n_victims);
	/* create_typed (type ids) reports DOD_ENOMEM, so it may allocate: the others are held
	 * to allocating nothing, and it to failing cleanly (the model must still match). */
	arm(1);
	int rc = model_run_exts(&m, c, MODEL_EXTS_NO_ALLOC, why, sizeof why);
	long made = calls;
	rc = rc ? rc : model_run_exts(&m, c, MODEL_EXTS_MAY_FAIL, why, sizeof why);
	arm(0);
	if (rc != 0)
		fail_msg("%s/%zu: %s", ops->name, ops->elem_bytes, why);
	if (made)
		fail_msg("%s/%zu: a family extension's operation allocated (%ld calls): it cannot "
		         "report DOD_ENOMEM", ops->name, ops->elem_bytes, made);
	if (model_compare(&m, c, why, sizeof why) != 0)
		fail_msg("%s/%zu: after its extensions' operations: %s", ops->name, ops->elem_bytes,
		         why);
	ops->destroy(c);
	model_free(&m);
	exts_checked++;
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
			for (int op = 0; op < N_OPS; op++)
				if (offers(ops, op))
					op_fails_cleanly(ops, op);
			if (dod_exts(ops))
				exts_allocate_nothing(ops);
			checked++;
		}
	assert_true(checked >= hb_n_containers);
	/* Some of them do allocate (peer_colony's erase_n, peer_stb_arr's index rebuild):
	 * the hook must have made them fail at least once, or it tests nothing. */
	fprintf(stderr, "alloc_fail: %zu failed erase/clear/reset/shuffle/defragment/list calls, "
	        "each unchanged and then successful\n", op_failures);
	assert_true(op_failures > 0);
	assert_true(exts_checked > 0); /* the particle layouts have an extension */
}

/* handle_map_sortdefrag allocates its plan (and the sort's scratch) in the first
 * defragment call after a change: with the first or the second allocation of that call
 * failing, whole or with a budget, it returns DOD_ENOMEM, moves nothing (the same keys in
 * the same storage order, every handle on its item, swaps 0) and succeeds afterwards. */
static void test_sortdefrag_plan_enomem_changes_nothing(void **state)
{
	(void)state;
	if (!HOOKED)
		skip();
	enum { N = 500 };
	static uint64_t hs[N], before[N], after[N];
	const size_t sizes[] = {8, 256}, budgets[] = {0, 3};
	for (size_t s = 0; s < 2; s++)
		for (size_t b = 0; b < 2; b++)
			for (long k = 1; k <= 2; k++) {
				const struct dod_ops *ops = hb_find_ops("handle_map_sortdefrag", sizes[s]);
				assert_non_null(ops);
				void *c;
				char why[256];
				assert_int_equal(ops->create(&c, N), DOD_OK);
				assert_int_equal(ops->insert_n(c, N, 0, hs), DOD_OK);
				assert_int_equal(ops->shuffle(c, 9), DOD_OK);
				ops->dump_keys(c, before);
				size_t swaps = SIZE_MAX;
				arm(k);
				int err = ops->defragment(c, budgets[b], &swaps);
				arm(0);
				assert_int_equal(err, DOD_ENOMEM);
				assert_int_equal(swaps, 0);
				ops->dump_keys(c, after);
				assert_memory_equal(before, after, sizeof before);
				assert_int_equal(ops->check(c, why, sizeof why), DOD_OK);
				for (size_t i = 0; i < N; i++) {
					uint64_t key;
					assert_int_equal(ops->lookup_sum(c, &hs[i], 1, &key), DOD_OK);
					assert_int_equal(key, i);
				}
				assert_int_equal(ops->defragment(c, budgets[b], &swaps), DOD_OK);
				assert_true(swaps > 0);
				ops->destroy(c);
			}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_every_container_survives_allocation_failure),
		cmocka_unit_test(test_sortdefrag_plan_enomem_changes_nothing),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
