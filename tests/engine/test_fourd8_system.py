"""The ``4d8`` rule system (seed 004; rulings 20-22) in whole battles.

Three kinds, kept apart:

* Worked examples with given faces: every d8 the battle rolls comes from a script (initiative
  first, one d8 per fighter able to act, in scenario order; then each test's four dice in
  aspect order: physical, mental, social, magical). The seed's own combinations (5, 5, 5, 3 is
  13; 4, 4, 2, 2 is 17; 6, 6, 3, 1 is 15; snake-eyes) and every rule the system adds: the chance
  from ease, bonuses within energy and -8, the ease cap, the over-32 choices, the degree's
  damage table, the aspects' effects, armor, health, grenades.
* Exact kill time of a one-sided fight: the law of the turn a lone shooter puts a sitting
  target down, from the dice layer (``exact_degree``; and ``resolve`` over all 4096 rolls when
  a combination's aspect adds damage), against whole battles with ``assert_fits`` and a fixed
  seed; the same sample must reject the law of each named rule mistake.
* The shipped scenarios through ``combatsim run``, batch and trace.
"""

from __future__ import annotations

import math
from collections import Counter
from fractions import Fraction
from itertools import product
from pathlib import Path
from typing import Any

import pytest

from combatsim.cli import main
from combatsim.dice import fourd8 as d8
from combatsim.dice.exact import Dist
from combatsim.engine.battle import run_battle
from combatsim.errors import ScenarioError
from combatsim.scenario import build_scenario, load_scenario
from tests import helpers
from tests.helpers import ScriptedRoller, events, fighter
from tests.stats import ALPHA, assert_fits, chi_square_p

SCENARIOS = Path(__file__).resolve().parents[2] / "scenarios"

WEAPONS: dict[str, dict[str, Any]] = {
    "pistol": {
        "kind": "firearm",
        "damage": 3,
        "abilities": ["shooting", "coordination"],
        "ranges": [8, 20, 40, 80],
        "ammo": 50,
    },
    "rifle": {
        "kind": "firearm",
        "damage": 5,
        "abilities": ["shooting"],
        "requires": "shooting",
        "ranges": [30, 100, 250, 500],
        "ammo": 50,
    },
    "scope": {  # a handy gun: +4 ease
        "kind": "firearm",
        "damage": 3,
        "abilities": ["shooting"],
        "ease_modifier": 4,
        "ranges": [8, 20, 40, 80],
        "ammo": 50,
    },
    "toy": {"kind": "firearm", "damage": 0, "ranges": [0.1, 0.1, 0.1, 0.1], "ammo": 1},
    "spear": {"kind": "melee", "damage": 4, "abilities": ["melee", "strength"]},
    "dynamite": {
        "kind": "grenade",
        "damage": 6,
        "ranges": [8, 15, 25, 35],
        "ammo": 1,
        "blast_radius": 3,
    },
}
ARMOR = {"plate": {"rating": 2}}
BANDS = {1: 0, 5: 1, 9: 2, 13: 3, 17: 4, 21: 6}  # the default degree_damage, restated


def entry(name: str, position=(0.0, 0.0), weapons=("pistol",), rules=None, **sheet):
    tactics = {"movement": "hold", **sheet.pop("tactics", {})}
    if rules:
        tactics["rules"] = rules
    return {
        "name": name,
        "position": list(position),
        "weapons": list(weapons),
        "tactics": tactics,
        "abilities": {},
        "energy": 8,
        "health": 12,  # every member writes its numbers
        **sheet,
    }


def shooter(name="Shooter", shooting=4, coordination=0, **kw):
    return entry(name, abilities={"shooting": shooting, "coordination": coordination}, **kw)


def target(name="Target", position=(5.0, 0.0), **kw):
    return entry(name, position=position, weapons=("toy",), **kw)


