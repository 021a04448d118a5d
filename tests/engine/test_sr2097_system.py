"""The ``sr2097`` rule system in the battle engine: worked examples on scripted dice.

Every test is a real battle (scenario mapping -> loader -> engine) whose d10 and d6 faces come
from a script, so each rule of seed 003 and each ruling-16 setting is checked with given faces
and no randomness: the seed's street samurai (2d6+6, 4d6+6 on MoS 10+), the guard's burst
(3d6+4), the pistol against light armor (16 against PT 15/DR 30 leaves 12), Advantage and
Disadvantage from conditions, night-vision goggles removing Disadvantage, every Edge use,
initiative, injury steps and the trace. The last tests run every shipped 2097 scenario
through ``combatsim run``.
"""

from __future__ import annotations

import pickle
from pathlib import Path
from typing import Any

import pytest
import yaml

from combatsim.cli import main
from combatsim.dice import sr2097 as dice
from combatsim.engine.battle import Battle
from combatsim.errors import ScenarioError
from combatsim.rules.sr2097 import models
from combatsim.rules.sr2097.system import (
    action_scores,
    injury_step,
    injury_thresholds,
    pending_after,
)
from combatsim.scenario import load_catalogue
from tests import helpers
from tests.helpers import DrawScript, events, fighter

ROOT = Path(__file__).resolve().parents[2]
SCENARIOS = [  # the 2097 scenarios (sr2097-compare-classic.yaml is their sr-classic twin)
    p
    for p in sorted((ROOT / "scenarios").glob("sr2097-*.yaml"))
    if yaml.safe_load(p.read_text())["rules"]["system"] == "sr2097"
]
CATALOGUE = ROOT / "scenarios" / "catalogues" / "sr2097.yaml"


# --- scripted dice and scenario builders ------------------------------------------------------


WEAPONS: dict[str, dict[str, Any]] = {
    "sword": {"kind": "melee", "damage": "2d6+ST"},
    "light_pistol": {"kind": "firearm", "damage": "2d6+4", "ranges": [5, 15, 30, 50], "ammo": 12},
    "smart_pistol": {
        "kind": "firearm",
        "damage": "2d6+4",
        "ranges": [5, 15, 30, 50],
        "ammo": 12,
        "smartgun": True,
    },
    "guard_smg": {
        "kind": "firearm",
        "damage": "2d6+4",
        "ranges": [10, 40, 80, 150],
        "ammo": 30,
        "burst": True,
    },
    "rifle": {
        "kind": "firearm",
        "damage": "6d6+8",
        "ranges": [60, 250, 500, 750],
        "ammo": 10,
        "scope": True,
    },
    # Reaches no one: with movement: hold its owner holds every action and never rolls.
    "toy": {"kind": "firearm", "damage": "1d6", "ranges": [0.1, 0.1, 0.1, 0.1], "ammo": 1},
}
ARMOR: dict[str, dict[str, Any]] = {
    "light": {"pt": 15, "dr": 20},
    "jacket": {"pt": 15, "dr": 30},  # the seed's pistol example
    "heavy": {"pt": 35, "dr": 60, "weight": "heavy"},
}


def fighter_entry(name: str, position=(0.0, 0.0), rules=None, tactics=None, **sheet) -> dict:
    """A member with average attributes (4), no skills, no initiative dice (Reflexes only)."""
    attributes = {"body": 4, "agility": 4, "reflexes": 4, "strength": 4, "perception": 4}
    attributes.update(sheet.pop("attributes", {}))
    entry = {
        "name": name,
        "attributes": attributes,
        "initiative_dice": 0,
        "position": list(position),
        "tactics": {"movement": "hold", **(tactics or {}), "rules": dict(rules or {})},
        **sheet,
    }
    return entry


def target_entry(name="Target", position=(20.0, 0.0), **kw) -> dict:
    """A target that never acts: it holds its toy gun every action."""
    kw.setdefault("weapons", ["toy"])
    return fighter_entry(name, position, **kw)


def build(
    shooter: dict,
    target: dict | None = None,
    *,
    options: dict | None = None,
    environment: dict | None = None,
    turn_limit: int = 1,
    weapons: dict | None = None,
):
    return helpers.build(
        "sr2097",
        {"A": [shooter], "B": [target or target_entry()]},
        weapons={**WEAPONS, **(weapons or {})},
        armor=ARMOR,
        options=options,
        environment=environment,
        turn_limit=turn_limit,
    )


def play(scenario, *draws):
    """Run one traced battle on the scripted draws; all of them must be used."""
    return helpers.play(scenario, DrawScript(*draws))


