/* measure.c - the timed region: CLOCK_MONOTONIC, CPU time, the TSC, PAPI counters,
 * page faults, allocator calls, growth by reallocation, and callgrind's collection toggle.
 *
 * PAPI is optional at build time (HAVE_PAPI, set by the Makefile when papi.h exists) and
 * at run time: on a machine without a PMU (this KVM guest) PAPI adds none of the events,
 * the run goes on, and the counter columns stay empty with counter_source=none.
 * Each event is added on its own so a CPU that lacks one (often PAPI_L3_TCM) still gives
 * the others.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/perf_event.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <time.h>
#include <valgrind/callgrind.h>

#ifdef HAVE_PAPI
#include <papi.h>
#endif

#include "hb.h"

const char *const hb_counter_columns[HB_N_COUNTERS] = {
	"papi_tot_cyc", "papi_tot_ins", "papi_l1_dcm", "papi_l2_dcm", "papi_l3_tcm",
};

static bool use_papi, use_callgrind;
static bool multiplexed; /* the PAPI event set is multiplexed (papi_multiplexed column) */
static bool added[HB_N_COUNTERS];
static char papi_status[256] = "not used";
static uint64_t sim_seq;
static int probe_fd = -1; /* PMU sharing probe, open while PAPI counts */

int hb_perf_probe_open(unsigned type, unsigned long long config)
{
	struct perf_event_attr a;
	memset(&a, 0, sizeof a);
	a.size = sizeof a;
	a.type = type;
	a.config = config;
	a.disabled = 1;
	a.exclude_kernel = 1;
	a.exclude_hv = 1;
	a.read_format = PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_TOTAL_TIME_RUNNING;
	return (int)syscall(SYS_perf_event_open, &a, 0, -1, -1, 0);
}

void hb_perf_probe_start(int fd)
{
	ioctl(fd, PERF_EVENT_IOC_RESET, 0);
	ioctl(fd, PERF_EVENT_IOC_ENABLE, 0);
}

int hb_perf_probe_stop(int fd, uint64_t *enabled_ns, uint64_t *running_ns)
{
	ioctl(fd, PERF_EVENT_IOC_DISABLE, 0);
	uint64_t v[3]; /* value, time_enabled, time_running */
	if (read(fd, v, sizeof v) != (ssize_t)sizeof v)
		return -1;
	*enabled_ns = v[1];
	*running_ns = v[2];
	return 0;
}
#ifdef HAVE_PAPI
static int event_set = PAPI_NULL;
static const int events[HB_N_COUNTERS] = {
	PAPI_TOT_CYC, PAPI_TOT_INS, PAPI_L1_DCM, PAPI_L2_DCM, PAPI_L3_TCM,
};
#endif

const char *hb_counter_source(void)
{
	return use_callgrind ? "callgrind" : use_papi ? "papi" : "none";
}

const char *hb_papi_status(void) { return papi_status; }

bool hb_papi_multiplexed(void) { return use_papi && multiplexed; }

#ifdef HAVE_PAPI
/* Adds each event alone to event_set (added[] says which took); returns how many did, and
 * in *conflict whether one was refused for want of counters (PAPI_ECNFLCT, PAPI_ECOUNT). */
static int add_events(bool *conflict)
{
	int n_added = 0;
	*conflict = false;
	for (int i = 0; i < HB_N_COUNTERS; i++) {
		int rc = PAPI_add_event(event_set, events[i]);
		added[i] = rc == PAPI_OK;
		n_added += added[i];
		*conflict |= rc == PAPI_ECNFLCT || rc == PAPI_ECOUNT;
	}
	return n_added;
}

/* Replaces event_set by an empty multiplexed one (PAPI's order: PAPI_multiplex_init once,
 * a new empty set, PAPI_assign_eventset_component, PAPI_set_multiplex) and adds the events
 * again. Returns the number added, or -1 (event_set then holds the standard set again with
 * what it could add) when PAPI refuses to multiplex. */
static int add_multiplexed(void)
{
	bool conflict;
	PAPI_cleanup_eventset(event_set);
	PAPI_destroy_eventset(&event_set);
	event_set = PAPI_NULL;
	if (PAPI_multiplex_init() != PAPI_OK || PAPI_create_eventset(&event_set) != PAPI_OK)
		return -1;
	if (PAPI_assign_eventset_component(event_set, 0) != PAPI_OK ||
	    PAPI_set_multiplex(event_set) != PAPI_OK) {
		PAPI_destroy_eventset(&event_set);
		event_set = PAPI_NULL;
		if (PAPI_create_eventset(&event_set) == PAPI_OK)
			add_events(&conflict);
		return -1;
	}
	multiplexed = true;
	return add_events(&conflict);
}

