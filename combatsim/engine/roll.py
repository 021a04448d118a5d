"""The battle's dice: buffered draws from the battle's own generator.

A battle rolls a few dice at a time, hundreds of times; numpy is fast per array, slow per
call. ``Roller`` draws faces in blocks and hands them out as Python ints, so a battle costs
one numpy call per few hundred dice and stays a pure function of its seed.
"""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np

from ..dice.shadowrun import PoolDice

BLOCK = 512


class Roller:
    def __init__(self, rng: np.random.Generator):
        self.rng = rng
        self._blocks: dict[tuple[int, int], tuple[list[int], int]] = {}

    def _take(self, low: int, high: int, k: int) -> list[int]:
        key = (low, high)
        block, pos = self._blocks.get(key, ((), 0))
        if pos + k > len(block):
            block = (
                list(block[pos:]) + self.rng.integers(low, high + 1, size=max(BLOCK, k)).tolist()
            )
            pos = 0
        self._blocks[key] = (block, pos + k)
        return block[pos : pos + k]

    def d(self, sides: int, k: int) -> list[int]:
        """``k`` faces of a die numbered 1..sides (the ``draw(sides, k)`` of the dice modules)."""
        return self._take(1, sides, k)

    def faces(self, kind: PoolDice, k: int) -> list[int]:
        """``k`` faces of a Shadowrun pool die (1-6, or 0-7 for the D8 variant)."""
        return self._take(kind.low, kind.top, k)

    def chain_draw(self, kind: PoolDice) -> Callable[[int], list[int]]:
        return lambda k: self._take(kind.low, kind.top, k)

    def angle(self) -> float:
        """A uniformly random direction in radians."""
        return float(self.rng.random()) * 2 * math.pi

    def below(self, n: int) -> int:
        """A uniformly random integer in 0..n-1 (random targets, tie-breaks)."""
        return self._take(0, n - 1, 1)[0]
