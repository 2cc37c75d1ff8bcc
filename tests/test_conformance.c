/* test_conformance.c - drives every registered container variant (hb_containers x size
 * classes, from containers/variants.tsv) through the same operation sequences against a
 * simple model: a list of the handles and keys it holds. Steps: insert, erase_n (a
 * random subset; and batches that must fail whole: a repeated, an erased, a foreign or an
 * out-of-range handle), clear, reset, shuffle + resumable defragment. After each step:
 * size, key sum by iteration and by handle, and the validity of erased and old handles
 * must match what the container's capability flags promise. Then every registered
 * scenario runs on every container, with and without holes, and must verify. Containers
 * and scenarios come from the registries: a new one is tested without an edit here. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "dod_common.h"
#include "hb.h"
#include "scenario.h"

#define MAX_LIVE 5000

struct model {
	uint64_t handles[MAX_LIVE], keys[MAX_LIVE];
	size_t n;
	uint64_t next_key;
};

static void check_against_model(const struct dod_ops *ops, void *c, const struct model *m)
{
	uint64_t sum = 0;
	for (size_t i = 0; i < m->n; i++)
		sum += m->keys[i];
	assert_int_equal(ops->size(c), m->n);
	assert_int_equal(ops->iterate_sum(c), sum);
	if (ops->dump_keys) {
		uint64_t *keys = calloc(m->n + 1, sizeof *keys), dumped = 0;
		ops->dump_keys(c, keys);
		for (size_t i = 0; i < m->n; i++)
			dumped += keys[i];
		assert_int_equal(dumped, sum);
		free(keys);
	}
	if (ops->caps & DOD_CAP_HANDLES) {
		uint64_t by_handle = ~(uint64_t)0;
		assert_int_equal(ops->lookup_sum(c, m->handles, m->n, &by_handle), DOD_OK);
		assert_int_equal(by_handle, sum);
		assert_int_equal(ops->count_valid(c, m->handles, m->n), m->n);
	}
}

static void insert_some(const struct dod_ops *ops, void *c, struct model *m, size_t k)
{
	uint64_t *hs = (ops->caps & DOD_CAP_HANDLES) ? &m->handles[m->n] : NULL;
	assert_int_equal(ops->insert_n(c, k, m->next_key, hs), DOD_OK);
	for (size_t i = 0; i < k; i++)
		m->keys[m->n + i] = m->next_key + i;
	m->n += k;
	m->next_key += k;
}

/* Erases a random subset of the model's items with one erase_n, then checks that the
 * erased handles are rejected; before that, batches that must fail leave everything as
 * it was (checked against the model by the caller's check_against_model). */
static void erase_some(const struct dod_ops *ops, void *c, struct model *m, uint64_t *rng)
{
	static uint64_t victims[MAX_LIVE + 1];
	size_t k = m->n ? (size_t)dod_rng_below(rng, m->n / 2 + 1) : 0;
	/* Choose k distinct model positions: a seeded shuffle of the model, take the tail. */
	for (size_t i = m->n; i > 1; i--) {
		size_t j = (size_t)dod_rng_below(rng, i);
		uint64_t th = m->handles[i - 1], tk = m->keys[i - 1];
		m->handles[i - 1] = m->handles[j], m->keys[i - 1] = m->keys[j];
		m->handles[j] = th, m->keys[j] = tk;
	}
	for (size_t i = 0; i < k; i++)
		victims[i] = m->handles[m->n - k + i];
	if (k > 0) {
		/* A repeated handle at the end: the whole batch fails, nothing is erased. */
		victims[k] = victims[0];
		int err = ops->erase_n(c, victims, k + 1);
		assert_true(err != DOD_OK);
		check_against_model(ops, c, m);
	}
	assert_int_equal(ops->erase_n(c, victims, k), DOD_OK);
	m->n -= k;
	if (k > 0) {
		assert_int_equal(ops->count_valid(c, victims, k), 0);
		/* An erased handle in a batch fails it whole too. */
		if (m->n > 0) {
			uint64_t mixed[2] = {m->handles[0], victims[0]};
			assert_true(ops->erase_n(c, mixed, 2) != DOD_OK);
		}
	}
	/* A handle that was never issued: foreign or out of range, never accepted. */
	uint64_t bogus = UINT64_C(0x7FFF7FFF7FFFFFFE);
	assert_true(ops->erase_n(c, &bogus, 1) != DOD_OK);
	assert_true(ops->erase_n(c, NULL, 0) == DOD_OK);
}