def state(battle, name):
    return fighter(battle, name).state


def d10(*faces):
    return (10, list(faces))


def d6(*faces):
    return (6, list(faces))


SAMURAI = {  # seed: ST 6, a sword; Melee bonus 6 + Agility 6 + Strength 6 = 18
    "attributes": {"agility": 6, "strength": 6},
    "skills": {"melee": 6},
    "weapons": ["sword"],
}


# --- the seed's worked examples -----------------------------------------------------------------


@pytest.mark.parametrize(
    ("check", "damage", "mos"),
    [
        ((3, 4), (3, 4), 2),  # 7 + 18 = 25 vs 23: MoS +2, marginal: 2d6+6
        ((6, 5), (3, 4, 5), 6),  # 29 vs 23: MoS +6, significant: 3d6+6
        ((9, 8), (3, 4, 5, 6), 12),  # 35 vs 23: MoS +12, complete: 4d6+6 (the seed's example)
    ],
)
def test_street_samurai_sword_does_2d6_plus_6_and_4d6_plus_6_on_mos_10(check, damage, mos):
    """Seed "Variable damage rolls", example 1: ST 6 and a sword; the thug parries with his
    Melee ranks (8), so the TN is melee 15 + 8 = 23 (ruling 16 defaults)."""
    sc = build(
        fighter_entry("Samurai", **SAMURAI),
        target_entry("Thug", position=(1.5, 0), skills={"melee": 8}),
    )
    battle, result = play(sc, d10(*check), d6(*damage))
    (roll,) = events(result, "roll")
    assert (roll.data["bonus"], roll.data["tn"], roll.data["mos"]) == (18, 23, mos)
    (dmg,) = events(result, "damage_roll")
    assert dmg.data["faces"] == list(damage)
    assert dmg.data["total"] == sum(damage) + 6
    assert f"{len(damage)}d6" in dmg.text and "Strength 6" in dmg.text
    assert state(battle, "Thug").physical == sum(damage) + 6


@pytest.mark.parametrize(
    ("check", "mos", "extra"),
    [((4, 5), 4, 0), ((4, 6), 5, 1), ((6, 8), 9, 1), ((7, 8), 10, 2)],
)
def test_mos_damage_dice_change_at_5_and_10(check, mos, extra):
    """Ruling 14 at its edges: MoS 4 adds nothing, 5 and 9 one d6, 10 two (sword 2d6)."""
    sc = build(
        fighter_entry("Samurai", **SAMURAI),
        target_entry("Thug", position=(1.5, 0), skills={"melee": 8}),
    )
    damage = (1,) * (2 + extra)
    _, result = play(sc, d10(*check), d6(*damage))
    (roll,) = events(result, "roll")
    assert roll.data["mos"] == mos
    (dmg,) = events(result, "damage_roll")
    assert dmg.data["faces"] == list(damage)
    assert dice.mos_damage_dice(mos) == extra


def test_guard_smg_burst_does_3d6_plus_4_and_fires_three_rounds():
    """Seed example 2: a burst from the guard's SMG is 2d6 + 1d6 (burst) + 4, one check."""
    sc = build(fighter_entry("Guard", skills={"firearms": 4}, weapons=["guard_smg"]))
    battle, result = play(sc, d10(5, 6), d6(2, 3, 4))  # 11 + 12 = 23 vs medium 20: MoS +3
    (dmg,) = events(result, "damage_roll")
    assert dmg.data["total"] == 2 + 3 + 4 + 4
    assert "3d6 (2 weapon + 1 burst)" in dmg.text
    guard = next(f for f in battle.fighters if f.name == "Guard")
    assert guard.ammo == [30 - 3]
    assert guard.shots == 1  # a burst is one attack


def pistol_vs_jacket(**options):
    """A +16 shooter with a light pistol (2d6+4) at 20 m (long, TN 25) against PT 15/DR 30."""
    shooter = fighter_entry(
        "Shooter",
        attributes={"agility": 5, "perception": 5},
        skills={"firearms": 6},
        weapons=["light_pistol"],
    )
    return build(shooter, target_entry(armor="jacket"), options=options)


def test_pistol_against_light_armor_16_damage_leaves_12():
    """Seed "Damage mitigation" example and ruling 15: a 12 on 2d6 is 16; DR 30 soaks 4."""
    battle, result = play(pistol_vs_jacket(), d10(5, 6), d6(6, 6))  # MoS +2: no extra dice
    (dmg,) = events(result, "damage_roll")
    assert (dmg.data["total"], dmg.data["dealt"]) == (16, 12)
    assert "PT 15/DR 30 soaks 4 -> 12" in dmg.text
    assert state(battle, "Target").physical == 12
    (hurt,) = events(result, "damage")
    assert "12/30, moderate" in hurt.text


