"""Goodness-of-fit helpers for checking samplers and whole battles against exact math.

False-failure budget: every statistical check in the suite calls ``assert_fits`` with the
default ``ALPHA = 1e-4``. With fewer than 100 such checks, a correct implementation run with
fresh seeds would fail somewhere with probability below 1%; the seeds are fixed, so a given
build either passes or fails deterministically. Sample sizes are chosen so that the rule
mistakes the tests target (a TN off by one, a missing re-roll) are rejected by a wide margin.
"""

from __future__ import annotations

from collections.abc import Hashable, Iterable, Mapping
from fractions import Fraction

import numpy as np
from scipy import stats

ALPHA = 1e-4
MIN_EXPECTED = 5.0


def chi_square_p(observed: Mapping[Hashable, int], exact: Mapping[Hashable, Fraction]) -> float:
    """p-value of Pearson's chi-square test of ``observed`` counts against ``exact`` probabilities.

    Outcomes expected fewer than ``MIN_EXPECTED`` times are pooled (in ascending outcome order) so
    the chi-square approximation holds. An observed outcome the exact law gives no mass is an
    immediate failure (p = 0).
    """
    if any(k not in exact or exact[k] == 0 for k, c in observed.items() if c):
        return 0.0
    n = sum(observed.values())
    keys = sorted(exact, key=_order_key)
    obs_bins, exp_bins = [], []
    acc_o, acc_e = 0, 0.0
    for k in keys:
        acc_o += observed.get(k, 0)
        acc_e += float(exact[k]) * n
        if acc_e >= MIN_EXPECTED:
            obs_bins.append(acc_o)
            exp_bins.append(acc_e)
            acc_o, acc_e = 0, 0.0
    if acc_e > 0 or acc_o:
        if obs_bins:
            obs_bins[-1] += acc_o
            exp_bins[-1] += acc_e
        else:
            obs_bins, exp_bins = [acc_o], [acc_e]
    if len(obs_bins) < 2:
        return 1.0
    exp_arr = np.array(exp_bins)
    exp_arr *= n / exp_arr.sum()
    return float(stats.chisquare(np.array(obs_bins), exp_arr).pvalue)


def assert_fits(
    samples: Iterable[Hashable], exact: Mapping[Hashable, Fraction], alpha: float = ALPHA
):
    """Fail when ``samples`` are implausible under ``exact`` at level ``alpha``."""
    counts: dict[Hashable, int] = {}
    for s in samples:
        key = s.item() if hasattr(s, "item") else s
        counts[key] = counts.get(key, 0) + 1
    p = chi_square_p(counts, exact)
    assert p >= alpha, f"sampled distribution does not fit the exact one: p = {p:.3g} < {alpha}"
    return p


def _order_key(k: Hashable):
    return (0, k) if isinstance(k, int | float) else (1, repr(k))
