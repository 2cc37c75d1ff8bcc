"""Robust statistics over benchmark repetitions, shared by report.py and compare.py.

Inputs are sequences of numbers, one per repetition, all in one unit (usually ns); every
location or spread result is in that same unit, ratios and CV are unitless. Nothing here
reads files or prints. Comparisons use a seeded percentile bootstrap (scipy.stats.bootstrap)
for the confidence interval of a ratio of medians and the Mann-Whitney U test
(scipy.stats.mannwhitneyu) for its p-value; with fewer than MIN_REPS repetitions on a side
neither is computed and the verdict is "too few reps".
"""
import math
import statistics
from dataclasses import dataclass

import numpy as np
from scipy import stats as sps

MIN_REPS = 3       # repetitions per side below which no CI, p-value or verdict is given
RESAMPLES = 4000   # bootstrap resamples per confidence interval
UNSTABLE = 0.05    # 1.4826 MAD/median above this flags a case as unstable


def median(xs):
    """Median of xs, in the unit of xs."""
    return statistics.median(xs)


def mad(xs):
    """Median absolute deviation from the median (unscaled), in the unit of xs."""
    m = median(xs)
    return median(abs(x - m) for x in xs)


def iqr(xs):
    """Interquartile range (75th - 25th percentile, linear interpolation), unit of xs."""
    q1, q3 = np.percentile(xs, [25, 75])
    return float(q3 - q1)


def cv(xs):
    """Coefficient of variation: sample stdev / mean (unitless); None for < 2 values or mean 0."""
    if len(xs) < 2 or statistics.mean(xs) == 0:
        return None
    return statistics.stdev(xs) / statistics.mean(xs)


def is_unstable(xs, limit=UNSTABLE):
    """True when the robust dispersion 1.4826 * MAD / median of xs (an estimate of the CV
    that outliers do not dominate; the C harness's summary uses the same rule) exceeds
    `limit` (a fraction, 0.05 = 5%). Fewer than MIN_REPS values: nothing to judge."""
    if len(xs) < MIN_REPS or not median(xs):
        return False
    return 1.4826 * mad(xs) / median(xs) > limit


@dataclass(frozen=True)
class RatioCI:
    """median(b) / median(a) with its bootstrap confidence interval (unitless).

    low/high are None when a side has fewer than MIN_REPS values (or a has values <= 0);
    ratio is None when median(a) <= 0."""
    ratio: float | None
    low: float | None
    high: float | None
    level: float


def ratio_ci(a, b, level=0.95, seed=1, resamples=RESAMPLES):
    """Ratio of medians median(b)/median(a) with a `level` confidence interval.

    Percentile bootstrap over repetitions, each side resampled independently, `resamples`
    times, from numpy's default_rng(seed): the same inputs and seed give the same interval.
    (Percentile rather than BCa: the bootstrap distribution of a median of a few reps is
    discrete, where BCa's corrections are unreliable.)"""
    ratio = median(b) / median(a) if a and b and median(a) > 0 else None
    if ratio is None or min(len(a), len(b)) < MIN_REPS or min(a) <= 0:
        return RatioCI(ratio, None, None, level)
    ci = sps.bootstrap(
        (np.asarray(a, float), np.asarray(b, float)),
        lambda x, y, axis: np.median(y, axis=axis) / np.median(x, axis=axis),
        n_resamples=resamples, vectorized=True, paired=False, confidence_level=level,
        method="percentile", random_state=np.random.default_rng(seed)).confidence_interval
    return RatioCI(ratio, float(ci.low), float(ci.high), level)


def widening_ci(a1, b1, a2, b2, level=0.95, seed=1, resamples=RESAMPLES):
    """How much the time ratio b/a grows from one case to another: (median(b2) /
    median(a2)) / (median(b1) / median(a1)), a RatioCI (unitless; > 1: the gap widens).
    Percentile bootstrap as ratio_ci's, the four samples resampled independently; no CI
    when a sample has fewer than MIN_REPS values or a value <= 0."""
    samples = (a1, b1, a2, b2)
    if any(not xs or min(xs) <= 0 for xs in samples):
        return RatioCI(None, None, None, level)
    ratio = (median(b2) / median(a2)) / (median(b1) / median(a1))
    if min(len(xs) for xs in samples) < MIN_REPS:
        return RatioCI(ratio, None, None, level)
    ci = sps.bootstrap(
        tuple(np.asarray(xs, float) for xs in samples),
        lambda w, x, y, z, axis: (np.median(z, axis=axis) / np.median(y, axis=axis))
        / (np.median(x, axis=axis) / np.median(w, axis=axis)),
        n_resamples=resamples, vectorized=True, paired=False, confidence_level=level,
        method="percentile", random_state=np.random.default_rng(seed)).confidence_interval
    return RatioCI(ratio, float(ci.low), float(ci.high), level)


def compare_samples(a, b):
    """Two-sided Mann-Whitney U p-value that a and b come from the same distribution.

    None when a side has fewer than MIN_REPS values."""
    if min(len(a), len(b)) < MIN_REPS:
        return None
    return float(sps.mannwhitneyu(a, b, alternative="two-sided").pvalue)


