/* stream_read - the bandwidth probe (docs/ARCHITECTURE.md, "The bandwidth probe"): the
 * machine's own streaming-read limit at a working set of n 8-byte words, measured in the
 * same run as the containers, so an iterate case can be shown as the share of it that
 * it reaches. The setup is iterate_inline's (plain_array filled with keys 0..n-1, its
 * items read through ops->key_array: the very memory iterate_sum reads); the timed region
 * sums them in a plain uint64_t loop written here, which gcc vectorizes
 * (build/rel/vectorization.tsv), `passes` times over, so that a working set that fits in
 * L1 still makes a region of at least SCN_STREAM_MIN_BYTES read. Pick n with --n's cache
 * words (l1, l2, llc, dram: sizes from sysfs). Runs where key_array exists: plain_array
 * at 8-byte elements. ops = n x passes (words read): bytes per ns = 8 / ns_per_op; the
 * working set is n x 8 bytes. Checksum: the sum of every pass; expected passes x
 * n(n-1)/2 mod 2^64. */
#include "scenario.h"

static int run(const struct dod_ops *ops, const struct scn_params *p, struct hb_region *r,
               struct scn_result *res)
{
	struct scn_filled f;
	if (scn_fill_dense(ops, p, &f, res))
		return SCN_ERROR;
	const uint64_t *k = ops->key_array(f.c);
	size_t n = f.n_live;
	size_t passes = scn_stream_passes(n);
	hb_begin(r);
	uint64_t sum = 0;
	for (size_t pass = 0; pass < passes; pass++) {
		DOD_KEEP(k); /* the compiler must not know the keys: every pass reads them */
		for (size_t i = 0; i < n; i++)
			sum += k[i];
	}
	DOD_KEEP(sum);
	hb_end(r);
	res->ops = n * passes;
	scn_check_sum(res, sum, (uint64_t)passes * f.live_key_sum);
	scn_filled_free(ops, &f);
	return SCN_RAN;
}

static const struct scn_scenario stream_read = {
	.name = "stream_read",
	.help = "bandwidth probe: sum of n 8-byte words, repeated to 64 MiB read (--n l1,l2,llc,dram)",
	.cannot_run = scn_needs_key_array,
	.run = run,
};
SCN_REGISTER(stream_read)
