/* dc_set - replace every value of a DataComponent (Niklas Gray, "Allocation Adventures";
 * containers/dc_contract.h). Setup (untimed, dc_setup.h): n entities with --dc-keys K
 * values each (seed 0), and n x K sets of new values (seed 1: every value changes, no
 * type or size does, so a design that writes in place can), entity by entity. Timed: one
 * set_n of the n x K sets. ops = n x K: ns_per_op is one value's set. Checksum: the sum
 * of every value read back (get_sum_n, untimed); verification: the generator's sum for
 * seed 1 (scn_dc_expect), and the container's check. */
#include "dc_setup.h"

static int run(const struct dod_ops *ops, const struct scn_params *p, struct hb_region *r,
               struct scn_result *res)
{
	struct scn_dc d;
	if (scn_dc_setup(ops, p, true, &d, res))
		return SCN_ERROR;
	scn_dc_sets(&d, 1);
	scn_dc_gets(&d, d.ents);
	size_t m = d.n * d.keys;
	hb_begin(r);
	int err = ops->dc->set_n(d.c, d.sets, m);
	DOD_CLOBBER();
	hb_end(r);
	res->ops = m;
	int rc = err ? scn_error(res, "set_n", err) : scn_dc_verify(ops, &d, scn_dc_expect(&d, 1), res);
	scn_dc_free(ops, &d);
	return rc;
}

static const struct scn_scenario dc_set = {
	.name = "dc_set",
	.help = "DataComponent: replace the --dc-keys values of each of n entities (one set_n; "
	        "new values, same types and sizes)",
	.axes = SCN_AXES(&scn_dc_keys_axis),
	.needs_ext = DOD_EXT_DC,
	.run = run,
};
SCN_REGISTER(dc_set)
