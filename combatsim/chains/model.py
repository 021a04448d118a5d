"""A chain of encounters, validated: what the chain runner is handed.

Like a ``Scenario``, a ``Chain`` is immutable and picklable, so one chain runs any number of
times in any process; each run's state (wounds, rounds, Edge) lives in the runner.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import Any

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
    # what reads a chain file's mapping into a Chain (``loader.build_chain``): a study's
    # variant is the mapping with a field set, read again
    rebuild: Callable[..., Chain] | None = field(default=None, compare=False, repr=False)

    # --- the face a study reads, as it reads a scenario's ---------------------------------

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

    @property
    def runner(self):
        """What runs one run of this chain (the run layer's runner, as ``run_battle`` is a
        scenario's)."""
        from .runner import run_chain

        return run_chain

    def with_sets(self, sets, label: str | None = None) -> Chain:
        """This chain with fields set (``(FieldPath, value)`` pairs): a study's variant."""
        from .variants import apply_sets

        return apply_sets(self, sets, label)

    def with_scenario(self, k: int, scenario: Scenario) -> Chain:
        """This chain with encounter ``k`` fought on ``scenario`` (a designed opposition): the
        carried side as there, its fighters' names on no other side."""
        from .variants import check_encounter

        old = self.encounters[k]
        side = next((s for s in scenario.sides if s.name == self.side), None)
        members = tuple(f.name for f in side.fighters) if side is not None else ()
        encounter = replace(old, scenario=scenario, members=members)
        check_encounter(self, encounter)
        encounters = (*self.encounters[:k], encounter, *self.encounters[k + 1 :])
        data = dict(self.data) if isinstance(self.data, dict) else {}
        data["designed"] = [k, repr(scenario.data)]
        return replace(self, encounters=encounters, data=data)

    def values_at(self, path) -> list[Any]:
        """The values the chain file gives at a field path (a study's baseline row)."""
        from .variants import values_at

        return values_at(self, path)

    def freshened(self) -> Chain:
        """This chain with every fight starting afresh."""
        data = {**self.data, "fresh": True} if isinstance(self.data, dict) else self.data
        return replace(self, fresh=True, data=data)

    def empty_tally(self):
        """The empty tally of runs of this chain (the run layer asks each variant for it)."""
        from .tally import ChainTally

        return ChainTally.empty(self)
