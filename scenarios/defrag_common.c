/* defrag_common.c - what the defragment scenarios share (defrag_common.h): the expected
 * moves and the verification of a sorted order (defragment, defrag_steps,
 * defrag_frames); for defrag_steps and defrag_frames, the starting orders, the timed calls
 * of ops->defragment, their checks, and the two axes defrag_input (--defrag-input,
 * defrag_steps only) and max_swaps (--max-swaps, both). */
#include <stdlib.h>
#include <string.h>

#include "defrag_common.h"

/* ---- the expected moves and the check of a sorted order ---- */

long long scn_count_moves(const uint64_t *keys, size_t n)
{
	long long moves = 0;
	uint64_t max = 0;
	for (size_t i = 0; i < n; i++) {
		if (i > 0 && keys[i] < max)
			moves++;
		else
			max = keys[i];
	}
	return moves;
}

/* One item of the sort that gives the cycle count: its key and storage position. */
struct key_pos {
	uint64_t key;
	size_t pos;
};

static int key_pos_cmp(const void *a, const void *b)
{
	const struct key_pos *x = a, *y = b;
	if (x->key != y->key)
		return x->key < y->key ? -1 : 1;
	return (x->pos > y->pos) - (x->pos < y->pos);
}

/* Swaps along the cycles of the stable sorting permutation of keys[0..n): n minus its
 * cycles (fixed points are cycles of one). -1 when out of memory. */
static long long count_cycle_swaps(const uint64_t *keys, size_t n)
{
	struct key_pos *kp = malloc((n ? n : 1) * sizeof *kp);
	unsigned char *seen = calloc(n ? n : 1, 1);
	size_t *to = malloc((n ? n : 1) * sizeof *to);
	long long swaps = -1;
	if (kp && seen && to) {
		for (size_t i = 0; i < n; i++)
			kp[i] = (struct key_pos){keys[i], i};
		qsort(kp, n, sizeof *kp, key_pos_cmp);
		for (size_t r = 0; r < n; r++)
			to[kp[r].pos] = r;
		swaps = (long long)n;
		for (size_t i = 0; i < n; i++) {
			if (seen[i])
				continue;
			swaps--;
			for (size_t j = i; !seen[j]; j = to[j])
				seen[j] = 1;
		}
	}
	free(kp);
	free(seen);
	free(to);
	return swaps;
}

int scn_expected_moves(const uint64_t *keys, size_t n, struct scn_moves *out)
{
	out->insertion = scn_count_moves(keys, n);
	out->cycles = count_cycle_swaps(keys, n);
	return out->cycles < 0 ? DOD_ENOMEM : DOD_OK;
}

void scn_check_defragmented(const struct dod_ops *ops, const struct scn_filled *f,
                            uint64_t *keys, long long swaps, struct scn_moves expect,
                            struct scn_result *res)
{
	/* The survivors' keys ascending are scn_live_key(f, 0..n_live-1). */
	ops->dump_keys(f->c, keys);
	uint64_t checksum = 0, expect_sum = 0;
	bool sorted = ops->size(f->c) == f->n_live;
	for (size_t d = 0; d < f->n_live; d++) {
		checksum += keys[d] * (d + 1);
		expect_sum += scn_live_key(f, d) * (d + 1);
		sorted &= keys[d] == scn_live_key(f, d);
	}
	size_t wrong = 0;
	for (size_t k = 0; k < f->n_live; k++) {
		uint64_t key;
		if (ops->lookup_sum(f->c, &f->live[k], 1, &key) || key != scn_live_key(f, k))
			wrong++;
	}
	bool swaps_ok = swaps == expect.insertion || swaps == expect.cycles;
	res->checksum = checksum;
	res->verified = sorted && checksum == expect_sum && wrong == 0 && swaps_ok;
	if (!res->verified)
		scn_fail(res, "sorted %d, %zu handles lost their item, swaps %lld expected %lld "
		         "(insertion sort) or %lld (swaps along cycles)", sorted, wrong, swaps,
		         expect.insertion, expect.cycles);
}

int scn_defragment_done(const struct dod_ops *ops, struct scn_filled *f, uint64_t *keys,
                        int err, struct scn_moves expect, struct scn_result *res)
{
	int rc = SCN_RAN;
	if (err)
		rc = scn_error(res, "defragment", err);
	else
		scn_check_defragmented(ops, f, keys, res->swaps, expect, res);
	scn_filled_free(ops, f);
	free(keys);
	return rc;
}

const char *scn_needs_defragment(const struct dod_ops *ops)
{
	if (scn_needs_handles(ops))
		return scn_needs_handles(ops);
	return ops->shuffle && ops->defragment && ops->dump_keys ? NULL : "no defragment operation";
}

/* ---- defrag_steps and defrag_frames ---- */

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
	.rank = 6, .option = "defrag-input", .metavar = "I",
	.def = "shuffled", HB_AXIS_KEY("defrag_input"),
	.help = "the storage order defragment starts from: shuffled (uniform), near_sorted "
	"(n / 100 disjoint adjacent pairs swapped), sorted (as inserted, never "
	"defragmented) or defragmented (a complete defragment ran: nothing changed since)",
	.kind = HB_AXIS_WORD, .words = defrag_input_names,
	.n_words = SCN_N_DEFRAG_INPUTS, .first_word = 0,
	.absent_help = "run without it",
};
HB_AXIS_REGISTER(scn_defrag_input_axis)

const struct hb_axis scn_max_swaps_axis = {
	.rank = 7, .option = "max-swaps", .metavar = "S", .def = "0",
	HB_AXIS_KEY("max_swaps"),
	.help = "items defragment may move per call (its maxSwaps), 0 = no limit: one call",
	.kind = HB_AXIS_COUNT, .min = 0, .max = UINT32_MAX,
	.too_large = "more than 2^32 - 1 items",
	.absent_help = "run without it",
};
HB_AXIS_REGISTER(scn_max_swaps_axis)
