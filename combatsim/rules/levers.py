"""Levers: the knobs of a combatant a game master can turn, as a rule system declares them.

``combatsim explain`` asks each member's rule system for its levers
(``Explainable.levers(sheet, armors)``), then runs the scenario with each lever one step down
and one step up. A lever names a field of the member the way a sweep's field path does
(``skills.firearms``, ``attributes.body``, ``armor``), so a step is an ordinary variant of the
scenario file, validated again like any other; there is no second way of changing a scenario.

The helpers here build the usual kinds from a pydantic sheet, so a system (built in or a
third party's) declares its levers in a few lines:

* ``number_lever``: an integer field, one point either way, inside the bounds the sheet's
  model declares (``Field(ge=..., le=...)``);
* ``mapping_levers``: every entry of a mapping of integers (Lost Souls' and 4D8's abilities);
* ``armor_lever``: the next armor down and up the catalogue's grades, by a rating the system
  chooses (no armor is the lowest grade).

The count of a group is not a sheet field; ``combatsim explain`` adds it for every member
with more than one copy.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Protocol, TypeVar

from pydantic import BaseModel

# What a lever is, for the table and the summary; a system may use others.
KINDS = ("attribute", "skill", "pool", "initiative", "armor", "karma", "edge", "dice", "count")


@dataclass(frozen=True)
class Lever:
    """One knob of one member.

    ``path``: the field, relative to the member entry of the scenario file (``skills.firearms``);
    ``label``: short and readable (``firearms``); ``kind``: one of ``KINDS`` or the system's
    own; ``value``: as the member has it now; ``down`` / ``up``: the value one step down and
    up, None where the rules allow no step that way; ``unit``: what one step is (``point``,
    ``grade``, ``copy``), for the summary ("worth 9 points per point" reads badly, so the
    summary says "per level" for points).
    """

    path: str
    label: str
    kind: str
    value: Any
    down: Any | None
    up: Any | None
    unit: str = "point"

    @property
    def steps(self) -> list[tuple[str, Any]]:
        """``("down", value)`` and ``("up", value)``, for the steps that exist."""
        return [(way, v) for way, v in (("down", self.down), ("up", self.up)) if v is not None]


def field_bounds(
    model: type[BaseModel] | BaseModel, name: str
) -> tuple[float | None, float | None]:
    """The ``ge``/``gt`` and ``le``/``lt`` bounds a pydantic model declares for a field."""
    cls = model if isinstance(model, type) else type(model)
    low = high = None
    for item in cls.model_fields[name].metadata:
        if getattr(item, "ge", None) is not None:
            low = item.ge
        elif getattr(item, "gt", None) is not None:
            low = item.gt + 1
        if getattr(item, "le", None) is not None:
            high = item.le
        elif getattr(item, "lt", None) is not None:
            high = item.lt - 1
    return low, high


def number_lever(
    sheet: BaseModel,
    path: str,
    kind: str,
    label: str | None = None,
    low: int | None = None,
    high: int | None = None,
) -> Lever | None:
    """The integer field at ``path`` (dotted, inside the sheet), one point down and up.

    The bounds are the model's own (``Field(ge=, le=)``), narrowed by ``low`` / ``high``.
    None when the field is unset (None) or not an integer.
    """
    *parents, name = path.split(".")
    owner = sheet
    for part in parents:
        owner = getattr(owner, part)
    value = getattr(owner, name)
    if not isinstance(value, int) or isinstance(value, bool):
        return None
    model_low, model_high = field_bounds(owner, name)
    lo = _tighter(model_low, low, max)
    hi = _tighter(model_high, high, min)
    down = value - 1 if lo is None or value - 1 >= lo else None
    up = value + 1 if hi is None or value + 1 <= hi else None
    return Lever(path, label or name.replace("_", " "), kind, value, down, up)


def mapping_levers(
    sheet: BaseModel,
    field: str,
    kind: str,
    low: int | None = None,
    high: int | None = None,
    scale: Sequence[Any] | None = None,
) -> list[Lever]:
    """One lever per entry of the mapping field ``field`` (``abilities.shooting``...).

    Integers step one point, inside ``low`` and ``high``; with ``scale`` (the allowed values
    in order, e.g. a table's columns) a step goes to the neighbouring value of the scale
    instead, and entries not on it have no lever.
    """
    out = []
    for key, value in sorted(getattr(sheet, field).items()):
        if scale is not None:
            if value not in scale:
                continue
            i = list(scale).index(value)
            down = scale[i - 1] if i > 0 else None
            up = scale[i + 1] if i + 1 < len(scale) else None
        elif not isinstance(value, int) or isinstance(value, bool):
            continue
        else:
            down = value - 1 if low is None or value - 1 >= low else None
            up = value + 1 if high is None or value + 1 <= high else None
        out.append(Lever(f"{field}.{key}", key.replace("_", " "), kind, value, down, up))
    return out


class WearsArmor(Protocol):
    """A sheet that names its armor (every system's ``Sheet``, as ``RuleSystem`` requires)."""

    @property
    def armor(self) -> str | None: ...


ArmorT = TypeVar("ArmorT", bound=BaseModel)


def armor_lever(
    sheet: WearsArmor, armors: Mapping[str, ArmorT], rating: Callable[[ArmorT], Any]
) -> Lever | None:
    """The sheet's ``armor`` one grade down and up the catalogue.

    Grades are the distinct values of ``rating(armor)`` over the catalogue's armor, lowest
    first, with no armor below them all; a step goes to the nearest grade below or above
    (among armors of one grade, the first by name). None when the catalogue has no armor.
    """
    if not armors:
        return None
    grades: dict[Any, str] = {}
    for name in sorted(armors):
        grades.setdefault(rating(armors[name]), name)
    ordered = sorted(grades)
    current = sheet.armor
    if current is None:
        return Lever("armor", "armor", "armor", None, None, grades[ordered[0]], "grade")
    if current not in armors:
        return None
    mine = rating(armors[current])
    below = [g for g in ordered if g < mine]
    above = [g for g in ordered if g > mine]
    # Below the lowest grade is no armor: the path's value None (YAML null) removes it.
    down = grades[below[-1]] if below else _NO_ARMOR
    up = grades[above[0]] if above else None
    return Lever("armor", "armor", "armor", current, down, up, "grade")


class _NoArmor(str):
    """The value "no armor": written to the scenario as null (see ``scenario_value``)."""

    def __repr__(self) -> str:
        return "none"


_NO_ARMOR = _NoArmor("none")


def scenario_value(value: Any) -> Any:
    """What a lever's value is in the scenario file (no armor is null)."""
    return None if isinstance(value, _NoArmor) else value


def _tighter(a: Any, b: Any, pick: Callable[[Any, Any], Any]) -> Any:
    if a is None:
        return b
    if b is None:
        return a
    return pick(a, b)
