/* lap_noise - the latency floor of this machine: n latency samples with no work between
 * them, taken exactly as push_latency takes its samples (scn_lap_growth). Its max is what an
 * interruption (a timer interrupt, the hypervisor descheduling the vCPU, another process)
 * adds to any one sample in a run of n: a push_latency max no higher than lap_noise's max
 * at the same n is the machine's spike, not the container's. The container is not called
 * (any one will do; make bench runs it beside plain_array). ops = n; checksum = the
 * number of samples recorded, expected n. */
#include "scenario.h"

static int run(const struct dod_ops *ops, const struct scn_params *p, struct hb_region *r,
               struct scn_result *res)
{
	(void)ops;
	if (hb_samples_reserve(r, p->n))
		return scn_error(res, "latency samples", DOD_ENOMEM);
	uint64_t grows = dod_growth.grows;
	hb_begin(r);
	for (size_t i = 0; i < p->n; i++) {
		DOD_CLOBBER();
		scn_lap_growth(r, &grows);
	}
	hb_end(r);
	res->ops = p->n;
	scn_check_sum(res, r->samples_n, p->n);
	return SCN_RAN;
}

static const struct scn_scenario lap_noise = {
	.name = "lap_noise",
	.help = "n empty latency samples: the machine's own spikes (max), beside push_latency",
	.records_samples = true,
	.run = run,
};
SCN_REGISTER(lap_noise)
