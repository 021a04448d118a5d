"""A chain of encounters, validated: the data the chain runner is handed.

Like a ``Scenario``, a ``Chain`` is immutable and picklable, so one chain runs any number of
times in any process; each run's state (wounds, rounds, Edge) lives in the runner.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import Any, Self

from ..scenario import Scenario
from ..scenario.model import FighterSpec, SideSpec


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
class ChainSpec:
    """An ordered list of encounters, the side carried through them and its rests: the data
    the runner, the tally and the variants read (``chain.Chain`` adds the face a study reads).

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
    # what reads a chain file's mapping into a chain (``loader.build_chain``): a study's
    # variant is the mapping with a field set, read again
    rebuild: Callable[..., ChainSpec] | None = field(default=None, compare=False, repr=False)

    @property
    def sides(self) -> tuple[SideSpec, ...]:
        """The carried side, its fighters as each first fought: what a study of the chain
        counts (a run's winner is the side when it completes the run; its casualties are how
        its fighters end the run)."""
        first: dict[str, FighterSpec] = {}
        for encounter in self.encounters:
            for fighter in encounter.scenario.fighters:
                if fighter.name in encounter.members:
                    first.setdefault(fighter.name, fighter)
        return (SideSpec(self.side, tuple(first[name] for name in self.roster)),)

    def freshened(self) -> Self:
        """This chain with every fight starting afresh."""
        data = {**self.data, "fresh": True} if isinstance(self.data, dict) else self.data
        return replace(self, fresh=True, data=data)