static void drive(const struct dod_ops *ops, uint64_t seed)
{
	static struct model m, old;
	void *c = NULL;
	uint64_t rng = seed;
	memset(&m, 0, sizeof m);
	/* A small reserve, so growth past it is exercised too; a fixed-capacity container
	 * gets room for the model, and must refuse one item more with DOD_EFULL, cleanly. */
	bool fixed = ops->caps & DOD_CAP_FIXED_CAPACITY;
	assert_int_equal(ops->create(&c, fixed ? MAX_LIVE : 16), DOD_OK);
	if (fixed) {
		void *small;
		uint64_t h[2];
		assert_int_equal(ops->create(&small, 1), DOD_OK);
		assert_int_equal(ops->insert_n(small, 1, 7, h), DOD_OK);
		assert_int_equal(ops->insert_n(small, 1, 8, h + 1), DOD_EFULL);
		assert_int_equal(ops->size(small), 1);
		assert_int_equal(ops->iterate_sum(small), 7);
		if (ops->erase_n) { /* a freed slot can be used again */
			assert_int_equal(ops->erase_n(small, h, 1), DOD_OK);
			assert_int_equal(ops->insert_n(small, 1, 9, h), DOD_OK);
			assert_int_equal(ops->iterate_sum(small), 9);
		}
		ops->destroy(small);
	}
	check_against_model(ops, c, &m);
	for (int step = 0; step < 400; step++) {
		unsigned op = (unsigned)dod_rng_below(&rng, 20);
		if (op < 11 && m.n + 64 <= MAX_LIVE) {
			insert_some(ops, c, &m, (size_t)dod_rng_below(&rng, 64));
		} else if (op < 14 && ops->erase_n) {
			erase_some(ops, c, &m, &rng);
		} else if (op < 17 && ops->clear) {
			old = m;
			assert_int_equal(ops->clear(c), DOD_OK);
			m.n = 0;
			assert_int_equal(ops->size(c), 0);
			if (ops->caps & DOD_CAP_DETECTS_STALE)
				assert_int_equal(ops->count_valid(c, old.handles, old.n), 0);
		} else if (op < 18 && ops->reset) {
			assert_int_equal(ops->reset(c), DOD_OK);
			m.n = 0;
		} else if (ops->shuffle && ops->defragment && m.n > 1) {
			assert_int_equal(ops->shuffle(c, rng), DOD_OK);
			size_t swaps = 0, total = 0;
			do {
				assert_int_equal(ops->defragment(c, 5, &swaps), DOD_OK);
				assert_true(swaps <= 5);
				total += swaps;
				check_against_model(ops, c, &m); /* handles hold while in progress */
			} while (swaps == 5);
			uint64_t *keys = calloc(m.n, sizeof *keys);
			ops->dump_keys(c, keys);
			for (size_t i = 1; i < m.n; i++)
				assert_true(keys[i - 1] <= keys[i]);
			free(keys);
			assert_int_equal(ops->defragment(c, 0, &swaps), DOD_OK);
			assert_int_equal(swaps, 0);
		}
		check_against_model(ops, c, &m);
	}
	ops->destroy(c);
}

static void test_registry_entries(void **state)
{
	(void)state;
	assert_true(hb_n_containers >= 4);
	for (size_t i = 0; i < hb_n_containers; i++)
		for (size_t s = 0; s < HB_N_SIZES; s++) {
			const struct dod_ops *ops = hb_containers[i].ops[s];
			if (!ops)
				continue; /* not built at this size class (variants.tsv) */
			for (size_t j = 0; j < i; j++)
				assert_string_not_equal(hb_containers[j].name, hb_containers[i].name);
			assert_int_equal(ops->version, DOD_OPS_VERSION);
			assert_non_null(ops->family);
			assert_non_null(ops->removal);
			assert_non_null(ops->alloc);
			assert_non_null(ops->layout);
			assert_non_null(ops->source);
			if (ops->erase_n)
				assert_true(ops->caps & DOD_CAP_HANDLES);
			assert_string_equal(ops->name, hb_containers[i].name);
			assert_int_equal(ops->elem_bytes, hb_elem_sizes[s]);
			assert_ptr_equal(hb_find_ops(ops->name, ops->elem_bytes), ops);
			assert_non_null(ops->create);
			assert_non_null(ops->destroy);
			assert_non_null(ops->insert_n);
			assert_non_null(ops->iterate_sum);
			assert_non_null(ops->size);
			assert_non_null(ops->footprint_bytes);
			if (ops->caps & DOD_CAP_HANDLES) {
				assert_non_null(ops->lookup_sum);
				assert_non_null(ops->count_valid);
			}
		}
	assert_null(hb_find_ops("no_such_container", 8));
	assert_null(hb_find_ops("handle_map", 32));
}

