"""The ``lost-souls`` rule system (seed 001; rulings 17-19) in whole battles.

Three kinds, kept apart:

* Worked examples with given faces: every d10 the battle rolls comes from a script (initiative
  first, one d10 per fighter able to act, in scenario order; then each roll's tens, ones and
  bonus or penalty dice, in that order; a 10 reads as 0 on percentile dice). The seed's own
  examples (Perkins' 89, Mandy's 09) and every combat rule the system adds: cancelling and the
  cap of 5, called shots, cooperative attacks, Karma, aiming, armor, life, the replacement
  Action Results Table, grenades.
* Exact kill time of a one-sided fight: the law of the turn a lone shooter puts a sitting
  target down, built from the dice layer's exact tier distribution, against whole battles
  (``assert_fits``, fixed seed); the same sample must reject the law of each named rule
  mistake, which shows the sample is big enough to catch it.
* The shipped scenarios through ``combatsim run``, batch and trace.
"""

from __future__ import annotations

import math
from collections import Counter
from fractions import Fraction
from pathlib import Path
from typing import Any

import pytest

from combatsim.cli import main
from combatsim.dice import lost_souls as ls
from combatsim.dice.exact import Dist
from combatsim.engine.battle import run_battle
from combatsim.errors import ScenarioError
from combatsim.scenario import load_scenario
from tests import helpers
from tests.helpers import ScriptedRoller, events, fighter
from tests.stats import ALPHA, assert_fits, chi_square_p

SCENARIOS = Path(__file__).resolve().parents[2] / "scenarios"
TABLE = ls.default_table()

WEAPONS: dict[str, dict[str, Any]] = {
    "pistol": {"kind": "firearm", "multiplier": 3, "ranges": [5, 30, 60], "ammo": 50},
    "cannon": {"kind": "firearm", "multiplier": 10, "ranges": [5, 30, 60], "ammo": 50},
    # reaches no one: with movement hold its owner holds every action, a sitting target
    "toy": {"kind": "firearm", "multiplier": 1, "ranges": [0.1, 0.1, 0.1], "ammo": 1},
    "knife": {"kind": "melee", "multiplier": 2},
    "bomb": {
        "kind": "grenade",
        "multiplier": 2,
        "ranges": [10, 20, 30],
        "ammo": 1,
        "blast_radius": 3,
    },
}
ARMOR = {"vest": {"rating": 2}}


def fighter_entry(name: str, position=(0.0, 0.0), weapons=("pistol",), rules=None, **sheet):
    tactics = {"movement": "hold", **sheet.pop("tactics", {})}
    if rules:
        tactics["rules"] = rules
    return {
        "name": name,
        "position": list(position),
        "weapons": list(weapons),
        "tactics": tactics,
        "abilities": {},
        "life": 10,
        "reflexes": 5,  # every member writes its numbers
        **sheet,
    }


def shooter(name="Shooter", column=5, **kw):
    return fighter_entry(name, abilities={"firearms": column, "melee": column}, **kw)


def target(name="Target", position=(20.0, 0.0), **kw):
    return fighter_entry(name, position=position, weapons=("toy",), **kw)


def build(sides: dict[str, list], options=None, environment=None, turn_limit=1, base=Path(".")):
    return helpers.build(
        "lost-souls",
        sides,
        weapons=WEAPONS,
        armor=ARMOR,
        options=options,
        environment=environment,
        turn_limit=turn_limit,
        base=base,
        file=str(base / "test.yaml"),
    )


def duel(a: dict, b: dict | None = None, **kw):
    return build({"A": [a], "B": [b or target()]}, **kw)


def play(sc, faces, angles=()):
    """One traced battle on scripted d10 faces; every face must be used."""
    return helpers.play(sc, ScriptedRoller(faces, die=(1, 10), angles=angles))


# Initiative: Reflexes 5 + the d10. A shooter's 9 (14) against a target's 1 (6): shooter first.
FIRST = [9, 1]


# --- worked examples: the seed's ----------------------------------------------------------------


