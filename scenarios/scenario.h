/* scenario.h - a scenario = untimed setup + one timed region + untimed verification,
 * written once against the container contract (containers/contract.h).
 *
 * Adding a scenario is one file: write scenarios/NAME.c defining a
 * `const struct scn_scenario` and end it with SCN_REGISTER(that variable). The Makefile
 * compiles every .c file in scenarios/, the registration puts a pointer to it in the
 * linker section dod_scenarios, and `dodbench list scenarios`, `--scenario all`, the
 * sweeps of make bench, the conformance test and the reports find it from there. There is
 * no list to edit.
 *
 * A scenario includes this header (and the headers of the scenario layer beside it:
 * region.h, the timed region the harness implements; axis.h, the axis type; a shared
 * setup's own header: fill_holes.h, defrag_common.h, list_model.h, tags_common.h,
 * dc_setup.h), the container contract
 * and the payload helpers; never a header of harness/. An axis only some scenarios take
 * is defined in the file of the scenario (or the shared setup) that reads it, and each
 * scenario that takes it lists it in its `axes`.
 */
#ifndef SCN_SCENARIO_H
#define SCN_SCENARIO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "axis.h"
#include "contract.h"
#include "dod_common.h"
#include "region.h"

enum scn_order { SCN_SEQ, SCN_RANDOM };

/* Which items the untimed hole setup erases (see scn_fill_holes). */
enum scn_hole_pattern {
	SCN_HOLES_NONE,      /* hole_ratio 0 */
	SCN_HOLES_RANDOM,    /* uniformly chosen insertion indices, erased in random order */
	SCN_HOLES_CLUSTERED, /* runs of consecutive insertion indices, geometric lengths of
	                        mean SCN_CLUSTER_MEAN, erased in random order */
	SCN_HOLES_OLDEST     /* the first r*n inserted, erased oldest first */
};
#define SCN_N_HOLE_PATTERNS 4
#define SCN_CLUSTER_MEAN 64
/* "none", "random", "clustered", "oldest": the CLI's and the CSV's words. */
extern const char *const scn_hole_pattern_names[SCN_N_HOLE_PATTERNS];

/* The cache condition of repeatable work (--cache; scn_run_passes). */
enum scn_cache {
	SCN_CACHE_WARM, /* the timed passes follow untimed passes over the same data */
	SCN_CACHE_COLD  /* every line of the process's resident data flushed from every cache
	                   level (hb_evict_caches) right before one timed pass */
};
#define SCN_N_CACHES 2
/* "warm", "cold": the CLI's and the CSV's words. */
extern const char *const scn_cache_names[SCN_N_CACHES];

struct scn_params {
	size_t n;                           /* elements inserted */
	enum scn_order order;               /* access order, for scenarios with uses_order */
	double hole_ratio;                  /* 0 <= r < 1: fraction of the n erased in setup */
	enum scn_hole_pattern hole_pattern; /* SCN_HOLES_NONE iff hole_ratio == 0 */
	uint64_t seed;                      /* seeds every RNG of the scenario */
	enum scn_cache cache;               /* repeatable work: warm or cold */
	uint64_t passes;                    /* repeatable work: K, the passes timed in one
	                                       region (0: scn_run_passes chooses; the harness
	                                       keeps a case's first choice for its later
	                                       repetitions) */
	/* The case's value of every axis (a scenario's own axes: read with scn_axis_value):
	 * axis[i] is the value of axes[i], i < n_axes. NULL axes (a call that sets none):
	 * every axis reads as its `absent`. */
	const struct hb_axis *const *axes;
	size_t n_axes;
	union hb_axis_value axis[HB_MAX_AXES];
};

/* The value of axis a in p (a scenario's own axis: scn_axis_value(p, &my_axis).u), or
 * a->absent when p carries no value of it. */
union hb_axis_value scn_axis_value(const struct scn_params *p, const struct hb_axis *a);