/* Adds what it can; returns the number of events added, and why none were in why. When
 * the PMU has fewer counters than events (an add refused with PAPI_ECNFLCT), the set is
 * multiplexed: the kernel time-shares the counters and PAPI scales each count up to the
 * whole region (an estimate: papi_multiplexed=1 on the rows). */
static int papi_setup(char *why, size_t why_len)
{
	multiplexed = false;
	int rc = PAPI_library_init(PAPI_VER_CURRENT);
	if (rc != PAPI_VER_CURRENT) {
		snprintf(why, why_len, "PAPI_library_init failed: %s", PAPI_strerror(rc));
		return 0;
	}
	if ((rc = PAPI_create_eventset(&event_set)) != PAPI_OK) {
		snprintf(why, why_len, "PAPI_create_eventset failed: %s", PAPI_strerror(rc));
		return 0;
	}
	bool conflict;
	int n_added = add_events(&conflict);
	if (conflict) {
		int n_mux = add_multiplexed();
		n_added = n_mux >= 0 ? n_mux : n_added;
	}
	if (n_added == 0) {
		const PAPI_component_info_t *ci = PAPI_get_component_info(0);
		if (ci && ci->disabled)
			snprintf(why, why_len, "PAPI component %.40s disabled: %.180s", ci->name,
			         ci->disabled_reason);
		else
			snprintf(why, why_len,
			         "PAPI offers none of PAPI_TOT_CYC, PAPI_TOT_INS, PAPI_L1_DCM, "
			         "PAPI_L2_DCM, PAPI_L3_TCM here (no hardware PMU, e.g. a VM)");
	}
	return n_added;
}

/* papi_status's "ok: ..." line for n_added events. */
static void status_ok(int n_added)
{
	snprintf(papi_status, sizeof papi_status, "ok: %d of %d events%s", n_added, HB_N_COUNTERS,
	         multiplexed ? ", multiplexed" : "");
}
#endif

int hb_counters_init(enum hb_counter_mode mode, char *notice, size_t notice_len,
                     char *err, size_t err_len)
{
	notice[0] = err[0] = '\0';
	use_papi = use_callgrind = false;
	if (mode == HB_COUNTERS_NONE)
		return 0;
	if (mode == HB_COUNTERS_CALLGRIND) {
		if (!RUNNING_ON_VALGRIND) {
			snprintf(err, err_len, "callgrind counters need the process to run under "
			                       "valgrind --tool=callgrind (use --counters callgrind)");
			return -1;
		}
		use_callgrind = true;
		return 0;
	}
	char why[256] = "dodbench was built without PAPI (install libpapi-dev and rebuild)";
#ifdef HAVE_PAPI
	int n_added = papi_setup(why, sizeof why);
	use_papi = n_added > 0;
	if (use_papi) {
		status_ok(n_added);
		/* PAPI reads raw counts when it does not multiplex and does not say whether the
		 * kernel time-shared the PMU; this probe does (pmu_scale column). */
		probe_fd = hb_perf_probe_open(PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES);
	}
	else
		snprintf(papi_status, sizeof papi_status, "%s", why);
#else
	snprintf(papi_status, sizeof papi_status, "not built");
#endif
	if (use_papi)
		return 0;
	if (mode == HB_COUNTERS_PAPI) {
		snprintf(err, err_len, "--counters papi: %s", why);
		return -1;
	}
	snprintf(notice, notice_len,
	         "notice: hardware counters unavailable (%s); counter columns left empty, "
	         "counter_source=none", why);
	return 0;
}

void hb_counters_fork_prepare(void)
{
#ifdef HAVE_PAPI
	if (use_papi) {
		PAPI_cleanup_eventset(event_set);
		PAPI_destroy_eventset(&event_set);
		PAPI_shutdown();
		event_set = PAPI_NULL;
	}
#endif
	if (probe_fd >= 0) {
		close(probe_fd);
		probe_fd = -1;
	}
}

