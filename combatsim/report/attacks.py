"""The exact odds of one attack beside the sampled casualties, for the attacks a run's tactics
made most often: the single-run report's section and the live page's table.

A run counts its attacks by attacker, target, weapon and shots (``attacks.csv``, a tally's
``attacks``). For the most used of them, ``exact_attack_rows`` asks ``combatsim.exact``
(``attack_odds``: the rule system's own attack walked once per way its dice can fall) for
the chance that one such attack hits, leaves the target out of the fight, and kills it, in
the battle's start situation, and puts beside them the share of the sampled battles in which
the target ended down and dead. An attack the exact walk cannot answer (a grenade's blast,
more ways for the dice to fall than ``PATH_LIMIT``) gets a short reason instead.
"""

from __future__ import annotations

import csv
import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import replace
from fractions import Fraction
from pathlib import Path
from typing import Any

from ..errors import CombatsimError
from ..output import ATTACKS_CSV

TOP_PAIRS = 12  # the attacks shown: the most used
PATH_LIMIT = 20_000  # ways for the dice to fall one attack may have (under a second)

NOTE = (
    "The attacks the tactics made most often in these battles (attacker, target, weapon and "
    "shots per attack, with how many such attacks were made). For each, the exact chance that "
    "one such attack hits, leaves the target out of the fight (down) and kills it, from the "
    "rules the battles run, every way the dice can fall walked once: in the battle's start "
    "situation (positions, cover and light as the scenario sets them, both fighters unhurt, "
    "nobody has moved yet; for a melee attack, the attacker moved straight in to reach), not "
    "where the attacks were actually made. Beside them, sampled: the "
    "share of battles in which the target ended down and dead, with 95% intervals: that is the "
    "whole fight, every attack on the target, not one."
)


def load_attack_pairs(folder: Path) -> list[dict[str, Any]] | None:
    """The rows of ``attacks.csv`` (most used first), None when the run wrote none."""
    path = folder / ATTACKS_CSV
    if not path.is_file():
        return None
    with path.open(encoding="utf-8", newline="") as f:
        rows = list(csv.DictReader(f))
    for row in rows:
        row["shots"], row["attacks"] = int(row["shots"]), int(row["attacks"])
        for key in ("target", "target_side"):
            row[key] = row[key] or None
    return rows


def scenario_of_summary(summary: Mapping[str, Any]) -> Any:
    """The scenario a single run's ``summary.json`` ran: its file, with its ``sets`` applied."""
    from ..sweeps.api import set_fields

    return set_fields(summary["source"], summary.get("sets") or ()).scenario


def exact_attack_rows(
    scenario: Any,
    pairs: Sequence[Mapping[str, Any]],
    casualties: Sequence[Mapping[str, Any]] | None,
    top: int = TOP_PAIRS,
    limit: int = PATH_LIMIT,
) -> list[dict[str, Any]]:
    """The first ``top`` of ``pairs`` (rows as ``attack_table`` makes them), each with the
    exact ``p_hit``, ``p_down``, ``p_dead`` (floats, and ``exact`` their fractions as text)
    or a ``reason`` they are missing (``closed_in``: meters a melee attacker was moved in to
    reach, see ``within_reach``), and the target's sampled ``down_rate``/``down_ci95`` and
    ``dead_rate``/``dead_ci95`` from ``casualties`` (a summary's list). ``scenario`` None (it
    could not be loaded): every row's reason says so. JSON-ready."""
    sampled = _casualties_by_fighter(casualties or ())
    out = []
    for pair in pairs[:top]:
        row: dict[str, Any] = {key: pair[key] for key in _PAIR_KEYS}
        row.update(sampled.get((pair["target_side"], pair["target"]), _NOT_SAMPLED))
        row.update(_exact(scenario, pair, limit))
        out.append(row)
    return out


