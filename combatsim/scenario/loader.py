"""Load scenario and catalogue YAML files into validated, immutable ``Scenario`` objects.

Validation happens once, here: unknown keys are refused, names are resolved against the
catalogues, and every error names the file, the field path, the line, what was found and what
is allowed. The engine trusts what it is given.
"""

from __future__ import annotations

import copy
import dataclasses
import functools
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
from .validation import validate, validate_into
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
    problems = Problems()
    cat, taken = validate_into(problems, CatalogueFile, data, file, (), lines)
    if cat is None or ("system",) in taken:
        problems.stop()
    try:
        system = _system(cat.system, file, ("system",), lines)
    except ScenarioError as err:
        problems.add(err)
        problems.stop()
    sections = _validated_sections(system, cat, file, lines, problems)
    problems.raise_any()
    return {
        k: {n: v for n, v in entries.items() if v is not BROKEN} for k, entries in sections.items()
    }


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


BROKEN: Any = object()  # a catalogue entry that is itself wrong: known, but not checkable
# The parts of a file that, taken out (see validation.salvage), leave the names a member
# gives unknowable: its members are not checked against them.
_NAMING_PARTS = ("catalogues", "weapons", "armor", "archetypes")


def build_scenario(
    data: Any, source: str, base_dir: Path, lines: LineMap | None = None
) -> Scenario:
    """Validate a scenario mapping (as loaded from YAML) into a ``Scenario``. Every mistake
    is reported at once (a ``ScenarioErrors``), however deep: a part found wrong is taken out
    and the rest still checked, as far as it can be without it."""
    lines = lines or {}
    _require_mapping(data, source)
    problems = Problems()
    spec, taken = validate_into(problems, ScenarioFile, data, source, (), lines, mend=_stand_in)
    if spec is None or {("rules",), ("rules", "system")} & taken:
        problems.stop()  # no rule system: nothing more can be checked
    try:
        system_cls = _system(spec.rules.system, source, ("rules", "system"), lines)
    except ScenarioError as err:
        problems.add(err)
        problems.stop()
    opts_path = ("rules", "options")
    options, _ = validate_into(
        problems, system_cls.Options, spec.rules.options, source, opts_path, lines
    )
    if options is None:
        problems.stop()
    system = system_cls(options)
    sections = _all_sections(spec, system, source, base_dir, lines, problems)
    knowable = sections is not None and not any(t[0] in _NAMING_PARTS for t in taken)
    sides = _sides(spec, system, sections if knowable else None, source, lines, taken, problems)
    problems.raise_any()
    scenario = Scenario(
        name=spec.name,
        description=spec.description,
        source=source,
        system=system,
        environment=spec.environment,
        sides=sides,
        turn_limit=spec.turn_limit,
        seed=spec.seed,
        victory=spec.victory,
        data=copy.deepcopy(data),
    )
    _check_scenario(scenario, data, source, base_dir, lines)
    return scenario


def _stand_in(path: tuple, value: Any) -> Any:
    """What stands in for a refused part that the rest of a scenario needs in order to be
    checked (see validation.salvage): a name, a side, a member (taken out paths of a side or
    member mean: not checked further). None: the part just goes."""
    if path[-1:] == ("name",) and len(path) in (1, 3, 5):
        return "(" + " ".join(str(p + 1 if isinstance(p, int) else p) for p in path[:-1]) + ")"
    if len(path) == 2 and path[0] == "sides":
        return {"name": f"(sides {path[1] + 1})", "members": [{}]}
    if len(path) == 4 and path[2] == "members":
        return {}
    return None


def _check_scenario(scenario: Scenario, data: Any, source: str, base_dir: Path, lines) -> None:
    """The rule system's own checks of the whole scenario, its errors at their lines."""
    try:
        scenario.system.check_scenario(scenario)  # may read files the options name (a table)
    except ScenarioError as err:
        if err.file == source and err.line is None:
            err.line = line_of(lines, tuple(_parts(err.path)))
        elif err.file != source:  # inside a file the scenario names: say where it is named
            named = _naming(data, base_dir, err.file)
            raise err.referred_by(source, line_of(lines, named), format_path(named)) from None
        raise