void hb_counters_fork_child(void)
{
#ifdef HAVE_PAPI
	if (use_papi) {
		char why[200];
		for (int i = 0; i < HB_N_COUNTERS; i++)
			added[i] = false;
		int n_added = papi_setup(why, sizeof why);
		use_papi = n_added > 0;
		if (use_papi)
			status_ok(n_added);
		else
			snprintf(papi_status, sizeof papi_status, "in the child: %s", why);
		probe_fd = use_papi ? hb_perf_probe_open(PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES)
		                    : -1;
	}
#endif
}

#ifdef HB_HAVE_TSC
#include <cpuid.h>
/* The TSC at a region's edges: RDTSCP (waits for the instructions before it) where CPUID
 * lists it, else LFENCE; RDTSC; LFENCE, the same ordering. A KVM guest may execute
 * rdtscp without listing it, and valgrind 3.19 stops on rdtscp (SIGILL) on such a host
 * even when its own CPUID answer lists it, so under valgrind (--counters callgrind,
 * where the TSC measures the simulator anyway) it is never used. The branch is taken the
 * same way every time: predicted. */
static int tsc_rdtscp = -1; /* -1: not asked yet (tsc_probe, before any region's clock) */
static void tsc_probe(void)
{
	if (tsc_rdtscp < 0) {
		unsigned a, b, c, d; /* CPUID traps to the hypervisor in a VM: once, untimed */
		tsc_rdtscp = !RUNNING_ON_VALGRIND &&
		             __get_cpuid(0x80000001u, &a, &b, &c, &d) && (d & (1u << 27));
	}
}
static uint64_t tsc_read(void)
{
	if (tsc_rdtscp) {
		unsigned aux;
		return __rdtscp(&aux);
	}
	_mm_lfence();
	uint64_t t = __rdtsc();
	_mm_lfence();
	return t;
}
#endif

static void ts_now(clockid_t clock, struct timespec_pair *t)
{
	struct timespec ts;
	clock_gettime(clock, &ts);
	t->sec = ts.tv_sec;
	t->nsec = ts.tv_nsec;
}

static uint64_t ts_since(clockid_t clock, const struct timespec_pair *t0)
{
	struct timespec_pair t1;
	ts_now(clock, &t1);
	return (uint64_t)((t1.sec - t0->sec) * 1000000000LL + (t1.nsec - t0->nsec));
}

void hb_begin(struct hb_region *r)
{
#ifdef HB_HAVE_TSC
	tsc_probe();
#endif
	uint64_t *samples = r->samples;
	size_t samples_cap = r->samples_cap;
	memset(r, 0, sizeof *r);
	r->samples = samples;
	r->samples_cap = samples_cap;
	struct rusage ru;
	getrusage(RUSAGE_SELF, &ru);
	r->minflt = ru.ru_minflt;
	r->majflt = ru.ru_majflt;
	if (hb_alloc_counts)
		hb_alloc_counts(&r->allocs0, &r->frees0);
	r->grows0 = dod_growth.grows;
	r->grow_moves0 = dod_growth.moves;
	r->grow_copied_bytes0 = dod_growth.copied_bytes;
	ts_now(CLOCK_PROCESS_CPUTIME_ID, &r->cpu0);
	if (probe_fd >= 0)
		hb_perf_probe_start(probe_fd);
#ifdef HAVE_PAPI
	if (use_papi)
		PAPI_start(event_set);
#endif
	ts_now(CLOCK_MONOTONIC, &r->t0);
#ifdef HB_HAVE_TSC
	r->tsc0 = tsc_read();
#endif
	if (use_callgrind) {
		CALLGRIND_ZERO_STATS;
		CALLGRIND_TOGGLE_COLLECT;
	}
	r->lap_last = hb_lap_clock();
}

