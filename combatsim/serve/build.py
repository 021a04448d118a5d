"""Building a fight on the page: sides and members added from a catalogue's archetypes and
removed, written into the scenario's own text (``roundtrip``: its comments and layout kept,
a new member written in the style of its neighbours).

An archetype from a shipped catalogue the scenario does not name yet brings that catalogue
into ``catalogues:``, first in the list: a later catalogue wins entry by entry, so the
archetypes and weapons the scenario already reads keep their numbers.
"""

from __future__ import annotations

from typing import Any

from ..errors import UsageError
from .roundtrip import dump, round_trip

KEY_NUMBERS = 10  # numbers shown of an archetype in the picker
GAP = 3.0  # meters between a new member and the last one of its side
FRONT = 20.0  # meters between the fighters so far and a new side
OPS = "add: member or side, remove: member or side"
LAST_MEMBER = "a side keeps one member at least: set its count to 0, or remove the side"


def archetype_cards(sheets: dict[str, Any], catalogue: str | None = None) -> list[dict[str, Any]]:
    """What the picker shows of each archetype: its key numbers, weapons and armor, and the
    catalogue that brings it (None: the scenario reads it already)."""
    cards = []
    for name, sheet in sheets.items():
        if not isinstance(sheet, dict):
            continue
        numbers: dict[str, Any] = {}
        _numbers(sheet, numbers)
        weapons = sheet.get("weapons")
        weapons = weapons if isinstance(weapons, list) else [] if weapons is None else [weapons]
        cards.append(
            {
                "name": str(name),
                "catalogue": catalogue,
                "numbers": dict(list(numbers.items())[:KEY_NUMBERS]),
                "weapons": [w if isinstance(w, str) else _named(w) for w in weapons],
                "armor": _named(sheet.get("armor")),
            }
        )
    return cards


def _numbers(sheet: dict[str, Any], out: dict[str, Any]) -> None:
    for key, value in sheet.items():
        if isinstance(value, bool) or key in ("weapons", "armor"):
            continue
        if isinstance(value, int | float):
            out[str(key)] = value
        elif isinstance(value, dict):
            _numbers(value, out)


def _named(value: Any) -> Any:
    return value.get("name") if isinstance(value, dict) else value


def shipped_cards(system: str) -> list[dict[str, Any]]:
    """The archetypes of the shipped catalogues of ``system``, each with its catalogue."""
    from ..safeyaml import load_yaml
    from ..scenario.catalogues import shipped_catalogues

    cards = []
    for name, path, of in shipped_catalogues():
        if of == system:
            data, _ = load_yaml(path)
            cards += archetype_cards(data.get("archetypes") or {}, name)
    return cards


def build(text: str, op: dict[str, Any]) -> str:
    """``text`` with one change of its sides: ``{"add": "member", "side": I, "archetype": NAME,
    "catalogue": SHIPPED}``, ``{"add": "side", "archetype", "catalogue"}``, ``{"remove":
    "member", "side": I, "member": J}`` or ``{"remove": "side", "side": I}``."""
    yaml = round_trip(text)
    tree = yaml.load(text)
    sides = tree.get("sides") if isinstance(tree, dict) else None
    if not isinstance(sides, list):
        raise UsageError("scenario", "no sides", "a scenario with a list of sides")
    if op.get("add") in ("member", "side"):
        _add(tree, sides, op)
    elif op.get("remove") == "member":
        members = _side(sides, op)["members"]
        j = _index(op.get("member"), members, "member")
        if len(members) == 1:
            raise UsageError("remove member", _name(members[j]), LAST_MEMBER)
        del members[j]
    elif op.get("remove") == "side":
        i = _index(op.get("side"), sides, "side")
        if len(sides) <= 2:
            raise UsageError("remove side", _name(sides[i]), "a fight keeps two sides at least")
        del sides[i]
    else:
        raise UsageError("op", op.get("add", op.get("remove")), OPS)
    return dump(yaml, tree)


def _name(node: Any) -> str:
    return str(node.get("name") or node.get("archetype")) if isinstance(node, dict) else "?"


