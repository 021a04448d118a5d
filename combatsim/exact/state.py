"""A fighter's condition as a value: snapshot, compare, restore (the exact fight's chain states).

The exact fight (``combatsim.exact.fight``) walks a battle one step at a time from states it has
merged: two ways of the dice that leave every fighter in the same condition are one state from
then on. A state must therefore be a hashable value that says everything the rest of the
battle can depend on, and that can be put back into a fresh fighter.

``snapshot(fighter, fresh)`` is that value for one fighter: the rule system's state object
(slotted or not) and the engine fields that last from one action to the next (``ammo``,
``cover``, ``can_act``, ``lose_next_action``, and within a turn its scores and wound shift).
A field of the rule system's state is written down only where it differs from a fresh state's
(``fresh``): the constants a state shares with every fresh one (a sheet's derived profile) and
the untouched fields cost nothing. Callables (the dice takers a system keeps, the exact dice
``exact_dice`` arms) are no part of the value: the battle's takers are put back as they are
(one battle serves every path) and ``exact_dice`` arms its own again. A field whose value is
not plain data (numbers, strings, tuples, lists, dicts, sets of them) and not the fresh state's
own object cannot be compared, and is refused (``NotExact``) rather than guessed (Lost Souls'
list of the allies that may assist a fighter, for one).

The engine's counters for ``combatants.csv`` (actions, shots, hits, damage dealt and taken,
the turn a fighter fell) are left out: no rule or tactic reads them, and keeping them would
split every state by its history. So are the rule state's own counters for the record
(``record_only``): fields the rule system's code only adds to and ``record`` reads, found in
its source, so that a rule that starts to read one keeps it in the state at once.
"""

from __future__ import annotations

import ast
import copy
import inspect
import textwrap
from collections.abc import Iterable, Iterator, Mapping
from fractions import Fraction
from functools import cache
from operator import attrgetter
from pathlib import Path
from types import ModuleType
from typing import Any

from ..errors import Described, UsageError
from .freeze import declared_fields

# Engine fields that last between actions (the rest is per action, a memo or a counter).
LASTING = ("cover", "ammo", "can_act", "lose_next_action", "fled")
# Engine fields of a turn under way: its initiative scores, the rank among equal scores
# (``priority``), the wound penalty when they were rolled, the shift wounds gave them since,
# and the actions taken (``may_run`` reads it).
IN_TURN = ("scores", "priority", "penalty_at_roll", "shift", "actions_this_turn")
_PLAIN = (type(None), bool, int, float, str, Fraction)


class NotExact(UsageError):
    """A fight (or a part of it) the exact chain cannot follow: one line, exit 2."""


def refuse(what: str, why: str) -> NotExact:
    return NotExact("--exact", Described(what), why)


def frozen(value: Any, where: str, read: Mapping[str, tuple[str, ...]] | None = None) -> Any:
    """``value`` as a hashable value of the same content (lists as tuples, dicts as sorted
    item tuples, sets as frozensets); anything else that is not plain data is refused.
    ``read``: of a rule system's records (by class name), the fields its rules read."""
    if isinstance(value, _PLAIN):
        return value
    if isinstance(value, (list, tuple)):
        return (type(value).__name__, tuple(frozen(v, where, read) for v in value))
    if isinstance(value, dict):
        items = ((frozen(k, where, read), frozen(v, where, read)) for k, v in value.items())
        return ("dict", tuple(sorted(items, key=repr)))
    if isinstance(value, (set, frozenset)):
        return ("set", frozenset(frozen(v, where, read) for v in value))
    if type(value).__module__.startswith("combatsim.rules.") and not callable(value):
        # a rule system's own record of plain data (a disadvantage waiting for its test), by
        # the fields its rules read where the system names them (``record_fields``)
        name = type(value).__qualname__
        names = read.get(name) if read is not None else None
        named: Iterable[tuple[str, Any]] = (
            fields(value) if names is None else [(n, getattr(value, n)) for n in names]
        )
        return (name, tuple((n, frozen(v, where, read)) for n, v in named))
    raise refuse(
        f"a fighter's state holding {type(value).__name__} in {where}",
        "a fight whose rule state is plain data (numbers, text, lists)",
    )


