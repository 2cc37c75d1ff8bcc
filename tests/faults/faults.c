/* faults.c - scenarios that fail on purpose, linked only into build/dodbench-faults (the
 * test build of dodbench; never into build/dodbench): the isolation tests
 * (tests/python/test_isolation.py) check that each way a case can die gives its row the
 * right status while the rest of the sweep runs on. Each runs the registered iterate
 * scenario (n items, a timed iterate_sum, the key sum verified) and then:
 *   fault_segv     writes to a PROT_NONE page: a real SIGSEGV, every call
 *   fault_abort    abort(): SIGABRT, every call
 *   fault_exit     exit(3) mid-case, every call
 *   fault_hang     sleeps forever, every call (status timeout with --timeout)
 *   fault_kill     SIGKILL to itself, what the kernel's OOM killer sends (status oom)
 *   fault_enomem   reports the container error DOD_ENOMEM (status oom, no crash)
 *   fault_late     verified for its first 3 calls in a process, SIGSEGV on the 4th: with
 *                  --warmup 1 the crash hits measured repetition 2, after 2 whole rows
 *   fault_wrong    a wrong checksum on every call (status failed, not verified)
 *
 * It also holds the trial of issue 14's case axes as data (tests/python/test_axes.py): the
 * axis `knob`, defined in this one place (knob_axis below: option --knob, its CSV column
 * axis_knob, case-name part knob:K), and the scenario that takes it, knob_probe (the
 * iterate scenario run once per knob value; no other scenario takes the axis).
 */
#define _GNU_SOURCE
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "axes.h"
#include "scenario.h"

enum fault { F_SEGV, F_ABORT, F_EXIT, F_HANG, F_KILL, F_ENOMEM, F_LATE, F_WRONG };

static void segv(void)
{
	volatile char *p = mmap(NULL, 4096, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		raise(SIGSEGV);
	p[0] = 1;
	raise(SIGSEGV); /* not reached */
}

static int run_fault(enum fault f, const struct dod_ops *ops, const struct scn_params *p,
                     struct hb_region *r, struct scn_result *res)
{
	static unsigned calls;
	calls++;
	int rc = scn_find("iterate")->run(ops, p, r, res);
	if (rc != SCN_RAN)
		return rc;
	if (f == F_WRONG)
		scn_check_sum(res, res->checksum + 1, res->checksum);
	switch (f) {
	case F_SEGV: segv(); break;
	case F_ABORT: abort();
	case F_EXIT: exit(3);
	case F_HANG:
		for (;;)
			pause();
	case F_KILL: raise(SIGKILL); break;
	case F_ENOMEM: return scn_error(res, "insert_n (fault_enomem)", DOD_ENOMEM);
	case F_LATE:
		if (calls > 3)
			segv();
		break;
	case F_WRONG: break;
	}
	return SCN_RAN;
}

#define FAULT(id, kind, text)                                                             \
	static int run_##id(const struct dod_ops *ops, const struct scn_params *p,            \
	                    struct hb_region *r, struct scn_result *res)                      \
	{                                                                                     \
		return run_fault(kind, ops, p, r, res);                                           \
	}                                                                                     \
	static const struct scn_scenario id = {.name = #id, .help = "test build: " text,      \
	                                       .run = run_##id};                              \
	SCN_REGISTER(id)

FAULT(fault_segv, F_SEGV, "SIGSEGV on every call")
FAULT(fault_abort, F_ABORT, "abort() on every call")
FAULT(fault_exit, F_EXIT, "exit(3) on every call")
FAULT(fault_hang, F_HANG, "never returns")
FAULT(fault_kill, F_KILL, "SIGKILL to itself, as the OOM killer")
FAULT(fault_enomem, F_ENOMEM, "reports DOD_ENOMEM")
FAULT(fault_late, F_LATE, "verified 3 times in a process, then SIGSEGV")
FAULT(fault_wrong, F_WRONG, "a wrong checksum")

/* ---- the trial axis: everything the harness knows of it is this entry and the
 * scenario that lists it ---- */

static const struct hb_axis knob_axis = {
	.option = "knob", .metavar = "K", .def = "1", HB_AXIS_KEY("knob"),
	.help = "test build: a trial axis, integers 1..1000",
	.kind = HB_AXIS_COUNT, .min = 1, .max = 1000, .too_large = "above 1000",
	.absent_help = "run without it",
};
HB_AXIS_REGISTER(knob_axis)

static int run_knob_probe(const struct dod_ops *ops, const struct scn_params *p,
                          struct hb_region *r, struct scn_result *res)
{
	return scn_find("iterate")->run(ops, p, r, res);
}
static const struct scn_scenario knob_probe = {
	.name = "knob_probe", .help = "test build: iterate, once per --knob value",
	.axes = SCN_AXES(&knob_axis),
	.run = run_knob_probe,
};
SCN_REGISTER(knob_probe)

/* knob_unlisted: the same run, its axes list empty: it takes no --knob, whatever its name
 * starts with (the scenarios that take an axis are those that list it). */
static const struct scn_scenario knob_unlisted = {
	.name = "knob_unlisted", .help = "test build: iterate, listing no axis (no --knob)",
	.run = run_knob_probe,
};
SCN_REGISTER(knob_unlisted)

/* place_probe: where the heap placement (--place, harness/alloc_count.c) put blocks.
 * Untimed: a 4096-byte malloc, grown by realloc to 1 MiB (its bytes kept), a calloc of
 * 8192 zeroed bytes, all freed. The checksum is 1000 x the malloc'd block's offset past a
 * 64-byte line + the realloc'd block's (0 under line, 16016 under line16: the offset kept;
 * glibc's own placement keeps none); verified when the realloc'd block kept every byte and
 * the calloc'd one is zero. ops = 1. */
static int run_place_probe(const struct dod_ops *ops, const struct scn_params *p,
                           struct hb_region *r, struct scn_result *res)
{
	(void)ops;
	(void)p;
	unsigned char *a = malloc(4096), *z = calloc(8192, 1);
	if (!a || !z) {
		free(a);
		free(z);
		return scn_error(res, "place_probe", DOD_ENOMEM);
	}
	for (size_t i = 0; i < 4096; i++)
		a[i] = (unsigned char)(i * 7);
	uintptr_t off = (uintptr_t)a % 64;
	hb_begin(r);
	hb_end(r);
	unsigned char *b = realloc(a, 1 << 20);
	uintptr_t b_at = (uintptr_t)b;
	DOD_KEEP(b_at);
	if (!b) {
		free(a);
		free(z);
		return scn_error(res, "place_probe realloc", DOD_ENOMEM);
	}
	bool kept = true;
	for (size_t i = 0; i < 4096; i++)
		kept &= b[i] == (unsigned char)(i * 7);
	bool zero = true;
	for (size_t i = 0; i < 8192; i++)
		zero &= z[i] == 0;
	free(b);
	free(z);
	res->ops = 1;
	res->checksum = off * 1000 + b_at % 64;
	res->verified = kept && zero;
	if (!res->verified)
		scn_fail(res, "realloc kept the bytes: %d; calloc zeroed: %d", kept, zero);
	return SCN_RAN;
}
static const struct scn_scenario place_probe = {
	.name = "place_probe",
	.help = "test build: the offset past a cache line of a 4096-byte malloc (checksum), "
	        "kept by realloc",
	.run = run_place_probe,
};
SCN_REGISTER(place_probe)