def test_perkins_bonus_die_8_makes_89_a_superior_hit_of_4_x_3_less_armor():
    """Seed 001 "Bonus Dice": tens 6, ones 9, bonus 8 -> 89. Column 5 reads 88-95 Superior:
    4 points x the pistol's multiplier 3 = 12, less the vest's 2: 10 off 12 life."""
    sc = duel(shooter(extra_dice=1), target(life=12, armor="vest"))
    battle, result = play(sc, FIRST + [6, 9, 8])
    (roll,) = events(result, "roll", "Shooter")
    assert (roll.data["roll"], roll.data["net"], roll.data["tier"]) == (89, 1, "Superior")
    t = fighter(battle, "Target")
    assert t.state.life == 2 and battle.system.status(t) == "wounded"
    assert fighter(battle, "Shooter").damage_dealt == 10


def test_perkins_bonus_die_2_leaves_69_a_fair_hit():
    sc = duel(shooter(extra_dice=1), target(life=12, armor="vest"))
    battle, result = play(sc, FIRST + [6, 9, 2])
    (roll,) = events(result, "roll", "Shooter")
    assert (roll.data["roll"], roll.data["tier"]) == (69, "Fair")
    assert fighter(battle, "Target").state.life == 12 - (2 * 3 - 2)


def test_mandy_penalty_die_0_turns_99_into_a_catastrophic_09_and_costs_the_next_action():
    """Seed 001 "Penalty Dice": tens 9, ones 9, penalty 0 -> 09, Catastrophic in column 3.
    With ``catastrophe: lose_action`` the shooter loses its turn-2 action."""
    sc = duel(
        shooter(column=3, extra_dice=-1), options={"catastrophe": "lose_action"}, turn_limit=2
    )
    battle, result = play(sc, FIRST + [9, 9, 10] + FIRST)
    (roll,) = events(result, "roll", "Shooter")
    assert (roll.data["roll"], roll.data["tier"], roll.data["success"]) == (
        9,
        "Catastrophic",
        False,
    )
    lost = events(result, "action", "Shooter")
    assert [e.turn for e in lost] == [2] and "loses this action" in lost[0].text
    assert fighter(battle, "Target").state.life == 10
    assert battle.system.record(fighter(battle, "Shooter"))["catastrophes"] == 1


def test_a_catastrophe_costs_nothing_by_default():
    sc = duel(shooter(column=3, extra_dice=-1), turn_limit=2)
    battle, result = play(sc, FIRST + [9, 9, 10] + FIRST + [1, 1])  # aiming cancels -1
    assert len(events(result, "roll", "Shooter")) == 2


# --- worked examples: circumstances, cancelling, the cap (ruling 17) ----------------------------


def test_circumstances_cancel_one_for_one():
    """Full cover -2, reduced light -1 and 3 standing bonus dice leave 0: two faces only."""
    sc = duel(
        shooter(extra_dice=3),
        target(cover="full"),
        environment={"visibility": "reduced_light"},
    )
    battle, result = play(sc, FIRST + [5, 5])
    (roll,) = events(result, "roll", "Shooter")
    assert roll.data["net"] == 0 and roll.data["roll"] == 55
    assert "full cover -2" in roll.text and "reduced light -1" in roll.text


def test_net_dice_are_capped_at_five_penalty_dice():
    """Full cover -2, full darkness -2, long range -1, 3 standing penalty dice: -8, rolled as -5
    (seven faces: the worst of six tens-place dice)."""
    sc = duel(
        shooter(extra_dice=-3),
        target(cover="full", position=(50.0, 0.0)),
        environment={"visibility": "full_darkness"},
    )
    battle, result = play(sc, FIRST + [9, 9, 9, 9, 9, 9, 8])
    (roll,) = events(result, "roll", "Shooter")
    assert roll.data["net"] == -5 and roll.data["roll"] == 89
    assert "capped at -5" in roll.text