def test_pistol_damage_below_pt_is_stopped_and_the_armor_holds_by_default():
    battle, result = play(pistol_vs_jacket(), d10(5, 6), d6(5, 5))  # 14 < PT 15
    (dmg,) = events(result, "damage_roll")
    assert dmg.data["dealt"] == 0 and "stopped by PT 15" in dmg.text
    target = state(battle, "Target")
    assert (target.physical, target.pt, target.dr, target.stopped) == (0, 15, 30, 1)
    assert not events(result, "damage")


def test_pistol_damage_equal_to_pt_gets_through_less_dr():
    """Ruling 15 at PT: only damage *below* PT is stopped; 15 vs PT 15 is soaked to 11."""
    battle, result = play(pistol_vs_jacket(), d10(5, 6), d6(5, 6))  # 11 + 4 = 15
    (dmg,) = events(result, "damage_roll")
    assert (dmg.data["total"], dmg.data["dealt"]) == (15, 11)
    assert dice.apply_armor(15, 15, 30) == 11
    assert state(battle, "Target").physical == 11


def test_armor_degradation_option_wears_down_pt_and_dr_on_a_stopped_hit():
    sc = pistol_vs_jacket(armor_degradation_pt=2, armor_degradation_dr=5)
    battle, result = play(sc, d10(5, 6), d6(5, 5))
    target = state(battle, "Target")
    assert (target.pt, target.dr) == (13, 25)
    assert "degrades to PT 13/DR 25" in events(result, "armor")[0].text


# --- Advantage, Disadvantage and conditions -----------------------------------------------------

# A +12 shooter (Firearms 4, Agility 4, Perception 4), light pistol, target at 20 m: long, TN 25.


def shooter(**sheet):
    sheet.setdefault("weapons", ["light_pistol"])
    sheet.setdefault("skills", {"firearms": 4})
    return fighter_entry("Shooter", **sheet)


def only_roll(result):
    (roll,) = events(result, "roll")
    return roll


def test_darkness_gives_disadvantage_and_the_gm_removes_the_highest_die():
    sc = build(shooter(), environment={"visibility": "reduced_light"})
    _, result = play(sc, d10(9, 2, 8))  # keeps 2 + 8: 10 + 12 = 22 vs 25
    roll = only_roll(result)
    assert roll.data["mode"] == dice.DISADVANTAGE
    assert (roll.data["removed"], roll.data["removed_reason"]) == (9, "highest")
    assert roll.data["mos"] == -3
    assert "3d10 [9, 2, 8] removed 9 (highest)" in roll.text
    assert "Disadvantage: reduced light" in roll.text


def test_night_vision_goggles_remove_the_darkness_disadvantage():
    sc = build(shooter(night_vision_goggles=True), environment={"visibility": "reduced_light"})
    _, result = play(sc, d10(9, 2))  # two dice only
    roll = only_roll(result)
    assert roll.data["mode"] == dice.NORMAL
    assert "removed: reduced light (removed by night vision goggles)" in roll.text


def test_removing_disadvantage_lets_smartlink_advantage_stand():
    """Seed "Removing Advantage/Disadvantage": goggles are not Advantage, so the smartlink's
    Advantage survives; the player removes the lowest die."""
    sc = build(
        shooter(night_vision_goggles=True, smartlink=True, weapons=["smart_pistol"]),
        environment={"visibility": "reduced_light"},
    )
    _, result = play(sc, d10(9, 2, 8), d6(1, 1))  # keeps 9 + 8: 29 vs 25, MoS +4
    roll = only_roll(result)
    assert roll.data["mode"] == dice.ADVANTAGE
    assert (roll.data["removed"], roll.data["removed_reason"], roll.data["mos"]) == (2, "lowest", 4)


def test_advantage_without_a_double_keeps_the_two_highest_and_the_mos_sets_the_dice():
    """Three different faces: Advantage drops the lowest; MoS +5 adds 1d6 (the damage roll
    asks for 3d6, so a wrong MoS fails the script). The dice layer agrees."""
    sc = build(
        shooter(night_vision_goggles=True, smartlink=True, weapons=["smart_pistol"]),
        environment={"visibility": "reduced_light"},
    )
    _, result = play(sc, d10(10, 1, 8), d6(1, 1, 1))  # keeps 10 + 8: 30 vs 25, MoS +5
    assert only_roll(result).data["mos"] == 5
    (dmg,) = events(result, "damage_roll")
    assert len(dmg.data["faces"]) == 3
    assert dice.check_outcome((10, 1, 8), 12 - 25, dice.ADVANTAGE, False) == (5, False)


