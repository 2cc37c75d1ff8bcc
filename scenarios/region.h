/* region.h - the timed region and its optional latency samples: the interface of the
 * scenario layer that the harness implements (harness/measure.c). It lives
 * in scenarios/ so that dependencies point one way (docs/ARCHITECTURE.md): scenarios know
 * this header, axis.h and the container contract, nothing of harness/.
 *
 *   setup (untimed) -> [hb_samples_reserve] -> hb_begin -> work [hb_lap per op] -> hb_end
 *   -> verification (untimed)
 */
#ifndef HB_REGION_H
#define HB_REGION_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>

#if defined(__x86_64__) || defined(__i386__)
#include <x86intrin.h>
#define HB_HAVE_TSC 1
#endif

#define HB_N_COUNTERS 5 /* PAPI_TOT_CYC, PAPI_TOT_INS, PAPI_L1_DCM, PAPI_L2_DCM, PAPI_L3_TCM */

/* One timed region's figures. Anything with a false have_* flag was not measured: it is
 * written as an empty CSV field, never as 0. A region starts zeroed ({0}); the harness
 * releases its samples with hb_region_release after reading them. */
struct hb_region {
	uint64_t elapsed_ns;      /* CLOCK_MONOTONIC, ns */
	uint64_t cpu_ns;          /* CLOCK_PROCESS_CPUTIME_ID, ns (read just outside the clock) */
	uint64_t tsc_cycles;      /* TSC delta (rdtscp, else lfence+rdtsc), ticks, not core cycles */
	bool have_tsc;
	long long ctr[HB_N_COUNTERS];
	bool have[HB_N_COUNTERS];
	long minflt, majflt;      /* page faults during the region (getrusage) */
	unsigned long long allocs, frees; /* allocator calls during the region */
	bool have_allocs;         /* false when the binary has no allocation counter */
	/* Buffers grown by reallocation during the region, those that moved, bytes copied
	 * (dod_growth, containers/dod_common.h). */
	uint64_t grows, grow_moves, grow_copied_bytes;
	uint64_t sim_seq;         /* callgrind: number of the stats dump of this region */
	bool have_sim;
	/* PMU sharing probe (with PAPI): enabled / running time of a perf cycles event beside
	 * PAPI's event set; 1 = counted the whole region, > 1 = PMU time-shared and PAPI's
	 * raw counts undercount by about that factor. */
	double pmu_scale;
	bool have_pmu_scale;
	/* Latency samples (hb_lap): duration of each operation in ticks (TSC ticks on x86,
	 * else ns), HB_SAMPLE_GREW set in those hb_mark_growth marked, samples_n of
	 * samples_cap used. Kept across hb_begin. */
	uint64_t *samples;
	size_t samples_n, samples_cap;
	uint64_t lap_last;
	/* Set by scn_run_passes after hb_end (scenarios/scenario.h): the times the work
	 * repeated inside the region (K; 0: the scenario did one piece of work, written as 1)
	 * and the cache condition it ran under ("warm" or "cold"; NULL: "setup", the state
	 * its untimed setup left). */
	uint64_t passes;
	const char *cache;
	/* private */
	struct timespec_pair { long long sec, nsec; } t0, cpu0;
	uint64_t tsc0;
	unsigned long long allocs0, frees0;
	uint64_t grows0, grow_moves0, grow_copied_bytes0;
};

/* Starts a timed region. Order, outermost first: page-fault, allocation and growth snapshots,
 * CPU time, PAPI, clock, TSC, callgrind collection on; so the region's own bookkeeping
 * stays outside the clock, and outside the simulated counts entirely. */
void hb_begin(struct hb_region *r);
/* Ends it in reverse order and fills r. */
void hb_end(struct hb_region *r);

/* The bytes the process holds, as measured, not as any container declares them: the
 * heap's in-use bytes (hb_heap_bytes, hb.h) plus the private writable mappings that are not the
 * heap's (the kernel's VmData, /proc/self/status, less the heap's obtained bytes: a vm
 * store's committed pages, mprotect'ed writable). Exact and not timing-dependent (no page
 * residency is read); only a difference of two readings means anything. Returns -1
 * without the allocator layer (the sanitizer builds) or without /proc. */
long long hb_process_bytes(void);

/* Makes room for `count` latency samples in r (call before hb_begin, untimed: the buffer
 * is allocated and touched so recording never faults). Returns 0, or -1 when the buffer
 * does not fit in memory. */
int hb_samples_reserve(struct hb_region *r, size_t count);
/* Frees r's samples buffer (the harness calls it after reading the samples). */
void hb_region_release(struct hb_region *r);

/* The clock of the samples: TSC ticks (rdtsc, no fence: ~20 cycles a read, measured and
 * reported as sample_cost_ns) on x86, CLOCK_MONOTONIC ns elsewhere. */
static inline uint64_t hb_lap_clock(void)
{
#ifdef HB_HAVE_TSC
	return __rdtsc();
#else
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
#endif
}

/* Records one sample inside a timed region: the time since the previous hb_lap (or since
 * hb_begin). A per-operation or per-frame latency: call it after each operation or frame.
 * Samples past the reserved count are dropped (samples_n stops at samples_cap). */
static inline void hb_lap(struct hb_region *r)
{
	uint64_t now = hb_lap_clock();
	if (r->samples_n < r->samples_cap)
		r->samples[r->samples_n++] = now - r->lap_last;
	r->lap_last = now;
}

/* The flag of a sample whose operation grew a buffer by reallocation: the top bit (no
 * lap lasts 2^63 ticks). The harness takes it off before it uses the sample. */
#define HB_SAMPLE_GREW (UINT64_C(1) << 63)

/* Marks the last sample taken as one whose operation grew a buffer (the grow_* latency
 * columns: growth pushes against the others). */
static inline void hb_mark_growth(struct hb_region *r)
{
	if (r->samples_n)
		r->samples[r->samples_n - 1] |= HB_SAMPLE_GREW;
}

/* The clock's floor, ns: the median duration of an empty region (the clock reads
 * hb_begin and hb_end put inside it, nothing between), never below the clock's stated or
 * observed resolution. Measured once per process (about 1100 empty regions, untimed). */
double hb_clock_floor_ns(void);
/* A region shorter than this many floors measures the clock and the call, not the work
 * (nanobench's clock-resolution multiple): repeatable work repeats until its region lasts
 * hb_min_region_ns(); one-shot work below it is marked (the CSV's short_region). */
#define HB_MIN_REGION_FLOORS 1000
/* HB_MIN_REGION_FLOORS x hb_clock_floor_ns(), ns; 0 under --counters callgrind (the
 * simulator counts instructions and misses, its clock measures nothing of the machine:
 * the work runs once). */
uint64_t hb_min_region_ns(void);

/* Flushes every cache line of this process's resident writable memory (its heap, stack
 * and anonymous mappings: the pages mincore reports resident, in mappings no larger than
 * half the physical memory) from every cache level with CLFLUSH, then fences: the cache
 * condition "cold", whatever sizes sysfs reports. TLB entries stay. Takes about a
 * millisecond per 10 MB resident. Returns 0, or -1 where it cannot (no CLFLUSH: not x86;
 * /proc/self/maps unreadable). */
int hb_evict_caches(void);
/* Whether hb_evict_caches can work here (x86 with CLFLUSH). */
bool hb_can_evict(void);

/* ns per sample tick (TSC frequency calibrated once per process against CLOCK_MONOTONIC;
 * 1 without a TSC). */
double hb_ns_per_tick(void);
/* Median cost of one hb_lap with no work between, ns (measured once per process). */
double hb_sample_cost_ns(void);

#endif
