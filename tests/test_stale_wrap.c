/* test_stale_wrap.c - which handle designs still reject a handle whose slot was reused
 * 2^16 and 2^32 times: every row of reports/data/stale_detection.csv
 * (container,reuses,detected) proven on the real container at 8-byte items, so the data
 * cannot say what the code does not do. The CSV is parsed here; a row of a design the
 * table below lacks, or a design without both rows, fails.
 *
 * One slot, reused R times: create, insert one item (handle h0), erase it; then R times
 * the slot is handed out again by an insert (the container holds one item at most, so
 * every design reuses that slot), each but the last followed by its erase. Detected: h0
 * is rejected by count_valid and lookup_sum after the R-th insert; not detected: h0
 * equals the new handle bit for bit and lookup_sum through it reaches the new item.
 *   R = 65536: run for real, 65536 inserts and 65535 erases.
 *   R = 2^32: after h0's erase, the design's test hook (containers/stale_hook.h,
 *   dod_ops_NAME_skip_reuses_8) advances the free slot's generation by what 2^32 - 1
 *   (insert, erase) cycles do in the design's own arithmetic (its generation's width and
 *   increments per cycle: handle_map +1 mod 2^16, handle_map_two_array +1 mod 2^31,
 *   bulk_holes_vm and its one-line layouts bulk_holes_vm_pow2 and bulk_holes_vm_line +2
 *   mod 2^31, packed_array +1 mod 2^32 at insert, slot_map +1 mod 2^32 at erase,
 *   sparse_set_paged +1 at erase skipping the tombstone 2^32 - 1 (a cycle of 2^32 - 1
 *   versions), slotmap_versioned and slotmap_inline +1 at insert and at erase mod
 *   2^32), then one real insert is the 2^32nd reuse.
 * The hooks are trusted only after test_hooks_match_real_reuses: for R = 3 and 65536,
 * the hook's R - 1 cycles and one real insert give the same handle as R real reuses.
 *
 * Adding a design: its hook (stale_hook.h) in its source, its name in DESIGNS below, its
 * two rows in the CSV.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "hb.h"
#include "stale_hook.h"

#define STALE_CSV "reports/data/stale_detection.csv"
#define REUSES_16 UINT64_C(65536)
#define REUSES_32 UINT64_C(4294967296)

/* Every design with rows in the CSV: its registry name (the hook's name follows). */
#define DESIGNS(X) X(handle_map) X(handle_map_two_array) X(bulk_holes_vm) X(packed_array) \
	X(slot_map) X(sparse_set_paged) X(slotmap_versioned) X(bulk_holes_vm_pow2)          \
	X(bulk_holes_vm_line) X(slotmap_inline)

#define DECLARE_HOOK(v) int dod_ops_##v##_skip_reuses_8(void *c, uint64_t h, uint64_t k);
DESIGNS(DECLARE_HOOK)

struct design {
	const char *name;
	dod_skip_reuses_fn skip_reuses;
};
#define DESIGN_ENTRY(v) {#v, dod_ops_##v##_skip_reuses_8},
static const struct design designs[] = {DESIGNS(DESIGN_ENTRY)};
#define N_DESIGNS (sizeof designs / sizeof designs[0])

/* ---- the CSV ---- */
#define MAX_ROWS 64
struct row {
	char container[64];
	uint64_t reuses;
	bool detected;
};

/* Parses one data line into *r; false when it is malformed. */
static bool parse_row(char *line, struct row *r)
{
	line[strcspn(line, "\r\n")] = '\0';
	char *name = strtok(line, ","), *reuses = strtok(NULL, ","), *det = strtok(NULL, ",");
	if (!name || !reuses || !det || strtok(NULL, ",") || strlen(name) >= sizeof r->container)
		return false;
	char *end;
	r->reuses = strtoull(reuses, &end, 10);
	if (*end != '\0' || (r->reuses != REUSES_16 && r->reuses != REUSES_32))
		return false;
	if (strcmp(det, "yes") != 0 && strcmp(det, "no") != 0)
		return false;
	strcpy(r->container, name);
	r->detected = strcmp(det, "yes") == 0;
	return true;
}

/* Reads STALE_CSV (run from the repository root, as make test does). Returns the rows. */
static size_t read_csv(struct row *rows)
{
	FILE *f = fopen(STALE_CSV, "r");
	if (!f)
		fail_msg("cannot open %s (run the test from the repository root)", STALE_CSV);
	char line[256];
	size_t n = 0;
	if (!fgets(line, sizeof line, f) || strcmp(line, "container,reuses,detected\n") != 0)
		fail_msg("%s: the header must be container,reuses,detected", STALE_CSV);
	for (size_t no = 2; fgets(line, sizeof line, f); no++) {
		if (n == MAX_ROWS || !parse_row(line, &rows[n]))
			fail_msg("%s:%zu: not container,65536|4294967296,yes|no (or too many rows)",
			         STALE_CSV, no);
		n++;
	}
	fclose(f);
	return n;
}

static const struct design *find_design(const char *name)
{
	for (size_t i = 0; i < N_DESIGNS; i++)
		if (strcmp(designs[i].name, name) == 0)
			return &designs[i];
	return NULL;
}

/* ---- reusing one slot ---- */
struct outcome {
	uint64_t h0, last; /* the first handle; the handle of the R-th reuse */
	bool detected;
};

