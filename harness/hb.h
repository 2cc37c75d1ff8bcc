/* hb.h - the dodbench harness: measurement, environment capture, CSV, registry.
 *
 * Only the harness talks to the user (STYLE.md): containers and scenarios return codes.
 * Data flow (docs/ARCHITECTURE.md): containers <- scenarios <- harness -> CSV -> reports.
 */
#ifndef HB_H
#define HB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "axes.h"
#include "contract.h"
#include "region.h"

struct scn_scenario;

/* ---- measurement (measure.c) ---- */

#define HB_N_SIM 7      /* callgrind: Ir Dr Dw D1mr D1mw DLmr DLmw */

enum hb_counter_mode {
	HB_COUNTERS_AUTO,      /* PAPI when it has counters, else none */
	HB_COUNTERS_PAPI,      /* PAPI or fail */
	HB_COUNTERS_NONE,      /* times only */
	HB_COUNTERS_CALLGRIND  /* this process runs under callgrind (sim.c re-executes it) */
};

/* Sets up counters once per process. mode AUTO uses PAPI when it offers at least one of
 * the five events, else none; PAPI fails with a message in err (returns -1) when PAPI
 * offers none; NONE never touches PAPI; CALLGRIND requires running under valgrind.
 * Writes a one-line notice (or "") to notice. Returns 0 or -1. */
int hb_counters_init(enum hb_counter_mode mode, char *notice, size_t notice_len,
                     char *err, size_t err_len);
/* Counters are per thread: an event set opened by the parent would count the parent in
 * a forked child. Before forking children that measure, the parent calls
 * hb_counters_fork_prepare (releases PAPI's event set and the PMU probe; what init found
 * stays in papi_status), and each child calls hb_counters_fork_child (opens its own). */
void hb_counters_fork_prepare(void);
void hb_counters_fork_child(void);
/* "papi", "none" or "callgrind": the counter_source column. */
const char *hb_counter_source(void);
/* One line on PAPI's state for the papi_status column ("ok: 5 events", the reason it
 * offers none, "not used", "not built"). */
const char *hb_papi_status(void);
/* Whether PAPI counts with a multiplexed event set (more events than the PMU's counters:
 * each count is PAPI's estimate scaled to the whole region); false when PAPI is not used. */
bool hb_papi_multiplexed(void);
/* Names of the five counter columns ("papi_tot_cyc", ...). */
extern const char *const hb_counter_columns[HB_N_COUNTERS];

/* A perf event counting this process in user space only, with time_enabled and
 * time_running in its read format, created disabled. type/config as in
 * perf_event_attr (PERF_TYPE_HARDWARE/PERF_COUNT_HW_CPU_CYCLES for the PMU probe; the
 * tests use a software event, which works without a PMU). Returns the fd or -1. */
int hb_perf_probe_open(unsigned type, unsigned long long config);
/* Resets and enables the probe. */
void hb_perf_probe_start(int fd);
/* Disables it and reads enabled/running ns. Returns 0, or -1 if the read failed. */
int hb_perf_probe_stop(int fd, uint64_t *enabled_ns, uint64_t *running_ns);

/* Allocation counter of harness/alloc_count.c: allocation and free calls since start.
 * Weak: binaries without it (the sanitizer test builds) report allocs as unmeasured. */
void hb_alloc_counts(unsigned long long *allocs, unsigned long long *frees)
	__attribute__((weak));

/* Heap placement (harness/alloc_count.c; the axis place, --place): where malloc, calloc
 * and realloc put a new block of at least HB_PLACE_MIN_BYTES (an array, not a list node)
 * that did not ask for an alignment of its own (aligned_alloc, memalign and
 * posix_memalign are left as they are: a store that aligns itself, such as the particle
 * layouts', keeps its boundary; a block glibc placed keeps glibc's placement through
 * realloc).
 *   HB_PLACE_MALLOC  glibc's placement (16-byte aligned): nothing changes
 *   HB_PLACE_LINE    every block starts on a 64-byte cache line
 *   HB_PLACE_LINE16, HB_PLACE_LINE32, HB_PLACE_LINE48  16, 32 or 48 bytes past a line:
 *                    a 64-byte load of the block's items straddles two lines
 *   HB_PLACE_RANDOM  a seeded random multiple of 16 bytes, 0 .. 4080, past a line: a new
 *                    offset within a page for every block (STABILIZER's heap
 *                    randomization, one draw per block)
 * A placed block costs up to 64 + 4096 bytes of slack and a table entry (its own base
 * and size), found again by free and realloc; a block allocated under another mode keeps
 * its placement through realloc and is freed correctly. */