def _all_sections(
    spec, system, source, base_dir: Path, lines, problems: Problems
) -> dict[str, dict[str, Any]] | None:
    """The weapons, armor and archetypes the scenario can name: its catalogues' in order,
    then its own, a later entry replacing an earlier one of the same name (a wrong one as
    ``BROKEN``). None when a catalogue could not be read: then no name can be judged."""
    sections: dict[str, dict[str, Any]] = {"weapons": {}, "armor": {}, "archetypes": {}}
    complete = True
    for i, rel in enumerate(spec.catalogues):
        where = (source, line_of(lines, ("catalogues", i)), f"catalogues[{i}]")
        try:
            validated = _catalogue_sections(base_dir, rel, where, system)
        except ScenarioError as err:
            problems.add(err)
            complete = False
            continue
        for key, value in validated.items():
            sections[key].update(value)
    for key, value in _validated_sections(system, spec, source, lines, problems).items():
        sections[key].update(value)
    return sections if complete else None


def _catalogue_sections(base_dir: Path, rel: str, where: tuple, system) -> dict[str, dict]:
    """The checked sections of the catalogue a scenario names at ``where``, or its errors
    (an error inside the catalogue also names ``where``)."""
    cat_path, text = catalogue_file(base_dir, rel, where)
    try:
        cat, cat_lines = _catalogue_text(str(cat_path), text)
        if not serves_system(cat.system, system):
            raise ScenarioError(
                str(cat_path),
                "system",
                cat.system,
                f"{system.name!r} or a system with the same catalogue format",
                cat_lines.get(("system",)),
            )
        system_cls: type = type(system)
        return _catalogue_entries(str(cat_path), text, system_cls)
    except ScenarioError as err:
        raise err.referred_by(*where) from None


# A sweep, a study or the page builds the same scenario many times, and reading and checking
# its catalogues was a third of each build. Both are kept per text (the file is read again
# each time, so an edit is seen): a checked catalogue is frozen models, and the archetypes
# are copied before a member's keys are merged in. Only a catalogue that checks is kept.
@functools.lru_cache(maxsize=16)
def _catalogue_text(cat_path: str, text: str) -> tuple[CatalogueFile, LineMap]:
    """The catalogue file ``text`` (read from ``cat_path``), parsed and checked as a whole."""
    cat_data, cat_lines = parse_yaml(text, cat_path)
    _require_mapping(cat_data, cat_path)
    return validate(CatalogueFile, cat_data, cat_path, (), cat_lines), cat_lines


@functools.lru_cache(maxsize=16)
def _catalogue_entries(cat_path: str, text: str, system_cls: type) -> dict[str, dict]:
    """The weapons, armor and archetypes of the catalogue ``text``, each checked by the
    models of ``system_cls`` (a class's own, whatever the options)."""
    cat, cat_lines = _catalogue_text(cat_path, text)
    problems = Problems()
    validated = _validated_sections(system_cls, cat, cat_path, cat_lines, problems)
    problems.raise_any()
    return validated


def _sides(spec, system, sections, source, lines, taken, problems) -> tuple[SideSpec, ...]:
    """Every side with its members expanded into fighters, each fighter's name its own. A
    bad member is reported and the next one checked; a side or member that stands in for a
    refused one (``taken``) is not checked, nor any member's sheet when ``sections`` is None
    (its names cannot be judged)."""
    sides, names = [], set[str]()
    for i, side in enumerate(spec.sides):
        fighters = []
        for j, member in enumerate(side.members):
            path = ("sides", i, "members", j)
            if path in taken or path[:2] in taken:
                continue
            expanded = []
            try:
                if sections is not None:
                    expanded = _expand(member, side, system, sections, source, path, lines)
            except ScenarioError as err:
                problems.add(err)
            except _Unchecked:
                pass
            _claim(_fighter_names(member, side, path), names, source, path, lines, problems)
            fighters += expanded
        if not any(member.count for member in side.members):
            problems.add(_nobody(side, i, source, lines))
        sides.append(SideSpec(side.name, tuple(fighters)))
    try:
        written = [
            None if {("sides", i), ("sides", i, "name")} & taken else s.name
            for i, s in enumerate(sides)
        ]
        _check_side_names(written, source, lines)
    except ScenarioError as err:
        problems.add(err)
    return tuple(sides)