def build(sides: dict[str, list], options=None, environment=None, turn_limit=1):
    return helpers.build(
        "4d8",
        sides,
        weapons=WEAPONS,
        armor=ARMOR,
        options=options,
        environment=environment,
        turn_limit=turn_limit,
    )


def duel(a: dict, b: dict | None = None, **kw):
    return build({"A": [a], "B": [b or target()]}, **kw)


def play(sc, faces, angles=()):
    """One traced battle on scripted d8 faces; every face must be used."""
    return helpers.play(sc, ScriptedRoller(faces, die=(1, 8), angles=angles))


FIRST = [8, 1]  # initiative 10 + 0 + d8: the shooter's 18 before the target's 11


def attack_roll(result, actor="Shooter", n=0):
    return events(result, "roll", actor)[n]


# --- worked examples: the chance of success (seed 004 "Mechanics", "Abilities") ------------------


def test_the_chance_is_ease_plus_bonuses_within_energy():
    """Short range 20; shooting 4 and coordination 3 are 7, but energy 5 caps them at 5: 25."""
    sc = duel(shooter(coordination=3, energy=5))
    _, result = play(sc, FIRST + [1, 2, 3, 4])
    roll = attack_roll(result)
    assert roll.data["chance"] == 25
    assert "shooting +4, coordination +1 = 25" in roll.text


def test_a_weakness_counts_in_full():
    sc = duel(shooter(coordination=-2))
    _, result = play(sc, FIRST + [1, 2, 3, 4])
    assert attack_roll(result).data["chance"] == 20 + 4 - 2


@pytest.mark.parametrize(
    ("sheet", "chance", "missing"),
    [
        ({"abilities": {"shooting": 0}}, 20 - 8, 1),  # no bonus, not an occupation skill
        ({"abilities": {"shooting": -1}}, 20 - 1 - 8, 1),
        ({"abilities": {}, "occupation_skills": ["shooting"]}, 20, 0),
        ({"abilities": {"shooting": 1}}, 21, 0),
    ],
)
def test_minus_8_without_the_required_ability(sheet, chance, missing):
    """Seed 004 "Necessary Abilities": the rifle requires shooting; -8 unless the sheet has a
    positive bonus in it or shooting is among its occupation's skills."""
    sc = duel(entry("Shooter", weapons=("rifle",), **sheet), target(position=(20.0, 0.0)))
    battle, result = play(sc, FIRST + [1, 1, 2, 3])
    assert attack_roll(result).data["chance"] == chance
    assert battle.system.record(fighter(battle, "Shooter"))["rolls_without_required"] == missing


def test_difficulty_lowers_the_ease_and_aiming_raises_it_from_the_second_shot():
    """Medium range 17, partial cover -4, reduced light -2: 11 + shooting 4 = 15; the second
    shot at the same target, not having moved: +2 (aiming)."""
    sc = duel(
        shooter(),
        target(position=(15.0, 0.0), cover="partial"),
        environment={"visibility": "reduced_light"},
        turn_limit=2,
    )
    _, result = play(sc, FIRST + [8, 8, 8, 7] + FIRST + [8, 8, 8, 7])
    assert [e.data["chance"] for e in events(result, "roll", "Shooter")] == [15, 17]


def test_the_ease_is_capped_at_32_before_bonuses():
    """Short range 30 + the weapon's 4 = 34 ease, capped at 32 (seed 004 "Ease"); + shooting 3."""
    sc = duel(shooter(shooting=3, weapons=("scope",)), options={"ease": {"short": 30}})
    _, result = play(sc, FIRST + [8, 8, 8, 7])
    roll = attack_roll(result)
    assert roll.data["chance"] == 35 and "capped at 32" in roll.text


# --- worked examples: degree, combinations and their aspects (ruling 20, 22) ------------------


