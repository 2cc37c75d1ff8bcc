/* test_csv.c - CSV schema 3: exact header (the reports depend on the column order),
 * RFC 4180 quoting, empty (never zero) counter fields, and hb_csv_open's header check. */
#define _POSIX_C_SOURCE 200809L
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
#include "scenario.h"

static const char header_v4[] =
	"schema,timestamp,host,cpu_model,compiler,cflags,git_rev,container,scenario,n,"
	"elem_bytes,hole_ratio,order,seed,rep,elapsed_ns,ns_per_op,tsc_cycles,counter_source,"
	"papi_tot_cyc,papi_tot_ins,papi_l1_dcm,papi_l2_dcm,papi_l3_tcm,checksum,verified,"
	"run_id,swaps,"
	"sim_ir,sim_dr,sim_dw,sim_d1mr,sim_d1mw,sim_dlmr,sim_dlmw,sim_d1,sim_ll,papi_multiplexed,"
	"minflt,majflt,allocs,prefault,interleave_pos,cores,hypervisor,governor,turbo,pinned_cpu,"
	"build_type,perf_paranoid,papi_status,frees,cpu_ns,pmu_scale,"
	"hole_pattern,ops,p50_ns,p99_ns,p999_ns,max_ns,samples,sample_cost_ns,"
	"family,removal,alloc,layout,caps,invocation,reserved_bytes,committed_bytes,"
	"status,status_detail,"
	"grows,grow_moves,grow_copied_bytes,grow_pushes,grow_p50_ns,grow_max_ns,plain_max_ns,"
	"passes,cache,clock_floor_ns,min_region_ns,short_region,placed_blocks,measured_bytes,"
	"grow_max_at,grow_max_copied_bytes";

/* The clock columns of a row (schema 4) after plain_max_ns: passes, cache, this process's
 * clock floor and minimum region (measured: never a constant of the test), short_region
 * (empty passes and short_region without a measurement), and the comma before
 * placed_blocks. */
static const char *clock_head(const char *passes, const char *cache, const char *short_region)
{
	static char buf[2][200];
	static int which;
	char *out = buf[which ^= 1];
	snprintf(out, sizeof buf[0], ",%s,%s,%.6g,%llu,%s,", passes, cache, hb_clock_floor_ns(),
	         (unsigned long long)hb_min_region_ns(), short_region);
	return out;
}

/* clock_head, then an empty placed_blocks, measured_bytes, grow_max_at and
 * grow_max_copied_bytes (the fixture's: no allocator layer, not the memory scenario, not
 * push_latency). */
static const char *clock_fields(const char *passes, const char *cache, const char *short_region)
{
	static char buf[2][200];
	static int which;
	char *out = buf[which ^= 1];
	snprintf(out, sizeof buf[0], "%s,,,", clock_head(passes, cache, short_region));
	return out;
}

/* fixed + more: the fixed columns of a row built in two parts. */
static const char *cat(const char *fixed, const char *more)
{
	static char buf[2][4096];
	static int which;
	char *out = buf[which ^= 1];
	snprintf(out, sizeof buf[0], "%s%s", fixed, more);
	return out;
}

/* What follows the fixed columns: the columns of the axes appended as data (axes.h), in
 * hb_axes order, then the newline. header: their names; else a row of a scenario that
 * takes none of them: an empty field each. Returns fixed + that (static storage). */
static const char *with_axes(const char *fixed, bool header)
{
	static char buf[2][4096];
	static int which;
	char *out = buf[which ^= 1];
	const struct hb_axis *const *all;
	size_t n = hb_axes(&all);
	int at = snprintf(out, sizeof buf[0], "%s", fixed);
	for (size_t i = HB_N_SCHEMA3_AXES; i < n; i++)
		at += snprintf(out + at, sizeof buf[0] - (size_t)at, ",%s", header ? all[i]->name : "");
	snprintf(out + at, sizeof buf[0] - (size_t)at, "\n");
	return out;
}

static char *write_to_string(void (*fn)(FILE *, const void *), const void *arg)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	assert_non_null(f);
	fn(f, arg);
	fclose(f);
	return buf;
}

