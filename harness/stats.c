/* stats.c - summary statistics of repetitions, bootstrap intervals of ratios, and the
 * latency percentiles of a repetition's samples. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "dod_common.h"
#include "hb.h"

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

double hb_median_sort(double *x, size_t n)
{
	qsort(x, n, sizeof *x, cmp_double);
	return n % 2 ? x[n / 2] : (x[n / 2 - 1] + x[n / 2]) / 2;
}

void hb_stats_of(const uint64_t *x, size_t n, struct hb_stats *out)
{
	memset(out, 0, sizeof *out);
	out->n = n;
	if (n == 0)
		return;
	double *v = malloc(n * sizeof *v);
	if (!v)
		return;
	double sum = 0, sq = 0;
	for (size_t i = 0; i < n; i++) {
		v[i] = (double)x[i];
		sum += v[i];
	}
	out->mean = sum / (double)n;
	for (size_t i = 0; i < n; i++)
		sq += (v[i] - out->mean) * (v[i] - out->mean);
	out->cv = n > 1 && out->mean > 0 ? sqrt(sq / (double)(n - 1)) / out->mean : 0;
	out->median = hb_median_sort(v, n);
	out->min = v[0];
	out->max = v[n - 1];
	for (size_t i = 0; i < n; i++)
		v[i] = fabs(v[i] - out->median);
	out->mad = hb_median_sort(v, n);
	free(v);
}

double hb_rel_dispersion(const struct hb_stats *s)
{
	return s->median > 0 ? 1.4826 * s->mad / s->median : 0;
}

/* Median of a resample (with replacement) of x, using scratch. */
static double resample_median(const uint64_t *x, size_t n, uint64_t *rng, double *scratch)
{
	for (size_t i = 0; i < n; i++)
		scratch[i] = (double)x[dod_rng_below(rng, n)];
	return hb_median_sort(scratch, n);
}

int hb_ratio_ci(const uint64_t *a, size_t na, const uint64_t *b, size_t nb, uint64_t seed,
                double *ratio, double *lo, double *hi)
{
	enum { RESAMPLES = 2000 };
	if (na < 3 || nb < 3)
		return -1;
	struct hb_stats sa, sb;
	hb_stats_of(a, na, &sa);
	hb_stats_of(b, nb, &sb);
	if (sa.median <= 0)
		return -1;
	double *scratch = malloc((na > nb ? na : nb) * sizeof *scratch);
	double *r = malloc(RESAMPLES * sizeof *r);
	if (!scratch || !r) {
		free(scratch);
		free(r);
		return -1;
	}
	uint64_t rng = seed ^ 0xb007574a9ull;
	size_t k = 0;
	for (int i = 0; i < RESAMPLES; i++) {
		double ma = resample_median(a, na, &rng, scratch);
		double mb = resample_median(b, nb, &rng, scratch);
		if (ma > 0)
			r[k++] = mb / ma;
	}
	qsort(r, k, sizeof *r, cmp_double);
	*ratio = sb.median / sa.median;
	*lo = r[(size_t)(0.025 * (double)(k - 1))];
	*hi = r[(size_t)(0.975 * (double)(k - 1) + 0.5)];
	free(scratch);
	free(r);
	return 0;
}

/* Rearranges x[lo .. hi) so that x[k] holds the value a sort would put there, every value
 * before it is <= and every value after it >= (quickselect with a three-way partition:
 * latency samples in ticks repeat a lot; pivots from a fixed xorshift, so the work is the
 * same on every run). Expected O(hi - lo): a 16M-sample push_latency repetition took ~2 s
 * in qsort for four order statistics. lo <= k < hi. */
void hb_select_kth(uint64_t *x, size_t lo, size_t hi, size_t k)
{
	uint64_t rng = 0x9e3779b97f4a7c15u;
	while (hi - lo > 1) {
		rng ^= rng << 13, rng ^= rng >> 7, rng ^= rng << 17;
		uint64_t pivot = x[lo + rng % (hi - lo)];
		size_t lt = lo, i = lo, gt = hi; /* [lo,lt) < pivot, [lt,i) == , [gt,hi) > */
		while (i < gt) {
			uint64_t v = x[i];
			if (v < pivot) {
				x[i++] = x[lt];
				x[lt++] = v;
			} else if (v > pivot) {
				x[i] = x[--gt];
				x[gt] = v;
			} else {
				i++;
			}
		}
		if (k < lt)
			hi = lt;
		else if (k >= gt)
			lo = gt;
		else
			return;
	}
}

/* The index a nearest-rank percentile q (0 < q <= 1) reads among n sorted values:
 * ceil(q n) - 1, at least 0. */
static size_t pct_index(size_t n, double q)
{
	size_t k = (size_t)ceil(q * (double)n);
	return k ? k - 1 : 0;
}

void hb_latency_of(uint64_t *x, size_t n, struct hb_latency *out)
{
	/* Each order statistic selected in the part above the one before. */
	size_t i50 = pct_index(n, 0.50), i99 = pct_index(n, 0.99), i999 = pct_index(n, 0.999);
	hb_select_kth(x, 0, n, i50);
	out->p50 = x[i50];
	hb_select_kth(x, i50, n, i99);
	out->p99 = x[i99];
	hb_select_kth(x, i99, n, i999);
	out->p999 = x[i999];
	hb_select_kth(x, i999, n, n - 1);
	out->max = x[n - 1];
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return (x > y) - (x < y);
}

void hb_growth_latency_of(uint64_t *x, size_t n, struct hb_growth_latency *out)
{
	size_t m = 0;
	uint64_t plain_max = 0;
	for (size_t i = 0; i < n; i++)
		if (x[i] & HB_SAMPLE_GREW)
			m++;
		else if (x[i] > plain_max)
			plain_max = x[i];
	*out = (struct hb_growth_latency){.grew = m, .plain_max = plain_max};
	uint64_t *grew = m ? malloc(m * sizeof *grew) : NULL;
	for (size_t i = 0, k = 0; i < n; i++)
		if (x[i] & HB_SAMPLE_GREW) {
			x[i] &= ~HB_SAMPLE_GREW;
			if (grew)
				grew[k++] = x[i];
		}
	if (!grew) { /* none marked, or no memory for them */
		out->grew = 0;
		return;
	}
	qsort(grew, m, sizeof *grew, cmp_u64);
	out->grew_p50 = grew[pct_index(m, 0.50)];
	out->grew_max = grew[m - 1];
	free(grew);
}