def test_seed_triple_5_5_5_3_is_degree_13_and_its_aspects_add_their_effects():
    """Degree 13 (2 x 5 + 3): band 13-16, +3. The triple is on the physical, mental and social
    dice: +2 damage, 2 points of armor ignored, the target staggered. 3 + 3 + 2 = 8, against
    plate 2 - 2 = 0: 8 off 12."""
    sc = duel(shooter(), target(armor="plate"), turn_limit=2)
    battle, result = play(sc, FIRST + [5, 5, 5, 3] + FIRST + [1, 2, 3, 4])
    roll = attack_roll(result)
    assert (roll.data["degree"], roll.data["combination"]) == (13, "triple")
    t = fighter(battle, "Target")
    assert t.state.health == 12 - 8 - (3 - 2)  # turn 2: 1, 2, 3, 4 is degree 4 (+0), less plate
    assert "staggered" in events(result, "effect", "Target")[0].text
    # it had not acted yet: the action it loses is this turn's
    lost = [e.turn for e in events(result, "action", "Target") if "loses" in e.text]
    assert lost == [1]
    assert battle.system.record(fighter(battle, "Shooter"))["staggered_others"] == 1


def test_seed_two_pairs_4_4_2_2_is_degree_17():
    """17 (4 + 4 + 2 + 2 + 5): band 17-20, +4; every aspect is in a pair: +1 damage (physical),
    1 armor ignored (mental): 3 + 4 + 1 = 8 against plate 1: 7."""
    sc = duel(shooter(), target(armor="plate"))
    battle, result = play(sc, FIRST + [4, 4, 2, 2])
    assert attack_roll(result).data["degree"] == 17
    assert fighter(battle, "Target").state.health == 12 - 7


def test_seed_pair_6_6_3_1_is_degree_15_and_a_pair_on_social_magical_adds_nothing():
    """15 (6 + 6 + 3): band +3. The pair on the social and magical dice has no default effect:
    3 + 3 = 6 against plate 2: 4."""
    sc = duel(shooter(), target(armor="plate"))
    battle, result = play(sc, FIRST + [3, 1, 6, 6])
    roll = attack_roll(result)
    assert (roll.data["degree"], roll.data["combination"]) == (15, "pair")
    assert fighter(battle, "Target").state.health == 12 - 4


def test_the_highest_die_is_the_degree_without_a_combination():
    """2, 5, 6, 8 (the seed's example) total 21 <= 24: degree 8, band 5-8: +1. 3 + 1 = 4."""
    sc = duel(shooter())
    battle, result = play(sc, FIRST + [2, 5, 6, 8])
    assert attack_roll(result).data["degree"] == 8
    assert fighter(battle, "Target").state.health == 12 - 4


def test_a_total_over_the_chance_misses():
    sc = duel(shooter(shooting=0))
    battle, result = play(sc, FIRST + [5, 5, 6, 5])  # 21 > 20
    assert attack_roll(result).data["success"] is False
    assert fighter(battle, "Target").state.health == 12


def test_snake_eyes_is_degree_1_and_costs_the_roller_its_next_action():
    sc = duel(shooter(), turn_limit=2)
    battle, result = play(sc, FIRST + [1, 1, 1, 1] + FIRST)
    assert attack_roll(result).data["degree"] == 1
    assert [e.turn for e in events(result, "action", "Shooter")] == [2]
    assert fighter(battle, "Target").state.health == 12 - 3


def test_snake_eyes_costs_nothing_with_the_option_off():
    sc = duel(shooter(), options={"snake_eyes": "none"}, turn_limit=2)
    _, result = play(sc, FIRST + [1, 1, 1, 1] + FIRST + [2, 3, 4, 5])
    assert len(events(result, "roll", "Shooter")) == 2