def test_range_bands_give_their_dice():
    """Default range dice: short +1, medium 0, long -1."""
    nets = {}
    for x, faces in ((4.0, [1, 1, 1]), (20.0, [1, 1]), (50.0, [1, 1, 1])):
        _, result = play(duel(shooter(), target(position=(x, 0.0))), FIRST + faces)
        nets[x] = events(result, "roll", "Shooter")[0].data["net"]
    assert nets == {4.0: 1, 20.0: 0, 50.0: -1}


def test_a_sheet_without_the_ability_rolls_on_the_weakest_column():
    """60 is a Passable hit in column 5 but Mediocre (a miss) in column 1."""
    sc = duel(fighter_entry("Shooter", abilities={"melee": 5}))
    _, result = play(sc, FIRST + [6, 10])
    (roll,) = events(result, "roll", "Shooter")
    assert "column 1" in roll.text and roll.data["tier"] == "Mediocre"


def test_aiming_adds_a_bonus_die_from_the_second_shot_at_the_same_target():
    sc = duel(shooter(), turn_limit=3)
    faces = FIRST + [1, 1] + FIRST + [1, 1, 1] + FIRST + [1, 1, 1]
    _, result = play(sc, faces)
    assert [e.data["net"] for e in events(result, "roll", "Shooter")] == [0, 1, 1]


def test_a_wounded_attacker_rolls_a_penalty_die():
    """At half life lost (wounded_at 0.5) the 'wounded' circumstance applies: -1."""
    sc = duel(
        shooter(life=10),
        fighter_entry("Biter", position=(1.0, 0.0), weapons=("knife",), abilities={"melee": 5}),
    )
    # The biter acts first (9 -> 14): 90, Superior in column 5: 4 x 2 = 8 off 10. The shooter
    # then fires at 1 m: short range +1, enemy in reach -1, wounded -1: tens 5, ones 0, penalty 7.
    battle, result = play(sc, [1, 9] + [9, 10] + [5, 10, 7])
    assert fighter(battle, "Shooter").state.life == 2
    (roll,) = events(result, "roll", "Shooter")
    assert roll.data["net"] == -1 and "wounded -1" in roll.text


@pytest.mark.parametrize(("fist", "life_left", "net"), [([8, 10], 4, 0), ([9, 10], 3, -1)])
def test_wounded_from_the_first_whole_point_at_or_past_wounded_at(fist, life_left, net):
    """Life 7, wounded_at 0.5: the line is 3.5 points lost, so 3 lost is not wounded, 4 is.
    Bare fists (multiplier 1) in column 5 hit Good (80) for 3 or Superior (90) for 4; the
    shooter then fires at 1 m: short range +1, enemy in reach -1, and wounded -1 or not."""
    sc = duel(
        shooter(life=7),
        fighter_entry("Biter", position=(1.0, 0.0), weapons=(), abilities={"melee": 5}),
    )
    battle, result = play(sc, [1, 9] + fist + ([5, 10] if net == 0 else [5, 10, 7]))
    assert fighter(battle, "Shooter").state.life == life_left
    (roll,) = events(result, "roll", "Shooter")
    assert roll.data["net"] == net and ("wounded" in roll.text) == (net == -1)


def test_a_sheet_that_sees_in_the_dark_rolls_no_visibility_dice():
    """Full darkness is -2 for everyone else; at medium range (20 m) no other dice apply."""
    sc = duel(shooter(sees_in_dark=True), environment={"visibility": "full_darkness"})
    _, result = play(sc, FIRST + [5, 5])
    (roll,) = events(result, "roll", "Shooter")
    assert roll.data["net"] == 0 and "darkness" not in roll.text


# --- worked examples: called shots, Karma, cooperative attacks (ruling 19) ----------------------


def test_a_called_shot_takes_penalty_dice_and_adds_one_multiplier_each():
    """Called shot 2: tens 9, ones 5, penalty 9 and 8 -> 85, Good in column 5: 3 points x
    (3 + 2) = 15."""
    sc = duel(shooter(rules={"called_shot": 2}), target(life=20))
    battle, result = play(sc, FIRST + [9, 5, 9, 8])
    (roll,) = events(result, "roll", "Shooter")
    assert (roll.data["net"], roll.data["roll"], roll.data["tier"]) == (-2, 85, "Good")
    assert fighter(battle, "Target").state.life == 20 - 15
    assert battle.system.record(fighter(battle, "Shooter"))["called_shot_dice"] == 2


