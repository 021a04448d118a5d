"""The validated, immutable description of a battle: what the engine is handed.

Mutable battle state (boxes filled, ammunition, pools) lives in ``combatsim.engine``, never
here, so one ``Scenario`` can run any number of battles, in any process.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ..rules.base import RuleSystem
from ..rules.start import Start
from ..tactics.spec import Tactics
from .spec import Environment


@dataclass(frozen=True)
class FighterSpec:
    name: str
    side: str
    position: tuple[float, float]
    cover: str
    tactics: Tactics
    sheet: Any  # the rule system's Sheet model
    weapons: tuple[Any, ...]  # the rule system's Weapon models, in the sheet's order
    armor: Any | None  # the rule system's Armor model
    rule_tactics: Any = None  # the rule system's Tactics model, if it has one
    group: str | None = None  # the member entry's name when it made several copies
    start: Start | None = None  # how it starts a battle (``start:``); None: fresh


@dataclass(frozen=True)
class SideSpec:
    name: str
    fighters: tuple[FighterSpec, ...]


@dataclass(frozen=True)
class Scenario:
    name: str
    description: str
    source: str  # the file it was loaded from ("<data>" when built from a mapping)
    system: RuleSystem
    environment: Environment
    sides: tuple[SideSpec, ...]
    turn_limit: int
    seed: int
    victory: str
    data: Any  # the raw mapping it was validated from (for sweeps and hashing)

    @property
    def fighters(self) -> tuple[FighterSpec, ...]:
        return tuple(f for side in self.sides for f in side.fighters)