def test_effects_are_configurable_per_kind_and_aspect_and_can_be_switched_off():
    """A physical triple made to hit for +10; the mental and social ones switched off."""
    options = {"effects": {"triple": {"physical": {"damage": 10}, "mental": {}, "social": {}}}}
    sc = duel(shooter(), target(health=30, armor="plate"), options=options)
    battle, result = play(sc, FIRST + [5, 5, 5, 3])
    assert fighter(battle, "Target").state.health == 30 - (3 + 3 + 10 - 2)
    assert not events(result, "effect")
    sc = duel(shooter(), target(health=30, armor="plate"), options={"special_effects": False})
    battle, _ = play(sc, FIRST + [5, 5, 5, 3])
    assert fighter(battle, "Target").state.health == 30 - (3 + 3 - 2)


def test_the_degree_damage_table_is_configurable():
    sc = duel(shooter(), target(health=30), options={"degree_damage": {1: 0, 10: 5}})
    battle, _ = play(sc, FIRST + [6, 6, 3, 1])  # degree 15: +5; pair physical/mental +1
    assert fighter(battle, "Target").state.health == 30 - (3 + 5 + 1)


def test_options_refuse_a_damage_table_without_degree_1_and_unknown_keys():
    for options in ({"degree_damage": {5: 1}}, {"nonsense": 1}, {"effects": {"sextet": {}}}):
        with pytest.raises(ScenarioError):
            duel(shooter(), options=options)


# --- worked examples: over 32 (ruling 21) ------------------------------------------------------


def over32(policy: str, shooting=3):
    """Chance 32 + shooting: short range 28 (an option) + the scope's 4 is ease 32."""
    return duel(
        shooter(shooting=shooting, weapons=("scope",), rules={"over32": policy}),
        target(health=40),
        options={"ease": {"short": 28}},
    )


def test_bonus_roll_adds_the_excess_to_the_highest_die_and_has_no_combinations():
    """Chance 35 (ease 32 capped + 3): 5, 5, 5, 3 is no triple but 5 + 3 = degree 8."""
    battle, result = play(over32("bonus"), FIRST + [5, 5, 5, 3])
    roll = attack_roll(result)
    assert (roll.data["chance"], roll.data["degree"], roll.data["combination"]) == (35, 8, "none")
    assert fighter(battle, "Target").state.health == 40 - (3 + 1)


def test_bonus_roll_fails_only_on_four_8s():
    battle, result = play(over32("bonus"), FIRST + [8, 8, 8, 8])
    assert attack_roll(result).data["success"] is False


def test_automatic_success_rolls_no_dice_and_is_degree_8():
    battle, result = play(over32("automatic"), FIRST)
    roll = attack_roll(result)
    assert (roll.data["faces"], roll.data["degree"]) == ([8, 6, 5, 4], 8)
    assert fighter(battle, "Target").state.health == 40 - (3 + 1)


def test_doubles_roll_keeps_lucky_breaks_and_fails_only_on_32():
    battle, result = play(over32("doubles"), FIRST + [7, 7, 7, 7])
    roll = attack_roll(result)
    assert (roll.data["degree"], roll.data["combination"]) == (28, "four_alike")
    assert battle.system.record(fighter(battle, "Shooter"))["lucky_breaks"] == 1
    _, result = play(over32("doubles"), FIRST + [8, 8, 8, 8])
    assert attack_roll(result).data["success"] is False


def bonus_roll_duel(**options):
    """Chance 35 on a bonus roll (ease 32 capped + 3), over two turns."""
    return duel(
        shooter(shooting=3, weapons=("scope",), rules={"over32": "bonus"}),
        target(health=40),
        options={"ease": {"short": 28}, **options},
        turn_limit=2,
    )


def test_snake_eyes_on_a_bonus_roll_hit_with_its_degree_and_cost_the_next_action():
    """Ruling 24: four 1s on a bonus roll are snake-eyes with their unfortunate effect; the
    degree is the bonus roll's own, 1 + 3 = 4 (band 1-4, no extra damage)."""
    battle, result = play(bonus_roll_duel(), FIRST + [1, 1, 1, 1] + FIRST)
    roll = attack_roll(result)
    assert (roll.data["success"], roll.data["degree"], roll.data["combination"]) == (
        True,
        4,
        "snake_eyes",
    )
    assert "(bonus roll)" in roll.text
    assert events(result, "snake_eyes", "Shooter")
    assert [e.turn for e in events(result, "action", "Shooter")] == [2]
    assert fighter(battle, "Target").state.health == 40 - 3
    assert battle.system.record(fighter(battle, "Shooter"))["snake_eyes"] == 1