def _fighter_names(member: MemberSpec, side, path: tuple) -> list[str]:
    """The names of a member's fighters: its name, else its archetype's, else its side's and
    place; numbered when it has more than one."""
    base = member.name or member.archetype or f"{side.name} {path[3] + 1}"
    return [base] if member.count == 1 else [f"{base} {k + 1}" for k in range(member.count)]


def _nobody(side, i: int, source, lines) -> ScenarioError:
    """A side whose every member has count 0 has nobody to fight (a count of 0 leaves one
    member out, as a sweep from 0 asks)."""
    path = ("sides", i, "members", 0, "count")
    return ScenarioError(
        source,
        format_path(path),
        0,
        f"a side with at least one fighter (every member of {side.name!r} has count 0)",
        line_of(lines, path),
    )


def _claim(new: list[str], names: set, source, path, lines, problems: Problems) -> None:
    """Add a member's fighter names to ``names``: a name taken already is a mistake, and
    so are more than ``MAX_COMBATANTS`` in all (which stops the checking: the file is
    not what its author meant)."""
    for name in new:
        if name in names:
            problems.add(
                ScenarioError(
                    source,
                    format_path(path + ("name",)),
                    name,
                    "a name no other combatant has",
                    line_of(lines, path),
                )
            )
            return
        names.add(name)
        if len(names) > MAX_COMBATANTS:
            problems.raise_any()
            raise ScenarioError(
                source,
                format_path(path + ("count",)),
                Described(f"more than {MAX_COMBATANTS} combatants in all"),
                f"at most {MAX_COMBATANTS} combatants in a scenario",
                line_of(lines, path),
            )


class _Unchecked(Exception):
    """A member that names a catalogue entry that is itself wrong (reported where it is
    written): the member is checked again once the entry is right."""


def _check_side_names(side_names: list[str | None], source, lines) -> None:
    if "draw" in side_names:  # battles.csv says "draw" in the winner column
        i = side_names.index("draw")
        raise ScenarioError(
            source,
            f"sides[{i}].name",
            "draw",
            "any other name ('draw' marks a drawn battle in the results)",
            line_of(lines, ("sides", i, "name")),
        )
    side_names = [n for n in side_names if n is not None]  # stand-ins for refused names
    if len(set(side_names)) != len(side_names):
        raise ScenarioError(
            source, "sides", side_names, "sides with distinct names", line_of(lines, ("sides",))
        )


def _expand(member: MemberSpec, side, system, sections, source, path, lines) -> list[FighterSpec]:
    """The fighters of one member entry: its sheet, weapons, armor and tactics, copied
    ``count`` times along ``spacing``. Every mistake of the member is reported at once."""
    problems = Problems()
    sheet, weapons, armor = _equipment(member, system, sections, source, path, lines, problems)
    tactics = rule_tactics = None
    try:
        tactics, rule_tactics = _tactics(member, side, system, source, path, lines)
    except ScenarioError as err:
        problems.add(err)
    problems.raise_any()
    if sheet is None or tactics is None or BROKEN in weapons or armor is BROKEN:
        raise _Unchecked
    _check_reload(tactics, weapons, member, sheet, source, path, lines)
    base = member.name or member.archetype or f"{side.name} {path[3] + 1}"
    out = []
    for k, name in enumerate(_fighter_names(member, side, path)):
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
    if member.start is not None and out:  # every copy starts alike
        start = start_of(member.start, out[0], system, source, path, lines)
        out = [dataclasses.replace(f, start=start) for f in out]
    return out


def _equipment(member, system, sections, source, path, lines, problems) -> tuple[Any, list, Any]:
    """The member's sheet (None when wrong), weapons and armor, every mistake added to
    ``problems``: a weapon or armor the member names is checked even when its sheet is
    wrong or its archetype unknown (from what the member writes)."""
    sheet = data = None
    try:
        data = _sheet_data(member, sections, source, path, lines)
        if data is not BROKEN:
            sheet = _sheet(member, data, system, sections, source, path, lines)
    except ScenarioError as err:
        problems.add(err)
    written = data if isinstance(data, dict) else (member.model_extra or {})
    names = sheet.weapons if sheet is not None else written.get("weapons")
    weapons = []
    for w, name in enumerate(names if isinstance(names, list | tuple) else ()):
        try:
            if isinstance(name, str):
                weapons.append(_weapon(name, w, system, sections, source, path, lines))
        except ScenarioError as err:
            problems.add(err)
    armor = sheet.armor if sheet is not None else written.get("armor")
    if isinstance(armor, str) and armor not in sections["armor"]:
        problems.add(_unknown(sections["armor"], "armor", armor, source, path, lines))
    return sheet, weapons, sections["armor"].get(armor) if isinstance(armor, str) else None


