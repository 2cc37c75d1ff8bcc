/* test_dc.c - what the DataComponent model (tests/model_dc.h) cannot see
 * (containers/dc_contract.h, containers/dc/): dc_single_buffer's component moved by a
 * plain memcpy to another address and read back (D11), its packing limits (a payload
 * past a 16-bit size, a buffer past 64 KiB: DOD_EFULL, nothing changed) where the other
 * designs take the same values, the errors of get (missing key, another type), set (key
 * 0, a bad type, a stale entity) on every design, dc_naive's path through a value, and
 * the key hashing and path splitting every design's caller uses, and the flat designs'
 * growth of an entity's arrays and of their scratch counted in dod_growth (every
 * reallocation on the counted path, alloc/realloc.h), and dc_hashed_map's std::map keyed
 * by the hash alone (D8's peer): its node per value and block per payload. */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "dc/dc_entities.h"
#include "hb.h"
#include "cmocka_helpers.h"

static const char *const designs[] = {"dc_naive", "dc_hashed_flat", "dc_soa", "dc_coalloc",
                                      "dc_single_buffer", "dc_hashed_map"};
#define N_DESIGNS (sizeof designs / sizeof designs[0])

static struct dod_dc_path path(const char *text)
{
	struct dod_dc_path p;
	assert_int_equal(dod_dc_path_init(&p, text), DOD_OK);
	return p;
}

static struct dod_dc_set set_of(uint64_t e, const struct dod_dc_path *p, struct dod_dc_value v)
{
	return (struct dod_dc_set){.entity = e, .key = p->hash, .path = p, .value = v};
}

static struct dod_dc_get get_of(uint64_t e, const struct dod_dc_path *p, uint32_t type)
{
	return (struct dod_dc_get){.entity = e, .key = p->hash, .type = type, .path = p};
}

static void test_hash_and_paths(void **state)
{
	(void)state;
	assert_int_equal(dod_dc_hash("", 0), 0x811c9dc5u); /* FNV-1a's offset basis */
	assert_int_equal(dod_dc_hash("a", 1), 0xe40c292cu);
	struct dod_dc_path p = path("stats.speed.max");
	assert_int_equal(p.depth, 3);
	assert_int_equal(p.part_len[1], 5);
	assert_memory_equal(p.part[1], "speed", 5);
	assert_int_equal(p.hash, dod_dc_hash("stats.speed.max", 15));
	struct dod_dc_path bad;
	assert_int_equal(dod_dc_path_init(&bad, "a..b"), DOD_EINVAL);
	assert_int_equal(dod_dc_path_init(&bad, ".a"), DOD_EINVAL);
	assert_int_equal(dod_dc_path_init(&bad, ""), DOD_EINVAL);
	assert_int_equal(dod_dc_path_init(&bad, "a.b.c.d.e"), DOD_EINVAL);
}

/* One entity with a float, a string and an array; the handle to *e. */
static void *three_values(const struct dod_ops *ops, uint64_t *e, const struct dod_dc_path *p)
{
	void *c;
	static const float xyz[3] = {1.5f, -2.0f, 4.25f};
	assert_int_equal(ops->create(&c, 4), DOD_OK);
	assert_int_equal(ops->insert_n(c, 1, 7, e), DOD_OK);
	struct dod_dc_set s[3] = {
		set_of(*e, &p[0], (struct dod_dc_value){.type = DOD_DC_FLOAT, .f = 75.5f}),
		set_of(*e, &p[1], (struct dod_dc_value){.type = DOD_DC_STRING, .n = 5, .s = "Gimli"}),
		set_of(*e, &p[2], (struct dod_dc_value){.type = DOD_DC_FLOATS, .n = 3, .a = xyz}),
	};
	assert_int_equal(ops->dc->set_n(c, s, 3), DOD_OK);
	return c;
}

/* The three values of three_values, read back through get_n. */
static void read_back(const struct dod_ops *ops, void *c, uint64_t e, const struct dod_dc_path *p)
{
	struct dod_dc_get g[3] = {get_of(e, &p[0], DOD_DC_FLOAT), get_of(e, &p[1], DOD_DC_STRING),
	                          get_of(e, &p[2], DOD_DC_FLOATS)};
	struct dod_dc_value v[3];
	assert_int_equal(ops->dc->get_n(c, g, 3, v), DOD_OK);
	assert_true(v[0].f == 75.5f);
	assert_int_equal(v[1].n, 5);
	assert_memory_equal(v[1].s, "Gimli", 5);
	assert_int_equal(v[2].n, 3);
	assert_true(v[2].a[0] == 1.5f && v[2].a[1] == -2.0f && v[2].a[2] == 4.25f);
	tc_check_ok(ops, c);
}

