/* papi.c - a test-only stand-in for libpapi: PAPI's C API as dodbench calls it
 * (harness/measure.c), returning scripted counts, so the counter path runs on a machine
 * without a PMU (a VM, CI). Built as build/libfakepapi.so and preloaded in front of the
 * real libpapi (LD_PRELOAD); never linked into dodbench itself.
 *
 * FAKE_PAPI picks the script (default "full"):
 *   full      every event adds; each region counts FAKE_CYC cycles, FAKE_INS instructions,
 *             FAKE_L1 L1D misses, FAKE_L2 L2 misses and FAKE_L3 L3 misses (below)
 *   partial   PAPI_L2_DCM and PAPI_L3_TCM fail to add (PAPI_ENOEVNT); the others count
 *   none      no event adds and component 0 says it is disabled, with a reason
 *   readfail  every event adds, but PAPI_stop fails (PAPI_ESYS)
 * The counts are per region, so per operation they are count / ops. */
#include <papi.h>
#include <stdlib.h>
#include <string.h>

enum { FAKE_CYC = 1000003, FAKE_INS = 2000003, FAKE_L1 = 30011, FAKE_L2 = 4001, FAKE_L3 = 503 };

static int n_events;
static int codes[16];

static int is_mode(const char *name)
{
	const char *m = getenv("FAKE_PAPI");
	return strcmp(m && *m ? m : "full", name) == 0;
}

static long long count_of(int code)
{
	switch (code) {
	case PAPI_TOT_CYC: return FAKE_CYC;
	case PAPI_TOT_INS: return FAKE_INS;
	case PAPI_L1_DCM: return FAKE_L1;
	case PAPI_L2_DCM: return FAKE_L2;
	case PAPI_L3_TCM: return FAKE_L3;
	default: return 0;
	}
}

int PAPI_library_init(int version)
{
	(void)version;
	return PAPI_VER_CURRENT;
}

char *PAPI_strerror(int err)
{
	(void)err;
	return (char *)"fake PAPI error";
}

int PAPI_create_eventset(int *set)
{
	*set = 1;
	n_events = 0;
	return PAPI_OK;
}

int PAPI_add_event(int set, int code)
{
	(void)set;
	if (is_mode("none") || n_events == (int)(sizeof codes / sizeof codes[0]) ||
	    (is_mode("partial") && (code == PAPI_L2_DCM || code == PAPI_L3_TCM)))
		return PAPI_ENOEVNT;
	codes[n_events++] = code;
	return PAPI_OK;
}

const PAPI_component_info_t *PAPI_get_component_info(int cidx)
{
	static PAPI_component_info_t info;
	(void)cidx;
	memset(&info, 0, sizeof info);
	strcpy(info.name, "fake-perf_event");
	info.disabled = PAPI_ECMP;
	strcpy(info.disabled_reason, "fake PAPI: scripted without events");
	return &info;
}

int PAPI_start(int set)
{
	(void)set;
	return PAPI_OK;
}

int PAPI_stop(int set, long long *values)
{
	(void)set;
	if (is_mode("readfail"))
		return PAPI_ESYS;
	for (int i = 0; i < n_events; i++)
		values[i] = count_of(codes[i]);
	return PAPI_OK;
}

int PAPI_cleanup_eventset(int set)
{
	(void)set;
	return PAPI_OK;
}

int PAPI_destroy_eventset(int *set)
{
	*set = PAPI_NULL;
	return PAPI_OK;
}

void PAPI_shutdown(void)
{
	n_events = 0;
}
