"""The scenario file's generic shape, independent of the rule system.

Rule-system fields (a combatant's attributes, a weapon's damage) are validated by the
system's own models in ``combatsim.rules``; this module validates everything around them.
Unknown keys are refused everywhere.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from ..bounds import (
    MAX_DISTANCE,
    MAX_MEMBERS,
    MAX_SEED,
    MAX_SIDES,
    STRICT,
    Coordinate,
    Spacing,
)
from ..names import Name
from .start import StartFile

Visibility = Literal["normal", "full_darkness", "glare", "mist", "reduced_light", "smoke"]
CoverLevel = Literal["none", "partial", "full", "hidden"]


class Strict(BaseModel):
    model_config = STRICT


class RulesSpec(Strict):
    system: str = "sr-classic"
    options: dict[str, Any] = Field(default_factory=dict)


class CoverPoint(Strict):
    position: tuple[Coordinate, Coordinate] = Field(description="[x, y] in meters")
    cover: Literal["partial", "full"] = "partial"


class Environment(Strict):
    visibility: Visibility = "normal"
    ground: Literal["normal", "difficult"] = "normal"
    melee_range: float = Field(
        2.0, gt=0, le=MAX_DISTANCE, description="meters within which fighters are in melee"
    )
    cover_points: tuple[CoverPoint, ...] = ()
    escape_distance: float = Field(
        40.0,
        gt=0,
        le=MAX_DISTANCE,
        description="a fighter falling back that gets this far from every standing enemy has "
        "fled: it is out of the fight",
    )


class MemberSpec(BaseModel):
    """A member entry: these keys, plus any sheet field of the rule system as an override."""

    model_config = ConfigDict(extra="allow", frozen=True, allow_inf_nan=False)

    name: Name | None = None
    archetype: str | None = None
    count: int = Field(
        1, ge=0, le=100, description="copies of the member; 0: none (left out of the fight)"
    )
    position: tuple[Coordinate, Coordinate] = Field((0.0, 0.0), description="[x, y] in meters")
    spacing: tuple[Spacing, Spacing] = Field(
        (0.0, 2.0), description="[dx, dy] in meters between copies (count above 1)"
    )
    cover: CoverLevel = "none"
    tactics: dict[str, Any] = Field(default_factory=dict)
    start: StartFile | None = Field(
        None, description="how its fighters start a battle when not fresh (wounded, spent)"
    )


class SideSpecFile(Strict):
    name: Name
    tactics: dict[str, Any] = Field(default_factory=dict)
    members: list[MemberSpec] = Field(min_length=1, max_length=MAX_MEMBERS)


class CatalogueSections(Strict):
    weapons: dict[Name, dict[str, Any]] = Field(default_factory=dict)
    armor: dict[Name, dict[str, Any]] = Field(default_factory=dict)
    archetypes: dict[Name, dict[str, Any]] = Field(default_factory=dict)


class CatalogueFile(CatalogueSections):
    system: str
    description: str = ""


class ScenarioFile(CatalogueSections):
    name: Name
    description: str = ""
    rules: RulesSpec = RulesSpec()
    catalogues: list[str] = Field(default_factory=list)
    environment: Environment = Environment()
    sides: list[SideSpecFile] = Field(min_length=2, max_length=MAX_SIDES)
    victory: Literal["last_side_standing"] = "last_side_standing"
    turn_limit: int = Field(20, ge=1, le=1000)
    seed: int = Field(0, ge=0, le=MAX_SEED)
