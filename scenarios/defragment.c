/* defragment - sort a shuffled dense set back into key order (the article's
 * "defragment (shuffled, near worst case)"). Setup: insert n, then ops->shuffle(seed)
 * permutes the storage order *keeping the sparse and meta sets consistent* (the article's
 * own benchmark shuffled only the items; we do not copy that). Timed: one
 * ops->defragment(max_swaps = 0, i.e. complete). Verification: keys in storage order are
 * 0..n-1, every handle still reaches its own item, and the swaps reported equal the
 * count computed independently from the shuffled order (insertion sort moves exactly the
 * items that are not a running maximum). Checksum: sum of key * (position + 1), which
 * only the sorted order produces: expected sum of d * (d + 1). */
#include <stdlib.h>

#include "dod_common.h"
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
	void *c;
	uint64_t *handles, *keys = scn_alloc_touched((p->n ? p->n : 1) * sizeof *keys);
	if (!keys)
		return scn_error(res, "keys array", DOD_ENOMEM);
	if (scn_fill(ops, p->n, &c, &handles, res)) {
		free(keys);
		return SCN_ERROR;
	}
	int err = ops->shuffle(c, p->seed);
	if (err) {
		ops->destroy(c);
		free(handles);
		free(keys);
		return scn_error(res, "shuffle", err);
	}
	ops->dump_keys(c, keys);
	long long expect_swaps = count_moves(keys, p->n);

	size_t swaps = 0;
	hb_begin(r);
	err = ops->defragment(c, 0, &swaps);
	DOD_CLOBBER();
	hb_end(r);
	res->swaps = (long long)swaps;
	if (err) {
		ops->destroy(c);
		free(handles);
		free(keys);
		return scn_error(res, "defragment", err);
	}

	ops->dump_keys(c, keys);
	uint64_t checksum = 0, expect = 0;
	bool sorted = true;
	for (size_t d = 0; d < p->n; d++) {
		checksum += keys[d] * (d + 1);
		expect += (uint64_t)d * (d + 1);
		sorted &= keys[d] == d;
	}
	size_t wrong = 0;
	for (size_t k = 0; k < p->n; k++) {
		uint64_t key;
		if (ops->lookup_sum(c, &handles[k], 1, &key) || key != k)
			wrong++;
	}
	res->checksum = checksum;
	res->verified = sorted && checksum == expect && wrong == 0 &&
	                res->swaps == expect_swaps;
	if (!res->verified)
		scn_fail(res, "sorted %d, %zu handles lost their item, swaps %lld expected %lld",
		         sorted, wrong, res->swaps, expect_swaps);
	ops->destroy(c);
	free(handles);
	free(keys);
	return SCN_RAN;
}

static const char *cannot_run(const struct dod_ops *ops)
{
	if (scn_needs_handles(ops))
		return scn_needs_handles(ops);
	return ops->shuffle && ops->defragment && ops->dump_keys ? NULL : "no defragment operation";
}

const struct scn_scenario scn_defragment = {
	.name = "defragment",
	.help = "shuffle the dense order (handles kept valid), then sort it back; reports swaps",
	.cannot_run = cannot_run,
	.run = run,
};
