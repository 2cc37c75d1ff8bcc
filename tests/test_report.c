/* test_report.c - the reporter interface (harness/report.h): a row reaches every reporter
 * of a list, two CSV writers get the same bytes, a writer that fails is named and stops
 * nothing else from getting the row, the end's failure is reported with its path; and
 * the latency percentiles of stats.c. */
#define _GNU_SOURCE
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "hb.h"
#include "report.h"
#include "run.h"

static struct hb_env env = {
	.host = "box", .cpu_model = "cpu", .compiler = "gcc", .cflags = "-O2", .git_rev = "abc",
	.run_id = "r1", .invocation = "t", .n_cpus = 2, .governor = "unavailable", .turbo = "on",
	.pinned_cpu = -1, .build_type = "release", .perf_paranoid = 2,
};

struct fixture {
	struct hb_region r;
	struct dod_ops desc;
	struct hb_row row;
};

static void fixture_init(struct fixture *fx)
{
	fx->r = (struct hb_region){.elapsed_ns = 2000, .cpu_ns = 1900, .passes = 1};
	fx->desc = (struct dod_ops){.name = "plain_array", .family = "baseline", .removal = "none",
	                            .alloc = "realloc", .layout = "aos", .elem_bytes = 8};
	fx->row = (struct hb_row){
		.env = &env, .timestamp = "2026-01-01T00:00:00Z", .ops_desc = &fx->desc,
		.scenario = "iterate", .seed = 7,
		.axis = {[HB_AXIS_N] = {.u = 1000}, [HB_AXIS_ELEM] = {.u = 8}},
		.rep = 0, .region = &fx->r, .measured = true, .checksum = 42, .verified = true,
		.ops = 1000, .swaps = -1, .interleave_pos = -1, .samples = -1, .reserved_bytes = -1,
		.committed_bytes = -1, .placed_blocks = -1, .measured_bytes = -1,
		.grow_max_at = -1, .grow_max_copied = -1,
	};
}

/* A reporter that counts its rows and fails each with err (0: never). */
struct counting {
	int rows, ends, err;
};

static int counting_row(struct hb_reporter *self, const struct hb_row *row, const char *line)
{
	struct counting *c = self->state;
	(void)row, (void)line;
	c->rows++;
	return c->err;
}

static int counting_end(struct hb_reporter *self, const struct hb_run *r, int status)
{
	struct counting *c = self->state;
	(void)r, (void)status;
	c->ends++;
	return c->err;
}

/* What f holds, from its start (a string the caller frees). */
static char *slurp(FILE *f)
{
	fflush(f);
	rewind(f);
	char *out = calloc(1, 8192);
	assert_non_null(out);
	size_t n = fread(out, 1, 8191, f);
	out[n] = '\0';
	return out;
}

/* Two CSV writers in one list get the same row, byte for byte, as hb_csv_row formats it. */
static void test_two_csv_writers_get_the_same_rows(void **state)
{
	(void)state;
	struct fixture fx;
	fixture_init(&fx);
	FILE *a = tmpfile(), *b = tmpfile(), *want = tmpfile();
	assert_non_null(a);
	assert_non_null(b);
	assert_non_null(want);
	struct hb_reporter ra, rb;
	hb_csv_reporter(&ra, a, "a.csv");
	hb_csv_reporter(&rb, b, "b.csv");
	struct hb_reporter *list[] = {&ra, &rb};
	size_t failed = 99;
	assert_int_equal(hb_report_row(list, 2, &fx.row, NULL, &failed), 0);
	fx.row.rep = 1;
	assert_int_equal(hb_report_row(list, 2, &fx.row, NULL, &failed), 0);
	assert_int_equal(hb_report_row(list, 2, NULL, "merged,line\n", &failed), 0);
	assert_int_equal(failed, 99); /* untouched: nothing failed */
	fx.row.rep = 0;
	hb_csv_row(want, &fx.row);
	fx.row.rep = 1;
	hb_csv_row(want, &fx.row);
	fputs("merged,line\n", want);
	char *got_a = slurp(a), *got_b = slurp(b), *wanted = slurp(want);
	assert_string_equal(got_a, got_b);
	assert_string_equal(got_a, wanted);
	assert_non_null(strstr(got_a, ",plain_array,iterate,1000,8,"));
	free(got_a);
	free(got_b);
	free(wanted);
	fclose(a);
	fclose(b);
	fclose(want);
}

/* A writer that cannot take a row is named with its errno; the reporters after it still
 * get the row (each output stays whole to its last row). */