struct scn_result {
	uint64_t checksum;     /* the timed region's product, see each scenario */
	bool verified;         /* checksum (and state) matched an independent computation */
	uint64_t ops;          /* operations the timed region did (>= 1): ns_per_op divides by it */
	double hole_ratio;     /* fraction of the n really erased in setup (0 without holes) */
	long long swaps;       /* items moved by defragment; -1 when not applicable */
	long long reserved_bytes, committed_bytes; /* the memory scenario's; -1 otherwise */
	long long measured_bytes; /* the memory scenario's hb_process_bytes difference; -1
	                           * otherwise, or without the allocator layer */
	long long grow_max_at;    /* push_latency: items held before the slowest push that
	                           * grew (the size at that growth); -1 otherwise or none grew */
	long long grow_max_copied; /* push_latency: bytes that push's growth copied
	                            * (dod_growth.copied_bytes across it); -1 as grow_max_at */
	char why[200];         /* why verification failed, or the error of a failed call */
	int err;               /* the DOD_E* error of a failed call (scn_error), else 0 */
};

/* Outcomes of scn_scenario.run. */
enum { SCN_RAN = 0, SCN_ERROR = -1 };

struct scn_scenario {
	const char *name;      /* [a-z0-9_]+, unique */
	const char *help;      /* one line for `list scenarios` */
	/* The axes it takes besides those every scenario takes (n, elem_bytes, place),
	 * NULL-terminated (SCN_AXES; NULL: none): hb_axis_order (--order changes what it
	 * does, else it runs with "seq"), SCN_AXIS_HOLES (--hole-ratio/--hole-pattern, else
	 * it runs without holes), hb_axis_cache (it times its work with scn_run_passes), its
	 * own axes. The harness knows which scenarios take an axis from these lists only. */
	const struct hb_axis *const *axes;
	bool records_samples;  /* records per-operation latency samples (p50_ns ... columns) */
	bool grows_from_empty; /* creates with 0 reserved and grows: skips fixed_capacity */
	unsigned needs_ext;    /* DOD_EXT_* bits of the family extensions run() calls: a
	                        * container without one is skipped (its `missing` reason) */
	/* NULL when ops can run this scenario, else the reason it is skipped. */
	const char *(*cannot_run)(const struct dod_ops *ops);
	/* The same for a case's parameters (NULL: none): the operation one value of an axis
	 * needs (validate's cleared handles need clear). */
	const char *(*cannot_run_with)(const struct dod_ops *ops, const struct scn_params *p);
	/* One repetition: setup, hb_begin/hb_end around the timed work, verification; sets
	 * res->ops. Returns SCN_RAN (res filled; res->verified may be false) or SCN_ERROR (a
	 * container call failed outside the contract's expectations, e.g. DOD_ENOMEM;
	 * res->why says which). r starts zeroed. */
	int (*run)(const struct dod_ops *ops, const struct scn_params *p, struct hb_region *r,
	           struct scn_result *res);
};

/* The axes list of a scenario: .axes = SCN_AXES(&hb_axis_order, SCN_AXIS_HOLES). */
#define SCN_AXES(...) ((const struct hb_axis *const[]){__VA_ARGS__, NULL})

/* Whether scn's axes list names a (not the axes every scenario takes). */
bool scn_lists_axis(const struct scn_scenario *scn, const struct hb_axis *a);

/* Registers a scenario: put it at the end of the scenario's file. */
#define SCN_REGISTER(var)                                                                \
	static const struct scn_scenario *const scn_reg_##var                                \
		__attribute__((used, section("dod_scenarios"), aligned(sizeof(void *)))) = &var;

/* Every registered scenario, sorted by name: *out gets the array. Returns the count. */
size_t scn_list(const struct scn_scenario *const **out);
/* The scenario called name, or NULL. */
const struct scn_scenario *scn_find(const char *name);
/* NULL when scn can run on ops with parameters p, else why not: a family extension it
 * needs missing (needs_ext), the scenario's own cannot_run and cannot_run_with, holes asked of a container
 * without erase_n, or growth from empty asked of a fixed-capacity container. */
const char *scn_cannot_run(const struct scn_scenario *scn, const struct dod_ops *ops,
                           const struct scn_params *p);

