/* summary.c - what a run prints when it ends: per case the median, spread and ns per
 * operation, then each case's time relative to the baseline container's with a 95%
 * bootstrap confidence interval. */
#include <string.h>

#include "run.h"

/* The case of the baseline container with the same scenario and axis values. */
static const struct hb_case *baseline_of(const struct hb_run *r, const struct hb_case *k,
                                         const char *base)
{
	for (size_t i = 0; i < r->n_cases; i++) {
		const struct hb_case *b = &r->cases[i];
		if (strcmp(b->container->name, base) == 0 && b->scn == k->scn &&
		    memcmp(b->axis, k->axis, sizeof b->axis) == 0)
			return b;
	}
	return NULL;
}

void hb_summarize(const struct hb_run *r, const char *base)
{
	bool any_unstable = false, any_ratio = false;
	for (size_t i = 0; i < r->n_cases; i++) {
		const struct hb_case *k = &r->cases[i];
		if (k->skip) {
			printf("%-60s skipped: %s\n", k->name, k->skip);
			continue;
		}
		if (k->done == 0 && k->resumed > 0 && !k->failed) {
			printf("%-60s resumed: all %zu repetitions were already in the output\n",
			       k->name, k->resumed);
			continue;
		}
		char status[300] = "";
		if (k->status != HB_OK)
			snprintf(status, sizeof status, "%s in %s %lld: %s", hb_status_names[k->status],
			         k->status_rep < 0 ? "warm-up" : "rep",
			         k->status_rep < 0 ? -k->status_rep - 1 : k->status_rep, k->status_detail);
		if (k->done == 0) {
			printf("%-60s FAILED: no repetition completed%s%s\n", k->name,
			       status[0] ? "; " : "", status);
			continue;
		}
		struct hb_stats st;
		hb_stats_of(k->elapsed_ns, k->done, &st);
		bool unstable = k->done >= 3 && hb_rel_dispersion(&st) > HB_UNSTABLE;
		any_unstable |= unstable;
		printf("%-60s median %11.4f ms  min %11.4f  max %11.4f  MAD %5.1f%%  CV %5.1f%%  "
		       "%9.2f ns/op  %s%s%s%s\n",
		       k->name, st.median / 1e6, st.min / 1e6, st.max / 1e6,
		       st.median > 0 ? 100 * st.mad / st.median : 0, 100 * st.cv,
		       st.median / (k->ns_per_op_div > 0 ? k->ns_per_op_div : 1),
		       k->status == HB_OK ? "verified" : k->status == HB_FAILED ? "NOT VERIFIED" : "",
		       unstable ? "  unstable" : "",
		       k->status > HB_FAILED ? "STOPPED: " : "",
		       k->status > HB_FAILED ? status : "");
	}
	if (r->any_samples)
		printf("\nlatency samples: one hb_lap costs %.1f ns (median of 4096 empty laps), "
		       "included in each sample and in the region's time\n", hb_sample_cost_ns());
	for (size_t i = 0; i < r->n_cases; i++) {
		const struct hb_case *k = &r->cases[i], *b = baseline_of(r, k, base);
		double ratio, lo, hi;
		if (k->skip || !b || b == k || b->skip || k->status != HB_OK || b->status != HB_OK ||
		    hb_ratio_ci(b->elapsed_ns, b->done, k->elapsed_ns, k->done, r->c->seed, &ratio,
		                &lo, &hi) != 0)
			continue;
		if (!any_ratio)
			printf("\ntime relative to %s (median ratio, 95%% bootstrap CI; > 1: slower "
			       "than %s):\n", base, base);
		any_ratio = true;
		printf("%-60s %8.3fx  [%.3f, %.3f]%s\n", k->name, ratio, lo, hi,
		       lo <= 1 && hi >= 1 ? "  no significant difference" : "");
	}
	if (any_unstable)
		printf("\nunstable: the cases marked so have a robust dispersion (1.4826 MAD/median)"
		       " above %.0f%%.\nTheir medians are not trustworthy to a few %%: add --reps, "
		       "use --interleave and --pin CPU,\nand close other programs; on a VM, compare "
		       "ratios within one run.\n", 100 * HB_UNSTABLE);
}