static void test_every_container_against_model(void **state)
{
	(void)state;
	for (size_t i = 0; i < hb_n_containers; i++)
		for (size_t s = 0; s < HB_N_SIZES; s++)
			if (hb_containers[i].ops[s])
				drive(hb_containers[i].ops[s], 1000 + i * 10 + s);
}

/* Footprint grows with content and is at least the payload bytes. */
static void test_footprint(void **state)
{
	(void)state;
	for (size_t i = 0; i < hb_n_containers; i++) {
		const struct dod_ops *ops = hb_find_ops(hb_containers[i].name, 64);
		if (!ops)
			continue;
		void *c;
		assert_int_equal(ops->create(&c, 1000), DOD_OK);
		assert_int_equal(ops->insert_n(c, 1000, 0, NULL), DOD_OK);
		assert_true(ops->footprint_bytes(c) >= 1000 * ops->elem_bytes);
		ops->destroy(c);
	}
}

/* Each scenario's run() verifies itself; a small n through every container, every order
 * and every hole pattern checks that the verification passes for correct containers, that
 * ops is reported and that skips are explained. */
static void test_scenarios_verify_small(void **state)
{
	(void)state;
	const struct scn_scenario *const *all;
	size_t n_scn = scn_list(&all);
	assert_true(n_scn >= 8);
	size_t ran = 0;
	for (size_t k = 0; k < n_scn; k++)
		for (size_t i = 0; i < hb_n_containers * HB_N_SIZES; i++)
			for (int order = SCN_SEQ; order <= SCN_RANDOM; order++)
				for (int pattern = SCN_HOLES_NONE; pattern < SCN_N_HOLE_PATTERNS; pattern++) {
					const struct dod_ops *ops = hb_containers[i / HB_N_SIZES].ops[i % HB_N_SIZES];
					const struct scn_scenario *s = all[k];
					struct scn_params p = {.n = 777, .order = order, .seed = 42,
					                       .hole_pattern = pattern,
					                       .hole_ratio = pattern ? 0.3 : 0};
					if (!ops || (!s->uses_holes && pattern) || (!s->uses_order && order))
						continue;
					const char *why = scn_cannot_run(s, ops, &p);
					if (why) {
						assert_true(strlen(why) > 5);
						continue;
					}
					struct hb_region r = {0};
					struct scn_result res = {.swaps = -1};
					assert_int_equal(s->run(ops, &p, &r, &res), SCN_RAN);
					if (!res.verified)
						fail_msg("%s/%s/%s: %s", s->name, ops->name,
						         scn_hole_pattern_names[pattern], res.why);
					/* At most 2n (erase + insert); the particle kernels make up to 64
					 * passes over the live items (scenarios/kernels.c). */
					assert_true(res.ops >= 1 && res.ops <= 128 * p.n);
					if (pattern)
						assert_true(res.hole_ratio > 0.29 && res.hole_ratio < 0.31);
					if (s->records_samples)
						assert_int_equal(r.samples_n, res.ops);
					hb_region_release(&r);
					ran++;
				}
	/* Every scenario ran on at least one container. */
	for (size_t k = 0; k < n_scn; k++) {
		bool any = false;
		for (size_t i = 0; i < hb_n_containers * HB_N_SIZES && !any; i++) {
			const struct dod_ops *ops = hb_containers[i / HB_N_SIZES].ops[i % HB_N_SIZES];
			struct scn_params p = {.n = 10};
			any = ops && !scn_cannot_run(all[k], ops, &p);
		}
		if (!any)
			fail_msg("scenario %s runs on no registered container", all[k]->name);
	}
	assert_true(ran > n_scn);
}

/* The hole patterns erase round(r * n) distinct indices (at most n - 1), deterministically,
 * each pattern its own way. */
static void test_hole_patterns(void **state)
{
	(void)state;
	enum { N = 10000 };
	static unsigned char erased[N], again[N];
	static size_t order[N];
	for (int pat = SCN_HOLES_RANDOM; pat < SCN_N_HOLE_PATTERNS; pat++) {
		size_t m = scn_hole_indices(N, 0.25, pat, 7, erased, order);
		assert_int_equal(m, 2500);
		size_t count = 0, runs = 0;
		for (size_t i = 0; i < N; i++) {
			count += erased[i];
			runs += erased[i] && (i == 0 || !erased[i - 1]);
		}
		assert_int_equal(count, m);
		for (size_t j = 0; j < m; j++)
			assert_true(erased[order[j]]); /* the erase order lists the erased indices */
		assert_int_equal(scn_hole_indices(N, 0.25, pat, 7, again, NULL), m);
		assert_memory_equal(erased, again, N);
		if (pat == SCN_HOLES_OLDEST) {
			assert_int_equal(runs, 1);
			assert_true(erased[0] && erased[m - 1] && !erased[m]);
		} else if (pat == SCN_HOLES_CLUSTERED) {
			/* Mean run length 64 (merged runs only lengthen them): few, long runs. */
			assert_true(runs < m / 20);
		} else {
			/* Uniform: runs of about 1 / (1 - r) on average: many short ones. */
			assert_true(runs > m / 2);
		}
	}
	assert_int_equal(scn_hole_indices(N, 0, SCN_HOLES_RANDOM, 7, erased, NULL), 0);
	assert_int_equal(scn_hole_indices(4, 0.99, SCN_HOLES_RANDOM, 7, erased, NULL), 3);
	assert_int_equal(scn_hole_indices(1, 0.9, SCN_HOLES_CLUSTERED, 7, erased, NULL), 0);
}

