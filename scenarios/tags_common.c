/* tags_common.c - what the tags scenarios (tags_build, tags_walk, tags_has, tags_churn,
 * tags_memory; containers/aoa_contract.h) share: the plan of entities and tags (tags_common.h,
 * struct scn_tags), the untimed build, the verification, and the axis tag_dist
 * (--tag-dist game|three|upto8|upto32|each64|each1024, CSV column axis_tag_dist, case name
 * part tag_dist:D), which each tags scenario lists in its axes: the first four are lists as
 * a game has them (most short), each64 and each1024 give every entity exactly 64 or 1024 tags, long
 * lists for the growth of a list (claim D7: +16 growth copies a list L / 16 - 1 times, x2
 * log2 L times). No scenario is registered here. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tags_common.h"

/* How many tags each entity of the tags scenarios gets (the axis tag_dist, below). */
enum scn_tag_dist {
	SCN_TAGS_GAME,  /* the default: most entities 1-4 tags, a few 50+: 98% uniform
	                   in 1..4, 2% uniform in 50..100 (mean ~3.97) */
	SCN_TAGS_THREE, /* exactly 3 (the article's "30% at 3 tags" for chunks of 8) */
	SCN_TAGS_UPTO8, /* uniform in 1..8: every list fits a fixed record of 8 */
	SCN_TAGS_UPTO32, /* uniform in 1..32: a fixed record of 8 refuses some */
	SCN_TAGS_EACH64, /* exactly 64, and */
	SCN_TAGS_EACH1024 /* exactly 1024: long lists, where growth by a constant (+16, claim
	                   * D7) copies a list 3 or 63 times; a case is refused (status
	                   * oom) when its tags do not fit in physical memory at 32 B a tag
	                   * of plan and lists (plan_fits) */
};
#define SCN_N_TAG_DISTS 6
/* The CLI's and the CSV's words. */
static const char *const tag_dist_names[SCN_N_TAG_DISTS] = {"game",   "three",  "upto8",
                                                             "upto32", "each64", "each1024"};

/* p's tag distribution. */
static enum scn_tag_dist tag_dist(const struct scn_params *p)
{
	return (enum scn_tag_dist)scn_axis_value(p, &scn_tag_dist_axis).u;
}

uint32_t scn_tag_value(uint64_t seed, size_t k)
{
	uint64_t s = seed ^ (UINT64_C(0x7A65) << 40) ^ (uint64_t)k * UINT64_C(0x9E3779B97F4A7C15);
	return (uint32_t)dod_rng_next(&s) | 1;
}

/* Tags of one entity drawn from dist. */
static uint32_t draw_count(enum scn_tag_dist dist, uint64_t *rng)
{
	switch (dist) {
	case SCN_TAGS_THREE: return 3;
	case SCN_TAGS_UPTO8: return 1 + (uint32_t)dod_rng_below(rng, 8);
	case SCN_TAGS_UPTO32: return 1 + (uint32_t)dod_rng_below(rng, 32);
	case SCN_TAGS_EACH64: return 64;
	case SCN_TAGS_EACH1024: return 1024;
	default:
		if (dod_rng_below(rng, 100) < 2)
			return 50 + (uint32_t)dod_rng_below(rng, 51);
		return 1 + (uint32_t)dod_rng_below(rng, 4);
	}
}

void scn_tags_free(const struct dod_ops *ops, struct scn_tags *t)
{
	if (t->c)
		ops->destroy(t->c);
	free(t->ents);
	free(t->count);
	free(t->first);
	free(t->pe);
	free(t->pt);
	memset(t, 0, sizeof *t);
}

/* The interleaved order: every entity's occurrences shuffled, then numbered in order, so
 * an entity's j-th occurrence carries its j-th tag. Also the stored sum and counts. */
static void plan_order(struct scn_tags *t, size_t *seen, uint64_t *rng)
{
	size_t k = 0;
	for (size_t e = 0; e < t->n; e++)
		for (uint32_t j = 0; j < t->count[e]; j++)
			t->pe[k++] = e;
	dod_shuffle(t->pe, t->total, sizeof *t->pe, rng);
	for (size_t i = 0; i < t->total; i++) {
		size_t e = (size_t)t->pe[i], j = seen[e]++;
		t->pt[i] = scn_tag_value(t->seed, t->first[e] + j);
		if (t->max_tags && j >= t->max_tags) {
			t->refused++;
			continue;
		}
		t->stored++;
		t->tag_sum += t->pt[i];
	}
}

/* Bytes a tag of a case takes at most: the plan's pair (pe, pt: 12 B) and what a design
 * holds per stored tag (4 B in a full array or chunk, 8 B a linked node, and a doubling
 * array up to twice that). */