enum hb_place {
	HB_PLACE_MALLOC, HB_PLACE_LINE, HB_PLACE_LINE16, HB_PLACE_LINE32, HB_PLACE_LINE48,
	HB_PLACE_RANDOM
};
#define HB_N_PLACES 6
#define HB_PLACE_MIN_BYTES 1024
/* Sets the placement of the blocks allocated from now on (seed: the random mode's).
 * Returns 0, or -1 with nothing changed when the table of placed blocks cannot grow.
 * Weak: absent in the sanitizer builds, whose allocators are the sanitizers'. */
int hb_place_set(enum hb_place mode, uint64_t seed) __attribute__((weak));
/* Blocks placed (not HB_PLACE_MALLOC) since the process started. */
unsigned long long hb_placed_blocks(void) __attribute__((weak));
/* The heap as glibc's allocator accounts for it now (mallinfo2), bytes: *in_use the
 * blocks handed out and not freed, chunk headers and alignment included (uordblks +
 * hblkhd; the layer's own table of placed blocks left out), *obtained what it holds from
 * the system for them (arena + hblkhd: brk and mmap'd chunks). Weak: absent in the
 * sanitizer builds, whose allocators glibc's statistics do not see. */
void hb_heap_bytes(long long *in_use, long long *obtained) __attribute__((weak));

/* ---- environment (env.c) ---- */

struct hb_env {
	char host[128];
	char cpu_model[160];
	char compiler[96];
	char cflags[512];
	char git_rev[64];
	char run_id[224];
	char invocation[224];     /* this process: UTC start-host-pid (the default run_id) */
	long n_cpus;
	bool hypervisor;          /* cpuinfo "hypervisor" flag: a VM */
	char governor[48];        /* cpufreq scaling governor of cpu0, or "unavailable" */
	char turbo[48];           /* "on", "off" or "unavailable" */
	int pinned_cpu;           /* the one CPU the process may run on, or -1 */
	const char *build_type;   /* "release" (optimized) or "debug" */
	int perf_paranoid;        /* /proc/sys/kernel/perf_event_paranoid, or
	                             HB_PERF_PARANOID_UNKNOWN */
};
/* perf_paranoid when /proc does not say: outside the setting's range (-1 .. 4 today), as
 * -1 is a setting. The CSV leaves the field empty. */
#define HB_PERF_PARANOID_UNKNOWN (-99)
/* Fills *e once per run (host, /proc/cpuinfo model, build info, run id, frequency
 * governor, turbo, affinity). */
void hb_env_capture(struct hb_env *e);
/* Writes one warning line per condition that makes timings less trustworthy (a VM, a
 * non-performance governor, an unpinned process, a debug build) to f. */
void hb_env_warn(const struct hb_env *e, FILE *f);
/* Pins the process to cpu with sched_setaffinity. Returns 0, or -1 with errno. */
int hb_pin(int cpu);
/* The size in bytes of cpu0's level-`level` data or unified cache (1: the L1 data cache,
 * not the instruction cache), level 0 for the last level (the highest one listed), read
 * at run time from /sys/devices/system/cpu/cpu0/cache/indexK/{level,type,size}
 * ($DODBENCH_CACHE_DIR instead of that directory, for tests); a kernel that lists no
 * cache there at all (some VMs) gets glibc's sysconf sizes (_SC_LEVEL1_DCACHE_SIZE ...,
 * which glibc reads from cpuid on x86), never with $DODBENCH_CACHE_DIR set. Stores the
 * level found in *level_out when not NULL. Returns the size, or 0 when neither lists that
 * level (no guess is made). */
uint64_t hb_cache_bytes(int level, int *level_out);
/* ---- cache sizes measured (caches.c) ---- */

#define HB_KNEE_FACTOR 1.4     /* a knee: the latency per load rises this much ... */
#define HB_MAX_KNEES 3         /* ... when the working set doubles; L1, L2, last level */
#define HB_CHASE_MAX_POINTS 64

