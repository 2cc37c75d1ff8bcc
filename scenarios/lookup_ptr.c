/* lookup_ptr - visit every live item through a raw 64-bit pointer to it, held instead of
 * its weak pointer, and sum the keys (Our Machinery, "Bulk data": with stable storage
 * (blocks or a VM reserve) a raw pointer can replace the 32-bit index and its lookup).
 * The pair of the lookup scenario: the same setup (n items, the shared hole setup, the
 * survivors' handles in insertion order, --order seq, or a seeded shuffle of them, random),
 * then, untimed, each survivor's address taken once through ops->item_addr, in the same
 * order. Timed: K passes (scn_run_passes: warm, K from the clock's floor) of a plain loop
 * that adds the key at every held address: one load per item, no index, no generation
 * check, so no stale detection (what the raw pointer gives up). ops = K x surviving items.
 * Checksum: the sums; each pass must give the survivors' key sum, and the sum through
 * lookup_sum right after the timed region must too (the pointers still name the items).
 * Runs on containers with item_addr (their item starts with its 64-bit key). */
#include <stdlib.h>

#include "fill_holes.h"

struct ctx {
	const uint64_t *const *at; /* each survivor's key, where the store holds it */
	size_t n;
};

/* One pass: the keys through the held pointers. */
static uint64_t pass(void *p)
{
	const struct ctx *x = p;
	const uint64_t *const *at = x->at;
	DOD_KEEP(at); /* every pass reads through them */
	uint64_t sum = 0;
	for (size_t i = 0; i < x->n; i++)
		sum += *at[i];
	return sum;
}

/* The survivors' addresses in f's order into *out. Returns SCN_RAN, with *out NULL when a
 * live handle gave no address (res failed), or SCN_ERROR with res's reason when out of
 * memory. */
static int take_addresses(const struct dod_ops *ops, const struct scn_filled *f,
                          const uint64_t ***out, struct scn_result *res)
{
	const uint64_t **at = scn_alloc_touched(f->n_live ? f->n_live : 1, sizeof *at);
	*out = NULL;
	if (!at)
		return scn_error(res, "lookup_ptr setup", DOD_ENOMEM);
	for (size_t i = 0; i < f->n_live; i++) {
		at[i] = ops->item_addr(f->c, f->live[i]);
		if (!at[i]) {
			free(at);
			return scn_fail(res, "item_addr gave no address for live handle %zu", i);
		}
	}
	*out = at;
	return SCN_RAN;
}

static int run(const struct dod_ops *ops, const struct scn_params *p, struct hb_region *r,
               struct scn_result *res)
{
	struct scn_filled f;
	if (scn_fill_ordered(ops, p, &f, res))
		return SCN_ERROR;
	const uint64_t **at;
	int status = take_addresses(ops, &f, &at, res);
	if (status == SCN_ERROR || !at) {
		scn_filled_free(ops, &f);
		return status;
	}
	struct ctx x = {at, f.n_live};
	struct scn_passes ps = {.pass = pass, .ctx = &x};
	scn_run_passes(p, r, &ps);
	res->ops = ps.k * f.n_live;
	scn_check_passes(res, &ps, f.live_key_sum);
	uint64_t by_handle = 0;
	int err = ops->lookup_sum(f.c, f.live, f.n_live, &by_handle);
	if (res->verified && (err || by_handle != f.live_key_sum))
		scn_fail(res, "lookup_sum after the raw-pointer passes: %s, sum %llu, expected %llu",
		         err ? dod_strerror(err) : "ok", (unsigned long long)by_handle,
		         (unsigned long long)f.live_key_sum);
	free(at);
	scn_filled_free(ops, &f);
	return SCN_RAN;
}

static const struct scn_scenario lookup_ptr = {
	.name = "lookup_ptr",
	.help = "visit every live item through a raw pointer taken once from its handle "
	        "(--order seq|random), sum the keys",
	.axes = SCN_AXES(&hb_axis_order, SCN_AXIS_HOLES, &hb_axis_cache),
	.cannot_run = scn_needs_item_addr,
	.run = run,
};
SCN_REGISTER(lookup_ptr)