static void test_failing_writer_is_named(void **state)
{
	(void)state;
	struct fixture fx;
	fixture_init(&fx);
	struct counting before = {0}, bad = {.err = ENOSPC}, after = {0};
	struct hb_reporter r0 = {.path = "first", .row = counting_row, .state = &before};
	struct hb_reporter r1 = {.path = "full.csv", .row = counting_row, .state = &bad};
	struct hb_reporter r2 = {.path = "last", .row = counting_row, .state = &after};
	struct hb_reporter *list[] = {&r0, &r1, &r2};
	size_t failed = 99;
	assert_int_equal(hb_report_row(list, 3, &fx.row, NULL, &failed), ENOSPC);
	assert_int_equal(failed, 1);
	assert_int_equal(before.rows, 1);
	assert_int_equal(bad.rows, 1);
	assert_int_equal(after.rows, 1);

	/* A real writer on a full device fails the same way. */
	FILE *full = fopen("/dev/full", "w");
	if (full) {
		setvbuf(full, NULL, _IOFBF, HB_ROW_BUFFER);
		struct hb_reporter csv;
		hb_csv_reporter(&csv, full, "/dev/full");
		struct hb_reporter *one[] = {&r0, &csv};
		assert_int_equal(hb_report_row(one, 2, &fx.row, NULL, &failed), ENOSPC);
		assert_int_equal(failed, 1);
		fclose(full);
	}
}

/* hb_report_end calls every end, says "dodbench: writing PATH: ERROR" for each that
 * failed, and returns HB_EXIT_OUTPUT; a list without failures returns 0. */
static void test_end_failure_message(void **state)
{
	(void)state;
	struct counting ok = {0}, bad = {.err = EFBIG};
	struct hb_reporter r0 = {.path = "out.json", .end = counting_end, .state = &bad};
	struct hb_reporter r1 = {.path = "stdout", .end = counting_end, .state = &ok};
	struct hb_reporter *list[] = {&r0, &r1};
	FILE *err = tmpfile();
	assert_non_null(err);
	fflush(stderr);
	int saved = dup(2);
	dup2(fileno(err), 2);
	int rc = hb_report_end(list, 2, NULL, 0);
	fflush(stderr);
	dup2(saved, 2);
	close(saved);
	assert_int_equal(rc, HB_EXIT_OUTPUT);
	assert_int_equal(bad.ends, 1);
	assert_int_equal(ok.ends, 1);
	char want[200];
	snprintf(want, sizeof want, "dodbench: writing out.json: %s\n", strerror(EFBIG));
	char *said = slurp(err);
	assert_string_equal(said, want);
	free(said);
	fclose(err);
	assert_int_equal(hb_report_end(list + 1, 1, NULL, 0), 0);
}

/* Nearest-rank percentiles: of 1..1000 in any order, p50 500, p99 990, p99.9 999, max
 * 1000; of one sample, that sample for all four. */
static void test_latency_percentiles(void **state)
{
	(void)state;
	enum { N = 1000 };
	uint64_t x[N];
	for (size_t i = 0; i < N; i++)
		x[i] = (uint64_t)((i * 617) % N) + 1; /* 617 is prime to 1000: a permutation */
	struct hb_latency l;
	hb_latency_of(x, N, &l);
	assert_int_equal(l.p50, 500);
	assert_int_equal(l.p99, 990);
	assert_int_equal(l.p999, 999);
	assert_int_equal(l.max, 1000);
	uint64_t one = 7;
	hb_latency_of(&one, 1, &l);
	assert_int_equal(l.p50, 7);
	assert_int_equal(l.max, 7);
}

/* The growth marks are taken off; the marked samples' p50 and max and the others' max. */
static void test_growth_latency(void **state)
{
	(void)state;
	uint64_t x[] = {5, 9 | HB_SAMPLE_GREW, 3, 40 | HB_SAMPLE_GREW, 7, 20 | HB_SAMPLE_GREW};
	struct hb_growth_latency g;
	hb_growth_latency_of(x, 6, &g);
	assert_int_equal(g.grew, 3);
	assert_int_equal(g.grew_p50, 20);
	assert_int_equal(g.grew_max, 40);
	assert_int_equal(g.plain_max, 7);
	for (size_t i = 0; i < 6; i++)
		assert_false(x[i] & HB_SAMPLE_GREW);
	uint64_t none[] = {4, 2};
	hb_growth_latency_of(none, 2, &g);
	assert_int_equal(g.grew, 0);
	assert_int_equal(g.plain_max, 4);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_two_csv_writers_get_the_same_rows),
		cmocka_unit_test(test_failing_writer_is_named),
		cmocka_unit_test(test_end_failure_message),
		cmocka_unit_test(test_latency_percentiles),
		cmocka_unit_test(test_growth_latency),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
