/* hb.h - the dodbench harness: measurement, environment capture, CSV, registry.
 *
 * Only the harness talks to the user (STYLE.md): containers and scenarios return codes.
 * Data flow (DESIGN.md): containers <- scenarios <- harness -> CSV -> reports.
 */
#ifndef HB_H
#define HB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "contract.h"

/* ---- measurement (measure.c) ---- */

#define HB_N_COUNTERS 5 /* PAPI_TOT_CYC, PAPI_TOT_INS, PAPI_L1_DCM, PAPI_L2_DCM, PAPI_L3_TCM */

enum hb_counter_mode { HB_COUNTERS_AUTO, HB_COUNTERS_PAPI, HB_COUNTERS_NONE };

/* One timed region's figures. Counters with have[i] false were not measured: they are
 * written as empty CSV fields, never as 0. */
struct hb_region {
	uint64_t elapsed_ns;      /* CLOCK_MONOTONIC, ns */
	uint64_t tsc_cycles;      /* rdtscp delta, TSC ticks (not core cycles) */
	bool have_tsc;
	long long ctr[HB_N_COUNTERS];
	bool have[HB_N_COUNTERS];
	/* private */
	struct timespec_pair { long long sec, nsec; } t0;
	uint64_t tsc0;
};

/* Sets up counters once per process. mode AUTO uses PAPI when it offers at least one of
 * the five events, else none; PAPI fails with a message in err (returns -1) when PAPI
 * offers none; NONE never touches PAPI. Writes a one-line notice (or "") to notice.
 * Returns 0 or -1. */
int hb_counters_init(enum hb_counter_mode mode, char *notice, size_t notice_len,
                     char *err, size_t err_len);
/* "papi" or "none": the counter_source column. */
const char *hb_counter_source(void);
/* Names of the five counter columns ("papi_tot_cyc", ...). */
extern const char *const hb_counter_columns[HB_N_COUNTERS];

/* Starts a timed region: counters, then clock, then TSC, so the region's own
 * bookkeeping is outside the clock as far as possible. */
void hb_begin(struct hb_region *r);
/* Ends it in reverse order and fills r. */
void hb_end(struct hb_region *r);

/* ---- environment (env.c) ---- */

struct hb_env {
	char host[128];
	char cpu_model[160];
	char compiler[96];
	char cflags[512];
	char git_rev[64];
	char run_id[224];
	long n_cpus;
	uint64_t phys_mem_bytes;
};
/* Fills *e once per run (host, /proc/cpuinfo model, build info, run id). */
void hb_env_capture(struct hb_env *e);
/* Writes the current UTC time as 2026-11-21T23:59:01Z (needs 21 bytes). */
void hb_utc_now(char *buf, size_t len);

/* ---- CSV schema v1 (csv.c) ---- */

#define HB_SCHEMA_VERSION 1

struct hb_row {
	const struct hb_env *env;
	char timestamp[32];
	const char *container, *scenario, *order;
	size_t n, elem_bytes;
	double hole_ratio;
	uint64_t seed;
	unsigned rep;
	const struct hb_region *region;
	uint64_t checksum;
	bool verified;
	long long swaps; /* < 0: not applicable (empty field) */
};

/* Opens path for appending rows. Writes the header when the file is new or empty; if
 * the file exists with another header, returns NULL with a message in err. */
FILE *hb_csv_open(const char *path, char *err, size_t err_len);
/* Writes the header line (used by hb_csv_open and tests). */
void hb_csv_header(FILE *f);
/* Writes one row; text fields are RFC 4180 quoted when needed. */
void hb_csv_row(FILE *f, const struct hb_row *r);

/* ---- registry (registry.c) ---- */

#define HB_N_SIZES 4
extern const size_t hb_elem_sizes[HB_N_SIZES]; /* 8, 16, 64, 256 */

struct hb_container {
	const char *name;
	const struct dod_ops *ops[HB_N_SIZES]; /* one per size class, same order */
};
extern const struct hb_container hb_containers[];
extern const size_t hb_n_containers;

/* The ops of container name for elem_bytes, or NULL. */
const struct dod_ops *hb_find_ops(const char *name, size_t elem_bytes);

#endif
