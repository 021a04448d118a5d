"""Load scenario and catalogue YAML files into validated, immutable ``Scenario`` objects.

Validation happens once, here: unknown keys are refused, names are resolved against the
catalogues, and every error names the file, the field path, the line, what was found and what
is allowed. The engine trusts what it is given.
"""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

from ..errors import Problem, ScenarioError, did_you_mean
from ..rules.base import system_class, system_names
from ..tactics.spec import Tactics
from .model import FighterSpec, Scenario, SideSpec
from .spec import CatalogueFile, MemberSpec, ScenarioFile
from .validation import validate
from .yamlio import LineMap, format_path, line_of, load_yaml

MEMBER_KEYS = tuple(MemberSpec.model_fields)


def load_scenario(path: str | Path) -> Scenario:
    """Load and validate a scenario file (catalogues it names are loaded relative to it)."""
    data, lines = load_yaml(path)
    return build_scenario(data, str(path), Path(path).parent, lines)


def load_catalogue(path: str | Path) -> dict[str, dict[str, Any]]:
    """Load and validate a catalogue file; returns its sections as validated models."""
    data, lines = load_yaml(path)
    _require_mapping(data, str(path))
    cat = validate(CatalogueFile, data, str(path), (), lines)
    system = _system(cat.system, str(path), ("system",), lines)
    return _validated_sections(system, cat, str(path), lines)


def is_catalogue(path: str | Path) -> bool:
    data, _ = load_yaml(path)
    return isinstance(data, dict) and "sides" not in data and "system" in data


def build_scenario(
    data: Any, source: str, base_dir: Path, lines: LineMap | None = None
) -> Scenario:
    """Validate a scenario mapping (as loaded from YAML) into a ``Scenario``."""
    lines = lines or {}
    _require_mapping(data, source)
    spec = validate(ScenarioFile, data, source, (), lines)
    system_cls = _system(spec.rules.system, source, ("rules", "system"), lines)
    options = validate(system_cls.Options, spec.rules.options, source, ("rules", "options"), lines)
    system = system_cls(options)

    sections: dict[str, dict[str, Any]] = {"weapons": {}, "armor": {}, "archetypes": {}}
    for i, rel in enumerate(spec.catalogues):
        cat_path = (base_dir / rel).resolve()
        if not cat_path.is_file():
            line = line_of(lines, ("catalogues", i))
            named = f" (named at scenario line {line})" if line is not None else ""
            nearby = [str(Path(rel).parent / p.name) for p in cat_path.parent.glob("*.y*ml")]
            raise ScenarioError(
                source,
                f"catalogues[{i}]",
                Problem(f"catalogue file not found: {cat_path}{named}"),
                "a path to a catalogue file, relative to the scenario's folder",
                line,
                did_you_mean(rel, nearby),
            )
        cat_data, cat_lines = load_yaml(cat_path)
        _require_mapping(cat_data, str(cat_path))
        cat = validate(CatalogueFile, cat_data, str(cat_path), (), cat_lines)
        if not _compatible(cat.system, system):
            raise ScenarioError(
                str(cat_path),
                "system",
                cat.system,
                f"{system.name!r} or a system with the same catalogue format",
                cat_lines.get(("system",)),
            )
        for key, value in _validated_sections(system, cat, str(cat_path), cat_lines).items():
            sections[key].update(value)
    for key, value in _validated_sections(system, spec, source, lines).items():
        sections[key].update(value)

    sides, names = [], set()
    for i, side in enumerate(spec.sides):
        fighters = []
        for j, member in enumerate(side.members):
            path = ("sides", i, "members", j)
            for fighter in _expand(member, side, system, sections, source, path, lines):
                if fighter.name in names:
                    raise ScenarioError(
                        source,
                        format_path(path + ("name",)),
                        fighter.name,
                        "a name no other combatant has",
                        line_of(lines, path),
                    )
                names.add(fighter.name)
                fighters.append(fighter)
        sides.append(SideSpec(side.name, tuple(fighters)))
    side_names = [s.name for s in sides]
    if "draw" in side_names:  # battles.csv says "draw" in the winner column
        i = side_names.index("draw")
        raise ScenarioError(
            source,
            f"sides[{i}].name",
            "draw",
            "any other name ('draw' marks a drawn battle in the results)",
            line_of(lines, ("sides", i, "name")),
        )
    if len(set(side_names)) != len(side_names):
        raise ScenarioError(
            source, "sides", side_names, "sides with distinct names", line_of(lines, ("sides",))
        )

    scenario = Scenario(
        name=spec.name,
        description=spec.description,
        source=source,
        system=system,
        environment=spec.environment,
        sides=tuple(sides),
        turn_limit=spec.turn_limit,
        seed=spec.seed,
        victory=spec.victory,
        data=copy.deepcopy(data),
    )
    system.check_scenario(scenario)
    return scenario


