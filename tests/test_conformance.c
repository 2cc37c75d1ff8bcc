/* test_conformance.c - drives every registered container variant (hb_containers x size
 * classes, from containers/variants.tsv) through the same operation sequences against
 * the reference model of tests/model.h (shared with the fuzzer, tests/fuzz/): the live
 * handles and keys in insertion order and the recent dead handles. Steps: insert,
 * erase_n (a random subset; and batches that must fail whole: a repeated, an erased, a
 * foreign or an out-of-range handle), clear, reset, shuffle + resumable defragment, and
 * the operations of the family extensions a variant has (model_run_exts). After
 * each step model_compare checks size, key sum by iteration, by dump_keys and by handle,
 * order (keeps_order, after defragment), the validity of dead handles (valid exactly when
 * equal to a live one; never re-issued soon for detects_stale) and the container's
 * invariant check (dod_ops.check); test_invariant_hooks names the containers without one
 * (peers only). Then every registered
 * scenario runs on every container, with and without holes, and must verify. Containers
 * and scenarios come from the registries: a new one is tested without an edit here. */
/* handle_map's layout at 8-byte elements, for test_checks_catch_corruption. */
#define ELEM_BYTES 8
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "dod_common.h"
#include "handle_map.h"
#include "hb.h"
#include "model.h"
#include "scenario.h"
#include "fill_holes.h"

#define MAX_LIVE 5000

/* Every comparison with the model (tests/model.c), which ends with the container's
 * invariant check (dod_ops.check). */
static void compare(const struct model *m, const void *c)
{
	char why[512];
	if (model_compare(m, c, why, sizeof why) != 0)
		fail_msg("%s/%zu: %s", m->ops->name, m->ops->elem_bytes, why);
}

static void insert_some(const struct dod_ops *ops, void *c, struct model *m, size_t k)
{
	static uint64_t hs[MAX_LIVE];
	char why[512];
	assert_int_equal(ops->insert_n(c, k, m->next_key, m->handles ? hs : NULL), DOD_OK);
	if (model_inserted(m, k, m->handles ? hs : NULL, why, sizeof why) != 0)
		fail_msg("%s/%zu: %s", ops->name, ops->elem_bytes, why);
}

/* Erases a random subset of the model's items with one erase_n; before that, batches
 * that must fail (a repeated handle; after it, an erased one, and one never issued)
 * leave everything as it was. */
static void erase_some(const struct dod_ops *ops, void *c, struct model *m, uint64_t *rng)
{
	static uint64_t victims[MAX_LIVE + 1];
	size_t k = m->n ? (size_t)dod_rng_below(rng, m->n / 2 + 1) : 0;
	/* k distinct live items: a partial Fisher-Yates over the positions. */
	static size_t pos[MAX_LIVE];
	for (size_t i = 0; i < m->n; i++)
		pos[i] = i;
	for (size_t i = 0; i < k; i++) {
		size_t j = i + (size_t)dod_rng_below(rng, m->n - i);
		size_t t = pos[i];
		pos[i] = pos[j], pos[j] = t;
		victims[i] = m->live[pos[i]].handle;
	}
	if (k > 0) {
		/* A repeated handle at the end: the whole batch fails, nothing is erased. */
		victims[k] = victims[0];
		assert_int_equal(model_erase_expect(m, victims, k + 1), DOD_EFREE);
		assert_int_equal(ops->erase_n(c, victims, k + 1), DOD_EFREE);
		compare(m, c);
	}
	assert_int_equal(model_erase_expect(m, victims, k), DOD_OK);
	assert_int_equal(ops->erase_n(c, victims, k), DOD_OK);
	model_erased(m, victims, k);
	if (k > 0) {
		assert_int_equal(ops->count_valid(c, victims, k), model_count_valid(m, victims, k));
		/* An erased handle in a batch fails it whole too (positional references: a
		 * position past the end; an erased one names the item that moved there). */
		if (m->n > 0) {
			uint64_t mixed[2] = {m->live[0].handle, m->positional ? m->n : victims[0]};
			assert_true(model_erase_expect(m, mixed, 2) != DOD_OK);
			assert_true(ops->erase_n(c, mixed, 2) != DOD_OK);
		}
	}
	/* A handle that was never issued: foreign or out of range, never accepted. */
	uint64_t bogus = UINT64_C(0x7FFF7FFF7FFFFFFE);
	assert_true(model_erase_expect(m, &bogus, 1) != DOD_OK);
	assert_true(ops->erase_n(c, &bogus, 1) != DOD_OK);
	assert_true(ops->erase_n(c, NULL, 0) == DOD_OK);
}

