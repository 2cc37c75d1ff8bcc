/* consolidate - compact a churned list and remap its references (Thomas Young, "Vector
 * Hosted Lists": cVectorWithDeadEntries::consolidate, and the hosted list relinked in
 * sequence order so a walk reads its buffer front to back). Setup (untimed): the churn of
 * list_iterate (scn_list_churn: --hole-ratio r erasures and, with the list extension, as
 * many insertions at random references), then the remap array (ref_bound entries,
 * pre-touched). Timed: one ops->consolidate->consolidate call. ops = ref_bound, the
 * references (slots, live or dead) it went over. Verification: the remap sends each live
 * item's old reference to its sequence position and every other reference to DOD_NO_REF
 * (scn_list_remapped), then scn_list_check with the new references (the sequence
 * unchanged, each new reference reaching its item, the container's check). Checksum: sum
 * of key x (position + 1). list_iterate --list-state consolidated times the walk after it. */
#include <stdlib.h>

#include "list_model.h"

static int run(const struct dod_ops *ops, const struct scn_params *p, struct hb_region *r,
               struct scn_result *res)
{
	struct scn_list l;
	if (scn_list_churn(ops, p, &l, res))
		return SCN_ERROR;
	size_t bound = ops->consolidate->ref_bound(l.c);
	uint64_t *remap = scn_alloc_touched(bound ? bound : 1, sizeof *remap);
	if (!remap) {
		scn_list_free(ops, &l);
		return scn_error(res, "remap array", DOD_ENOMEM);
	}
	hb_begin(r);
	int err = ops->consolidate->consolidate(l.c, remap);
	DOD_CLOBBER();
	hb_end(r);
	res->ops = bound ? bound : 1;
	int rc = SCN_RAN;
	if (err)
		rc = scn_error(res, "consolidate", err);
	else if (scn_list_remapped(&l, remap, bound, res))
		scn_list_check(ops, &l, res);
	free(remap);
	scn_list_free(ops, &l);
	return rc;
}

static const struct scn_scenario consolidate = {
	.name = "consolidate",
	.help = "consolidate extension: compact a churned list (--hole-ratio) and remap its "
	        "references (one call, timed; ops = slots)",
	.axes = SCN_AXES(SCN_AXIS_HOLES),
	.needs_ext = DOD_EXT_CONSOLIDATE,
	.cannot_run = scn_needs_list_family,
	.run = run,
};
SCN_REGISTER(consolidate)
