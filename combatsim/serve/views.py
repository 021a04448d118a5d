"""What the page shows of a scenario and lets the user edit: its sides and members, each
member's key numbers as its sheet has them (its own, else its archetype's), and for every
editable value the field path (``combatsim.sweeps.fields``) that ``"set"`` and a sweep take.

The view also carries the form's ``controls`` (``controls``: the tactics and rule options as
toggles, choices and numbers) and the ``archetypes`` the scenario reads, with their key numbers
(``build``: what "add a member" offers).

Paths name sides and members by position (``sides[1].members[0].count``), so a name with
brackets or dots in it needs no quoting; a field the member takes from its archetype is
still set on the member (the path machinery copies the archetype's value first).
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from ..sweeps.fields import Inheritance
from .build import archetype_cards
from .controls import system_controls

SHOWN = ("weapons", "armor", "position", "tactics", "count", "archetype", "name", "spacing")
_IDENTIFIERS = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)*$")
MAX_NUMBERS = 40  # numbers shown per member (a sheet has a dozen or two)


def scenario_view(data: Any, base_dir: Path) -> dict[str, Any] | None:
    """The VIEW of a scenario's mapping (None when it is not one)."""
    if not isinstance(data, dict) or not isinstance(data.get("sides"), list):
        return None
    inherit = Inheritance(data, base_dir)
    rules = mapping_at(data, "rules")
    sides = []
    for i, side in enumerate(data["sides"]):
        if not isinstance(side, dict):
            continue
        members = list_at(side, "members")
        tactics = mapping_at(side, "tactics")
        paths = {"name": f"sides[{i}].name"}
        paths.update(
            {f"tactics.{k}": f"sides[{i}].tactics.{k}" for k in tactics if _IDENTIFIERS.match(k)}
        )
        sides.append(
            {
                "name": str(side.get("name", f"side {i}")),
                "tactics": tactics,
                "paths": paths,
                "members": [
                    member_view(m, f"sides[{i}].members[{j}]", inherit)
                    for j, m in enumerate(members)
                    if isinstance(m, dict)
                ],
            }
        )
    return {
        "name": str(data.get("name", "")),
        "system": str(rules.get("system", "")),
        "sides": sides,
        "options": {
            "turn_limit": data.get("turn_limit"),
            "seed": data.get("seed"),
            "rules": mapping_at(rules, "options"),
        },
        "paths": {"turn_limit": "turn_limit", "seed": "seed"},
        "controls": system_controls(str(rules.get("system", ""))),
        "archetypes": archetype_cards(inherit.archetypes()),
    }


def mapping_at(data: dict[str, Any], key: str) -> dict[str, Any]:
    """``data[key]`` where it is a mapping, else an empty one (a view shows what it can)."""
    value = data.get(key)
    return value if isinstance(value, dict) else {}


def list_at(data: dict[str, Any], key: str) -> list[Any]:
    """``data[key]`` where it is a list, else an empty one."""
    value = data.get(key)
    return value if isinstance(value, list) else []


def member_view(member: dict, at: str, inherit: Inheritance) -> dict[str, Any]:
    """One member: what it is, its numbers, and the path of each editable value."""
    archetype = member.get("archetype")
    sheet = inherit.archetypes().get(archetype, {}) if isinstance(archetype, str) else {}
    sheet = sheet if isinstance(sheet, dict) else {}

    def own_or_archetype(key: str) -> Any:
        return member[key] if key in member else sheet.get(key)

    numbers: dict[str, Any] = {}
    for source in (sheet, member):
        for key, value in source.items():
            if key not in SHOWN:
                _flatten(key, value, numbers)
    numbers = dict(list(numbers.items())[:MAX_NUMBERS])
    weapons = own_or_archetype("weapons")
    weapons = weapons if isinstance(weapons, list) else [] if weapons is None else [weapons]
    tactics = mapping_at(member, "tactics")
    paths = {"count": f"{at}.count", "armor": f"{at}.armor", "position": f"{at}.position"}
    paths.update({key: f"{at}.{key}" for key in numbers if _IDENTIFIERS.match(key)})
    paths.update({f"weapons.{k}": f"{at}.weapons[{k}]" for k in range(len(weapons))})
    paths.update({f"tactics.{k}": f"{at}.tactics.{k}" for k in tactics if _IDENTIFIERS.match(k)})
    return {
        "name": str(member.get("name", archetype or "")),
        "count": member.get("count", 1),
        "archetype": archetype,
        "numbers": numbers,
        "weapons": [w if isinstance(w, str | int | float) else _named(w) for w in weapons],
        "armor": _named(own_or_archetype("armor")),
        "position": member.get("position"),
        "tactics": tactics,
        "paths": paths,
    }


def _flatten(key: str, value: Any, out: dict[str, Any]) -> None:
    """Numbers of a sheet, nested ones as ``attributes.body``; text and flags left out."""
    if isinstance(value, bool):
        return
    if isinstance(value, int | float):
        out[key] = value
    elif isinstance(value, dict):
        for inner, v in value.items():
            if isinstance(inner, str):
                _flatten(f"{key}.{inner}", v, out)


def _named(value: Any) -> Any:
    """A catalogue name as it is; an inline entry by its name (or None)."""
    if isinstance(value, dict):
        return value.get("name")
    return value