def test_disadvantage_without_a_double_keeps_the_two_lowest_and_the_mos_sets_the_dice():
    """Three different faces: Disadvantage drops the highest; MoS +4 adds no die (dropping
    the lowest instead would make it +6 and ask for 3d6)."""
    sc = build(shooter(), environment={"visibility": "reduced_light"})
    _, result = play(sc, d10(9, 10, 8), d6(1, 1))  # keeps 9 + 8: 29 vs 25, MoS +4
    assert only_roll(result).data["mos"] == 4
    (dmg,) = events(result, "damage_roll")
    assert len(dmg.data["faces"]) == 2
    assert dice.check_outcome((9, 10, 8), 12 - 25, dice.DISADVANTAGE, False) == (4, False)


def test_smartlink_advantage_and_darkness_disadvantage_cancel():
    sc = build(
        shooter(smartlink=True, weapons=["smart_pistol"]),
        environment={"visibility": "reduced_light"},
    )
    _, result = play(sc, d10(9, 2))
    roll = only_roll(result)
    assert roll.data["mode"] == dice.NORMAL
    assert "Advantage: smartlink; Disadvantage: reduced light" in roll.text


def test_advantage_keeps_a_double_when_that_leaves_the_better_margin():
    """Ruling 13 in the engine: at 10 m (medium, TN 20) a +12 shooter with Advantage rolls
    4, 4, 5: keeping 4+5 is MoS +1, keeping the double is 0 + 5 = +5 and a 1d6 bonus."""
    sc = build(
        shooter(smartlink=True, weapons=["smart_pistol"]),
        target_entry(position=(10, 0)),
    )
    _, result = play(sc, d10(4, 4, 5), d6(1, 1, 1))
    roll = only_roll(result)
    assert (roll.data["removed"], roll.data["removed_reason"]) == (5, "keeps double")
    assert roll.data["mos"] == 5
    assert "removed 5 (keeps double)" in roll.text and "double +5" in roll.text
    assert "3d6 (2 weapon + 1 MoS)" in events(result, "damage_roll")[0].text


@pytest.mark.parametrize(
    ("cover", "tn", "faces"),
    [("none", 25, (1, 2)), ("partial", 25, (1, 2, 3)), ("full", 30, (1, 2, 3))],
)
def test_cover_gives_disadvantage_and_full_cover_also_5_tn(cover, tn, faces):
    sc = build(shooter(), target_entry(cover=cover))
    _, result = play(sc, d10(*faces))
    assert only_roll(result).data["tn"] == tn
    assert only_roll(result).data["mode"] == (dice.NORMAL if cover == "none" else dice.DISADVANTAGE)


@pytest.mark.parametrize(("armor", "tn"), [(None, 28), ("light", 28), ("heavy", 25)])
def test_defender_dodge_raises_the_tn_and_heavy_armor_takes_it_away(armor, tn):
    """Ruling 16 default: TN = range TN + Dodge ranks (3); heavy armor costs 4 Dodge."""
    target = target_entry(skills={"dodge": 3}, **({"armor": armor} if armor else {}))
    _, result = play(build(shooter(), target), d10(1, 2))
    assert only_roll(result).data["tn"] == tn


def test_a_fighters_profile_is_derived_once_and_a_pickled_system_starts_afresh():
    """The sheet's numbers are worked out at a fighter's first battle and reused; a copy of
    the system (a worker's) drops them, as they are keyed by this process's specs."""
    sc = build(shooter(), target_entry())
    first = Battle(sc, rng=None, roller=DrawScript()).fighters[0].state.profile
    again = Battle(sc, rng=None, roller=DrawScript()).fighters[0].state.profile
    assert again is first
    assert first.bonuses["firearms"] == sc.system.skill_bonus(sc.fighters[0].sheet, "firearms")[0]
    copy = pickle.loads(pickle.dumps(sc.system))
    assert len(copy._profiles) == 0 and sc.system._profiles


def test_heavy_armor_slows_its_wearer():
    sc = build(shooter(armor="heavy"), target_entry(armor="light"))
    a, b = (Battle(sc, rng=None, roller=DrawScript()).fighters[i] for i in (0, 1))
    assert sc.system.movement(a) == pytest.approx((3.0, 9.0))  # 5 and 15 m x 0.6
    assert sc.system.movement(b) == pytest.approx((5.0, 15.0))