/* ---- the memory a run may take (mem_limit.c) ---- */

/* A memory limit: its bytes (0: none known) and what it is: "ulimit -v (RLIMIT_AS)",
 * "ulimit -d (RLIMIT_DATA)", "cgroup /sys/fs/cgroup/x/memory.max" (v1: its
 * memory.limit_in_bytes), "MemAvailable in /proc/meminfo", "MemTotal in /proc/meminfo" or
 * "physical memory". */
struct scn_mem_limit {
	uint64_t bytes;
	char what[300];
};
/* Where scn_mem_limit_from looks: the texts of /proc/meminfo, /proc/self/cgroup and
 * /proc/self/mountinfo (paths), the soft RLIMIT_AS and RLIMIT_DATA in bytes (0: none) and
 * the physical memory (sysconf; 0: unknown) for a meminfo without MemAvailable and
 * MemTotal. */
struct scn_mem_sources {
	const char *meminfo, *cgroup, *mountinfo;
	uint64_t rlimit_as, rlimit_data, phys_bytes;
};
/* The smallest of the limits src gives into *out: the rlimits, the memory cgroup's
 * (v2 memory.max, v1 memory.limit_in_bytes, on the process's cgroup and each parent below
 * the hierarchy's mount), MemAvailable (else MemTotal, else phys_bytes). A file that is
 * missing or malformed gives no limit; out->bytes 0 when none is known. */
void scn_mem_limit_from(const struct scn_mem_sources *src, struct scn_mem_limit *out);
/* scn_mem_limit_from on this process's files and limits. Reads a few small files. */
void scn_mem_limit(struct scn_mem_limit *out);

/* ---- helpers shared by scenarios (scenario.c) ---- */

/* Sum of the keys 0..n-1 mod 2^64: what every full visit must produce. */
uint64_t scn_key_sum(size_t n);
/* Creates a container with n reserved and inserts items with keys 0..n-1. *handles_out
 * gets a malloc'd array of the n handles (pre-touched; NULL-safe to free) when the
 * container has handles, else NULL. Returns 0 or a DOD error (res->why filled); on error
 * the container is destroyed and *c_out and *handles_out are NULL, so a caller's cleanup
 * that destroys a non-NULL container destroys nothing twice. */
int scn_fill(const struct dod_ops *ops, size_t n, void **c_out, uint64_t **handles_out,
             struct scn_result *res);

/* One latency sample (hb_lap), marked (hb_mark_growth) when a container buffer grew by
 * reallocation since the previous call (*grows holds dod_growth.grows as of then; start
 * it at that value). push_latency and lap_noise both sample this way, so the machine's
 * floor is taken with the same instructions as the pushes. */
static inline void scn_lap_growth(struct hb_region *r, uint64_t *grows)
{
	hb_lap(r);
	if (dod_growth.grows != *grows) {
		*grows = dod_growth.grows;
		hb_mark_growth(r);
	}
}
/* Sets *out to a pre-touched array for the n handles of a container with handles, or to
 * NULL for one without. Returns 0, or SCN_ERROR (res->why filled) when it does not fit. */
int scn_handles_array(const struct dod_ops *ops, size_t n, uint64_t **out,
                      struct scn_result *res);
/* malloc that also touches every page, so first-touch faults stay out of timed regions.
 * NULL on failure or when count * size overflows. */
void *scn_alloc_touched(size_t count, size_t size);
/* ---- repeatable work: the clock's floor and the warm cache (issue 26) ---- */

/* A scenario whose timed work can repeat without changing what it measures (a sum over
 * the items, a batch of lookups, a particle step) times it as passes: untimed passes
 * first, so the timed ones find the container's memory as the last pass left it (the
 * cache condition "warm", the same definition for every family), then K passes in one
 * region, K chosen so that the region lasts at least hb_min_region_ns() (1000 clock
 * floors): a pass of 0.7 us is timed 40 times, not once against a 25 ns clock. The
 * per-operation figure divides by K x the pass's operations (res->ops). */
