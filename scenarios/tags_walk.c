/* tags_walk - visit every tag of every entity (Niklas Gray, "Allocation Adventures 2:
 * Arrays of Arrays": the cost of following each list, which the designs trade against
 * memory: a vector per entity jumps to its block, linked nodes to every next, chunks once
 * per K tags). Setup (untimed, scn_tags_setup): the plan of --tag-dist and the build
 * (every pair added in one interleaved order, as tags_build), then SETTLE_WALKS (2)
 * walks, each checked: a design that reorganizes its storage on access is timed in the
 * steady state they leave (aoa_chunked8_sorted: a walk sorts at most one pass' worth, so
 * two walks after the build leave every chain contiguous and the timed walk's own sort
 * step is one test, aoa/chunk_sort.h; D5 compares it with aoa_chunked8); they change no
 * other design (they warm the caches, as a game that walks every frame does). Timed: one
 * walk_sum, which visits the entities in slot order and each one's list as stored. ops =
 * tags stored (ns_per_op: ns per tag). Checksum: the sum, expected the plan's stored
 * tags' sum; verification also checks every entity's tags (scn_tags_check_built). */
#include "scenario.h"

#define SETTLE_WALKS 2

static int run(const struct dod_ops *ops, const struct scn_params *p, struct hb_region *r,
               struct scn_result *res)
{
	struct scn_tags t;
	if (scn_tags_setup(ops, p, &t, res))
		return SCN_ERROR;
	uint64_t settled[SETTLE_WALKS];
	for (int w = 0; w < SETTLE_WALKS; w++)
		settled[w] = ops->tags->walk_sum(t.c);
	hb_begin(r);
	uint64_t sum = ops->tags->walk_sum(t.c);
	DOD_KEEP(sum);
	hb_end(r);
	res->ops = t.stored ? t.stored : 1;
	scn_check_sum(res, sum, t.tag_sum);
	for (int w = 0; w < SETTLE_WALKS && res->verified; w++)
		if (settled[w] != t.tag_sum)
			scn_fail(res, "untimed walk %d: sum %llu, expected %llu", w + 1,
			         (unsigned long long)settled[w], (unsigned long long)t.tag_sum);
	if (res->verified)
		scn_tags_check_built(ops, &t, res);
	scn_tags_free(ops, &t);
	return SCN_RAN;
}

static const struct scn_scenario tags_walk = {
	.name = "tags_walk",
	.help = "tags family: walk every tag of every entity once (walk_sum, timed) after the "
	        "interleaved build of --tag-dist and two untimed walks",
	.needs_ext = DOD_EXT_TAGS,
	.run = run,
};
SCN_REGISTER(tags_walk)
