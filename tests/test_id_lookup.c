/* test_id_lookup.c - cmocka tests of the ID-lookup family's own promises (containers/
 * id_lookup/), beyond the conformance model every container meets:
 *   packed_array_handles   errors of stale, repeated and out-of-range ids; erase_n all or
 *                          nothing; FIFO reuse (the oldest free entry first, its
 *                          generation + 1); clear keeps old ids rejected, reset forgets
 *   slot_map_handles       the same for keys, LIFO reuse (the last freed slot first, the
 *                          generation bumped at erase), and a key never issued that names
 *                          a free slot with its generation rejected (the free bit P0661's
 *                          find() lacks)
 *   checks_catch_corruption  each design's check names a broken free list, a live count
 *                          that disagrees and an item its entry does not point back at
 *   bytes_per_item         footprint at a power-of-two n: item + 24 (packed_array: id in
 *                          the object, 16-byte entry), item + 12 (slot_map: 8-byte slot,
 *                          4-byte reverse entry), the opening comments' costs
 *   slotmap_inline_batches slotmap_inline (8 and 16 B): ids name line and place (K slots a
 *                          line); a batch spanning several of lookup_sum's format-checked
 *                          blocks sums right, and fails with its first bad handle's error
 *                          whichever path finds it (a stale one through the mismatch
 *                          flag, a malformed one through a later block's format check);
 *                          forged places, lines and generations rejected without a read
 *                          past the store (ASan+UBSan build); 64 / K bytes a slot
 */
#define ELEM_BYTES 8
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "hb.h"
#include "cmocka_helpers.h"
#include "id_lookup/packed_array.h"
#include "id_lookup/slot_map.h"

static uint64_t sum_of(const struct dod_ops *ops, void *c, const uint64_t *hs, size_t n)
{
	uint64_t sum = 0;
	assert_int_equal(ops->lookup_sum(c, hs, n, &sum), DOD_OK);
	return sum;
}

/* Errors shared by both designs on four items with hs[1] erased. */
static void common_errors(const struct dod_ops *ops, void *c, const uint64_t *hs)
{
	uint64_t sum;
	assert_int_equal(ops->lookup_sum(c, &hs[1], 1, &sum), DOD_ESTALE);
	tc_erase_fails(ops, c, (uint64_t[]){hs[0], hs[2], hs[0]}, 3, DOD_EFREE);
	tc_erase_fails(ops, c, (uint64_t[]){hs[0], hs[1]}, 2, DOD_ESTALE);
	tc_erase_fails(ops, c, (uint64_t[]){hs[3], 100}, 2, DOD_ERANGE);
	assert_int_equal(ops->count_valid(c, hs, 4), 3);
	assert_int_equal(sum_of(ops, c, (uint64_t[]){hs[0], hs[2], hs[3]}, 3), 0 + 2 + 3);
}

static void test_packed_array_handles(void **state)
{
	(void)state;
	const struct dod_ops *ops = tc_find("packed_array", 8);
	void *c;
	uint64_t hs[4], nh[2];
	assert_int_equal(ops->create(&c, 4), DOD_OK);
	assert_int_equal(ops->insert_n(c, 4, 0, hs), DOD_OK);
	for (uint32_t i = 0; i < 4; i++) /* a new entry's first id: generation 1 */
		assert_true(hs[i] == ((uint64_t)1 << 32 | i));
	assert_int_equal(ops->erase_n(c, &hs[1], 1), DOD_OK);
	common_errors(ops, c, hs);
	/* FIFO: hs[1]'s entry was freed first, so it is reused first, one generation on. */
	assert_int_equal(ops->erase_n(c, &hs[2], 1), DOD_OK);
	assert_int_equal(ops->insert_n(c, 2, 10, nh), DOD_OK);
	assert_true(nh[0] == hs[1] + PA_GEN_ADD && nh[1] == hs[2] + PA_GEN_ADD);
	assert_int_equal(ops->count_valid(c, hs + 1, 2), 0);
	/* clear: every old id rejected, also once its entry holds a new item. */
	assert_int_equal(ops->clear(c), DOD_OK);
	tc_check_ok(ops, c);
	assert_int_equal(ops->insert_n(c, 4, 20, NULL), DOD_OK);
	assert_int_equal(ops->count_valid(c, hs, 4) + ops->count_valid(c, nh, 2), 0);
	/* reset: generations restart, the first id of slot 0 matches again. */
	assert_int_equal(ops->reset(c), DOD_OK);
	assert_int_equal(ops->insert_n(c, 1, 30, nh), DOD_OK);
	assert_true(nh[0] == hs[0]);
	tc_check_ok(ops, c);
	ops->destroy(c);
}

