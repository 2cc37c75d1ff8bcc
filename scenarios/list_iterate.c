/* list_iterate - walk a list in sequence order (Thomas Young, "Vector Hosted Lists": a
 * hosted list iterates from one buffer, but after insertions and erasures at arbitrary
 * places its nodes are scattered over it, as std::list's are over the heap; consolidate
 * puts them back in order). Setup (untimed, scn_list_churn): n items appended; with
 * --hole-ratio r, round(r * n) of them erased (chosen by --hole-pattern, one erase_n
 * call) and, for a container with the list extension, as many new items inserted at
 * random held references, before or after at random, so the size is n again (r = 0: the
 * fresh list, appends only); with --list-state consolidated, then one consolidate call
 * (the consolidate extension; skipped without it), its remap checked. Timed: K
 * ops->iterate_sum calls (scn_run_passes: warm, K from the clock's floor), each walking
 * the sequence order. ops = K x live items. Checksum: the sums, each expected the live
 * keys' sum; verification also checks the whole sequence against the
 * model (scn_list_check). It runs on the list family only (scn_needs_list_family): every
 * container's iteration is timed by `iterate`.
 *
 * The axis list_state (--list-state as_is|consolidated, CSV column axis_list_state, case
 * name part list_state:S) is defined here and listed in its axes: the one scenario that
 * takes it. */
#include <stdlib.h>
#include <string.h>

#include "list_model.h"

/* ---- the axis list_state ---- */

/* The state it walks after its churn (--list-state). */
enum scn_list_state {
	SCN_LIST_AS_IS,        /* as the churn left it */
	SCN_LIST_CONSOLIDATED  /* after an untimed consolidate (DOD_EXT_CONSOLIDATE) */
};
static const char *const list_state_words[] = {"as_is", "consolidated"}; /* scn_list_state */

static const struct hb_axis list_state_axis = {
	.option = "list-state", .metavar = "L", .def = "as_is",
	HB_AXIS_KEY("list_state"),
	.help = "the list list_iterate walks after its churn: as_is, or consolidated (one "
	"untimed consolidate first: containers with the consolidate extension, the others "
	"skipped)",
	.kind = HB_AXIS_WORD, .words = list_state_words, .n_words = 2, .first_word = 0,
	.absent = {.u = SCN_LIST_AS_IS},
	.absent_help = "run without it",
};
HB_AXIS_REGISTER(list_state_axis)

/* p's list state. */
static enum scn_list_state list_state(const struct scn_params *p)
{
	return (enum scn_list_state)scn_axis_value(p, &list_state_axis).u;
}

/* Untimed: consolidate the churned list and check its remap. Returns 0 or SCN_ERROR (l
 * freed), or 1 when the remap was wrong (res says why; l kept). */
static int consolidate_untimed(const struct dod_ops *ops, struct scn_list *l,
                               struct scn_result *res)
{
	size_t bound = ops->consolidate->ref_bound(l->c);
	uint64_t *remap = scn_alloc_touched(bound ? bound : 1, sizeof *remap);
	int err = remap ? ops->consolidate->consolidate(l->c, remap) : DOD_ENOMEM;
	if (err) {
		free(remap);
		scn_list_free(ops, l);
		return scn_error(res, "consolidate", err);
	}
	bool ok = scn_list_remapped(l, remap, bound, res);
	free(remap);
	return ok ? 0 : 1;
}

static int run(const struct dod_ops *ops, const struct scn_params *p, struct hb_region *r,
               struct scn_result *res)
{
	struct scn_list l;
	if (scn_list_churn(ops, p, &l, res))
		return SCN_ERROR;
	int bad = list_state(p) == SCN_LIST_CONSOLIDATED ? consolidate_untimed(ops, &l, res) : 0;
	if (bad < 0)
		return SCN_ERROR;
	struct scn_iterate_ctx x = {ops, l.c};
	struct scn_passes ps = {.pass = scn_iterate_pass, .ctx = &x};
	scn_run_passes(p, r, &ps);
	res->ops = ps.k * (l.n_live ? l.n_live : 1);
	if (!bad && scn_list_check(ops, &l, res))
		scn_check_passes(res, &ps, l.live_key_sum);
	if (bad)
		res->checksum = ps.sum;
	scn_list_free(ops, &l);
	return SCN_RAN;
}

static const char *cannot_run_with(const struct dod_ops *ops, const struct scn_params *p)
{
	if (list_state(p) == SCN_LIST_CONSOLIDATED && !(dod_exts(ops) & DOD_EXT_CONSOLIDATE))
		return "list_state consolidated: no consolidate extension";
	return NULL;
}

static const struct scn_scenario list_iterate = {
	.name = "list_iterate",
	.help = "list family: walk the sequence (iterate_sum) fresh or after a churn of "
	        "--hole-ratio erasures + as many insertions at random references",
	.axes = SCN_AXES(SCN_AXIS_HOLES, &hb_axis_cache, &list_state_axis),
	.cannot_run = scn_needs_list_family,
	.cannot_run_with = cannot_run_with,
	.run = run,
};
SCN_REGISTER(list_iterate)
