"""Load scenario and catalogue YAML files into validated, immutable ``Scenario`` objects.

Validation happens once, here: unknown keys are refused, names are resolved against the
catalogues, and every error names the file, the field path, the line, what was found and what
is allowed. The engine trusts what it is given.
"""

from __future__ import annotations

import copy
import dataclasses
import os
from pathlib import Path
from typing import Any

from ..bounds import MAX_COMBATANTS
from ..errors import Described, Problem, Problems, ScenarioError, did_you_mean
from ..rules.base import Grenades
from ..rules.registry import system_class, system_names
from ..safeyaml import check_path
from ..tactics.spec import FORMER_KEYS, Tactics
from .model import FighterSpec, Scenario, SideSpec
from .shipped import is_bare_name, shipped_names, shipped_path
from .spec import CatalogueFile, MemberSpec, ScenarioFile
from .start import start_of
from .validation import validate
from .yamlio import LineMap, format_path, line_of, load_yaml, parse_yaml, read_text

MEMBER_KEYS = tuple(MemberSpec.model_fields)


def load_scenario(path: str | Path) -> Scenario:
    """Load and validate a scenario file (a catalogue it names by path is relative to it)."""
    data, lines = load_yaml(path)
    return build_scenario(data, str(path), Path(path).parent, lines)


def load_catalogue(path: str | Path) -> dict[str, dict[str, Any]]:
    """Load and validate a catalogue file; returns its sections as validated models."""
    data, lines = load_yaml(path)
    return _catalogue(data, str(path), lines)


def _catalogue(data: Any, file: str, lines: LineMap) -> dict[str, dict[str, Any]]:
    _require_mapping(data, file)
    cat = validate(CatalogueFile, data, file, (), lines)
    system = _system(cat.system, file, ("system",), lines)
    return _validated_sections(system, cat, file, lines)


def is_catalogue(path: str | Path) -> bool:
    data, _ = load_yaml(path)
    return _is_catalogue(data)


def load_file(path: str | Path) -> Scenario | dict[str, dict[str, Any]]:
    """A scenario, or a catalogue's validated sections, from one read of the file."""
    data, lines = load_yaml(path)
    return file_from_data(data, lines, path)


def file_from_data(
    data: Any, lines: LineMap, path: str | Path
) -> Scenario | dict[str, dict[str, Any]]:
    """``load_file`` of YAML already read from ``path``."""
    if _is_catalogue(data):
        return _catalogue(data, str(path), lines)
    return build_scenario(data, str(path), Path(path).parent, lines)


def _is_catalogue(data: Any) -> bool:
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
    sections = _all_sections(spec, system, source, base_dir, lines)
    scenario = Scenario(
        name=spec.name,
        description=spec.description,
        source=source,
        system=system,
        environment=spec.environment,
        sides=_sides(spec, system, sections, source, lines),
        turn_limit=spec.turn_limit,
        seed=spec.seed,
        victory=spec.victory,
        data=copy.deepcopy(data),
    )
    try:
        system.check_scenario(scenario)  # may read files the options name (a table)
    except ScenarioError as err:
        if err.file == source and err.line is None:
            err.line = line_of(lines, tuple(_parts(err.path)))
        elif err.file != source:  # inside a file the scenario names: say where it is named
            named = _naming(data, base_dir, err.file)
            raise err.referred_by(source, line_of(lines, named), format_path(named)) from None
        raise
    return scenario


def _all_sections(spec, system, source, base_dir: Path, lines) -> dict[str, dict[str, Any]]:
    """The weapons, armor and archetypes the scenario can name: its catalogues' in order,
    then its own, a later entry replacing an earlier one of the same name."""
    sections: dict[str, dict[str, Any]] = {"weapons": {}, "armor": {}, "archetypes": {}}
    for i, rel in enumerate(spec.catalogues):
        where = (source, line_of(lines, ("catalogues", i)), f"catalogues[{i}]")
        cat_path, text = catalogue_file(base_dir, rel, where)
        try:
            cat_data, cat_lines = parse_yaml(text, str(cat_path))
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
            validated = _validated_sections(system, cat, str(cat_path), cat_lines)
        except ScenarioError as err:
            raise err.referred_by(*where) from None
        for key, value in validated.items():
            sections[key].update(value)
    for key, value in _validated_sections(system, spec, source, lines).items():
        sections[key].update(value)
    return sections


