"""Chain files: read as untrusted input and checked into a ``Chain``.

Every mistake is one line naming the chain file, the line and the field path
(``chain.yaml:9: encounters[1].set[0]: ...``); a mistake inside an encounter's scenario names
that scenario's file and the chain line that refers to it.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any, Literal

from pydantic import Field

from ..bounds import MAX_SEED
from ..errors import Problem, ScenarioError, UsageError
from ..limits import MAX_ENCOUNTERS, MAX_HEAL, MAX_SETS
from ..names import Name
from ..rules.base import StartingConditions, start_rules
from ..rules.registry import system_class
from ..scenario import Scenario, build_scenario
from ..scenario.loader import referenced_file
from ..scenario.spec import Strict
from ..scenario.validation import validate
from ..scenario.yamlio import LineMap, format_path, line_of, load_yaml, parse_yaml
from ..sweeps.fields import set_fields
from .chain import Chain
from .model import Encounter, Rest

Heal = int


class RestSpec(Strict):
    """A rest: ``after`` an encounter (its name or index; only in ``rests``), what it heals
    and whether it is a long rest (ruling 27: 2097 regains 1 Edge)."""

    after: int | Name | None = None
    heal: Heal = Field(0, ge=0, le=MAX_HEAL, description="wounds healed, the system's unit")
    heal_stun: Heal = Field(0, ge=0, le=MAX_HEAL, description="stun healed (classic, D8)")
    edge: Literal["none", "long_rest"] | None = Field(
        None, description="long_rest: 2097 regains 1 Edge (the default in 2097); none: nothing"
    )


class EncounterSpec(Strict):
    scenario: str = Field(description="a scenario file, relative to the chain file")
    set: list[str] = Field(default_factory=list, max_length=MAX_SETS)
    boss: bool = False
    name: Name | None = None


class ChainFile(Strict):
    name: Name
    description: str = ""
    side: Name = Field(description="the side carried from one encounter to the next")
    encounters: list[EncounterSpec] = Field(min_length=1, max_length=MAX_ENCOUNTERS)
    rest: RestSpec = Field(default_factory=RestSpec, description="every gap's rest")
    rests: list[RestSpec] = Field(default_factory=list, max_length=MAX_ENCOUNTERS)
    stop: Literal["side_down", "never"] = "side_down"
    down: Literal["carried", "left_behind"] = "carried"
    seed: int = Field(1, ge=0, le=MAX_SEED)


def load_chain(path: str | Path) -> Chain:
    """Load and check a chain file and every scenario it names."""
    data, lines = load_yaml(path)
    return build_chain(data, str(path), Path(path).parent, lines)


def load_study_subject(subject: Any) -> Scenario | Chain:
    """What a study runs: a scenario file or a chain file (a ``str`` or path), read once and
    told apart by its content, or a ``Scenario`` or ``Chain`` already loaded, as it is."""
    if not isinstance(subject, str | os.PathLike):
        return subject
    path = os.fspath(subject)
    data, lines = load_yaml(path)
    if is_chain(data):
        return build_chain(data, path, Path(path).parent, lines)
    return build_scenario(data, path, Path(path).parent, lines)


def is_chain(data: Any) -> bool:
    """Whether loaded YAML is a chain file (it lists encounters, it has no sides)."""
    return isinstance(data, dict) and "encounters" in data and "sides" not in data


def build_chain(data: Any, source: str, base_dir: Path, lines: LineMap | None = None) -> Chain:
    lines = lines or {}
    if not isinstance(data, dict):
        raise ScenarioError(source, "(top level)", type(data).__name__, "a mapping", 1)
    spec = validate(ChainFile, data, source, (), lines)
    encounters = [_encounter(spec, k, source, base_dir, lines) for k in range(len(spec.encounters))]
    system = encounters[0].scenario.system.name
    for k, one in enumerate(encounters):
        if one.scenario.system.name != system:
            raise _error(
                source,
                lines,
                ("encounters", k, "scenario"),
                one.scenario.system.name,
                f"a scenario of the chain's rule system, {system}",
            )
    _check_names(spec, encounters, source, lines)
    roster, weapons = _roster(spec, encounters, source, lines)
    return Chain(
        name=spec.name,
        description=spec.description,
        source=source,
        side=spec.side,
        system=system,
        roster=roster,
        weapons=weapons,
        encounters=tuple(encounters),
        rests=_rests(spec, encounters, system, source, lines),
        stop=spec.stop,
        down=spec.down,
        seed=spec.seed,
        data={"chain": data, "encounters": [_hash(e.scenario) for e in encounters]},
        rebuild=build_chain,
    )


def _encounter(spec: ChainFile, k: int, source: str, base: Path, lines: LineMap) -> Encounter:
    entry = spec.encounters[k]
    where = ("encounters", k, "scenario")
    line = line_of(lines, where)
    target, text = referenced_file(
        base, entry.scenario, (source, line, format_path(where)), "a scenario file, relative to it"
    )
    try:
        scenario_data, scenario_lines = parse_yaml(text, str(target))
        scenario = build_scenario(scenario_data, str(target), target.parent, scenario_lines)
    except ScenarioError as err:
        raise err.referred_by(source, line, format_path(where)) from None
    for i in range(len(entry.set)):
        at = ("encounters", k, "set", i)
        set_line = line_of(lines, at)  # none in a study's variant: the mapping was edited
        argument = f"{source}{'' if set_line is None else f':{set_line}'}: {format_path(at)}"
        try:
            scenario = set_fields(scenario, [entry.set[i]], argument).scenario
        except ScenarioError as err:
            raise err.referred_by(source, line_of(lines, at), format_path(at)) from None
        except UsageError as err:  # a path that names no field: said at the chain's line
            raise ScenarioError(
                source,
                format_path(at),
                Problem(str(err)),
                "PATH=VALUE of a field of the scenario",
                line_of(lines, at),
            ) from None
    side = next((s for s in scenario.sides if s.name == spec.side), None)
    if side is None:
        names = ", ".join(s.name for s in scenario.sides)
        raise _error(
            source,
            lines,
            where,
            Problem(f"{target} has no side {spec.side!r}"),
            f"a scenario with the chain's side (its sides: {names})",
        )
    rules = start_rules(scenario.system)
    boss = rules.boss_regain if entry.boss and rules is not None else 0  # ruling 27
    name = entry.name or f"{k + 1}: {scenario.name}"
    return Encounter(name, scenario, entry.boss, tuple(f.name for f in side.fighters), boss)


def _check_names(spec: ChainFile, encounters: list[Encounter], source, lines) -> None:
    """Encounter names are unique, and a carried fighter's name is on no other side (a start
    is given by name)."""
    seen: set[str] = set()
    for k, one in enumerate(encounters):
        if one.name in seen:
            raise _error(
                source,
                lines,
                ("encounters", k, "name"),
                one.name,
                "a name no other encounter of the chain has",
            )
        seen.add(one.name)
        carried = set(one.members)
        for side in one.scenario.sides:
            clash = [f.name for f in side.fighters if side.name != spec.side and f.name in carried]
            if clash:
                raise _error(
                    source,
                    lines,
                    ("encounters", k, "scenario"),
                    Problem(f"{clash[0]!r} fights on both {spec.side} and {side.name}"),
                    "a carried fighter's name on the carried side only",
                )


def _roster(spec: ChainFile, encounters: list[Encounter], source, lines):
    """The carried fighters in order of first appearance, and each one's weapon count, which
    every encounter must agree on (rounds are carried weapon by weapon)."""
    weapons: dict[str, int] = {}
    for k, one in enumerate(encounters):
        for fighter in one.scenario.fighters:
            if fighter.name not in one.members:
                continue
            count = len(fighter.weapons)
            if weapons.setdefault(fighter.name, count) != count:
                raise _error(
                    source,
                    lines,
                    ("encounters", k, "scenario"),
                    Problem(
                        f"{fighter.name!r} carries {count} weapons here and "
                        f"{weapons[fighter.name]} before"
                    ),
                    "the same weapons for a carried fighter in every encounter",
                )
    return tuple(weapons), tuple(weapons.values())


def _rests(spec: ChainFile, encounters: list[Encounter], system: str, source, lines):
    """The rest after each encounter but the last: the chain's ``rest``, or the entry of
    ``rests`` naming that encounter."""
    if spec.rest.after is not None:
        raise _error(
            source,
            lines,
            ("rest", "after"),
            spec.rest.after,
            "nothing: the chain's rest is every gap's (use rests for one gap)",
        )
    gaps: dict[int, tuple[RestSpec, tuple]] = {}
    names = [e.name for e in encounters]
    for i, rest in enumerate(spec.rests):
        at = ("rests", i, "after")
        after = rest.after
        if isinstance(after, str) and after in names:
            after = names.index(after)
        if not isinstance(after, int) or not 0 <= after < len(encounters) - 1:
            allowed = "the name or index (from 0) of an encounter before the last"
            raise _error(source, lines, at, rest.after, allowed + f" ({', '.join(names[:-1])})")
        if after in gaps:
            raise _error(source, lines, at, rest.after, "a gap no other rest names")
        gaps[after] = (rest, ("rests", i))
    out = []
    for k in range(len(encounters) - 1):
        rest, where = gaps.get(k, (spec.rest, ("rest",)))
        out.append(_rest(rest, system, source, lines, where))
    return tuple(out)


def _rest(rest: RestSpec, system: str, source, lines, where: tuple) -> Rest:
    found = system_class(system)
    rules = found if found is not None and issubclass(found, StartingConditions) else None
    recovers = rules.long_rest_regain if rules is not None else 0  # ruling 27
    edge = rest.edge or ("long_rest" if recovers else "none")
    if edge == "long_rest" and not recovers:
        raise _error(
            source,
            lines,
            (*where, "edge"),
            edge,
            f"none ({system} regains nothing in a rest; heal models first aid)",
        )
    keys = rules.start_keys if rules is not None else ()
    for key, value, needs in (("heal", rest.heal, "wounds"), ("heal_stun", rest.heal_stun, "stun")):
        if value and needs not in keys:
            raise _error(source, lines, (*where, key), value, f"0 ({system} has no {needs})")
    return Rest(rest.heal, rest.heal_stun, recovers if edge == "long_rest" else 0, edge)


def _error(source: str, lines: LineMap, path: tuple, found: Any, allowed: str) -> ScenarioError:
    return ScenarioError(source, format_path(path), found, allowed, line_of(lines, path))


def _hash(scenario: Scenario) -> str:
    """What fixes a scenario's battles (its mapping and catalogues), for the chain's hash."""
    from ..run.study import Settings, fingerprint

    return fingerprint([scenario], Settings(None, 1))


__all__ = ["ChainFile", "build_chain", "is_chain", "load_chain", "load_study_subject"]