static void drive(const struct dod_ops *ops, uint64_t seed)
{
	static struct model m;
	char why[512];
	void *c = NULL;
	uint64_t rng = seed;
	if (model_init(&m, ops, why, sizeof why) != 0)
		fail_msg("%s", why);
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
		if (ops->check)
			assert_int_equal(ops->check(small, why, sizeof why), DOD_OK);
		ops->destroy(small);
	}
	compare(&m, c);
	for (int step = 0; step < 400; step++) {
		unsigned op = (unsigned)dod_rng_below(&rng, 20);
		if (op < 11 && m.n + 64 <= MAX_LIVE) {
			insert_some(ops, c, &m, (size_t)dod_rng_below(&rng, 64));
		} else if (op < 14 && ops->erase_n) {
			erase_some(ops, c, &m, &rng);
		} else if (op < 17 && ops->clear) {
			assert_int_equal(ops->clear(c), DOD_OK);
			model_cleared(&m, MODEL_DIED_CLEAR);
			assert_int_equal(ops->size(c), 0);
		} else if (op < 18 && ops->reset) {
			assert_int_equal(ops->reset(c), DOD_OK);
			model_cleared(&m, MODEL_DIED_RESET);
		} else if (op == 18 && dod_exts(ops)) {
			/* The family extensions' operations (the particle kernels, the list operations,
			 * consolidate), by the one helper. */
			if (model_run_exts(&m, c, MODEL_EXTS_ALL, why, sizeof why) != 0)
				fail_msg("%s/%zu: %s", ops->name, ops->elem_bytes, why);
		} else if (ops->shuffle && ops->defragment && m.n > 1) {
			assert_int_equal(ops->shuffle(c, rng), DOD_OK);
			m.sorted = false;
			size_t swaps = 0;
			do {
				assert_int_equal(ops->defragment(c, 5, &swaps), DOD_OK);
				assert_true(swaps <= 5);
				compare(&m, c); /* handles hold while in progress */
			} while (swaps == 5);
			m.sorted = true; /* compare checks the order from here on */
			assert_int_equal(ops->defragment(c, 0, &swaps), DOD_OK);
			assert_int_equal(swaps, 0);
		}
		compare(&m, c);
	}
	ops->destroy(c);
	model_free(&m);
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
			char why[256];
			if (dod_exts_check(ops, why, sizeof why) != DOD_OK)
				fail_msg("%s/%zu: %s", ops->name, ops->elem_bytes, why);
		}
	assert_null(hb_find_ops("no_such_container", 8));
	assert_null(hb_find_ops("handle_map", 32));
}

/* A family extension is all or nothing: a table of another version or with an operation
 * missing counts as absent (its scenarios skip the container with the extension's reason
 * instead of calling NULL) and dod_exts_check names it; a complete one is offered. */