def test_karma_buys_a_bonus_die_for_two_points_as_many_as_affordable():
    sc = duel(shooter(karma=5, rules={"karma": "always", "karma_dice": 3}))
    battle, result = play(sc, FIRST + [1, 1, 1, 1])
    (roll,) = events(result, "roll", "Shooter")
    assert roll.data["net"] == 2
    st = fighter(battle, "Shooter").state
    assert (st.karma, st.karma_spent) == (1, 4)


def test_karma_never_buys_past_the_cap_of_five():
    sc = duel(shooter(karma=6, extra_dice=4, rules={"karma": "always", "karma_dice": 3}))
    battle, result = play(sc, FIRST + [1] * 7)
    assert events(result, "roll", "Shooter")[0].data["net"] == 5
    assert fighter(battle, "Shooter").state.karma_spent == 2


def test_karma_when_penalized_is_kept_for_rolls_with_penalty_dice():
    rules = {"karma": "when_penalized", "karma_dice": 1}
    sc = duel(shooter(karma=4, rules=rules), target(cover="partial"), turn_limit=2)
    # turn 1: partial cover -1 -> buys 1 (net 0); turn 2: aiming +1 cancels cover, keeps Karma
    battle, result = play(sc, FIRST + [1, 1] + FIRST + [1, 1])
    assert [e.data["net"] for e in events(result, "roll", "Shooter")] == [0, 0]
    assert fighter(battle, "Shooter").state.karma_spent == 2


def assisted(assist="always", column=5, lead_init=9, helper_init=1):
    return build(
        {
            "A": [
                shooter("Lead", column=6),
                shooter("Helper", column=column, position=(0.0, 3.0), rules={"assist": assist}),
            ],
            "B": [target(life=30)],
        }
    ), [lead_init, helper_init, 1]


def test_an_assistant_rolling_good_gives_the_lead_a_bonus_die_and_spends_its_action():
    """Seed 001 "Cooperative Rolls": the assistant rolls first: 80, Good in column 5, so the
    lead rolls with a bonus die: tens 3, ones 4, bonus 7 -> 74, Fair in column 6: 2 x 3. The
    assistant's own action this turn is gone, and it fired a round of covering fire."""
    sc, init = assisted()
    battle, result = play(sc, init + [8, 10] + [3, 4, 7])
    helper_roll, lead_roll = events(result, "roll")
    assert (helper_roll.actor, helper_roll.data["tier"]) == ("Helper", "Good")
    assert (lead_roll.actor, lead_roll.data["net"], lead_roll.data["roll"]) == ("Lead", 1, 74)
    assert fighter(battle, "Target").state.life == 30 - 6
    assert "loses this action" in events(result, "action", "Helper")[0].text
    helper = fighter(battle, "Helper")
    assert helper.ammo == [49] and helper.actions == 0
    rec = battle.system.record(helper), battle.system.record(fighter(battle, "Lead"))
    assert (rec[0]["assists_given"], rec[1]["assisted_attacks"]) == (1, 1)


def test_an_assistant_rolling_inferior_gives_the_lead_a_penalty_die():
    """Assistant 20: Inferior in column 5. Lead: tens 7, ones 4, penalty 3 -> 34, Poor: a miss."""
    sc, init = assisted()
    battle, result = play(sc, init + [2, 10] + [7, 4, 3])
    lead_roll = events(result, "roll", "Lead")[0]
    assert (lead_roll.data["net"], lead_roll.data["tier"]) == (-1, "Poor")
    assert fighter(battle, "Target").state.life == 30


def test_an_assistant_rolling_between_gives_no_die():
    sc, init = assisted()
    _, result = play(sc, init + [5, 5] + [5, 5])
    assert events(result, "roll", "Lead")[0].data["net"] == 0