void hb_end(struct hb_region *r)
{
	if (use_callgrind) {
		CALLGRIND_TOGGLE_COLLECT;
		char name[48];
		snprintf(name, sizeof name, "dodbench-region-%llu", (unsigned long long)++sim_seq);
		CALLGRIND_DUMP_STATS_AT(name);
		r->sim_seq = sim_seq;
		r->have_sim = true;
	}
#ifdef HB_HAVE_TSC
	uint64_t tsc1 = tsc_read();
	r->tsc_cycles = tsc1 - r->tsc0;
	r->have_tsc = true;
#endif
	r->elapsed_ns = ts_since(CLOCK_MONOTONIC, &r->t0);
#ifdef HAVE_PAPI
	if (use_papi) {
		long long v[HB_N_COUNTERS] = {0};
		int got = PAPI_stop(event_set, v) == PAPI_OK;
		/* PAPI_stop fills values in the order the events were added. */
		for (int i = 0, k = 0; i < HB_N_COUNTERS; i++)
			if (added[i]) {
				r->ctr[i] = v[k++];
				r->have[i] = got;
			}
	}
#endif
	uint64_t enabled, running;
	if (probe_fd >= 0 && hb_perf_probe_stop(probe_fd, &enabled, &running) == 0 && running) {
		r->pmu_scale = (double)enabled / (double)running;
		r->have_pmu_scale = true;
	}
	r->cpu_ns = ts_since(CLOCK_PROCESS_CPUTIME_ID, &r->cpu0);
	if (hb_alloc_counts) {
		unsigned long long a, f;
		hb_alloc_counts(&a, &f);
		r->allocs = a - r->allocs0;
		r->frees = f - r->frees0;
		r->have_allocs = true;
	}
	r->grows = dod_growth.grows - r->grows0;
	r->grow_moves = dod_growth.moves - r->grow_moves0;
	r->grow_copied_bytes = dod_growth.copied_bytes - r->grow_copied_bytes0;
	struct rusage ru;
	getrusage(RUSAGE_SELF, &ru);
	r->minflt = ru.ru_minflt - r->minflt;
	r->majflt = ru.ru_majflt - r->majflt;
}

int hb_samples_reserve(struct hb_region *r, size_t count)
{
	hb_region_release(r);
	if (count == 0)
		return 0;
	if (count > SIZE_MAX / sizeof *r->samples ||
	    !(r->samples = malloc(count * sizeof *r->samples)))
		return -1;
	memset(r->samples, 0, count * sizeof *r->samples); /* first-touch faults happen here */
	r->samples_cap = count;
	return 0;
}

void hb_region_release(struct hb_region *r)
{
	free(r->samples);
	r->samples = NULL;
	r->samples_n = r->samples_cap = 0;
}

static uint64_t mono_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

double hb_ns_per_tick(void)
{
#ifdef HB_HAVE_TSC
	/* Calibrated once: TSC ticks against CLOCK_MONOTONIC over at least 20 ms. The TSC of
	 * every CPU since about 2008 runs at a constant rate (constant_tsc), also in a VM. */
	static double ns_per_tick;
	if (ns_per_tick == 0) {
		uint64_t t0 = mono_ns(), c0 = __rdtsc(), t1, c1;
		do {
			t1 = mono_ns();
			c1 = __rdtsc();
		} while (t1 - t0 < 20000000u);
		ns_per_tick = c1 > c0 ? (double)(t1 - t0) / (double)(c1 - c0) : 1.0;
	}
	return ns_per_tick;
#else
	return 1.0;
#endif
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return (x > y) - (x < y);
}

double hb_sample_cost_ns(void)
{
	/* The median of 4096 empty laps: what one sample adds to an operation's latency (and,
	 * once per operation, to the region's elapsed time). */
	static double cost = -1;
	if (cost < 0) {
		enum { K = 4096 };
		static uint64_t buf[K];
		struct hb_region r = {.samples = buf, .samples_cap = K};
		r.lap_last = hb_lap_clock();
		for (int i = 0; i < K; i++)
			hb_lap(&r);
		qsort(buf, K, sizeof *buf, cmp_u64);
		cost = (double)buf[K / 2] * hb_ns_per_tick();
	}
	return cost;
}

/* One empty region's clock part, as hb_begin and hb_end read it: the monotonic clock,
 * then the TSC, nothing, the TSC, the clock. ns. */
static uint64_t empty_region_ns(void)
{
	struct timespec_pair t0;
	ts_now(CLOCK_MONOTONIC, &t0);
#ifdef HB_HAVE_TSC
	uint64_t a = tsc_read();
	DOD_KEEP(a);
	uint64_t b = tsc_read();
	DOD_KEEP(b);
#endif
	return ts_since(CLOCK_MONOTONIC, &t0);
}