static void insert_one(const struct dod_ops *ops, void *c, uint64_t key, uint64_t *h)
{
	assert_int_equal(ops->insert_n(c, 1, key, h), DOD_OK);
}

/* Reuses the slot of a one-item container R >= 1 times (the opening comment): with the
 * hook for R - 1 cycles when use_hook, else for real. Checks what h0 does after. */
static struct outcome reuse(const struct design *d, uint64_t reuses, bool use_hook)
{
	const struct dod_ops *ops = hb_find_ops(d->name, 8);
	struct outcome o;
	void *c;
	char why[256];
	uint64_t sum = 0;
	assert_non_null(ops);
	assert_int_equal(ops->create(&c, 1), DOD_OK);
	insert_one(ops, c, 0, &o.h0);
	assert_int_equal(ops->erase_n(c, &o.h0, 1), DOD_OK);
	if (use_hook) {
		assert_int_equal(d->skip_reuses(c, o.h0, reuses - 1), DOD_OK);
	} else {
		for (uint64_t r = 1; r < reuses; r++) {
			insert_one(ops, c, r, &o.last);
			assert_int_equal(ops->erase_n(c, &o.last, 1), DOD_OK);
		}
	}
	insert_one(ops, c, 7, &o.last);
	if (ops->check(c, why, sizeof why) != DOD_OK)
		fail_msg("%s after %llu reuses: %s", d->name, (unsigned long long)reuses, why);
	o.detected = ops->count_valid(c, &o.h0, 1) == 0;
	int err = ops->lookup_sum(c, &o.h0, 1, &sum);
	assert_int_equal(err != DOD_OK, o.detected);
	if (!o.detected) { /* the ABA case: the old handle reaches the new item */
		assert_true(o.h0 == o.last);
		assert_int_equal(sum, 7);
	}
	assert_int_equal(ops->count_valid(c, &o.last, 1), 1);
	ops->destroy(c);
	return o;
}

/* ---- tests ---- */

/* Every row names a design of the table, every design has exactly one row per reuse
 * count, and the hook rejects a handle whose slot is live. */
static void test_csv_covers_every_design(void **state)
{
	(void)state;
	static struct row rows[MAX_ROWS];
	size_t n = read_csv(rows);
	for (size_t i = 0; i < n; i++)
		if (!find_design(rows[i].container) || !hb_find_ops(rows[i].container, 8))
			fail_msg("%s: %s is not in the table of %s (or not registered at 8 B)",
			         STALE_CSV, rows[i].container, __FILE__);
	for (size_t i = 0; i < N_DESIGNS; i++) {
		size_t n16 = 0, n32 = 0;
		for (size_t j = 0; j < n; j++)
			if (strcmp(rows[j].container, designs[i].name) == 0) {
				n16 += rows[j].reuses == REUSES_16;
				n32 += rows[j].reuses == REUSES_32;
			}
		if (n16 != 1 || n32 != 1)
			fail_msg("%s: %s has %zu rows of 65536 and %zu of 4294967296 reuses (want 1 "
			         "each)", STALE_CSV, designs[i].name, n16, n32);
		const struct dod_ops *ops = hb_find_ops(designs[i].name, 8);
		void *c;
		uint64_t h;
		assert_int_equal(ops->create(&c, 1), DOD_OK);
		insert_one(ops, c, 0, &h);
		assert_int_equal(designs[i].skip_reuses(c, h, 1), DOD_EINVAL);
		ops->destroy(c);
	}
}

/* A hook is trusted only where it agrees with real reuses: the same handle bits and the
 * same detection after R = 3 and R = 65536. */
static void test_hooks_match_real_reuses(void **state)
{
	(void)state;
	const uint64_t counts[] = {3, REUSES_16};
	for (size_t i = 0; i < N_DESIGNS; i++)
		for (size_t j = 0; j < 2; j++) {
			struct outcome real = reuse(&designs[i], counts[j], false);
			struct outcome hook = reuse(&designs[i], counts[j], true);
			if (real.h0 != hook.h0 || real.last != hook.last ||
			    real.detected != hook.detected)
				fail_msg("%s, %llu reuses: real %#llx, hook %#llx", designs[i].name,
				         (unsigned long long)counts[j], (unsigned long long)real.last,
				         (unsigned long long)hook.last);
		}
}

/* Every row of the CSV holds: 65536 reuses for real, 2^32 through the hook. */
static void test_every_row_holds(void **state)
{
	(void)state;
	static struct row rows[MAX_ROWS];
	size_t n = read_csv(rows);
	assert_true(n >= 2 * N_DESIGNS);
	for (size_t i = 0; i < n; i++) {
		const struct design *d = find_design(rows[i].container);
		struct outcome o = reuse(d, rows[i].reuses, rows[i].reuses == REUSES_32);
		if (o.detected != rows[i].detected)
			fail_msg("%s: %s after %llu reuses: the CSV says detected %s, the container %s",
			         STALE_CSV, d->name, (unsigned long long)rows[i].reuses,
			         rows[i].detected ? "yes" : "no", o.detected ? "rejects h0" : "accepts h0");
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_csv_covers_every_design),
		cmocka_unit_test(test_hooks_match_real_reuses),
		cmocka_unit_test(test_every_row_holds),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
