"""The bounds every number in a scenario, catalogue or sweep file must keep.

A scenario file is untrusted input: a NaN position, an infinite range or a billion rounds of
ammunition must be refused at load with the usual one-line error, not crash a battle or give
meaningless statistics. Every model of ``combatsim.scenario``, ``combatsim.tactics`` and the
rule systems builds on these types and on ``STRICT`` (``allow_inf_nan=False``: NaN and
infinities are refused in every float field). ``docs/limits.md`` lists them for users.
"""

from __future__ import annotations

from typing import Annotated

from pydantic import ConfigDict, Field

from .limits import MAX_SEED  # noqa: F401 (the scenario's seed has the --seed bounds)

# Refuse unknown keys, freeze the model, and refuse NaN and infinities in every float field.
STRICT = ConfigDict(extra="forbid", frozen=True, allow_inf_nan=False)

MAX_COORDINATE = 100_000.0  # meters from the map's origin: a position or cover point
MAX_SPACING = 1_000.0  # meters between copies of a member
MAX_DISTANCE = 100_000.0  # meters: ranges, reaches, distances walked
MAX_SHARE_FACTOR = 100.0  # a share of health or life (dead_at, injury levels)
MAX_MODIFIER = 1_000  # a modifier added to a roll's target or chance
MAX_AMOUNT = 10_000  # rounds of ammunition, points of damage or armor
MAX_SIDES = 16
MAX_MEMBERS = 1_000  # member entries of one side
MAX_COMBATANTS = 2_000  # combatants of a scenario, all sides and copies together

Coordinate = Annotated[float, Field(ge=-MAX_COORDINATE, le=MAX_COORDINATE)]
Spacing = Annotated[float, Field(ge=-MAX_SPACING, le=MAX_SPACING)]
Distance = Annotated[float, Field(ge=0, le=MAX_DISTANCE)]
Range = Annotated[float, Field(gt=0, le=MAX_DISTANCE)]  # a weapon's range band: above 0
Share = Annotated[float, Field(ge=0, le=1)]
Modifier = Annotated[int, Field(ge=-MAX_MODIFIER, le=MAX_MODIFIER)]
Amount = Annotated[int, Field(ge=0, le=MAX_AMOUNT)]
