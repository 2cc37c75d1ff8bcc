/* measure.c - the timed region: CLOCK_MONOTONIC, the TSC and PAPI counters.
 *
 * PAPI is optional at build time (HAVE_PAPI, set by the Makefile when papi.h exists) and
 * at run time: on a machine without a PMU (this KVM guest) PAPI adds none of the events,
 * the run goes on, and the counter columns stay empty with counter_source=none.
 * Each event is added on its own so a CPU that lacks one (often PAPI_L3_TCM) still gives
 * the others.
 */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <string.h>
#include <time.h>

#if defined(__x86_64__) || defined(__i386__)
#include <x86intrin.h>
#define HB_HAVE_TSC 1
#endif
#ifdef HAVE_PAPI
#include <papi.h>
#endif

#include "hb.h"

const char *const hb_counter_columns[HB_N_COUNTERS] = {
	"papi_tot_cyc", "papi_tot_ins", "papi_l1_dcm", "papi_l2_dcm", "papi_l3_tcm",
};

static bool use_papi;
static bool added[HB_N_COUNTERS];
#ifdef HAVE_PAPI
static int event_set = PAPI_NULL;
static const int events[HB_N_COUNTERS] = {
	PAPI_TOT_CYC, PAPI_TOT_INS, PAPI_L1_DCM, PAPI_L2_DCM, PAPI_L3_TCM,
};
#endif

const char *hb_counter_source(void) { return use_papi ? "papi" : "none"; }

#ifdef HAVE_PAPI
/* Adds what it can; returns the number of events added, and why none were in why. */
static int papi_setup(char *why, size_t why_len)
{
	int rc = PAPI_library_init(PAPI_VER_CURRENT);
	if (rc != PAPI_VER_CURRENT) {
		snprintf(why, why_len, "PAPI_library_init failed: %s", PAPI_strerror(rc));
		return 0;
	}
	if ((rc = PAPI_create_eventset(&event_set)) != PAPI_OK) {
		snprintf(why, why_len, "PAPI_create_eventset failed: %s", PAPI_strerror(rc));
		return 0;
	}
	int n_added = 0;
	for (int i = 0; i < HB_N_COUNTERS; i++)
		if (PAPI_add_event(event_set, events[i]) == PAPI_OK)
			added[i] = true, n_added++;
	if (n_added == 0) {
		const PAPI_component_info_t *ci = PAPI_get_component_info(0);
		if (ci && ci->disabled)
			snprintf(why, why_len, "PAPI component %s disabled: %s", ci->name,
			         ci->disabled_reason);
		else
			snprintf(why, why_len,
			         "PAPI offers none of PAPI_TOT_CYC, PAPI_TOT_INS, PAPI_L1_DCM, "
			         "PAPI_L2_DCM, PAPI_L3_TCM here (no hardware PMU, e.g. a VM)");
	}
	return n_added;
}
#endif

int hb_counters_init(enum hb_counter_mode mode, char *notice, size_t notice_len,
                     char *err, size_t err_len)
{
	notice[0] = err[0] = '\0';
	use_papi = false;
	if (mode == HB_COUNTERS_NONE)
		return 0;
	char why[256] = "dodbench was built without PAPI (install libpapi-dev and rebuild)";
#ifdef HAVE_PAPI
	use_papi = papi_setup(why, sizeof why) > 0;
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

void hb_begin(struct hb_region *r)
{
	memset(r, 0, sizeof *r);
#ifdef HAVE_PAPI
	if (use_papi)
		PAPI_start(event_set);
#endif
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	r->t0.sec = ts.tv_sec;
	r->t0.nsec = ts.tv_nsec;
#ifdef HB_HAVE_TSC
	unsigned aux;
	r->tsc0 = __rdtscp(&aux);
#endif
}

void hb_end(struct hb_region *r)
{
#ifdef HB_HAVE_TSC
	unsigned aux;
	uint64_t tsc1 = __rdtscp(&aux);
	r->tsc_cycles = tsc1 - r->tsc0;
	r->have_tsc = true;
#endif
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	r->elapsed_ns = (uint64_t)((ts.tv_sec - r->t0.sec) * 1000000000LL + (ts.tv_nsec - r->t0.nsec));
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
}
