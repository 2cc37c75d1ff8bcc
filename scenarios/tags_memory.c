/* tags_memory - what the tags cost in memory (Niklas Gray, "Allocation Adventures 2:
 * Arrays of Arrays": a fixed maximum wastes space below it (D2), a {tag, next} node is
 * half link (D3), a chunk of 8 is 80% tags when full and 30% at 3 tags (D4), a vector per
 * entity costs an allocation per list (D1)). Setup (untimed): the plan of --tag-dist.
 * Timed: the state built from nothing, as memory.c does: create with 0 reserved, the n
 * entities inserted SCN_MEMORY_BATCH at a time, the build's pairs named by the new
 * handles, every pair added (scn_tags_add_all); the CSV's allocs and frees count the
 * allocator calls of that build. Then (untimed) committed_bytes = memory's held_bytes
 * (the footprint: what the process holds) and reserved_bytes = reserved_bytes (or the
 * footprint). ops = tags stored, so bytes per stored tag = committed_bytes / ops.
 * Checksum: memory's unit_bytes, the bytes of the storage units that hold the tags
 * (aoa_contract.h): the useful share is 4 x ops / checksum, the article's figure. It is
 * the container's own account: verification checks 4 x ops <= checksum <=
 * committed_bytes, the refusals, and walk_sum, the stored count and the entities against
 * the plan (scn_tags_check_built); tests/test_aoa.c checks unit_bytes exactly on crafted
 * inputs. */
#include "tags_common.h"

#define SCN_MEMORY_BATCH 1024 /* entities per insert_n call while building (memory.c's) */

/* The timed build. Returns 0 or the failing call's error. */
static int build(const struct dod_ops *ops, struct scn_tags *t, size_t *refused)
{
	int err = ops->create(&t->c, 0);
	if (err) {
		t->c = NULL;
		return err;
	}
	for (size_t i = 0; !err && i < t->n; i += SCN_MEMORY_BATCH) {
		size_t k = t->n - i < SCN_MEMORY_BATCH ? t->n - i : SCN_MEMORY_BATCH;
		err = ops->insert_n(t->c, k, i, t->ents + i);
	}
	if (err)
		return err;
	scn_tags_bind(t);
	return scn_tags_add_all(ops, t, refused);
}

static int run(const struct dod_ops *ops, const struct scn_params *p, struct hb_region *r,
               struct scn_result *res)
{
	struct scn_tags t;
	size_t refused = 0;
	if (scn_tags_plan(ops, p, &t, res))
		return SCN_ERROR;
	long long before = hb_process_bytes(); /* measured_bytes: see memory.c */
	hb_begin(r);
	int err = build(ops, &t, &refused);
	DOD_CLOBBER();
	hb_end(r);
	long long after = hb_process_bytes();
	res->ops = t.stored ? t.stored : 1;
	if (err) {
		scn_tags_free(ops, &t);
		return scn_error(res, "build", err);
	}
	struct dod_tags_memory mem;
	ops->tags->memory(t.c, &mem);
	res->measured_bytes = before >= 0 && after >= 0 ? after - before : -1;
	res->committed_bytes = (long long)mem.held_bytes;
	res->reserved_bytes = (long long)(ops->reserved_bytes ? ops->reserved_bytes(t.c)
	                                                      : mem.held_bytes);
	res->checksum = mem.unit_bytes;
	if (refused != t.refused)
		scn_fail(res, "%zu tags refused, the plan says %zu", refused, t.refused);
	else if (mem.unit_bytes < 4 * t.stored || mem.unit_bytes > mem.held_bytes)
		scn_fail(res, "unit_bytes %zu outside [4 x %zu tags, held %zu]", mem.unit_bytes,
		         t.stored, mem.held_bytes);
	else
		res->verified = scn_tags_check_built(ops, &t, res);
	scn_tags_free(ops, &t);
	return SCN_RAN;
}

static const struct scn_scenario tags_memory = {
	.name = "tags_memory",
	.help = "tags family: build n entities and their tags (--tag-dist) from nothing "
	        "(timed; allocator calls); held bytes, and unit bytes as the checksum",
	.axes = SCN_AXES(&scn_tag_dist_axis),
	.grows_from_empty = true,
	.needs_ext = DOD_EXT_TAGS,
	.run = run,
};
SCN_REGISTER(tags_memory)
