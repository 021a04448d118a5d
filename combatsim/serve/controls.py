"""The form controls of a scenario's settings: its rule system's ``rules.options``, the tactics
every system reads (``tactics:``) and the system's own (``tactics: {rules: {...}}``, 2097's
Edge spending), read off the pydantic models so the page offers choices, numbers and toggles
(with their bounds, defaults and help) instead of raw JSON, and never goes stale.

Only plain fields become controls: a flag, a choice of words, a number; a nested table (2097's
``range_tn``, ``cover``...) stays in the YAML tab.
"""

from __future__ import annotations

import types
import typing
from typing import Any

from pydantic import BaseModel
from pydantic.fields import FieldInfo

NUMBERS = (int, float)


def system_controls(system: str) -> dict[str, list[dict[str, Any]]]:
    """``{"options": [...], "tactics": [...], "rule_tactics": [...]}`` for the rule system
    ``system`` (the generic tactics only, for an unknown one); each control ``{"name", "kind",
    "default", "help"}`` with ``choices`` for a choice and ``min``/``max``/``integer`` for a
    number."""
    from ..rules.registry import system_class
    from ..tactics.spec import Tactics

    generic = [c for c in model_controls(Tactics) if c["name"] != "rules"]
    try:
        cls = system_class(system) if system else None
    except (ImportError, TypeError):  # a plug-in that does not load: the form does without
        cls = None
    if cls is None:
        return {"options": [], "tactics": generic, "rule_tactics": []}
    return {
        "options": model_controls(cls.Options),
        "tactics": generic,
        "rule_tactics": model_controls(cls.Tactics),
    }


def model_controls(model: type[BaseModel] | None) -> list[dict[str, Any]]:
    """A control per plain field of ``model``, in its order."""
    if model is None:
        return []
    out = []
    for name, info in model.model_fields.items():
        control = _control(info)
        if control is not None:
            default = info.default if not info.is_required() else None
            out.append(
                {"name": name, "default": default, "help": info.description or "", **control}
            )
    return out


def _control(info: FieldInfo) -> dict[str, Any] | None:
    kind = _plain(info.annotation)
    if kind is bool:
        return {"kind": "flag"}
    if typing.get_origin(kind) is typing.Literal:
        return {"kind": "choice", "choices": [str(c) for c in typing.get_args(kind)]}
    if kind in NUMBERS:
        bounds: dict[str, Any] = {"kind": "number", "integer": kind is int}
        for rule in info.metadata:
            for key, attribute in (("min", "ge"), ("min", "gt"), ("max", "le"), ("max", "lt")):
                value = getattr(rule, attribute, None)
                if value is not None:
                    bounds[key] = value
        return bounds
    return None


def _plain(annotation: Any) -> Any:
    """The type under ``Annotated[...]`` and a ``| None``; None for anything else composite."""
    while typing.get_origin(annotation) is typing.Annotated:
        annotation = typing.get_args(annotation)[0]
    if typing.get_origin(annotation) in (typing.Union, types.UnionType):
        inner = [a for a in typing.get_args(annotation) if a is not type(None)]
        return _plain(inner[0]) if len(inner) == 1 else None
    return annotation
