"""Variants of a scenario: set a field of its YAML mapping to other values and validate again.

A **field path** names one place in a scenario file, the way a validation error names it::

    sides[0].members[1].weapons[0]        # list items by position, from 0
    sides[corp security].members[Guard].armor   # or by their ``name``
    sides[1].members[*].armor             # every item of a list
    rules.options.wound_modifiers         # mapping keys, created when missing
    turn_limit

A member that takes a field from its archetype (``weapons``, ``armor``, ``skills``...) gets a
copy of the archetype's value first, so ``weapons[0]`` swaps the first weapon and keeps the
rest, and ``skills.firearms`` changes one skill and keeps the others.

**Values** are written as in the scenario file (YAML), separated by commas: ``ak97,fn_har``,
``on,off``, ``[ak97, katana],[fn_har]``; ``2..6`` is 2, 3, 4, 5, 6 and ``0..12/3`` is 0, 3,
6, 9, 12. A **vary** is ``[NAME:]PATH=VALUES``; NAME (default: the path) heads the column of
the results table.

A variant is the scenario's mapping (``Scenario.data``) with the fields set, validated again
by ``build_scenario`` exactly as a file would be, so a bad value is refused with the usual
error naming the field.
"""

from __future__ import annotations

import copy
import itertools
import json
import math
import os
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..errors import (
    CombatsimError,
    Described,
    ScenarioError,
    UsageError,
    did_you_mean,
    parse_integer,
    too_many_digits,
)
from ..limits import MAX_DIGITS, MAX_PATH_STEPS, MAX_VALUES, MAX_VARIANTS, MAX_VARIES
from ..safeyaml import load_yaml, parse_yaml

ALL = "*"
_KEY = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_DIGITS = re.compile(r"\d+")
_RANGE = re.compile(r"^\s*(-?\d+)\s*\.\.\s*(-?\d+)\s*(?:/\s*(\d+)\s*)?$")


@dataclass(frozen=True)
class Name:
    """A list item chosen by its ``name`` field: ``members[Grunt]``."""

    name: str


Step = str | int | Name  # a mapping key, a list position (or ALL), an item by name


@dataclass(frozen=True)
class FieldPath:
    """A parsed field path (see the module docstring)."""

    text: str
    steps: tuple[Step, ...]

    @classmethod
    def parse(cls, text: str) -> FieldPath:
        text = text.strip()
        steps: list[Step] = []
        rest = text
        while True:
            match = _KEY.match(rest)
            if not match:
                raise UsageError(
                    "field path", text, "keys joined by dots, each with optional [N], [*] or [name]"
                )
            steps.append(match.group())
            rest = rest[match.end() :]
            while rest.startswith("["):
                close = rest.find("]")
                if close < 0:
                    raise UsageError("field path", text, "a ] closing every [")
                steps.append(_selector(rest[1:close], text))
                rest = rest[close + 1 :]
            if len(steps) > MAX_PATH_STEPS:
                raise UsageError(
                    "field path",
                    Described(f"{text[:40]}... (more than {MAX_PATH_STEPS} steps)"),
                    f"a path of at most {MAX_PATH_STEPS} keys and [..] (a file nests no deeper)",
                )
            if not rest:
                return cls(text, tuple(steps))
            if not rest.startswith("."):
                raise UsageError("field path", text, "keys joined by dots, e.g. sides[0].name")
            rest = rest[1:]

    def __str__(self) -> str:
        return self.text

    def set(self, data: Any, value: Any, inherit: Inheritance | None = None) -> None:
        """Set the field to ``value`` in ``data`` (in place: give it a copy)."""
        _set(data, self.steps, value, (), self, inherit)


def _selector(inner: str, text: str) -> Step:
    inner = inner.strip()
    if inner == ALL:
        return ALL
    if re.fullmatch(r"-?\d+", inner):
        return parse_integer("field path", inner)
    if len(inner) >= 2 and inner[0] == inner[-1] and inner[0] in "'\"":
        inner = inner[1:-1]
    if not inner:
        raise UsageError("field path", text, "a position, * or a name inside []")
    return Name(inner)


def _where(path: tuple) -> str:
    out = ""
    for part in path:
        out += f"[{part}]" if isinstance(part, int) else (f".{part}" if out else str(part))
    return out or "the scenario"


