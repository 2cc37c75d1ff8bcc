/* dc_memory - what a DataComponent costs in memory (Niklas Gray, "Allocation Adventures":
 * the naive tree's many allocations, D10's 32-bit values, D11's single buffer;
 * containers/dc_contract.h). Setup (untimed, dc_setup.h): the n x K sets of --dc-keys K
 * values per entity. Timed: building the state from nothing, as memory.c does for items:
 * create with 0 reserved, then per batch of SCN_DC_MEMORY_BATCH entities one insert_n and
 * one set_n of their values (the sets' entity fields are written in the region, a store
 * per value); the CSV's allocs and frees count the allocator calls of that build. Then
 * (untimed) committed_bytes = footprint_bytes (entity table, components, scratch) and
 * reserved_bytes the same; bytes per entity = committed_bytes / ops. ops = n entities.
 * Checksum: the sum of every value read back (get_sum_n); verification: the generator's
 * sum (scn_dc_expect), and the container's check. */
#include "dc_setup.h"

#define SCN_DC_MEMORY_BATCH 1024 /* entities per insert_n + set_n while building */

static int build(const struct dod_ops *ops, struct scn_dc *d)
{
	int err = ops->create(&d->c, 0);
	for (size_t i = 0; !err && i < d->n; i += SCN_DC_MEMORY_BATCH) {
		size_t b = d->n - i < SCN_DC_MEMORY_BATCH ? d->n - i : SCN_DC_MEMORY_BATCH;
		err = ops->insert_n(d->c, b, i, d->ents + i);
		for (size_t e = i; !err && e < i + b; e++)
			for (size_t k = 0; k < d->keys; k++)
				d->sets[e * d->keys + k].entity = d->ents[e];
		if (!err)
			err = ops->dc->set_n(d->c, d->sets + i * d->keys, b * d->keys);
	}
	return err;
}

static int run(const struct dod_ops *ops, const struct scn_params *p, struct hb_region *r,
               struct scn_result *res)
{
	struct scn_dc d;
	if (scn_dc_setup(ops, p, false, &d, res))
		return SCN_ERROR;
	scn_dc_sets(&d, 0);
	long long before = hb_process_bytes(); /* measured_bytes: see memory.c */
	hb_begin(r);
	int err = build(ops, &d);
	DOD_CLOBBER();
	hb_end(r);
	long long after = hb_process_bytes();
	res->ops = d.n;
	int rc;
	if (err) {
		rc = scn_error(res, "build", err);
	} else {
		res->measured_bytes = before >= 0 && after >= 0 ? after - before : -1;
	res->committed_bytes = (long long)ops->footprint_bytes(d.c);
		res->reserved_bytes = (long long)(ops->reserved_bytes ? ops->reserved_bytes(d.c)
		                                                      : ops->footprint_bytes(d.c));
		scn_dc_gets(&d, d.ents);
		rc = scn_dc_verify(ops, &d, scn_dc_expect(&d, 0), res);
	}
	scn_dc_free(ops, &d);
	return rc;
}

static const struct scn_scenario dc_memory = {
	.name = "dc_memory",
	.help = "DataComponent: build n entities of --dc-keys values from empty; bytes per "
	        "entity, allocator calls",
	.axes = SCN_AXES(&scn_dc_keys_axis),
	.grows_from_empty = true,
	.needs_ext = DOD_EXT_DC,
	.run = run,
};
SCN_REGISTER(dc_memory)
