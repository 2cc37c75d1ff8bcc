/* push_latency - insert n items one call at a time into a container created empty, and
 * time every insert: the latency distribution of growth (Our Machinery, "Bulk data":
 * a geometric realloc makes rare pushes copy everything, which a frame budget sees as a
 * spike; blocks and virtual-memory reservations do not move). Timed: n calls of
 * ops->insert_n(c, 1, ...), one latency sample each (hb_lap; the cost of taking a sample
 * is measured and written as sample_cost_ns). This is the one place a scenario makes an
 * indirect call per element, on purpose: the operation measured is one push. A push that
 * grew a buffer by reallocation is marked (scn_lap_growth), so the row gives those
 * pushes apart (grow_pushes, grow_p50_ns, grow_max_ns against plain_max_ns) beside what
 * the growth did (grows, grow_moves, grow_copied_bytes: whether it copied), and of the
 * slowest push that grew (the one grow_max_ns times) how many items the container held
 * before it (grow_max_at: the size at that growth) and how many bytes its growth copied
 * (grow_max_copied_bytes: dod_growth.copied_bytes across it), so a rule can ask whether
 * the spike's copy grows with the size (A10). The bookkeeping runs only after a push that
 * grew, inside the region (a few instructions, in that push's next lap).
 * ops = n. Checksum: the key sum by iteration, expected n(n-1)/2; size must be n and
 * every returned handle must reach its item. */
#include <stdbool.h>
#include <stdlib.h>

#include "scenario.h"

/* The slowest push that grew so far: its ticks, the items held before it, the bytes it
 * copied; seen: one grew. */
struct worst_growth {
	uint64_t ticks, copied;
	size_t at;
	bool seen;
};

/* After scn_lap_growth of push i, which grew a buffer: the bytes it copied are
 * dod_growth.copied_bytes less *copied (the count after the previous growth: a push that
 * does not grow copies nothing), and it becomes *w when it took at least as long (the
 * last of equals, as grow_max_ns's sort keeps one of them). */
static inline void note_growth(const struct hb_region *r, size_t i, uint64_t *copied,
                               struct worst_growth *w)
{
	uint64_t s = r->samples_n ? r->samples[r->samples_n - 1] : 0;
	if (!(s & HB_SAMPLE_GREW))
		return; /* no sample taken (past the reserved count) */
	uint64_t t = s & ~HB_SAMPLE_GREW, d = dod_growth.copied_bytes - *copied;
	*copied = dod_growth.copied_bytes;
	if (!w->seen || t >= w->ticks)
		*w = (struct worst_growth){.ticks = t, .copied = d, .at = i, .seen = true};
}

static int run(const struct dod_ops *ops, const struct scn_params *p, struct hb_region *r,
               struct scn_result *res)
{
	uint64_t *handles, dummy;
	if (scn_handles_array(ops, p->n, &handles, res))
		return SCN_ERROR;
	void *c = NULL;
	int err = ops->create(&c, 0);
	if (err) {
		free(handles);
		return scn_error(res, "create", err);
	}
	if (hb_samples_reserve(r, p->n)) {
		ops->destroy(c);
		free(handles);
		return scn_error(res, "latency samples", DOD_ENOMEM);
	}
	size_t i = 0;
	uint64_t grows = dod_growth.grows, copied = dod_growth.copied_bytes;
	struct worst_growth worst = {0, 0, 0, false};
	hb_begin(r);
	for (; i < p->n; i++) {
		if ((err = ops->insert_n(c, 1, i, handles ? &handles[i] : &dummy)) != 0)
			break;
		uint64_t had = grows;
		scn_lap_growth(r, &grows);
		if (grows != had) /* this push grew: a register compare on the others */
			note_growth(r, i, &copied, &worst);
	}
	DOD_CLOBBER();
	hb_end(r);
	res->ops = p->n;
	if (worst.seen) {
		res->grow_max_at = (long long)worst.at;
		res->grow_max_copied = (long long)worst.copied;
	}
	if (err) {
		ops->destroy(c);
		free(handles);
		return scn_error(res, "insert_n", err);
	}
	scn_check_sum(res, ops->iterate_sum(c), scn_key_sum(p->n));
	uint64_t by_handle = 0;
	if (res->verified && ops->size(c) != p->n)
		scn_fail(res, "size %zu after %zu pushes", ops->size(c), p->n);
	else if (res->verified && handles &&
	         (ops->lookup_sum(c, handles, p->n, &by_handle) || by_handle != res->checksum))
		scn_fail(res, "a handle returned by a push does not reach its item");
	ops->destroy(c);
	free(handles);
	return SCN_RAN;
}

static const struct scn_scenario push_latency = {
	.name = "push_latency",
	.help = "push n items one at a time into an empty container, each push timed "
	        "(p50/p99/p999/max)",
	.records_samples = true,
	.grows_from_empty = true,
	.run = run,
};
SCN_REGISTER(push_latency)