#define SCN_WARM_PASSES 2
#define SCN_MAX_PASSES (UINT64_C(1) << 24) /* K's ceiling (a pass that times at 0 ns) */
struct scn_passes {
	uint64_t (*pass)(void *ctx); /* one pass of the work; returns its result (a sum) */
	void *ctx;
	uint64_t min_k;      /* fewest timed passes (0: 1) */
	uint64_t max_k;      /* most timed passes (0: SCN_MAX_PASSES) */
	/* filled by scn_run_passes: */
	uint64_t k;          /* timed passes, >= 1 */
	uint64_t sum;        /* the timed passes' results added, mod 2^64 */
	uint64_t warm;       /* untimed passes run: SCN_WARM_PASSES, and those that chose K */
	uint64_t warm_sum;   /* their results added, mod 2^64 */
};
/* K aims the region at this many times hb_min_region_ns(), so that noise seldom puts a
 * repetition below it. */
#define SCN_REGION_MARGIN 1.5
/* The pass of iterate and list_iterate: ops->iterate_sum over c (ctx: a struct
 * scn_iterate_ctx). Returns the sum. */
struct scn_iterate_ctx {
	const struct dod_ops *ops;
	void *c;
};
uint64_t scn_iterate_pass(void *ctx);
/* Warm (p->cache): runs ps->pass SCN_WARM_PASSES times untimed; then, unless p->passes
 * gives K, untimed batches of passes (1, 10, 100, ...) until one lasts a quarter of
 * hb_min_region_ns(), from which K = SCN_REGION_MARGIN x hb_min_region_ns() / the pass's
 * time, at least min_k and at most max_k (1 under callgrind); then K passes between
 * hb_begin and hb_end. Cold: no untimed pass, hb_evict_caches, then one timed pass (K = 1,
 * whatever min_k: a second pass would find the caches warm). Sets r->passes = K and
 * r->cache = "warm" or "cold". No error: a failing pass reports through its ctx. */
void scn_run_passes(const struct scn_params *p, struct hb_region *r, struct scn_passes *ps);
/* Verifies passes each of whose results must be expect: res->checksum = ps->sum, verified
 * when sum == K x expect and warm_sum == warm x expect (mod 2^64); res->why
 * names the sums that differ. */
void scn_check_passes(struct scn_result *res, const struct scn_passes *ps, uint64_t expect);

/* Sets res->checksum = sum and verifies it against expect; on mismatch res->why says
 * both values. */
void scn_check_sum(struct scn_result *res, uint64_t sum, uint64_t expect);
/* Records a failure: verified = false and a printf-style reason. Returns SCN_RAN. */
int scn_fail(struct scn_result *res, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* Records a container error: res->why gets "what: dod_strerror(err)", res->err = err (the
 * harness reports DOD_ENOMEM as status oom). Returns SCN_ERROR. */
int scn_error(struct scn_result *res, const char *what, int err);
/* Skip reasons for the common capability gaps. */
const char *scn_needs_handles(const struct dod_ops *ops);
/* scn_needs_handles, else NULL when the container exposes item addresses (ops->item_addr:
 * pointer_hold, lookup_ptr), else the reason. */
const char *scn_needs_item_addr(const struct dod_ops *ops);
/* The bandwidth probe (stream_read.c) reads its n 8-byte words this many times: enough
 * passes to read at least SCN_STREAM_MIN_BYTES (~1 ms at L1 speed, far above the clock's
 * resolution), at least one. */
#define SCN_STREAM_MIN_BYTES ((size_t)64 << 20)
static inline size_t scn_stream_passes(size_t n)
{
	size_t bytes = n * sizeof(uint64_t);
	if (!bytes || bytes >= SCN_STREAM_MIN_BYTES)
		return 1;
	return (SCN_STREAM_MIN_BYTES + bytes - 1) / bytes;
}
/* NULL when ops has key_array at 8-byte elements (plain_array), the uint64_t array the
 * hand-written loops of iterate_inline and stream_read read, else why not. */
const char *scn_needs_key_array(const struct dod_ops *ops);

#endif
