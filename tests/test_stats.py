"""Statistics of a batch: the Wilson score interval, the turn-count summary (from the values
and from a histogram), and the paired difference of two batches (Newcombe's interval, the
exact McNemar test).

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
from combatsim.stats import (
    describe_turn_counts,
    describe_turns,
    half_width,
    mcnemar_p_value,
    paired_difference_interval,
    rate_with_interval,
    wilson_interval,
)

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


@pytest.mark.slow
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


@given(st.lists(st.integers(0, 40), min_size=1, max_size=300))
def test_turn_statistics_from_a_histogram_are_those_of_the_values(turns):
    histogram = [0] * (max(turns) + 1)
    for t in turns:
        histogram[t] += 1
    assert describe_turn_counts(histogram) == describe_turns(turns)
    assert describe_turn_counts(histogram + [0, 0]) == describe_turns(turns)  # trailing zeros


def test_turn_statistics_of_an_empty_histogram_are_none():
    assert set(describe_turn_counts([0, 0, 0]).values()) == {None}


def test_half_width_is_the_wider_side():
    assert half_width(0.1, [0.05, 0.2]) == pytest.approx(0.1)
    assert half_width(0.9, [0.75, 0.95]) == pytest.approx(0.15)
    assert half_width(None, [0.0, 1.0]) == 1.0


# --- paired differences -----------------------------------------------------------------------


def test_paired_interval_reproduces_the_published_cavo_example():
    """Fagerland, Lydersen & Laake, Statistical Analysis of Contingency Tables (2017), ch. 8:
    complete response before and after consolidation therapy (Cavo et al., 2012), 59 / 6 / 16 /
    80 pairs; the Newcombe square-and-add interval is -0.1186 to -0.0046 (also the test of R's
    contingencytables package)."""
    low, high = paired_difference_interval(59, 6, 16, 80)
    assert (round(low, 4), round(high, 4)) == (-0.1186, -0.0046)


def test_paired_interval_without_correlation_is_the_square_and_add_interval():
    # a*d - b*c = 10*30 - 20*25 < 0 would give phi < 0; take a table whose cross product is
    # within n/2 of zero, so the shrunk phi is 0 and Newcombe's unpaired formula remains.
    a, b, c, d = 20, 20, 20, 20  # a*d - b*c = 0
    n = a + b + c + d
    p1, p2 = (a + b) / n, (a + c) / n
    l1, u1 = wilson_interval(a + b, n)
    l2, u2 = wilson_interval(a + c, n)
    expected = (
        p1 - p2 - math.sqrt((p1 - l1) ** 2 + (u2 - p2) ** 2),
        p1 - p2 + math.sqrt((p2 - l2) ** 2 + (u1 - p1) ** 2),
    )
    assert paired_difference_interval(a, b, c, d) == pytest.approx(expected, rel=1e-12)


@given(st.integers(0, 300), st.integers(0, 300), st.integers(0, 300), st.integers(0, 300))
def test_paired_interval_holds_the_difference_and_mirrors(a, b, c, d):
    n = a + b + c + d
    low, high = paired_difference_interval(a, b, c, d)
    assert -1.0 <= low <= high <= 1.0
    if n:
        assert low - 1e-12 <= (b - c) / n <= high + 1e-12
        swapped = paired_difference_interval(a, c, b, d)
        assert swapped == pytest.approx((-high, -low), abs=1e-12)
    else:
        assert (low, high) == (-1.0, 1.0)


def test_agreeing_pairs_give_a_narrower_interval_than_independent_ones():
    # The same margins (60% and 55% of 300), once with the pairs agreeing as often as they can
    # and once as if independent: the paired interval is much narrower.
    agreeing = paired_difference_interval(165, 15, 0, 120)
    independent = paired_difference_interval(99, 81, 66, 54)
    assert agreeing[1] - agreeing[0] < 0.6 * (independent[1] - independent[0])


@pytest.mark.parametrize(
    ("n", "p_first", "p_second", "both"),
    [(300, 0.55, 0.6, 0.5), (1000, 0.35, 0.3, 0.28), (300, 0.6, 0.6, 0.55)],
)
def test_paired_interval_covers_the_true_difference_about_95_times_in_100(
    n, p_first, p_second, both
):
    """Coverage by simulation, 2000 tables from a fixed seed (standard error about 0.005).

    The pairs agree strongly (as battles from the same seeds do): ignoring the pairing (phi = 0)
    would cover about 99.9% of the time, and a wrong sign of phi far less than 90%.
    """
    rng = np.random.default_rng(20240611)
    cells = [both, p_first - both, p_second - both, 1 - p_first - p_second + both]
    tables = rng.multinomial(n, cells, size=2000)
    truth = p_first - p_second
    covered = 0
    for a, b, c, d in tables:
        low, high = paired_difference_interval(int(a), int(b), int(c), int(d))
        covered += low <= truth <= high
    assert 0.925 <= covered / 2000 <= 0.98


@pytest.mark.parametrize(("b", "c"), [(10, 20), (0, 7), (6, 16), (480, 520), (3, 3), (0, 0)])
def test_mcnemar_p_value_is_the_exact_binomial_test(b, c):
    expected = 1.0 if b + c == 0 else stats.binomtest(b, b + c).pvalue
    assert mcnemar_p_value(b, c) == pytest.approx(expected, rel=1e-9)


def test_mcnemar_p_value_with_many_pairs_stays_finite():
    p = mcnemar_p_value(400_000, 401_000)
    assert p == pytest.approx(stats.binomtest(400_000, 801_000).pvalue, rel=1e-6)
