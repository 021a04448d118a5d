"""A fighter's whole state in the battle as one hashable value, for paths that meet.

Paths of an exact answer meet where the battle's state is the same (``dice.paths``), so the
key must hold everything the rest of the attack and its outcome read: the engine's fields of
the fighter (wounds are the system's; hits, ammo, whether it can act, a lost action...) and
the rule system's state object, whatever its shape (slots, a dict, nested objects). What
cannot matter to a path's future is left out: callables (the dice the state keeps, re-armed
on every path) and other fighters (named by index, not walked into).
"""

from __future__ import annotations

from collections.abc import Hashable
from typing import Any

from ..engine.fighter import Fighter
from ..rules.base import ExactHooks

# The engine's fields of a fighter that an attack reads or changes (the rest are set once per
# battle from the spec, or belong to the turn's timing, which no attack touches).
# Counted only for combatants.csv (shots, damage dealt) or only as "any" by an answer (hits)
# are left to ``fighter_key``'s caller.
FIGHTER_FIELDS = (
    "position",
    "cover",
    "ammo",
    "can_act",
    "fled",
    "lose_next_action",
    "ran_this_turn",
    "running",
    "moved_this_turn",
    "moved_this_action",
    "actions",
    "actions_this_turn",
    "damage_taken",
    "knocked_out_turn",
)


def fighter_key(fighter: Fighter, system: Any) -> Hashable:
    """The fighter's engine fields and its rule system state (the system's ``exact_key``, or
    all of the state, frozen), and whether it has hit anyone."""
    own = system.exact_key(fighter) if isinstance(system, ExactHooks) else None
    return (
        tuple(freeze(getattr(fighter, name)) for name in FIGHTER_FIELDS),
        fighter.hits > 0,
        freeze(fighter.state) if own is None else own,
    )


def freeze(value: Any, depth: int = 0) -> Hashable:
    """``value`` as a hashable of plain values: containers and objects by their contents."""
    if value is None or isinstance(value, bool | int | float | str | bytes):
        return value
    if depth > 8:
        raise ValueError(f"state nested too deep to compare: {type(value).__name__}")
    if isinstance(value, Fighter):
        return ("fighter", value.index)
    if callable(value) and not isinstance(value, type):
        return None  # dice and counters the state keeps: re-armed on every path
    deeper = depth + 1
    if isinstance(value, list | tuple):
        return tuple(freeze(v, deeper) for v in value)
    if isinstance(value, dict):
        return tuple(sorted((repr(k), freeze(v, deeper)) for k, v in value.items()))
    if isinstance(value, set | frozenset):
        return frozenset(freeze(v, deeper) for v in value)
    return (type(value).__name__, _fields(value, deeper))


def declared_fields(cls: type) -> tuple[str, ...]:
    """The fields a class itself declares: its ``__slots__``, or a compiled class's
    ``__mypyc_attrs__`` (a class compiled with mypyc has no slots)."""
    slots = cls.__dict__.get("__slots__", ()) or cls.__dict__.get("__mypyc_attrs__", ())
    return (slots,) if isinstance(slots, str) else tuple(slots)


def _fields(value: Any, depth: int) -> Hashable:
    """An object's attributes, from its slots (all of its classes') and its ``__dict__``."""
    names = [name for cls in type(value).__mro__ for name in declared_fields(cls)]
    items = [(n, getattr(value, n)) for n in names if n != "__dict__" and hasattr(value, n)]
    items += sorted(getattr(value, "__dict__", {}).items())
    try:
        hash(value)
        if not items:
            return value  # an immutable value with nothing to walk (an enum, a Fraction)
    except TypeError:
        pass
    return tuple((n, freeze(v, depth)) for n, v in items)
