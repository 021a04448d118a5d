"""A chain of encounters, validated: what the chain runner is handed.

Like a ``Scenario``, a ``Chain`` is immutable and picklable, so one chain runs any number of
times in any process; each run's state (wounds, rounds, Edge) lives in the runner.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

from ..scenario import Scenario

# Ruling 27 (between encounters): what a rest and a boss's defeat give back, per rule system.
# Only 2097 says: a long rest regains 1 Edge point, defeating a boss restores 1 Edge to each
# survivor of the side that defeated it. Every other system gives nothing back.
LONG_REST_EDGE = {"sr2097": 1}
BOSS_EDGE = {"sr2097": 1}


@dataclass(frozen=True)
class Rest:
    """What happens in a gap between two encounters: wounds and stun healed, Karma or Edge
    regained (in the system's own units)."""

    heal: int = 0
    heal_stun: int = 0
    regain: int = 0
    edge: str = "none"  # as written: none or long_rest (``regain`` is what it gives)


@dataclass(frozen=True)
class Encounter:
    """One fight of the chain: its scenario (with the chain's ``set`` edits applied), whether
    it is a boss fight (ruling 27) and the carried side's fighters in it, by name."""

    name: str
    scenario: Scenario
    boss: bool
    members: tuple[str, ...]
    boss_regain: int = 0


@dataclass(frozen=True)
class Chain:
    """An ordered list of encounters, the side carried through them and its rests.

    ``roster``: every fighter of the carried side, by name, in order of first appearance;
    ``rests[k]``: the rest after encounter ``k``; ``stop``: ``side_down`` (the chain ends at
    the first encounter the side does not win) or ``never``; ``down``: ``carried`` or
    ``left_behind``; ``fresh``: every fight starts as its scenario says (no carry-over), the
    comparison a summary puts beside the chain. ``data``: what fixes its numbers, hashed for
    ``--resume``.
    """

    name: str
    description: str
    source: str
    side: str
    system: str
    roster: tuple[str, ...]
    weapons: tuple[int, ...]  # per member of the roster: weapons on its sheet
    encounters: tuple[Encounter, ...]
    rests: tuple[Rest, ...]
    stop: str
    down: str
    seed: int
    data: Any
    fresh: bool = False

    def freshened(self) -> Chain:
        """This chain with every fight starting afresh."""
        data = {**self.data, "fresh": True} if isinstance(self.data, dict) else self.data
        return replace(self, fresh=True, data=data)

    def empty_tally(self):
        """The empty tally of runs of this chain (the run layer asks each variant for it)."""
        from .tally import ChainTally

        return ChainTally.empty(self)