def test_a_critically_injured_fighter_has_disadvantage():
    roller = DrawScript(d10(9, 2, 8))
    battle = Battle(build(shooter()), rng=None, trace=True, roller=roller)
    battle.fighters[0].state.physical = 23  # critical: 23 of 30
    result = battle.run()
    roll = only_roll(result)
    assert roll.data["mode"] == dice.DISADVANTAGE and "critical injury" in roll.text


# --- failure consequences (seed "Magnitude of Success/Failure", ruling 23) ---------------------


def test_the_shared_pending_disadvantage_is_the_dice_layers_for_every_failure():
    """``pending_after`` keeps one record per (kind, MoS) instead of making one per failed
    check: for every failing MoS it says what ``dice.mos_tier`` and
    ``dice.failure_disadvantage`` say, and a record is the same object each time it is left."""
    for kind in ("attack", "melee"):
        for mos in range(-45, 0):
            tier = dice.mos_tier(mos)
            scope = dice.failure_disadvantage(tier)
            left = pending_after(kind, mos)
            if scope is None:
                assert left is None, mos
            else:
                assert (left.scope, left.kind, left.tier, left.mos) == (scope, kind, tier, mos)
                assert pending_after(kind, mos) is left


# A +12 shooter at 20 m (long, TN 25) with Reflexes 24 and no initiative dice acts at 24, 14
# and 4: three attack checks in one turn against a target that never acts.


def fast_shooter(**sheet):
    sheet.setdefault("attributes", {"reflexes": 24})
    return shooter(**sheet)


def rolls(result):
    return events(result, "roll")


def test_a_significant_failure_gives_disadvantage_on_the_next_attack_only():
    """1 + 2 + 12 = 15 vs 25 is MoS -10, a significant failure: the next attack check rolls
    3d10 and the GM removes the highest; that check spends it, so the third is plain 2d10."""
    battle, result = play(
        build(fast_shooter()),
        d10(1, 2),  # MoS -10: significant failure
        d10(9, 8, 7),  # Disadvantage: 9 removed, 8 + 7 + 12 = 27, MoS +2: a hit
        d6(1, 1),
        d10(5, 6),  # plain again: 23 vs 25, marginal failure
    )
    first, second, third = rolls(result)
    assert first.data["mos"] == -10
    assert "significant failure: Disadvantage on the next attack check (ruling 23)" in first.text
    assert second.data["mode"] == dice.DISADVANTAGE and second.data["removed"] == 9
    assert "Disadvantage: significant failure on the last attack check (MoS -10)" in second.text
    assert third.data["mode"] == dice.NORMAL
    assert "ruling 23" not in third.text
    assert battle.fighters[0].state.failure_disadvantages == 1
    assert result.combatants[0]["failure_disadvantages"] == 1


def test_a_complete_failure_gives_disadvantage_on_the_next_check_of_any_kind():
    """A double 1 is 14 vs 25, -11, and the double's -5 makes MoS -16: a complete failure."""
    _, result = play(build(fast_shooter()), d10(1, 1), d10(9, 8, 7), d6(1, 1), d10(5, 6))
    first, second, _ = rolls(result)
    assert first.data["mos"] == -16
    assert "complete failure: Disadvantage on the next check of any kind" in first.text
    assert second.data["mode"] == dice.DISADVANTAGE
    assert "complete failure on the last attack check (MoS -16)" in second.text


def test_a_marginal_failure_leaves_nothing_behind():
    _, result = play(build(fast_shooter()), d10(5, 6), d10(9, 8), d6(1, 1), d10(5, 6))
    assert [r.data["mode"] for r in rolls(result)] == [dice.NORMAL] * 3


def test_advantage_cancels_the_failure_disadvantage():
    """The smartlink's Advantage and the pending Disadvantage cancel: a plain 2d10 check."""
    sc = build(fast_shooter(smartlink=True, weapons=["smart_pistol"]))
    _, result = play(
        sc,
        d10(1, 2, 1),  # Advantage keeps 1 + 2 (the double 1, 1 would fail worse): MoS -10
        d10(9, 8),  # Advantage and Disadvantage: 29 vs 25, a hit
        d6(1, 1),
        d10(9, 8, 1),  # the Disadvantage is spent: Advantage again
        d6(1, 1),
    )
    first, second, third = rolls(result)
    assert (first.data["mode"], first.data["mos"]) == (dice.ADVANTAGE, -10)
    assert second.data["mode"] == dice.NORMAL
    assert "Advantage: smartlink; Disadvantage: significant failure" in second.text
    assert third.data["mode"] == dice.ADVANTAGE


