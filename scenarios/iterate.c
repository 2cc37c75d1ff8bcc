/* iterate - sum the key field over all live items in storage order (the article's
 * "iterate (sum)"). Timed: one ops->iterate_sum call, whose loop lives inside the
 * container. Checksum: the sum; expected n(n-1)/2. */
#include <stdlib.h>

#include "scenario.h"

static int run(const struct dod_ops *ops, const struct scn_params *p, struct hb_region *r,
               struct scn_result *res)
{
	void *c;
	uint64_t *handles;
	if (scn_fill(ops, p->n, &c, &handles, res))
		return SCN_ERROR;
	hb_begin(r);
	uint64_t sum = ops->iterate_sum(c);
	DOD_KEEP(sum);
	hb_end(r);
	scn_check_key_sum(res, sum, p->n);
	ops->destroy(c);
	free(handles);
	return SCN_RAN;
}

const struct scn_scenario scn_iterate = {
	.name = "iterate",
	.help = "sum the key of every item in storage order",
	.run = run,
};