def fields(state: Any) -> Iterator[tuple[str, Any]]:
    """The fields of a rule system's state object: its slots (every class's) and its dict.
    A compiled class names its fields in ``__mypyc_attrs__`` instead (``declared_fields``)."""
    seen: set[str] = set()
    for cls in type(state).__mro__:
        for name in declared_fields(cls):
            if name not in seen and name not in ("__dict__", "__weakref__"):
                seen.add(name)
                if hasattr(state, name):
                    yield name, getattr(state, name)
    for name, value in getattr(state, "__dict__", {}).items():
        if name not in seen:
            yield name, value


def record_fields(system: Any) -> dict[str, tuple[str, ...]]:
    """Of each record a rule system keeps in a fighter's state (by class name), the fields its
    rules read, where the system names them (``exact_record_fields``): the rest only names it
    in a trace, and two records that differ there alone are one condition. Read off the
    system itself: a compiled class holds its constants for its instances."""
    return dict(getattr(system, "exact_record_fields", ()))


def for_the_record(system: Any) -> frozenset[str]:
    """The fields of ``system``'s fighter state kept for the record only: those its source
    shows (``record_only``) and those it names itself (``exact_record_only``) where its
    source cannot tell (a counter added to through a subscript, whose name a record the
    rules read shares)."""
    kind: type = type(system)
    return record_only(kind) | frozenset(getattr(system, "exact_record_only", ()))


@cache
def record_only(system_class: type) -> frozenset[str]:
    """Names of fields that the code of ``system_class`` (its classes' modules) and of the
    tactics only ever set or add to, and read in ``record`` alone: counters for
    ``combatants.csv`` that no rule reads."""
    from ..engine import battle, field, fighter
    from ..tactics import policies

    written: set[str] = set()
    read: set[str] = set()
    modules = {inspect.getmodule(c) for c in system_class.__mro__} | {
        policies,
        battle,
        field,
        fighter,
    }
    for module in modules:
        if module is None or module.__name__.split(".")[0] != "combatsim":
            continue
        _uses(ast.parse(textwrap.dedent(_source(module))), written, read)
    return frozenset(written - read)


def _source(module: ModuleType) -> str:
    """A module's source, also when it is compiled (its ``.py`` lies beside the extension)."""
    try:
        return inspect.getsource(module)
    except OSError:
        assert module.__file__ is not None
        name = module.__name__.rsplit(".", 1)[-1]
        return (Path(module.__file__).parent / f"{name}.py").read_text(encoding="utf-8")


def _uses(tree: ast.AST, written: set[str], read: set[str]) -> None:
    """Attribute names stored to or added to (``written``) and loaded outside a ``record``
    method (``read``) in ``tree``."""
    added = {id(node.target) for node in ast.walk(tree) if isinstance(node, ast.AugAssign)}
    records = [
        node
        for node in ast.walk(tree)
        if isinstance(node, ast.FunctionDef) and node.name == "record"
    ]
    in_record = {id(n) for r in records for n in ast.walk(r)}
    for node in ast.walk(tree):
        if not isinstance(node, ast.Attribute):
            continue
        if isinstance(node.ctx, ast.Store) or id(node) in added:
            written.add(node.attr)
        elif id(node) not in in_record:
            read.add(node.attr)


