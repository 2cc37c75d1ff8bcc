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
 *   multiplex the PMU has 3 counters: the 4th and 5th events are refused (PAPI_ECNFLCT)
 *             until the set is multiplexed, in PAPI's order (PAPI_multiplex_init, a new
 *             empty set, PAPI_assign_eventset_component, PAPI_set_multiplex; out of
 *             order: PAPI_EINVAL); then all add and count the MUX_* counts
 *   multiplex_partial  the multiplex script on a CPU without PAPI_L3_TCM (PAPI_ENOEVNT,
 *             multiplexed or not): the set is multiplexed and the other four count
 * The counts are per region, so per operation they are count / ops.
 *
 * FAKE_PERF_SCALE=S (a number >= 1) also stands in for the kernel's perf_event_open, which
 * dodbench calls through libc's syscall() for its PMU-sharing probe (pmu_scale column):
 * that call returns a memfd holding (value, time_enabled, time_running) triples with
 * enabled = S x running, so each region's read gives pmu_scale S (for the first 4096
 * regions of a process; later reads find the end and leave pmu_scale empty). Every other
 * system call goes to libc's syscall(). */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <papi.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

enum { FAKE_CYC = 1000003, FAKE_INS = 2000003, FAKE_L1 = 30011, FAKE_L2 = 4001, FAKE_L3 = 503 };
enum { MUX_CYC = 1500007, MUX_INS = 2500009, MUX_L1 = 40013, MUX_L2 = 5003, MUX_L3 = 601 };
enum { MUX_COUNTERS = 3 }; /* the multiplex script's PMU */

static int n_events;
static int codes[16];
static int mux_inited, assigned, multiplexed; /* the multiplex script's state */

static int is_mode(const char *name)
{
	const char *m = getenv("FAKE_PAPI");
	return strcmp(m && *m ? m : "full", name) == 0;
}

static long long count_of(int code)
{
	switch (code) {
	case PAPI_TOT_CYC: return multiplexed ? MUX_CYC : FAKE_CYC;
	case PAPI_TOT_INS: return multiplexed ? MUX_INS : FAKE_INS;
	case PAPI_L1_DCM: return multiplexed ? MUX_L1 : FAKE_L1;
	case PAPI_L2_DCM: return multiplexed ? MUX_L2 : FAKE_L2;
	case PAPI_L3_TCM: return multiplexed ? MUX_L3 : FAKE_L3;
	default: return 0;
	}
}

int PAPI_multiplex_init(void)
{
	mux_inited = 1;
	return PAPI_OK;
}

int PAPI_assign_eventset_component(int set, int cidx)
{
	(void)set;
	if (n_events || cidx != 0)
		return PAPI_EINVAL; /* an existing but empty event set, component 0 here */
	assigned = 1;
	return PAPI_OK;
}

int PAPI_set_multiplex(int set)
{
	(void)set;
	if (!mux_inited || !assigned || n_events)
		return PAPI_EINVAL;
	multiplexed = 1;
	return PAPI_OK;
}

long syscall(long number, ...)
{
	va_list ap;
	long a[6];
	va_start(ap, number);
	for (int i = 0; i < 6; i++)
		a[i] = va_arg(ap, long);
	va_end(ap);
	const char *scale = getenv("FAKE_PERF_SCALE");
	if (number == SYS_perf_event_open && scale && *scale) {
		int fd = memfd_create("fake-perf", 0);
		uint64_t running = 1000000, triple[3] = {7, (uint64_t)(atof(scale) * running), running};
		for (int i = 0; fd >= 0 && i < 4096; i++) /* one read per region: 4096 regions */
			if (write(fd, triple, sizeof triple) != (ssize_t)sizeof triple) {
				close(fd);
				return -1;
			}
		if (fd >= 0)
			lseek(fd, 0, SEEK_SET);
		return fd;
	}
	long (*real)(long, ...) = (long (*)(long, ...))dlsym(RTLD_NEXT, "syscall");
	return real(number, a[0], a[1], a[2], a[3], a[4], a[5]);
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
	assigned = multiplexed = 0;
	return PAPI_OK;
}

int PAPI_add_event(int set, int code)
{
	(void)set;
	if (is_mode("none") || n_events == (int)(sizeof codes / sizeof codes[0]) ||
	    (is_mode("partial") && (code == PAPI_L2_DCM || code == PAPI_L3_TCM)) ||
	    (is_mode("multiplex_partial") && code == PAPI_L3_TCM))
		return PAPI_ENOEVNT;
	if ((is_mode("multiplex") || is_mode("multiplex_partial")) && !multiplexed &&
	    n_events == MUX_COUNTERS)
		return PAPI_ECNFLCT;
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
	mux_inited = assigned = multiplexed = 0;
}