@pytest.mark.parametrize(("column", "helps"), [(5, False), (6, True)])
def test_when_helpful_assists_only_when_good_is_likelier_than_inferior(column, helps):
    """Column 5 at no dice: Good or better 22%, Inferior or worse 23%: it shoots instead.
    Column 6: 25% against 19%: it helps."""
    sc, init = assisted("when_helpful", column=column)
    _, result = play(sc, init + [5, 5, 5, 5])  # 55: neither Good nor Inferior
    actors = [e.actor for e in events(result, "roll")]
    assert actors == (["Helper", "Lead"] if helps else ["Lead", "Helper"])


def test_an_ally_that_has_already_acted_this_turn_cannot_assist():
    sc, init = assisted(lead_init=1, helper_init=9)
    _, result = play(sc, init + [5, 5] + [5, 5])
    assert [(e.actor, e.data["net"]) for e in events(result, "roll")] == [
        ("Helper", 0),
        ("Lead", 0),
    ]


def test_an_ally_too_far_from_the_lead_cannot_assist():
    _, init = assisted()
    sc = build(
        {
            "A": [
                shooter("Lead", column=6),
                shooter("Helper", position=(0.0, 3.0), rules={"assist": "always"}),
            ],
            "B": [target(life=30)],
        },
        options={"assist_distance": 2.0},
    )
    _, result = play(sc, init + [5, 5] + [5, 5])
    assert [e.actor for e in events(result, "roll")] == ["Lead", "Helper"]


# --- worked examples: armor, life, melee, grenades ----------------------------------------------


def test_down_at_zero_life():
    """A Passable hit with the cannon: 1 x 10 = 10 off 10 life: down, not dead; A wins."""
    sc = duel(shooter(weapons=("cannon",)), target(life=10))
    battle, result = play(sc, FIRST + [6, 10])
    t = fighter(battle, "Target")
    assert (t.state.life, battle.system.status(t), t.can_act) == (0, "down", False)
    assert result.winner == "A"


def test_dead_at_minus_life():
    """00 is 100, Awesome: 5 x 10 = 50 off 10 life: -40, past -10: dead."""
    sc = duel(shooter(weapons=("cannon",)), target(life=10))
    battle, _ = play(sc, FIRST + [10, 10])
    assert battle.system.status(fighter(battle, "Target")) == "dead"


def test_armor_stops_a_light_hit_whole():
    sc = duel(shooter(weapons=("knife",), position=(19.0, 0.0)), target(armor="vest"))
    battle, result = play(sc, FIRST + [6, 10])  # 60, Passable: 1 x 2 = 2, the vest stops 2
    assert fighter(battle, "Target").state.life == 10
    assert "stops" in events(result, "armor")[0].text


def test_a_melee_attack_reads_the_melee_column_and_the_weapon_multiplier():
    sc = duel(
        fighter_entry("Biter", weapons=("knife",), abilities={"melee": 8}, position=(19.0, 0.0))
    )
    battle, result = play(sc, FIRST + [7, 10])  # 70: Good in column 8: 3 x 2
    (roll,) = events(result, "roll", "Biter")
    assert "column 8" in roll.text and roll.data["tier"] == "Good"
    assert fighter(battle, "Target").state.life == 10 - 6


def grenade_duel():
    thrower = fighter_entry(
        "Thrower",
        weapons=("bomb",),
        abilities={"throwing": 5},
        tactics={"grenades": "always"},
    )
    victims = [target("Near", position=(15.0, 0.0)), target("Far", position=(15.0, 8.0))]
    return build({"A": [thrower], "B": victims})


def test_a_successful_throw_lands_on_the_aim_and_hits_everyone_in_the_blast():
    """65 at medium range: Passable, on the aim point. Blast: 2 x blast_points 2 = 4."""
    battle, _ = play(grenade_duel(), [9, 1, 1] + [6, 5])
    assert fighter(battle, "Near").state.life == 6
    assert fighter(battle, "Far").state.life == 10


