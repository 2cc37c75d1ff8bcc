"""Tests for reports/stats.py: location and spread, bootstrap CI of a ratio, Mann-Whitney verdicts.

Run from the repository root with Debian's interpreter:
    /usr/bin/python3 -m pytest -q tests/python/test_stats.py
"""
import statistics
import sys
from pathlib import Path

import numpy as np
import pytest

REPO = Path(__file__).resolve().parents[2]
sys.dont_write_bytecode = True  # no reports/__pycache__ in the work tree
sys.path.insert(0, str(REPO / "reports"))
import stats  # noqa: E402


def noisy(center, spread, k, seed):
    """k values around `center` with a relative normal spread, reproducible for a seed."""
    return list(center * (1 + spread * np.random.default_rng(seed).standard_normal(k)))


def test_location_and_spread():
    xs = [1, 2, 3, 4, 100]
    assert stats.median(xs) == 3
    assert stats.mad(xs) == 1  # deviations 2, 1, 0, 1, 97
    assert stats.iqr(xs) == 2  # quartiles 2 and 4
    assert stats.cv(xs) == pytest.approx(statistics.stdev(xs) / 22)
    assert stats.median([10, 20, 30, 100]) == 25 and stats.mad([10, 20, 30, 100]) == 10
    assert stats.cv([5]) is None and stats.cv([0, 0]) is None


def test_unstable_flag():
    assert not stats.is_unstable([100, 101, 99, 100, 102])
    assert stats.is_unstable([100, 130, 90, 120, 95])  # 1.4826 * MAD / median ~ 15%
    assert stats.is_unstable([100, 103, 97], limit=0.03) and not stats.is_unstable([100, 103, 97])
    assert not stats.is_unstable([100])  # one rep: nothing to judge


def test_ratio_ci_contains_true_ratio_and_is_seeded():
    a, b = noisy(100, 0.02, 15, seed=1), noisy(200, 0.02, 15, seed=2)
    ci = stats.ratio_ci(a, b, seed=7)
    assert ci.ratio == pytest.approx(stats.median(b) / stats.median(a))
    assert 1.9 < ci.low < 2 < ci.high < 2.1
    assert ci.level == 0.95 and stats.RESAMPLES >= 2000
    assert stats.ratio_ci(a, b, seed=7) == ci  # deterministic for a seed
    other = stats.ratio_ci(a, b, seed=8)
    assert other != ci and other.low < 2 < other.high
    narrow = stats.ratio_ci(a, b, level=0.5, seed=7)
    assert ci.low < narrow.low < narrow.high < ci.high


def test_ratio_ci_on_tiny_samples_gives_no_interval():
    ci = stats.ratio_ci([10, 12], [20, 22, 24])
    assert ci.ratio == pytest.approx(22 / 11) and ci.low is None and ci.high is None
    assert stats.ratio_ci([0, 0, 0], [1, 2, 3]).ratio is None
    assert stats.compare_samples([10, 12], [20, 22, 24]) is None
    assert stats.verdict(ci, None) == "too few reps"


def test_identical_samples_are_no_significant_change():
    a = noisy(100, 0.05, 10, seed=3)
    p = stats.compare_samples(a, list(a))
    assert p == 1.0
    ci = stats.ratio_ci(a, list(a))
    assert ci.ratio == 1 and ci.low < 1 < ci.high
    assert stats.verdict(ci, p) == "no significant change"


def test_clearly_faster_and_slower():
    a, b = noisy(100, 0.02, 8, seed=4), noisy(80, 0.02, 8, seed=5)
    p = stats.compare_samples(a, b)
    assert p < 0.001 and stats.compare_samples(b, a) == pytest.approx(p)
    assert stats.verdict(stats.ratio_ci(a, b), p) == "faster"
    assert stats.verdict(stats.ratio_ci(b, a), p) == "slower"
    assert stats.verdict(stats.ratio_ci(a, b), p, alpha=p / 2) == "no significant change"


def test_threshold_hides_small_significant_changes():
    a, b = noisy(100, 0.001, 10, seed=6), noisy(99, 0.001, 10, seed=7)  # 1% faster
    ci, p = stats.ratio_ci(a, b), stats.compare_samples(a, b)
    assert ci.high < 1 and p < 0.001
    assert stats.verdict(ci, p, threshold=0) == "faster"
    assert stats.verdict(ci, p, threshold=0.02) == "no significant change"


def test_min_p_value():
    assert stats.min_p_value(3, 3) == pytest.approx(0.1)
    assert stats.min_p_value(5, 5) == pytest.approx(2 / 252)
    assert stats.compare_samples([1, 2, 3], [4, 5, 6]) == pytest.approx(0.1)  # that bound, reached


def grows(base, power, ns, spread, seed):
    """{n: 7 noisy reps of base x (n / ns[0]) ^ power}."""
    return {n: noisy(base * (n / ns[0]) ** power, spread, 7, seed + i) for i, n in enumerate(ns)}


def test_excess_slope_is_the_slope_over_the_controls():
    """A design growing as n^0.39 beside a control growing as n^0.39 (plain_array's random
    lookup, 100k to 1M) has no excess; as n^1 beside it, 0.61; each CI holds the true
    excess and is seeded; the two sides must cover the same n."""
    ns = (100000, 1000000)
    control = grows(1.2, 0.39, ns, 0.02, seed=10)
    same = stats.excess_slope_ci(grows(2.4, 0.39, ns, 0.02, seed=20), control)
    assert same.low < 0 < same.high and abs(same.ratio) < 0.05 and same.high - same.low < 0.1
    linear = stats.excess_slope_ci(grows(2.4, 1.0, ns, 0.02, seed=20), control)
    assert linear.low < 0.61 < linear.high and linear.ratio == pytest.approx(0.61, abs=0.05)
    assert stats.excess_slope_ci(grows(2.4, 1.0, ns, 0.02, seed=20), control) == linear
    exact = stats.excess_slope_ci({1: [2.0] * 3, 10: [20.0] * 3}, {1: [1.0] * 3, 10: [1.0] * 3})
    assert (exact.ratio, exact.low, exact.high) == (pytest.approx(1.0),) * 3
    few = stats.excess_slope_ci({1: [2.0, 2.0], 10: [20.0] * 3}, {1: [1.0] * 3, 10: [1.0] * 3})
    assert few.ratio == pytest.approx(1.0) and few.low is None
    with pytest.raises(ValueError, match="same two or more"):
        stats.excess_slope_ci(control, grows(1.0, 0.0, (100000, 300000), 0.02, seed=1))
    with pytest.raises(ValueError, match="same two or more"):
        stats.excess_slope_ci({1: [1.0] * 3}, {1: [1.0] * 3})