def _set(node: Any, steps: tuple, value: Any, path: tuple, fp: FieldPath, inherit) -> None:
    step, rest = steps[0], steps[1:]
    if isinstance(step, str) and step != ALL:
        if not isinstance(node, dict):
            raise _path_error(fp, f"{_where(path)} is not a mapping (it has no .{step})")
        if not rest:
            node[step] = copy.deepcopy(value)
            return
        if node.get(step) is None:
            inherited = inherit.lookup(path, node, step) if inherit is not None else None
            if inherited is not None:
                node[step] = copy.deepcopy(inherited)
            elif isinstance(rest[0], str) and rest[0] != ALL:
                node[step] = {}
            else:
                raise _path_error(fp, f"{_where((*path, step))} is not in the scenario")
        _set(node[step], rest, value, (*path, step), fp, inherit)
        return
    if not isinstance(node, list):
        raise _path_error(fp, f"{_where(path)} is not a list")
    positions: Sequence[int]
    if step == ALL:
        positions = range(len(node))
    elif isinstance(step, Name):
        positions = [i for i, item in enumerate(node) if _name(item) == step.name]
        if not positions:
            names = [n for n in (_name(item) for item in node) if n is not None]
            known = ", ".join(names) if names else "none has a name"
            hint = did_you_mean(step.name, names)
            why = f"{_where(path)} has no item named {step.name!r}" + (f"; {hint}" if hint else "")
            raise _path_error(fp, f"{why} ({known})")
    else:
        if not 0 <= step < len(node):
            raise _path_error(
                fp, f"{_where(path)} has {len(node)} items, so [{step}] is not one of them"
            )
        positions = [step]
    for i in positions:
        if rest:
            _set(node[i], rest, value, (*path, i), fp, inherit)
        else:
            node[i] = copy.deepcopy(value)


def _name(item: Any) -> str | None:
    return item.get("name") if isinstance(item, dict) else None


def _path_error(fp: FieldPath, why: str) -> UsageError:
    return UsageError("field path", fp.text, f"a field of the scenario ({why})")


class Inheritance:
    """Where a member's missing fields come from: its archetype, in the scenario or in its
    catalogues (later catalogues and the scenario's own archetypes win, as when loading)."""

    def __init__(self, data: dict, base_dir: Path):
        self.data, self.base_dir = data, base_dir
        self._archetypes: dict[str, Any] | None = None

    def lookup(self, path: tuple, node: dict, key: str) -> Any:
        is_member = len(path) == 4 and path[0] == "sides" and path[2] == "members"
        archetype = node.get("archetype") if is_member else None
        if archetype is None:
            return None
        return self.archetypes().get(archetype, {}).get(key)

    def archetypes(self) -> dict[str, Any]:
        if self._archetypes is None:
            from ..scenario.shipped import is_shipped, shipped_path

            merged: dict[str, Any] = {}
            for rel in self.data.get("catalogues") or []:
                # a bare name is a shipped catalogue (as the loader reads it), else a path
                shipped = shipped_path(rel) if isinstance(rel, str) and is_shipped(rel) else None
                try:
                    catalogue, _ = load_yaml(shipped or self.base_dir / str(rel))
                except (CombatsimError, TypeError):
                    continue  # build_scenario reports a missing or broken catalogue
                if isinstance(catalogue, dict):
                    merged.update(catalogue.get("archetypes") or {})
            merged.update(self.data.get("archetypes") or {})
            self._archetypes = merged
        return self._archetypes


# --- values -----------------------------------------------------------------------------------


def parse_values(text: str, argument: str = "values") -> list[tuple[Any, Any]]:
    """``(label, value)`` pairs from ``a,b,c``, ``LO..HI`` or ``LO..HI/STEP`` (see module doc).

    A value is read as YAML, the way the scenario file would read it; its label (the results
    table's cell) is the number for a number and the text as written otherwise.
    """
    out: list[tuple[Any, Any]] = []
    longest = max((len(run) for run in _DIGITS.findall(text)), default=0)
    if longest > MAX_DIGITS:
        raise UsageError(argument, Described(f"a number of {longest:,} digits"), too_many_digits())
    for item in _split_top_level(text):
        match = _RANGE.match(item)
        if match:
            low, high, step = int(match[1]), int(match[2]), int(match[3] or 1)
            if step < 1 or high < low:
                raise UsageError(argument, item, "LO..HI or LO..HI/STEP with LO <= HI, STEP >= 1")
            if (high - low) // step + 1 > MAX_VALUES:
                raise UsageError(argument, item, f"a range of at most {MAX_VALUES} values")
            out += [(v, v) for v in range(low, high + 1, step)]
            continue
        if not item.strip():
            raise UsageError(argument, text, "values separated by single commas")
        try:
            value, _ = parse_yaml(item, argument)
        except ScenarioError as err:
            raise UsageError(
                argument, item, f"a value written as in the scenario file ({err.found})"
            ) from None
        out.append((label_of(value, item.strip()), value))
    if not out:
        raise UsageError(argument, text, "at least one value")
    if len(out) > MAX_VALUES:
        raise UsageError(argument, f"{len(out)} values", f"at most {MAX_VALUES} values")
    return out


