/* summary.c - the console reporter (report.h): the run's context line when it begins,
 * and what it prints when it ends: per case the median, spread and ns per operation,
 * then the cases a container cannot run, then each case's time relative to the baseline
 * container's with a 95% bootstrap confidence interval.
 *
 * Every column lines up whatever the names and figures: the name column is as wide as the
 * longest name of the plan (hb_name_width, known before the first case runs, so the
 * failure lines schedule.c prints mid-run line up with the summary after them), and each
 * figure's column as wide as its widest value (the summary is printed once every case has
 * ended). A case skipped because its container lacks what the scenario needs (an
 * extension, erase, defragment) is not a line of its own: `--container all` would drown
 * the measured cases in them; they are one line per container and reason. A case an
 * axis skips (holes that round to none at its n) keeps its line. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "report.h"
#include "run.h"

int hb_name_width(const struct hb_case *cases, size_t n)
{
	size_t w = 0;
	for (size_t i = 0; i < n; i++)
		if (!cases[i].cannot_run && strlen(cases[i].name) > w)
			w = strlen(cases[i].name);
	return w > 4096 ? 4096 : (int)w;
}

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

/* The figures of a measured case's line, each formatted on its own, and the narrowest
 * each column is (so ordinary figures look as they always did). */
enum { F_MEDIAN, F_MIN, F_MAX, F_MAD, F_CV, F_NS_OP, F_N };
#define FIG_LEN 40
static const int fig_min_w[F_N] = {11, 11, 11, 5, 5, 9};

/* Formats case k's figures into fig and says whether it is unstable. Returns false when
 * it has none (skipped, or no repetition measured). */
static bool case_figures(const struct hb_case *k, char fig[F_N][FIG_LEN], bool *unstable)
{
	if (k->skip || k->done == 0)
		return false;
	struct hb_stats st;
	hb_stats_of(k->elapsed_ns, k->done, &st);
	*unstable = k->done >= 3 && hb_rel_dispersion(&st) > HB_UNSTABLE;
	snprintf(fig[F_MEDIAN], FIG_LEN, "%.4f", st.median / 1e6);
	snprintf(fig[F_MIN], FIG_LEN, "%.4f", st.min / 1e6);
	snprintf(fig[F_MAX], FIG_LEN, "%.4f", st.max / 1e6);
	snprintf(fig[F_MAD], FIG_LEN, "%.1f", st.median > 0 ? 100 * st.mad / st.median : 0);
	snprintf(fig[F_CV], FIG_LEN, "%.1f", 100 * st.cv);
	snprintf(fig[F_NS_OP], FIG_LEN, "%.2f",
	         st.median / (k->ns_per_op_div > 0 ? k->ns_per_op_div : 1));
	return true;
}

/* One line per case that has one (all but the cases of cannot_lines); returns whether any
 * case is unstable. */
static bool case_lines(const struct hb_run *r)
{
	char fig[F_N][FIG_LEN];
	int w[F_N];
	bool unstable, any_unstable = false;
	memcpy(w, fig_min_w, sizeof w);
	for (size_t i = 0; i < r->n_cases; i++) {
		if (!case_figures(&r->cases[i], fig, &unstable))
			continue;
		for (int f = 0; f < F_N; f++)
			w[f] = (int)strlen(fig[f]) > w[f] ? (int)strlen(fig[f]) : w[f];
	}
	for (size_t i = 0; i < r->n_cases; i++) {
		const struct hb_case *k = &r->cases[i];
		if (k->cannot_run)
			continue;
		if (k->skip) {
			printf("%-*s skipped: %s\n", r->name_w, k->name, k->skip);
			continue;
		}
		if (k->done == k->resumed && k->resumed > 0 && !k->failed) {
			printf("%-*s resumed: all %zu repetitions were already in the output\n",
			       r->name_w, k->name, k->resumed);
			continue;
		}
		char status[300] = "";
		if (k->status != HB_OK)
			snprintf(status, sizeof status, "%s in %s %lld: %s", hb_status_names[k->status],
			         k->status_rep < 0 ? "warm-up" : "rep",
			         k->status_rep < 0 ? -k->status_rep - 1 : k->status_rep, k->status_detail);
		if (!case_figures(k, fig, &unstable)) {
			printf("%-*s FAILED: no repetition completed%s%s\n", r->name_w, k->name,
			       status[0] ? "; " : "", status);
			continue;
		}
		any_unstable |= unstable;
		printf("%-*s median %*s ms  min %*s  max %*s  MAD %*s%%  CV %*s%%  %*s ns/op  "
		       "%s%s%s%s%s\n", r->name_w, k->name, w[F_MEDIAN], fig[F_MEDIAN], w[F_MIN],
		       fig[F_MIN], w[F_MAX], fig[F_MAX], w[F_MAD], fig[F_MAD], w[F_CV], fig[F_CV],
		       w[F_NS_OP], fig[F_NS_OP],
		       k->status == HB_OK ? "verified" : k->status == HB_FAILED ? "NOT VERIFIED" : "",
		       unstable ? "  unstable" : "", k->short_regions ? "  short" : "",
		       k->status > HB_FAILED ? "STOPPED: " : "",
		       k->status > HB_FAILED ? status : "");
	}
	return any_unstable;
}