double hb_clock_floor_ns(void)
{
	/* Measured once per process, like nanobench's clock resolution: the median of 1001
	 * empty regions after 100 discarded ones (the clock's code paged in), and never below
	 * the clock's stated resolution or the smallest step two reads ever differ by (a
	 * coarse clock that steps every 1 us reads 0 for most empty regions). */
	static double floor_ns = -1;
	if (floor_ns < 0) {
		enum { WARM = 100, K = 1001 };
		static uint64_t buf[K];
#ifdef HB_HAVE_TSC
		tsc_probe();
#endif
		for (int i = 0; i < WARM; i++)
			(void)empty_region_ns();
		uint64_t step = UINT64_MAX;
		for (int i = 0; i < K; i++) {
			buf[i] = empty_region_ns();
			if (buf[i] && buf[i] < step)
				step = buf[i];
		}
		qsort(buf, K, sizeof *buf, cmp_u64);
		struct timespec res = {0, 0};
		clock_getres(CLOCK_MONOTONIC, &res);
		double f = (double)buf[K / 2];
		double stated = (double)res.tv_sec * 1e9 + (double)res.tv_nsec;
		if (stated > f)
			f = stated;
		if (step != UINT64_MAX && (double)step > f)
			f = (double)step;
		floor_ns = f > 1 ? f : 1;
	}
	return floor_ns;
}

uint64_t hb_min_region_ns(void)
{
	if (use_callgrind)
		return 0; /* the simulator counts; its clock measures nothing of the machine */
	return (uint64_t)(hb_clock_floor_ns() * HB_MIN_REGION_FLOORS);
}

bool hb_can_evict(void)
{
#ifdef HB_HAVE_TSC
	unsigned a, b, c, d;
	return __get_cpuid(1, &a, &b, &c, &d) && (d & (1u << 19)); /* CPUID.1:EDX.CLFSH */
#else
	return false;
#endif
}

#ifdef HB_HAVE_TSC
/* CLFLUSH's line size (CPUID.1:EBX[15:8] x 8 bytes), 64 when CPUID says 0. */
static size_t flush_line_bytes(void)
{
	unsigned a, b, c, d;
	size_t line = __get_cpuid(1, &a, &b, &c, &d) ? ((b >> 8) & 0xff) * 8 : 0;
	return line ? line : 64;
}

/* Flushes the resident pages of [start, end) (mincore in windows of 4096 pages). */
static void flush_range(uintptr_t start, uintptr_t end, size_t page, size_t line)
{
	static unsigned char resident[4096];
	for (uintptr_t at = start; at < end;) {
		size_t pages = (end - at) / page < 4096 ? (end - at) / page : 4096;
		if (!pages || mincore((void *)at, pages * page, resident) != 0)
			return;
		for (size_t i = 0; i < pages; i++)
			if (resident[i] & 1)
				for (size_t o = 0; o < page; o += line)
					_mm_clflush((const void *)(at + i * page + o));
		at += pages * page;
	}
}
#endif

int hb_evict_caches(void)
{
#ifdef HB_HAVE_TSC
	if (!hb_can_evict())
		return -1;
	FILE *maps = fopen("/proc/self/maps", "re");
	if (!maps)
		return -1;
	size_t page = (size_t)sysconf(_SC_PAGESIZE), line = flush_line_bytes();
	long phys_pages = sysconf(_SC_PHYS_PAGES);
	uintptr_t cap = phys_pages > 0 ? (uintptr_t)phys_pages * page / 2 : UINTPTR_MAX;
	char buf[512];
	while (fgets(buf, sizeof buf, maps)) {
		unsigned long long lo, hi;
		char perms[8];
		if (sscanf(buf, "%llx-%llx %7s", &lo, &hi, perms) != 3 || perms[0] != 'r' ||
		    perms[1] != 'w' || hi <= lo || hi - lo > cap)
			continue; /* not readable and writable (data), or too large to be ours */
		flush_range((uintptr_t)lo, (uintptr_t)hi, page, line);
		if (!strchr(buf, '\n')) /* a line longer than buf: skip the rest of it */
			for (int ch; (ch = fgetc(maps)) != EOF && ch != '\n';)
				;
	}
	fclose(maps);
	_mm_mfence();
	return 0;
#else
	return -1;
#endif
}

/* The kernel's VmData of this process (/proc/self/status, kB), in bytes; -1 if unread. */
static long long vm_data_bytes(void)
{
	FILE *f = fopen("/proc/self/status", "r");
	if (!f)
		return -1;
	char line[256];
	long long kb = -1;
	while (kb < 0 && fgets(line, sizeof line, f))
		if (sscanf(line, "VmData: %lld kB", &kb) != 1)
			kb = -1;
	fclose(f);
	return kb < 0 ? -1 : kb * 1024;
}

long long hb_process_bytes(void)
{
	if (!hb_heap_bytes)
		return -1;
	long long data = vm_data_bytes(), in_use, obtained;
	if (data < 0)
		return -1;
	hb_heap_bytes(&in_use, &obtained);
	return in_use + (data - obtained);
}
