/* list_insert_middle - insert half as many items again at held references in the middle
 * of a list (Thomas Young, "Vector Hosted Lists": insertion next to a held reference is
 * O(1) for a linked design, hosted or not; std::vector shifts its tail, O(n) an item).
 * Setup (untimed): n items appended (keys 0..n-1); the plan (scn_list_plan_inserts):
 * m = max(1, n / 2) items, each next to an item chosen uniformly among the n, before or
 * after it by a coin; the items before go in one batch, those after in another. Timed:
 * the two ops->list->insert_at_n calls (keys n .. n+m-1), their references written to a
 * pre-touched array. ops = m. Verification (scn_list_check): size n + m, the sequence
 * against the model, every item's reference (the new ones as insert_at_n returned them,
 * positional ones by position) reaching it, the container's check. Checksum: sum of key x
 * (position + 1). */
#include "list_model.h"

static int run(const struct dod_ops *ops, const struct scn_params *p, struct hb_region *r,
               struct scn_result *res)
{
	size_t m = p->n / 2 ? p->n / 2 : 1;
	struct scn_list l;
	struct scn_list_inserts plan;
	if (scn_list_fill(ops, p, m, &l, res))
		return SCN_ERROR;
	if (scn_list_plan_inserts(&l, m, p->seed, &plan, res)) {
		scn_list_free(ops, &l);
		return SCN_ERROR;
	}
	hb_begin(r);
	int err = scn_list_insert(ops, &l, &plan);
	DOD_CLOBBER();
	hb_end(r);
	res->ops = m;
	if (err) {
		scn_list_inserts_free(&plan);
		scn_list_free(ops, &l);
		return scn_error(res, "insert_at_n", err);
	}
	scn_list_inserted(&l, &plan);
	scn_list_check(ops, &l, res);
	scn_list_free(ops, &l);
	return SCN_RAN;
}

static const struct scn_scenario list_insert_middle = {
	.name = "list_insert_middle",
	.help = "list extension: insert n/2 items before or after random held references "
	        "(two insert_at_n calls, timed)",
	.needs_ext = DOD_EXT_LIST,
	.cannot_run = scn_needs_list_family,
	.run = run,
};
SCN_REGISTER(list_insert_middle)
