"""Turn pydantic's validation errors into one ``ScenarioError`` a user can act on."""

from __future__ import annotations

import types
import typing
from typing import Any, TypeVar

from pydantic import BaseModel, ValidationError

from ..errors import Described, ScenarioError
from .yamlio import LineMap, format_path, line_of

M = TypeVar("M", bound=BaseModel)


def validate(
    model: type[M],
    data: Any,
    file: str,
    path: tuple = (),
    lines: LineMap | None = None,
    extra_allowed: tuple[str, ...] = (),
) -> M:
    """``model.model_validate(data)``, or a ScenarioError naming file, field path and line."""
    try:
        return model.model_validate(data)
    except ValidationError as err:
        raise to_scenario_error(err, model, file, path, lines or {}, extra_allowed) from None


def to_scenario_error(
    err: ValidationError,
    model: type[BaseModel],
    file: str,
    path: tuple,
    lines: LineMap,
    extra_allowed: tuple[str, ...] = (),
) -> ScenarioError:
    first = err.errors(include_url=False)[0]
    loc = tuple(first["loc"])
    full = path + loc
    kind = first["type"]
    if kind == "extra_forbidden":
        owner = _model_at(model, loc[:-1])
        keys = sorted(set(owner.model_fields) | set(extra_allowed)) if owner else []
        found = Described(f"unknown key {loc[-1]!r}")
        allowed = "the keys " + ", ".join(keys) if keys else "no extra keys"
    elif kind == "missing":
        found = Described("nothing")
        allowed = f"a value for {loc[-1]!r} (required)"
    else:
        found = first.get("input")
        allowed = first["msg"].replace("Input should be ", "").replace("Value error, ", "")
    return ScenarioError(file, format_path(full), found, allowed, line_of(lines, full))


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