def _expand(member: MemberSpec, side, system, sections, source, path, lines) -> list[FighterSpec]:
    sheet_data: dict[str, Any] = {}
    if member.archetype is not None:
        if member.archetype not in sections["archetypes"]:
            raise _unknown(
                sections["archetypes"], "archetype", member.archetype, source, path, lines
            )
        sheet_data = copy.deepcopy(sections["archetypes"][member.archetype])
    sheet_data = _deep_merge(sheet_data, member.model_extra or {})
    try:
        sheet = validate(system.Sheet, sheet_data, source, path, lines, extra_allowed=MEMBER_KEYS)
    except ScenarioError as err:
        if member.archetype is None and err.allowed.endswith("(required)"):
            # A member without an archetype must spell out its whole sheet; nearly always
            # the archetype was forgotten, so say that rather than "attributes: found nothing".
            raise ScenarioError(
                source,
                format_path(path),
                Problem(f"a member without an archetype and without {err.path.split('.')[-1]!r}"),
                "archetype: NAME, where NAME is "
                + _known(sections["archetypes"], "archetype")
                + "; or every field of the sheet written out",
                line_of(lines, path),
            ) from None
        raise
    weapons = []
    for w, weapon_name in enumerate(sheet.weapons):
        if weapon_name not in sections["weapons"]:
            raise _unknown(sections["weapons"], "weapon", weapon_name, source, path, lines, w)
        weapons.append(sections["weapons"][weapon_name])
    armor = None
    if sheet.armor is not None:
        if sheet.armor not in sections["armor"]:
            raise _unknown(sections["armor"], "armor", sheet.armor, source, path, lines)
        armor = sections["armor"][sheet.armor]
    merged = {**side.tactics, **member.tactics}
    merged["rules"] = {**side.tactics.get("rules", {}), **member.tactics.get("rules", {})}
    tactics = validate(Tactics, merged, source, path + ("tactics",), lines)
    rule_tactics = None
    if system.Tactics is not None:
        rule_tactics = validate(
            system.Tactics, tactics.rules, source, path + ("tactics", "rules"), lines
        )
    elif tactics.rules:
        raise ScenarioError(
            source,
            format_path(path + ("tactics", "rules")),
            tactics.rules,
            f"nothing: {system.name} has no rule-specific tactics",
            line_of(lines, path + ("tactics", "rules")),
        )
    base = member.name or member.archetype or f"{side.name} {path[3] + 1}"
    out = []
    for k in range(member.count):
        name = base if member.count == 1 else f"{base} {k + 1}"
        position = (
            member.position[0] + k * member.spacing[0],
            member.position[1] + k * member.spacing[1],
        )
        out.append(
            FighterSpec(
                name,
                side.name,
                position,
                member.cover,
                tactics,
                sheet,
                tuple(weapons),
                armor,
                rule_tactics,
                group=base if member.count > 1 else None,
            )
        )
    return out


def _validated_sections(system, spec, file: str, lines: LineMap) -> dict[str, dict[str, Any]]:
    out = {
        "weapons": {
            n: validate(system.Weapon, d, file, ("weapons", n), lines)
            for n, d in spec.weapons.items()
        },
        "armor": {
            n: validate(system.Armor, d, file, ("armor", n), lines) for n, d in spec.armor.items()
        },
        "archetypes": {},
    }
    for n, d in spec.archetypes.items():
        validate(
            system.Sheet, d, file, ("archetypes", n), lines
        )  # report bad archetypes at their source
        out["archetypes"][n] = d
    return out


def _system(name: str, file: str, path: tuple, lines: LineMap):
    cls = system_class(name)
    if cls is None:
        raise ScenarioError(
            file,
            format_path(path),
            name,
            "one of " + ", ".join(system_names()),
            line_of(lines, path),
            did_you_mean(name, system_names()),
        )
    return cls


def _require_mapping(data: Any, file: str) -> None:
    if not isinstance(data, dict):
        raise ScenarioError(file, "(top level)", type(data).__name__, "a mapping of keys to values")


def _deep_merge(base: dict, override: dict) -> dict:
    out = dict(base)
    for key, value in override.items():
        if isinstance(value, dict) and isinstance(out.get(key), dict):
            out[key] = _deep_merge(out[key], value)
        else:
            out[key] = value
    return out


def _unknown(section: dict, what: str, name: str, source, path, lines, index=None):
    """The error for a catalogue name not found (``weapons[0]: found 'ak98' (did you mean
    'ak97'?)``): the key is ``archetype``, ``armor`` or ``weapons[index]``."""
    key = path + ((what,) if index is None else ("weapons", index))
    return ScenarioError(
        source,
        format_path(key),
        name,
        _known(section, what),
        line_of(lines, key),
        did_you_mean(name, section),
    )


def _known(section: dict, what: str) -> str:
    names = sorted(section)
    if not names:
        return f"a {what} defined in the scenario or its catalogues (none are)"
    shown = ", ".join(names[:12]) + (f", ... ({len(names)} in all)" if len(names) > 12 else "")
    return f"a known {what}: {shown}"


def _compatible(catalogue_system: str, system) -> bool:
    """A catalogue serves every system that reads the same weapons, armor and sheets
    (``sr-d8`` uses ``sr-classic`` catalogues)."""
    cls = system_class(catalogue_system)
    return cls is not None and all(
        getattr(cls, model) is getattr(system, model) for model in ("Weapon", "Armor", "Sheet")
    )