def _sheet_data(member: MemberSpec, sections, source, path, lines) -> Any:
    """The member's sheet as written: its archetype's, with the member's own keys merged
    over it (``BROKEN`` when its archetype is itself wrong)."""
    sheet_data: dict[str, Any] = {}
    if member.archetype is not None:
        if member.archetype not in sections["archetypes"]:
            raise _unknown(
                sections["archetypes"], "archetype", member.archetype, source, path, lines
            )
        if sections["archetypes"][member.archetype] is BROKEN:
            return BROKEN
        sheet_data = copy.deepcopy(sections["archetypes"][member.archetype])
    return _deep_merge(sheet_data, member.model_extra or {})


def _sheet(member: MemberSpec, sheet_data: dict, system, sections, source, path, lines) -> Any:
    """The member's sheet, checked by its rule system's model."""
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
    if weapon is BROKEN:
        return weapon
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
    own tactics (None when the system has no ``Tactics`` model). The generic and the rule
    tactics are both checked, every mistake reported."""
    problems = Problems()
    levels = []
    for where, tactics_ in (
        (path[:2] + ("tactics",), side.tactics),
        (path + ("tactics",), member.tactics),
    ):
        try:
            levels.append(_tactics_level(system, tactics_, source, where, lines))
        except ScenarioError as err:
            problems.add(err)
            levels.append(({}, {}))  # the other level is still checked
    merged = {**levels[0][0], **levels[1][0], "rules": {**levels[0][1], **levels[1][1]}}

    def written_at(level: int, *under: str):
        """Where a key of the merged tactics was written: the side's, if only it wrote it."""

        def path_of(loc: tuple) -> tuple:
            key = loc[0] if loc else None
            side_only = key in levels[0][level] and key not in levels[1][level]
            return (path[:2] if side_only else path) + ("tactics", *under)

        return path_of

    tactics, _ = validate_into(
        problems, Tactics, merged, source, path + ("tactics",), lines, path_of=written_at(0)
    )
    rules = tactics.rules if tactics is not None else merged["rules"]
    rule_tactics = None
    if system.Tactics is not None:
        rule_path = path + ("tactics", "rules")
        rule_tactics, _ = validate_into(
            problems,
            system.Tactics,
            rules,
            source,
            rule_path,
            lines,
            path_of=written_at(1, "rules"),
        )
    elif rules:
        problems.add(
            ScenarioError(
                source,
                format_path(path + ("tactics", "rules")),
                rules,
                f"nothing: {system.name} has no rule-specific tactics",
                line_of(lines, path + ("tactics", "rules")),
            )
        )
    if tactics is None:
        problems.stop()
    problems.raise_any()
    return tactics, rule_tactics


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


def _validated_sections(
    system, spec, file: str, lines: LineMap, problems: Problems
) -> dict[str, dict[str, Any]]:
    """The weapons, armor and archetypes of a file, each checked by the system's model; every
    bad entry is added to ``problems`` (archetypes at their source, not where a member names
    them) and kept as ``BROKEN``, a name known but not checkable."""
    out: dict[str, dict[str, Any]] = {"weapons": {}, "armor": {}, "archetypes": {}}
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
                out[section][n] = BROKEN
                continue
            out[section][n] = d if section == "archetypes" else valid
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


def serves_system(catalogue_system: str, system) -> bool:
    """A catalogue serves every system that reads the same weapons, armor and sheets
    (``sr-d8`` uses ``sr-classic`` catalogues)."""
    cls = system_class(catalogue_system)
    return cls is not None and all(
        getattr(cls, model) is getattr(system, model) for model in ("Weapon", "Armor", "Sheet")
    )