/* The knees of a latency curve: n working sets bytes[0 .. n) in increasing order and
 * their ns per load ns[0 .. n). A knee is a point i whose latency is at least factor x
 * that of the largest set at most half its size (bytes[j] <= bytes[i] / 2), and whose
 * next point (when there is one) is too (one slow point is noise); after a knee, none
 * until a point rises less than that (the transition to the next level has ended). Stores
 * the indices (each >= 1: the cache holds bytes[i - 1]) of the first max_knees knees in
 * knees[] and returns how many. Pure: no timing, for tests. */
size_t hb_find_knees(const uint64_t *bytes, const double *ns, size_t n, double factor,
                     size_t *knees, size_t max_knees);

/* A pointer-chase curve and its knees. */
struct hb_chase {
	size_t n;                            /* points measured */
	uint64_t bytes[HB_CHASE_MAX_POINTS]; /* working sets: 4, 6, 8, 12 ... KiB */
	double ns[HB_CHASE_MAX_POINTS];      /* ns per dependent load, best of 3 rounds */
	size_t n_knees;
	uint64_t knee_bytes[HB_MAX_KNEES];   /* the set before each knee: the level's size */
	uint64_t cap_bytes;                  /* the largest set tried: 4 x sysfs's last level,
	                                        <= 256 MiB and a quarter of the memory limit */
	size_t line_bytes;                   /* sysconf's L1 line, else 64 */
	bool huge_pages;                     /* madvise(MADV_HUGEPAGE) accepted */
};
/* Measures the curve: each set's lines linked into one random cycle, 2^19 dependent
 * loads a round, the best of 3 rounds after an untimed one; stops at the cap or once
 * HB_MAX_KNEES knees are found (the last confirmed by the next point). About a second
 * (most of it in the sets past the last level). Returns 0, or -1 with the reason in err
 * (the buffer cannot be mapped). */
int hb_chase_measure(struct hb_chase *m, char *err, size_t err_len);

/* The size --n's cache words take for a level (1, 2, or 0: the last level). */
struct hb_cache_size {
	uint64_t bytes;           /* the size used: sysfs's, or the measured one */
	uint64_t sysfs_bytes;     /* hb_cache_bytes (0: none listed; then bytes is 0) */
	uint64_t measured_bytes;  /* 0: not measured */
	const char *source;       /* what measured it: "pointer chase", or
	                             "DODBENCH_MEASURED_CACHES"; NULL: nothing */
	bool used_measured;       /* more than 2x from sysfs's: bytes is the measured size */
};
/* Resolves a level's size into *out. The first call measures (hb_chase_measure; the
 * last level is the knee of sysfs's last level's number), once per process, or reads
 * $DODBENCH_MEASURED_CACHES ("l1=BYTES,l2=BYTES,llc=BYTES", any subset, "" for none)
 * instead, and sets that variable to what it measured (a re-executed child does not
 * measure again); with $DODBENCH_CACHE_DIR (a faked sysfs) and no override it does not
 * measure. The measured size is used when it is more than 2x from sysfs's, with a notice
 * (hb_cache_notices). No measurement when sysfs lists no such level (out->bytes 0).
 * Returns 0, or -1 with the reason in err (the variable is malformed). */
int hb_cache_word_bytes(int level, struct hb_cache_size *out, char *err, size_t err_len);
/* Writes one line per level whose measured size replaced sysfs's (naming both), and one
 * when the measurement failed. */
void hb_cache_notices(FILE *f);
/* The curve measured by hb_cache_word_bytes, or NULL (not measured, or overridden). */
const struct hb_chase *hb_chase_curve(void);

/* Writes the current UTC time as 2026-11-21T23:59:01Z (needs 21 bytes). */
void hb_utc_now(char *buf, size_t len);

/* ---- CSV schema 3 (csv.c) ---- */

/* 2: ns_per_op = elapsed_ns / ops (1: / n); hole, latency and axis columns appended.
 * 3: status and status_detail appended; a row whose status is not ok may have no
 * measurement (elapsed_ns, ns_per_op, ops, checksum, cpu_ns ... empty) and, for a failure
 * in a warm-up, no rep.
 * 4: elapsed_ns times `passes` repetitions of the work (scn_run_passes; 1 for one-shot
 * work) and ops counts the operations of all of them (ns_per_op is still per operation);
 * appended: passes, cache (warm: after untimed passes over the same data; setup: as the
 * untimed setup left it), clock_floor_ns (hb_clock_floor_ns), min_region_ns
 * (hb_min_region_ns) and short_region (1: the region lasted less than min_region_ns, so it
 * measures the clock as much as the work; empty without a measurement). */