static void test_slot_map_handles(void **state)
{
	(void)state;
	const struct dod_ops *ops = tc_find("slot_map", 8);
	void *c;
	uint64_t hs[4], nh[2], sum;
	assert_int_equal(ops->create(&c, 4), DOD_OK);
	assert_int_equal(ops->insert_n(c, 4, 0, hs), DOD_OK);
	for (uint32_t i = 0; i < 4; i++) /* a new slot's generation: 0 */
		assert_true(hs[i] == i);
	assert_int_equal(ops->erase_n(c, &hs[1], 1), DOD_OK);
	common_errors(ops, c, hs);
	/* A key never issued: hs[1]'s slot with the generation its erase gave it. */
	uint64_t forged = sm_key(1, 1);
	assert_int_equal(ops->lookup_sum(c, &forged, 1, &sum), DOD_EFREE);
	assert_int_equal(ops->count_valid(c, &forged, 1), 0);
	tc_erase_fails(ops, c, &forged, 1, DOD_EFREE);
	/* LIFO: hs[2]'s slot was freed last, so it is reused first, generation bumped. */
	assert_int_equal(ops->erase_n(c, &hs[2], 1), DOD_OK);
	assert_int_equal(ops->insert_n(c, 2, 10, nh), DOD_OK);
	assert_true(nh[0] == sm_key(2, 1) && nh[1] == sm_key(1, 1));
	assert_int_equal(sum_of(ops, c, nh, 2), 21);
	/* clear: every old key stale, also once its slot holds a new value. */
	assert_int_equal(ops->clear(c), DOD_OK);
	tc_check_ok(ops, c);
	assert_int_equal(ops->insert_n(c, 4, 20, NULL), DOD_OK);
	assert_int_equal(ops->count_valid(c, hs, 4) + ops->count_valid(c, nh, 2), 0);
	/* reset (P0661's clear): generations restart, slot 0's first key matches again. */
	assert_int_equal(ops->reset(c), DOD_OK);
	assert_int_equal(ops->insert_n(c, 1, 30, nh), DOD_OK);
	assert_true(nh[0] == hs[0]);
	tc_check_ok(ops, c);
	ops->destroy(c);
}

/* Corrupts one thing, expects check to name it (want: a word of the reason), restores. */
#define EXPECT_CAUGHT(ops, c, lvalue, bad, want)                                         \
	do {                                                                                 \
		char why_[256];                                                                  \
		__typeof__(lvalue) saved_ = (lvalue);                                            \
		(lvalue) = (bad);                                                                \
		assert_int_not_equal((ops)->check((c), why_, sizeof why_), DOD_OK);              \
		if (!strstr(why_, (want)))                                                       \
			fail_msg("%s: check said \"%s\", want \"%s\"", (ops)->name, why_, (want));  \
		(lvalue) = saved_;                                                               \
		tc_check_ok((ops), (c));                                                            \
	} while (0)

/* Six items, three erased (slots 1, 3, 4 free), ready to be corrupted. */
static void *six_with_holes(const struct dod_ops *ops)
{
	void *c;
	uint64_t hs[6];
	assert_int_equal(ops->create(&c, 8), DOD_OK);
	assert_int_equal(ops->insert_n(c, 6, 0, hs), DOD_OK);
	assert_int_equal(ops->erase_n(c, (uint64_t[]){hs[1], hs[3], hs[4]}, 3), DOD_OK);
	tc_check_ok(ops, c);
	return c;
}

static void test_checks_catch_corruption(void **state)
{
	(void)state;
	const struct dod_ops *pa_ops = tc_find("packed_array", 8);
	struct pa_8 *p = six_with_holes(pa_ops);
	EXPECT_CAUGHT(pa_ops, p, p->ix[p->enq].next, p->deq, "cycle");
	EXPECT_CAUGHT(pa_ops, p, p->deq, p->ix[p->deq].next, "free queue holds");
	EXPECT_CAUGHT(pa_ops, p, p->n, p->n - 1, "live entries");
	EXPECT_CAUGHT(pa_ops, p, p->objs[0].id, p->objs[1].id, "point back");
	EXPECT_CAUGHT(pa_ops, p, p->ix[0].id, p->ix[1].id, "names slot");
	pa_ops->destroy(p);

	const struct dod_ops *sm_ops = tc_find("slot_map", 8);
	struct sm_8 *s = six_with_holes(sm_ops);
	uint32_t second = sm_index(s->slots[s->next_free]) & ~SM_FREE;
	EXPECT_CAUGHT(sm_ops, s, s->slots[second], sm_key(SM_FREE | s->next_free, 0), "cycle");
	EXPECT_CAUGHT(sm_ops, s, s->next_free, second, "free list holds");
	EXPECT_CAUGHT(sm_ops, s, s->n, s->n - 1, "live slots");
	EXPECT_CAUGHT(sm_ops, s, s->reverse[0], s->reverse[1], "point back");
	sm_ops->destroy(s);
}

