"""The levers of classic Shadowrun and its D8 variant: what ``explain`` tries.

Attributes and skills one point either way, initiative dice, the Instant Karma pool (ruling
11) and armor by grade (its Ballistic rating). The Dodge and Defense pools are not levers of
their own: the rules derive them from Quickness and the combat skills, so turning those turns
the pools.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..levers import Lever, armor_lever, number_lever
from .models import Armor, Attributes, Sheet, Skills


def levers(sheet: Sheet, armors: Mapping[str, Armor]) -> list[Lever]:
    """See ``Explainable.levers``."""
    found = [
        number_lever(sheet, f"attributes.{name}", "attribute") for name in Attributes.model_fields
    ]
    found += [number_lever(sheet, f"skills.{name}", "skill") for name in Skills.model_fields]
    found.append(number_lever(sheet, "initiative_dice", "initiative", "initiative dice"))
    found.append(number_lever(sheet, "karma", "karma", "karma pool"))
    # A grade is a Ballistic rating (what stops bullets): lined coat (4/2) steps up to the
    # armor jacket (5/3), not to the vest with plates (4/3), which only adds Impact.
    found.append(armor_lever(sheet, armors, lambda armor: armor.ballistic))
    return [lever for lever in found if lever is not None]


def unread(spec: Any, instant_karma: bool) -> frozenset[str]:
    """See ``Explainable.unread``: the fields of ``levers`` no battle of these options reads."""
    found = set()
    if not instant_karma:
        found.add("karma")
    if not any(w.kind == "grenade" and not w.launcher for w in spec.weapons):
        found.add("skills.throwing")
    return frozenset(found)
