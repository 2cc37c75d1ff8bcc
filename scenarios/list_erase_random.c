/* list_erase_random - erase half of a list's items at held references, in a random order,
 * each erase timed (Thomas Young, "Vector Hosted Lists": unlinking a node is O(1) in a
 * hosted list and std::list, marking an entry dead is O(1) in the vector with dead
 * entries, and std::vector shifts its tail). Setup (untimed): n items appended (keys
 * 0..n-1); the victims, max(1, n / 2) distinct items in a random order, and the reference
 * each erase takes (a stable reference as issued; for positional references, the
 * victim's position when its turn comes, from the model). Timed: one ops->erase_n(c,
 * &ref, 1) call per victim with a latency sample each (hb_lap), as `erase`: one erase is
 * the operation measured. ops = items erased. Verification (scn_list_check): size, the
 * survivors' sequence in order, every survivor's reference reaching it, the container's
 * check. Checksum: sum of key x (position + 1) of the survivors. It calls the core erase_n
 * only, so it needs no extension, but runs on the list family only
 * (scn_needs_list_family): `erase` times every container's erase. */
#include <stdlib.h>

#include "list_model.h"

static int run(const struct dod_ops *ops, const struct scn_params *p, struct hb_region *r,
               struct scn_result *res)
{
	size_t m = p->n / 2 ? p->n / 2 : 1;
	uint64_t *refs = scn_alloc_touched(m, sizeof *refs);
	struct scn_list l;
	if (!refs)
		return scn_error(res, "erase references", DOD_ENOMEM);
	if (scn_list_fill(ops, p, 0, &l, res)) {
		free(refs);
		return SCN_ERROR;
	}
	if (scn_list_plan_erase(&l, m, p->seed, refs) || hb_samples_reserve(r, m)) {
		scn_list_free(ops, &l);
		free(refs);
		return scn_error(res, "erase setup", DOD_ENOMEM);
	}
	int err = 0;
	size_t done = 0;
	hb_begin(r);
	for (; done < m; done++) {
		if ((err = ops->erase_n(l.c, &refs[done], 1)) != 0)
			break;
		hb_lap(r);
	}
	DOD_CLOBBER();
	hb_end(r);
	res->ops = m;
	if (err)
		scn_fail(res, "erase %zu of %zu failed: %s", done + 1, m, dod_strerror(err));
	else
		scn_list_check(ops, &l, res);
	scn_list_free(ops, &l);
	free(refs);
	return SCN_RAN;
}

static const char *cannot_run(const struct dod_ops *ops)
{
	const char *why = scn_needs_list_family(ops);
	return why ? why : ops->erase_n ? NULL : "no erase_n: cannot erase single items";
}

static const struct scn_scenario list_erase_random = {
	.name = "list_erase_random",
	.help = "list family: erase n/2 random items at held references, one erase_n each, "
	        "each timed",
	.records_samples = true,
	.cannot_run = cannot_run,
	.run = run,
};
SCN_REGISTER(list_erase_random)