#define TAG_BYTES_BOUND 32

/* Whether the t->total tags of the case fit in the memory this process may take
 * (scn_mem_limit: free memory, ulimit, cgroup) at TAG_BYTES_BOUND each: a long
 * distribution at a large n (each1024 at n = 1M: 1G tags, ~32 GB) is refused with a
 * message naming the limit (res->why, err DOD_ENOMEM: the case's status oom) before
 * anything that size is touched, where the kernel's OOM killer would otherwise end the
 * case. */
static bool plan_fits(const struct scn_tags *t, const struct scn_params *p,
                      struct scn_result *res)
{
	struct scn_mem_limit lim;
	scn_mem_limit(&lim);
	double need = (double)t->total * TAG_BYTES_BOUND;
	if (lim.bytes == 0 || need <= (double)lim.bytes)
		return true;
	/* A long cgroup path may be cut short at the end of why: the limit's kind comes first. */
	int len = snprintf(res->why, sizeof res->why, "tags plan: %zu tags (--n %zu, --tag-dist "
	                   "%s) need about %.1f GiB (%d B a tag); the limit here is %.1f GiB (%s)",
	                   t->total, t->n, tag_dist_names[tag_dist(p)], need / (1 << 30),
	                   TAG_BYTES_BOUND, (double)lim.bytes / (1 << 30), lim.what);
	if (len >= (int)sizeof res->why)
		snprintf(res->why + sizeof res->why - 4, 4, "...");
	res->verified = false;
	res->err = DOD_ENOMEM;
	return false;
}

int scn_tags_plan(const struct dod_ops *ops, const struct scn_params *p, struct scn_tags *t,
                  struct scn_result *res)
{
	memset(t, 0, sizeof *t);
	t->n = p->n;
	t->seed = p->seed;
	t->max_tags = ops->tags->max_tags;
	uint64_t rng = p->seed ^ UINT64_C(0x7A6500D157);
	enum scn_tag_dist dist = tag_dist(p);
	t->ents = scn_alloc_touched(t->n, sizeof *t->ents);
	t->count = scn_alloc_touched(t->n, sizeof *t->count);
	t->first = scn_alloc_touched(t->n + 1, sizeof *t->first);
	size_t *seen = scn_alloc_touched(t->n, sizeof *seen);
	if (t->ents && t->count && t->first && seen) {
		for (size_t e = 0; e < t->n; e++) {
			t->count[e] = draw_count(dist, &rng);
			t->first[e] = t->total;
			t->total += t->count[e];
		}
		t->first[t->n] = t->total;
		if (!plan_fits(t, p, res)) {
			free(seen);
			scn_tags_free(ops, t);
			return SCN_ERROR;
		}
		t->pe = scn_alloc_touched(t->total, sizeof *t->pe);
		t->pt = scn_alloc_touched(t->total, sizeof *t->pt);
	}
	if (!t->pe || !t->pt) {
		free(seen);
		scn_tags_free(ops, t);
		return scn_error(res, "tags plan", DOD_ENOMEM);
	}
	plan_order(t, seen, &rng);
	free(seen);
	return 0;
}

void scn_tags_bind(struct scn_tags *t)
{
	for (size_t i = 0; i < t->total; i++)
		t->pe[i] = t->ents[t->pe[i]];
}

int scn_tags_entities(const struct dod_ops *ops, struct scn_tags *t, size_t reserve,
                      struct scn_result *res)
{
	int err = ops->create(&t->c, reserve);
	if (err) {
		t->c = NULL;
		scn_tags_free(ops, t);
		return scn_error(res, "create", err);
	}
	if ((err = ops->insert_n(t->c, t->n, 0, t->ents))) {
		scn_tags_free(ops, t);
		return scn_error(res, "insert_n (entities)", err);
	}
	scn_tags_bind(t);
	return 0;
}

int scn_tags_add_all(const struct dod_ops *ops, const struct scn_tags *t, size_t *refused_out)
{
	size_t refused = 0;
	for (size_t i = 0; i < t->total; i += SCN_TAGS_BATCH) {
		size_t k = t->total - i < SCN_TAGS_BATCH ? t->total - i : SCN_TAGS_BATCH, r = 0;
		int err = ops->tags->add_n(t->c, t->pe + i, t->pt + i, k, &r);
		if (err)
			return err;
		refused += r;
	}
	*refused_out = refused;
	return DOD_OK;
}

int scn_tags_setup(const struct dod_ops *ops, const struct scn_params *p, struct scn_tags *t,
                   struct scn_result *res)
{
	size_t refused = 0;
	if (scn_tags_plan(ops, p, t, res) || scn_tags_entities(ops, t, t->n, res))
		return SCN_ERROR;
	int err = scn_tags_add_all(ops, t, &refused);
	bool planned = !err && refused == t->refused;
	if (!planned) {
		scn_tags_free(ops, t);
		return scn_error(res, err ? "build (add_n)" : "build: refusals other than planned",
		                 err ? err : DOD_EINVAL);
	}
	return 0;
}

