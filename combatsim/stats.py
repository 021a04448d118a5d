"""Statistics of a batch of battles: win rates with Wilson score intervals, turn counts.

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
    return (None if n == 0 else _round(count / n)), [_round(low), _round(high)]


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
        "mean": _round(values.mean()),
        "median": _round(median),
        "p10": _round(p10),
        "p90": _round(p90),
        "max": int(values.max()),
    }


def _round(x: float) -> float:
    return round(float(x), DECIMALS)
