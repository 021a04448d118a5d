"""Every way a piece of rule code can go, with its exact probability.

Rule code draws its dice and then branches on them. To know the exact distribution of what it
does, run it once per way the draws can fall: ``explore(run)`` calls ``run(choose)`` again and
again, and ``run`` asks ``choose(options)`` wherever it would draw at random (``options`` are
``(value, probability)`` pairs summing to 1). Each call of ``run`` follows one path through the
choices, depth first, until every path has been taken once; the outcomes ``run`` returns are
summed, weighted by the product of the probabilities chosen along the way.

This is the "same rules, not a second copy" mechanism of ``combatsim odds attack``: the rule
system's own attack runs against a dice source that chooses instead of sampling. ``run`` must
be deterministic given its choices (the same choices give the same calls of ``choose`` with the
same options), which rule code is: all its randomness comes from the dice.

The number of paths is the product of the options met along each path, so a caller chooses
among outcomes of whole tests (a dice pool's successes) rather than single faces where it can,
and gives a ``limit``: past it ``explore`` stops with ``TooManyPaths`` rather than run for
hours.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Hashable, Sequence
from fractions import Fraction
from typing import Any, TypeVar

from ..errors import Described, UsageError
from .exact import Dist

K = TypeVar("K", bound=Hashable)
Options = Sequence[tuple[Any, Fraction]]
Choose = Callable[[Options], Any]

DEFAULT_LIMIT = 1_000_000  # paths: under a minute of plain rule code


class TooManyPaths(UsageError):
    """The question has more ways to fall than the limit: ask a smaller one, or sample it."""


class _Path:
    """One run's choices: the first ``len(prefix)`` follow ``prefix``, the rest take option 0.
    ``taken`` records (index, number of options) of every choice made, for the next path; the
    path's probability is kept as an integer numerator and denominator (``num / den``):
    multiplying Fractions, each reduced by a gcd, was most of the cost of a path."""

    __slots__ = ("prefix", "taken", "num", "den")

    def __init__(self, prefix: list[tuple[int, int]]):
        self.prefix = prefix
        self.taken: list[tuple[int, int]] = []
        self.num = self.den = 1

    def __call__(self, options: Options) -> Any:
        depth = len(self.taken)
        index = self.prefix[depth][0] if depth < len(self.prefix) else 0
        self.taken.append((index, len(options)))
        value, p = options[index]
        self.num *= p.numerator
        self.den *= p.denominator
        return value


def explore(run: Callable[[Choose], K], limit: int = DEFAULT_LIMIT) -> Dist[K]:
    """The exact distribution of ``run(choose)``'s result over every path of its choices.

    Options of probability 0 must be left out by the caller (they would be paths of weight 0,
    walked for nothing). Raises ``TooManyPaths`` after ``limit`` paths."""
    # outcome -> denominator -> summed numerators: few denominators (powers of the dice's
    # sides), so the Fractions are made once each at the end
    mass: dict[K, dict[int, int]] = defaultdict(lambda: defaultdict(int))
    prefix: list[tuple[int, int]] = []
    for _ in range(limit):
        path = _Path(prefix)
        outcome = run(path)
        mass[outcome][path.den] += path.num
        taken = path.taken
        while taken and taken[-1][0] + 1 >= taken[-1][1]:
            taken.pop()  # every option of the last choice has been taken: back up
        if not taken:
            return Dist(
                (o, sum((Fraction(n, d) for d, n in parts.items()), Fraction(0)))
                for o, parts in mass.items()
            )
        index, count = taken[-1]
        taken[-1] = (index + 1, count)
        prefix = taken
    raise TooManyPaths(
        "question",
        Described(f"more than {limit:,} ways for the dice to fall"),
        "a smaller question (fewer shots or dice) to answer exactly",
    )


def options_of(dist: Dist[Any]) -> tuple[tuple[Any, Fraction], ...]:
    """A distribution as the options ``choose`` takes, in a fixed order (its sorted support
    when the outcomes can be sorted, else the order the distribution lists them)."""
    try:
        return tuple(dist.sorted_items())
    except TypeError:
        return tuple(dist.items())
