"""The battle's dice: buffered draws from the battle's own generator.

A battle rolls a few dice at a time, hundreds of times; numpy is fast per array, slow per
call. ``Roller`` draws faces in blocks and hands them out as Python ints, so a battle costs
one numpy call per few hundred dice and stays a pure function of its seed.

Each kind of die (``low..high``) has its own block and its own *taker*: a closure that hands
out the next ``k`` faces of that block. Rule code on the hot path asks once for a taker
(``roller.taker(1, 6)``) and calls it, which costs one Python call per draw and no lookups.
Which faces a battle gets does not depend on how it asks for them: a block is refilled with
``max(BLOCK, k)`` fresh faces exactly when a request does not fit in what is left, whether
the request came through ``d``, ``faces``, ``below`` or a taker.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import numpy as np
from mypy_extensions import mypyc_attr

BLOCK = 512

Taker = Callable[[int], list[int]]


@mypyc_attr(allow_interpreted_subclasses=True)
class Roller:
    """Dice for one battle. Subclasses that script faces override ``_take`` (and get takers
    that route through it)."""

    # Where paths of an exact answer may meet (``engine.exact.EnumeratingRoller``): rule
    # code fetches it once per attack and calls ``checkpoint(where)`` only when it is set, so
    # a sampled battle pays one attribute read per attack for it.
    checkpoint: Callable[[Any], None] | None = None

    def __init__(self, rng: np.random.Generator | None):
        self.rng = rng
        self._takers: dict[tuple[int, int], Taker] = {}

    def taker(self, low: int, high: int) -> Taker:
        """A function ``take(k)`` returning the next ``k`` faces numbered ``low..high``."""
        take = self._takers.get((low, high))
        if take is None:
            take = self._takers[(low, high)] = self._make_taker(low, high)
        return take

    def _make_taker(self, low: int, high: int) -> Taker:
        if type(self)._take is not Roller._take:  # a scripted roller: every draw through it
            return lambda k: self._take(low, high, k)
        rng = self.rng
        # Only a scripted roller (which routes every draw through its ``_take``) has none.
        assert rng is not None, "a Roller without a generator must override _take"
        block: list[int] = []
        pos = size = 0

        def take(k: int) -> list[int]:
            nonlocal block, pos, size
            end = pos + k
            if end > size:
                block = block[pos:] + rng.integers(low, high + 1, size=max(BLOCK, k)).tolist()
                pos, end, size = 0, k, len(block)
            out = block[pos:end]
            pos = end
            return out

        return take

    def _take(self, low: int, high: int, k: int) -> list[int]:
        return self.taker(low, high)(k)

    def d(self, sides: int, k: int) -> list[int]:
        """``k`` faces of a die numbered 1..sides (the ``draw(sides, k)`` of the dice modules)."""
        return self.taker(1, sides)(k)

    def faces(self, kind: Any, k: int) -> list[int]:
        """``k`` faces of a Shadowrun pool die (1-6, or 0-7 for the D8 variant)."""
        return self.taker(kind.low, kind.top)(k)

    def chain_draw(self, kind: Any) -> Taker:
        return self.taker(kind.low, kind.top)

    def angle(self) -> float:
        """A uniformly random direction in radians."""
        # A roller without a generator scripts its angles (overrides this): checked once per
        # throw would be a cost on the hot path, so the checker is told so here.
        return float(self.rng.random()) * 2 * math.pi  # type: ignore[union-attr]

    def below(self, n: int) -> int:
        """A uniformly random integer in 0..n-1 (random targets, tie-breaks)."""
        return self.taker(0, n - 1)(1)[0]
