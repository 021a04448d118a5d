"""The early stop of ``explain`` keeps its intervals honest: a simulated check of coverage.

``explain`` looks at every lever several times (``LOOK_AT``) and stops those clearly
outside the top ``TOP`` (``stop_settled``). Looking again and again at ordinary 95% intervals
would miss the truth more often than 5%; the intervals are instead taken at levels that spend
the 5% over the looks (``look_confidence``), so the interval reported for a lever, at the look
it stopped or at the last, covers the true difference at least 95% of the time.

Here the battles are simulated: each step of each lever is a stream of paired outcomes
(baseline, variant) with known cell probabilities, so its true difference is known. The very
functions ``explain`` runs decide the stops; the reported intervals must cover the truth at
the stated rate over many streams (fixed seed, so the test is deterministic), the early stop
must actually happen, and a lever truly in the top must rarely be stopped.
"""

from __future__ import annotations

from collections import Counter

import numpy as np
import pytest

from combatsim.sweeps.explain import (
    ALPHA,
    LOOKS,
    TOP,
    look_confidence,
    look_end,
    step_difference,
    stop_settled,
)

STREAMS = 300
BATTLES = 1000
# Per lever, its two steps' true differences (variant rate minus baseline's): a few that
# matter, several small, several none (the variant changes some battles either way).
EFFECTS = [(0.25, -0.2), (-0.18, 0.15), (0.12, -0.1), (0.1, 0.02), (0.07, -0.08), (0.05, 0.0)]
EFFECTS += [(0.03, -0.02), (0.02, 0.01), (0.0, 0.0), (0.0, 0.01), (-0.01, 0.0), (0.0, 0.0)]
BASE = 0.45  # the baseline's rate
CHANGED = 0.1  # share of battles a no-effect step still turns (both ways equally)


def _cells(difference: float) -> np.ndarray:
    """(both, baseline only, step only, neither) probabilities with that true difference."""
    base_only = CHANGED / 2 + max(0.0, -difference)
    step_only = CHANGED / 2 + max(0.0, difference)
    both = BASE - base_only
    return np.array([both, base_only, step_only, 1 - both - base_only - step_only])


def _stream(rng: np.random.Generator) -> tuple[list[tuple[float, list, int]], set[int]]:
    """One simulated explanation: per step (true difference, reported interval, lever), and
    the levers stopped early."""
    variants = {lever: [2 * lever + 1, 2 * lever + 2] for lever in range(len(EFFECTS))}
    truth = {2 * lever + 1 + i: d for lever, ds in enumerate(EFFECTS) for i, d in enumerate(ds)}
    pairs: Counter = Counter()
    stopped: dict[int, int] = {}
    start = 0
    for look in range(1, LOOKS + 1):
        stop = look_end(BATTLES, look, LOOKS)
        for lever, ks in variants.items():
            if lever in stopped:
                continue
            for k in ks:
                both, base_only, step_only, neither = rng.multinomial(
                    stop - start, _cells(truth[k])
                )
                pairs.update({(k, 1, 1): both, (k, 1, 0): base_only, (k, 0, 1): step_only})
                pairs[(k, 0, 0)] += neither
        if look < LOOKS:
            stop_settled(pairs, variants, stopped, look, LOOKS)
        start = stop
    steps = []
    for lever, ks in variants.items():
        level = look_confidence(stopped.get(lever, LOOKS), LOOKS)
        for k in ks:
            steps.append((truth[k], step_difference(pairs, k, level)["ci95"], lever))
    return steps, set(stopped)


@pytest.mark.slow
def test_intervals_cover_the_truth_at_the_stated_rate_despite_the_early_stop():
    rng = np.random.default_rng(20261126)
    covered = total = early = top_stopped = 0
    true_top = set(
        sorted(range(len(EFFECTS)), key=lambda lv: -max(map(abs, EFFECTS[lv])))[: TOP - 1]
    )
    for _ in range(STREAMS):
        steps, stopped = _stream(rng)
        early += len(stopped)
        top_stopped += bool(stopped & true_top)
        for truth, (low, high), _ in steps:
            total += 1
            covered += low <= truth <= high
    assert covered / total >= 1 - ALPHA, covered / total
    assert early >= STREAMS, "the rule must stop levers early, or it saves nothing"
    assert top_stopped / STREAMS <= ALPHA  # a lever clearly in the top is rarely stopped


def test_looks_spend_at_most_the_stated_error():
    spent = sum(1 - look_confidence(look, LOOKS) for look in range(1, LOOKS + 1))
    assert abs(spent - ALPHA) < 1e-12
    assert look_confidence(1, 1) == 1 - ALPHA  # one look (a full run): compare's 95%
    assert [look_end(1000, r, LOOKS) for r in range(1, LOOKS + 1)] == [63, 125, 250, 500, 750, 1000]
    assert look_end(1000, 1, 1) == 1000


def test_early_looks_are_stricter_than_the_last():
    """An early look (where a lever may stop on a few battles) spends little of the error;
    the last, where most levers end, most of it."""
    assert look_confidence(1, LOOKS) > 1 - ALPHA
    assert look_confidence(LOOKS, LOOKS) < look_confidence(1, LOOKS)
