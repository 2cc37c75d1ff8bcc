/* lookup - visit every item through its handle and sum the keys (the article's
 * "iterate by handle"). --order seq visits handles in insertion order; random visits a
 * seeded shuffle of them (the shuffle is setup, not timed). Timed: one
 * ops->lookup_sum over all n handles; every handle is validated inside, as a real
 * lookup must. Checksum: the sum; expected n(n-1)/2. */
#include <stdlib.h>

#include "dod_common.h"
#include "scenario.h"

static int run(const struct dod_ops *ops, const struct scn_params *p, struct hb_region *r,
               struct scn_result *res)
{
	void *c;
	uint64_t *handles;
	if (scn_fill(ops, p->n, &c, &handles, res))
		return SCN_ERROR;
	if (p->order == SCN_RANDOM) {
		uint64_t rng = p->seed;
		for (size_t i = p->n; i > 1; i--) {
			size_t j = (size_t)dod_rng_below(&rng, i);
			uint64_t t = handles[i - 1];
			handles[i - 1] = handles[j];
			handles[j] = t;
		}
	}
	uint64_t sum = 0;
	hb_begin(r);
	int err = ops->lookup_sum(c, handles, p->n, &sum);
	DOD_KEEP(sum);
	hb_end(r);
	res->checksum = sum;
	res->verified = !err && sum == scn_key_sum(p->n);
	if (err)
		scn_fail(res, "lookup_sum rejected a live handle: %s", dod_strerror(err));
	else if (!res->verified)
		scn_fail(res, "key sum %llu, expected %llu", (unsigned long long)sum,
		         (unsigned long long)scn_key_sum(p->n));
	ops->destroy(c);
	free(handles);
	return SCN_RAN;
}

const struct scn_scenario scn_lookup = {
	.name = "lookup",
	.help = "visit every item through its handle (--order seq|random), sum the keys",
	.uses_order = true,
	.cannot_run = scn_needs_handles,
	.run = run,
};
