"""The statistics of a design search: screening looks that drop candidates, then fresh battles.

A search tries many make-ups of a side; each one's rates are estimated from battles. Picking the
best-looking of many noisy estimates flatters the winner (the winner's curse), so the figures
and the "hits the targets" verdict of a reported design never come from the battles that chose
it:

1. **Screening.** Every candidate runs the first ``FIRST_LOOK`` battles; at each look the
   battles double, up to ``battles``. After a look, a candidate is dropped when one of its
   targets' ``DROP_CONFIDENCE`` intervals lies wholly outside the target (it surely misses),
   and of the rest only the better half (by ``shortfall``, the worst target's standardized
   distance from its range) runs on, never fewer than ``KEEP_AT_LEAST`` times the designs
   wanted: successive halving, so the battles go to candidates that can still hit.
2. **Confirmation.** The ``top`` best survivors run ``battles`` **fresh** battles (battle
   indexes the screening never used). Their reported rates and 95% intervals come from these
   only, and a design is said to **hit** its targets only when every target's Clopper-Pearson
   interval at level ``1 - alpha / (top x targets)`` lies inside the target. The fresh battles
   do not depend on how the design was chosen, so by the union bound the chance that *any*
   reported "hits" is wrong is at most ``alpha`` (5%), however many candidates were screened.
   ``tests/test_design_race.py`` checks it on simulated streams.

Everything here is a function of integer counts, so the same counts give the same decisions
whatever ran the battles (one process, many, a cluster).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from statistics import NormalDist
from typing import Any

from ..stats import wilson_interval
from .targets import Aim

ALPHA = 0.05  # the chance that any reported "hits" is wrong, at most
FIRST_LOOK = 16  # battles of every candidate at the first look
DROP_CONFIDENCE = 0.99  # a candidate whose interval at this level is outside a target drops
KEEP_AT_LEAST = 4  # times the designs wanted: successive halving never keeps fewer
TOLERANCE = 0.05  # an '=' target means within this of its value

Counts = Sequence[tuple[int, int]]  # per target: (battles the rate counts, battles)


@dataclass(frozen=True)
class Goal:
    """A target as a range of rates: ``low`` to ``high``, both counted as hits."""

    aim: Aim
    low: float
    high: float

    @classmethod
    def of(cls, aim: Aim, tolerance: float = TOLERANCE) -> Goal:
        if aim.op == "in" and aim.high is not None:
            return cls(aim, aim.value, aim.high)
        if aim.op == "<=":
            return cls(aim, 0.0, aim.value)
        if aim.op == ">=":
            return cls(aim, aim.value, 1.0)
        return cls(aim, max(0.0, aim.value - tolerance), min(1.0, aim.value + tolerance))

    @property
    def text(self) -> str:
        if self.aim.op == "=":
            return f"{self.aim.text} (+-{(self.high - self.low) / 2:g})"
        return self.aim.text

    def inside(self, interval: Sequence[float]) -> bool:
        return self.low <= interval[0] and interval[1] <= self.high

    def outside(self, interval: Sequence[float]) -> bool:
        return interval[1] < self.low or interval[0] > self.high

    def distance(self, rate: float) -> float:
        """How far ``rate`` is from the range (0 inside it)."""
        return max(self.low - rate, rate - self.high, 0.0)

    def shortfall(self, count: int, n: int) -> float:
        """The estimate's signed distance from the range in standard errors: negative inside
        (how deep), positive outside (how far)."""
        rate = (count + 0.5) / (n + 1)
        se = math.sqrt(rate * (1 - rate) / (n + 1))
        signed = max(self.low - rate, rate - self.high)
        return signed / se


def exact_interval(count: int, n: int, confidence: float) -> tuple[float, float]:
    """Clopper-Pearson: covers the true rate at least ``confidence`` of the time, always
    (its ends are quantiles of beta laws, found here by bisection)."""
    if n == 0:
        return 0.0, 1.0
    tail = (1 - confidence) / 2
    low = 0.0 if count == 0 else _beta_quantile(tail, count, n - count + 1)
    high = 1.0 if count == n else _beta_quantile(1 - tail, count + 1, n - count)
    return low, high


def _beta_quantile(q: float, a: float, b: float) -> float:
    low, high = 0.0, 1.0
    for _ in range(60):  # 2**-60: far below any rate a summary shows
        mid = (low + high) / 2
        if beta_cdf(mid, a, b) < q:
            low = mid
        else:
            high = mid
    return (low + high) / 2


def beta_cdf(x: float, a: float, b: float) -> float:
    """The regularized incomplete beta function I_x(a, b), by its continued fraction
    (modified Lentz), on the side where it converges fast."""
    if x <= 0:
        return 0.0
    if x >= 1:
        return 1.0
    front = math.exp(
        math.lgamma(a + b) - math.lgamma(a) - math.lgamma(b) + a * math.log(x) + b * math.log1p(-x)
    )
    if x < (a + 1) / (a + b + 2):
        return front * _fraction(x, a, b) / a
    return 1 - front * _fraction(1 - x, b, a) / b


def _fraction(x: float, a: float, b: float) -> float:
    tiny = 1e-300
    c, d = 1.0, 1 - (a + b) * x / (a + 1)
    d = 1 / (d if abs(d) > tiny else tiny)
    result = d
    for m in range(1, 10_000):
        for numerator in (
            m * (b - m) * x / ((a + 2 * m - 1) * (a + 2 * m)),
            -(a + m) * (a + b + m) * x / ((a + 2 * m) * (a + 2 * m + 1)),
        ):
            d = 1 + numerator * d
            d = 1 / (d if abs(d) > tiny else tiny)
            c = 1 + numerator / c
            c = c if abs(c) > tiny else tiny
            result *= c * d
        if abs(c * d - 1) < 1e-15:
            break
    return result


def looks(battles: int) -> list[int]:
    """The battles run by the end of each screening look: ``FIRST_LOOK`` doubling to
    ``battles`` (one look when that is no more than ``FIRST_LOOK``)."""
    ends = []
    end = FIRST_LOOK
    while end < battles:
        ends.append(end)
        end *= 2
    return [*ends, battles]


@dataclass
class Race:
    """The screening and confirmation of ``count`` candidates against ``goals``.

    ``simplicity[c]`` orders equally sure candidates (fewer members, fewer kinds first).
    The caller runs battles and hands back counts; ``dropped[c]`` says at which look and why
    a candidate stopped.
    """

    goals: Sequence[Goal]
    simplicity: Sequence[tuple]
    battles: int
    top: int = 5
    alpha: float = ALPHA
    dropped: dict[int, tuple[int, str]] = field(default_factory=dict)

    @property
    def ends(self) -> list[int]:
        return looks(self.battles)

    @property
    def hit_confidence(self) -> float:
        return 1 - self.alpha / (self.top * len(self.goals))

    def worst(self, counts: Counts) -> float:
        return max(goal.shortfall(k, n) for goal, (k, n) in zip(self.goals, counts, strict=True))

    def after_look(self, look: int, live: Sequence[int], counts: dict[int, Counts]) -> list[int]:
        """The candidates of ``live`` that run on after look ``look`` (1-based), given each
        one's counts so far; the others are entered in ``dropped``."""
        running = []
        for c in live:
            missed = self._surely_missed(counts[c])
            if missed is None:
                running.append(c)
            else:
                self.dropped[c] = (look, f"misses {missed}")
        keep = max(KEEP_AT_LEAST * self.top, math.ceil(len(live) / 2))
        ranked = sorted(running, key=lambda c: (self.worst(counts[c]), self.simplicity[c], c))
        for c in ranked[keep:]:
            self.dropped[c] = (look, "halved")
        return sorted(ranked[:keep])

    def _surely_missed(self, counts: Counts) -> str | None:
        for goal, (k, n) in zip(self.goals, counts, strict=True):
            if n and goal.outside(wilson_interval(k, n, DROP_CONFIDENCE)):
                return goal.text
        return None

    def finalists(self, live: Sequence[int], counts: dict[int, Counts]) -> list[int]:
        """The ``top`` to confirm: those whose estimates lie surely inside every target
        (simplest first), then the rest by how close they came."""
        z = NormalDist().inv_cdf(1 - (1 - self.hit_confidence) / 2)

        def key(c: int) -> tuple:
            worst = self.worst(counts[c])
            return (worst > -z, self.simplicity[c] if worst <= -z else (), worst, c)

        chosen = sorted(live, key=key)[: self.top]
        for c in live:
            if c not in chosen:
                self.dropped.setdefault(c, (len(self.ends), "not among the best"))
        return chosen

    def verdict(self, counts: Counts) -> str:
        """``hits`` (every target's exact interval at ``hit_confidence`` inside it),
        ``misses`` (some target's 95% interval wholly outside it) or ``may hit``."""
        level = self.hit_confidence
        pairs = list(zip(self.goals, counts, strict=True))
        if all(goal.inside(exact_interval(k, n, level)) for goal, (k, n) in pairs):
            return "hits"
        if any(goal.outside(wilson_interval(k, n)) for goal, (k, n) in pairs if n):
            return "misses"
        return "may hit"

    def rank(self, finalists: Sequence[int], counts: dict[int, Counts]) -> list[int]:
        """Surest first (hits, may hit, misses), then simplest, then closest."""
        order = {"hits": 0, "may hit": 1, "misses": 2}
        return sorted(
            finalists,
            key=lambda c: (
                order[self.verdict(counts[c])],
                self.simplicity[c],
                self.worst(counts[c]),
                c,
            ),
        )


def screen(
    race: Race, count: int, run: Callable[[list[int], int, int], dict[int, Counts] | None]
) -> list[int] | None:
    """Every look of the screening: ``run(live, start, stop)`` runs battles ``start .. stop -
    1`` of the live candidates and returns every live one's counts so far (None: interrupted,
    then so is this). Returns the finalists."""
    live = list(range(count))
    start = 0
    counts: dict[int, Counts] = {}
    for look, stop in enumerate(race.ends, 1):
        found = run(live, start, stop)
        if found is None:
            return None
        counts.update(found)
        if look < len(race.ends):
            live = race.after_look(look, live, counts)
        start = stop
    return race.finalists(live, counts)


def describe(race: Race) -> dict[str, Any]:
    """For the summary: the rule, stated."""
    return {
        "looks": race.ends,
        "drop_confidence": DROP_CONFIDENCE,
        "keep_at_least": KEEP_AT_LEAST * race.top,
        "confirmation_battles": race.battles,
        "false_hit_chance": race.alpha,
        "hit_confidence": round(race.hit_confidence, 6),
    }
