"""Statistics of a batch: the Wilson score interval and the turn-count summary.

Known values come from outside this module: hand calculation for the simplest cases, scipy's
own Wilson interval (``binomtest(...).proportion_ci(method="wilson")``) for the rest, and an
exact binomial sum for the interval's coverage.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from scipy import stats

from combatsim.errors import UsageError
from combatsim.stats import describe_turns, rate_with_interval, wilson_interval

Z95 = 1.959963984540054  # the 97.5% standard normal quantile


# --- worked examples --------------------------------------------------------------------------


def test_no_successes_in_ten_by_hand():
    # p = 0: the lower bound is 0 and the upper bound is z^2 / (n + z^2).
    low, high = wilson_interval(0, 10)
    assert low == 0.0
    assert high == pytest.approx(Z95**2 / (10 + Z95**2), rel=1e-12)
    assert high == pytest.approx(0.27753, abs=1e-5)


def test_five_of_ten_by_hand():
    # p = 1/2: centred on 1/2, half-width z / (1 + z^2/n) * sqrt(1/4n + z^2/4n^2).
    n, z = 10, Z95
    half = z / (1 + z * z / n) * math.sqrt(0.25 / n + z * z / (4 * n * n))
    low, high = wilson_interval(5, n)
    assert (low, high) == pytest.approx((0.5 - half, 0.5 + half), rel=1e-12)
    assert (low, high) == pytest.approx((0.2366, 0.7634), abs=1e-4)


def test_all_successes_mirror_no_successes():
    low, high = wilson_interval(10, 10)
    assert high == 1.0
    assert low == pytest.approx(1 - wilson_interval(0, 10)[1], rel=1e-12)


def test_no_trials_gives_the_whole_unit_interval():
    assert wilson_interval(0, 0) == (0.0, 1.0)
    assert rate_with_interval(0, 0) == (None, [0.0, 1.0])


@pytest.mark.parametrize(
    ("k", "n", "confidence"),
    [
        (1, 3, 0.95),
        (612, 1000, 0.95),
        (3, 1000, 0.95),
        (81, 263, 0.95),
        (40, 50, 0.9),
        (7, 9, 0.99),
    ],
)
def test_agrees_with_scipy(k, n, confidence):
    ci = stats.binomtest(k, n).proportion_ci(confidence_level=confidence, method="wilson")
    assert wilson_interval(k, n, confidence) == pytest.approx((ci.low, ci.high), rel=1e-9)


def test_rate_with_interval_rounds_for_the_summary():
    rate, (low, high) = rate_with_interval(1, 3)
    exact_low, exact_high = wilson_interval(1, 3)
    assert rate == 0.333333
    assert (low, high) == (round(exact_low, 6), round(exact_high, 6))


# --- properties -------------------------------------------------------------------------------


@given(st.integers(1, 10_000).flatmap(lambda n: st.tuples(st.integers(0, n), st.just(n))))
def test_interval_holds_the_observed_rate_and_stays_in_the_unit_interval(kn):
    k, n = kn
    low, high = wilson_interval(k, n)
    assert 0.0 <= low <= k / n <= high <= 1.0
    assert low < high


@given(st.integers(1, 2000).flatmap(lambda n: st.tuples(st.integers(0, n), st.just(n))))
def test_agrees_with_scipy_everywhere(kn):
    k, n = kn
    ci = stats.binomtest(k, n).proportion_ci(method="wilson")
    assert wilson_interval(k, n) == pytest.approx((ci.low, ci.high), rel=1e-9, abs=1e-12)


def test_more_confidence_and_fewer_trials_widen_the_interval():
    def width(k, n, c=0.95):
        low, high = wilson_interval(k, n, c)
        return high - low

    assert width(30, 100, 0.99) > width(30, 100) > width(30, 100, 0.8)
    assert width(3, 10) > width(30, 100) > width(300, 1000)


@pytest.mark.parametrize(("n", "p"), [(100, 0.3), (1000, 0.5), (1000, 0.05)])
def test_coverage_is_close_to_95_percent(n, p):
    """Exact coverage: the binomial probability of a k whose interval holds the true p.

    The Wilson interval's coverage oscillates around its nominal level; 0.93-0.97 holds at
    these n. A wrong z (say 1.645 or 2.576) would give about 0.90 or 0.99.
    """
    covered = [wilson_interval(k, n)[0] <= p <= wilson_interval(k, n)[1] for k in range(n + 1)]
    coverage = stats.binom.pmf(np.arange(n + 1), n, p)[covered].sum()
    assert 0.93 <= coverage <= 0.97


@pytest.mark.parametrize(
    ("k", "n", "confidence", "argument"),
    [
        (-1, 10, 0.95, "successes"),
        (11, 10, 0.95, "successes"),
        (0, -1, 0.95, "n"),
        (1, 10, 0.0, "confidence"),
        (1, 10, 1.0, "confidence"),
    ],
)
def test_bad_arguments_are_refused(k, n, confidence, argument):
    with pytest.raises(UsageError, match=f"^{argument}:"):
        wilson_interval(k, n, confidence)


# --- turns ------------------------------------------------------------------------------------


def test_turn_statistics_of_one_to_ten():
    # Linear interpolation between order statistics: the 10th percentile of 1..10 sits 0.9 of
    # the way from the 1st value to the 2nd, the 90th 0.1 of the way from the 9th to the 10th.
    assert describe_turns(range(1, 11)) == {
        "mean": 5.5,
        "median": 5.5,
        "p10": 1.9,
        "p90": 9.1,
        "max": 10,
    }


def test_turn_statistics_of_a_skewed_sample():
    turns = [2, 2, 2, 3, 3, 4, 12]
    summary = describe_turns(turns)
    assert summary["mean"] == pytest.approx(28 / 7, abs=1e-6)
    assert summary["median"] == 3.0
    assert summary["p10"] == 2.0
    assert summary["p90"] == pytest.approx(4 + 0.4 * 8, abs=1e-6)  # rank 5.4 of 0..6
    assert summary["max"] == 12 and isinstance(summary["max"], int)


def test_turn_statistics_of_nothing_are_none():
    assert set(describe_turns([]).values()) == {None}
