/* dc_copy - copy components (Niklas Gray, "Allocation Adventures": D11, the single
 * buffer relocates with memcpy; containers/dc_contract.h). Setup (untimed, dc_setup.h): n
 * entities with --dc-keys K values each. Timed: one copy_n of the n entities into n new
 * ones (keys n .. 2n-1). ops = n: ns_per_op is one component's copy. Checksum: the sum of
 * the copies' values read back (get_sum_n, untimed); verification: the generator's sum
 * (scn_dc_expect: the originals'), the size 2n, and the container's check. */
#include <stdlib.h>

#include "dc_setup.h"

static int run(const struct dod_ops *ops, const struct scn_params *p, struct hb_region *r,
               struct scn_result *res)
{
	struct scn_dc d;
	if (scn_dc_setup(ops, p, true, &d, res))
		return SCN_ERROR;
	uint64_t *copies = scn_alloc_touched(d.n, sizeof *copies);
	if (!copies) {
		scn_dc_free(ops, &d);
		return scn_error(res, "dc_copy setup", DOD_ENOMEM);
	}
	hb_begin(r);
	int err = ops->dc->copy_n(d.c, d.ents, d.n, d.n, copies);
	DOD_CLOBBER();
	hb_end(r);
	res->ops = d.n;
	int rc;
	if (err) {
		rc = scn_error(res, "copy_n", err);
	} else {
		scn_dc_gets(&d, copies);
		rc = scn_dc_verify(ops, &d, scn_dc_expect(&d, 0), res);
		if (res->verified && ops->size(d.c) != 2 * d.n)
			scn_fail(res, "size %zu after copying %zu of %zu", ops->size(d.c), d.n, d.n);
	}
	free(copies);
	scn_dc_free(ops, &d);
	return rc;
}

static const struct scn_scenario dc_copy = {
	.name = "dc_copy",
	.help = "DataComponent: copy n components of --dc-keys values into n new entities "
	        "(one copy_n)",
	.axes = SCN_AXES(&scn_dc_keys_axis),
	.needs_ext = DOD_EXT_DC,
	.run = run,
};
SCN_REGISTER(dc_copy)
