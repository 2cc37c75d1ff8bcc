/* stream_read - the bandwidth probe (docs/ARCHITECTURE.md, "The bandwidth probe"): the
 * machine's own streaming-read limit at a working set of n 8-byte words, measured in the
 * same run as the containers, so an iterate case can be shown as the share of it that
 * it reaches. The setup is iterate_inline's memory (plain_array filled with keys 0..n-1,
 * its items read through ops->key_array: the very memory iterate_sum reads; no handle kept,
 * fill_keys); the timed region
 * sums them in a plain uint64_t loop written here, which gcc vectorizes
 * (build/rel/vectorization.tsv), K times over after the untimed passes every iterate-like
 * case gets (scn_run_passes: the same warm condition as iterate), K at least enough for
 * SCN_STREAM_MIN_BYTES read and for the clock's floor. Pick n with --n's cache
 * words (l1, l2, llc, dram: sizes from sysfs). Runs where key_array exists: plain_array
 * at 8-byte elements. ops = n x K (words read): bytes per ns = 8 / ns_per_op; the
 * working set is n x 8 bytes. Checksum: the sum of every pass; expected K x n(n-1)/2 mod
 * 2^64. */
#include "scenario.h"

struct keys {
	const uint64_t *k;
	size_t n;
};

/* One pass: the probe's loop. */
static uint64_t pass(void *p)
{
	const struct keys *x = p;
	const uint64_t *k = x->k;
	size_t n = x->n;
	DOD_KEEP(k); /* the compiler must not know the keys: every pass reads them */
	uint64_t sum = 0;
	for (size_t i = 0; i < n; i++)
		sum += k[i];
	return sum;
}

/* The probe's fill: n items with keys 0..n-1 in a container created with room for all of
 * them, inserted in batches through one small handle buffer. (scn_fill keeps all n handles:
 * at the dram set as many bytes again as the keys, faulted in and never read.) Returns 0 or
 * SCN_ERROR with res's reason. */
static int fill_keys(const struct dod_ops *ops, size_t n, void **c, struct scn_result *res)
{
	enum { BATCH = 4096 };
	static uint64_t handles[BATCH];
	int err = ops->create(c, n);
	if (err)
		return scn_error(res, "create", err);
	for (size_t done = 0; done < n; done += BATCH) {
		size_t m = n - done < BATCH ? n - done : BATCH;
		if ((err = ops->insert_n(*c, m, done, handles))) {
			ops->destroy(*c);
			return scn_error(res, "insert_n", err);
		}
	}
	return 0;
}

static int run(const struct dod_ops *ops, const struct scn_params *p, struct hb_region *r,
               struct scn_result *res)
{
	void *c;
	if (fill_keys(ops, p->n, &c, res))
		return SCN_ERROR;
	struct keys x = {ops->key_array(c), p->n};
	struct scn_passes ps = {.pass = pass, .ctx = &x, .min_k = scn_stream_passes(p->n)};
	scn_run_passes(p, r, &ps);
	res->ops = ps.k * p->n;
	scn_check_passes(res, &ps, scn_key_sum(p->n));
	ops->destroy(c);
	return SCN_RAN;
}

static const struct scn_scenario stream_read = {
	.name = "stream_read",
	.help = "bandwidth probe: sum of n 8-byte words, repeated to 64 MiB read (--n l1,l2,llc,dram)",
	.axes = SCN_AXES(&hb_axis_cache),
	.cannot_run = scn_needs_key_array,
	.run = run,
};
SCN_REGISTER(stream_read)
