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

static int run(const struct dod_ops *ops, const struct scn_params *p, struct hb_region *r,
               struct scn_result *res)
{
	size_t n = p->n, k = n / 100 ? n / 100 : 1, frames = SCN_CHURN_FRAMES;
	if (k > n)
		k = n;
	void *c;
	uint64_t *live;
	size_t *pos = scn_alloc_touched(frames * k, sizeof *pos), *perm = scn_alloc_touched(n, sizeof *perm);
	uint64_t *keys = scn_alloc_touched(n, sizeof *keys), *expect = scn_alloc_touched(frames, sizeof *expect);
	uint64_t *victims = scn_alloc_touched(k, sizeof *victims), *fresh = scn_alloc_touched(k, sizeof *fresh);
	uint64_t *sums = scn_alloc_touched(frames, sizeof *sums);
	int rc = SCN_ERROR;
	if (!pos || !perm || !keys || !expect || !victims || !fresh || !sums) {
		scn_error(res, "churn setup", DOD_ENOMEM);
		goto out;
	}
	/* Victims per frame: k distinct positions (a partial Fisher-Yates); keys simulated. */
	uint64_t rng = p->seed, sum = scn_key_sum(n), next_key = n;
	for (size_t i = 0; i < n; i++)
		perm[i] = i, keys[i] = i;
	for (size_t f = 0; f < frames; f++) {
		for (size_t j = 0; j < k; j++) {
			size_t t = j + (size_t)dod_rng_below(&rng, n - j), x = perm[j];
			perm[j] = perm[t], perm[t] = x;
			pos[f * k + j] = perm[j];
			sum -= keys[perm[j]];
			keys[perm[j]] = next_key;
			sum += next_key++;
		}
		expect[f] = sum;
	}
	if (scn_fill(ops, n, &c, &live, res))
		goto out;
	if (hb_samples_reserve(r, frames)) {
		ops->destroy(c);
		free(live);
		scn_error(res, "latency samples", DOD_ENOMEM);
		goto out;
	}
	int err = 0;
	size_t f = 0;
	uint64_t first_key = n;
	hb_begin(r);
	for (; f < frames; f++) {
		const size_t *fp = &pos[f * k];
		for (size_t j = 0; j < k; j++)
			victims[j] = live[fp[j]];
		if ((err = ops->erase_n(c, victims, k)) != 0 ||
		    (err = ops->insert_n(c, k, first_key, fresh)) != 0)
			break;
		for (size_t j = 0; j < k; j++)
			live[fp[j]] = fresh[j];
		first_key += k;
		sums[f] = ops->iterate_sum(c);
		hb_lap(r);
	}
	DOD_CLOBBER();
	hb_end(r);
	res->ops = frames;
	rc = SCN_RAN;
	if (err) {
		scn_fail(res, "frame %zu: %s", f, dod_strerror(err));
	} else {
		uint64_t total = 0, by_handle = 0;
		size_t bad = 0;
		for (size_t i = 0; i < frames; i++) {
			total += sums[i];
			bad += sums[i] != expect[i];
		}
		int lerr = ops->lookup_sum(c, live, n, &by_handle);
		res->checksum = total;
		res->verified = !bad && !lerr && by_handle == expect[frames - 1] && ops->size(c) == n;
		if (!res->verified)
			scn_fail(res, "%zu frames with a wrong sum, size %zu of %zu, lookup %s", bad,
			         ops->size(c), n, lerr ? dod_strerror(lerr) : "ok");
	}
	ops->destroy(c);
	free(live);
out:
	free(pos);
	free(perm);
	free(keys);
	free(expect);
	free(victims);
	free(fresh);
	free(sums);
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