def test_bonus_roll_snake_eyes_option_off_costs_nothing():
    sc = bonus_roll_duel(bonus_roll_snake_eyes=False)
    battle, result = play(sc, FIRST + [1, 1, 1, 1] + FIRST + [2, 3, 4, 5])
    assert len(events(result, "roll", "Shooter")) == 2
    assert not events(result, "snake_eyes")
    assert battle.system.record(fighter(battle, "Shooter"))["snake_eyes"] == 0


@pytest.mark.parametrize(("shooting", "best"), [(1, "doubles"), (8, "bonus")])
def test_best_takes_the_over32_roll_with_the_highest_exact_expected_damage(shooting, best):
    """At chance 33 a doubles roll almost never fails and keeps the combinations (mean degree
    about 12) while a bonus roll's degree is the highest die + 1 and an automatic success 8;
    at chance 40 a bonus roll's degree is at least 9 and usually beyond 13."""
    sc = over32("best", shooting=shooting)
    system = sc.system
    chance = 32 + shooting
    faces = [] if best == "automatic" else [2, 3, 4, 5]
    battle, result = play(sc, FIRST + faces)
    assert attack_roll(result).text.count(f"({best} roll)") == 1
    expected = {m: system.expected_damage(chance, m, 3, 0) for m in d8.OVER32}
    assert expected[best] == max(expected.values())
    record = battle.system.record(fighter(battle, "Shooter"))
    assert record["over32_choices"] == f"{best}:1"


# --- worked examples: health, armor, melee, grenades --------------------------------------------


def test_down_at_zero_health_and_dead_at_minus_health():
    sc = duel(shooter(weapons=("rifle",)), target(position=(20.0, 0.0), health=8))
    battle, result = play(sc, FIRST + [2, 5, 6, 8])  # degree 8: 5 + 1 = 6 off 8
    assert battle.system.status(fighter(battle, "Target")) == "wounded"
    sc = duel(shooter(weapons=("rifle",)), target(position=(20.0, 0.0), health=6))
    battle, result = play(sc, FIRST + [2, 5, 6, 8])
    t = fighter(battle, "Target")
    assert (t.state.health, battle.system.status(t), result.winner) == (0, "down", "A")
    sc = duel(shooter(weapons=("rifle",)), target(position=(20.0, 0.0), health=3))
    battle, _ = play(sc, FIRST + [2, 5, 6, 8])
    assert battle.system.status(fighter(battle, "Target")) == "dead"


def test_a_wounded_attacker_finds_the_task_harder():
    """The spearman acts first: 6, 6, 3, 1 is degree 15 (+3) and a physical/mental pair (+1):
    4 + 3 + 1 = 8 of the shooter's 12: wounded, -2 to the shooter's ease."""
    spear = entry("Spearman", position=(1.0, 0.0), weapons=("spear",), abilities={"melee": 4})
    sc = duel(shooter(), spear)
    battle, result = play(sc, [1, 8] + [6, 6, 3, 1] + [1, 2, 3, 4])
    assert fighter(battle, "Shooter").state.health == 12 - 8
    roll = attack_roll(result)
    assert "wounded -2" in roll.text and "enemy in reach -4" in roll.text
    assert roll.data["chance"] == 20 - 4 - 2 + 4  # short range, engaged, wounded; shooting


def test_a_melee_attack_uses_the_melee_ease():
    spear = entry("Spearman", position=(4.0, 0.0), weapons=("spear",), abilities={"melee": 3})
    _, result = play(duel(spear), FIRST + [1, 2, 3, 4])
    assert attack_roll(result, "Spearman").data["chance"] == 18 + 3


