/* iterate_inline - calibration (docs/ARCHITECTURE.md, "The container contract"): the hand-written
 * loop that `iterate` on plain_array must match. Setup fills a plain uint64_t array with
 * the keys 0..n-1 (the same bytes plain_array holds at 8-byte elements); the timed
 * region sums it with a loop written right here, compiled with the same flags, with no
 * contract call at all. If iterate/plain_array is more than a few % slower than this,
 * the batch-call contract (or the container) costs something per element and every
 * other figure is suspect. Runs for plain_array at 8-byte elements only.
 * Checksum: the sum; expected n(n-1)/2. */
#include <stdlib.h>
#include <string.h>

#include "scenario.h"

static int run(const struct dod_ops *ops, const struct scn_params *p, struct hb_region *r,
               struct scn_result *res)
{
	(void)ops;
	uint64_t *keys = scn_alloc_touched(p->n, sizeof *keys);
	if (!keys)
		return scn_error(res, "keys array", DOD_ENOMEM);
	for (size_t i = 0; i < p->n; i++)
		keys[i] = i;
	const uint64_t *k = keys;
	DOD_KEEP(k); /* the compiler must not know the keys: no closed form */
	hb_begin(r);
	uint64_t sum = 0;
	for (size_t i = 0; i < p->n; i++)
		sum += k[i];
	DOD_KEEP(sum);
	hb_end(r);
	free(keys);
	res->ops = p->n;
	scn_check_sum(res, sum, scn_key_sum(p->n));
	return SCN_RAN;
}

static const char *cannot_run(const struct dod_ops *ops)
{
	return strcmp(ops->name, "plain_array") == 0 && ops->elem_bytes == 8
	               ? NULL
	               : "calibration loop: runs beside plain_array at 8-byte elements only";
}

static const struct scn_scenario iterate_inline = {
	.name = "iterate_inline",
	.help = "calibration: hand-written sum loop that iterate/plain_array must match",
	.cannot_run = cannot_run,
	.run = run,
};
SCN_REGISTER(iterate_inline)