def label_of(value: Any, text: str | None = None) -> Any:
    """The table cell for a value: numbers as numbers, anything else as short text."""
    if isinstance(value, int | float) and not isinstance(value, bool):
        return value
    if text is not None:
        return text
    if isinstance(value, str):
        return value
    if isinstance(value, bool):
        return "on" if value else "off"
    return json.dumps(value, separators=(",", ":"), default=str)


def _split_top_level(text: str) -> list[str]:
    items: list[str] = []
    current: list[str] = []
    depth, quote = 0, None
    for ch in text:
        if quote:
            quote = None if ch == quote else quote
        elif ch in "'\"":
            quote = ch
        elif ch in "[{":
            depth += 1
        elif ch in "]}":
            depth -= 1
        elif ch == "," and depth == 0:
            items.append("".join(current))
            current = []
            continue
        current.append(ch)
    items.append("".join(current))
    return items


# --- varies and variants ----------------------------------------------------------------------


@dataclass(frozen=True)
class Vary:
    """One varied field: its column ``name``, its ``path`` and its ``values`` as
    ``(label, value)`` pairs."""

    name: str
    path: FieldPath
    values: tuple[tuple[Any, Any], ...]

    @property
    def labels(self) -> list[Any]:
        return [label for label, _ in self.values]

    def to_json(self) -> dict[str, Any]:
        return {"name": self.name, "path": self.path.text, "values": self.labels}


def parse_vary(spec: str, argument: str = "--vary") -> Vary:
    """A ``[NAME:]PATH=VALUES`` command-line vary."""
    depth, cut = 0, -1
    for i, ch in enumerate(spec):
        depth += ch == "["
        depth -= ch == "]"
        if ch == "=" and depth == 0:
            cut = i
            break
    if cut < 0:
        raise UsageError(argument, spec, "[NAME:]PATH=VALUES, e.g. sides[1].members[0].count=2..6")
    left, values = spec[:cut].strip(), spec[cut + 1 :]
    name = None
    colon = _top_level_colon(left)
    if colon >= 0:
        name, left = left[:colon].strip(), left[colon + 1 :].strip()
        if not name:
            raise UsageError(argument, spec, "a name before the colon, or no colon")
    try:
        path = FieldPath.parse(left)
    except UsageError as err:
        raise UsageError(argument, shortened(spec), err.allowed) from None
    return make_vary(name or path.text, path, parse_values(values, argument), argument)


def shortened(text: str, keep: int = 60) -> str:
    """``text``, or its start and its length when it is too long to echo on one line."""
    if len(text) <= 2 * keep:
        return text
    return Described(f"{text[:keep]!r}... ({len(text):,} characters)")


def make_vary(
    name: str,
    path: FieldPath | str,
    values: Sequence[tuple[Any, Any]],
    argument: str = "vary",
) -> Vary:
    """A ``Vary``, however it was given (command line, sweep file, Python, the page): its name
    heads a column of the results' CSV files and its text labels fill cells, so a name keeps
    the rule of names and a text label the rule of cells (``combatsim.names``), refused here
    naming ``argument``."""
    from ..names import CELL_RULE, NAME_RULE, cell_problem, name_problem

    if isinstance(path, str):
        path = FieldPath.parse(path)
    if name != path.text and (problem := name_problem(name)) is not None:
        raise UsageError(argument, shortened(name), NAME_RULE, problem)
    labels = [label for label, _ in values]
    for label in labels:
        if isinstance(label, str) and (problem := cell_problem(label)) is not None:
            raise UsageError(argument, shortened(label), CELL_RULE, problem)
    if len({json.dumps(v, sort_keys=True, default=str) for v in labels}) != len(labels):
        raise UsageError(name, labels, "each value once")
    return Vary(name, path, tuple(values))


def _top_level_colon(text: str) -> int:
    depth = 0
    for i, ch in enumerate(text):
        depth += ch == "["
        depth -= ch == "]"
        if ch == ":" and depth == 0:
            return i
    return -1


@dataclass(frozen=True)
class Variant:
    """One scenario of a sweep: ``values`` maps each vary's name to its label here."""

    values: dict[str, Any]
    scenario: Any
    settings: tuple[tuple[str, Any], ...] = field(default=())  # (path text, value) applied

    def describe(self) -> str:
        return ", ".join(f"{k}={v}" for k, v in self.values.items()) or "(as written)"


