/* tags_build - tag n entities (Niklas Gray, "Allocation Adventures 2: Arrays of Arrays":
 * the TagComponent filled as a game fills it). Setup (untimed): the plan of --tag-dist
 * (tags_common.c: per entity a count, the pairs in one interleaved order, deterministic
 * from --seed), the container created with room for the n entities and the entities
 * inserted (no tags). Timed: every pair added by add_n, SCN_TAGS_BATCH pairs a call (each
 * design grows its tag storage: a realloc per list, nodes or chunks in one buffer).
 * ops = pairs added (refused ones included). Checksum: the tags refused by a full fixed
 * record (aoa_fixed8's 9th tag and on: a clean outcome the scenario counts; 0 for the
 * others), expected from the plan. Verification (scn_tags_check_built): every entity
 * holds exactly the first min(count, max_tags) of its planned tags, walk_sum and the
 * stored count are the plan's, every entity's handle reaches its key, the check passes. */
#include "tags_common.h"

static int run(const struct dod_ops *ops, const struct scn_params *p, struct hb_region *r,
               struct scn_result *res)
{
	struct scn_tags t;
	size_t refused = 0;
	if (scn_tags_plan(ops, p, &t, res) || scn_tags_entities(ops, &t, t.n, res))
		return SCN_ERROR;
	hb_begin(r);
	int err = scn_tags_add_all(ops, &t, &refused);
	DOD_CLOBBER();
	hb_end(r);
	res->ops = t.total ? t.total : 1;
	if (err) {
		scn_tags_free(ops, &t);
		return scn_error(res, "add_n", err);
	}
	res->checksum = refused;
	res->verified = refused == t.refused;
	if (!res->verified)
		scn_fail(res, "%zu tags refused, the plan says %zu", refused, t.refused);
	else
		scn_tags_check_built(ops, &t, res);
	scn_tags_free(ops, &t);
	return SCN_RAN;
}

static const struct scn_scenario tags_build = {
	.name = "tags_build",
	.help = "tags family: add every planned tag of n entities (--tag-dist), interleaved, "
	        "in add_n batches (timed); checksum = tags a fixed record refused",
	.axes = SCN_AXES(&scn_tag_dist_axis),
	.needs_ext = DOD_EXT_TAGS,
	.run = run,
};
SCN_REGISTER(tags_build)