#define HB_SCHEMA_VERSION 4

struct hb_row {
	const struct hb_env *env;
	char timestamp[32];
	const struct dod_ops *ops_desc; /* container name and axes */
	const char *scenario;
	union hb_axis_value axis[HB_MAX_AXES]; /* the case's values (hb_axes order); the hole
	                             ratio is the real fraction erased */
	unsigned taken;           /* the axes that apply (an appended one's field is empty else) */
	uint64_t seed;
	long long rep;            /* measured repetition; < 0: a warm-up (empty field) */
	const struct hb_region *region;
	bool measured;            /* false: the region's figures are empty in the row */
	const char *status;       /* ok|failed|crashed|timeout|oom (NULL: ok) */
	const char *status_detail; /* why, for a status other than ok (NULL: empty) */
	uint64_t checksum;
	bool verified;
	uint64_t ops;             /* operations in the region (>= 1) */
	long long swaps;          /* < 0: not applicable (empty field) */
	long long reserved_bytes, committed_bytes; /* memory scenario; < 0: empty field */
	bool prefault;
	long long interleave_pos; /* < 0: not interleaved */
	long long samples;        /* latency samples, < 0: none (percentile fields empty) */
	double p50_ns, p99_ns, p999_ns, max_ns, sample_cost_ns;
	long long grow_samples;   /* of them, marked by hb_mark_growth (0: grow_* fields empty) */
	double grow_p50_ns, grow_max_ns, plain_max_ns; /* marked ones; the others' max */
	long long placed_blocks;  /* heap blocks placed by the axis place in the repetition
	                             (hb_placed_blocks); < 0: no allocator layer (empty) */
	long long measured_bytes; /* memory scenario: hb_process_bytes after the build less
	                             before it; < 0: not measured (empty) */
	long long grow_max_at;    /* push_latency: items held before the slowest growing push */
	long long grow_max_copied; /* and the bytes its growth copied; < 0: none (empty) */
};

/* Opens an output path for appending, before any work, by descriptor; every later check
 * is of that descriptor, never of the path again. A missing file is created with O_EXCL
 * (*created true: only then may a refused run remove it, hb_output_remove); an existing
 * regular file is opened read-write (its first line is checked) and locked (flock,
 * exclusive, for the life of the descriptor: a second dodbench on the same file is
 * refused), and after the lock the path must still name it (a concurrent run that was
 * refused may have removed the file it made: then the open starts again). A pipe, FIFO or
 * device is opened write-only, unlocked; a pipe only when it has a reader. Refused (-1,
 * the reason in err, errno text included): an empty path, a directory, a symbolic link
 * to a missing file (nothing is created through it), a pipe without a reader, a file
 * that cannot be opened or is locked by a live run. Returns the descriptor (O_CLOEXEC). */
int hb_output_open(const char *path, bool *created, char *err, size_t err_len);
/* Removes path when created (this run made the file with hb_output_open) and path still
 * names the file the open descriptor fd is on; else leaves everything as it is. For a
 * run refused before any work: it removes only what it made. */
void hb_output_remove(int fd, const char *path, bool created);
/* Opens path for appending rows (hb_output_open), checks the first line of an existing
 * file (our header; a file that is not a dodbench CSV of this schema is refused and left
 * untouched), then cuts off a torn last line or a torn header (with a notice on stderr)
 * and writes the header when the file is empty. Returns the stream (fully buffered, rows
 * go through hb_csv_put_row; *created as hb_output_open's), or NULL with the reason in
 * err: hb_output_open's refusals, another header or no dodbench CSV, the header cannot
 * be written (a file this call created is removed again). */
FILE *hb_csv_open(const char *path, bool *created, char *err, size_t err_len);
/* hb_csv_open for the --samples-out file, whose header is "run_id,case,rep,i,ns" (one
 * line per raw sample, ns): the same checks, the same torn-line repair. */
FILE *hb_samples_open(const char *path, bool *created, char *err, size_t err_len);
/* Buffer of the output stream: larger than any row, so one row is one write(2). */
#define HB_ROW_BUFFER (64 * 1024)
/* Writes the header line and flushes it (cut off again if it could not be written
 * whole). Returns 0 or -1 (I/O error, errno set). */
