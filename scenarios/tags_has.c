/* tags_has - does entity e have tag t (Niklas Gray, "Allocation Adventures 2: Arrays of
 * Arrays": the TagComponent's query). Setup (untimed): the build (scn_tags_setup), then n
 * queries, each a uniformly random entity and, by a coin, one of its stored tags (a hit)
 * or an even value (never stored: a miss that searches the whole list). Timed: K has_n
 * calls over all of them (scn_run_passes: warm, K from the clock's floor). ops = K x
 * queries. Checksum: the pairs found, each pass expected the hits planned; verification
 * also checks the state (scn_tags_check_sums: has_n changes nothing). */
#include <stdlib.h>

#include "tags_common.h"

/* The queries: q entities and tags; returns the hits planned. */
static size_t plan_queries(const struct scn_tags *t, uint64_t seed, uint64_t *qe,
                           uint32_t *qt, size_t q)
{
	uint64_t rng = seed ^ UINT64_C(0x4A5);
	size_t hits = 0;
	for (size_t i = 0; i < q; i++) {
		size_t e = (size_t)dod_rng_below(&rng, t->n);
		size_t held = t->max_tags && t->count[e] > t->max_tags ? t->max_tags : t->count[e];
		qe[i] = t->ents[e];
		if (held && dod_rng_below(&rng, 2)) {
			qt[i] = scn_tag_value(t->seed, t->first[e] + (size_t)dod_rng_below(&rng, held));
			hits++;
		} else {
			qt[i] = (uint32_t)dod_rng_next(&rng) & ~UINT32_C(1);
		}
	}
	return hits;
}

struct ctx {
	const struct dod_ops *ops;
	void *c;
	const uint64_t *qe;
	const uint32_t *qt;
	size_t q;
	int err; /* the first error of a pass */
};

static uint64_t pass(void *p)
{
	struct ctx *x = p;
	size_t found = 0;
	if (!x->q)
		return 0; /* n = 0: no query (one op, nothing timed but the region) */
	int err = x->ops->tags->has_n(x->c, x->qe, x->qt, x->q, &found);
	if (err && !x->err)
		x->err = err;
	return found;
}

static int run(const struct dod_ops *ops, const struct scn_params *p, struct hb_region *r,
               struct scn_result *res)
{
	struct scn_tags t;
	size_t q = p->n ? p->n : 1;
	uint64_t *qe = scn_alloc_touched(q, sizeof *qe);
	uint32_t *qt = scn_alloc_touched(q, sizeof *qt);
	if (!qe || !qt || scn_tags_setup(ops, p, &t, res)) {
		free(qe);
		free(qt);
		return res->why[0] ? SCN_ERROR : scn_error(res, "queries", DOD_ENOMEM);
	}
	size_t hits = p->n ? plan_queries(&t, p->seed, qe, qt, q) : 0;
	struct ctx x = {ops, t.c, qe, qt, p->n ? q : 0, DOD_OK};
	struct scn_passes ps = {.pass = pass, .ctx = &x};
	scn_run_passes(p, r, &ps);
	res->ops = ps.k * q;
	int rc = SCN_RAN;
	if (x.err) {
		rc = scn_error(res, "has_n", x.err);
	} else {
		scn_check_passes(res, &ps, hits);
		if (res->verified)
			scn_tags_check_sums(ops, &t, t.tag_sum, t.stored, res);
	}
	scn_tags_free(ops, &t);
	free(qe);
	free(qt);
	return rc;
}

static const struct scn_scenario tags_has = {
	.name = "tags_has",
	.help = "tags family: n queries 'does entity e have tag t' (half hits, half misses) in "
	        "one has_n (timed) after the build of --tag-dist",
	.axes = SCN_AXES(&hb_axis_cache, &scn_tag_dist_axis),
	.needs_ext = DOD_EXT_TAGS,
	.run = run,
};
SCN_REGISTER(tags_has)
