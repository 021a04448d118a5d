"""Turn pydantic's validation errors into one ``ScenarioError`` a user can act on.

Each message says what to write instead: an unknown key lists the keys allowed at that place
(a misspelt ``skills.firarms`` lists the skills, not the member's keys) with a "did you mean";
a choice among words suggests the nearest; a coordinate pair says ``[x, y] in meters``.
"""

from __future__ import annotations

import copy
import re
import types
import typing
from collections.abc import Callable
from typing import Any, TypeVar

from pydantic import BaseModel, ValidationError

from ..errors import Described, Problem, Problems, ScenarioError, did_you_mean
from ..names import MAX_NAME, NAME_RULE, name_problem
from .yamlio import LineMap, format_path, line_of

M = TypeVar("M", bound=BaseModel)


def validate(
    model: type[M],
    data: Any,
    file: str,
    path: tuple = (),
    lines: LineMap | None = None,
    extra_allowed: tuple[str, ...] = (),
    path_of: Callable[[tuple], tuple] | None = None,
) -> M:
    """``model.model_validate(data)``, or a ScenarioError naming file, field path and line
    (a ``ScenarioErrors`` when several fields are wrong: pydantic reports them all).
    ``path_of(loc)``, when given, is the path a field error stands under instead of ``path``
    (merged tactics: a key the side wrote is reported under the side)."""
    try:
        return model.model_validate(data)
    except ValidationError as err:
        problems = Problems()
        for one in to_scenario_errors(err, model, file, path, lines or {}, extra_allowed, path_of):
            problems.add(one)
        problems.raise_any()
        raise AssertionError("a ValidationError has at least one error") from None


def validate_into(
    problems: Problems,
    model: type[M],
    data: Any,
    file: str,
    path: tuple = (),
    lines: LineMap | None = None,
    mend: Callable[[tuple, Any], Any] | None = None,
    **more: Any,
) -> tuple[M | None, frozenset[tuple]]:
    """``validate``, its mistakes added to ``problems`` rather than raised, so that checking
    goes on past them: the model of ``data`` with every part it refuses taken out (a default
    in its place, see ``salvage``) and the paths taken out; None when it has no model."""
    try:
        return validate(model, data, file, path, lines, **more), frozenset()
    except ScenarioError as err:
        problems.add(err)
    return salvage(model, data, mend)


MAX_MENDS = 200  # rounds of taking parts out before a file is given up as beyond checking


def salvage(
    model: type[M], data: Any, mend: Callable[[tuple, Any], Any] | None = None
) -> tuple[M | None, frozenset[tuple]]:
    """``model`` of a copy of ``data`` whose refused parts are taken out, round after round
    (a refused key deleted, so its default applies; a list that holds a refused item as a
    whole), and the paths taken out. ``mend(path, value)``, when given, offers a stand-in for
    an item of a list (a side, a member: the others keep their indexes) or for a required
    key that had to go (a name), to keep the rest checkable; None for no stand-in."""
    data = copy.deepcopy(data)
    taken: set[tuple] = set()
    for _ in range(MAX_MENDS):
        try:
            return model.model_validate(data), frozenset(taken)
        except ValidationError as err:
            targets = {_refused(data, tuple(e["loc"]), e["type"]) for e in err.errors()}
        done: list[tuple] = []
        for target in sorted(targets, key=len):
            if any(target[: len(t)] == t for t in done):
                continue  # inside a part already taken out this round
            out = _take_out(data, target, taken, mend)
            if out is None:
                return None, frozenset(taken)
            done.append(out)
    return None, frozenset(taken)


def _refused(data: Any, loc: tuple, kind: str) -> tuple:
    """The path in ``data`` of the part an error refuses: as far down ``loc`` as the data
    goes (a mapping's bad key: the entry; a missing key: the key, to be mended or its owner
    taken out)."""
    if loc and loc[-1] == "[key]":
        loc = loc[:-1]
    out: tuple = ()
    current = data
    for part in loc:
        inside = (isinstance(current, dict) and part in current) or (
            isinstance(current, list) and isinstance(part, int) and 0 <= part < len(current)
        )
        if not inside:
            return out + (part,) if kind == "missing" and isinstance(current, dict) else out
        out, current = out + (part,), current[part]
    return out


def _take_out(data: Any, path: tuple, taken: set[tuple], mend) -> tuple | None:
    """Take the part at ``path`` out of ``data`` (or put a stand-in in its place); the path
    of what was taken out, None when nothing is left to take (the whole file is refused)."""
    while path:
        owner = data
        for part in path[:-1]:
            owner = owner[part]
        key = path[-1]
        present = key in owner if isinstance(owner, dict) else True
        stand_in = None
        if mend is not None and path not in taken:
            stand_in = mend(path, owner[key] if present else None)
        taken.add(path)
        if stand_in is not None:
            owner[key] = stand_in
            return path
        if isinstance(owner, dict) and present:
            del owner[key]
            return path
        path = path[:-1]  # a list's item, or a required key: its owner goes
    return None


def to_scenario_error(
    err: ValidationError,
    model: type[BaseModel],
    file: str,
    path: tuple,
    lines: LineMap,
    extra_allowed: tuple[str, ...] = (),
) -> ScenarioError:
    """The first of ``to_scenario_errors``: the one a one-line message shows."""
    return to_scenario_errors(err, model, file, path, lines, extra_allowed)[0]