def test_a_failed_throw_lands_two_meters_off_per_tier_below_success():
    """30 in column 5 is Mediocre, two tiers below Passable: 4 m off along +x, out of reach of
    Near (the blast is 3 m)."""
    battle, result = play(grenade_duel(), [9, 1, 1] + [3, 10], angles=[0.0])
    assert "lands 4 m off" in events(result, "grenade", "Thrower")[0].text
    assert fighter(battle, "Near").state.life == 10


@pytest.mark.parametrize("degrees", [k * 15 for k in range(24)])
def test_a_fighter_on_the_aim_point_of_a_throw_3_m_off_is_inside_a_3_m_blast(degrees):
    """Mediocre, two tiers below Passable, at 1.5 m a tier: 3 m off in any direction. Near
    stands on the aim point, exactly 3 m from the burst whatever floating point makes of it (5
    of these 24 directions give 3.0000000000000004): the blast's edge is inside."""
    thrower = fighter_entry(
        "Thrower", weapons=("bomb",), abilities={"throwing": 5}, tactics={"grenades": "always"}
    )
    sc = build({"A": [thrower], "B": [target("Near", position=(15.0, 0.0))]}, {"grenade_miss": 1.5})
    battle, result = play(sc, [9, 1] + [3, 10], angles=[math.radians(degrees)])
    assert "lands 3 m off" in events(result, "grenade", "Thrower")[0].text
    assert fighter(battle, "Near").state.life == 10 - 4


# --- the Action Results Table as data (ruling 18) -----------------------------------------------


CUSTOM_TABLE = """\
note: a test table with other tier names and text column labels
tiers: [Catastrophic, Awful, Inferior, Weak, Poor, Passable, Fair, Good, Superior, Awesome]
columns:
  novice: [1, 10, 20, 30, 40, 50, 60, 70, 80, 90]
  expert: [null, 1, 2, 3, 4, 5, 60, 70, 80, 90]
"""


def custom_table_scenario(tmp_path: Path, path: str, column: str):
    (tmp_path / "tables").mkdir(exist_ok=True)
    (tmp_path / "tables" / "mine.yaml").write_text(CUSTOM_TABLE)
    return build(
        {"A": [fighter_entry("Shooter", abilities={"firearms": column})], "B": [target()]},
        options={"action_table": path},
        base=tmp_path,
    )


def test_a_scenario_can_point_at_a_replacement_table_relative_to_itself(tmp_path):
    """Roll 45: Poor (a miss) for a novice, Passable for an expert in the test table; the
    shipped table has no such columns."""
    for column, tier in (("novice", "Poor"), ("expert", "Passable")):
        sc = custom_table_scenario(tmp_path, "tables/mine.yaml", column)
        _, result = play(sc, FIRST + [4, 5])
        assert events(result, "roll", "Shooter")[0].data["tier"] == tier


def test_a_missing_replacement_table_is_a_scenario_error_at_load(tmp_path):
    with pytest.raises(ScenarioError, match="rules.options.action_table"):
        custom_table_scenario(tmp_path, "tables/nope.yaml", "novice")


def test_an_ability_naming_no_column_of_the_table_is_a_scenario_error_at_load():
    with pytest.raises(ScenarioError, match="abilities.firearms"):
        duel(shooter(column=11))


def test_options_refuse_unknown_keys_and_out_of_range_dice():
    for options in ({"nonsense": 1}, {"circumstances": {"aiming": 6}}):
        with pytest.raises(ScenarioError):
            duel(shooter(), options=options)


# --- exact kill time of a one-sided fight -------------------------------------------------------

BATTLES = 6000  # about 3 s; every mistake below is rejected with p < 1e-12 at this size
LIFE, ARMOR_RATING, MULTIPLIER, CALLED, COLUMN, TURNS = 20, 2, 3, 1, 6, 10
HIT_POINTS = (1, 2, 3, 4, 5)  # the default hit_damage, restated


def one_attack(net: int, multiplier: int, armor: int, points=HIT_POINTS) -> Dist:
    """Exact damage of one attack from the dice layer's tier law (0 on a failure)."""
    first = len(TABLE.tiers) - 5
    return ls.exact_tier(COLUMN, net).map(
        lambda t: max(0, points[t.rank - first] * multiplier - armor) if t.success else 0
    )


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


