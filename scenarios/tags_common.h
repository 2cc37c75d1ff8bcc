/* tags_common.h - what the tags scenarios (tags_build, tags_walk, tags_has, tags_churn,
 * tags_memory; containers/aoa_contract.h) share (tags_common.c): the plan of entities and
 * tags, the untimed build, the verification, and the axis tag_dist, which each of them
 * lists in its `axes`. */
#ifndef SCN_TAGS_COMMON_H
#define SCN_TAGS_COMMON_H

#include "scenario.h"

/* --tag-dist (CSV column axis_tag_dist): tags per entity (tags_common.c). */
extern const struct hb_axis scn_tag_dist_axis;


/* n entities and the tags planned for them (deterministic from p->seed and p's tag_dist):
 * entity e gets count[e] tags, its j-th the value scn_tag_value(seed, first[e] + j) (odd:
 * an even value is never stored). The build adds every pair in one interleaved order (a
 * shuffle of the entities' occurrences, an entity's own tags in j order), as a game tags
 * entities over time: an entity's j-th tag is added before its (j+1)-th, so a design that
 * holds at most max_tags keeps the first max_tags of each entity. */
struct scn_tags {
	void *c;
	size_t n;          /* entities */
	uint64_t seed;
	uint64_t *ents;    /* their handles (room for n, pre-touched) */
	uint32_t *count;   /* per entity: tags planned */
	size_t *first;     /* per entity: its first pair's number; first[n] = total */
	size_t total;      /* pairs planned */
	uint64_t *pe;      /* the build's pairs in order: entity (its index until
	                    * scn_tags_bind, then its handle) */
	uint32_t *pt;      /* and tag */
	size_t max_tags;   /* the container's (0: no limit) */
	size_t stored, refused; /* after the build: kept, refused (stored + refused = total) */
	uint64_t tag_sum;  /* the stored tags' sum mod 2^64 */
};
/* The value of pair number k: an odd 32-bit hash of (seed, k). */
uint32_t scn_tag_value(uint64_t seed, size_t k);
/* Untimed: the plan of p (no container yet: t->c NULL). Returns 0 or SCN_ERROR (res->why;
 * t freed). */
int scn_tags_plan(const struct dod_ops *ops, const struct scn_params *p, struct scn_tags *t,
                  struct scn_result *res);
/* The container with n entities (create with capacity reserved, insert_n keys 0..n-1),
 * then scn_tags_bind. Returns 0 or SCN_ERROR (res->why; t freed). */
int scn_tags_entities(const struct dod_ops *ops, struct scn_tags *t, size_t reserve,
                      struct scn_result *res);
/* The build's pairs name entities by handle from here on (t->ents filled). */
void scn_tags_bind(struct scn_tags *t);
/* The build: every pair by add_n, SCN_TAGS_BATCH a call; *refused_out gets the refusals.
 * Returns 0 or the error of the call that failed. Timed by tags_build and tags_memory. */
#define SCN_TAGS_BATCH 4096
int scn_tags_add_all(const struct dod_ops *ops, const struct scn_tags *t, size_t *refused_out);
/* Untimed: plan, entities and build (the setup of tags_walk, tags_has, tags_churn),
 * refusals checked. Returns 0 or SCN_ERROR (t freed). */
int scn_tags_setup(const struct dod_ops *ops, const struct scn_params *p, struct scn_tags *t,
                   struct scn_result *res);
/* Untimed verification of the state after the build: every entity holds exactly the first
 * min(count, max_tags) of its planned tags (tags_of, as a multiset), walk_sum and
 * memory's tag count are the plan's, every entity's handle reaches its key, the
 * container's check passes. Returns true, or false with res->why (scn_fail). */
bool scn_tags_check_built(const struct dod_ops *ops, const struct scn_tags *t,
                          struct scn_result *res);
/* The same for any state known by its sum and count only (after churn): walk_sum, the
 * count, the entities' keys, the check. */
bool scn_tags_check_sums(const struct dod_ops *ops, const struct scn_tags *t, uint64_t tag_sum,
                         size_t tags, struct scn_result *res);
/* The entity that pair number k belongs to (binary search over first). */
size_t scn_tags_owner(const struct scn_tags *t, size_t k);
/* Destroys t's container (if any) and frees the plan. */
void scn_tags_free(const struct dod_ops *ops, struct scn_tags *t);

#endif
