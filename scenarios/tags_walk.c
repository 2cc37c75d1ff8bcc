/* tags_walk - visit every tag of every entity (Niklas Gray, "Allocation Adventures 2:
 * Arrays of Arrays": the cost of following each list, which the designs trade against
 * memory: a vector per entity jumps to its block, linked nodes to every next, chunks once
 * per K tags). Setup (untimed, scn_tags_setup): the plan of --tag-dist and the build
 * (every pair added in one interleaved order, as tags_build), then scn_run_passes's
 * SCN_WARM_PASSES (2) untimed walks, checked: a design that reorganizes its storage on access is timed in the
 * steady state they leave (aoa_chunked8_sorted: a walk sorts at most one pass' worth, so
 * two walks after the build leave every chain contiguous and the timed walk's own sort
 * step is one test, aoa/chunk_sort.h; D5 compares it with aoa_chunked8); they change no
 * other design (they warm the caches, as a game that walks every frame does). Timed: K
 * walk_sum calls (K from the clock's floor), each visiting the entities in slot order and
 * each one's list as stored. ops = K x tags stored (ns_per_op: ns per tag). Checksum: the
 * sums, each expected the plan's stored tags' sum; verification also checks every
 * entity's tags (scn_tags_check_built). */
#include "tags_common.h"

struct ctx {
	const struct dod_ops *ops;
	void *c;
};

static uint64_t pass(void *p)
{
	struct ctx *x = p;
	return x->ops->tags->walk_sum(x->c);
}

static int run(const struct dod_ops *ops, const struct scn_params *p, struct hb_region *r,
               struct scn_result *res)
{
	struct scn_tags t;
	if (scn_tags_setup(ops, p, &t, res))
		return SCN_ERROR;
	struct ctx x = {ops, t.c};
	struct scn_passes ps = {.pass = pass, .ctx = &x};
	scn_run_passes(p, r, &ps);
	res->ops = ps.k * (t.stored ? t.stored : 1);
	scn_check_passes(res, &ps, t.tag_sum);
	if (res->verified)
		scn_tags_check_built(ops, &t, res);
	scn_tags_free(ops, &t);
	return SCN_RAN;
}

static const struct scn_scenario tags_walk = {
	.name = "tags_walk",
	.help = "tags family: walk every tag of every entity (walk_sum, timed K times) after "
	        "the interleaved build of --tag-dist and two untimed walks",
	.axes = SCN_AXES(&hb_axis_cache, &scn_tag_dist_axis),
	.needs_ext = DOD_EXT_TAGS,
	.run = run,
};
SCN_REGISTER(tags_walk)