int hb_csv_header(FILE *f);
/* Formats one row; text fields are RFC 4180 quoted when needed. */
void hb_csv_row(FILE *f, const struct hb_row *r);
/* Writes one row and flushes it, so it leaves whole in one write(2). On failure the file
 * is cut back to where the row began (a full disk may take part of a write). Returns 0
 * or the errno of the failed write (ENOSPC on a full disk, EFBIG, ...). */
int hb_csv_put_row(FILE *f, const struct hb_row *r);
/* The same for a row already formatted (one line with its newline; sim.c's merge). */
int hb_csv_put_line(FILE *f, const char *line);
/* Tells stderr that writing path failed with errno err and the sweep stopped there (the
 * message of exit status 3, HB_EXIT_OUTPUT, in the run and in callgrind's merge). */
void hb_csv_say_stopped(const char *path, int err);
/* Whole lines only, for any output stream f (--out, --samples-out): hb_out_mark flushes
 * f, clears errno and returns where the next line will begin (the size of a regular
 * file; -1 for a pipe or a device); after formatting lines into f (stdio may write some
 * on the way), hb_out_commit(f, mark) flushes them and on failure cuts the file back to
 * mark. Returns 0 or the errno of the failed write (ENOSPC on a full disk, EFBIG past a
 * file-size limit, ...). */
long long hb_out_mark(FILE *f);
int hb_out_commit(FILE *f, long long mark);
/* Splits a CSV line (RFC 4180 quoting, no embedded newlines; a trailing newline is
 * dropped) into at most max fields, in place; returns the number of fields. */
size_t hb_csv_split(char *line, char **fields, size_t max);
/* The positions of the n_names columns names[] among the nf fields of a header line
 * (hb_csv_split) into col[]. Returns -1 when all are there, else the index in names of
 * the first that is not. */
int hb_csv_columns(char **header, size_t nf, const char *const *names, size_t n_names,
                   int *col);
/* The columns of a CSV header that name a case: scenario, container and every axis's. */
struct hb_case_columns {
	int scenario, container;
	int axis[HB_MAX_AXES];
};
/* Finds them among the n header fields. Returns 0, or -1 with the missing column's name
 * in *missing. */
int hb_case_columns_find(struct hb_case_columns *cc, char **header, size_t n,
                         const char **missing);
/* The case name of a row split into nf fields (hb_csv_split) under that header, written
 * to buf[0 .. len) (cut short as snprintf does): the scenario's name decides which axes
 * apply. The row's hole_ratio is the fraction really erased, so the name may differ from
 * the planned case's (resume.c matches rows by axes, not by this name); the callgrind
 * summary groups by it. Returns 0, or -1 when a field is missing or is no value of its
 * axis. */
int hb_case_name_of_row(char *buf, size_t len, const struct hb_case_columns *cc,
                        char **fields, size_t nf);

/* ---- registry (registry.c, generated from containers/variants.tsv) ---- */

/* The size classes, from the Makefile's SIZES (build/gen/sizes.h): HB_N_SIZES of them, in
 * that order. */
#include "sizes.h"
extern const size_t hb_elem_sizes[HB_N_SIZES];

struct hb_container {
	const char *name;
	const char *source;                    /* its source file */
	const struct dod_ops *ops[HB_N_SIZES]; /* one per size class, same order; NULL when
	                                          the variant is not built at that size */
	unsigned built;                        /* bit s: built at size class s; ops[s] NULL
	                                          with its bit set: not linked into this
	                                          binary (build/dodbench-sim links the
	                                          Makefile's SIM_VARIANTS only) */
};
extern const struct hb_container hb_containers[];
extern const size_t hb_n_containers;

/* The ops of container name for elem_bytes, or NULL. */
const struct dod_ops *hb_find_ops(const char *name, size_t elem_bytes);

/* ---- statistics (stats.c) ---- */

/* Summary of n >= 1 samples (ns): median, min, max, MAD (median absolute deviation, not
 * scaled), CV (stdev / mean, as a fraction). */
struct hb_stats {
	size_t n;
	double median, min, max, mad, mean, cv;
};
void hb_stats_of(const uint64_t *x, size_t n, struct hb_stats *out);
/* Quickselect: rearranges x[lo .. hi) so that x[k] holds the value a sort of that range
 * would put there, every value before it <= and every value after it >= it; lo <= k < hi.
 * Expected O(hi - lo), deterministic (fixed pivot sequence). The latency percentiles
 * (hb_latency_of) select p50, p99, p99.9 and max this way instead of sorting every sample. */
