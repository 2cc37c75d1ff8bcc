/* create - construct a container with n reserved and insert n items (keys 0..n-1).
 * Timed: ops->create(n) + ops->insert_n(n): the handle_map article's "create" (construct,
 * reserve, emplace N). The handles array is allocated and touched before the region.
 * ops = n. Checksum: the sum of keys reached through every returned handle (containers
 * without handles: the sum of keys by iteration); expected n(n-1)/2, and size must be n. */
#include <stdlib.h>

#include "scenario.h"

static int run(const struct dod_ops *ops, const struct scn_params *p, struct hb_region *r,
               struct scn_result *res)
{
	uint64_t *handles;
	if (scn_handles_array(ops, p->n, &handles, res))
		return SCN_ERROR;
	void *c = NULL;
	hb_begin(r);
	int err = ops->create(&c, p->n);
	if (!err && (err = ops->insert_n(c, p->n, 0, handles)) != 0)
		ops->destroy(c);
	DOD_CLOBBER();
	hb_end(r);
	res->ops = p->n;
	if (err) {
		free(handles);
		return scn_error(res, "create/insert_n", err);
	}

	uint64_t expect = scn_key_sum(p->n), sum = 0;
	if (handles) {
		if ((err = ops->lookup_sum(c, handles, p->n, &sum)))
			scn_fail(res, "a handle returned by insert_n is not valid: %d", err);
	} else {
		sum = ops->iterate_sum(c);
	}
	res->checksum = sum;
	res->verified = !err && sum == expect && ops->size(c) == p->n;
	if (!res->verified && !res->why[0])
		scn_fail(res, "size %zu, key sum %llu, expected %zu and %llu", ops->size(c),
		         (unsigned long long)sum, p->n, (unsigned long long)expect);
	ops->destroy(c);
	free(handles);
	return SCN_RAN;
}

static const struct scn_scenario create = {
	.name = "create",
	.help = "construct with n reserved + insert n items (timed together)",
	.run = run,
};
SCN_REGISTER(create)
