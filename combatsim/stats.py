"""Statistics of a batch of battles: win rates with Wilson score intervals, turn counts, and the
difference between two paired batches (same battle seeds) with its interval and p-value.

Plain Python numbers in and out, so a summary built from these is ready for JSON. Floats the
summary reports are rounded to ``DECIMALS`` places: a batch's summary file is then the same
bytes on every machine, and no reader needs more than a millionth of a win rate.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from statistics import NormalDist

import numpy as np

from .errors import UsageError, check_range

DECIMALS = 6
CONFIDENCE = 0.95


def wilson_interval(successes: int, n: int, confidence: float = CONFIDENCE) -> tuple[float, float]:
    """The Wilson score interval for a proportion of ``successes`` out of ``n`` trials.

    With p = successes / n and z the two-sided normal quantile of ``confidence``::

        centre = (p + z^2 / 2n) / (1 + z^2 / n)
        half   = z / (1 + z^2 / n) * sqrt(p (1 - p) / n + z^2 / 4n^2)

    Unlike the normal-approximation interval it stays inside [0, 1] and is not empty at 0 or
    n successes, which matters for a side that (almost) never wins. With ``n = 0`` nothing is
    known and the interval is the whole of [0, 1].
    """
    check_range("n", n, 0)
    check_range("successes", successes, 0, n)
    if not 0 < confidence < 1:
        raise UsageError("confidence", confidence, "a number strictly between 0 and 1")
    if n == 0:
        return 0.0, 1.0
    z = NormalDist().inv_cdf(0.5 + confidence / 2)
    p = successes / n
    z2n = z * z / n
    centre = (p + z2n / 2) / (1 + z2n)
    half = z / (1 + z2n) * math.sqrt(p * (1 - p) / n + z2n / (4 * n))
    # At 0 or n successes one bound is exactly 0 or 1; say so rather than leave rounding dust.
    low = 0.0 if successes == 0 else max(0.0, centre - half)
    high = 1.0 if successes == n else min(1.0, centre + half)
    return low, high


def rate_with_interval(count: int, n: int) -> tuple[float | None, list[float]]:
    """``count / n`` and its 95% Wilson interval, rounded for a summary.

    The rate is ``None`` when ``n`` is 0 (no battle finished); the interval is then [0, 1].
    """
    low, high = wilson_interval(count, n, CONFIDENCE)
    return (None if n == 0 else rounded(count / n)), [rounded(low), rounded(high)]


def describe_turns(turns: Sequence[int] | np.ndarray) -> dict:
    """Mean, median, 10th and 90th percentiles and maximum of the battles' lengths in turns.

    Percentiles interpolate linearly between order statistics (numpy's default), so the
    median of 1, 2, 3, 4 is 2.5. With no battles every statistic is ``None``.
    """
    values = np.asarray(turns, dtype=float)
    if values.size == 0:
        return {"mean": None, "median": None, "p10": None, "p90": None, "max": None}
    p10, median, p90 = np.percentile(values, [10, 50, 90])
    return {
        "mean": rounded(values.mean()),
        "median": rounded(median),
        "p10": rounded(p10),
        "p90": rounded(p90),
        "max": int(values.max()),
    }


def rounded(x: float) -> float:
    return round(float(x), DECIMALS)


def describe_turn_counts(histogram: Sequence[int]) -> dict:
    """``describe_turns`` from a histogram: ``histogram[t]`` battles lasted ``t`` turns.

    Gives the same numbers as ``describe_turns`` on the expanded list (the mean from the exact
    integer total; percentiles by the same linear interpolation between order statistics),
    so a batch can be summarised without keeping one number per battle.
    """
    counts = [int(c) for c in histogram]
    n = sum(counts)
    if n == 0:
        return {"mean": None, "median": None, "p10": None, "p90": None, "max": None}
    total = sum(t * c for t, c in enumerate(counts))
    highest = max(t for t, c in enumerate(counts) if c)

    def order_statistic(k: int) -> int:  # the k-th smallest value, from 0
        seen = 0
        for t, c in enumerate(counts):
            seen += c
            if seen > k:
                return t
        return highest

    def percentile(q: float) -> float:
        position = (n - 1) * q
        below = math.floor(position)
        low, high = order_statistic(below), order_statistic(min(below + 1, n - 1))
        return low + (position - below) * (high - low)

    return {
        "mean": rounded(total / n),
        "median": rounded(percentile(0.5)),
        "p10": rounded(percentile(0.1)),
        "p90": rounded(percentile(0.9)),
        "max": highest,
    }


def half_width(rate: float | None, interval: Sequence[float]) -> float:
    """How far the interval reaches from the estimate, on its wider side (1 with no data).

    A Wilson interval is not symmetric about the rate; "within +-P" means both bounds are.
    """
    if rate is None:
        return 1.0
    return max(rate - interval[0], interval[1] - rate)


def paired_difference_interval(
    both: int, first_only: int, second_only: int, neither: int, confidence: float = CONFIDENCE
) -> tuple[float, float]:
    """Interval for ``p1 - p2`` from paired trials: Newcombe's hybrid score method (method 10).

    Each trial is run twice (here: battle ``i`` of scenario A and battle ``i`` of B, from the
    same seed) and lands in one of four cells: a success in both, in the first only, in the
    second only, in neither. With p1 = (both + first_only) / n and p2 = (both + second_only) /
    n, their Wilson intervals (l1, u1) and (l2, u2), and phi the correlation of the two
    outcomes::

        low  = D - sqrt((p1 - l1)^2 - 2 phi (p1 - l1)(u2 - p2) + (u2 - p2)^2)
        high = D + sqrt((p2 - l2)^2 - 2 phi (p2 - l2)(u1 - p1) + (u1 - p1)^2)

    where D = p1 - p2. As in Newcombe (1998, Statistics in Medicine 17: 2635-2650) phi is
    shrunk towards 0 (``ad - bc`` less ``n / 2`` when positive, 0 in between), which keeps the
    interval from getting too narrow when the pairs agree almost always. With ``phi = 0`` it is
    the unpaired square-and-add interval; the more the pairs agree (common random numbers),
    the narrower it gets. With no trials it is [-1, 1].
    """
    cells = (both, first_only, second_only, neither)
    for name, value in zip(("both", "first_only", "second_only", "neither"), cells, strict=True):
        check_range(name, value, 0)
    n = sum(cells)
    if n == 0:
        return -1.0, 1.0
    a, b, c, d = cells
    p1, p2 = (a + b) / n, (a + c) / n
    l1, u1 = wilson_interval(a + b, n, confidence)
    l2, u2 = wilson_interval(a + c, n, confidence)
    margins = (a + b) * (c + d) * (a + c) * (b + d)
    phi = 0.0
    if margins > 0:
        cross = a * d - b * c
        shrunk = cross - n / 2 if cross > n / 2 else (cross if cross < 0 else 0)
        phi = shrunk / math.sqrt(margins)
    diff = p1 - p2
    low = diff - math.sqrt(
        max(0.0, (p1 - l1) ** 2 - 2 * phi * (p1 - l1) * (u2 - p2) + (u2 - p2) ** 2)
    )
    high = diff + math.sqrt(
        max(0.0, (p2 - l2) ** 2 - 2 * phi * (p2 - l2) * (u1 - p1) + (u1 - p1) ** 2)
    )
    return max(-1.0, low), min(1.0, high)


def mcnemar_p_value(first_only: int, second_only: int) -> float:
    """Exact two-sided McNemar test: is a discordant pair as likely to go either way?

    Only pairs with different outcomes carry information about a difference; under "no
    difference" each is first-only with probability 1/2, so the p-value is twice the smaller
    binomial tail (at most 1). Computed in log space, exact to float precision for any count.
    """
    check_range("first_only", first_only, 0)
    check_range("second_only", second_only, 0)
    m = first_only + second_only
    k = min(first_only, second_only)
    if m == 0 or 2 * k == m:
        return 1.0
    log_half = m * math.log(0.5)

    def log_term(j: int) -> float:  # log P(X = j), X ~ Binomial(m, 1/2)
        return math.lgamma(m + 1) - math.lgamma(j + 1) - math.lgamma(m - j + 1) + log_half

    top = log_term(k)  # the terms grow up to m / 2, and k is below it: the last is the largest
    tail = math.exp(top) * math.fsum(math.exp(log_term(j) - top) for j in range(k + 1))
    return min(1.0, 2 * tail)


def paired_comparison(both: int, a_only: int, b_only: int, neither: int) -> dict:
    """A against B from paired battles (the same seeds): each rate with its Wilson interval,
    B's rate minus A's with Newcombe's paired 95% interval, the exact McNemar p-value, and
    whether the interval leaves out 0. The one reading of the four pair counts that
    ``compare``, sweeps and ``explain`` all print."""
    n = both + a_only + b_only + neither
    low, high = paired_difference_interval(both, b_only, a_only, neither)
    rate_a, ci_a = rate_with_interval(both + a_only, n)
    rate_b, ci_b = rate_with_interval(both + b_only, n)
    return {
        "battles": n,
        "a": rate_a,
        "ci95_a": ci_a,
        "b": rate_b,
        "ci95_b": ci_b,
        "difference": None if n == 0 else round((b_only - a_only) / n, 6),
        "ci95": [round(low, 6), round(high, 6)],
        "p_value": round(mcnemar_p_value(b_only, a_only), 6),
        "significant": bool(n and (low > 0 or high < 0)),
    }