void hb_select_kth(uint64_t *x, size_t lo, size_t hi, size_t k);
/* Latency percentiles of n >= 1 samples x (hb_lap's ticks, HB_SAMPLE_GREW marks taken off:
 * hb_growth_latency_of; the figures are in x's unit, the caller scales them to ns):
 * nearest-rank p50, p99, p99.9 (the value at index ceil(q n) - 1 of the sorted samples)
 * and the max, selected in place with hb_select_kth (x is left partly ordered, not
 * sorted). schedule.c writes them to the CSV's p50_ns .. max_ns. */
struct hb_latency {
	uint64_t p50, p99, p999, max;
};
void hb_latency_of(uint64_t *x, size_t n, struct hb_latency *out);
/* The samples whose operation grew a buffer (marked HB_SAMPLE_GREW by hb_mark_growth)
 * among n samples x (ticks): takes the marks off x and gives their count (grew), their
 * nearest-rank p50 and max, and the max of the unmarked ones (plain_max; 0 when none),
 * in x's unit. grew is 0, p50 and max 0, when none is marked or there is no memory to
 * sort them (the marks are taken off all the same). */
struct hb_growth_latency {
	size_t grew;
	uint64_t grew_p50, grew_max, plain_max;
};
void hb_growth_latency_of(uint64_t *x, size_t n, struct hb_growth_latency *out);
/* Median of x[0..n), n >= 1; sorts x in place. */
double hb_median_sort(double *x, size_t n);
/* Robust relative dispersion 1.4826 * MAD / median (an estimate of CV that outliers do not
 * dominate). Above HB_UNSTABLE a case is flagged "unstable". */
double hb_rel_dispersion(const struct hb_stats *s);
#define HB_UNSTABLE 0.05
/* Ratio of medians median(b) / median(a) and its 95% confidence interval by a seeded
 * bootstrap (each side resampled independently, 2000 resamples). Returns 0, or -1 when
 * either side has fewer than 3 samples or a median is 0 (*lo, *hi untouched). */
int hb_ratio_ci(const uint64_t *a, size_t na, const uint64_t *b, size_t nb, uint64_t seed,
                double *ratio, double *lo, double *hi);

/* ---- JSON export (json.c) ---- */

struct hb_case;
/* Writes the run in google-benchmark's JSON format (context + one "iteration" entry per
 * repetition + mean/median/stddev/cv aggregates per case; times in ns), so its
 * tools/compare.py and dashboards can read dodbench results, to f (main writes a
 * temporary file and renames it over the --out-json path only when this succeeds).
 * Returns 0 or -1 (I/O error, errno set). */
int hb_json_write(FILE *f, const struct hb_env *env, const struct hb_case *cases,
                  size_t n_cases);

/* ---- callgrind (sim.c) ---- */

/* Runs `dodbench run` again under valgrind --tool=callgrind with the cache simulator,
 * collection toggled around each timed region (hb_begin/hb_end), and while it runs fills
 * the sim_* columns of each new row of the child from callgrind's dump of its region and
 * appends it, one write per row, to out as its repetition ends (the --out stream
 * hb_csv_open opened and locked before any work; NULL: none; out_path names it in
 * messages: c->out); then prints per-case simulated counts per operation. c: the run's
 * parsed configuration (out, out_json, sim_d1, sim_ll, quiet, resume). Temporary files go to
 * ${TMPDIR:-/tmp}/dodbench-<uid>, which must be a directory of this user's with mode 0700
 * (created so if missing). argv: the arguments after "run", unparsed. c->sim_d1,
 * c->sim_ll: geometry or NULL for the host's. c->resume (--resume): the child skips the
 * repetitions c->out already holds (--sim-resume-from). A child that dies before
 * renaming its --out-json temporary file (a signal, a crash) leaves it to the parent,
 * which removes it. Returns the exit status for main: 0, 1 (a case
 * failed, the child crashed), 2 (valgrind or build/dodbench-sim missing, the temporary
 * directory refused, the child refused its arguments: always before any row reached
 * out), 3 (HB_EXIT_OUTPUT: a row could not be written to out, or the child could not
 * write --out-json or --samples-out; the rows before are kept). */
struct hb_config;
int hb_sim_run(int argc, char **argv, FILE *out, const struct hb_config *c);

#endif
