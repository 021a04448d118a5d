"""What every rule system measures the same way: range bands, weapon names in the trace, where
a thrown grenade lands and how far a blast reaches, and the running sum of an attack's
situational modifiers.

Each system had its own copy of these (range bands four ways, the weapon's name three times,
the grenade's landing point and the blast loop three times); the numbers a system gives them
stay its own, the geometry is worked out here once. Nothing here rolls dice: the engine draws
a grenade's direction (``Scatter``) and measures the blast (``blast_distance``, ruling 25).
"""

from __future__ import annotations

import math
from bisect import bisect_left
from collections.abc import Sequence
from typing import Any, NamedTuple

from .base import blast_distance

__all__ = ["Modifiers", "Scatter", "blast_distance", "landing_point", "range_band", "weapon_name"]


def range_band(distance: float, tops: Sequence[float], last: int) -> int:
    """The range band (0 short, 1 medium, ...) of a target ``distance`` meters away: the first
    band whose top (``tops``, increasing, as every system's weapon model checks) reaches it,
    and band ``last`` for anything beyond (a system that has no band past its last top says
    ``last = len(tops) - 1``). A target exactly at a band's top is in that band."""
    band = bisect_left(tops, distance)
    return band if band < last else last


def weapon_name(fighter: Any, weapon: Any) -> str:
    """How the trace names ``fighter``'s ``weapon``: its name on the sheet; None is bare hands."""
    return "bare hands" if weapon is None else fighter.weapon_label(weapon)


class Scatter(NamedTuple):
    """How a thrown grenade misses its aim, as a rule system's ``throw_grenade`` says: the
    engine lands it ``meters`` off in a direction it draws (``Battle.land``).

    ``always_turn``: the direction is drawn even for a throw 0 m off (classic Shadowrun rolls
    the scatter die whatever the deviation); otherwise a throw on target draws nothing.
    ``text``: the trace's account of the throw, up to where it lands (the engine appends the
    point, "(x, y)"); empty when the battle is not traced."""

    meters: float
    always_turn: bool = False
    text: str = ""


def landing_point(aim: Sequence[float], meters: float, angle: float) -> tuple[float, float]:
    """Where a grenade aimed at ``aim`` lands, ``meters`` off at ``angle`` radians."""
    return (aim[0] + meters * math.cos(angle), aim[1] + meters * math.sin(angle))


class Modifiers:
    """The running sum of an attack's situational modifiers, with their labels only when the
    battle is traced: one shape for every system's modifiers (TN, ease, dice).

    ``labels`` is None untraced: ``add`` then only sums, and no label text is built (pass a
    constant label, or build it under ``if mods.labels is not None``). Traced, every
    modifier that is not 0 is kept as ``(value, label)`` in the order added, for the system
    to word as its trace shows them."""

    __slots__ = ("total", "labels")

    def __init__(self, total: int, tracing: bool) -> None:
        self.total = total
        self.labels: list[tuple[int, str]] | None = [] if tracing else None

    def add(self, value: int, label: str) -> None:
        self.total += value
        labels = self.labels
        if labels is not None and value:
            labels.append((value, label))

    def signed(self) -> list[str]:
        """The labels worded "label +n", as most traces show a modifier."""
        return [f"{label} {value:+d}" for value, label in self.labels or ()]


class EnemiesInView:
    """A fighter's standing enemies as ``BattleView.enemies_in_view`` hands them to the rules
    and the tactics, kept until someone moves or leaves the fight (the battle's ``layout``).

    One per fighter and battle, measured again in place (``refresh``): the tactics ask on
    every action, and a new object each time cost more than the tuple it replaced. Read it
    at once; a later measure changes it."""

    __slots__ = ("layout", "enemies", "meters", "nearest", "in_reach")

    def __init__(self, layout: int, enemies: list[Any], meters: Any, nearest: Any, in_reach: int):
        self.layout = layout  # the battle's layout when measured (-1: never)
        self.enemies = enemies  # in fighter order
        self.meters = meters  # meters to each enemy by fighter index (a dict, or a _Meters)
        self.nearest = nearest  # the nearest enemy (the first of equals); None: none left
        self.in_reach = in_reach  # how many stand within melee range


# What a fighter has seen before its first measure (never changed: a fighter's first measure
# makes its own ``EnemiesInView``)
NOT_SEEN = EnemiesInView(-1, [], {}, None, 0)