def grenade_fight():
    thrower = entry(
        "Thrower", weapons=("dynamite",), abilities={"throwing": 4}, tactics={"grenades": "always"}
    )
    return build(
        {
            "A": [thrower],
            "B": [target("Near", position=(12.0, 0.0)), target("Far", position=(12.0, 8.0))],
        }
    )


def test_a_successful_throw_lands_on_the_aim_point():
    """Medium range 17 + throwing 4 = 21; 10 <= 21. Blast 6 off everyone within 3 m."""
    battle, _ = play(grenade_fight(), [8, 1, 1] + [1, 2, 3, 4])
    assert fighter(battle, "Near").state.health == 12 - 6
    assert fighter(battle, "Far").state.health == 12


def test_a_failed_throw_lands_as_many_meters_off_as_it_missed_by():
    """Total 25 against 21: 4 m off along +x, out of Near's 3 m."""
    battle, result = play(grenade_fight(), [8, 1, 1] + [7, 6, 6, 6], angles=[0.0])
    assert "lands 4 m off" in events(result, "grenade", "Thrower")[0].text
    assert fighter(battle, "Near").state.health == 12


@pytest.mark.parametrize("degrees", [k * 15 for k in range(24)])
def test_a_fighter_on_the_aim_point_of_a_throw_3_m_off_is_inside_a_3_m_blast(degrees):
    """Total 24 against 21: 3 m off, in any direction. Near stands on the aim point, exactly
    3 m from the burst whatever floating point makes of it (5 of these 24 directions give
    3.0000000000000004): the blast's edge is inside."""
    battle, result = play(grenade_fight(), [8, 1, 1] + [7, 6, 6, 5], angles=[math.radians(degrees)])
    assert "lands 3 m off" in events(result, "grenade", "Thrower")[0].text
    assert fighter(battle, "Near").state.health == 12 - 6


# --- exact kill time of a one-sided fight -------------------------------------------------------

BATTLES = 6000  # about 3 s a case; every listed mistake is rejected with p < 1e-9 at this size
HEALTH, ARMOR_RATING, DAMAGE, TURNS = 15, 1, 3, 10
NO_EFFECTS = {
    kind: {a: {} for a in d8.ASPECTS} for kind in ("pair", "two_pairs", "triple", "four_alike")
}


def band(degree: int, bands=BANDS) -> int:
    return max((extra for low, extra in bands.items() if degree >= low), default=0)


def one_attack(chance: int, armor: int, triple_bonus: int, bands=BANDS) -> Dist:
    """Exact damage of one attack. Without an aspect effect straight from the dice layer's
    degree law; with one, from its resolver over all 4096 rolls (the aspects decide)."""
    if not triple_bonus:
        return d8.exact_degree(chance).map(
            lambda g: max(0, DAMAGE + band(g, bands) - armor) if g else 0
        )
    counts: Counter = Counter()
    for faces in product(range(1, 9), repeat=4):
        r = d8.resolve(faces, chance)
        extra = triple_bonus if r.kind == "triple" and "physical" in r.aspects else 0
        counts[max(0, DAMAGE + band(r.degree, bands) + extra - armor) if r.success else 0] += 1
    return Dist((k, Fraction(c, 4096)) for k, c in counts.items())


def kill_time_law(first: Dist, rest: Dist, life: int, turns: int) -> Dist:
    """P(the target goes down in turn n), n = 1..turns, and turns + 1 for still standing."""
    alive: dict[int, Fraction] = {0: Fraction(1)}
    law: dict[int, Fraction] = {}
    for n in range(1, turns + 1):
        damage = first if n == 1 else rest
        after: dict[int, Fraction] = {}
        for taken, p in alive.items():
            for x, q in damage.items():
                if taken + x >= life:
                    law[n] = law.get(n, Fraction(0)) + p * q
                else:
                    after[taken + x] = after.get(taken + x, Fraction(0)) + p * q
        alive = after
    law[turns + 1] = sum(alive.values(), Fraction(0))
    return Dist(law)