def test_edge_may_remove_the_failure_disadvantage():
    """With the ``disadvantaged`` policy, Edge is spent only once the failure left Disadvantage."""
    sc = build(fast_shooter(edge=1, rules={"attack": "disadvantaged", "reserve": 0}))
    battle, result = play(sc, d10(1, 2), d10(9, 8), d6(1, 1), d10(5, 6))
    first, second, _ = rolls(result)
    assert not first.data["edge"]
    assert second.data["mode"] == dice.NORMAL and second.data["edge"]
    (spend,) = events(result, "edge")
    assert "remove disadvantage" in spend.text
    assert state(battle, "Shooter").spent["attack"] == 1


def test_failure_disadvantage_option_off_leaves_every_check_plain():
    sc = build(fast_shooter(), options={"failure_disadvantage": "off"})
    battle, result = play(sc, d10(1, 1), d10(9, 8), d6(1, 1), d10(1, 2))
    assert [r.data["mode"] for r in rolls(result)] == [dice.NORMAL] * 3
    assert all("ruling 23" not in r.text for r in rolls(result))
    assert battle.fighters[0].state.failure_disadvantages == 0


# --- Edge ---------------------------------------------------------------------------------------


def test_edge_buys_advantage_when_the_odds_are_low_and_keeps_the_reserve():
    """P(hit) at +12 vs 25 is 36% (< 50%), Advantage with Edge raises it by more than 10
    points: 1 Edge is spent (2 -> 1, the reserve) and the check rolls 3d10."""
    sc = build(shooter(edge=2))
    battle, result = play(sc, d10(10, 1, 9), d6(1, 1, 1))  # keeps 10 + 9: 31, MoS +6
    (spend,) = events(result, "edge")
    assert "gain advantage" in spend.text and "P(hit) 36%" in spend.text
    roll = only_roll(result)
    assert roll.data["mode"] == dice.ADVANTAGE and roll.data["edge"]
    st = state(battle, "Shooter")
    assert (st.edge, st.spent["attack"]) == (1, 1)


def test_edge_is_not_spent_below_the_reserve_or_with_the_option_off():
    _, result = play(build(shooter(edge=1)), d10(1, 2))
    assert not events(result, "edge")
    rules = {"attack": "always", "reserve": 0}
    _, result = play(build(shooter(edge=3, rules=rules), options={"edge": False}), d10(1, 2))
    assert not events(result, "edge")


def test_edge_removes_disadvantage_rather_than_buying_advantage():
    sc = build(
        shooter(edge=1, rules={"attack": "always", "reserve": 0}),
        environment={"visibility": "reduced_light"},
    )
    _, result = play(sc, d10(1, 2))  # Disadvantage removed: a plain 2d10
    roll = only_roll(result)
    assert roll.data["mode"] == dice.NORMAL and roll.data["edge"]
    assert "remove disadvantage" in events(result, "edge")[0].text


def test_edge_on_an_edge_check_double_adds_5_even_on_a_failure():
    """Seed "Using Edge": 6 + 6 + 12 = 24 misses TN 25 by 1, but the double adds 5."""
    sc = build(shooter(edge=1, rules={"attack": "always", "reserve": 0}))
    _, result = play(sc, d10(6, 6, 1), d6(1, 1))
    roll = only_roll(result)
    assert (roll.data["mos"], roll.data["success"]) == (4, True)
    assert "double with Edge +5" in roll.text


def test_edge_damage_adds_2d6_and_gets_through_heavy_armor():
    """vs_armor: 3d6+4 expects 14.5 against PT 35, so Edge adds 2d6 (seed "Edge" 3). A double
    10 is MoS +12: 2 + 2 MoS + 2 Edge = 6d6 + 4 = 39, DR 60 soaks 23, 16 gets through."""
    sc = build(shooter(edge=2, rules={"attack": "never"}), target_entry(armor="heavy"))
    battle, result = play(sc, d10(10, 10), d6(6, 6, 6, 6, 6, 5))
    (dmg,) = events(result, "damage_roll")
    assert "6d6 (2 weapon + 2 MoS + 2 Edge)" in dmg.text
    assert (dmg.data["total"], dmg.data["dealt"]) == (39, 16)
    assert state(battle, "Shooter").spent["damage"] == 1