def to_scenario_errors(
    err: ValidationError,
    model: type[BaseModel],
    file: str,
    path: tuple,
    lines: LineMap,
    extra_allowed: tuple[str, ...] = (),
    path_of: Callable[[tuple], tuple] | None = None,
) -> list[ScenarioError]:
    """One ``ScenarioError`` per mistake pydantic found. A misspelt key shows up as the right
    key missing and the wrong one unknown: the unknown one, with its "did you mean", is the
    one shown (first, where it was first), the missing one dropped."""
    errors = err.errors(include_url=False)
    unknown_under = {tuple(e["loc"])[:-1] for e in errors if e["type"] == "extra_forbidden"}
    first = errors[0]
    if first["type"] == "missing" and tuple(first["loc"])[:-1] in unknown_under:
        parent = tuple(first["loc"])[:-1]
        first = next(
            e for e in errors if e["type"] == "extra_forbidden" and tuple(e["loc"])[:-1] == parent
        )
    ordered = [first] + [
        e
        for e in errors
        if e is not first and not (e["type"] == "missing" and tuple(e["loc"])[:-1] in unknown_under)
    ]
    out = []
    for one in ordered:
        where = path_of(tuple(one["loc"])) if path_of is not None else path
        out.append(_one_error(one, err, model, file, where, lines, extra_allowed))
    return out


def _one_error(
    record: Any,
    err: ValidationError,
    model: type[BaseModel],
    file: str,
    path: tuple,
    lines: LineMap,
    extra_allowed: tuple[str, ...],
) -> ScenarioError:
    """One of pydantic's error records as a ScenarioError saying what to write instead."""
    loc = tuple(record["loc"])
    kind = record["type"]
    hint = None
    if loc and loc[-1] == "[key]":  # a bad key of a mapping: name the mapping, not the key
        line = line_of(lines, path + loc[:-1])
        loc = loc[:-2]
    else:
        line = None
    # position, spacing: one message for every way a pair's shape goes wrong; a number in it
    # that is out of bounds or not finite keeps its own message (see bounds.py)
    pair = None if kind in _BOUND_ERRORS else _pair_at(model, loc)
    if pair is not None:
        loc = loc[:pair]
        found = _input_at(err, loc)
        allowed = "[x, y] in meters, e.g. [0, 3]"
    elif kind == "extra_forbidden":
        owner = _model_at(model, loc[:-1])
        # a member's own keys are allowed beside its sheet's, but not inside skills: {...}
        extra = extra_allowed if len(loc) == 1 else ()
        keys = sorted(set(owner.model_fields) | set(extra)) if owner else []
        found = Described(f"unknown key {loc[-1]!r}")
        hint = did_you_mean(loc[-1], keys)
        allowed = "the keys " + ", ".join(keys) if keys else "no extra keys"
    elif kind == "missing":
        found = Problem(f"{loc[-1]!r} is missing")
        allowed = f"a value for {loc[-1]!r} (required)"
    else:
        found = record.get("input")
        allowed = record["msg"].replace("Input should be ", "").replace("Value error, ", "")
        if kind in ("literal_error", "enum"):
            hint = did_you_mean(found, re.findall(r"'([^']*)'", record["ctx"]["expected"]))
        elif allowed == NAME_RULE and isinstance(found, str) and len(found) <= MAX_NAME:
            hint = name_problem(found)  # (a longer one's length is shown with it)
    full = path + loc
    line = line if line is not None else line_of(lines, full)
    return ScenarioError(file, format_path(full), found, allowed, line, hint)


def _pair_at(model: type[BaseModel], loc: tuple) -> int | None:
    """How much of ``loc`` leads to a ``tuple[float, float]`` field (an [x, y] position), if
    the error lies in one."""
    current: Any = model
    for depth, part in enumerate(loc):
        if isinstance(part, int):
            continue
        if not (isinstance(current, type) and issubclass(current, BaseModel)):
            return None
        field = current.model_fields.get(part)
        if field is None:
            return None
        if _is_pair(field.annotation):
            return depth + 1
        current = _inner_model(field.annotation)
    return None


_BOUND_ERRORS = frozenset(
    ("finite_number", "greater_than", "greater_than_equal", "less_than", "less_than_equal")
)


def _is_pair(annotation: Any) -> bool:
    """``tuple[float, float]``, its floats plain or ``Annotated`` with bounds."""
    if typing.get_origin(annotation) is not tuple:
        return False
    args = typing.get_args(annotation)
    return len(args) == 2 and all(
        (typing.get_args(a)[0] if typing.get_origin(a) is typing.Annotated else a) is float
        for a in args
    )


def _input_at(err: ValidationError, loc: tuple) -> Any:
    """The value the user wrote at ``loc`` (pydantic reports only the innermost part)."""
    for e in err.errors(include_url=False):
        if tuple(e["loc"]) == loc:
            return e.get("input")
    return Described("a value that is not a pair of numbers")


def _model_at(model: type[BaseModel], loc: tuple) -> type[BaseModel] | None:
    """The pydantic model that owns the field at ``loc`` (for listing its allowed keys)."""
    current: Any = model
    for part in loc:
        if isinstance(part, int):
            continue
        if not (isinstance(current, type) and issubclass(current, BaseModel)):
            return None
        field = current.model_fields.get(part)
        if field is None:
            return None
        current = _inner_model(field.annotation)
    return current if isinstance(current, type) and issubclass(current, BaseModel) else None


def _inner_model(annotation: Any) -> Any:
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return annotation
    origin = typing.get_origin(annotation)
    if origin in (typing.Union, types.UnionType, list, tuple, dict, typing.Annotated):
        for arg in typing.get_args(annotation):
            inner = _inner_model(arg)
            if inner is not None:
                return inner
    return None
