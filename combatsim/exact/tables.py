"""``combatsim odds attack``'s answer as JSON and as a table: the exact odds of one attack."""

from __future__ import annotations

from fractions import Fraction
from typing import Any

from ..odds import Table
from .attack import AttackOdds


def attack_payload(odds: AttackOdds) -> dict[str, Any]:
    """Every probability as a float and, under ``exact``, as a fraction ``"a/b"``."""
    q = odds.question
    parts = _parts(odds)
    return {
        "question": "attack",
        "scenario": q.scenario.name,
        "system": q.scenario.system.name,
        "attacker": odds.attacker,
        "target": odds.target,
        "weapon": odds.weapon,
        "shots": q.shots,
        "distance": round(odds.distance, 3),
        "target_cover": odds.cover,
        **{key: _floats(value) for key, value in parts.items()},
        "exact": {key: _fractions(value) for key, value in parts.items()},
    }


def _parts(odds: AttackOdds) -> dict[str, Any]:
    hit = odds.outcomes.prob(lambda o: o.hit)
    return {
        "p_miss": 1 - hit,
        "p_hit": hit,
        "p_hit_no_damage": odds.p(lambda o: o.hit and not o.damage),
        "damage": dict(sorted(odds.by("damage").items())),
        "condition": _by_mass(odds.by("condition")),
        "status": _by_mass(odds.by("status")),
        "p_down": odds.p(lambda o: o.down),
        "p_dead": odds.p(lambda o: o.status == "dead"),
        "p_attacker_fumbles": odds.p(lambda o: o.fumbled),
        "attacker_damage": dict(sorted(odds.by("attacker_damage").items())),
        "p_attacker_down": odds.p(lambda o: o.attacker_down),
    }


def _by_mass(dist: Any) -> dict[Any, Fraction]:
    return dict(sorted(dist.items(), key=lambda kv: (-kv[1], str(kv[0]))))


def _floats(value: Any) -> Any:
    if isinstance(value, dict):
        return {str(k): float(v) for k, v in value.items()}
    return float(value)


def _fractions(value: Any) -> Any:
    if isinstance(value, dict):
        return {str(k): str(v) for k, v in value.items()}
    return str(value)


def attack_table(odds: AttackOdds) -> Table:
    """One row per outcome: the chance and the exact fraction."""
    q = odds.question
    parts = _parts(odds)
    melee = (
        q.weapon < 0
        or odds.question.scenario.fighters[q.attacker].weapons[q.weapon].kind == "melee"
    )
    shots = "melee" if melee else f"{q.shots} shot{'s' if q.shots != 1 else ''}"
    title = (
        f"{odds.attacker} attacks {odds.target} with the {odds.weapon} ({shots}): "
        f"{q.scenario.name} ({q.scenario.system.name})"
    )
    rows: list[list[object]] = [
        ["miss", float(parts["p_miss"]), _exact(parts["p_miss"])],
        ["hit", float(parts["p_hit"]), _exact(parts["p_hit"])],
        ["  hit, no damage", float(parts["p_hit_no_damage"]), _exact(parts["p_hit_no_damage"])],
    ]
    for amount, p in parts["damage"].items():
        if amount:
            rows.append([f"  damage {amount}", float(p), _exact(p)])
    for condition, p in parts["condition"].items():
        rows.append([f"target afterwards: {condition}", float(p), _exact(p)])
    for label, key in (
        ("target down (out of the fight)", "p_down"),
        ("target dead", "p_dead"),
        ("attacker fumbles (loses next action)", "p_attacker_fumbles"),
    ):
        rows.append([label, float(parts[key]), _exact(parts[key])])
    for amount, p in parts["attacker_damage"].items():
        if amount:  # a melee attack the defender wins
            rows.append([f"attacker takes damage {amount}", float(p), _exact(p)])
    if parts["p_attacker_down"]:
        p = parts["p_attacker_down"]
        rows.append(["attacker down", float(p), _exact(p)])
    notes = [
        f"at the start of the battle: {odds.distance:.1f} m apart, the target "
        f"{'in no' if odds.cover == 'none' else 'in ' + odds.cover} cover and standing "
        "still; the attacker has not moved",
        "damage is in the rule system's own units (boxes, points), over all shots",
        "exact: every way the dice can fall, through the same rule code the battles run",
    ]
    return Table(title, ["outcome", "chance", "exactly"], rows, notes, left=1)


def _exact(p: Fraction) -> str:
    """A fraction, shortened when it is long (the JSON keeps it whole)."""
    text = str(p)
    return text if len(text) <= 24 else f"{float(p):.6g} (see --json)"