# Ease short 26 (an option), partial cover -4; shooting 4 + coordination 2 capped by energy 5
# at 5; the gun requires gunnery, which the shooter lacks: -8. First shot 19; then aiming +2: 21.
CHANCES = (19, 21)


def law(chances=CHANCES, armor=ARMOR_RATING, triple_bonus=0, bands=BANDS) -> Dist:
    return kill_time_law(
        one_attack(chances[0], armor, triple_bonus, bands),
        one_attack(chances[1], armor, triple_bonus, bands),
        HEALTH,
        TURNS,
    )


def one_sided(effects) -> list[int]:
    weapons = {
        "toy": WEAPONS["toy"],
        "musket": {
            "kind": "firearm",
            "damage": DAMAGE,
            "abilities": ["shooting", "coordination"],
            "requires": "gunnery",
            "ranges": [8, 20, 40, 80],
            "ammo": 100,
        },
    }
    sc = build_scenario(
        {
            "name": "one-sided",
            "rules": {
                "system": "4d8",
                "options": {"ease": {"short": 26}, "effects": effects, "snake_eyes": "none"},
            },
            "weapons": weapons,
            "armor": {"coat": {"rating": ARMOR_RATING}},
            "sides": [
                {"name": "A", "members": [shooter(coordination=2, energy=5, weapons=["musket"])]},
                {"name": "B", "members": [target(health=HEALTH, armor="coat", cover="partial")]},
            ],
            "turn_limit": TURNS,
        },
        "<test>",
        Path("."),
    )
    out = []
    for i in range(BATTLES):
        r = run_battle(sc, 4096, i)
        out.append(r.turns if r.winner == "A" else TURNS + 1)
    return out


TRIPLE_BONUS = 6
CASES = {
    # aspect effects off: the law is the dice layer's exact degree distribution
    "plain": (NO_EFFECTS, 0),
    # a physical triple hits for +6 (the other aspects switched off)
    "physical triple": (
        {**NO_EFFECTS, "triple": {**NO_EFFECTS["triple"], "physical": {"damage": TRIPLE_BONUS}}},
        TRIPLE_BONUS,
    ),
}


def mistakes(triple_bonus: int) -> dict[str, Dist]:
    out = {
        "energy does not cap the bonuses": law((20, 22), triple_bonus=triple_bonus),
        "no -8 for the missing required ability": law((27, 29), triple_bonus=triple_bonus),
        "aiming never applies": law((19, 19), triple_bonus=triple_bonus),
        "cover ignored": law((23, 25), triple_bonus=triple_bonus),
        "armor ignored": law(armor=0, triple_bonus=triple_bonus),
        "degree bands shifted down one": law(
            triple_bonus=triple_bonus, bands={1: 1, 5: 2, 9: 3, 13: 4, 17: 6}
        ),
    }
    if triple_bonus:
        out["the physical triple's effect ignored"] = law()
    return out


@pytest.fixture(scope="module", params=list(CASES))
def case(request):
    effects, triple_bonus = CASES[request.param]
    return request.param, one_sided(effects), law(triple_bonus=triple_bonus), triple_bonus


@pytest.mark.slow
def test_kill_time_fits_the_exact_law_from_the_dice_layer(case):
    _, sample, exact, _ = case
    assert exact.total() == 1
    assert_fits(sample, exact)


@pytest.mark.slow
def test_the_sample_rejects_the_law_of_every_rule_mistake(case):
    _, sample, exact, triple_bonus = case
    observed = Counter(sample)
    for name, wrong in mistakes(triple_bonus).items():
        assert wrong != exact, name
        assert chi_square_p(observed, wrong) < ALPHA, name