/* Orders the cases a container cannot run by container (registry order), reason, then
 * plan order. */
static int cmp_cannot(const void *pa, const void *pb)
{
	const struct hb_case *a = *(const struct hb_case *const *)pa,
	                     *b = *(const struct hb_case *const *)pb;
	uintptr_t ka = (uintptr_t)a->container, kb = (uintptr_t)b->container;
	if (ka != kb)
		return ka < kb ? -1 : 1;
	int by_reason = strcmp(a->skip, b->skip);
	if (by_reason)
		return by_reason;
	return (uintptr_t)a < (uintptr_t)b ? -1 : (uintptr_t)a > (uintptr_t)b;
}

/* The cases whose container cannot run their scenario: one line per container and
 * reason, "skipped: CONTAINER for SCENARIO, .. (N cases): REASON", the container column as
 * wide as the longest. Without memory to sort them, one line per case. */
static void cannot_lines(const struct hb_run *r)
{
	size_t n = 0;
	for (size_t i = 0; i < r->n_cases; i++)
		n += r->cases[i].cannot_run;
	if (n == 0)
		return;
	const struct hb_case **k = malloc(n * sizeof *k);
	if (!k) {
		for (size_t i = 0; i < r->n_cases; i++)
			if (r->cases[i].cannot_run)
				printf("%s skipped: %s\n", r->cases[i].name, r->cases[i].skip);
		return;
	}
	int w = 0;
	for (size_t i = 0, at = 0; i < r->n_cases; i++)
		if (r->cases[i].cannot_run) {
			k[at++] = &r->cases[i];
			int len = (int)strlen(r->cases[i].container->name);
			w = len > w ? len : w;
		}
	qsort(k, n, sizeof *k, cmp_cannot);
	printf("\n");
	for (size_t first = 0, end; first < n; first = end) {
		printf("skipped: %-*s for ", w, k[first]->container->name);
		for (end = first; end < n && k[end]->container == k[first]->container &&
		                  strcmp(k[end]->skip, k[first]->skip) == 0; end++)
			if (end == first || k[end]->scn != k[end - 1]->scn) /* plan order: by scenario */
				printf("%s%s", end == first ? "" : ", ", k[end]->scn->name);
		printf(" (%zu case%s): %s\n", end - first, end - first == 1 ? "" : "s",
		       k[first]->skip);
	}
	free(k);
}

/* A case's time relative to its baseline's case, with the 95% CI. */
struct ratio {
	double ratio, lo, hi;
	bool have; /* false: no baseline case, either one not ok, fewer than 3 repetitions */
};

/* The ratio of case k to its baseline's case (container base). */
static struct ratio ratio_of(const struct hb_run *r, const struct hb_case *k, const char *base)
{
	struct ratio x = {0};
	const struct hb_case *b = baseline_of(r, k, base);
	x.have = !k->skip && b && b != k && !b->skip && k->status == HB_OK &&
	         b->status == HB_OK && hb_ratio_ci(b->elapsed_ns, b->done, k->elapsed_ns,
	                                           k->done, r->c->seed, &x.ratio, &x.lo,
	                                           &x.hi) == 0;
	return x;
}

/* The ratio table: "NAME RATIOx  [LO, HI]", each figure's column as wide as its widest
 * value. The ratios are computed once and kept (twice, when there is no memory to keep
 * them: the bootstrap is seeded, so both give the same figures). */
