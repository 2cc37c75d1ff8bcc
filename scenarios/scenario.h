/* scenario.h - a scenario = untimed setup + one timed region + untimed verification,
 * written once against the container contract (containers/contract.h).
 *
 * Adding a scenario: write scenarios/NAME.c defining `const struct scn_scenario
 * scn_NAME`, add it to SCN_LIST below. The Makefile compiles every .c file in scenarios/.
 */
#ifndef SCN_SCENARIO_H
#define SCN_SCENARIO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "contract.h"
#include "dod_common.h"
#include "hb.h"

enum scn_order { SCN_SEQ, SCN_RANDOM };

struct scn_params {
	size_t n;              /* elements */
	enum scn_order order;  /* access order, for scenarios with uses_order */
	uint64_t seed;         /* seeds every RNG of the scenario */
};

struct scn_result {
	uint64_t checksum;     /* the timed region's product, see each scenario */
	bool verified;         /* checksum (and state) matched an independent computation */
	long long swaps;       /* items moved by defragment; -1 when not applicable */
	char why[200];         /* why verification failed, or the error of a failed call */
};

/* Outcomes of scn_scenario.run. */
enum { SCN_RAN = 0, SCN_ERROR = -1 };

struct scn_scenario {
	const char *name;
	const char *help;      /* one line for --help */
	bool uses_order;       /* --order changes what it does (else it runs with "seq") */
	/* NULL when ops can run this scenario, else the reason it is skipped. */
	const char *(*cannot_run)(const struct dod_ops *ops);
	/* One repetition: setup, hb_begin/hb_end around the timed work, verification.
	 * Returns SCN_RAN (res filled; res->verified may be false) or SCN_ERROR (a container
	 * call failed outside the contract's expectations, e.g. DOD_ENOMEM; res->why says
	 * which). */
	int (*run)(const struct dod_ops *ops, const struct scn_params *p, struct hb_region *r,
	           struct scn_result *res);
};

#define SCN_LIST(X)                                                                      \
	X(create) X(iterate) X(lookup) X(clear) X(reset) X(defragment) X(lifecycle) X(iterate_inline)
#define SCN_DECLARE(name) extern const struct scn_scenario scn_##name;
SCN_LIST(SCN_DECLARE)
#undef SCN_DECLARE

extern const struct scn_scenario *const scn_all[];
extern const size_t scn_count;
const struct scn_scenario *scn_find(const char *name);

/* ---- helpers shared by scenarios (scenario.c) ---- */

/* Sum of the keys 0..n-1 mod 2^64: what every full visit must produce. */
uint64_t scn_key_sum(size_t n);
/* Creates a container with n reserved and inserts items with keys 0..n-1. *handles_out
 * gets a malloc'd array of the n handles (pre-touched; NULL-safe to free) when the
 * container has handles, else NULL. Returns 0 or a DOD error (res->why filled). */
int scn_fill(const struct dod_ops *ops, size_t n, void **c_out, uint64_t **handles_out,
             struct scn_result *res);
/* Sets *out to a pre-touched array for the n handles of a container with handles, or to
 * NULL for one without. Returns 0, or SCN_ERROR (res->why filled) when it does not fit. */
int scn_handles_array(const struct dod_ops *ops, size_t n, uint64_t **out,
                      struct scn_result *res);
/* malloc that also touches every page, so first-touch faults stay out of timed regions.
 * NULL on failure. */
void *scn_alloc_touched(size_t bytes);
/* Sets res->checksum = sum and verifies it against the sum of keys 0..n-1 (a full
 * visit of a container filled by scn_fill); on mismatch res->why says both values. */
void scn_check_key_sum(struct scn_result *res, uint64_t sum, size_t n);
/* Records a failure: verified = false and a printf-style reason. Returns SCN_RAN. */
int scn_fail(struct scn_result *res, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* Records a container error: res->why gets "what: dod_strerror(err)". Returns SCN_ERROR. */
int scn_error(struct scn_result *res, const char *what, int err);
/* Skip reasons for the common capability gaps. */
const char *scn_needs_handles(const struct dod_ops *ops);

#endif