def _sides(spec, system, sections, source, lines) -> tuple[SideSpec, ...]:
    """Every side with its members expanded into fighters, each fighter's name its own."""
    sides, names, problems = [], set(), Problems()
    for i, side in enumerate(spec.sides):
        fighters = []
        for j, member in enumerate(side.members):
            path = ("sides", i, "members", j)
            try:  # a bad member is reported and the next one checked: every mistake at once
                expanded = _expand(member, side, system, sections, source, path, lines)
            except ScenarioError as err:
                problems.add(err)
                continue
            for fighter in expanded:
                if fighter.name in names:
                    problems.add(
                        ScenarioError(
                            source,
                            format_path(path + ("name",)),
                            fighter.name,
                            "a name no other combatant has",
                            line_of(lines, path),
                        )
                    )
                    break
                names.add(fighter.name)
                fighters.append(fighter)
                if len(names) > MAX_COMBATANTS:
                    problems.raise_any()
                    raise ScenarioError(
                        source,
                        format_path(path + ("count",)),
                        Described(f"more than {MAX_COMBATANTS} combatants in all"),
                        f"at most {MAX_COMBATANTS} combatants in a scenario",
                        line_of(lines, path),
                    )
        sides.append(SideSpec(side.name, tuple(fighters)))
    try:
        _check_side_names([s.name for s in sides], source, lines)
    except ScenarioError as err:
        problems.add(err)
    problems.raise_any()
    return tuple(sides)


def _check_side_names(side_names: list[str], source, lines) -> None:
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


def _expand(member: MemberSpec, side, system, sections, source, path, lines) -> list[FighterSpec]:
    """The fighters of one member entry: its sheet, weapons, armor and tactics, copied
    ``count`` times along ``spacing``."""
    sheet = _sheet(member, system, sections, source, path, lines)
    weapons = [
        _weapon(name, w, system, sections, source, path, lines)
        for w, name in enumerate(sheet.weapons)
    ]
    armor = None
    if sheet.armor is not None:
        if sheet.armor not in sections["armor"]:
            raise _unknown(sections["armor"], "armor", sheet.armor, source, path, lines)
        armor = sections["armor"][sheet.armor]
    tactics, rule_tactics = _tactics(member, side, system, source, path, lines)
    _check_reload(tactics, weapons, member, sheet, source, path, lines)
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
    if member.start is not None:  # every copy starts alike
        start = start_of(member.start, out[0], system, source, path, lines)
        out = [dataclasses.replace(f, start=start) for f in out]
    return out


def _sheet(member: MemberSpec, system, sections, source, path, lines) -> Any:
    """The member's sheet: its archetype's, with the member's own keys merged over it."""
    sheet_data: dict[str, Any] = {}
    if member.archetype is not None:
        if member.archetype not in sections["archetypes"]:
            raise _unknown(
                sections["archetypes"], "archetype", member.archetype, source, path, lines
            )
        sheet_data = copy.deepcopy(sections["archetypes"][member.archetype])
    sheet_data = _deep_merge(sheet_data, member.model_extra or {})
    try:
        return validate(system.Sheet, sheet_data, source, path, lines, extra_allowed=MEMBER_KEYS)
    except ScenarioError as err:
        if member.archetype is None and err.allowed.endswith("(required)"):
            # A member without an archetype must spell out its whole sheet; nearly always
            # the archetype was forgotten, so say that rather than "attributes: found nothing".
            missing = [
                f"{name!r}"
                for name, field in system.Sheet.model_fields.items()
                if field.is_required() and name not in sheet_data
            ] or [repr(err.path.split(".")[-1])]
            raise ScenarioError(
                source,
                format_path(path),
                Problem(f"a member without an archetype and without {', '.join(missing)}"),
                "archetype: NAME, where NAME is "
                + _known(sections["archetypes"], "archetype")
                + "; or every field of the sheet written out",
                line_of(lines, path),
            ) from None
        raise


