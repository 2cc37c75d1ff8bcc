/* churn - steady state (Our Machinery, "Bulk data": a game erases and adds objects every
 * frame and iterates them all): each of SCN_CHURN_FRAMES frames erases k = max(1, n/100)
 * randomly chosen live items (one erase_n batch), inserts k new ones (one insert_n batch)
 * and iterates everything (iterate_sum). One latency sample per frame (hb_lap), so the CSV
 * gets per-frame p50 / p99 / max. Setup: n items; the victims' positions for every frame
 * are drawn before the region, and the expected key sum of every frame is computed by a
 * simulation of the keys (untimed). Timed: the frames, including gathering the victims'
 * handles and storing the new ones (bookkeeping a game does too). ops = frames.
 * Verification: every call returned 0, every frame's iterate sum matched the simulation,
 * size is n, every live handle reaches its key. Checksum: the sum of the frames' sums. */
#include <stdlib.h>

#include "scenario.h"

#define SCN_CHURN_FRAMES 100

/* One repetition's arrays, allocated (touched) before the container so the heap it grows
 * in is the same every repetition. */
struct churn {
	size_t n, k, frames;
	size_t *pos;       /* frames x k: the victims' positions in live[], frame by frame */
	size_t *perm;      /* setup: positions, partially shuffled frame by frame */
	uint64_t *keys;    /* setup: the key at each position, simulated */
	uint64_t *expect;  /* per frame: the key sum iterate_sum must give */
	uint64_t *victims; /* one frame's handles to erase */
	uint64_t *fresh;   /* one frame's new handles */
	uint64_t *sums;    /* per frame: what iterate_sum gave */
};

static void churn_free(struct churn *ch)
{
	free(ch->pos);
	free(ch->perm);
	free(ch->keys);
	free(ch->expect);
	free(ch->victims);
	free(ch->fresh);
	free(ch->sums);
}

/* k = max(1, n/100) victims a frame. Returns 0 or DOD_ENOMEM (ch freed). */
static int churn_alloc(struct churn *ch, size_t n)
{
	size_t k = n / 100 ? n / 100 : 1, frames = SCN_CHURN_FRAMES;
	*ch = (struct churn){.n = n, .k = k > n ? n : k, .frames = frames};
	ch->pos = scn_alloc_touched(frames * ch->k, sizeof *ch->pos);
	ch->perm = scn_alloc_touched(n, sizeof *ch->perm);
	ch->keys = scn_alloc_touched(n, sizeof *ch->keys);
	ch->expect = scn_alloc_touched(frames, sizeof *ch->expect);
	ch->victims = scn_alloc_touched(ch->k, sizeof *ch->victims);
	ch->fresh = scn_alloc_touched(ch->k, sizeof *ch->fresh);
	ch->sums = scn_alloc_touched(frames, sizeof *ch->sums);
	if (ch->pos && ch->perm && ch->keys && ch->expect && ch->victims && ch->fresh && ch->sums)
		return DOD_OK;
	churn_free(ch);
	return DOD_ENOMEM;
}

/* Victims per frame: k distinct positions (dod_shuffle_prefix: a partial Fisher-Yates);
 * the keys simulated, so each frame's expected sum is known before the region. */
static void churn_plan(struct churn *ch, uint64_t seed)
{
	size_t n = ch->n, k = ch->k;
	uint64_t rng = seed, sum = scn_key_sum(n), next_key = n;
	for (size_t i = 0; i < n; i++)
		ch->perm[i] = i, ch->keys[i] = i;
	for (size_t f = 0; f < ch->frames; f++) {
		dod_shuffle_prefix(ch->perm, n, k, sizeof *ch->perm, &rng);
		for (size_t j = 0; j < k; j++) {
			ch->pos[f * k + j] = ch->perm[j];
			sum -= ch->keys[ch->perm[j]];
			ch->keys[ch->perm[j]] = next_key;
			sum += next_key++;
		}
		ch->expect[f] = sum;
	}
}

/* The timed region: the frames, one latency sample each. Returns 0, or the error of the
 * call that failed with *frame_out = its frame. */
static int churn_frames(const struct dod_ops *ops, void *c, uint64_t *live,
                        struct churn *ch, struct hb_region *r, size_t *frame_out)
{
	int err = 0;
	size_t f = 0, k = ch->k;
	uint64_t first_key = ch->n;
	hb_begin(r);
	for (; f < ch->frames; f++) {
		const size_t *fp = &ch->pos[f * k];
		for (size_t j = 0; j < k; j++)
			ch->victims[j] = live[fp[j]];
		if ((err = ops->erase_n(c, ch->victims, k)) != 0 ||
		    (err = ops->insert_n(c, k, first_key, ch->fresh)) != 0)
			break;
		for (size_t j = 0; j < k; j++)
			live[fp[j]] = ch->fresh[j];
		first_key += k;
		ch->sums[f] = ops->iterate_sum(c);
		hb_lap(r);
	}
	DOD_CLOBBER();
	hb_end(r);
	*frame_out = f;
	return err;
}

/* Every frame's sum as simulated, size n, every live handle reaching its key. */
static void churn_verify(const struct dod_ops *ops, void *c, const uint64_t *live,
                         const struct churn *ch, struct scn_result *res)
{
	uint64_t total = 0, by_handle = 0;
	size_t bad = 0, n = ch->n;
	for (size_t i = 0; i < ch->frames; i++) {
		total += ch->sums[i];
		bad += ch->sums[i] != ch->expect[i];
	}
	int lerr = ops->lookup_sum(c, live, n, &by_handle);
	res->checksum = total;
	res->verified = !bad && !lerr && by_handle == ch->expect[ch->frames - 1] && ops->size(c) == n;
	if (!res->verified)
		scn_fail(res, "%zu frames with a wrong sum, size %zu of %zu, lookup %s", bad,
		         ops->size(c), n, lerr ? dod_strerror(lerr) : "ok");
}

static int run(const struct dod_ops *ops, const struct scn_params *p, struct hb_region *r,
               struct scn_result *res)
{
	struct churn ch;
	void *c;
	uint64_t *live;
	if (churn_alloc(&ch, p->n))
		return scn_error(res, "churn setup", DOD_ENOMEM);
	churn_plan(&ch, p->seed);
	int rc = SCN_ERROR;
	if (scn_fill(ops, p->n, &c, &live, res))
		goto out;
	if (hb_samples_reserve(r, ch.frames)) {
		scn_error(res, "latency samples", DOD_ENOMEM);
		goto destroy;
	}
	size_t f;
	int err = churn_frames(ops, c, live, &ch, r, &f);
	res->ops = ch.frames;
	rc = SCN_RAN;
	if (err)
		scn_fail(res, "frame %zu: %s", f, dod_strerror(err));
	else
		churn_verify(ops, c, live, &ch, res);
destroy:
	ops->destroy(c);
	free(live);
out:
	churn_free(&ch);
	return rc;
}

static const char *cannot_run(const struct dod_ops *ops)
{
	if (scn_needs_handles(ops))
		return scn_needs_handles(ops);
	if (!ops->erase_n)
		return "no erase_n: cannot erase single items";
	return ops->caps & DOD_CAP_STABLE_HANDLES ? NULL
	                                          : "handles are not stable across erase";
}

static const struct scn_scenario churn = {
	.name = "churn",
	.help = "steady state: 100 frames of erase n/100 random + insert n/100 + iterate all, "
	        "each frame timed",
	.records_samples = true,
	.cannot_run = cannot_run,
	.run = run,
};
SCN_REGISTER(churn)