/* D11: the component is one buffer without pointers: memcpy it elsewhere, free the
 * original, point the entity at the copy (the component's first field is its buffer,
 * dc_single_buffer.c), and every value reads back. */
static void test_single_buffer_relocates_with_memcpy(void **state)
{
	(void)state;
	const struct dod_ops *ops = tc_find("dc_single_buffer", 8);
	struct dod_dc_path p[3] = {path("stats.health"), path("name"), path("pos")};
	uint64_t e;
	void *c = three_values(ops, &e, p);
	unsigned char **buf = dc_comp_at(c, dc_index(e)); /* the container starts with its table */
	uint16_t size16;
	memcpy(&size16, *buf + 6, sizeof size16); /* the header's size field */
	size_t size = size16;
	assert_true(size >= 8 + 3 * 9 + 5 + 12 && size % 4 == 0);
	unsigned char *moved = malloc(size + 64);
	assert_non_null(moved);
	memcpy(moved + 32, *buf, size); /* another address, another alignment mod 64 */
	free(*buf);
	*buf = moved + 32;
	read_back(ops, c, e, p);
	unsigned char *back = malloc(size);
	memcpy(back, moved + 32, size);
	*buf = back;
	free(moved);
	read_back(ops, c, e, p);
	ops->destroy(c);
}

/* The state a failed set must leave alone: the values count and the sum of all gets. */
static void expect_unchanged(const struct dod_ops *ops, void *c, const struct dod_dc_get *g,
                             size_t n, size_t values, uint64_t sum)
{
	struct dod_dc_mem m;
	uint64_t now = 0;
	ops->dc->mem(c, &m);
	assert_int_equal(m.values, values);
	assert_int_equal(ops->dc->get_sum_n(c, g, n, &now), DOD_OK);
	assert_int_equal(now, sum);
	tc_check_ok(ops, c);
}

/* D10's limits: a payload past 65535 bytes, or a buffer past 64 KiB, is DOD_EFULL with
 * nothing changed in dc_single_buffer; the other designs store the same values. */
static void test_packing_limits(void **state)
{
	(void)state;
	enum { BIG = 30000, HUGE = 70000 };
	char *text = malloc(HUGE);
	assert_non_null(text);
	memset(text, 'x', HUGE);
	struct dod_dc_path p[4] = {path("a"), path("b"), path("c"), path("d")};
	for (size_t k = 0; k < N_DESIGNS; k++) {
		const struct dod_ops *ops = tc_find(designs[k], 8);
		bool packed = strcmp(ops->name, "dc_single_buffer") == 0;
		void *c;
		uint64_t e, sum = 0;
		assert_int_equal(ops->create(&c, 1), DOD_OK);
		assert_int_equal(ops->insert_n(c, 1, 0, &e), DOD_OK);
		struct dod_dc_value big = {.type = DOD_DC_STRING, .n = BIG, .s = text};
		struct dod_dc_set two[2] = {set_of(e, &p[0], big), set_of(e, &p[1], big)};
		assert_int_equal(ops->dc->set_n(c, two, 2), DOD_OK); /* 60000 bytes fit in 64 KiB */
		struct dod_dc_get g[2] = {get_of(e, &p[0], DOD_DC_STRING), get_of(e, &p[1], DOD_DC_STRING)};
		assert_int_equal(ops->dc->get_sum_n(c, g, 2, &sum), DOD_OK);
		struct dod_dc_value more = {.type = DOD_DC_STRING, .n = 6000, .s = text};
		struct dod_dc_value huge = {.type = DOD_DC_STRING, .n = HUGE, .s = text};
		struct dod_dc_value floats = {.type = DOD_DC_FLOATS, .n = 16384, .a = (const float *)text};
		struct dod_dc_set over[3] = {set_of(e, &p[2], more), set_of(e, &p[3], huge),
		                             set_of(e, &p[3], floats)};
		for (int i = 0; i < 3; i++) {
			int err = ops->dc->set_n(c, &over[i], 1);
			assert_int_equal(err, packed ? DOD_EFULL : DOD_OK);
			if (packed)
				expect_unchanged(ops, c, g, 2, 2, sum);
		}
		ops->destroy(c);
	}
	free(text);
}

