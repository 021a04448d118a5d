"""The levers of a scenario or a chain of encounters: what ``explain`` moves one step down and
one step up, each a field path (or, for a fighter a chain carries, one path per encounter it
fights) and the values its rule system declares.

For every member of every side (a group's copies together) the rule system declares its
levers (``Explainable.levers``: attributes, skills, pools, initiative dice, armor grades, karma
or edge), and a group adds its count. In a chain, the carried side's members are moved in
every encounter they fight at once (the step is taken from the member's value in the first
one), and each encounter's opposition has levers of its own, named with the encounter.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from ..errors import UsageError
from ..rules.base import Explainable
from ..rules.levers import Lever

MAX_COUNT = 100  # MemberSpec.count's bound


@dataclass(frozen=True)
class MemberLever:
    """A lever of one member: where the member is and what its system (or count) declares.

    ``at``: the member's field paths (one per encounter a carried fighter of a chain fights;
    default the scenario's ``sides[S].members[M]``); ``where``: the encounter of an opponent
    in a chain, for its title."""

    side: int
    side_name: str
    member: int
    member_name: str
    lever: Lever
    unread: bool = False  # the system proves no battle reads it (``Explainable.unread``)
    at: tuple[str, ...] = ()
    where: str = ""

    @property
    def paths(self) -> tuple[str, ...]:
        """Every field the lever sets (a step sets each to the same value)."""
        members = self.at or (f"sides[{self.side}].members[{self.member}]",)
        return tuple(f"{member}.{self.lever.path}" for member in members)

    @property
    def path(self) -> str:
        return self.paths[0]

    @property
    def title(self) -> str:
        """``Razor's firearms``; ``Guard's firearms (the inner gate)`` in a chain."""
        owner = self.member_name
        head = (
            f"{owner}' {self.lever.label}"
            if owner.endswith("s")
            else f"{owner}'s {self.lever.label}"
        )
        return f"{head} ({self.where})" if self.where else head


def scenario_levers(scenario, only: Sequence[str] | None = None) -> list[MemberLever]:
    """Every lever of every member, in scenario order: the system's, then a group's count; of
    a chain, the carried members' first, then each encounter's opponents'.

    ``only``: names of sides or members; then only those members' levers.
    """
    if hasattr(scenario, "encounters"):
        found, known = _chain_levers(scenario)
    else:
        found, known = list(_levers_of(scenario)), _names(scenario)
    unknown = [name for name in only or () if name not in known]
    if unknown:
        raise UsageError(
            "--only", unknown[0], "a side or member of the scenario: " + ", ".join(sorted(known))
        )
    if not only:
        return found
    return [item for item in found if item.side_name in only or item.member_name in only]


def _members(scenario) -> Iterator[tuple[int, Any, int, dict, Any, str]]:
    """``(side index, side, member index, member's mapping, its first fighter, its name)``."""
    for i, (side, side_data) in enumerate(zip(scenario.sides, scenario.data["sides"], strict=True)):
        first = 0
        for j, member in enumerate(side_data["members"]):
            fighter = side.fighters[first]
            first += int(member.get("count", 1))
            name = member.get("name") or member.get("archetype") or f"{side.name} {j + 1}"
            yield i, side, j, member, fighter, name


def _names(scenario) -> set[str]:
    return {s.name for s in scenario.sides} | {m[5] for m in _members(scenario)}


def _levers_of(scenario, prefix: str = "", where: str = "") -> Iterator[MemberLever]:
    armors = _armors(scenario)
    for i, side, j, member, fighter, name in _members(scenario):
        count = int(member.get("count", 1))
        at = (f"{prefix}sides[{i}].members[{j}]",)
        system = scenario.system
        rules = system if isinstance(system, Explainable) else None
        unread = rules.unread(fighter) if rules is not None else frozenset()
        for lever in rules.levers(fighter.sheet, armors) if rules is not None else ():
            yield MemberLever(i, side.name, j, name, lever, lever.path in unread, at, where)
        if count > 1:
            up = count + 1 if count < MAX_COUNT else None
            lever = Lever("count", "count", "count", count, count - 1, up, "copy")
            yield MemberLever(i, side.name, j, name, lever, False, at, where)


def _chain_levers(chain) -> tuple[list[MemberLever], set[str]]:
    """A carried member's lever once, set in every encounter it fights; each encounter's
    opponents' levers apart."""
    carried: dict[tuple[str, str], MemberLever] = {}
    opponents: list[MemberLever] = []
    known: set[str] = set()
    for k, encounter in enumerate(chain.encounters):
        known |= _names(encounter.scenario)
        for item in _levers_of(encounter.scenario, f"encounters[{k}].", encounter.name):
            if item.side_name != chain.side:
                opponents.append(item)
                continue
            key = (item.member_name, item.lever.path)
            seen = carried.get(key)
            if seen is None:
                carried[key] = replace(item, where="")
            else:
                carried[key] = replace(seen, at=seen.at + item.at)
    return [*carried.values(), *opponents], known


def _armors(scenario) -> dict[str, Any]:
    """Every armor the scenario can name, validated by its system (as loading does)."""
    from ..scenario import load_catalogue

    base = Path(scenario.source).parent
    armors: dict[str, Any] = {}
    for rel in scenario.data.get("catalogues") or []:
        armors.update(load_catalogue(base / rel)["armor"])
    for name, data in (scenario.data.get("armor") or {}).items():
        armors[name] = scenario.system.Armor.model_validate(data)
    return armors
