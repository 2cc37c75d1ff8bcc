/* fill_static - a static array of MAX elements "wastes memory or runs out" (Our Machinery,
 * "Bulk data"), both measured on the fixed-capacity variants (caps fixed_capacity; every
 * other container is skipped). MAX is n: create(n) sizes the array for n items (the
 * static store allocates exactly the capacity create is given, containers/alloc/static.c).
 * Timed: the build, create(n), insert n items in batches, then erase --hole-ratio of them
 * by --hole-pattern in one erase_n, so the array sized for n holds (1 - hole_ratio) * n
 * live items (the fill). Then, untimed as in memory.c: committed_bytes (footprint_bytes,
 * declared), reserved_bytes and measured_bytes (hb_process_bytes after the build less
 * before it: what the process holds for the array; -1 without the allocator layer).
 * ops = live items, so measured_bytes / ops is the bytes a live item costs at this fill.
 * Then (untimed) running out: items are pushed one at a time (keys n, n + 1, ...) until a
 * push fails with DOD_EFULL or the container holds n + 1 items. Checksum: the items the
 * container held when a push was refused with DOD_EFULL (n when it runs out exactly at its
 * capacity), 0 when no push was refused (it took an item past n: no running out).
 * Verification: the survivors' key sum by iteration and the size after the build, the
 * size after the pushes (the refused push changed nothing); another error of a push is an
 * error. */
#include <stdlib.h>

#include "fill_holes.h"

#define FILL_STATIC_BATCH 1024 /* items per insert_n call while building */

/* The build (the opening comment): create(n), n inserted, victims[0..m) erased. Returns 0
 * or a DOD error. */
static int build(const struct dod_ops *ops, size_t n, uint64_t *handles, uint64_t *victims,
                 const size_t *order, size_t m, void **c)
{
	int err = ops->create(c, n);
	for (size_t i = 0; !err && i < n; i += FILL_STATIC_BATCH) {
		size_t k = n - i < FILL_STATIC_BATCH ? n - i : FILL_STATIC_BATCH;
		err = ops->insert_n(*c, k, i, handles + i);
	}
	if (!err && m > 0) {
		for (size_t j = 0; j < m; j++)
			victims[j] = handles[order[j]];
		err = ops->erase_n(*c, victims, m);
	}
	return err;
}

/* Pushes one item at a time from `live` held until one is refused with DOD_EFULL or n + 1
 * are held. Returns 0 with *held_at_refusal (0: none refused), or another DOD error. */
static int push_until_full(const struct dod_ops *ops, void *c, size_t n, size_t live,
                           uint64_t *held_at_refusal)
{
	*held_at_refusal = 0;
	for (size_t held = live; held <= n; held++) {
		uint64_t h;
		int err = ops->insert_n(c, 1, n + (held - live), &h);
		if (err == DOD_EFULL) {
			*held_at_refusal = held;
			return 0;
		}
		if (err)
			return err;
	}
	return 0;
}

/* Untimed after the build: the bytes, the verification, then running out. */
static int measure(const struct dod_ops *ops, void *c, size_t n, long long before,
                   uint64_t survivors, struct scn_result *res)
{
	long long after = hb_process_bytes();
	res->committed_bytes = (long long)ops->footprint_bytes(c);
	res->measured_bytes = before >= 0 && after >= 0 ? after - before : -1;
	res->reserved_bytes = (long long)(ops->reserved_bytes ? ops->reserved_bytes(c)
	                                                      : ops->footprint_bytes(c));
	scn_check_sum(res, ops->iterate_sum(c), survivors);
	if (res->verified && ops->size(c) != res->ops) {
		scn_fail(res, "size %zu, expected %llu", ops->size(c), (unsigned long long)res->ops);
		return SCN_RAN;
	}
	int err = push_until_full(ops, c, n, res->ops, &res->checksum);
	if (err)
		return scn_error(res, "push past the capacity", err);
	size_t expect = res->checksum ? res->checksum : n + 1;
	if (res->verified && ops->size(c) != expect)
		scn_fail(res, "size %zu after the pushes, expected %zu", ops->size(c), expect);
	return SCN_RAN;
}

static int run(const struct dod_ops *ops, const struct scn_params *p, struct hb_region *r,
               struct scn_result *res)
{
	size_t n = p->n;
	uint64_t *handles = NULL;
	unsigned char *erased = scn_alloc_touched(n, 1);
	size_t *order = scn_alloc_touched(n, sizeof *order);
	uint64_t *victims = scn_alloc_touched(n, sizeof *victims);
	int rc = SCN_ERROR;
	if (!erased || !order || !victims || scn_handles_array(ops, n, &handles, res) ||
	    !handles) {
		if (!res->why[0])
			scn_error(res, "fill_static setup", DOD_ENOMEM);
		goto out;
	}
	size_t m = scn_hole_indices(n, p->hole_ratio, p->hole_pattern, p->seed, erased, order);
	if (m == (size_t)-1) {
		scn_error(res, "fill_static setup", DOD_ENOMEM);
		goto out;
	}
	uint64_t survivors = scn_key_sum(n);
	for (size_t j = 0; j < m; j++)
		survivors -= order[j];
	void *c = NULL;
	long long before = hb_process_bytes();
	hb_begin(r);
	int err = build(ops, n, handles, victims, order, m, &c);
	DOD_CLOBBER();
	hb_end(r);
	res->ops = n - m;
	res->hole_ratio = (double)m / (double)n;
	rc = err ? scn_error(res, "build", err) : measure(ops, c, n, before, survivors, res);
	if (c)
		ops->destroy(c);
out:
	free(handles);
	free(erased);
	free(order);
	free(victims);
	return rc;
}

static const char *cannot_run(const struct dod_ops *ops)
{
	if (!(ops->caps & DOD_CAP_FIXED_CAPACITY))
		return "not a fixed capacity: nothing to fill or run out of";
	return scn_needs_handles(ops);
}

static const struct scn_scenario fill_static = {
	.name = "fill_static",
	.help = "a fixed capacity n filled to (1 - hole_ratio) n: measured bytes per live item, "
	        "and the items held when a push is refused (DOD_EFULL)",
	.axes = SCN_AXES(SCN_AXIS_HOLES),
	.cannot_run = cannot_run,
	.run = run,
};
SCN_REGISTER(fill_static)
