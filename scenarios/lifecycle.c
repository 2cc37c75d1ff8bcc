/* lifecycle - one container's whole life in one timed region: create with n reserved,
 * insert n items, sum their keys by iteration, destroy. The in-process counterpart of
 * `make bench-process`, where hyperfine times the same work as whole processes (one
 * `dodbench run --scenario lifecycle --reps 1` per process), so the two timers can be put
 * side by side. Checksum: the key sum; expected n(n-1)/2. */
#include <stdlib.h>

#include "scenario.h"

static int run(const struct dod_ops *ops, const struct scn_params *p, struct hb_region *r,
               struct scn_result *res)
{
	uint64_t *handles;
	if (scn_handles_array(ops, p->n, &handles, res))
		return SCN_ERROR;
	void *c = NULL;
	uint64_t sum = 0;
	hb_begin(r);
	int err = ops->create(&c, p->n);
	if (!err) {
		if (!(err = ops->insert_n(c, p->n, 0, handles)))
			sum = ops->iterate_sum(c);
		ops->destroy(c);
	}
	DOD_KEEP(sum);
	hb_end(r);
	free(handles);
	if (err)
		return scn_error(res, "create/insert_n", err);
	res->ops = p->n;
	scn_check_sum(res, sum, scn_key_sum(p->n));
	return SCN_RAN;
}

static const struct scn_scenario lifecycle = {
	.name = "lifecycle",
	.help = "create + insert n + iterate + destroy in one region (see make bench-process)",
	.run = run,
};
SCN_REGISTER(lifecycle)
