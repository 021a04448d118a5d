"""The levers of Lost Souls: what ``explain`` tries.

Each ability one column of the Action Results Table either way (ruling 18: the columns in
force, the shipped table's or the scenario's), Reflexes (initiative), Life, Karma (ruling 19),
standing bonus or penalty dice, and armor by rating.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from ..levers import Lever, armor_lever, mapping_levers, number_lever
from .models import Armor, Sheet


def levers(sheet: Sheet, armors: Mapping[str, Armor], columns: Sequence[Any]) -> list[Lever]:
    """See ``Explainable.levers``; ``columns``: the table's column labels, weakest first."""
    found: list[Lever | None] = [*mapping_levers(sheet, "abilities", "skill", scale=list(columns))]
    found.append(number_lever(sheet, "reflexes", "initiative"))
    found.append(number_lever(sheet, "life", "attribute"))
    found.append(number_lever(sheet, "karma", "karma"))
    found.append(number_lever(sheet, "extra_dice", "dice", "bonus dice"))
    found.append(armor_lever(sheet, armors, lambda armor: armor.rating))
    return [lever for lever in found if lever is not None]