/* Footprint beyond the struct at n = 1024 (x2 growth from 16 ends exactly there). */
static void test_bytes_per_item(void **state)
{
	(void)state;
	const size_t sizes[] = {8, 16, 64, 256};
	enum { N = 1024 };
	for (size_t i = 0; i < 4; i++) {
		const struct dod_ops *pa = tc_find("packed_array", sizes[i]);
		const struct dod_ops *sm = tc_find("slot_map", sizes[i]);
		void *a, *b;
		assert_int_equal(pa->create(&a, 0), DOD_OK);
		assert_int_equal(sm->create(&b, 0), DOD_OK);
		assert_int_equal(pa->insert_n(a, N, 0, NULL), DOD_OK);
		assert_int_equal(sm->insert_n(b, N, 0, NULL), DOD_OK);
		size_t fa = pa->footprint_bytes(a) - N * (sizes[i] + 24);
		size_t fb = sm->footprint_bytes(b) - N * (sizes[i] + 12);
		assert_true(fa > 0 && fa < 128); /* the struct itself */
		assert_true(fb > 0 && fb < 128);
		pa->destroy(a);
		sm->destroy(b);
	}
}

/* lookup_sum of slotmap_inline's batch[0 .. n) must return err. */
static void sli_expect(const struct dod_ops *ops, void *c, const uint64_t *batch, size_t n,
                       int err)
{
	uint64_t sum = 0;
	assert_int_equal(ops->lookup_sum(c, batch, n, &sum), err);
}

/* One size class of test_slotmap_inline_batches: N items (lines of K), item 700 erased. */
static void sli_batches(size_t eb, uint32_t k_slots, uint32_t place_bits)
{
	enum { N = 1000 };
	const struct dod_ops *ops = tc_find("slotmap_inline", eb);
	void *c;
	static uint64_t hs[N], batch[N];
	assert_int_equal(ops->create(&c, 0), DOD_OK);
	assert_int_equal(ops->insert_n(c, N, 0, hs), DOD_OK);
	for (uint32_t i = 0; i < N; i++) /* generation 1, line i / K, place i % K */
		assert_true(hs[i] == ((uint64_t)1 << 32 | (i / k_slots) << place_bits | i % k_slots));
	uint64_t want = (uint64_t)N * (N - 1) / 2;
	assert_int_equal(sum_of(ops, c, hs, N), want);
	assert_int_equal(ops->erase_n(c, &hs[700], 1), DOD_OK);
	sli_expect(ops, c, hs, N, DOD_ESTALE); /* block 3 of 4: the mismatch flag's path */
	memcpy(batch, hs, sizeof hs);
	batch[700] = hs[699];
	assert_int_equal(sum_of(ops, c, batch, N), want - 700 + 699);
	const uint64_t lines = (N + k_slots - 1) / k_slots, gen1 = (uint64_t)1 << 32;
	const uint64_t forged[][2] = {
		{gen1 | k_slots, DOD_ERANGE},                          /* line 0, place K */
		{gen1 | ((1u << place_bits) - 1), DOD_ERANGE},         /* the last place bits */
		{gen1 | lines << place_bits, DOD_ERANGE},              /* the line after the last */
		{gen1 | UINT32_MAX, DOD_ERANGE},                       /* the free list's end */
		{hs[5] & UINT32_MAX, DOD_EFREE},                       /* generation 0 */
		{hs[5] + gen1, DOD_EFREE},                             /* generation 2 */
		{hs[5] + 2 * gen1, DOD_ESTALE},                        /* generation 3 */
		{gen1 | (uint64_t)(N / k_slots) << place_bits | (N % k_slots), DOD_ERANGE},
	};
	for (size_t f = 0; f < sizeof forged / sizeof forged[0]; f++) {
		batch[600] = forged[f][0];
		sli_expect(ops, c, batch, N, (int)forged[f][1]);
		batch[300] = hs[700]; /* a stale handle earlier: its error wins */
		sli_expect(ops, c, batch, N, DOD_ESTALE);
		batch[300] = hs[300];
		batch[600] = hs[600];
	}
	batch[300] = gen1 | lines << place_bits; /* malformed in block 2, stale in block 3 */
	batch[700] = hs[700];
	sli_expect(ops, c, batch, N, DOD_ERANGE);
	assert_int_equal(ops->count_valid(c, hs, N), N - 1);
	ops->destroy(c);
}

static void test_slotmap_inline_batches(void **state)
{
	(void)state;
	sli_batches(16, 3, 2);
	sli_batches(8, 5, 3);
	/* 64 / K bytes a slot: 3 * 2^12 items of 16 B fill 2^12 lines exactly. */
	const struct dod_ops *ops = tc_find("slotmap_inline", 16);
	void *c;
	assert_int_equal(ops->create(&c, 3 << 12), DOD_OK);
	assert_int_equal(ops->insert_n(c, 3 << 12, 0, NULL), DOD_OK);
	size_t extra = ops->footprint_bytes(c) - ((size_t)64 << 12);
	assert_true(extra > 0 && extra < 128); /* the struct itself */
	ops->destroy(c);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_packed_array_handles),
		cmocka_unit_test(test_slot_map_handles),
		cmocka_unit_test(test_checks_catch_corruption),
		cmocka_unit_test(test_bytes_per_item),
		cmocka_unit_test(test_slotmap_inline_batches),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