static void ratio_lines(const struct hb_run *r, const char *base)
{
	struct ratio *kept = malloc((r->n_cases ? r->n_cases : 1) * sizeof *kept);
	int w[3] = {8, 5, 5};
	bool any = false;
	char fig[3][FIG_LEN];
	for (size_t i = 0; i < r->n_cases; i++) {
		struct ratio x = ratio_of(r, &r->cases[i], base);
		if (kept)
			kept[i] = x;
		if (!x.have)
			continue;
		any = true;
		snprintf(fig[0], FIG_LEN, "%.3f", x.ratio);
		snprintf(fig[1], FIG_LEN, "%.3f", x.lo);
		snprintf(fig[2], FIG_LEN, "%.3f", x.hi);
		for (int f = 0; f < 3; f++)
			w[f] = (int)strlen(fig[f]) > w[f] ? (int)strlen(fig[f]) : w[f];
	}
	if (any)
		printf("\ntime relative to %s (median ratio, 95%% bootstrap CI; > 1: slower "
		       "than %s):\n", base, base);
	for (size_t i = 0; any && i < r->n_cases; i++) {
		struct ratio x = kept ? kept[i] : ratio_of(r, &r->cases[i], base);
		if (x.have)
			printf("%-*s %*.3fx  [%*.3f, %*.3f]%s\n", r->name_w, r->cases[i].name, w[0],
			       x.ratio, w[1], x.lo, w[2], x.hi,
			       x.lo <= 1 && x.hi >= 1 ? "  no significant difference" : "");
	}
	free(kept);
}

/* The notes on the clock: the figures of repeated work are per pass; the cases whose
 * regions were shorter than the clock allows. */
static void clock_lines(const struct hb_run *r)
{
	bool repeated = false, any_short = false;
	for (size_t i = 0; i < r->n_cases; i++) {
		repeated |= r->cases[i].passes > 1;
		any_short |= r->cases[i].short_regions > 0;
	}
	if (repeated)
		printf("\nper pass: a repeatable scenario times its work K times in one region, "
		       "after 2 untimed passes\n(cache warm), K chosen so the region lasts %.0f "
		       "us; its ms figures are one pass's (the CSV's passes column)\n",
		       (double)hb_min_region_ns() / 1e3);
	if (any_short)
		printf("\nshort: some regions of the cases marked so lasted less than %.0f us (%d "
		       "clock floors of %.0f ns):\nthey time the clock and the call as much as "
		       "the work (the CSV's short_region column); use a larger --n\n",
		       (double)hb_min_region_ns() / 1e3, HB_MIN_REGION_FLOORS, hb_clock_floor_ns());
}

void hb_summarize(const struct hb_run *r, const char *base)
{
	bool any_unstable = case_lines(r);
	clock_lines(r);
	cannot_lines(r);
	if (r->any_samples)
		printf("\nlatency samples: one hb_lap costs %.1f ns (median of 4096 empty laps), "
		       "included in each sample and in the region's time\n", hb_sample_cost_ns());
	ratio_lines(r, base);
	if (any_unstable)
		printf("\nunstable: the cases marked so have a robust dispersion (1.4826 MAD/median)"
		       " above %.0f%%.\nTheir medians are not trustworthy to a few %%: add --reps, "
		       "use --interleave and --pin CPU,\nand close other programs; on a VM, compare "
		       "ratios within one run.\n", 100 * HB_UNSTABLE);
}

/* The console reporter's begin: the run's context line on stderr, unless --quiet. */
static int console_begin(struct hb_reporter *self, const struct hb_run *r)
{
	const struct hb_config *c = r->c;
	(void)self;
	if (!c->quiet)
		fprintf(stderr, "dodbench: run %s, counter_source=%s, %zu cases, %llu reps + %llu "
		        "warm-up%s%s\n", r->env->run_id, hb_counter_source(), r->n_cases, c->reps,
		        c->warmup, c->interleave ? ", interleaved" : "",
		        c->prefault ? ", prefaulted heap" : "");
	return 0;
}

/* The console reporter's end: the summary, against --baseline or the first container. */
static int console_end(struct hb_reporter *self, const struct hb_run *r, int status)
{
	const struct hb_config *c = r->c;
	(void)self, (void)status;
	if (c->counters == HB_COUNTERS_CALLGRIND)
		printf("(times below ran under callgrind, 20-200x slower than native: not comparable)\n");
	hb_summarize(r, c->baseline ? c->baseline : c->containers[0]->name);
	return 0;
}

void hb_console_reporter(struct hb_reporter *rep)
{
	*rep = (struct hb_reporter){.path = "stdout", .begin = console_begin, .end = console_end};
}