def _weapon(name: str, w: int, system, sections, source, path, lines) -> Any:
    """The sheet's ``weapons[w]`` from the catalogues; a grenade only under a system that
    has grenade rules (the ``Grenades`` capability)."""
    if name not in sections["weapons"]:
        raise _unknown(sections["weapons"], "weapon", name, source, path, lines, w)
    weapon = sections["weapons"][name]
    if weapon.kind == "grenade" and not isinstance(system, Grenades):
        raise ScenarioError(
            source,
            format_path(path + ("weapons", w)),
            Described(f"{name!r}, a grenade"),
            f"a firearm or melee weapon: {system.name} has no grenade rules",
            line_of(lines, path + ("weapons", w)),
        )
    return weapon


def _tactics(member: MemberSpec, side, system, source, path, lines) -> tuple[Tactics, Any]:
    """The member's tactics (its side's, with its own keys over them) and its rule system's
    own tactics (None when the system has no ``Tactics`` model)."""
    levels = [
        _tactics_level(system, tactics_, source, where, lines)
        for where, tactics_ in (
            (path[:2] + ("tactics",), side.tactics),
            (path + ("tactics",), member.tactics),
        )
    ]
    merged = {**levels[0][0], **levels[1][0], "rules": {**levels[0][1], **levels[1][1]}}

    def written_at(level: int, *under: str):
        """Where a key of the merged tactics was written: the side's, if only it wrote it."""

        def path_of(loc: tuple) -> tuple:
            key = loc[0] if loc else None
            side_only = key in levels[0][level] and key not in levels[1][level]
            return (path[:2] if side_only else path) + ("tactics", *under)

        return path_of

    tactics = validate(Tactics, merged, source, path + ("tactics",), lines, path_of=written_at(0))
    if system.Tactics is not None:
        rule_path = path + ("tactics", "rules")
        return tactics, validate(
            system.Tactics, tactics.rules, source, rule_path, lines, path_of=written_at(1, "rules")
        )
    if tactics.rules:
        raise ScenarioError(
            source,
            format_path(path + ("tactics", "rules")),
            tactics.rules,
            f"nothing: {system.name} has no rule-specific tactics",
            line_of(lines, path + ("tactics", "rules")),
        )
    return tactics, None


def _tactics_level(system, tactics: dict, source, where, lines) -> tuple[dict, dict]:
    """One side's or member's ``tactics:`` split into its generic keys and its rule tactics
    (``rules:``, plus the keys the system reads at the top, ``tactics_at_top``, checked
    where they are written; ``rules:`` wins). The former generic keys a system does not read
    are dropped (``FORMER_KEYS``)."""
    rules = tactics.get("rules") or {}
    if not isinstance(rules, dict):
        raise ScenarioError(
            source,
            format_path(where + ("rules",)),
            rules,
            "a mapping of the rule system's own tactics",
            line_of(lines, where + ("rules",)),
        )
    at_top = {k: v for k, v in tactics.items() if k in system.tactics_at_top}
    if at_top:
        validate(system.Tactics, at_top, source, where, lines)
    generic = {k: v for k, v in tactics.items() if k not in FORMER_KEYS and k != "rules"}
    return generic, {**at_top, **rules}


def _check_reload(tactics, weapons, member, sheet, source, path, lines) -> None:
    """``reload_below`` above the firearm's magazine would reload after every action, for
    ever: refused, naming the magazine."""
    firearm = next(
        ((w, n) for w, n in zip(weapons, sheet.weapons, strict=True) if w.kind == "firearm"),
        None,
    )
    if firearm is None or firearm[0].ammo is None or tactics.reload_below <= firearm[0].ammo:
        return
    where = path + ("tactics",) if "reload_below" in member.tactics else path[:2] + ("tactics",)
    raise ScenarioError(
        source,
        format_path(where + ("reload_below",)),
        tactics.reload_below,
        f"at most {firearm[0].ammo}, the rounds of the {firearm[1]}'s magazine (reload when "
        "fewer than this many are left)",
        line_of(lines, where + ("reload_below",)),
    )


