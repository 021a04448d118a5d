"""JSON Schema of scenario and catalogue files, built from the pydantic models that validate
them, for completion and checking in an editor (``# yaml-language-server: $schema=...``).

The generic models (``ScenarioFile``) leave the rule system's parts open: ``rules.options``, a
catalogue's weapons, armor and archetypes, a member's sheet fields and ``tactics.rules`` are
plain mappings there, because only the chosen system knows them. ``scenario_schema(SYSTEM)``
closes them with that system's own models, so an editor completes ``skills:`` and flags
``skils:``. A member merges over its archetype key by key, so its sheet fields are all optional
(``required`` is dropped from them, however deep); an archetype must be complete.

The schema describes the same files the loader accepts; the loader stays the judge (a weapon
name, for instance, must also be in a catalogue, which no schema can know).
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from typing import Any

from pydantic import BaseModel
from pydantic.json_schema import models_json_schema

from ..errors import UsageError, did_you_mean
from ..rules.registry import system_class, system_names
from ..tactics.spec import FORMER_KEYS, Tactics
from .spec import CatalogueFile, MemberSpec, ScenarioFile

DIALECT = "https://json-schema.org/draft/2020-12/schema"


def scenario_schema(system: str | None = None, catalogue: bool = False) -> dict[str, Any]:
    """The JSON Schema of a scenario file (or, with ``catalogue``, a catalogue file) of
    ``system``; without a system, the shape every system shares."""
    top_model = CatalogueFile if catalogue else ScenarioFile
    if system is None:
        schema = top_model.model_json_schema()
        what = "catalogue" if catalogue else "scenario"
        return {
            "$schema": DIALECT,
            "title": f"combatsim {what} file (any rule system)",
            **schema,
        }
    cls = system_class(system)
    if cls is None:
        names = system_names()
        raise UsageError(
            "SYSTEM", system, "one of " + ", ".join(names), did_you_mean(system, names)
        )

    models: dict[str, type[BaseModel]] = {
        "top": top_model,
        "member": MemberSpec,
        "tactics": Tactics,
        "options": cls.Options,
        "sheet": cls.Sheet,
        "weapon": cls.Weapon,
        "armor": cls.Armor,
    }
    if cls.Tactics is not None:
        models["rule_tactics"] = cls.Tactics
    keys, top = models_json_schema(
        [(m, "validation") for m in models.values()], ref_template="#/$defs/{model}"
    )
    defs: dict[str, Any] = top["$defs"]
    ref = {name: keys[(m, "validation")] for name, m in models.items()}

    def body(name: str) -> dict[str, Any]:
        return defs[ref[name]["$ref"].split("/")[-1]]

    root = copy.deepcopy(body("top"))
    root["properties"]["weapons"]["additionalProperties"] = ref["weapon"]
    root["properties"]["armor"]["additionalProperties"] = ref["armor"]
    root["properties"]["archetypes"]["additionalProperties"] = ref["sheet"]
    root["properties"]["system" if catalogue else "rules"] = (
        {"const": system, "description": "the rule system"}
        if catalogue
        else _rules(system, ref["options"])
    )
    if not catalogue:
        root["properties"]["catalogues"]["description"] = _catalogues_help(cls)
        _close_sides(defs, ref, body)
        _former_keys(cls, body)
    return {
        "$schema": DIALECT,
        "title": f"combatsim {'catalogue' if catalogue else 'scenario'} file ({system})",
        **root,
        "$defs": defs,
    }


def _catalogues_help(cls) -> str:
    """What a ``catalogues`` item may be: the shipped names this system reads, or a path."""
    from .catalogues import shipped_catalogues
    from .loader import serves_system

    names = [name for name, _, system in shipped_catalogues() if serves_system(system, cls)]
    shipped = f"a shipped catalogue's name ({', '.join(names)}) or " if names else ""
    return shipped + "a path to a catalogue file, relative to the scenario"


def _rules(system: str, options_ref: dict) -> dict[str, Any]:
    return {
        "type": "object",
        "additionalProperties": False,
        "properties": {"system": {"const": system}, "options": options_ref},
        "required": ["system"],
    }


def _close_sides(defs: dict, ref: dict, body: Callable[[str], dict[str, Any]]) -> None:
    """Sides and members with the system's sheet and tactics in place of open mappings."""
    tactics = body("tactics")
    closed = {"type": "object", "maxProperties": 0, "description": "no rule tactics here"}
    tactics["properties"]["rules"] = ref.get("rule_tactics", closed)
    member = body("member")
    member["properties"]["tactics"] = ref["tactics"]
    sheet = body("sheet")
    for key, prop in sheet["properties"].items():
        if key not in member["properties"]:
            member["properties"][key] = _optional(prop, defs)
    member["additionalProperties"] = False
    side = defs["SideSpecFile"]
    side["properties"]["tactics"] = ref["tactics"]
    side["properties"]["members"]["items"] = ref["member"]


def _former_keys(cls, body) -> None:
    """The keys a file may write at the top of ``tactics:`` for old times' sake: the ones the
    system reads there as its own (``tactics_at_top``), and the others, ignored."""
    properties = body("tactics")["properties"]
    for key in cls.tactics_at_top:
        properties[key] = body("rule_tactics")["properties"][key]
    for key in FORMER_KEYS:
        properties.setdefault(
            key, {"deprecated": True, "description": f"ignored: {cls.name} does not read it"}
        )


def _optional(schema: Any, defs: dict) -> Any:
    """``schema`` with every ``required`` list dropped, following ``$ref``s into copies named
    ``<Def>Partial`` (a member's ``skills: {firearms: 7}`` overrides one skill)."""
    if isinstance(schema, list):
        return [_optional(s, defs) for s in schema]
    if not isinstance(schema, dict):
        return schema
    out = {k: _optional(v, defs) for k, v in schema.items() if k != "required"}
    target = out.get("$ref")
    if isinstance(target, str) and target.startswith("#/$defs/"):
        name = target.split("/")[-1]
        partial = f"{name}Partial"
        if partial not in defs:
            defs[partial] = {}  # placeholder first: a model may refer to itself
            defs[partial] = _optional(defs[name], defs)
        out["$ref"] = f"#/$defs/{partial}"
    return out
