/* defrag_steps - defragment as a game calls it: one call a frame, each moving at most
 * --max-swaps items, until the order is sorted; every call timed. It measures three of
 * the handle_map article's claims (Jeff Kiah, 2016, defragment): maxSwaps bounds the
 * work of a call so it can run every frame; the insertion sort is adaptive (a nearly
 * sorted order costs O(n + moves)); the fragmented flag makes a call free when nothing
 * changed. Setup (untimed): n items (keys 0..n-1) in the order --defrag-input names:
 * shuffled (ops->shuffle, as the defragment scenario), near_sorted (inserted one call
 * each in key order with SCN_NEAR_SORTED_PERCENT % of n disjoint adjacent pairs
 * swapped), sorted (inserted in key order, so the container still counts itself
 * fragmented) or defragmented (sorted, then one complete defragment). Timed: calls of
 * ops->defragment(max_swaps) until one moves fewer than max_swaps items (max_swaps 0:
 * one call), one latency sample per call: p50_ns ... max_ns are per call, samples and ops
 * are the number of calls (ns_per_op: the mean call), swaps the items moved in all. Verification as defragment's: sorted keys, every handle reaches its
 * item, swaps equal to the moves counted from the starting order. Checksum: sum of key *
 * (position + 1). No holes: the inputs are orders, not erasures. */
#include <stdlib.h>

#include "scenario.h"

/* The key of each storage position for near_sorted: key order with round(n *
 * SCN_NEAR_SORTED_PERCENT / 100) (at least 1 for n >= 2) of the n / 2 disjoint pairs
 * (2i, 2i + 1) swapped, chosen with seed. NULL when out of memory. */
static uint64_t *near_sorted_keys(size_t n, uint64_t seed)
{
	size_t n_pairs = n / 2, want = (n * SCN_NEAR_SORTED_PERCENT + 50) / 100;
	want = want > n_pairs ? n_pairs : want < 1 && n_pairs ? 1 : want;
	uint64_t *keys = scn_alloc_touched(n, sizeof *keys);
	size_t *pairs = scn_alloc_touched(n_pairs ? n_pairs : 1, sizeof *pairs);
	if (!keys || !pairs) {
		free(keys);
		free(pairs);
		return NULL;
	}
	for (size_t i = 0; i < n; i++)
		keys[i] = i;
	for (size_t k = 0; k < n_pairs; k++)
		pairs[k] = k;
	uint64_t rng = seed;
	dod_shuffle(pairs, n_pairs, sizeof *pairs, &rng);
	for (size_t k = 0; k < want; k++) {
		keys[2 * pairs[k]] = 2 * pairs[k] + 1;
		keys[2 * pairs[k] + 1] = 2 * pairs[k];
	}
	free(pairs);
	return keys;
}

/* A container holding keys 0..n-1 stored in the order keys[] gives, one insert_n call
 * each; f->handles[k] is key k's handle. Returns 0 or SCN_ERROR. */
static int fill_in_order(const struct dod_ops *ops, const uint64_t *keys, size_t n,
                         struct scn_filled *f, struct scn_result *res)
{
	if (scn_handles_array(ops, n, &f->handles, res))
		return SCN_ERROR;
	int err = ops->create(&f->c, n);
	for (size_t i = 0; !err && i < n; i++)
		err = ops->insert_n(f->c, 1, keys[i], &f->handles[keys[i]]);
	return err ? scn_error(res, "near-sorted insert", err) : 0;
}

/* Untimed setup of the starting order (see the opening comment): f gets the container
 * with no holes. Returns 0 or SCN_ERROR (f freed). */
static int setup(const struct dod_ops *ops, const struct scn_params *p, struct scn_filled *f,
                 struct scn_result *res)
{
	*f = (struct scn_filled){.n = p->n, .n_live = p->n, .live_key_sum = scn_key_sum(p->n)};
	int err = 0;
	if (p->defrag_input == SCN_DEFRAG_NEAR_SORTED) {
		uint64_t *keys = near_sorted_keys(p->n, p->seed);
		err = keys ? fill_in_order(ops, keys, p->n, f, res)
		           : scn_error(res, "near-sorted keys", DOD_ENOMEM);
		free(keys);
	} else {
		err = scn_fill(ops, p->n, &f->c, &f->handles, res);
	}
	f->live = f->handles;
	if (err) {
		scn_filled_free(ops, f);
		return SCN_ERROR;
	}
	if (p->defrag_input == SCN_DEFRAG_SHUFFLED && (err = ops->shuffle(f->c, p->seed)))
		scn_error(res, "shuffle", err);
	else if (p->defrag_input == SCN_DEFRAG_DEFRAGMENTED && (err = ops->defragment(f->c, 0, NULL)))
		scn_error(res, "setup defragment", err);
	if (err)
		scn_filled_free(ops, f);
	return err ? SCN_ERROR : 0;
}

static int run(const struct dod_ops *ops, const struct scn_params *p, struct hb_region *r,
               struct scn_result *res)
{
	struct scn_filled f;
	uint64_t *keys = scn_alloc_touched(p->n, sizeof *keys);
	if (!keys)
		return scn_error(res, "keys array", DOD_ENOMEM);
	if (setup(ops, p, &f, res)) {
		free(keys);
		return SCN_ERROR;
	}
	ops->dump_keys(f.c, keys);
	long long expect_swaps = scn_count_moves(keys, p->n);
	/* A call moves at least one item until the last one: n / max_swaps + 2 bounds them. */
	size_t max_calls = p->max_swaps ? p->n / p->max_swaps + 2 : 1, calls = 0;
	if (hb_samples_reserve(r, max_calls)) {
		scn_filled_free(ops, &f);
		free(keys);
		return scn_error(res, "latency samples", DOD_ENOMEM);
	}
	int err = 0;
	size_t moved = 0, total = 0;
	hb_begin(r);
	while (!err && calls < max_calls) {
		err = ops->defragment(f.c, p->max_swaps, &moved);
		hb_lap(r);
		total += moved;
		if (++calls, p->max_swaps == 0 || moved < p->max_swaps)
			break;
	}
	DOD_CLOBBER();
	hb_end(r);
	res->swaps = (long long)total;
	res->ops = calls;
	if (err) {
		scn_filled_free(ops, &f);
		free(keys);
		return scn_error(res, "defragment", err);
	}
	scn_check_defragmented(ops, &f, keys, res->swaps, expect_swaps, res);
	scn_filled_free(ops, &f);
	free(keys);
	return SCN_RAN;
}

static const struct scn_scenario defrag_steps = {
	.name = "defrag_steps",
	.help = "defragment from --defrag-input order in calls of at most --max-swaps moves, "
	        "each call timed (p50/p99/max per call, samples = calls)",
	.records_samples = true,
	.cannot_run = scn_needs_defragment,
	.run = run,
};
SCN_REGISTER(defrag_steps)
