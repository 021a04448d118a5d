"""The levers of the 4D8 system: what ``explain`` tries.

Each ability bonus one point either way (a weakness is a negative bonus), Energy (the pool
that caps a task's positive bonuses), Health, and armor by rating. Initiative is 10 + an
ability's bonus + 1d8 (``rules.options``), so it turns with that ability.
"""

from __future__ import annotations

from collections.abc import Mapping

from ..levers import Lever, armor_lever, mapping_levers, number_lever
from .models import Armor, Sheet


def levers(sheet: Sheet, armors: Mapping[str, Armor]) -> list[Lever]:
    """See ``Explainable.levers``."""
    found: list[Lever | None] = [*mapping_levers(sheet, "abilities", "skill", low=-32, high=32)]
    found.append(number_lever(sheet, "energy", "pool"))
    found.append(number_lever(sheet, "health", "attribute"))
    found.append(armor_lever(sheet, armors, lambda armor: armor.rating))
    return [lever for lever in found if lever is not None]