static void header_fn(FILE *f, const void *arg) { (void)arg; hb_csv_header(f); }
static void row_fn(FILE *f, const void *arg) { hb_csv_row(f, arg); }

static void test_header_is_schema_4(void **state)
{
	(void)state;
	char *s = write_to_string(header_fn, NULL);
	assert_string_equal(s, with_axes(header_v4, true));
	free(s);
}

static struct hb_env env = {
	.host = "box", .cpu_model = "Some \"Fast\" CPU, 8 cores", .compiler = "gcc 12",
	.cflags = "-O2", .git_rev = "abc", .run_id = "r1", .invocation = "t0-box-7", .n_cpus = 2, .hypervisor = true,
	.governor = "unavailable", .turbo = "on", .pinned_cpu = -1, .build_type = "release",
	.perf_paranoid = 2,
};

/* A row of a measured repetition of create on handle_map (the tests below change it). */
struct fixture {
	struct hb_region r;
	struct dod_ops desc;
	struct hb_row row;
};

static void fixture_init(struct fixture *fx)
{
	fx->r = (struct hb_region){.elapsed_ns = 2000, .tsc_cycles = 4000, .have_tsc = true,
	                           .minflt = 3, .cpu_ns = 1900};
	fx->r.ctr[1] = 0; /* measured zero must print as 0; unmeasured must print nothing */
	fx->r.have[1] = true;
	fx->desc = (struct dod_ops){.name = "handle_map", .family = "handle_map",
	                            .removal = "swappop", .alloc = "geometric_realloc",
	                            .layout = "aos", .elem_bytes = 8,
	                            .caps = DOD_CAP_HANDLES | DOD_CAP_DETECTS_STALE};
	fx->row = (struct hb_row){
		.env = &env, .timestamp = "2026-01-01T00:00:00Z", .ops_desc = &fx->desc,
		.scenario = "create", .seed = 7,
		.axis = {[HB_AXIS_N] = {.u = 1000}, [HB_AXIS_ELEM] = {.u = 8},
		         [HB_AXIS_ORDER] = {.u = SCN_SEQ}, [HB_AXIS_HOLE_RATIO] = {.d = 0},
		         [HB_AXIS_HOLE_PATTERN] = {.u = SCN_HOLES_NONE}},
		.rep = 3, .region = &fx->r, .measured = true, .checksum = 499500, .verified = true,
		.ops = 500, .swaps = -1, .interleave_pos = -1, .samples = -1, .reserved_bytes = -1,
		.committed_bytes = -1, .placed_blocks = -1, .measured_bytes = -1,
		.grow_max_at = -1, .grow_max_copied = -1,
	};
}

/* Whether a 2 us region is short here (below 1000 clock floors: on every machine so
 * far), as the short_region field of the fixture's row says. */
static const char *fixture_short(void)
{
	return 2000 < hb_min_region_ns() ? "1" : "0";
}

