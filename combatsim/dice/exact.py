"""Exact finite distributions in rational arithmetic.

Every sampler in ``combatsim.dice`` has an exact twin built from ``Dist``; tests compare the
two, and ``combatsim odds`` prints the exact one. Fractions keep the numbers exact, so a
distribution that should sum to 1 sums to exactly 1.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Hashable, Iterable, Iterator, Mapping
from fractions import Fraction
from math import comb
from typing import Generic, TypeVar

from ..errors import UsageError

K = TypeVar("K", bound=Hashable)  # the outcome type of a distribution
T = TypeVar("T", bound=Hashable)  # the outcome type of a derived distribution


class Dist(Mapping[K, Fraction], Generic[K]):
    """An immutable mapping outcome -> probability (``Fraction``).

    Outcomes with zero mass are dropped: ``x in d`` is true only on the support, and ``d[x]``
    is ``Fraction(0)`` for any outcome off it. Generic in the outcome type, so a checker knows
    a ``Dist[int]`` can be summed and a ``Dist[tuple[bool, int]]`` unpacked.
    """

    __slots__ = ("_pmf",)

    def __init__(self, pmf: Mapping[K, Fraction] | Iterable[tuple[K, Fraction]]) -> None:
        items = pmf.items() if isinstance(pmf, Mapping) else pmf
        acc: dict[K, Fraction] = defaultdict(Fraction)
        for outcome, p in items:
            acc[outcome] += Fraction(p)
        self._pmf = {k: v for k, v in acc.items() if v != 0}

    # Mapping protocol -------------------------------------------------------------------
    def __getitem__(self, outcome: K) -> Fraction:
        return self._pmf.get(outcome, Fraction(0))

    def __contains__(self, outcome: object) -> bool:
        # Mapping's default asks __getitem__, which never raises KeyError here.
        return outcome in self._pmf

    def __iter__(self) -> Iterator[K]:
        return iter(self._pmf)

    def __len__(self) -> int:
        return len(self._pmf)

    def __repr__(self) -> str:
        body = ", ".join(f"{k!r}: {v}" for k, v in self.items())
        return f"Dist({{{body}}})"

    # Constructors -----------------------------------------------------------------------
    @classmethod
    def uniform(cls, outcomes: Iterable[T]) -> Dist[T]:
        support = list(outcomes)
        return Dist((o, Fraction(1, len(support))) for o in support)

    @classmethod
    def point(cls, outcome: T) -> Dist[T]:
        return Dist({outcome: Fraction(1)})

    @classmethod
    def bernoulli(cls, p: Fraction) -> Dist[int]:
        return Dist({1: Fraction(p), 0: 1 - Fraction(p)})

    @classmethod
    def binomial(cls, n: int, p: Fraction) -> Dist[int]:
        p = Fraction(p)
        return Dist((k, comb(n, k) * p**k * (1 - p) ** (n - k)) for k in range(n + 1))

    @classmethod
    def dice_sum(cls, n: int, sides: int, plus: int = 0) -> Dist[int]:
        """Sum of ``n`` fair dice numbered 1..sides, plus a constant."""
        return (
            (cls.uniform(range(1, sides + 1)) * n).map(lambda s: s + plus) if n else cls.point(plus)
        )

    # Combinators -------------------------------------------------------------------------
    def map(self, f: Callable[[K], T]) -> Dist[T]:
        """Distribution of ``f(X)``: mass of outcomes with the same image is merged."""
        return Dist((f(k), v) for k, v in self._pmf.items())

    def bind(self, f: Callable[[K], Dist[T]]) -> Dist[T]:
        """Distribution of the two-stage experiment: draw X, then draw from ``f(X)``."""
        return Dist((k2, v1 * v2) for k1, v1 in self._pmf.items() for k2, v2 in f(k1).items())

    def __add__(self: Dist[int], other: Dist[int]) -> Dist[int]:
        """Sum of two independent numeric variables (convolution)."""
        return Dist((a + b, pa * pb) for a, pa in self.items() for b, pb in other.items())

    def __mul__(self: Dist[int], n: int) -> Dist[int]:
        """Sum of ``n`` independent copies (``n >= 0``)."""
        if n < 0:  # the loop below would never end on a negative n
            raise UsageError("n", n, "an integer from 0 up")
        result, base = Dist.point(0), self
        while n:  # square-and-multiply keeps large sums cheap
            if n & 1:
                result = result + base
            base, n = base + base, n >> 1
        return result

    # Queries ------------------------------------------------------------------------------
    def total(self) -> Fraction:
        return sum(self._pmf.values(), Fraction(0))

    def prob(self, predicate: Callable[[K], bool]) -> Fraction:
        return sum((v for k, v in self._pmf.items() if predicate(k)), Fraction(0))

    def at_least(self: Dist[int], x: int) -> Fraction:
        return self.prob(lambda k: k >= x)

    def mean(self: Dist[int]) -> Fraction:
        return sum((k * v for k, v in self._pmf.items()), Fraction(0))

    def sorted_items(self) -> list[tuple[K, Fraction]]:
        return sorted(self._pmf.items())

    def to_floats(self) -> dict[K, float]:
        return {k: float(v) for k, v in self.sorted_items()}
