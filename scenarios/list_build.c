/* list_build - append n items to an empty list container (Thomas Young, "Vector Hosted
 * Lists": building the list; std::list pays an allocation a node, the hosted list and
 * std::vector grow one buffer). Setup (untimed): the container created with nothing
 * reserved, and the model of the expected sequence. Timed: one ops->insert_n(n) call (a
 * list container's insert_n appends, containers/list_contract.h), its references written
 * to a pre-touched array. ops = n. Verification (scn_list_check): size n, dump_keys is
 * 0 .. n-1 in order, every returned reference reaches its item, the container's check.
 * Checksum: sum of key x (position + 1). It runs on the list family only (the list or the
 * consolidate extension): the core operations it calls are timed for every container by
 * `create` already. */
#include "list_model.h"

static int run(const struct dod_ops *ops, const struct scn_params *p, struct hb_region *r,
               struct scn_result *res)
{
	struct scn_list l;
	if (scn_list_model(ops, p->n, &l))
		return scn_error(res, "list model", DOD_ENOMEM);
	int err = ops->create(&l.c, 0);
	if (err) {
		l.c = NULL;
		scn_list_free(ops, &l);
		return scn_error(res, "create", err);
	}
	hb_begin(r);
	err = ops->insert_n(l.c, p->n, 0, l.ref);
	DOD_CLOBBER();
	hb_end(r);
	res->ops = p->n;
	if (err) {
		scn_list_free(ops, &l);
		return scn_error(res, "insert_n", err);
	}
	scn_list_appended(&l, p->n);
	scn_list_check(ops, &l, res);
	scn_list_free(ops, &l);
	return SCN_RAN;
}

static const struct scn_scenario list_build = {
	.name = "list_build",
	.help = "list family: append n items to an empty list (one insert_n, timed)",
	.grows_from_empty = true,
	.cannot_run = scn_needs_list_family,
	.run = run,
};
SCN_REGISTER(list_build)
