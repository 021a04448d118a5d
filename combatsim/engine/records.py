"""Plain records a battle returns: the engine does no I/O, the batch layer makes tables of these."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ..rules.start import Start

# End reasons of a battle.
VICTORY = "victory"  # exactly one side still has fighters able to act
TURN_LIMIT = "turn_limit"  # the turn limit was reached with several sides standing: a draw
MUTUAL = "mutual"  # the last fighters went down together (a grenade, say): a draw


@dataclass(frozen=True)
class TraceEvent:
    """One line of a blow-by-blow trace: when, who, what kind, a readable text and its data."""

    turn: int
    score: int | None  # the initiative score the event happened at (None: between actions)
    actor: str | None
    kind: str  # initiative, action, attack, dodge, resist, damage, status, move, grenade, ...
    text: str
    data: dict[str, Any] = field(default_factory=dict)


@dataclass
class BattleResult:
    """Everything one battle produced.

    ``battle`` is one row of ``battles.csv``: index, winner (side name or None for a draw),
    end_reason, turns, and ``survivors_<side>`` for every side. ``combatants`` are the rows of
    ``combatants.csv``, one per combatant. ``trace`` is filled only when tracing was asked for.
    ``attacks`` counts the attacks the tactics made: ``(attacker, target, weapon, shots)`` ->
    how many, by the fighters' places in the scenario and the weapon's place on the attacker's
    sheet; a grenade thrown at a point rather than at a fighter has target -1, bare hands are
    weapon -1, and an autofire sweep is one attack on each fighter it walks across (the first
    with the whole burst). Each fighter counts its own as it acts (``Fighter.attacks``).
    ``carried``: each fighter's state at the end, by name, as the ``Start`` a next fight of a
    chain begins it with (its rule system's ``carried``, its magazines and grenades).
    """

    index: int
    winner: str | None
    end_reason: str
    turns: int
    battle: dict[str, Any]
    combatants: list[dict[str, Any]]
    trace: list[TraceEvent] | None = None
    attacks: dict[tuple[int, int, int, int], int] = field(default_factory=dict)
    carried: dict[str, Start] = field(default_factory=dict)