def law(
    nets=(-1, 0), multiplier=MULTIPLIER + CALLED, armor=ARMOR_RATING, points=HIT_POINTS
) -> Dist:
    """The scenario below: 1 standing bonus die, partial cover -1, called shot -1: net -1 on
    the first shot; from the second on, aiming +1: net 0. Multiplier 3 + 1 (the called shot)."""
    return kill_time_law(
        one_attack(nets[0], multiplier, armor, points),
        one_attack(nets[1], multiplier, armor, points),
        LIFE,
        TURNS,
    )


MISTAKES = {
    "aiming never applies": law(nets=(-1, -1)),
    "cover gives no penalty die": law(nets=(0, 1)),
    "standing dice ignored": law(nets=(-2, -1)),
    "the called shot adds no multiplier": law(multiplier=MULTIPLIER),
    "armor ignored": law(armor=0),
    "Passable deals nothing (tier points off by one)": law(points=(0, 1, 2, 3, 4)),
}


@pytest.fixture(scope="module")
def kill_times():
    sc = duel(
        shooter(column=COLUMN, extra_dice=1, rules={"called_shot": CALLED}),
        target(life=LIFE, armor="vest", cover="partial"),
        turn_limit=TURNS,
    )
    out = []
    for i in range(BATTLES):
        r = run_battle(sc, 20240501, i)
        out.append(r.turns if r.winner == "A" else TURNS + 1)
    return out


def test_the_exact_law_sums_to_one_and_differs_from_every_mistake():
    assert law().total() == 1
    for name, wrong in MISTAKES.items():
        assert wrong != law(), name


@pytest.mark.slow
def test_kill_time_fits_the_exact_law_from_the_dice_layer(kill_times):
    assert_fits(kill_times, law())


@pytest.mark.slow
@pytest.mark.parametrize("mistake", MISTAKES)
def test_the_sample_rejects_the_law_of_a_rule_mistake(kill_times, mistake):
    observed = Counter(kill_times)
    assert chi_square_p(observed, MISTAKES[mistake]) < ALPHA


# --- shipped scenarios end to end ---------------------------------------------------------------

SHIPPED = sorted(SCENARIOS.glob("lost-souls-*.yaml"))


def test_lost_souls_scenarios_are_shipped():
    assert len(SHIPPED) >= 2
    assert all(load_scenario(p).system.name == "lost-souls" for p in SHIPPED)


@pytest.mark.parametrize("path", SHIPPED, ids=lambda p: p.name)
def test_combatsim_run_works_end_to_end(path, tmp_path, capsys):
    out = tmp_path / "out"
    assert main(["run", str(path), "--battles", "20", "--out", str(out), "--quiet"]) == 0
    assert {p.name for p in out.iterdir()} >= {"battles.csv", "combatants.csv", "summary.json"}
    assert "life_left" in (out / "combatants.csv").read_text().splitlines()[0]
    assert main(["run", str(path), "--trace", "0"]) == 0
    text = capsys.readouterr().out
    assert "attack: column" in text


def test_the_junkyard_scenario_exercises_cooperative_attacks():
    sc = load_scenario(SCENARIOS / "lost-souls-junkyard-dogs.yaml")
    given = sum(
        row["assists_given"] for i in range(60) for row in run_battle(sc, sc.seed, i).combatants
    )
    assert given > 0


@pytest.mark.parametrize("path", SHIPPED, ids=lambda p: p.name)
def test_a_traced_battle_runs_as_the_untraced_one(path):
    """Untraced, an attack adds up its dice without their reasons and reads the tier straight
    from the faces (``dice.roll_rank``); traced, it keeps both for the trace. Every shipped
    scenario (cover, visibility and dark sight, cooperative attacks, Karma, melee) must run
    the same battles either way."""
    sc = load_scenario(path)
    for k in range(40):
        plain = run_battle(sc, sc.seed, k)
        traced = run_battle(sc, sc.seed, k, trace=True)
        assert (traced.battle, traced.combatants) == (plain.battle, plain.combatants), k
