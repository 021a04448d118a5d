"""Dice that choose instead of sampling: a battle's ``Roller`` for exact answers.

``EnumeratingRoller(choose)`` hands the rule code every face it asks for through ``choose``
(``combatsim.dice.paths``), one die at a time, each face with its probability: run under
``paths.explore``, the rule code's own branches are walked once per way its dice can fall. A
rule system that can say more than face by face (a dice pool's successes at once) arms its
fighters with that through ``ExactHooks.exact_dice``; faces are the fallback.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable
from fractions import Fraction
from functools import cache

from ..dice.paths import Choose
from .roll import Roller


@cache
def _faces(low: int, high: int) -> tuple[tuple[int, Fraction], ...]:
    p = Fraction(1, high - low + 1)
    return tuple((face, p) for face in range(low, high + 1))


class EnumeratingRoller(Roller):
    """Every face a choice of ``choose``; no generator.

    ``state_key``, when set, tells the state of the battle that matters to what the run
    returns (``combatsim.exact`` sets it): a rule system's ``checkpoint(where)`` then lets
    paths that reach the same ``where`` in the same state meet (``paths``' ``meet``)."""

    def __init__(self, choose: Choose):
        super().__init__(None)
        self.choose = choose
        self.state_key: Callable[[], Hashable] | None = None

    def checkpoint(self, where: Hashable) -> None:
        meet = getattr(self.choose, "meet", None)
        if meet is not None and self.state_key is not None:
            meet((where, self.state_key()))

    def _take(self, low: int, high: int, k: int) -> list[int]:
        faces, choose = _faces(low, high), self.choose
        return [choose(faces) for _ in range(k)]

    def angle(self) -> float:
        """A direction cannot be enumerated: refused (a grenade's odds need where it lands)."""
        from ..errors import UsageError

        raise UsageError(
            "--weapon", "a grenade", "an attack whose dice decide it (not where a grenade lands)"
        )