static void test_row_quoting_and_missing_counters(void **state)
{
	(void)state;
	struct fixture fx;
	fixture_init(&fx);
	struct hb_region *r = &fx.r;
	struct hb_row *row = &fx.row;
	char *s = write_to_string(row_fn, row);
	/* ns_per_op = elapsed_ns / ops (2000 / 500), not / n. */
	assert_string_equal(s, with_axes(cat("4,2026-01-01T00:00:00Z,box,\"Some \"\"Fast\"\" CPU, 8 cores\","
	                       "gcc 12,-O2,abc,handle_map,create,1000,8,0,seq,7,3,2000,4,4000,"
	                       "none,,0,,,,499500,1,r1,"
	                       /* no sim, no PAPI multiplexing column, 3 faults, no alloc count,
	                        * not interleaved, unpinned */
	                       ",,,,,,,,,,,3,0,,0,,2,1,unavailable,on,,release,2,not used,,1900,,"
	                       /* no holes, 500 ops, no latency samples, the descriptor's axes */
	                       "none,500,,,,,,,handle_map,swappop,geometric_realloc,aos,"
	                       "handles|detects_stale,t0-box-7,,,ok,,"
	                       /* no growth measured as 0 growths; no samples, no grow_* */
	                       "0,0,0,,,,",
	                       /* one-shot work: 1 pass, after the setup */
	                       clock_fields("1", "setup", fixture_short())), false));
	free(s);
	row->swaps = 12;
	row->verified = false;
	r->have_tsc = false;
	s = write_to_string(row_fn, row);
	assert_non_null(strstr(s, ",2000,4,,none,"));
	assert_non_null(strstr(s, ",499500,0,r1,12,"));
	free(s);
	/* Under callgrind the sim columns carry the token sim.c replaces: "@cg<seq>@" and
	 * eight empty fields; allocation counts appear when measured. */
	r->have_sim = true;
	r->sim_seq = 42;
	r->have_allocs = true;
	r->allocs = 5;
	r->frees = 4;
	row->interleave_pos = 7;
	s = write_to_string(row_fn, row);
	assert_non_null(strstr(s, ",r1,12,@cg42@,,,,,,,,,,3,0,5,0,7,"));
	assert_non_null(strstr(s, ",4,1900,,none,"));
	free(s);
	/* With PAPI the PMU probe's enabled/running ratio fills pmu_scale. */
	r->have_pmu_scale = true;
	r->pmu_scale = 1.25;
	s = write_to_string(row_fn, row);
	assert_non_null(strstr(s, ",4,1900,1.25,none,"));
	free(s);
}

/* Holes, latency samples, growth, and a container without capabilities. */
static void test_row_holes_latency_and_growth(void **state)
{
	(void)state;
	struct fixture fx;
	fixture_init(&fx);
	struct hb_row *row = &fx.row;
	row->axis[HB_AXIS_HOLE_RATIO].d = 0.25;
	row->axis[HB_AXIS_HOLE_PATTERN].u = SCN_HOLES_CLUSTERED;
	row->samples = 1000;
	row->p50_ns = 20;
	row->p99_ns = 45.5;
	row->p999_ns = 400;
	row->max_ns = 12000;
	row->sample_cost_ns = 9.5;
	fx.desc.caps = 0;
	row->reserved_bytes = 4096;
	row->committed_bytes = 1024;
	/* Growth: 3 reallocations, 2 moved, 4 KiB copied; 3 samples grew. */
	fx.r.grows = 3;
	fx.r.grow_moves = 2;
	fx.r.grow_copied_bytes = 4096;
	row->grow_samples = 3;
	row->grow_p50_ns = 700;
	row->grow_max_ns = 9000;
	row->plain_max_ns = 12000;
	char *s = write_to_string(row_fn, row);
	assert_non_null(strstr(s, ",handle_map,create,1000,8,0.25,seq,"));
	assert_non_null(strstr(s, with_axes(cat(",clustered,500,20,45.5,400,12000,1000,9.5,handle_map,"
	                                    "swappop,geometric_realloc,aos,none,t0-box-7,4096,1024,"
	                                    "ok,,3,2,4096,3,700,9000,12000",
	                                    clock_fields("1", "setup", fixture_short())),
	                                    false)));
	free(s);
}

/* Repeated work (scn_run_passes): its K and cache condition; a region as long as the
 * minimum is not short, one ns less is. */
static void test_row_clock_columns(void **state)
{
	(void)state;
	struct fixture fx;
	fixture_init(&fx);
	fx.r.passes = 40;
	fx.r.cache = "warm";
	fx.r.elapsed_ns = hb_min_region_ns();
	char *s = write_to_string(row_fn, &fx.row);
	assert_non_null(strstr(s, with_axes(clock_fields("40", "warm", "0"), false)));
	free(s);
	fx.r.elapsed_ns = hb_min_region_ns() - 1;
	fx.r.cache = "cold";
	s = write_to_string(row_fn, &fx.row);
	assert_non_null(strstr(s, with_axes(clock_fields("40", "cold", "1"), false)));
	free(s);
	/* The blocks the heap placement moved (the axis place). */
	fx.row.placed_blocks = 3;
	s = write_to_string(row_fn, &fx.row);
	assert_non_null(strstr(s, with_axes(cat(clock_head("40", "cold", "1"), "3,,,"), false)));
	free(s);
	/* The bytes the process measured (the memory scenarios). */
	fx.row.measured_bytes = 4096;
	s = write_to_string(row_fn, &fx.row);
	assert_non_null(strstr(s, with_axes(cat(clock_head("40", "cold", "1"), "3,4096,,"), false)));
	free(s);
	/* push_latency's slowest growing push: the items held before it, the bytes it copied. */
	fx.row.grow_max_at = 524288;
	fx.row.grow_max_copied = 4194304;
	s = write_to_string(row_fn, &fx.row);
	assert_non_null(strstr(s, with_axes(cat(clock_head("40", "cold", "1"), "3,4096,524288,4194304"),
	                                    false)));
	free(s);
}