def apply(scenario, sets: Sequence[tuple[FieldPath, Any]], label: str | None = None):
    """``scenario`` with each ``(path, value)`` set, validated again (a new ``Scenario``)."""
    from ..scenario import build_scenario

    if not sets:
        return scenario
    own = getattr(scenario, "with_sets", None)  # a chain of encounters makes its own variants
    if own is not None:
        return own(sets, label)
    data = getattr(scenario, "data", None)
    if not isinstance(data, dict):
        raise UsageError("scenario", scenario.name, "a scenario loaded from a file, to vary")
    base_dir = Path(scenario.source).parent
    data = copy.deepcopy(data)
    inherit = Inheritance(data, base_dir)
    for path, value in sets:
        path.set(data, value, inherit)
    try:
        return build_scenario(data, scenario.source, base_dir)
    except ScenarioError as err:
        raise CombatsimError(f"{label or 'variant'}: {err}") from None


def sets_from(sets: Sequence[Any], argument: str) -> list[tuple[FieldPath, Any]]:
    out = []
    for item in sets:
        if isinstance(item, str):
            if "=" not in item:
                raise UsageError(argument, item, "PATH=VALUE, e.g. sides[1].members[0].count=5")
            vary = parse_vary(item, argument)
            if len(vary.values) != 1:
                raise UsageError(argument, item, "PATH=VALUE with a single value")
            out.append((vary.path, vary.values[0][1]))
        else:
            if isinstance(item, str | bytes) or not isinstance(item, Sequence) or len(item) != 2:
                raise UsageError(argument, item, "'PATH=VALUE' or a (path, value) pair")
            path, value = item
            out.append((FieldPath.parse(path) if isinstance(path, str) else path, value))
    return out


def set_fields(scenario, sets: Sequence[Any], argument: str = "--set") -> Variant:
    """``scenario`` (a file or a loaded ``Scenario``) with ``sets`` applied (``"PATH=VALUE"``
    strings or ``(path, value)`` pairs) and validated again; its ``settings`` list them."""
    from ..run import load

    return variant_of(argument, load(scenario), sets_from(sets, argument))


def variant_of(name: str, scenario, sets) -> Variant:
    built = apply(scenario, sets, f"{name}") if sets else scenario
    return Variant({"variant": name}, built, tuple((p.text, v) for p, v in sets))


def grid(scenario, varies: Sequence[Vary]) -> list[Variant]:
    """Every combination of the varies' values (the first vary changes slowest), validated."""
    names = [v.name for v in varies]
    if len(set(names)) != len(names):
        raise UsageError("--vary", names, "a different NAME for each varied field")
    if len(varies) > MAX_VARIES:
        raise UsageError("--vary", f"{len(varies)} fields", f"at most {MAX_VARIES} varied fields")
    combinations = math.prod(len(v.values) for v in varies)
    if combinations > MAX_VARIANTS:
        raise UsageError(
            "--vary", f"{combinations:,} combinations", f"at most {MAX_VARIANTS:,} variants"
        )
    variants = []
    for combo in itertools.product(*(v.values for v in varies)):
        values = {v.name: label for v, (label, _) in zip(varies, combo, strict=True)}
        sets = [(v.path, value) for v, (_, value) in zip(varies, combo, strict=True)]
        text = ", ".join(f"{k}={label}" for k, label in values.items())
        built = apply(scenario, sets, f"variant {text}")
        variants.append(Variant(values, built, tuple((p.text, value) for p, value in sets)))
    return variants


def as_written(scenario, varies: Sequence[Vary]) -> Variant:
    """The scenario as written, as a variant of the sweep: the baseline every row is read
    against. Each vary's column holds the value the file gives at its path (a member's
    inherited field from its archetype), or None where the path holds several values
    (``members[*]`` with different armor) or none."""
    data = getattr(scenario, "data", None)
    values: dict[str, Any] = {}
    for vary in varies:
        found: list[Any] = []
        if hasattr(scenario, "values_at"):  # a chain reads its own file and encounters
            found = scenario.values_at(vary.path)
        elif isinstance(data, dict):
            found = read_values(data, vary.path, Inheritance(data, Path(scenario.source).parent))
        unique = {json.dumps(v, sort_keys=True, default=str) for v in found}
        values[vary.name] = label_of(found[0]) if found and len(unique) == 1 else None
    return Variant(values, scenario)


def read_values(data: Any, path: FieldPath, inherit: Inheritance | None) -> list[Any]:
    """The values ``data`` holds at ``path`` (a member's field from its archetype with
    ``inherit``), as ``FieldPath.set`` walks: several for ``[*]``, none where it holds none."""
    found: list[Any] = []
    _read(data, path.steps, (), inherit, found)
    return found