def min_p_value(n_a, n_b):
    """Smallest two-sided Mann-Whitney p-value reachable with n_a and n_b values (no ties)."""
    return min(1.0, 2 / math.comb(n_a + n_b, n_a))


def verdict(ci, p, alpha=0.05, threshold=0.0):
    """Classify a RatioCI of b/a (times) and its p-value: 'faster' (b faster), 'slower',
    'no significant change' or 'too few reps'.

    A change needs the whole CI on one side of 1, p < alpha, and the ratio itself at least
    `threshold` (a fraction, 0.02 = 2%) away from 1."""
    if ci.low is None or p is None:
        return "too few reps"
    if p < alpha and ci.high < 1 and ci.ratio <= 1 - threshold:
        return "faster"
    if p < alpha and ci.low > 1 and ci.ratio >= 1 + threshold:
        return "slower"
    return "no significant change"


def median_ci(xs, level=0.95, seed=1, resamples=RESAMPLES):
    """Median of xs with a `level` percentile bootstrap CI, RatioCI-shaped (median, low,
    high, level) in the unit of xs; low and high None under MIN_REPS values. Seeded like
    ratio_ci: the same values and seed give the same interval."""
    m = median(xs)
    if len(xs) < MIN_REPS:
        return RatioCI(m, None, None, level)
    rng = np.random.default_rng(seed)
    meds = np.median(rng.choice(np.asarray(xs, float), (resamples, len(xs))), axis=1)
    low, high = np.percentile(meds, [(1 - level) / 2 * 100, (1 + level) / 2 * 100])
    return RatioCI(m, float(low), float(high), level)


def loglog_slope(points):
    """Slope of log(y) against log(x) by least squares over [(x, y)] (2 or more x)."""
    xs, ys = zip(*sorted(points))
    return float(np.polyfit(np.log(xs), np.log(ys), 1)[0])


def count_slope(points):
    """loglog_slope of exact counts [(x, count)] (e.g. bytes copied per append over list
    length or n): no CI, a count has no noise; None with fewer than two points or a count
    missing (None) or 0 (no work to grow from)."""
    points = list(points)
    if len(points) < 2 or any(not y for _, y in points):
        return None
    return loglog_slope(points)


def slope_ci(reps, seed=1):
    """RatioCI-shaped (slope, low, high) of loglog_slope over {x: [y per rep]}: the
    slope of the medians, with a 95% percentile bootstrap CI from resampling each x's reps
    (seeded: the same reps and seed give the same CI); low/high None when an x has fewer than
    MIN_REPS reps."""
    xs = sorted(reps)
    slope = loglog_slope((x_, median(reps[x_])) for x_ in xs)
    if min(len(reps[x_]) for x_ in xs) < MIN_REPS:
        return RatioCI(slope, None, None, 0.95)
    rng = np.random.default_rng(seed)
    logx = np.log(xs)
    medians = np.log([np.median(rng.choice(np.asarray(reps[x_], float),
                                           (RESAMPLES, len(reps[x_]))), axis=1)
                      for x_ in xs])  # (len(xs), RESAMPLES)
    slopes = np.polyfit(logx, medians, 1)[0]
    low, high = np.percentile(slopes, [2.5, 97.5])
    return RatioCI(slope, float(low), float(high), 0.95)


def _boot_slopes(reps, xs, rng):
    """RESAMPLES loglog slopes of {x: [y per rep]} over xs, each x's reps resampled."""
    medians = np.log([np.median(rng.choice(np.asarray(reps[x_], float),
                                           (RESAMPLES, len(reps[x_]))), axis=1)
                      for x_ in xs])  # (len(xs), RESAMPLES)
    return np.polyfit(np.log(xs), medians, 1)[0]


def excess_slope_ci(reps, control, seed=1):
    """How much faster y grows with x in `reps` than in `control`, both {x: [y per rep]}
    over the same x (2 or more, e.g. n; y e.g. ns per op): loglog_slope of reps' medians
    minus control's, RatioCI-shaped (excess, low, high) with a 95% percentile bootstrap CI
    from resampling every x's reps of both sides independently (seeded like slope_ci). A
    design whose time per op grows only as its control's (the same caches missed at the
    same n) has an excess near 0 (rounded to 1e-9: two equal slopes give 0, not float
    noise, and never -0). low/high None when an x of either side has fewer than
    MIN_REPS reps. Raises ValueError when the two do not cover the same x or cover fewer
    than two."""
    xs = sorted(reps)
    if xs != sorted(control) or len(xs) < 2:
        raise ValueError(f"excess_slope_ci: the design covers x {xs}, the control "
                         f"{sorted(control)}: they must be the same two or more")
    excess = round(loglog_slope((x_, median(reps[x_])) for x_ in xs)
                   - loglog_slope((x_, median(control[x_])) for x_ in xs), 9) + 0.0
    if min(len(side[x_]) for side in (reps, control) for x_ in xs) < MIN_REPS:
        return RatioCI(excess, None, None, 0.95)
    rng = np.random.default_rng(seed)
    slopes = _boot_slopes(reps, xs, rng) - _boot_slopes(control, xs, rng)
    low, high = np.percentile(slopes, [2.5, 97.5])
    return RatioCI(excess, float(low), float(high), 0.95)
