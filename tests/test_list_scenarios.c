/* test_list_scenarios.c - the list scenarios' verification can fail: each runs on a real
 * list container (the first registered one with the extension it needs, from the
 * registry) whose one operation is wrapped to do something subtly wrong, and must then
 * report verified = false with a reason; the same scenario on the unwrapped container
 * verifies. Also scn_ranks (rank and select) against a plain array. Without a list
 * container registered the container tests are skipped. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "hb.h"
#include "scenario.h"
#include "list_model.h"

/* The first variant with every extension of exts and, with stable, stable references. */
static const struct dod_ops *find_list(unsigned exts, bool stable)
{
	for (size_t i = 0; i < hb_n_containers * HB_N_SIZES; i++) {
		const struct dod_ops *ops = hb_containers[i / HB_N_SIZES].ops[i % HB_N_SIZES];
		if (ops && (dod_exts(ops) & exts) == exts &&
		    (!stable || (ops->caps & DOD_CAP_STABLE_HANDLES)))
			return ops;
	}
	return NULL;
}

/* Runs scenario name on ops at n = 1000 (holes: ratio), returning its result. */
static struct scn_result run_on(const char *name, const struct dod_ops *ops, double ratio,
                                const char *state)
{
	const struct scn_scenario *s = scn_find(name);
	assert_non_null(s);
	struct scn_params p = {.n = 1000, .seed = 3, .hole_ratio = ratio,
	                       .hole_pattern = ratio > 0 ? SCN_HOLES_RANDOM : SCN_HOLES_NONE};
	assert_int_equal(hb_params_set(&p, "axis_list_state", state), 0);
	assert_null(scn_cannot_run(s, ops, &p));
	struct hb_region r = {0};
	struct scn_result res = {.swaps = -1};
	assert_int_equal(s->run(ops, &p, &r, &res), SCN_RAN);
	hb_region_release(&r);
	return res;
}

/* Asserts that name verifies on real and fails on broken with a reason containing why. */
static void fails_only_broken(const char *name, const struct dod_ops *real,
                              const struct dod_ops *broken, double ratio,
                              const char *state, const char *why)
{
	struct scn_result ok = run_on(name, real, ratio, state);
	if (!ok.verified)
		fail_msg("%s/%s: %s", name, real->name, ok.why);
	struct scn_result bad = run_on(name, broken, ratio, state);
	assert_false(bad.verified);
	if (!strstr(bad.why, why))
		fail_msg("%s: the reason '%s' does not say '%s'", name, bad.why, why);
}

static const struct dod_ops *real;
static struct dod_list_ops broken_list;
static struct dod_consolidate_ops broken_consolidate;

/* Inserts after where asked before and before where asked after. */
static int flipped_insert_at_n(void *c, const uint64_t *refs, size_t n, int where,
                               uint64_t first_key, uint64_t *refs_out)
{
	return real->list->insert_at_n(c, refs, n, where == DOD_LIST_BEFORE ? DOD_LIST_AFTER
	                                                                    : DOD_LIST_BEFORE,
	                               first_key, refs_out);
}

static void test_a_misplaced_insertion_fails(void **state)
{
	(void)state;
	if (!(real = find_list(DOD_EXT_LIST, false)))
		skip();
	struct dod_ops broken = *real;
	broken_list = *real->list;
	broken_list.insert_at_n = flipped_insert_at_n;
	broken.list = &broken_list;
	fails_only_broken("list_insert_middle", real, &broken, 0, "as_is", "sequence");
	fails_only_broken("list_iterate", real, &broken, 0.5, "as_is", "sequence");
}

/* Sorted insertion of all but the last key, which goes to the front (a reference is
 * needed: stable references only; misplaced unless it is the least key, which seed 3 does
 * not draw). */
static int misplacing_insert_sorted_n(void *c, const uint64_t *keys, size_t n,
                                      uint64_t *refs_out)
{
	uint64_t *refs = malloc(n * sizeof *refs);
	assert_non_null(refs);
	int err = real->list->insert_sorted_n(c, keys, n - 1, refs);
	size_t least = 0; /* the front item: the least key's */
	for (size_t i = 1; i + 1 < n; i++)
		least = keys[i] < keys[least] ? i : least;
	uint64_t front = refs[least];
	if (!err)
		err = real->list->insert_at_n(c, &front, 1, DOD_LIST_BEFORE, keys[n - 1], refs);
	free(refs);
	(void)refs_out;
	return err;
}

static void test_an_unsorted_sequence_fails_sorted_insert(void **state)
{
	(void)state;
	if (!(real = find_list(DOD_EXT_LIST, true)))
		skip();
	struct dod_ops broken = *real;
	broken_list = *real->list;
	broken_list.insert_sorted_n = misplacing_insert_sorted_n;
	broken.list = &broken_list;
	fails_only_broken("sorted_insert", real, &broken, 0, "as_is", "removal calls");
}

/* The real consolidate, with the remap entries of two live items swapped. */
static int swapping_consolidate(void *c, uint64_t *remap)
{
	size_t bound = real->consolidate->ref_bound(c);
	int err = real->consolidate->consolidate(c, remap);
	size_t a = bound, b = bound;
	for (size_t i = 0; i < bound && b == bound; i++)
		if (remap[i] != DOD_NO_REF)
			*(a == bound ? &a : &b) = i;
	if (b < bound) {
		uint64_t t = remap[a];
		remap[a] = remap[b], remap[b] = t;
	}
	return err;
}

static void test_a_wrong_remap_fails(void **state)
{
	(void)state;
	if (!(real = find_list(DOD_EXT_CONSOLIDATE, true)))
		skip();
	struct dod_ops broken = *real;
	broken_consolidate = *real->consolidate;
	broken_consolidate.consolidate = swapping_consolidate;
	broken.consolidate = &broken_consolidate;
	fails_only_broken("consolidate", real, &broken, 0.5, "as_is", "remap");
	fails_only_broken("list_iterate", real, &broken, 0.5, "consolidated", "remap");
}

/* Rank and select agree with a plain array of presence flags through removals and
 * re-insertions. */
static void test_ranks(void **state)
{
	(void)state;
	enum { N = 1000 };
	static unsigned char present[N];
	struct scn_ranks r;
	assert_int_equal(scn_ranks_init(&r, N, true), DOD_OK);
	memset(present, 1, N);
	uint64_t rng = 9;
	for (int step = 0; step < 3000; step++) {
		size_t i = (size_t)dod_rng_below(&rng, N);
		scn_ranks_add(&r, i, present[i] ? -1 : 1);
		present[i] ^= 1;
		size_t q = (size_t)dod_rng_below(&rng, N + 1), before = 0;
		for (size_t j = 0; j < q; j++)
			before += present[j];
		assert_int_equal(scn_ranks_before(&r, q), before);
		if (before)
			for (size_t j = 0, k = 0; j < N; j++)
				if (present[j] && k++ == before - 1)
					assert_int_equal(scn_ranks_select(&r, before - 1), j);
	}
	scn_ranks_free(&r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_a_misplaced_insertion_fails),
		cmocka_unit_test(test_an_unsorted_sequence_fails_sorted_insert),
		cmocka_unit_test(test_a_wrong_remap_fails),
		cmocka_unit_test(test_ranks),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