/* Gets and sets that must fail, on every design, each changing nothing. */
static void test_errors(void **state)
{
	(void)state;
	struct dod_dc_path p[4] = {path("stats.health"), path("name"), path("pos"), path("gone")};
	for (size_t k = 0; k < N_DESIGNS; k++) {
		const struct dod_ops *ops = tc_find(designs[k], 8);
		uint64_t e, sum = 0, dead;
		void *c = three_values(ops, &e, p);
		struct dod_dc_get g[3] = {get_of(e, &p[0], DOD_DC_FLOAT), get_of(e, &p[1], DOD_DC_STRING),
		                          get_of(e, &p[2], DOD_DC_FLOATS)};
		assert_int_equal(ops->dc->get_sum_n(c, g, 3, &sum), DOD_OK);
		struct dod_dc_get missing = get_of(e, &p[3], DOD_DC_FLOAT);
		struct dod_dc_get wrong = get_of(e, &p[1], DOD_DC_FLOAT);
		uint64_t s;
		assert_int_equal(ops->dc->get_sum_n(c, &missing, 1, &s), DOD_ENOKEY);
		assert_int_equal(ops->dc->get_sum_n(c, &wrong, 1, &s), DOD_ETYPE);
		assert_int_equal(ops->insert_n(c, 1, 8, &dead), DOD_OK);
		assert_int_equal(ops->erase_n(c, &dead, 1), DOD_OK);
		struct dod_dc_value f = {.type = DOD_DC_FLOAT, .f = 1};
		struct dod_dc_set bad[3] = {set_of(e, &p[0], f), set_of(e, &p[3], f), set_of(dead, &p[3], f)};
		assert_int_equal(ops->dc->set_n(c, bad, 3), DOD_ESTALE); /* the first two not applied */
		bad[2] = set_of(e, &p[3], (struct dod_dc_value){.type = DOD_DC_N_TYPES});
		assert_int_equal(ops->dc->set_n(c, bad, 3), DOD_EINVAL);
		bad[2] = set_of(e, &p[3], f);
		bad[2].key = 0;
		assert_int_equal(ops->dc->set_n(c, bad, 3), DOD_EINVAL);
		expect_unchanged(ops, c, g, 3, 3, sum);
		uint64_t h;
		assert_int_equal(ops->dc->copy_n(c, &dead, 1, 9, &h), DOD_ESTALE);
		assert_int_equal(ops->size(c), 1);
		ops->destroy(c);
	}
}

/* dc_naive walks the path: a path through a value, or one ending at an object, is
 * refused (set: DOD_EINVAL, nothing made; get: DOD_ETYPE), which the hashed designs,
 * seeing only hashes, cannot tell (dc_contract.h: paths must be prefix-free). */
static void test_naive_path_conflicts(void **state)
{
	(void)state;
	const struct dod_ops *ops = tc_find("dc_naive", 8);
	struct dod_dc_path a = path("a"), ab = path("a.b"), abc = path("a.b.c");
	void *c;
	uint64_t e, s;
	assert_int_equal(ops->create(&c, 1), DOD_OK);
	assert_int_equal(ops->insert_n(c, 1, 0, &e), DOD_OK);
	struct dod_dc_value f = {.type = DOD_DC_FLOAT, .f = 2};
	struct dod_dc_set set = set_of(e, &ab, f), through[2] = {set_of(e, &a, f), set_of(e, &abc, f)};
	assert_int_equal(ops->dc->set_n(c, &set, 1), DOD_OK);
	assert_int_equal(ops->dc->set_n(c, &through[1], 1), DOD_EINVAL); /* a.b is a value */
	assert_int_equal(ops->dc->set_n(c, through, 2), DOD_EINVAL);      /* a is an object */
	struct dod_dc_get obj = get_of(e, &a, DOD_DC_FLOAT), val = get_of(e, &ab, DOD_DC_FLOAT);
	assert_int_equal(ops->dc->get_sum_n(c, &obj, 1, &s), DOD_ETYPE);
	assert_int_equal(ops->dc->get_sum_n(c, &val, 1, &s), DOD_OK);
	struct dod_dc_mem m;
	ops->dc->mem(c, &m);
	assert_int_equal(m.values, 1);
	tc_check_ok(ops, c);
	ops->destroy(c);
}

/* dc_hashed_flat, dc_soa and dc_coalloc: an entity's arrays (at least 4 values) grown
 * one key at a time past 4, and the scratch grown by a larger batch, are counted in
 * dod_growth; the values read back. */
