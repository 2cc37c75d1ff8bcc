/* tags_churn - tags come and go every frame (Niklas Gray, "Allocation Adventures 2: Arrays
 * of Arrays": lists that grow and shrink, the case for a custom allocator). Setup
 * (untimed): the build (scn_tags_setup), then the plan of SCN_TAGS_FRAMES frames, each
 * removing k = max(1, n/100) build tags still held (uniformly random pairs of the plan,
 * drawn again when already removed or never stored: a frame may remove fewer) and adding
 * k fresh tags to uniformly random entities (a full fixed record refuses some: simulated).
 * Timed: the frames, each one remove_n and one add_n and one latency sample (p50_ns,
 * p99_ns, max_ns per frame: a vector's realloc, a node buffer's doubling). ops = frames.
 * Checksum: tags removed + 2^32 x tags refused, over all frames, expected from the
 * simulation; verification also checks walk_sum and the stored count against it
 * (scn_tags_check_sums). */
#include <stdlib.h>
#include <string.h>

#include "tags_common.h"

#define SCN_TAGS_FRAMES 100

struct churn {
	size_t k, frames;
	uint64_t *re, *ae;     /* frames x k: the removals' and the adds' entities */
	uint32_t *rt, *at;     /* and tags */
	size_t *nr;            /* per frame: removals planned (<= k) */
	uint64_t removed, refused, tag_sum; /* expected: totals, and the sum after */
	size_t tags;           /* expected stored count after */
};

static void churn_free(struct churn *ch)
{
	free(ch->re);
	free(ch->ae);
	free(ch->rt);
	free(ch->at);
	free(ch->nr);
}

static int churn_alloc(struct churn *ch, size_t n)
{
	*ch = (struct churn){.k = n / 100 ? n / 100 : 1, .frames = SCN_TAGS_FRAMES};
	size_t m = ch->k * ch->frames;
	ch->re = scn_alloc_touched(m, sizeof *ch->re);
	ch->ae = scn_alloc_touched(m, sizeof *ch->ae);
	ch->rt = scn_alloc_touched(m, sizeof *ch->rt);
	ch->at = scn_alloc_touched(m, sizeof *ch->at);
	ch->nr = scn_alloc_touched(ch->frames, sizeof *ch->nr);
	if (ch->re && ch->ae && ch->rt && ch->at && ch->nr)
		return DOD_OK;
	churn_free(ch);
	return DOD_ENOMEM;
}

/* One frame's removals: up to k build tags still held (gone: per pair). */
static void plan_removals(struct churn *ch, const struct scn_tags *t, size_t f,
                          unsigned char *gone, uint32_t *held, uint64_t *rng)
{
	size_t nr = 0;
	for (size_t j = 0; j < ch->k && t->total; j++)
		for (int tries = 0; tries < 32; tries++) {
			size_t pk = (size_t)dod_rng_below(rng, t->total), e = scn_tags_owner(t, pk);
			if (gone[pk] || (t->max_tags && pk - t->first[e] >= t->max_tags))
				continue;
			gone[pk] = 1;
			held[e]--;
			ch->re[f * ch->k + nr] = t->ents[e];
			ch->rt[f * ch->k + nr++] = scn_tag_value(t->seed, pk);
			ch->removed++;
			ch->tag_sum -= scn_tag_value(t->seed, pk);
			break;
		}
	ch->nr[f] = nr;
}

/* One frame's adds: k fresh tags to random entities, refusals simulated. */
static void plan_adds(struct churn *ch, const struct scn_tags *t, size_t f, uint32_t *held,
                      uint64_t *rng)
{
	for (size_t j = 0; j < ch->k; j++) {
		size_t e = (size_t)dod_rng_below(rng, t->n), x = f * ch->k + j;
		ch->ae[x] = t->ents[e];
		ch->at[x] = scn_tag_value(t->seed, t->total + x);
		if (t->max_tags && held[e] == t->max_tags) {
			ch->refused++;
			continue;
		}
		held[e]++;
		ch->tag_sum += ch->at[x];
	}
}