# --- the untraced shortcuts: the same battle as the trace shows -------------------------------


def test_each_rolls_effect_in_battle_is_the_options_effect_of_its_combination():
    """A battle looks each roll's combination effect up by its faces: for all 4096 rolls it is
    ``effects.effect`` of the combination ``resolve`` reads (here with effects on every
    aspect, so that a wrong die or kind shows); without ``special_effects``, none."""
    effects = {
        kind: {
            "physical": {"damage": 1},
            "mental": {"pierce": 2},
            "social": {"stagger": True},
            "magical": {"damage": 4, "pierce": 8},
        }
        for kind in ("pair", "two_pairs", "triple", "four_alike")
    }
    for special in (True, False):
        sc = duel(shooter(), options={"effects": effects, "special_effects": special})
        table = sc.system._faces_table()
        for faces in product(range(1, 9), repeat=4):
            r = d8.resolve(faces, 32)
            e = sc.system.options.effects.effect(r.kind, r.aspects)
            want = (e.damage, e.pierce, e.stagger) if special else (0, 0, False)
            assert table[faces] == (r.total, r.degree, r.kind, want), faces


@pytest.mark.parametrize("policy", d8.OVER32 + ("best",))
def test_a_traced_battle_is_the_untraced_battle(policy):
    """The temple fight (grenades, melee, interception, staggers) with easy shots so that
    chances top 32: battle K traced gives the rows it gives untraced, for every over-32
    choice (an automatic success rolls no dice; a bonus roll reads its faces itself)."""
    data = load_scenario(SCENARIOS / "4d8-temple-guardians.yaml").data
    data = {
        **data,
        "rules": {"system": "4d8", "options": {"ease": {"short": 30, "medium": 28}}},
        "sides": [
            {**side, "tactics": {**side.get("tactics", {}), "rules": {"over32": policy}}}
            for side in data["sides"]
        ],
    }
    sc = build_scenario(data, "<test>", SCENARIOS)
    chances = set()
    for k in range(12):
        traced = run_battle(sc, 5, k, trace=True)
        plain = run_battle(sc, 5, k)
        assert (traced.battle, traced.combatants) == (plain.battle, plain.combatants), k
        chances |= {e.data["chance"] for e in traced.trace if e.kind == "roll"}
    assert max(chances) > d8.MAX_EASE


# --- shipped scenarios end to end ---------------------------------------------------------------

SHIPPED = sorted(SCENARIOS.glob("4d8-*.yaml"))


def test_4d8_scenarios_are_shipped():
    assert len(SHIPPED) >= 2
    assert all(load_scenario(p).system.name == "4d8" for p in SHIPPED)


@pytest.mark.parametrize("path", SHIPPED, ids=lambda p: p.name)
def test_combatsim_run_works_end_to_end(path, tmp_path, capsys):
    out = tmp_path / "out"
    assert main(["run", str(path), "--battles", "20", "--out", str(out), "--quiet"]) == 0
    assert {p.name for p in out.iterdir()} >= {"battles.csv", "combatants.csv", "summary.json"}
    assert "health_left" in (out / "combatants.csv").read_text().splitlines()[0]
    assert main(["run", str(path), "--trace", "0"]) == 0
    assert "attack: chance ease" in capsys.readouterr().out


def test_the_untrained_dockhands_roll_at_minus_8_and_the_veterans_do_not():
    rolls = {}
    for name in ("4d8-dockside-shootout.yaml", "4d8-dockside-shootout-untrained.yaml"):
        sc = load_scenario(SCENARIOS / name)
        rows = [row for i in range(10) for row in run_battle(sc, sc.seed, i).combatants]
        rolls[name] = sum(r["rolls_without_required"] for r in rows if "Dockhand" in r["name"])
    assert rolls["4d8-dockside-shootout.yaml"] == 0
    assert rolls["4d8-dockside-shootout-untrained.yaml"] > 0
