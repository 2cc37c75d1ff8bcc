/* defragment - sort a shuffled dense set back into key order (the handle_map article's
 * "defragment (shuffled, near worst case)"). Setup: n items, the shared hole setup, then
 * ops->shuffle(seed) permutes the storage order *keeping the sparse and meta sets
 * consistent* (the article's own benchmark shuffled only the items; we do not copy
 * that). Timed: one ops->defragment(max_swaps = 0, i.e. complete); ops = live items.
 * Verification: the keys in storage order are the survivors' keys ascending, every
 * surviving handle still reaches its own item, and the swaps reported equal the count
 * computed independently from the shuffled order (insertion sort moves exactly the items
 * that are not a running maximum). Checksum: sum of key * (position + 1), which only the
 * sorted order produces. */
#include <stdlib.h>

#include "scenario.h"

/* Items an insertion sort moves: those smaller than some item before them. */
static long long count_moves(const uint64_t *keys, size_t n)
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

static int run(const struct dod_ops *ops, const struct scn_params *p, struct hb_region *r,
               struct scn_result *res)
{
	struct scn_filled f;
	uint64_t *keys = scn_alloc_touched(p->n, sizeof *keys);
	if (!keys)
		return scn_error(res, "keys array", DOD_ENOMEM);
	if (scn_fill_holes(ops, p, &f, res)) {
		free(keys);
		return SCN_ERROR;
	}
	int err = ops->shuffle(f.c, p->seed);
	if (err) {
		scn_filled_free(ops, &f);
		free(keys);
		return scn_error(res, "shuffle", err);
	}
	ops->dump_keys(f.c, keys);
	long long expect_swaps = count_moves(keys, f.n_live);

	size_t swaps = 0;
	hb_begin(r);
	err = ops->defragment(f.c, 0, &swaps);
	DOD_CLOBBER();
	hb_end(r);
	res->swaps = (long long)swaps;
	res->ops = f.n_live;
	if (err) {
		scn_filled_free(ops, &f);
		free(keys);
		return scn_error(res, "defragment", err);
	}

	/* The survivors' keys ascending are scn_live_key(f, 0..n_live-1). */
	ops->dump_keys(f.c, keys);
	uint64_t checksum = 0, expect = 0;
	bool sorted = ops->size(f.c) == f.n_live;
	for (size_t d = 0; d < f.n_live; d++) {
		checksum += keys[d] * (d + 1);
		expect += scn_live_key(&f, d) * (d + 1);
		sorted &= keys[d] == scn_live_key(&f, d);
	}
	size_t wrong = 0;
	for (size_t k = 0; k < f.n_live; k++) {
		uint64_t key;
		if (ops->lookup_sum(f.c, &f.live[k], 1, &key) || key != scn_live_key(&f, k))
			wrong++;
	}
	res->checksum = checksum;
	res->verified = sorted && checksum == expect && wrong == 0 && res->swaps == expect_swaps;
	if (!res->verified)
		scn_fail(res, "sorted %d, %zu handles lost their item, swaps %lld expected %lld",
		         sorted, wrong, res->swaps, expect_swaps);
	scn_filled_free(ops, &f);
	free(keys);
	return SCN_RAN;
}

static const char *cannot_run(const struct dod_ops *ops)
{
	if (scn_needs_handles(ops))
		return scn_needs_handles(ops);
	return ops->shuffle && ops->defragment && ops->dump_keys ? NULL : "no defragment operation";
}

static const struct scn_scenario defragment = {
	.name = "defragment",
	.help = "shuffle the dense order (handles kept valid), then sort it back; reports swaps",
	.uses_holes = true,
	.cannot_run = cannot_run,
	.run = run,
};
SCN_REGISTER(defragment)