/* The frames' plan and expected totals. Returns 0 or DOD_ENOMEM. */
static int churn_plan(struct churn *ch, const struct scn_tags *t, uint64_t seed)
{
	unsigned char *gone = scn_alloc_touched(t->total, 1);
	uint32_t *held = scn_alloc_touched(t->n, sizeof *held);
	if (!gone || !held) {
		free(gone);
		free(held);
		return DOD_ENOMEM;
	}
	for (size_t e = 0; e < t->n; e++)
		held[e] = t->max_tags && t->count[e] > t->max_tags ? (uint32_t)t->max_tags : t->count[e];
	uint64_t rng = seed ^ UINT64_C(0xC4A7);
	ch->tag_sum = t->tag_sum;
	for (size_t f = 0; f < ch->frames; f++) {
		plan_removals(ch, t, f, gone, held, &rng);
		plan_adds(ch, t, f, held, &rng);
	}
	ch->tags = t->stored - ch->removed + ch->k * ch->frames - ch->refused;
	free(gone);
	free(held);
	return DOD_OK;
}

/* The timed frames. Returns 0 or the failing call's error (*frame_out: its frame). */
static int churn_frames(const struct dod_ops *ops, void *c, const struct churn *ch,
                        struct hb_region *r, uint64_t *removed, uint64_t *refused,
                        size_t *frame_out)
{
	int err = DOD_OK;
	size_t f = 0;
	hb_begin(r);
	for (; f < ch->frames; f++) {
		size_t x = f * ch->k, rm = 0, rf = 0;
		if ((err = ops->tags->remove_n(c, ch->re + x, ch->rt + x, ch->nr[f], &rm)) ||
		    (err = ops->tags->add_n(c, ch->ae + x, ch->at + x, ch->k, &rf)))
			break;
		*removed += rm;
		*refused += rf;
		hb_lap(r);
	}
	DOD_CLOBBER();
	hb_end(r);
	*frame_out = f;
	return err;
}

static int run(const struct dod_ops *ops, const struct scn_params *p, struct hb_region *r,
               struct scn_result *res)
{
	struct scn_tags t;
	struct churn ch;
	if (churn_alloc(&ch, p->n))
		return scn_error(res, "churn plan", DOD_ENOMEM);
	if (scn_tags_setup(ops, p, &t, res)) {
		churn_free(&ch);
		return SCN_ERROR;
	}
	int rc = SCN_RAN, err = churn_plan(&ch, &t, p->seed);
	if (!err && hb_samples_reserve(r, ch.frames))
		err = DOD_ENOMEM;
	uint64_t removed = 0, refused = 0;
	size_t f = 0;
	if (err)
		rc = scn_error(res, "churn plan", err);
	else if ((err = churn_frames(ops, t.c, &ch, r, &removed, &refused, &f)))
		rc = scn_error(res, "a frame's remove_n or add_n", err);
	res->ops = ch.frames;
	if (!err) {
		res->checksum = removed + (refused << 32);
		res->verified = removed == ch.removed && refused == ch.refused;
		if (!res->verified)
			scn_fail(res, "%llu removed, %llu refused; expected %llu and %llu",
			         (unsigned long long)removed, (unsigned long long)refused,
			         (unsigned long long)ch.removed, (unsigned long long)ch.refused);
		else
			scn_tags_check_sums(ops, &t, ch.tag_sum, ch.tags, res);
	}
	scn_tags_free(ops, &t);
	churn_free(&ch);
	return rc;
}

static const struct scn_scenario tags_churn = {
	.name = "tags_churn",
	.help = "tags family: 100 frames of remove n/100 held tags + add n/100 fresh ones "
	        "(remove_n, add_n), each frame timed, after the build of --tag-dist",
	.axes = SCN_AXES(&scn_tag_dist_axis),
	.records_samples = true,
	.needs_ext = DOD_EXT_TAGS,
	.run = run,
};
SCN_REGISTER(tags_churn)
