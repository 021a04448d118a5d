"""Variants of a chain: a field of the chain file, or of one of its encounters' scenarios, set
to another value, and the chain checked again, as ``sweep`` makes variants of a scenario.

A field path into a chain names the chain file's own fields (``rest.heal``,
``rests[0].heal_stun``, ``stop``, ``encounters[1].boss``) or, through an encounter, a field
of that encounter's scenario: ``encounters[2].sides[guards].members[Guard].count`` (an
encounter by position from 0, by name, or ``[*]`` for every one). A scenario field is set
as the encounter's own ``set`` edits are, after them, so the variant is exactly the chain file
with one more ``set`` line, validated by ``build_chain``.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..errors import CombatsimError, UsageError, did_you_mean
from ..sweeps.fields import ALL, FieldPath, Inheritance, Name, read_values

if TYPE_CHECKING:
    from .model import ChainSpec, Encounter

ENCOUNTER_KEYS = ("scenario", "set", "boss", "name")  # an encounter's own fields


def apply_sets(
    chain: ChainSpec, sets: Sequence[tuple[FieldPath, Any]], label: str | None
) -> ChainSpec:
    """``chain`` with each ``(path, value)`` set, checked again (a new ``Chain``)."""
    if not sets:
        return chain
    data = copy.deepcopy(chain.data["chain"])
    for path, value in sets:
        inner = _into_scenario(chain, path)
        if inner is None:
            _set_in_chain(data, path, value)
            continue
        indexes, rest = inner
        line = f"{_text(rest)}={json.dumps(value, default=str)}"
        for k in indexes:
            data["encounters"][k].setdefault("set", []).append(line)
    assert chain.rebuild is not None, "a chain read from a file"
    try:
        return chain.rebuild(data, chain.source, Path(chain.source).parent)
    except CombatsimError as err:  # a chain file's mistake, or one of an encounter's set
        if isinstance(err, UsageError):
            raise
        raise CombatsimError(f"{label or 'variant'}: {err}") from None


def _set_in_chain(data: dict, path: FieldPath, value: Any) -> None:
    try:
        path.set(data, value)
    except UsageError as err:  # said of the chain file, not of a scenario
        allowed = str(err.allowed).replace("the scenario", "the chain file")
        raise UsageError(err.argument, err.found, allowed, err.hint) from None


def values_at(chain: ChainSpec, path: FieldPath) -> list[Any]:
    """The values the chain gives at ``path`` (for a scenario field, each named encounter's
    scenario as the chain edits it, a member's field from its archetype included)."""
    inner = _into_scenario(chain, path)
    if inner is None:
        return read_values(chain.data["chain"], path, None)
    indexes, rest = inner
    found: list[Any] = []
    for k in indexes:
        scenario = chain.encounters[k].scenario
        inherit = Inheritance(scenario.data, Path(scenario.source).parent)
        found += read_values(scenario.data, FieldPath(_text(rest), rest), inherit)
    return found


def _into_scenario(chain: ChainSpec, path: FieldPath) -> tuple[list[int], tuple] | None:
    """For a path into an encounter's scenario: the encounters it names and the path inside
    the scenario; None for a field of the chain file itself."""
    steps = path.steps
    if steps[0] != "encounters" or len(steps) < 3:
        return None
    if isinstance(steps[2], str) and steps[2] in ENCOUNTER_KEYS:
        return None
    return _encounters(chain, steps[1], path), steps[2:]


def _encounters(chain: ChainSpec, step: Any, path: FieldPath) -> list[int]:
    names = [e.name for e in chain.encounters]
    if step == ALL:
        return list(range(len(names)))
    if isinstance(step, Name):
        if step.name in names:
            return [names.index(step.name)]
        hint = did_you_mean(step.name, names)
        why = f"the chain has no encounter named {step.name!r} ({', '.join(names)})"
        raise UsageError("field path", path.text, f"a field of the chain ({why})", hint)
    if isinstance(step, int) and 0 <= step < len(names):
        return [step]
    why = f"the chain has {len(names)} encounters, so [{step}] is not one of them"
    raise UsageError("field path", path.text, f"a field of the chain ({why})")


def _text(steps: tuple) -> str:
    """A field path's text from its steps."""
    out = ""
    for step in steps:
        if isinstance(step, str) and step != ALL:
            out += f".{step}" if out else step
        elif isinstance(step, Name):
            out += f"[{step.name}]"
        else:
            out += f"[{step}]"
    return out


def check_encounter(chain: ChainSpec, encounter: Encounter) -> None:
    """An encounter put into a built chain (a designed opposition, its carried side as it
    was): the side is there, and none of its fighters' names is on another side."""
    for fighter in encounter.scenario.fighters:
        if fighter.side == chain.side:
            continue
        if fighter.name in chain.roster:
            raise UsageError(
                "design",
                fighter.name,
                f"a name for the opposition that no fighter of {chain.side} has",
            )
    if not encounter.members:
        raise UsageError("design", encounter.name, f"an encounter with the side {chain.side}")
