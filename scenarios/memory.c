/* memory - what a container costs in memory (Our Machinery, "Bulk data": geometric growth
 * wastes up to half its capacity; blocks waste at most one block; a vm reservation costs
 * address space, not memory). Timed: building the state - create with 0 reserved, insert
 * n items one batch at a time (so every strategy grows as it would in a game), then erase
 * --hole-ratio of them by --hole-pattern in one erase_n; the CSV's allocs and frees count
 * the allocator calls of that build. Then (untimed) reserved_bytes (address space, vm
 * reservations included) and committed_bytes (ops->footprint_bytes: what the process
 * holds, as the container declares it) are written to the CSV, and measured_bytes: what the
 * process itself holds after the build less before it (hb_process_bytes: the heap's
 * in-use bytes by glibc's own statistics, and the writable pages mapped outside the heap,
 * a vm store's committed ones; read outside the timed region; -1, an empty field, in a
 * build without the allocator layer); bytes per live element = committed_bytes / ops.
 * ops = live items. Verification: size and the key sum by iteration are the survivors'.
 * Checksum: that sum. Peak RSS is not measured here: it is per process, and cases share
 * one process. */
#include <stdlib.h>

#include "fill_holes.h"

#define SCN_MEMORY_BATCH 1024 /* items per insert_n call while building */

static int run(const struct dod_ops *ops, const struct scn_params *p, struct hb_region *r,
               struct scn_result *res)
{
	size_t n = p->n;
	uint64_t *handles;
	unsigned char *erased = scn_alloc_touched(n, 1);
	size_t *order = scn_alloc_touched(n, sizeof *order);
	uint64_t *victims = scn_alloc_touched(n, sizeof *victims);
	if (!erased || !order || !victims || scn_handles_array(ops, n, &handles, res)) {
		free(erased);
		free(order);
		free(victims);
		return res->why[0] ? SCN_ERROR : scn_error(res, "memory setup", DOD_ENOMEM);
	}
	size_t m = scn_hole_indices(n, p->hole_ratio, p->hole_pattern, p->seed, erased, order);
	uint64_t survivors = scn_key_sum(n);
	for (size_t j = 0; j < m && m != (size_t)-1; j++)
		survivors -= order[j];

	void *c = NULL;
	int err = m == (size_t)-1 ? DOD_ENOMEM : 0;
	long long before = hb_process_bytes();
	hb_begin(r);
	if (!err)
		err = ops->create(&c, 0);
	for (size_t i = 0; !err && i < n; i += SCN_MEMORY_BATCH) {
		size_t k = n - i < SCN_MEMORY_BATCH ? n - i : SCN_MEMORY_BATCH;
		err = ops->insert_n(c, k, i, handles ? handles + i : NULL);
	}
	if (!err && m > 0) {
		for (size_t j = 0; j < m; j++)
			victims[j] = handles[order[j]];
		err = ops->erase_n(c, victims, m);
	}
	DOD_CLOBBER();
	hb_end(r);
	long long after = hb_process_bytes();
	res->ops = n - (m == (size_t)-1 ? 0 : m);
	res->hole_ratio = p->hole_ratio > 0 && m != (size_t)-1 ? (double)m / (double)n : 0;
	int rc = SCN_RAN;
	if (err) {
		rc = scn_error(res, "build", err);
	} else {
		res->committed_bytes = (long long)ops->footprint_bytes(c);
		res->measured_bytes = before >= 0 && after >= 0 ? after - before : -1;
		res->reserved_bytes = (long long)(ops->reserved_bytes ? ops->reserved_bytes(c)
		                                                      : ops->footprint_bytes(c));
		scn_check_sum(res, ops->iterate_sum(c), survivors);
		if (res->verified && ops->size(c) != res->ops)
			scn_fail(res, "size %zu, expected %llu", ops->size(c),
			         (unsigned long long)res->ops);
	}
	if (c)
		ops->destroy(c);
	free(handles);
	free(erased);
	free(order);
	free(victims);
	return rc;
}

static const struct scn_scenario memory = {
	.name = "memory",
	.help = "grow from empty to n (+ erase --hole-ratio); reserved and committed bytes, "
	        "allocator calls",
	.axes = SCN_AXES(SCN_AXIS_HOLES),
	.grows_from_empty = true,
	.run = run,
};
SCN_REGISTER(memory)
