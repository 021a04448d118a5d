"""A chain with the face a study reads, as it reads a scenario's: its runner, its variants,
its empty tally. Apart from the data (``model.ChainSpec``) so that the runner, the tally and
the variants, which read the data, sit below it.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

from ..scenario import Scenario
from .model import ChainSpec
from .runner import run_chain
from .tally import ChainTally
from .variants import apply_sets, check_encounter, values_at


@dataclass(frozen=True)
class Chain(ChainSpec):
    """A validated chain (``model.ChainSpec``) that a study runs and varies."""

    @property
    def runner(self):
        """What runs one run of this chain (the run layer's runner, as ``run_battle`` is a
        scenario's)."""
        return run_chain

    def with_sets(self, sets, label: str | None = None) -> ChainSpec:
        """This chain with fields set (``(FieldPath, value)`` pairs): a study's variant."""
        return apply_sets(self, sets, label)

    def with_scenario(self, k: int, scenario: Scenario) -> Chain:
        """This chain with encounter ``k`` fought on ``scenario`` (a designed opposition): the
        carried side as there, its fighters' names on no other side."""
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
        return values_at(self, path)

    def empty_tally(self):
        """The empty tally of runs of this chain (the run layer asks each variant for it)."""
        return ChainTally.empty(self)