class Condition:
    """How to read one fighter's condition as a value and put it back: its rule state's fields
    (those not ``skip``ped) and a fresh state's values of them, worked out once."""

    __slots__ = ("names", "read", "base", "frozen_base", "records")

    def __init__(
        self,
        fresh: Any,
        skip: frozenset[str] = frozenset(),
        records: Mapping[str, tuple[str, ...]] | None = None,
    ):
        """``skip``: fields kept for the record only (``for_the_record``); ``records``: what the
        rules read of their records (``record_fields``)."""
        values = dict(fields(fresh))
        self.names = names = tuple(sorted(n for n in values if n not in skip))
        self.read = attrgetter(*names) if len(names) > 1 else lambda s: (getattr(s, names[0]),)
        self.records = records
        self.base = tuple(values[n] for n in names)
        self.frozen_base = tuple(_frozen_or_none(values[n], n, records) for n in names)

    def key(self, fighter: Any, in_turn: bool) -> tuple:
        """The condition of ``fighter`` as a hashable value: ``(field, frozen value)`` of every
        field of its rule state that differs from a fresh one (callables left out: armed again
        per path), then the engine's fields (``in_turn``: a turn's too)."""
        changes = []
        plain = _PLAIN_TYPES
        for name, value, old, frozen_old in zip(
            self.names, self.read(fighter.state), self.base, self.frozen_base, strict=True
        ):
            if value is old:
                continue
            if type(value) in plain:
                if type(old) is type(value) and value == old:
                    continue
                changes.append((name, value))
            elif not callable(value):
                key = frozen(value, name, self.records)
                if key != frozen_old:
                    changes.append((name, key))
        engine = []
        for name in LASTING + IN_TURN if in_turn else LASTING:
            value = getattr(fighter, name)
            kind = type(value)
            if kind in plain:
                engine.append(value)
            elif (kind is list or kind is tuple) and all(type(v) in plain for v in value):
                engine.append(tuple(value))
            else:
                engine.append(frozen(value, name))
        return (tuple(changes), tuple(engine))

    def save(self, fighter: Any, key: tuple, in_turn: bool) -> Snapshot:
        """What ``restore`` needs to put ``fighter``'s condition (``key``) back, copied."""
        state = fighter.state
        raw_state = {name: _copied(getattr(state, name)) for name, _ in key[0]}
        # the battle's dice takers a system keeps (the same battle serves every path) go back
        # as they are; ``exact_dice`` arms its own again after ``restore``
        for name, value, old in zip(self.names, self.read(state), self.base, strict=True):
            if callable(value) and value is not old:
                raw_state[name] = value
        names = LASTING + IN_TURN if in_turn else LASTING
        raw_engine = {name: _copied(getattr(fighter, name)) for name in names}
        return Snapshot(key, raw_state, raw_engine)


_PLAIN_TYPES = frozenset(_PLAIN)


def _frozen_or_none(value: Any, name: str, records: Mapping[str, tuple[str, ...]] | None) -> Any:
    """A fresh state's value of ``name`` frozen; None for a callable or an object that is not
    plain data (a constant the state shares: compared by identity only)."""
    if callable(value):
        return None
    try:
        return frozen(value, name, records)
    except NotExact:
        return None


class Snapshot:
    """One fighter's condition (``key``, hashable) and the values to restore it: the changed
    fields of the rule state and the engine's lasting fields, copied."""

    __slots__ = ("key", "raw_state", "raw_engine")

    def __init__(self, key: tuple, raw_state: dict[str, Any], raw_engine: dict[str, Any]):
        self.key, self.raw_state, self.raw_engine = key, raw_state, raw_engine


def restore(fighter: Any, saved: Snapshot) -> None:
    """Put ``saved`` into ``fighter`` (fresh: as ``Battle.renew`` makes it)."""
    state = fighter.state
    plain = _PLAIN_TYPES
    for name, value in saved.raw_state.items():
        setattr(state, name, value if type(value) in plain or callable(value) else _copied(value))
    for name, value in saved.raw_engine.items():
        setattr(fighter, name, value if type(value) in plain else _copied(value))
    fighter.waiting_shift = fighter.shift if "shift" in saved.raw_engine else 0


def _copied(value: Any) -> Any:
    """A copy that shares nothing mutable with ``value`` (plain values as they are)."""
    kind = type(value)
    if kind in _PLAIN_TYPES:
        return value
    if kind is list and all(type(v) in _PLAIN_TYPES for v in value):
        return list(value)
    if kind is tuple and all(type(v) in _PLAIN_TYPES for v in value):
        return value
    return copy.deepcopy(value)