def _index(value: Any, items: list, what: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value < len(items):
        raise UsageError(what, value, f"a {what}'s place, 0 to {len(items) - 1}")
    return value


def _side(sides: list, op: dict[str, Any]) -> Any:
    side = sides[_index(op.get("side"), sides, "side")]
    if not isinstance(side, dict) or not isinstance(side.get("members"), list):
        raise UsageError("side", op.get("side"), "a side with a list of members")
    return side


def _add(tree: Any, sides: list, op: dict[str, Any]) -> None:
    from ruamel.yaml.comments import CommentedMap, CommentedSeq

    archetype = op.get("archetype")
    if not isinstance(archetype, str) or not archetype:
        raise UsageError("archetype", archetype, "an archetype's name")
    _bring(tree, op.get("catalogue"))
    taken = _fighter_names(sides)
    base = archetype.replace("_", " ").capitalize()
    name = next(n for n in [base, *(f"{base} {k}" for k in range(2, 999))] if n not in taken)
    member = CommentedMap([("name", name), ("archetype", archetype)])
    if op["add"] == "member":
        members = _side(sides, op)["members"]
        member["position"] = _flow(CommentedSeq(_below(members)))
        if any(_is_flow(m) for m in members):
            member.fa.set_flow_style()
        members.append(member)
        return
    names = {str(s.get("name")) for s in sides if isinstance(s, dict)}
    side_name = next(f"side {k}" for k in range(len(sides) + 1, 999) if f"side {k}" not in names)
    member["position"] = _flow(CommentedSeq([_front(sides), 0]))
    member.fa.set_flow_style()
    sides.append(CommentedMap([("name", side_name), ("members", CommentedSeq([member]))]))


def _bring(tree: Any, catalogue: Any) -> None:
    """The shipped catalogue ``catalogue`` into the scenario's list, first (lowest)."""
    from ruamel.yaml.comments import CommentedSeq

    if catalogue is None:
        return
    from ..scenario.shipped import shipped_names

    if catalogue not in shipped_names():
        raise UsageError("catalogue", catalogue, ", ".join(shipped_names()))
    listed = tree.get("catalogues")
    if isinstance(listed, list):
        if catalogue not in listed:
            listed.insert(0, catalogue)
        return
    keys = list(tree)
    at = keys.index("rules") + 1 if "rules" in keys else len(keys)
    tree.insert(at, "catalogues", _flow(CommentedSeq([catalogue])))


def _flow(seq: Any) -> Any:
    seq.fa.set_flow_style()
    return seq


def _is_flow(node: Any) -> bool:
    return bool(getattr(node, "fa", None) and node.fa.flow_style())


def _position(member: Any) -> tuple[float, float, float]:
    """A member's x, and the y of its first and its last copy."""
    pos = member.get("position") if isinstance(member, dict) else None
    x, y = (pos[0], pos[1]) if isinstance(pos, list) and len(pos) == 2 else (0, 0)
    count = member.get("count", 1) if isinstance(member, dict) else 1
    spacing = member.get("spacing") if isinstance(member, dict) else None
    dy = spacing[1] if isinstance(spacing, list) and len(spacing) == 2 else 2
    last = y + max(0, (count if isinstance(count, int) else 1) - 1) * dy
    return float(x), float(y), float(last)


def _below(members: list) -> list[float]:
    """Below the side's last member, at its x."""
    spots = [_position(m) for m in members]
    x = spots[-1][0] if spots else 0.0
    y = max((max(first, last) for _, first, last in spots), default=-GAP) + GAP
    return [_tidy(x), _tidy(y)]


def _front(sides: list) -> float:
    xs = [_position(m)[0] for s in sides if isinstance(s, dict) for m in s.get("members") or []]
    return _tidy(max(xs, default=0.0) + FRONT)


def _tidy(value: float) -> float | int:
    return int(value) if float(value).is_integer() else value


def _fighter_names(sides: list) -> set[str]:
    """Every member's name and its copies' names (``Name 1``...), so a new one is its own."""
    taken = set()
    for side in sides:
        for member in (side.get("members") or []) if isinstance(side, dict) else []:
            if not isinstance(member, dict):
                continue
            base = str(member.get("name") or member.get("archetype") or "")
            count = member.get("count", 1)
            taken.add(base)
            taken.update(
                f"{base} {k}" for k in range(1, (count if isinstance(count, int) else 1) + 1)
            )
    return taken
