/* dc_get - read a DataComponent's values by hashed key path (Niklas Gray, "Allocation
 * Adventures": D8, a linear search over a few keys beats a map; D9, SoA keys make the
 * search faster; containers/dc_contract.h). Setup (untimed, dc_setup.h): n entities with
 * --dc-keys K values each, and the n x K gets (each of the type the key holds), entity by
 * entity: in insertion order (--order seq) or a seeded shuffle of the entities (random).
 * Timed: get_sum_n of the n x K gets, repeated (scn_run_passes: warm, passes from the
 * clock's floor). ops = passes x n x K: ns_per_op is the time of one key's read. Checksum: the sum of the values read (dod_dc_value_sum: every string byte and
 * array float); verification: the sum of the generator's values (scn_dc_expect), and the
 * container's check.
 *
 * It lists the axis dc_keys (dc_setup.c), as every DataComponent scenario does. */
#include <stdlib.h>
#include <string.h>

#include "dc_setup.h"

struct ctx {
	const struct dod_ops *ops;
	const struct scn_dc *d;
	size_t m;
	int err; /* the first error of a pass */
};

static uint64_t pass(void *p)
{
	struct ctx *x = p;
	uint64_t sum = 0;
	int err = x->ops->dc->get_sum_n(x->d->c, x->d->gets, x->m, &sum);
	if (err && !x->err)
		x->err = err;
	return sum;
}

static int run(const struct dod_ops *ops, const struct scn_params *p, struct hb_region *r,
               struct scn_result *res)
{
	struct scn_dc d;
	if (scn_dc_setup(ops, p, true, &d, res))
		return SCN_ERROR;
	uint64_t *order = scn_alloc_touched(d.n, sizeof *order);
	if (!order) {
		scn_dc_free(ops, &d);
		return scn_error(res, "dc_get setup", DOD_ENOMEM);
	}
	memcpy(order, d.ents, d.n * sizeof *order);
	uint64_t rng = p->seed ^ 0xdc6e7ull;
	if (p->order == SCN_RANDOM)
		dod_shuffle(order, d.n, sizeof *order, &rng);
	scn_dc_gets(&d, order);
	size_t m = d.n * d.keys;
	struct ctx x = {ops, &d, m, DOD_OK};
	struct scn_passes ps = {.pass = pass, .ctx = &x};
	scn_run_passes(p, r, &ps);
	res->ops = ps.k * m;
	int rc = SCN_RAN;
	if (x.err)
		rc = scn_error(res, "get_sum_n", x.err);
	else
		scn_check_passes(res, &ps, scn_dc_expect(&d, 0));
	free(order);
	scn_dc_free(ops, &d);
	return rc;
}

static const struct scn_scenario dc_get = {
	.name = "dc_get",
	.help = "DataComponent: read --dc-keys values of each of n entities by hashed key path "
	        "(get_sum_n, repeated; --order: the entity order)",
	.axes = SCN_AXES(&hb_axis_order, &hb_axis_cache, &scn_dc_keys_axis),
	.needs_ext = DOD_EXT_DC,
	.run = run,
};
SCN_REGISTER(dc_get)