def _validated_sections(system, spec, file: str, lines: LineMap) -> dict[str, dict[str, Any]]:
    """The weapons, armor and archetypes of a file, each checked by the system's model; every
    bad entry is reported (archetypes at their source, not where a member names them)."""
    out: dict[str, dict[str, Any]] = {"weapons": {}, "armor": {}, "archetypes": {}}
    problems = Problems()
    for section, model in (
        ("weapons", system.Weapon),
        ("armor", system.Armor),
        ("archetypes", system.Sheet),
    ):
        for n, d in getattr(spec, section).items():
            try:
                valid = validate(model, d, file, (section, n), lines)
            except ScenarioError as err:
                problems.add(err)
                continue
            out[section][n] = d if section == "archetypes" else valid
    problems.raise_any()
    return out


def catalogue_file(base_dir: Path, entry: str, where: tuple) -> tuple[Path, str]:
    """The path and text of a ``catalogues`` entry: the name of a shipped catalogue is that
    file (so a scenario in any folder can use them), anything else a file relative to the
    scenario; a bare name that is neither is taken for a misspelt shipped name."""
    shipped = shipped_path(entry) if is_bare_name(entry) else None
    if shipped is not None:
        return shipped, read_text(shipped, "a catalogue file")
    if is_bare_name(entry) and not os.path.lexists(base_dir / entry):  # a misspelt name
        source, line, field = where
        names = shipped_names()
        allowed = f"a shipped catalogue ({', '.join(names)}) or a path to a catalogue file"
        raise ScenarioError(source, field, entry, allowed, line, did_you_mean(entry, names))
    try:
        return referenced_file(base_dir, entry, where, "a catalogue file, relative to it")
    except ScenarioError as err:  # a copied scenario's path to a shipped one: offer the name
        stem = Path(entry).stem
        if err.hint is None and isinstance(err.found, Problem) and stem in shipped_names():
            err.hint = f"did you mean {stem!r}, the shipped catalogue?"
            err.args = (*err.args[:5], err.hint, *err.args[6:])
        raise


def referenced_file(base_dir: Path, rel: str, where: tuple, what: str) -> tuple[Path, str]:
    """The path and text of a file a scenario names (relative to the scenario), or an error
    at ``where`` (the scenario's file, line and field) when no file can be read there:
    missing, a folder, a device, too big, a name no file can have."""
    source, line, path = where
    try:
        target = base_dir / check_path(rel)
        return target, read_text(target, what)
    except ScenarioError as err:
        if err.found == "no such file":  # say which path was tried, and what lies near it
            tried = target.resolve()
            named = f" (named at scenario line {line})" if line is not None else ""
            noun = what.split(",")[0].removeprefix("a ")
            nearby = [str(Path(rel).parent / p.name) for p in tried.parent.glob("*.y*ml")]
            found = Problem(f"{noun} not found: {tried}{named}")
            allowed = f"a path to a {noun}, relative to the scenario's folder"
            raise ScenarioError(
                source, path, found, allowed, line, did_you_mean(rel, nearby)
            ) from None
        cap = f"; {err.allowed}" if "at most" in err.allowed else ""  # the size cap: say it
        why = f"{what} (here: {err.found}{cap})"
        raise ScenarioError(source, path, rel, why, line) from None


def _parts(path: str) -> list:
    """``sides[1].name`` -> ``['sides', 1, 'name']`` (to find a line)."""
    parts = path.replace("[", ".").replace("]", "").split(".")
    return [int(p) if p.isdigit() else p for p in parts]


def _naming(data: Any, base_dir: Path, file: str) -> tuple:
    """The path of the rules option whose value names ``file`` (relative to the scenario)."""
    options = (data.get("rules") or {}).get("options") if isinstance(data, dict) else None
    for key, value in (options or {}).items() if isinstance(options, dict) else ():
        if isinstance(value, str) and file in (value, str(base_dir / value)):
            return ("rules", "options", key)
    return ("rules", "options")


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
        article = "an" if what[0] in "aeiou" else "a"
        return f"{article} {what} defined in the scenario or its catalogues (none are)"
    shown = ", ".join(names[:12]) + (f", ... ({len(names)} in all)" if len(names) > 12 else "")
    return f"a known {what}: {shown}"


def _compatible(catalogue_system: str, system) -> bool:
    """A catalogue serves every system that reads the same weapons, armor and sheets
    (``sr-d8`` uses ``sr-classic`` catalogues)."""
    cls = system_class(catalogue_system)
    return cls is not None and all(
        getattr(cls, model) is getattr(system, model) for model in ("Weapon", "Armor", "Sheet")
    )