static void test_flat_growth_counted(void **state)
{
	(void)state;
	static const char *const names[] = {"k0", "k1", "k2", "k3", "k4", "k5", "k6", "k7"};
	for (size_t k = 1; k <= 3; k++) {
		const struct dod_ops *ops = tc_find(designs[k], 8);
		void *c;
		uint64_t e[2];
		struct dod_dc_path p[8];
		assert_int_equal(ops->create(&c, 0), DOD_OK);
		assert_int_equal(ops->insert_n(c, 2, 7, e), DOD_OK);
		uint64_t grows = dod_growth.grows;
		for (size_t i = 0; i < 8; i++) {
			p[i] = path(names[i]);
			struct dod_dc_set s = set_of(e[0], &p[i],
			                             (struct dod_dc_value){.type = DOD_DC_FLOAT, .f = (float)i});
			assert_int_equal(ops->dc->set_n(c, &s, 1), DOD_OK);
		}
		assert_true(dod_growth.grows > grows); /* 4 values grown to 8 */
		grows = dod_growth.grows;
		struct dod_dc_set two[2] = {
			set_of(e[1], &p[0], (struct dod_dc_value){.type = DOD_DC_STRING, .n = 2, .s = "ab"}),
			set_of(e[1], &p[1], (struct dod_dc_value){.type = DOD_DC_STRING, .n = 2, .s = "cd"}),
		};
		assert_int_equal(ops->dc->set_n(c, two, 1), DOD_OK); /* scratch: one block */
		grows = dod_growth.grows;
		assert_int_equal(ops->dc->set_n(c, two, 2), DOD_OK); /* scratch: two blocks */
		assert_true(dod_growth.grows > grows);
		for (size_t i = 0; i < 8; i++) {
			struct dod_dc_get g = get_of(e[0], &p[i], DOD_DC_FLOAT);
			struct dod_dc_value v;
			assert_int_equal(ops->dc->get_n(c, &g, 1, &v), DOD_OK);
			assert_true(v.f == (float)i);
		}
		tc_check_ok(ops, c);
		ops->destroy(c);
	}
}

/* dc_hashed_map (D8's peer) keys its std::map by the request's hash, as dc_hashed_flat
 * searches it: a request whose path text differs but whose key is the same hash finds
 * the value; each value is a node, each string or array one block more, beside the tree;
 * a batch setting one new key twice keeps the later value, and a replaced string's block
 * is freed (the sanitizer build sees a leak otherwise). */
static void test_hashed_map_keys(void **state)
{
	(void)state;
	const struct dod_ops *ops = tc_find("dc_hashed_map", 8);
	struct dod_dc_path p[3] = {path("stats.health"), path("name"), path("pos")};
	struct dod_dc_path other = path("other");
	uint64_t e, e2;
	void *c = three_values(ops, &e, p);
	struct dod_dc_get g = get_of(e, &other, DOD_DC_STRING);
	g.key = p[1].hash; /* the path says "other", the key says "name" */
	struct dod_dc_value v;
	assert_int_equal(ops->dc->get_n(c, &g, 1, &v), DOD_OK);
	assert_int_equal(v.n, 5);
	assert_memory_equal(v.s, "Gimli", 5);
	struct dod_dc_mem m;
	ops->dc->mem(c, &m);
	assert_int_equal(m.values, 3);
	assert_int_equal(m.blocks, 1 + 3 + 2); /* the tree, 3 nodes, a string and an array */
	struct dod_dc_set twice[2] = {
		set_of(e, &other, (struct dod_dc_value){.type = DOD_DC_STRING, .n = 3, .s = "one"}),
		set_of(e, &other, (struct dod_dc_value){.type = DOD_DC_BOOL, .b = 7}),
	};
	assert_int_equal(ops->dc->set_n(c, twice, 2), DOD_OK);
	struct dod_dc_get gb = get_of(e, &other, DOD_DC_BOOL);
	assert_int_equal(ops->dc->get_n(c, &gb, 1, &v), DOD_OK);
	assert_int_equal(v.b, 1);
	ops->dc->mem(c, &m);
	assert_int_equal(m.values, 4);
	assert_int_equal(m.blocks, 1 + 4 + 2);
	assert_int_equal(ops->dc->copy_n(c, &e, 1, 9, &e2), DOD_OK);
	assert_int_equal(ops->erase_n(c, &e, 1), DOD_OK);
	read_back(ops, c, e2, p);
	ops->destroy(c);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_hash_and_paths),
		cmocka_unit_test(test_single_buffer_relocates_with_memcpy),
		cmocka_unit_test(test_packing_limits),
		cmocka_unit_test(test_errors),
		cmocka_unit_test(test_naive_path_conflicts),
		cmocka_unit_test(test_flat_growth_counted),
		cmocka_unit_test(test_hashed_map_keys),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
