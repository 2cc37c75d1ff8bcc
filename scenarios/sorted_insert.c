/* sorted_insert - Bjarne Stroustrup's experiment (GoingNative 2012, "Why you should avoid
 * linked lists"): insert n random integers, each at the place a linear search from the
 * front finds in a sequence kept sorted, then remove them one at a time at random
 * positions, each found by a linear search; std::vector against std::list (and the hosted
 * list). Setup (untimed): n random keys (62-bit, from the seed), the n removal positions
 * (the i-th uniform in 0 .. n-i-1), the empty container (nothing reserved), and the key
 * each removal must meet: the keys sorted, then the removals replayed on their ranks
 * (scn_ranks). Timed: one ops->list->insert_sorted_n call with the n keys, then the
 * removals by ops->list->erase_at_positions_n in calls of SORTED_ERASE_BATCH positions (a
 * few calls for the whole second half: the per-call key sums check the order, see
 * below). ops = n. Verification: every call returned 0, the size is 0 at the end, and each
 * removal call's sum of erased keys equals the sum of the keys the sorted sequence holds
 * at its positions: a key inserted at the wrong place is met by the wrong removal (unless
 * the item it displaced is removed by the same call, SORTED_ERASE_BATCH of n). Checksum:
 * the sum over the calls of (call + 1) x its key sum. */
#include <stdlib.h>
#include <string.h>

#include "list_model.h"

#define SORTED_ERASE_BATCH 16

struct sorted_plan {
	size_t n, calls;
	uint64_t *keys, *positions;
	uint64_t *expect, *got; /* per removal call: the erased keys' sum */
};

static void plan_free(struct sorted_plan *s)
{
	free(s->keys);
	free(s->positions);
	free(s->expect);
	free(s->got);
}

static int by_key(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

/* The key each removal meets: position p of the sorted sequence is its p-th present rank.
 * Returns 0 or DOD_ENOMEM. */
static int plan_expect(struct sorted_plan *s)
{
	struct scn_ranks ranks;
	uint64_t *sorted = scn_alloc_touched(s->n, sizeof *sorted);
	if (!sorted || scn_ranks_init(&ranks, s->n, true)) {
		free(sorted);
		return DOD_ENOMEM;
	}
	memcpy(sorted, s->keys, s->n * sizeof *sorted);
	qsort(sorted, s->n, sizeof *sorted, by_key);
	for (size_t i = 0; i < s->n; i++) {
		size_t at = scn_ranks_select(&ranks, (size_t)s->positions[i]);
		s->expect[i / SORTED_ERASE_BATCH] += sorted[at];
		scn_ranks_add(&ranks, at, -1);
	}
	scn_ranks_free(&ranks);
	free(sorted);
	return DOD_OK;
}

/* Keys of key_bits bits (62; 32 for a size class whose key holds 32: the 4 B int).
 * Returns 0 or DOD_ENOMEM (s freed). */
static int plan_make(struct sorted_plan *s, size_t n, uint64_t seed, unsigned key_bits)
{
	*s = (struct sorted_plan){.n = n, .calls = (n + SORTED_ERASE_BATCH - 1) / SORTED_ERASE_BATCH};
	s->keys = scn_alloc_touched(n, sizeof *s->keys);
	s->positions = scn_alloc_touched(n, sizeof *s->positions);
	s->expect = scn_alloc_touched(s->calls, sizeof *s->expect);
	s->got = scn_alloc_touched(s->calls, sizeof *s->got);
	if (!s->keys || !s->positions || !s->expect || !s->got) {
		plan_free(s);
		return DOD_ENOMEM;
	}
	uint64_t rng = seed ^ 0x5724057ull;
	for (size_t i = 0; i < n; i++) {
		s->keys[i] = dod_rng_next(&rng) >> (64 - key_bits);
		s->positions[i] = dod_rng_below(&rng, n - i);
	}
	if (plan_expect(s)) {
		plan_free(s);
		return DOD_ENOMEM;
	}
	return DOD_OK;
}

/* The timed work: the insertions, then the removals call by call. Returns 0 or the error
 * of the call that failed (*what names it). */
static int sorted_work(const struct dod_ops *ops, void *c, struct sorted_plan *s,
                       const char **what)
{
	*what = "insert_sorted_n";
	int err = ops->list->insert_sorted_n(c, s->keys, s->n, NULL);
	*what = "erase_at_positions_n";
	for (size_t j = 0; !err && j < s->calls; j++) {
		size_t at = j * SORTED_ERASE_BATCH, k = s->n - at;
		err = ops->list->erase_at_positions_n(c, s->positions + at,
		                                      k < SORTED_ERASE_BATCH ? k : SORTED_ERASE_BATCH,
		                                      &s->got[j]);
	}
	return err;
}

static void verify(const struct dod_ops *ops, const void *c, const struct sorted_plan *s,
                   struct scn_result *res)
{
	size_t wrong = 0, first = 0;
	uint64_t checksum = 0;
	for (size_t j = 0; j < s->calls; j++) {
		checksum += s->got[j] * (j + 1);
		if (s->got[j] != s->expect[j] && !wrong++)
			first = j;
	}
	res->checksum = checksum;
	res->verified = !wrong && ops->size(c) == 0;
	if (!res->verified)
		scn_fail(res, "%zu of %zu removal calls erased other keys than the sorted order "
		         "holds there (the first: call %zu), size %zu at the end", wrong, s->calls,
		         first, ops->size(c));
}

static int run(const struct dod_ops *ops, const struct scn_params *p, struct hb_region *r,
               struct scn_result *res)
{
	struct sorted_plan s;
	void *c;
	if (plan_make(&s, p->n, p->seed, ops->elem_bytes < 8 ? 32 : 62))
		return scn_error(res, "sorted_insert setup", DOD_ENOMEM);
	int err = ops->create(&c, 0);
	if (err) {
		plan_free(&s);
		return scn_error(res, "create", err);
	}
	const char *what;
	hb_begin(r);
	err = sorted_work(ops, c, &s, &what);
	DOD_CLOBBER();
	hb_end(r);
	res->ops = p->n;
	int rc = err ? scn_error(res, what, err) : SCN_RAN;
	if (!err)
		verify(ops, c, &s, res);
	ops->destroy(c);
	plan_free(&s);
	return rc;
}

static const struct scn_scenario sorted_insert = {
	.name = "sorted_insert",
	.help = "list extension: Stroustrup's experiment: n random keys inserted in sorted "
	        "order by linear search, then removed at random positions (timed together)",
	.grows_from_empty = true,
	.needs_ext = DOD_EXT_LIST,
	.run = run,
};
SCN_REGISTER(sorted_insert)