static void test_extensions_all_or_nothing(void **state)
{
	(void)state;
	const struct dod_ops *real_ops = hb_find_ops("particles_soa", 40);
	const struct scn_scenario *tick = scn_find("tick");
	const struct scn_params p = {.n = 10};
	char why[256];
	assert_non_null(real_ops);
	assert_non_null(tick);
	assert_int_equal(tick->needs_ext, DOD_EXT_PARTICLES);
	assert_int_equal(dod_exts(real_ops), DOD_EXT_PARTICLES);
	assert_string_equal(dod_ext_descs[0].name, "particles");
	assert_non_null(strstr(dod_ext_descs[0].missing, "no particles extension"));
	assert_null(scn_cannot_run(tick, real_ops, &p));
	struct dod_particle_ops kernels = *real_ops->particles;
	struct dod_ops ops = *real_ops;
	ops.particles = &kernels;
	assert_int_equal(dod_exts_check(&ops, why, sizeof why), DOD_OK);
	kernels.simulate = NULL;
	assert_int_equal(dod_exts(&ops), 0);
	assert_string_equal(scn_cannot_run(tick, &ops, &p), dod_ext_descs[0].missing);
	assert_int_not_equal(dod_exts_check(&ops, why, sizeof why), DOD_OK);
	assert_string_equal(why, "particles extension: a kernel is NULL");
	kernels = *real_ops->particles;
	kernels.version++;
	assert_int_equal(dod_exts(&ops), 0);
	assert_int_not_equal(dod_exts_check(&ops, why, sizeof why), DOD_OK);
	assert_non_null(strstr(why, "version"));
	/* A container outside the family: no table, nothing to check, skipped. */
	const struct dod_ops *hm = hb_find_ops("handle_map", 8);
	assert_int_equal(dod_exts(hm) & DOD_EXT_PARTICLES, 0);
	assert_int_equal(dod_exts(hb_find_ops("plain_array", 8)), 0);
	assert_int_equal(dod_exts_check(hm, why, sizeof why), DOD_OK);
	assert_string_equal(scn_cannot_run(tick, hm, &p), dod_ext_descs[0].missing);
}

static void test_every_container_against_model(void **state)
{
	(void)state;
	for (size_t i = 0; i < hb_n_containers; i++)
		for (size_t s = 0; s < HB_N_SIZES; s++)
			if (hb_containers[i].ops[s])
				drive(hb_containers[i].ops[s], 1000 + i * 10 + s);
}

/* Every container of ours has an invariant check (dod_ops.check); only peers, whose
 * libraries keep their own invariants, may leave it NULL, and those are named here, so a
 * missing check is reported rather than passed in silence. */
static void test_invariant_hooks(void **state)
{
	(void)state;
	size_t with = 0, without = 0;
	for (size_t i = 0; i < hb_n_containers; i++)
		for (size_t s = 0; s < HB_N_SIZES; s++) {
			const struct dod_ops *ops = hb_containers[i].ops[s];
			if (!ops)
				continue;
			if (ops->check) {
				with++;
				continue;
			}
			if (strcmp(ops->family, "peer") != 0)
				fail_msg("%s/%zu (family %s) has no invariant check (dod_ops.check)", ops->name,
				         ops->elem_bytes, ops->family);
			without++;
		}
	/* One line naming the variants without a check (each once, whatever its sizes). */
	fprintf(stderr, "conformance: no invariant check (dod_ops.check, peers only):");
	for (size_t i = 0; i < hb_n_containers; i++) {
		const struct dod_ops *any = NULL;
		for (size_t s = 0; s < HB_N_SIZES && !any; s++)
			any = hb_containers[i].ops[s];
		if (any && !any->check)
			fprintf(stderr, " %s", hb_containers[i].name);
	}
	fprintf(stderr, " (%zu of %zu variant x size class tables)\n", without, with + without);
	assert_true(with > without);
}

/* A check that passes everything would pass every test above: handle_map's check must
 * name each corruption of its layout (handle_map.h), one at a time, and pass again once
 * it is undone. */
