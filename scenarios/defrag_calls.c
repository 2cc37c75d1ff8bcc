/* defrag_calls.c - what defrag_steps and defrag_frames share (defrag_calls.h): the
 * starting orders, the timed calls of ops->defragment, their checks, and the two axes
 * defrag_input (--defrag-input, defrag_steps only) and max_swaps (--max-swaps, both). */
#include <stdlib.h>
#include <string.h>

#include "defrag_calls.h"

/* The storage order defrag_steps starts from (--defrag-input). */
enum scn_defrag_input {
	SCN_DEFRAG_SHUFFLED,     /* ops->shuffle: a uniform permutation (defragment's input) */
	SCN_DEFRAG_NEAR_SORTED,  /* key order with SCN_NEAR_SORTED_PERCENT % of n disjoint
	                            adjacent pairs swapped (one move each) */
	SCN_DEFRAG_SORTED,       /* key order as inserted: sorted, but never defragmented */
	SCN_DEFRAG_DEFRAGMENTED  /* key order after a complete defragment: nothing changed since */
};
#define SCN_N_DEFRAG_INPUTS 4
#define SCN_NEAR_SORTED_PERCENT 1
/* The CLI's and the CSV's words. */
static const char *const defrag_input_names[SCN_N_DEFRAG_INPUTS] = {
	"shuffled", "near_sorted", "sorted", "defragmented",
};

/* p's starting order (defrag_frames does not list the axis: shuffled). */
static enum scn_defrag_input defrag_input(const struct scn_params *p)
{
	return (enum scn_defrag_input)scn_axis_value(p, &scn_defrag_input_axis).u;
}
/* p's items moved per call, 0 = no limit. */
static size_t max_swaps(const struct scn_params *p)
{
	return (size_t)scn_axis_value(p, &scn_max_swaps_axis).u;
}

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

/* Untimed setup of the starting order defrag_input(p) (defrag_steps.c's opening
 * comment): f gets the container with no holes. Returns 0 or SCN_ERROR (f freed). */
static int defrag_setup(const struct dod_ops *ops, const struct scn_params *p,
                        struct scn_filled *f, struct scn_result *res)
{
	*f = (struct scn_filled){.n = p->n, .n_live = p->n, .live_key_sum = scn_key_sum(p->n)};
	int err = 0;
	if (defrag_input(p) == SCN_DEFRAG_NEAR_SORTED) {
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
	if (defrag_input(p) == SCN_DEFRAG_SHUFFLED && (err = ops->shuffle(f->c, p->seed)))
		scn_error(res, "shuffle", err);
	else if (defrag_input(p) == SCN_DEFRAG_DEFRAGMENTED && (err = ops->defragment(f->c, 0, NULL)))
		scn_error(res, "setup defragment", err);
	if (err)
		scn_filled_free(ops, f);
	return err ? SCN_ERROR : 0;
}

/* What the timed calls of scn_defrag_calls did. */
struct defrag_tally {
	size_t calls, moved, over_budget, bad_sums;
	uint64_t sums; /* iterate: the frames' iterate sums added */
};

/* The timed region of scn_defrag_calls: at most max_calls calls. Returns 0 or the DOD
 * error of the call that failed. */
static int defrag_loop(const struct dod_ops *ops, void *c, const struct scn_params *p,
                       size_t max_calls, uint64_t key_sum, bool iterate,
                       struct hb_region *r, struct defrag_tally *t)
{
	int err = 0;
	size_t moved = 0;
	size_t budget = max_swaps(p); /* read before the region: a lookup */
	hb_begin(r);
	while (!err && t->calls < max_calls) {
		err = ops->defragment(c, budget, &moved);
		if (iterate) {
			uint64_t sum = ops->iterate_sum(c);
			t->sums += sum;
			t->bad_sums += sum != key_sum;
		}
		hb_lap(r);
		t->moved += moved;
		t->over_budget += budget && moved > budget;
		if (++t->calls, budget == 0 || moved < budget)
			break;
	}
	DOD_CLOBBER();
	hb_end(r);
	return err;
}

/* The checks of scn_defrag_calls beyond scn_check_defragmented's (the first failure
 * found keeps its reason). */
static void defrag_tally_check(const struct scn_params *p, const struct defrag_tally *t,
                               uint64_t key_sum, bool iterate, struct scn_result *res)
{
	if (iterate)
		res->checksum = t->sums;
	if (!res->verified)
		return;
	if (t->over_budget)
		scn_fail(res, "%zu calls moved more than max_swaps = %zu items", t->over_budget,
		         max_swaps(p));
	else if (iterate && t->bad_sums)
		scn_fail(res, "%zu of %zu frames' iterate_sum differed from the key sum %llu",
		         t->bad_sums, t->calls, (unsigned long long)key_sum);
}

int scn_defrag_calls(const struct dod_ops *ops, const struct scn_params *p,
                     struct hb_region *r, struct scn_result *res, bool iterate)
{
	struct scn_filled f;
	struct scn_moves expect;
	uint64_t *keys = scn_alloc_touched(p->n, sizeof *keys);
	if (!keys)
		return scn_error(res, "keys array", DOD_ENOMEM);
	if (defrag_setup(ops, p, &f, res)) {
		free(keys);
		return SCN_ERROR;
	}
	ops->dump_keys(f.c, keys);
	/* A call moves at least one item until the last one: n / max_swaps + 2 bounds them. */
	size_t max_calls = max_swaps(p) ? p->n / max_swaps(p) + 2 : 1;
	int err = scn_expected_moves(keys, p->n, &expect);
	if (err || hb_samples_reserve(r, max_calls)) {
		scn_filled_free(ops, &f);
		free(keys);
		return scn_error(res, err ? "expected moves" : "latency samples", DOD_ENOMEM);
	}
	struct defrag_tally t = {0};
	uint64_t key_sum = f.live_key_sum;
	err = defrag_loop(ops, f.c, p, max_calls, key_sum, iterate, r, &t);
	res->swaps = (long long)t.moved;
	res->ops = t.calls;
	int rc = scn_defragment_done(ops, &f, keys, err, expect, res);
	if (rc == SCN_RAN)
		defrag_tally_check(p, &t, key_sum, iterate, res);
	return rc;
}

/* ---- the axes ---- */

const struct hb_axis scn_defrag_input_axis = {
	.rank = 6, .name = "axis_defrag_input", .option = "defrag-input", .metavar = "I",
	.def = "shuffled", .key = "defrag_input",
	.help = "the storage order defragment starts from: shuffled (uniform), near_sorted "
	"(n / 100 disjoint adjacent pairs swapped), sorted (as inserted, never "
	"defragmented) or defragmented (a complete defragment ran: nothing changed since)",
	.kind = HB_AXIS_WORD, .words = defrag_input_names,
	.n_words = SCN_N_DEFRAG_INPUTS, .first_word = 0,
	.absent_help = "run without it",
};
HB_AXIS_REGISTER(scn_defrag_input_axis)

const struct hb_axis scn_max_swaps_axis = {
	.rank = 7, .name = "axis_max_swaps", .option = "max-swaps", .metavar = "S", .def = "0",
	.key = "max_swaps",
	.help = "items defragment may move per call (its maxSwaps), 0 = no limit: one call",
	.kind = HB_AXIS_COUNT, .min = 0, .max = UINT32_MAX,
	.too_large = "more than 2^32 - 1 items",
	.absent_help = "run without it",
};
HB_AXIS_REGISTER(scn_max_swaps_axis)