def _read(node: Any, steps: tuple, path: tuple, inherit: Inheritance | None, out: list) -> None:
    """Collect the values at ``steps`` under ``node`` into ``out`` (as ``_set`` walks)."""
    if not steps:
        out.append(node)
        return
    step, rest = steps[0], steps[1:]
    if isinstance(step, str) and step != ALL:
        if not isinstance(node, dict):
            return
        value = node.get(step)
        if value is None and inherit is not None:
            value = inherit.lookup(path, node, step)
        if value is not None:
            _read(value, rest, (*path, step), inherit, out)
        return
    if not isinstance(node, list):
        return
    positions: Sequence[int]
    if step == ALL:
        positions = range(len(node))
    elif isinstance(step, Name):
        positions = [i for i, item in enumerate(node) if _name(item) == step.name]
    else:
        positions = [step] if 0 <= step < len(node) else []
    for i in positions:
        _read(node[i], rest, (*path, i), inherit, out)


# --- sweep files ------------------------------------------------------------------------------


def _sweep_models():
    from pydantic import BaseModel, Field

    from ..bounds import STRICT
    from ..limits import MAX_BATTLES, MAX_SEED, MIN_PRECISION, PRECISION_BELOW
    from ..names import Name  # noqa: F401 - pydantic reads it from the annotation below

    class Strict(BaseModel):
        model_config = STRICT

    class VaryEntry(Strict):
        name: Name | None = None  # heads a column of the results' CSV files
        path: str
        values: list[Any] | str = Field(min_length=1, max_length=MAX_VALUES)

    class SweepFile(Strict):
        scenario: str | None = None
        battles: int | None = Field(None, ge=1, le=MAX_BATTLES)
        seed: int | None = Field(None, ge=0, le=MAX_SEED)
        precision: float | None = Field(None, ge=MIN_PRECISION, lt=PRECISION_BELOW)
        vary: list[VaryEntry] = Field(min_length=1, max_length=MAX_VARIES)

    return SweepFile


@dataclass(frozen=True)
class SweepSpec:
    """A sweep file: the scenario (a path relative to the working folder), the varies, and
    optional defaults for ``--battles``, ``--seed`` and ``--precision``."""

    scenario: str | None
    varies: tuple[Vary, ...]
    battles: int | None = None
    seed: int | None = None
    precision: float | None = None
    source: str | None = None  # the sweep file, and the line of its ``scenario:``
    scenario_line: int | None = None

    def referring(self, err: ScenarioError) -> ScenarioError:
        """``err`` (from loading the scenario this file names) noting the line naming it."""
        if self.source is None or err.file == self.source:
            return err
        return err.referred_by(self.source, self.scenario_line, "scenario")


def load_sweep_file(path: str | Path) -> SweepSpec:
    """Read a sweep file (YAML)::

        scenario: ../scenarios/sr-firefight-4v4.yaml   # relative to this file
        battles: 2000                                  # optional, like --battles
        vary:
          - name: weapon                               # optional: the column's name
            path: sides[0].members[Grunt].weapons[0]
            values: [ak97, ak97_smart, fn_har, hk227]
          - path: sides[1].members[*].armor
            values: armor_vest, lined_coat, security_armor   # or text, as after --vary ...=

    Errors name the file, the field and the line.
    """
    from ..scenario.validation import validate

    data, lines = load_yaml(path)
    if not isinstance(data, dict):
        raise ScenarioError(str(path), "(top level)", type(data).__name__, "a mapping")
    spec = validate(_sweep_models(), data, str(path), (), lines)
    varies = []
    for i, entry in enumerate(spec.vary):
        where = ("vary", i)
        try:
            fp = FieldPath.parse(entry.path)
            if isinstance(entry.values, str):
                pairs = parse_values(entry.values, "values")
            else:
                pairs = [(label_of(v), v) for v in entry.values]
            varies.append(make_vary(entry.name or fp.text, fp, pairs, "values"))
        except UsageError as err:
            key = "path" if err.argument == "field path" else "values"
            raise ScenarioError(
                str(path),
                f"vary[{i}].{key}",
                err.found,
                err.allowed,
                lines.get((*where, key)),
                err.hint,
            ) from None
    scenario = None
    if spec.scenario is not None:
        scenario = os.path.normpath(Path(path).parent / spec.scenario)
    return SweepSpec(
        scenario,
        tuple(varies),
        spec.battles,
        spec.seed,
        spec.precision,
        str(path),
        lines.get(("scenario",)),
    )
