"""The levers of Shadowrun: 2097: what ``explain`` tries.

Attributes and skills one rank either way, initiative dice, Edge, and armor by grade (PT
first, then DR). Health is not a lever of its own when the sheet leaves it to Body (the
options' ``health_base + health_per_body x Body``): turning Body turns it.
"""

from __future__ import annotations

from collections.abc import Mapping

from ..levers import Lever, armor_lever, number_lever
from .models import Armor, Attributes, Sheet, Skills


def levers(sheet: Sheet, armors: Mapping[str, Armor]) -> list[Lever]:
    """See ``Explainable.levers``."""
    found = [
        number_lever(sheet, f"attributes.{name}", "attribute") for name in Attributes.model_fields
    ]
    found += [number_lever(sheet, f"skills.{name}", "skill") for name in Skills.model_fields]
    found.append(number_lever(sheet, "initiative_dice", "initiative", "initiative dice"))
    found.append(number_lever(sheet, "edge", "edge"))
    found.append(number_lever(sheet, "health", "attribute"))  # None unless the sheet sets it
    found.append(armor_lever(sheet, armors, lambda armor: (armor.pt, armor.dr)))
    return [lever for lever in found if lever is not None]