def test_edge_initiative_adds_2d6_for_the_first_turn_only():
    sc = build(
        fighter_entry(
            "Fast",
            attributes={"reflexes": 7},
            initiative_dice=1,
            edge=2,
            weapons=["toy"],
            rules={"initiative": "first_turn"},
        ),
        turn_limit=2,
    )
    _, result = play(sc, d6(6), d6(6, 6), d6(3))
    first, second = (e for e in events(result, "initiative") if e.actor == "Fast")
    assert (first.data["result"], first.data["scores"]) == (25, [25, 15, 5])
    assert (second.data["result"], second.data["scores"]) == (10, [10])
    assert "Edge [6, 6]" in first.text


def small_target(**kw):
    """Health 12: moderate from 3, serious 6, critical 9, down 12; dead at 18."""
    return target_entry(health=12, **kw)


def test_lessen_injury_turns_a_dropping_hit_into_critical():
    sc = build(shooter(), small_target(edge=1))
    battle, result = play(sc, d10(8, 7), d6(5, 5))  # MoS +2; 14 damage would be down
    target = state(battle, "Target")
    assert (target.physical, target.edge, target.spent["lessen"]) == (11, 0, 1)
    assert "lessen the injury down -> critical (14 damage -> 11)" in events(result, "edge")[0].text
    assert result.winner is None  # still standing at the turn limit


def test_without_edge_the_same_hit_takes_the_target_down():
    battle, result = play(build(shooter(), small_target()), d10(8, 7), d6(5, 5))
    assert result.winner == "A"
    assert battle.system.status(battle.fighters[1]) == "dying"


def test_edge_burn_survives_a_killing_blow_and_costs_maximum_edge():
    """MoS +5 adds 1d6: 3d6+4 = 22 reaches dead (18); Edge Burn leaves 17, dying."""
    sc = build(shooter(), small_target(edge=1))
    battle, result = play(sc, d10(10, 8), d6(6, 6, 6))
    target = state(battle, "Target")
    assert (target.physical, target.edge, target.edge_max, target.burned) == (17, 0, 0, 1)
    assert battle.system.status(battle.fighters[1]) == "dying"
    assert "burns Edge" in events(result, "edge")[0].text


def test_without_burn_the_killing_blow_kills():
    sc = build(shooter(), small_target(edge=1, rules={"burn": False}))
    battle, _ = play(sc, d10(10, 8), d6(6, 6, 6))
    assert battle.system.status(battle.fighters[1]) == "dead"


@pytest.mark.parametrize(("needs_edge", "status"), [(True, "dead"), (False, "dying")])
def test_edge_burn_with_no_edge_left_follows_the_option(needs_edge, status):
    """Two shots (Reflexes 14: actions at 14 and 4): the first hit (8, serious) is lessened
    to 5 with the target's only Edge point; the second kills unless Edge Burn may be used
    with no current Edge (``burn_needs_edge: off``)."""
    sc = build(
        shooter(attributes={"reflexes": 14}),
        small_target(edge=1, rules={"lessen": "always"}),
        options={"burn_needs_edge": needs_edge},
    )
    battle, _ = play(sc, d10(8, 7), d6(2, 2), d10(10, 8), d6(6, 6, 6))
    assert battle.system.status(battle.fighters[1]) == status
    assert state(battle, "Target").spent["lessen"] == 1


# --- initiative, health and injury ---------------------------------------------------------------


def test_extra_actions_every_10_points_while_above_0_at_most_max_actions():
    assert action_scores(9, 10, 4) == [9]
    assert action_scores(10, 10, 4) == [10]
    assert action_scores(11, 10, 4) == [11, 1]
    assert action_scores(23, 10, 4) == [23, 13, 3]
    assert action_scores(45, 10, 4) == [45, 35, 25, 15]
    assert action_scores(23, 7, 2) == [23, 16]


def test_injury_steps_of_a_30_point_fighter():
    thresholds = injury_thresholds(30, (0.25, 0.5, 0.75, 1.0))
    assert thresholds == (8, 15, 23, 30)
    names = [models.INJURY_NAMES[injury_step(t, thresholds)] for t in (0, 1, 7, 8, 15, 29, 30)]
    assert names == ["unhurt", "grazed", "grazed", "moderate", "serious", "critical", "down"]


def test_health_is_10_plus_5_body_unless_the_sheet_or_options_say_otherwise():
    sc = build(shooter(attributes={"body": 6}), target_entry(health=50))
    battle = Battle(sc, rng=None, roller=DrawScript())
    assert [f.state.health for f in battle.fighters] == [40, 50]
    sc = build(shooter(), options={"health_base": 0, "health_per_body": 10})
    assert Battle(sc, rng=None, roller=DrawScript()).fighters[0].state.health == 40