/* A repetition without a measurement (its child crashed in a warm-up): the measured
 * fields and rep are empty, never 0; status and why at the end. */
static void test_row_without_a_measurement(void **state)
{
	(void)state;
	struct fixture fx;
	fixture_init(&fx);
	struct hb_row *row = &fx.row;
	struct hb_region none = {0};
	row->region = &none;
	row->measured = false;
	row->verified = false;
	row->rep = -1;
	row->interleave_pos = 7;
	row->axis[HB_AXIS_HOLE_RATIO].d = 0.25;
	row->axis[HB_AXIS_HOLE_PATTERN].u = SCN_HOLES_CLUSTERED;
	fx.desc.caps = 0;
	row->status = "crashed";
	row->status_detail = "killed by signal 11 (SIGSEGV: Segmentation fault)";
	char *s = write_to_string(row_fn, row);
	assert_string_equal(s, with_axes(cat("4,2026-01-01T00:00:00Z,box,\"Some \"\"Fast\"\" CPU, 8 cores\","
	                       "gcc 12,-O2,abc,handle_map,create,1000,8,0.25,seq,7,"
	                       /* rep, elapsed_ns, ns_per_op, tsc_cycles empty; no counters, no
	                        * checksum, not verified */
	                       ",,,,none,,,,,,,0,r1,"
	                       /* no swaps, no sim; no faults or allocation counts */
	                       ",,,,,,,,,,,,,,0,7,2,1,unavailable,on,,release,2,not used,,,,"
	                       /* no ops, no latency */
	                       "clustered,,,,,,,,handle_map,swappop,geometric_realloc,aos,none,"
	                       "t0-box-7,,,crashed,killed by signal 11 (SIGSEGV: Segmentation "
	                       "fault),"
	                       /* no growth counts, no samples: every growth field empty */
	                       ",,,,,,",
	                       /* no passes, no short_region without a measurement */
	                       clock_fields("", "setup", "")), false));
	free(s);
}

static void test_open_checks_header(void **state)
{
	(void)state;
	char path[] = "/tmp/dodbench_csv_XXXXXX";
	int fd = mkstemp(path);
	assert_true(fd >= 0);
	close(fd);
	char err[256];
	bool created = true;
	FILE *f = hb_csv_open(path, &created, err, sizeof err); /* empty file: header written */
	assert_non_null(f);
	assert_false(created); /* it existed: a refused run must not remove it */
	fclose(f);
	f = hb_csv_open(path, &created, err, sizeof err);       /* same header: accepted, not repeated */
	assert_non_null(f);
	fclose(f);
	f = fopen(path, "r");
	char line[1024];
	int lines = 0;
	while (fgets(line, sizeof line, f))
		lines++;
	fclose(f);
	assert_int_equal(lines, 1);

	f = fopen(path, "w");
	fputs("schema,something_else\n", f);
	fclose(f);
	assert_null(hb_csv_open(path, &created, err, sizeof err));
	assert_non_null(strstr(err, "different header"));
	unlink(path);
	assert_null(hb_csv_open("/nonexistent-dir/x.csv", &created, err, sizeof err));
	assert_non_null(strstr(err, "cannot open"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_header_is_schema_4),
		cmocka_unit_test(test_row_quoting_and_missing_counters),
		cmocka_unit_test(test_row_holes_latency_and_growth),
		cmocka_unit_test(test_row_clock_columns),
		cmocka_unit_test(test_row_without_a_measurement),
		cmocka_unit_test(test_open_checks_header),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