_PAIR_KEYS = ("attacker", "attacker_side", "target", "target_side", "weapon", "shots", "attacks")
_NOT_SAMPLED = {"down_rate": None, "down_ci95": None, "dead_rate": None, "dead_ci95": None}
_CHANCES: dict[str, Callable[[Any], bool]] = {
    "p_hit": lambda o: o.hit,
    "p_down": lambda o: o.down,
    "p_dead": lambda o: o.status == "dead",
}


def _exact(scenario: Any, pair: Mapping[str, Any], limit: int) -> dict[str, Any]:
    """The exact chances of one attack of ``pair``, or why there are none."""
    from ..dice.paths import TooManyPaths
    from ..exact.attack import attack_odds

    if scenario is None:
        return {"reason": "the scenario file could not be read again"}
    if pair["weapon_kind"] == "grenade" or pair["target"] is None:
        return {"reason": "a grenade: a blast, not one attack on one target"}
    if pair["weapon_kind"] == "unarmed":
        return {"reason": "bare hands: the exact walk takes a weapon of the sheet"}
    closed: dict[str, Any] = {}
    if pair["weapon_kind"] == "melee":
        scenario, closed = within_reach(scenario, pair["attacker"], pair["target"])
    try:
        odds = attack_odds(
            scenario, pair["attacker"], pair["target"], pair["weapon"], pair["shots"], limit
        )
    except TooManyPaths:
        return {"reason": f"more than {limit:,} ways for the dice to fall: too costly"}
    except CombatsimError as err:
        return {"reason": f"not answered: {err}"}
    chances = {key: odds.p(test) for key, test in _CHANCES.items()}
    return {
        **{key: float(p) for key, p in chances.items()},
        "exact": {key: _fraction(p) for key, p in chances.items()},
        **closed,
    }


def within_reach(scenario: Any, attacker: str, target: str) -> tuple[Any, dict[str, Any]]:
    """``scenario`` with ``attacker`` moved straight toward ``target`` until it is within
    reach (the environment's melee range), as the tactics close in before a melee attack;
    and ``{"closed_in": meters}`` when it had to move (nothing when it was within reach)."""
    reach = scenario.environment.melee_range
    fighters = {f.name: f for f in reversed(scenario.fighters)}  # the first of a name
    a, t = fighters.get(attacker), fighters.get(target)
    if a is None or t is None:
        return scenario, {}
    meters = math.dist(a.position, t.position)
    if meters <= reach:
        return scenario, {}
    keep = reach * 0.99 / meters  # a hair inside the reach, whatever the rounding
    at = tuple(t.position[i] + (a.position[i] - t.position[i]) * keep for i in (0, 1))
    sides = tuple(
        replace(
            side, fighters=tuple(replace(f, position=at) if f is a else f for f in side.fighters)
        )
        for side in scenario.sides
    )
    return replace(scenario, sides=sides), {"closed_in": round(meters - reach * 0.99, 1)}


def _fraction(p: Fraction) -> str:
    return str(p.numerator) if p.denominator == 1 else f"{p.numerator}/{p.denominator}"


def _casualties_by_fighter(
    casualties: Sequence[Mapping[str, Any]],
) -> dict[tuple[str, str], dict[str, Any]]:
    """(side, fighter name) -> its sampled rates: a copy's own entry, else the combatant's."""
    found: dict[tuple[str, str], dict[str, Any]] = {}
    for c in casualties:
        if c.get("level") not in ("combatant", "copy"):
            continue
        key = (c["side"], c["who"])
        if key in found and c.get("level") != "copy":
            continue
        found[key] = {k: c.get(k) for k in _NOT_SAMPLED}
    return found


def report_rows(summary: Mapping[str, Any], folder: Path) -> list[dict[str, Any]] | None:
    """The report's rows for a single run's folder (None: no ``attacks.csv``)."""
    pairs = load_attack_pairs(folder)
    if not pairs:
        return None
    try:
        scenario = scenario_of_summary(summary)
    except (CombatsimError, OSError, KeyError):
        scenario = None
    return exact_attack_rows(scenario, pairs, summary.get("casualties"))
