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

**Paths that meet.** The number of paths is the product of the options met along each path: a
burst of shots multiplies the paths of one shot by themselves. But two paths often reach the
same state (the same wounds after the first shot, by different dice), and from there on they
go alike. ``choose.meet(key)`` says so: "everything the rest of this run does depends only on
``key`` and the choices still to come". The first path to meet a key explores what follows
and remembers it; a later path meeting the same key stops there (``run`` is unwound by an
exception) and takes the remembered distribution, weighted by its own probability. The key is
the caller's promise: a key that leaves out something the rest reads gives wrong answers, so
whoever passes one tests that the answer is the same without it.

The paths still walked are limited (``limit``): past it ``explore`` stops with
``TooManyPaths`` rather than run for hours.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Hashable, Sequence
from fractions import Fraction
from typing import Any, Generic, TypeVar

from ..errors import Described, UsageError
from .exact import Dist

K = TypeVar("K", bound=Hashable)
Options = Sequence[tuple[Any, Fraction]]
Choose = Callable[[Options], Any]
# outcome -> denominator -> summed numerators: few denominators (powers of the dice's sides),
# so exact sums stay integer additions and the Fractions are made once each at the end
Mass = dict[Any, dict[int, int]]

DEFAULT_LIMIT = 1_000_000  # paths: under a minute of plain rule code


class TooManyPaths(UsageError):
    """The question has more ways to fall than the limit: ask a smaller one, or sample it."""


class _Known(Exception):
    """Unwinds a run that met a key whose future is already known."""


def _mass() -> Mass:
    return defaultdict(lambda: defaultdict(int))


class _Meeting:
    """A point paths meet at, being explored: where it is (``depth``: choices made before it),
    its key, the probability of reaching it (``num / den``), and the outcomes of the paths
    through it so far, relative to it."""

    __slots__ = ("depth", "key", "num", "den", "mass")

    def __init__(self, depth: int, key: Hashable, num: int, den: int):
        self.depth, self.key, self.num, self.den = depth, key, num, den
        self.mass: Mass = _mass()


class _Explorer(Generic[K]):
    """``explore``'s bookkeeping: the total mass, the meeting points open on the current
    path (outermost first) and the futures of those already explored."""

    def __init__(self) -> None:
        self.mass: Mass = _mass()
        self.open: list[_Meeting] = []
        self.known: dict[Hashable, Mass] = {}

    def add(self, outcomes: Mass, num: int, den: int) -> None:
        """Outcomes (relative masses) reached with probability ``num / den``: to the total and
        to every open meeting point, relative to it (unreduced products divide exactly)."""
        targets = [(self.mass, num, den)]
        targets += [(m.mass, num // m.num, den // m.den) for m in self.open]
        for outcome, parts in outcomes.items():
            for d, n in parts.items():
                for mass, pn, pd in targets:
                    mass[outcome][pd * d] += pn * n

    def close(self, depth: int) -> None:
        """Every path through the open points at ``depth`` or deeper has been taken."""
        while self.open and self.open[-1].depth >= depth:
            meeting = self.open.pop()
            self.known[meeting.key] = meeting.mass


class _Path:
    """One run's choices: the first ``len(prefix)`` follow ``prefix``, the rest take option 0.
    ``taken`` records (index, number of options) of every choice made, for the next path; the
    path's probability is kept as an integer numerator and denominator (``num / den``):
    multiplying Fractions, each reduced by a gcd, was most of the cost of a path."""

    __slots__ = ("prefix", "taken", "num", "den", "explorer", "stopped")

    def __init__(self, prefix: list[tuple[int, int]], explorer: _Explorer):
        self.prefix = prefix
        self.taken: list[tuple[int, int]] = []
        self.num = self.den = 1
        self.explorer = explorer
        self.stopped: Mass | None = None

    def __call__(self, options: Options) -> Any:
        depth = len(self.taken)
        index = self.prefix[depth][0] if depth < len(self.prefix) else 0
        self.taken.append((index, len(options)))
        value, p = options[index]
        self.num *= p.numerator
        self.den *= p.denominator
        return value

    def meet(self, key: Hashable) -> None:
        """The rest of the run depends only on ``key`` and the choices still to come."""
        explorer, depth = self.explorer, len(self.taken)
        known = explorer.known.get(key)
        if known is not None:
            self.stopped = known
            raise _Known
        if any(m.depth == depth and m.key == key for m in explorer.open):
            return  # passing again through the point being explored
        explorer.open.append(_Meeting(depth, key, self.num, self.den))


def explore(run: Callable[[Choose], K], limit: int = DEFAULT_LIMIT) -> Dist[K]:
    """The exact distribution of ``run(choose)``'s result over every path of its choices.

    Options of probability 0 must be left out by the caller (they would be paths of weight 0,
    walked for nothing). Raises ``TooManyPaths`` after ``limit`` paths."""
    explorer: _Explorer[K] = _Explorer()
    prefix: list[tuple[int, int]] = []
    for _ in range(limit):
        path = _Path(prefix, explorer)
        try:
            outcome = run(path)
            explorer.add({outcome: {1: 1}}, path.num, path.den)
        except _Known:
            assert path.stopped is not None
            explorer.add(path.stopped, path.num, path.den)
        taken = path.taken
        while taken and taken[-1][0] + 1 >= taken[-1][1]:
            taken.pop()  # every option of the last choice has been taken: back up
        explorer.close(len(taken))
        if not taken:
            return Dist(
                (o, sum((Fraction(n, d) for d, n in parts.items()), Fraction(0)))
                for o, parts in explorer.mass.items()
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