def test_a_punch_is_1d6_plus_st_stun_and_knocks_out_without_killing():
    """A fighter without weapons punches (seed: 1d6+ST Stun): 8 vs melee TN 15."""
    sc = build(fighter_entry("Brawler"), target_entry(position=(1.5, 0), health=5))
    battle, result = play(sc, d10(5, 4), d6(3))  # 9 + 8 = 17: MoS +2; 3 + 4 = 7 Stun
    target = state(battle, "Target")
    assert (target.stun, target.physical) == (7, 0)
    assert battle.system.status(battle.fighters[1]) == "unconscious"
    assert "1d6 (1 weapon) [3] + Strength 4 = 7 Stun" in events(result, "damage_roll")[0].text


# --- validation ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "options",
    [
        {"no_such_option": 1},
        {"injury_levels": [0.5, 0.25, 0.75, 1.0]},
        {"dead_at": 1.0},
        {"range_tn": {"close": 10}},
        {"cover": {"partial": {"disadvantage": "maybe"}}},
    ],
)
def test_bad_options_are_refused(options):
    with pytest.raises(ScenarioError):
        build(shooter(), options=options)


@pytest.mark.parametrize(
    "weapon",
    [
        {"kind": "melee", "damage": "2d6+4"},  # melee adds the wielder's Strength
        {"kind": "firearm", "damage": "2d6+ST", "ranges": [1, 2, 3, 4], "ammo": 5},
        {"kind": "firearm", "damage": "2d8+4", "ranges": [1, 2, 3, 4], "ammo": 5},
        {"kind": "grenade", "damage": "2d6+4", "ranges": [1, 2, 3, 4], "ammo": 5},
    ],
)
def test_bad_weapons_are_refused(weapon):
    with pytest.raises(ScenarioError):
        build(shooter(weapons=["bad"]), weapons={"bad": weapon})


def test_unknown_edge_policy_is_refused():
    with pytest.raises(ScenarioError, match="tactics"):
        build(shooter(rules={"attack": "sometimes"}))


def test_catalogue_has_the_seed_weapons_and_armor_exactly():
    cat = load_catalogue(CATALOGUE)
    w = {name: str(weapon.code) for name, weapon in cat["weapons"].items()}
    assert w["light_pistol"] == w["ingram_smartgun"] == w["guard_smg"] == "2d6+4"
    assert cat["weapons"]["guard_smg"].burst
    assert w["ares_predator"] == "3d6+5"
    assert w["assault_rifle"] == "4d6+6"
    assert w["sniper_rifle"] == "6d6+8"
    assert w["assault_cannon"] == "8d6+10"
    assert w["sword"] == "2d6+ST"
    assert w["fists"] == "1d6+ST" and cat["weapons"]["fists"].stun
    armor = {name: (a.pt, a.dr, a.weight) for name, a in cat["armor"].items()}
    assert armor["light_armor"] == (15, 20, "light")
    assert armor["armor_jacket"] == (15, 30, "light")
    assert armor["medium_armor"] == (25, 40, "medium")
    assert armor["heavy_armor"] == (35, 60, "heavy")
    assert cat["archetypes"]["street_samurai"]["attributes"]["strength"] == 6


# --- the shipped scenarios end to end ----------------------------------------------------------


def test_at_least_three_2097_scenarios_are_shipped():
    names = {p.name for p in SCENARIOS}
    assert len(names) >= 3
    assert {
        "sr2097-runners-vs-patrol.yaml",
        "sr2097-heavy-armor.yaml",
        "sr2097-sniper-duel.yaml",
    } <= names


@pytest.mark.parametrize("path", SCENARIOS, ids=lambda p: p.name)
def test_combatsim_run_works_end_to_end_on_each_2097_scenario(path, tmp_path, capsys):
    out = tmp_path / "out"
    assert main(["run", str(path), "--battles", "20", "--quiet", "--out", str(out)]) == 0
    for name in ("battles.csv", "combatants.csv", "summary.json"):
        assert (out / name).stat().st_size > 0
    header = (out / "combatants.csv").read_text().splitlines()[0]
    for column in ("injury", "edge_left", "edge_attack", "edge_burned", "armor_pt"):
        assert column in header
    assert main(["run", str(path), "--trace", "0"]) == 0
    trace = capsys.readouterr().out
    assert "check: 2d10 [" in trace or "check: 3d10 [" in trace
    assert "MoS" in trace and "Outcome: " in trace