static void test_checks_catch_corruption(void **state)
{
	(void)state;
	const struct dod_ops *ops = hb_find_ops("handle_map", 8);
	void *c;
	uint64_t hs[6];
	char why[256];
	assert_non_null(ops);
	assert_int_equal(ops->create(&c, 8), DOD_OK);
	assert_int_equal(ops->insert_n(c, 6, 0, hs), DOD_OK);
	assert_int_equal(ops->erase_n(c, (uint64_t[]){hs[1], hs[3], hs[4]}, 3), DOD_OK);
	assert_int_equal(ops->check(c, why, sizeof why), DOD_OK);
	struct hmap_8 *m = c;
	hmap_id saved;
	uint32_t meta0;
	/* A cycle in the free list: its last slot points back at its first. */
	saved = m->sparse[m->free_back];
	m->sparse[m->free_back] = (saved & ~(hmap_id)UINT32_MAX) | m->free_front;
	assert_int_not_equal(ops->check(c, why, sizeof why), DOD_OK);
	assert_non_null(strstr(why, "cycle"));
	m->sparse[m->free_back] = saved;
	/* A free slot left off the list. */
	saved = m->sparse[m->free_front];
	uint32_t front = m->free_front;
	m->free_front = hmap_id_index(saved);
	assert_int_not_equal(ops->check(c, why, sizeof why), DOD_OK);
	assert_non_null(strstr(why, "free list holds"));
	m->free_front = front;
	/* meta pointing at a free slot: the item's handle no longer reaches it. */
	meta0 = m->meta[0];
	m->meta[0] = front;
	assert_int_not_equal(ops->check(c, why, sizeof why), DOD_OK);
	m->meta[0] = meta0;
	/* A live count that disagrees with the sparse set. */
	m->n--;
	assert_int_not_equal(ops->check(c, why, sizeof why), DOD_OK);
	assert_non_null(strstr(why, "live sparse entries"));
	m->n++;
	/* Defragment's sorted prefix broken while the map says it is not fragmented. */
	size_t swaps;
	assert_int_equal(ops->defragment(c, 0, &swaps), DOD_OK);
	assert_int_equal(ops->check(c, why, sizeof why), DOD_OK);
	uint64_t k0 = m->dense[0].key;
	m->dense[0].key = UINT64_MAX;
	assert_int_not_equal(ops->check(c, why, sizeof why), DOD_OK);
	assert_non_null(strstr(why, "out of order"));
	m->dense[0].key = k0;
	assert_int_equal(ops->check(c, why, sizeof why), DOD_OK);
	ops->destroy(c);
}

/* What handle_map documents it cannot detect (handle_map.h): its 16-bit generation wraps
 * after 65536 erases of one slot, and then the first handle of that slot is accepted again
 * and reaches the new item. The fuzzer's model allows exactly this (tests/model.h). */
static void test_handle_map_generation_wraps(void **state)
{
	(void)state;
	const struct dod_ops *ops = hb_find_ops("handle_map", 8);
	void *c;
	uint64_t h0, h, sum = 0;
	assert_int_equal(ops->create(&c, 1), DOD_OK);
	assert_int_equal(ops->insert_n(c, 1, 0, &h0), DOD_OK);
	h = h0;
	for (uint64_t k = 1; k <= 65536; k++) {
		assert_int_equal(ops->erase_n(c, &h, 1), DOD_OK);
		assert_int_equal(ops->insert_n(c, 1, k, &h), DOD_OK);
		if (k < 65536)
			assert_int_equal(ops->count_valid(c, &h0, 1), 0); /* stale: detected */
	}
	assert_true(h == h0);
	assert_int_equal(ops->count_valid(c, &h0, 1), 1);
	assert_int_equal(ops->lookup_sum(c, &h0, 1, &sum), DOD_OK);
	assert_int_equal(sum, 65536);
	ops->destroy(c);
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
					if (!ops || (!scn_lists_axis(s, &hb_axis_hole_ratio) && pattern) ||
					    (!scn_lists_axis(s, &hb_axis_order) && order))
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
					/* Per pass of the region (K = r.passes for repeatable work,
					 * scn_run_passes; one-shot work leaves it 0): at most 2n (erase +
					 * insert); the particle kernels at least clamp(2^20 / n, 1, 64) passes,
					 * update8 8 sub-steps each (scenarios/kernels.c); the bandwidth probe
					 * reads its n words at least scn_stream_passes(n) times. */
					uint64_t k_passes = r.passes ? r.passes : 1;
					assert_true(r.passes == 0 || (r.cache && strcmp(r.cache, "warm") == 0));
					assert_int_equal(res.ops % k_passes, 0);
					if (strcmp(s->name, "stream_read") == 0) {
						assert_int_equal(res.ops, p.n * k_passes);
						assert_true(k_passes >= scn_stream_passes(p.n));
					} else {
						assert_true(res.ops >= 1 && res.ops / k_passes <= 8 * p.n);
					}
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
		cmocka_unit_test(test_extensions_all_or_nothing),
		cmocka_unit_test(test_invariant_hooks),
		cmocka_unit_test(test_checks_catch_corruption),
		cmocka_unit_test(test_handle_map_generation_wraps),
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
