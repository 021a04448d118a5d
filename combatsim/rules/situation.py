"""What every rule system measures the same way: the situation of an attack, range bands,
weapon names in the trace, where a thrown grenade lands and how far a blast reaches, and how
an attack's situational modifiers are added up and named.

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

__all__ = [
    "NOT_SEEN",
    "EnemiesInView",
    "Scatter",
    "Situation",
    "blast_distance",
    "circumstance_labels",
    "labelled",
    "landing_point",
    "band_of",
    "band_tops",
    "range_band",
    "signed",
    "weapon_name",
]

WHOLE_METER_SLACK = 1e-9  # ruling 25: how near a whole number of meters counts as it


def blast_distance(burst: Sequence[float], position: Sequence[float]) -> float:
    """Meters from a grenade's burst to a fighter, as every blast rule and tactic measures them.

    Ruling 25: a distance that is a whole number of meters in exact arithmetic counts as that
    number, whatever floating point makes of it. A fighter standing on the aim point of a
    grenade that deviated 5 m at 60 degrees is 5 m from the burst, though ``math.dist`` may
    give 4.999999999999999 (one full meter short) or 5.000000000000001 (outside a 5 m blast).
    A distance within ``WHOLE_METER_SLACK`` of a whole number is that number (coordinates are
    bounded by ``bounds.MAX_COORDINATE``, where floating point errs by far less than that).
    """
    return whole_meters(math.dist(burst, position))


def whole_meters(distance: float) -> float:
    """``distance`` as ruling 25 counts it (``blast_distance``): a whole number of meters when
    within ``WHOLE_METER_SLACK`` of one. For a caller that has measured the meters already."""
    whole = round(distance)
    return float(whole) if abs(distance - whole) <= WHOLE_METER_SLACK else distance


def range_band(distance: float, tops: Sequence[float], last: int) -> int:
    """The range band (0 short, 1 medium, ...) of a target ``distance`` meters away: the first
    band whose top (``tops``, increasing, as every system's weapon model checks) reaches it,
    and band ``last`` for anything beyond (a system that has no band past its last top says
    ``last = len(tops) - 1``). A target exactly at a band's top is in that band.

    A system that keeps a weapon's ``band_tops(tops, last)`` gets the same band from
    ``bisect_left(band_tops, distance)`` without this call (``band_of``)."""
    band = bisect_left(tops, distance)
    return band if band < last else last


def band_tops(tops: Sequence[float] | None, last: int) -> tuple[float, ...] | None:
    """``tops`` made ready for ``band_of``: the tops of bands 0 to ``last - 1``, then
    infinity (band ``last`` reaches everything beyond). None stays None (no ranges)."""
    return None if tops is None else (*tops[:last], math.inf)


# ``band_of(band_tops(tops, last), distance) == range_band(distance, tops, last)``: the band
# straight from C, for the per-attack paths of systems that keep each weapon's band tops
band_of = bisect_left


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


class Situation:
    """What the engine measures of one attack (``BattleView.situation``) for every rule
    system, which turns it into its own numbers (a TN, an ease, dice), with what the engine
    keeps on the fighters themselves: the attacker's ``moved_this_action``, the target's
    ``cover``, ``running`` and ``moved_this_turn`` (copying those in here cost about 1% of
    a battle, measured).

    One per attacker, filled in place for each attack (a new object per attack cost more than
    the measures it saves): read it before the next attack of the same attacker."""

    __slots__ = ("distance", "engaged")

    def __init__(self) -> None:
        self.distance = 0.0  # meters from the attacker to the target (or the aim point)
        self.engaged = 0  # standing enemies within melee range of the attacker


def labelled(values: Sequence[int], labels: Sequence[str]) -> list[tuple[int, str]]:
    """The modifiers of an attack that are not 0, with their labels, in order: what a trace
    shows of them.

    Every system adds up its situational modifiers the same way: untraced, a plain int sum
    and no text (4D8 and classic Shadowrun add every value, Lost Souls only those that
    apply); traced, the same values in the order the trace names them, paired with their
    labels here."""
    return [(v, why) for v, why in zip(values, labels, strict=True) if v]


def circumstance_labels(cover: str, seen: str) -> tuple[str, ...]:
    """The trace's names of what the engine measures of a ranged attack, in the order 4D8
    and Lost Souls add their modifiers for it (after the weapon's or the range's own)."""
    return (
        f"{cover} cover",
        "aiming",
        "target running",
        "attacker moving",
        "enemy in reach",
        seen,
        "wounded",
    )


def signed(pairs: Sequence[tuple[int, str]]) -> list[str]:
    """``labelled`` modifiers worded "label +n", as most traces show one."""
    return [f"{why} {v:+d}" for v, why in pairs]


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