/* A container that returns a wrong sum must fail verification: the checksums catch it. */
static const struct dod_ops *real;
static uint64_t off_by_one_sum(const void *c) { return real->iterate_sum(c) + 1; }
static int off_by_one_lookup(const void *c, const uint64_t *hs, size_t n, uint64_t *sum)
{
	int err = real->lookup_sum(c, hs, n, sum);
	*sum += 1;
	return err;
}

static void test_wrong_results_fail_verification(void **state)
{
	(void)state;
	real = hb_find_ops("handle_map", 8);
	struct dod_ops broken = *real;
	broken.iterate_sum = off_by_one_sum;
	broken.lookup_sum = off_by_one_lookup;
	const struct scn_scenario *checked[] = {scn_find("create"), scn_find("iterate"),
	                                        scn_find("lookup")};
	for (size_t i = 0; i < 3; i++) {
		assert_non_null(checked[i]);
		struct scn_params p = {.n = 100, .seed = 1};
		struct hb_region r = {0};
		struct scn_result res = {.swaps = -1};
		assert_int_equal(checked[i]->run(&broken, &p, &r, &res), SCN_RAN);
		assert_false(res.verified);
		assert_true(res.why[0] != '\0');
	}
}

/* A container that claims to detect stale handles but lets a stale one through (its
 * lookup skips the handles it cannot resolve instead of failing) gets every sum right,
 * so only the lookup scenario's stale check can catch it, and must. */
static int lenient_lookup(const void *c, const uint64_t *hs, size_t n, uint64_t *sum)
{
	uint64_t total = 0, one;
	for (size_t k = 0; k < n; k++)
		if (real->lookup_sum(c, &hs[k], 1, &one) == DOD_OK)
			total += one;
	*sum = total;
	return DOD_OK;
}

static void test_accepting_a_stale_handle_fails_verification(void **state)
{
	(void)state;
	size_t checked = 0;
	for (size_t i = 0; i < hb_n_containers; i++) {
		const struct dod_ops *ops = hb_containers[i].ops[0] ? hb_containers[i].ops[0]
		                                                    : hb_containers[i].ops[2];
		if (!ops || !(ops->caps & DOD_CAP_DETECTS_STALE) || !ops->erase_n)
			continue;
		real = ops;
		struct dod_ops broken = *ops;
		broken.lookup_sum = lenient_lookup;
		struct scn_params p = {.n = 100, .seed = 1, .hole_ratio = 0.3,
		                       .hole_pattern = SCN_HOLES_RANDOM};
		struct hb_region r = {0}, r2 = {0};
		struct scn_result res = {.swaps = -1}, bad = {.swaps = -1};
		assert_int_equal(scn_find("lookup")->run(ops, &p, &r, &res), SCN_RAN);
		assert_true(res.verified);
		assert_int_equal(scn_find("lookup")->run(&broken, &p, &r2, &bad), SCN_RAN);
		if (bad.verified)
			fail_msg("%s: a stale weak pointer was accepted unnoticed", ops->name);
		assert_non_null(strstr(bad.why, "stale"));
		checked++;
	}
	assert_true(checked >= 1);
}

static void test_key_sum(void **state)
{
	(void)state;
	assert_int_equal(scn_key_sum(0), 0);
	assert_int_equal(scn_key_sum(1), 0);
	assert_int_equal(scn_key_sum(4), 6);
	assert_int_equal(scn_key_sum(100000), 4999950000ull);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_registry_entries),
		cmocka_unit_test(test_every_container_against_model),
		cmocka_unit_test(test_footprint),
		cmocka_unit_test(test_scenarios_verify_small),
		cmocka_unit_test(test_hole_patterns),
		cmocka_unit_test(test_wrong_results_fail_verification),
		cmocka_unit_test(test_accepting_a_stale_handle_fails_verification),
		cmocka_unit_test(test_key_sum),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
