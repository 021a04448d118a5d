"""A member's ``start:``: how its fighters start a battle when not fresh (ruling 27), from the
file's mapping to the engine's ``Start``, checked against the member's sheet and its rule
system (a wound past the monitor, a magazine above its size: one line naming the field).

``Start`` itself is the rule-system interface's (``combatsim.rules.start``), re-exported here.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, Field

from ..bounds import MAX_AMOUNT, STRICT, Amount
from ..errors import Described, Problems, ScenarioError
from ..rules.base import start_keys, start_rules
from ..rules.start import EDGE_SPENT, FRESH, KARMA_SPENT, Start, StartProblem
from .yamlio import LineMap, format_path, line_of

__all__ = ["FRESH", "Start", "StartFile", "start_of"]

POOL_KEYS = ("wounds", "stun", KARMA_SPENT, EDGE_SPENT)


class StartFile(BaseModel):
    """A member's ``start:`` as written: every key optional, each in the system's own unit."""

    model_config = STRICT
    wounds: int | None = Field(
        None, ge=0, le=MAX_AMOUNT, description="damage already taken, in the system's own unit"
    )
    stun: int | None = Field(None, ge=0, le=MAX_AMOUNT, description="Stun already taken")
    karma_spent: int | None = Field(None, ge=0, le=MAX_AMOUNT, description="Karma spent")
    edge_spent: int | None = Field(None, ge=0, le=MAX_AMOUNT, description="Edge spent")
    rounds: dict[str, Amount] | list[Amount] | None = Field(
        None,
        description="rounds in each magazine: weapon name -> rounds, or a list over the "
        "sheet's weapons with a magazine, in its order",
    )
    grenades: Amount | None = Field(None, description="grenades left in all")
    condition: Literal["up", "down", "dead"] | None = Field(
        None, description="up, down or dead (default: as the wounds make it)"
    )


class _Where:
    """Where a member's ``start:`` is, to name its fields in errors."""

    def __init__(self, source: str, path: tuple, lines: LineMap):
        self.source, self.path, self.lines = source, (*path, "start"), lines

    def error(self, key: tuple, found: object, allowed: str) -> ScenarioError:
        at = self.path + key
        return ScenarioError(self.source, format_path(at), found, allowed, line_of(self.lines, at))


def start_of(
    written: StartFile, spec: Any, system: Any, source: str, path: tuple, lines: LineMap
) -> Start:
    """The ``Start`` a member's ``start:`` says for a fighter of ``spec`` (the member's first;
    every copy has the same sheet), or a ``ScenarioError`` at the field that is wrong."""
    where = _Where(source, path, lines)
    _check_keys(written, system, where)
    problems = Problems()
    rounds = grenades = None
    try:
        rounds = _rounds(written.rounds, spec, where)
    except ScenarioError as err:
        problems.add(err)
    try:
        grenades = _grenades(written.grenades, spec, where)
    except ScenarioError as err:
        problems.add(err)
    spent = written.karma_spent or written.edge_spent or 0
    wounds, stun = written.wounds or 0, written.stun or 0
    rules = start_rules(system)  # None: ``_check_keys`` let through no wounds, stun or spent
    unsaid = written.wounds is None and written.stun is None
    if rules is not None and written.condition == "down" and unsaid:
        wounds = rules.down_wounds(spec)
    start = Start(wounds, stun, spent, rounds, grenades, written.condition == "dead")
    for problem in rules.check_start(spec, start) if rules is not None else ():
        problems.add(_problem(problem, written, where))
    problems.raise_any()
    _check_condition(written, start, spec, system, where)
    return start


def _check_keys(written: StartFile, system: Any, where: _Where) -> None:
    """Only the keys the system reads (``StartingConditions.start_keys``); down and dead need
    wounds."""
    keys = start_keys(system)
    takes = ", ".join((*keys, "rounds", "grenades", "condition"))
    for key in POOL_KEYS:
        if getattr(written, key) is not None and key not in keys:
            raise where.error(
                (key,), Described(f"the key {key!r}"), f"a key {system.name} has: {takes}"
            )
    if written.condition in ("down", "dead") and "wounds" not in keys:
        raise where.error(
            ("condition",), written.condition, f"up: {system.name} has no starting wounds"
        )


def _problem(problem: StartProblem, written: StartFile, where: _Where) -> ScenarioError:
    """A system's ``StartProblem`` as the error at its key (the condition's, when the file
    left the wounds to ``condition: down``)."""
    key = problem.key if getattr(written, problem.key) is not None else "condition"
    return where.error((key,), problem.found, problem.allowed)


def _check_condition(
    written: StartFile, start: Start, spec: Any, system: Any, where: _Where
) -> None:
    """``up`` and ``down`` must agree with what the wounds make the fighter."""
    if written.condition not in ("up", "down"):
        return
    rules = start_rules(system)
    down = rules.down_at(spec, start) if rules is not None else start.dead
    if down != (written.condition == "down"):
        makes = "down" if down else "up"
        raise where.error(
            ("condition",),
            written.condition,
            f"{makes}, as its wounds ({start.wounds}) and stun ({start.stun}) make it "
            "(or other wounds)",
        )


def _magazines(spec: Any) -> list[tuple[int, str, int]]:
    """The weapons with a magazine: (place on the sheet, name, rounds per load)."""
    return [
        (i, name, w.ammo)
        for i, (w, name) in enumerate(zip(spec.weapons, spec.sheet.weapons, strict=True))
        if w.kind != "grenade" and w.ammo is not None
    ]


def _rounds(
    written: dict[str, int] | list[int] | None, spec: Any, where: _Where
) -> tuple[int, ...] | None:
    """Rounds per weapon in the sheet's order (full where the file says nothing)."""
    if written is None:
        return None
    magazines = _magazines(spec)
    names = ", ".join(name for _, name, _ in magazines) or "none"
    loads = [w.ammo if w.ammo is not None else 0 for w in spec.weapons]
    if isinstance(written, list):
        if len(written) != len(magazines):
            raise where.error(
                ("rounds",),
                written,
                f"a list of {len(magazines)} (one per weapon with a magazine: {names})",
            )
        pairs: list[tuple[tuple[int | str], tuple[int, str, int], int]] = [
            ((k,), m, n) for k, (m, n) in enumerate(zip(magazines, written, strict=True))
        ]
    else:
        pairs = []
        for name, n in written.items():
            if all(m[1] != name for m in magazines):
                raise where.error(
                    ("rounds", name), Described(f"{name!r}"), f"a weapon with a magazine: {names}"
                )
            pairs.extend(((name,), m, n) for m in magazines if m[1] == name)
    for key, (i, name, size), n in pairs:
        if n > size:
            raise where.error(("rounds", *key), n, f"at most {size}, the {name}'s magazine")
        loads[i] = n
    return tuple(loads)


def _grenades(written: int | None, spec: Any, where: _Where) -> int | None:
    """Grenades left in all: at most what the sheet carries."""
    if written is None:
        return None
    carried = sum(w.ammo or 0 for w in spec.weapons if w.kind == "grenade")
    if written > carried:
        raise where.error(("grenades",), written, f"at most {carried}, the grenades it carries")
    return written