size_t scn_tags_owner(const struct scn_tags *t, size_t k)
{
	size_t lo = 0, hi = t->n; /* first[lo] <= k < first[hi] */
	while (hi - lo > 1) {
		size_t mid = lo + (hi - lo) / 2;
		if (t->first[mid] <= k)
			lo = mid;
		else
			hi = mid;
	}
	return lo;
}

bool scn_tags_check_sums(const struct dod_ops *ops, const struct scn_tags *t, uint64_t tag_sum,
                         size_t tags, struct scn_result *res)
{
	struct dod_tags_memory mem;
	uint64_t walked = ops->tags->walk_sum(t->c), keys = 0;
	char why[120] = "";
	ops->tags->memory(t->c, &mem);
	int err = ops->lookup_sum(t->c, t->ents, t->n, &keys);
	if (walked != tag_sum || mem.tags != tags)
		return scn_fail(res, "walk_sum %llu (expected %llu), %zu tags (expected %zu)",
		                (unsigned long long)walked, (unsigned long long)tag_sum, mem.tags,
		                tags), false;
	if (err || keys != scn_key_sum(t->n) || ops->size(t->c) != t->n)
		return scn_fail(res, "entities: lookup %s, key sum %llu, size %zu of %zu",
		                dod_strerror(err), (unsigned long long)keys, ops->size(t->c),
		                t->n), false;
	if (ops->check && ops->check(t->c, why, sizeof why))
		return scn_fail(res, "invariant check: %s", why), false;
	return true;
}

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	return (x > y) - (x < y);
}

/* Entity e holds exactly the first min(count, max_tags) of its planned tags. buf: room for
 * 2 x (count[e] + 1). A list in the planned order (the vectors keep the order of their
 * appends) is compared as it is; the sorts, O(L log L), only settle another order. */
static bool entity_built(const struct dod_ops *ops, const struct scn_tags *t, size_t e,
                         uint32_t *buf)
{
	size_t want = t->max_tags && t->count[e] > t->max_tags ? t->max_tags : t->count[e], got;
	uint32_t *plan = buf + t->count[e] + 1;
	if (ops->tags->tags_of(t->c, t->ents[e], buf, t->count[e] + 1, &got) || got != want)
		return false;
	for (size_t j = 0; j < want; j++)
		plan[j] = scn_tag_value(t->seed, t->first[e] + j);
	if (memcmp(buf, plan, want * sizeof *buf) == 0)
		return true;
	qsort(buf, want, sizeof *buf, cmp_u32);
	qsort(plan, want, sizeof *plan, cmp_u32);
	return memcmp(buf, plan, want * sizeof *buf) == 0;
}

bool scn_tags_check_built(const struct dod_ops *ops, const struct scn_tags *t,
                          struct scn_result *res)
{
	uint32_t most = 0;
	for (size_t e = 0; e < t->n; e++)
		most = t->count[e] > most ? t->count[e] : most;
	uint32_t *buf = malloc((2 * (size_t)most + 2) * sizeof *buf);
	if (!buf)
		return scn_fail(res, "verification: out of memory"), false;
	size_t bad = t->n;
	for (size_t e = 0; e < t->n && bad == t->n; e++)
		if (!entity_built(ops, t, e, buf))
			bad = e;
	free(buf);
	if (bad < t->n)
		return scn_fail(res, "entity %zu holds other tags than its first %u planned", bad,
		                t->count[bad]), false;
	return scn_tags_check_sums(ops, t, t->tag_sum, t->stored, res);
}

/* ---- the axis tag_dist ---- */

const struct hb_axis scn_tag_dist_axis = {
	.option = "tag-dist", .metavar = "D", .def = "game",
	HB_AXIS_KEY("tag_dist"),
	.help = "tags per entity of the tags scenarios: game (98% 1-4 tags, 2% 50-100: most "
	"entities few, a few many), three (exactly 3), upto8 (uniform 1-8), upto32 (uniform "
	"1-32), each64, each1024 (exactly 64, 1024: long lists, for growth by a constant, D7; "
	"each1024 holds n x 16 B x 1024 of plan and tags: 160 MB at n = 10k)",
	.kind = HB_AXIS_WORD, .words = tag_dist_names, .n_words = SCN_N_TAG_DISTS,
	.first_word = 0, .absent = {.u = SCN_TAGS_GAME},
	.absent_help = "run without it",
};
HB_AXIS_REGISTER(scn_tag_dist_axis)
