"""Helpers of the tactics' behaviour tests, on top of ``tests/engine/helpers.py``.

The tests run real battles on scripted dice and read what the fighters did: where they stood
after each turn, whom they shot at, what they decided and why (the ``decide`` events).
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable
from typing import Any

from combatsim.engine.battle import Battle
from combatsim.engine.records import BattleResult
from combatsim.scenario import Scenario
from tests.engine.helpers import events, fighter, member, run_scripted

# A short gun: with the smg's 150 m, the tests need a gun that reaches less far.
PISTOL = {"kind": "firearm", "damage": "4M2", "ranges": [10, 30, 60, 90], "ammo": 12}


def gunner(name: str = "Gunner", **kw: Any) -> dict[str, Any]:
    """A fighter with an smg (150 m at most) firing single shots with Firearms 1: every shot
    is one die, so a face of 2 misses at any range. ``tactics`` keys are added to those."""
    tactics = {"fire_mode": "single", **kw.pop("tactics", {})}
    kw.setdefault("weapons", ["smg"])
    kw.setdefault("firearms", 1)
    return member(name, tactics=tactics, **kw)


def hurt(name: str, level: str = "M") -> Callable[[Battle], None]:
    """A ``prepare`` hook: ``name`` starts the battle with a Physical wound of ``level``."""

    def prepare(battle: Battle) -> None:
        battle.system.wound(battle, None, fighter(battle, name), level, False)

    return prepare


def after_each_turn(make: Callable[[int], Scenario], turns: int, name: str, **roller_kw):
    """(position, cover) of ``name`` at the end of turns 1..``turns``: the battle run again
    with each turn limit (the same dice, so each is the longer one's beginning)."""
    out = []
    for limit in range(1, turns + 1):
        battle, _, _ = run_scripted(make(limit), **roller_kw)
        f = fighter(battle, name)
        out.append((tuple(round(c, 2) for c in f.position), f.cover))
    return out


_VICTIM = re.compile(r" (?:fires|throws) .*? at (\S+) \(")


def shots_at(result: BattleResult, actor: str | None = None) -> list[tuple[int, str, str]]:
    """(turn, shooter, victim) of every ranged attack, in order."""
    out = []
    for e in events(result, "attack", actor):
        m = _VICTIM.search(e.text)
        if m:
            out.append((e.turn, e.actor, m.group(1)))
    return out


def decisions(result: BattleResult, actor: str) -> list[tuple[int, str, str]]:
    """(turn, plan kind, reason) of every decision of ``actor``."""
    return [
        (e.turn, e.data["plan"], e.text.split(" - ", 1)[1]) for e in events(result, "decide", actor)
    ]


def meters(battle: Battle, a: str, b: str) -> float:
    return math.dist(fighter(battle, a).position, fighter(battle, b).position)
