/* test_conformance.c - drives every registered container variant (hb_containers x size
 * classes) through the same operation sequences against a simple model: a list of the
 * handles and keys it inserted. After each step: size, key sum by iteration, key sum by
 * handle and the validity of old handles must match what the container's capability
 * flags promise. This is what lets a new container join the harness safely. */
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

static void drive(const struct dod_ops *ops, uint64_t seed)
{
	static struct model m, old;
	void *c = NULL;
	uint64_t rng = seed;
	memset(&m, 0, sizeof m);
	/* A small reserve, so growth past it is exercised too. */
	assert_int_equal(ops->create(&c, 16), DOD_OK);
	check_against_model(ops, c, &m);
	for (int step = 0; step < 400; step++) {
		unsigned op = (unsigned)dod_rng_below(&rng, 20);
		if (op < 14 && m.n + 64 <= MAX_LIVE) {
			insert_some(ops, c, &m, (size_t)dod_rng_below(&rng, 64));
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
			assert_non_null(ops);
			assert_int_equal(ops->version, DOD_OPS_VERSION);
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
			drive(hb_containers[i].ops[s], 1000 + i * 10 + s);
}

/* Footprint grows with content and is at least the payload bytes. */
static void test_footprint(void **state)
{
	(void)state;
	for (size_t i = 0; i < hb_n_containers; i++) {
		const struct dod_ops *ops = hb_containers[i].ops[2];
		void *c;
		assert_int_equal(ops->create(&c, 1000), DOD_OK);
		assert_int_equal(ops->insert_n(c, 1000, 0, NULL), DOD_OK);
		assert_true(ops->footprint_bytes(c) >= 1000 * ops->elem_bytes);
		ops->destroy(c);
	}
}

/* Each scenario's run() verifies itself; a small n through every container checks
 * that the verification passes for correct containers and that skips are explained. */
static void test_scenarios_verify_small(void **state)
{
	(void)state;
	for (size_t k = 0; k < scn_count; k++)
		for (size_t i = 0; i < hb_n_containers; i++)
			for (int order = SCN_SEQ; order <= SCN_RANDOM; order++) {
				const struct dod_ops *ops = hb_containers[i].ops[1];
				const struct scn_scenario *s = scn_all[k];
				if (s->cannot_run && s->cannot_run(ops)) {
					assert_true(strlen(s->cannot_run(ops)) > 5);
					continue;
				}
				struct scn_params p = {.n = 777, .order = order, .seed = 42};
				struct hb_region r;
				struct scn_result res = {.swaps = -1};
				assert_int_equal(s->run(ops, &p, &r, &res), SCN_RAN);
				if (!res.verified)
					fail_msg("%s/%s: %s", s->name, ops->name, res.why);
				assert_true(r.elapsed_ns > 0 || p.n < 1000);
			}
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
	const struct scn_scenario *checked[] = {&scn_create, &scn_iterate, &scn_lookup};
	for (size_t i = 0; i < 3; i++) {
		struct scn_params p = {.n = 100, .seed = 1};
		struct hb_region r;
		struct scn_result res = {.swaps = -1};
		assert_int_equal(checked[i]->run(&broken, &p, &r, &res), SCN_RAN);
		assert_false(res.verified);
		assert_true(res.why[0] != '\0');
	}
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
		cmocka_unit_test(test_wrong_results_fail_verification),
		cmocka_unit_test(test_key_sum),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
