"""``odds attack`` for Lost Souls: the exact outcome of one attack against the first attack of
sampled battles, a worked example by hand, and a wrong rule rejected; the exact rolls
(``LostSouls.exact_dice``: a roll's tier rank whole) against the same attack face by face.

The duels are the shipped scenarios' casts (the graveyard's head shot, the warehouse raid's
cult leader and a detective, the junkyard's dog), two fighters each. The attacker's Reflexes
(20) beat the target's (0) whatever the initiative dice, so the attacker opens every battle
before the target has moved (a zombie or a dog acting first would run at it: a running target
is a penalty die); Reflexes count for nothing else. The attacker holds still, so its first
attack is in the situation the exact answer assumes.
False-failure budget: ``tests.stats.ALPHA`` (1e-4) per fit, seeds fixed.
"""

from __future__ import annotations

from fractions import Fraction

import pytest

from combatsim.dice import lost_souls as dice
from combatsim.exact.attack import attack_odds
from tests.exact.sampled import first_attacks, scenario_file
from tests.stats import ALPHA, chi_square_p

# lost-souls-graveyard-zombies.yaml: the hunter's head shot at a zombie 22 m off (short range
# of the rifle, +1; the scope, +1), called with `called` penalty dice for +1 multiplier each,
# Karma bought when the shot would go in with penalty dice; the zombie cannot reach him.
HEAD_SHOT = """
name: head shot
rules: {{system: lost-souls}}
catalogues: [lost-souls]
sides:
  - name: investigators
    tactics: {{movement: hold, rules: {{called_shot: {called}, karma: {karma}}}}}
    members:
      - {{name: Reyes, archetype: hunter, reflexes: 20, position: [0, 0]}}
  - name: the dead
    tactics: {{movement: hold}}
    members:
      - {{name: Zombie, archetype: zombie, reflexes: 0, position: [22, 0]}}
turn_limit: 2
"""

# lost-souls-warehouse-raid.yaml, under a failing lamp: the cult leader buys a Karma die on
# every shot at a detective in partial cover 21 m off (medium range), in reduced light.
CULT_LEADER = """
name: the cult leader's shot
rules: {system: lost-souls}
catalogues: [lost-souls]
environment: {visibility: reduced_light}
sides:
  - name: cult
    tactics: {movement: hold, rules: {karma: always, karma_dice: 2}}
    members:
      - {name: Father Amon, archetype: cult_leader, reflexes: 20, position: [21, 4]}
  - name: police
    tactics: {movement: hold}
    members:
      - {name: Harlan, archetype: detective, reflexes: 0, position: [0, 4],
         cover: partial}
turn_limit: 2
"""

# lost-souls-junkyard-dogs.yaml: a guard dog at Mandy's throat in the dark (it sees in the
# dark).
DOG = """
name: the dog
rules: {system: lost-souls}
catalogues: [lost-souls]
environment: {visibility: reduced_light, melee_range: 2}
sides:
  - name: junkyard
    tactics: {movement: hold}
    members:
      - {name: Dog, archetype: guard_dog, reflexes: 20, position: [1, 0]}
  - name: intruders
    tactics: {movement: hold}
    members:
      - {name: Mandy, archetype: detective, reflexes: 0, position: [0, 0]}
turn_limit: 2
"""


def fits(scenario, attacker, target, battles, exact=None):
    """p-value of the sampled first attacks against the exact answer (computed unless given)."""
    if exact is None:
        exact = attack_odds(scenario, attacker, target).outcomes
    return chi_square_p(first_attacks(scenario, attacker, battles), exact)


def head_shot(tmp_path, called=1, karma="when_penalized"):
    return scenario_file(tmp_path, HEAD_SHOT.format(called=called, karma=karma))


@pytest.mark.slow
@pytest.mark.parametrize("called", [1, 3])
def test_a_called_shot_fits_the_first_attack_of_sampled_battles(tmp_path, called):
    assert fits(head_shot(tmp_path, called), "Reyes", "Zombie", 3000) >= ALPHA


@pytest.mark.slow
def test_penalty_dice_and_karma_fit_the_first_attack_of_sampled_battles(tmp_path):
    scenario = scenario_file(tmp_path, CULT_LEADER)
    assert fits(scenario, "Father Amon", "Harlan", 4000) >= ALPHA


@pytest.mark.slow
def test_a_melee_attack_fits_the_first_attack_of_sampled_battles(tmp_path):
    scenario = scenario_file(tmp_path, DOG)
    assert fits(scenario, "Dog", "Mandy", 4000) >= ALPHA


@pytest.mark.slow
def test_a_wrong_rule_on_the_exact_side_is_rejected(tmp_path):
    """Armor ignored (the zombie's rotting hide at 0) on the exact side only: the fit fails."""
    scenario = head_shot(tmp_path)
    system = scenario.system
    arm = type(system).exact_dice.__get__(system)

    def no_armor(fighter, choose):
        arm(fighter, choose)
        fighter.state.armor = 0

    system.exact_dice = no_armor
    try:
        wrong = attack_odds(scenario, "Reyes", "Zombie").outcomes
    finally:
        del system.exact_dice
    assert fits(scenario, "Reyes", "Zombie", 3000, exact=wrong) < ALPHA


@pytest.mark.parametrize("called, karma", [(0, "never"), (3, "when_penalized"), (5, "never")])
def test_whole_rolls_give_what_the_faces_give(tmp_path, called, karma):
    """``exact_dice`` (a roll's tier rank from ``dice.exact_tier``) against the same attack
    walked face by face (``exact_dice`` switched off): the same Fractions. Five penalty dice
    are 10^7 ways face by face, past the limit: there the tiers are checked on their own."""
    scenario = head_shot(tmp_path, called, karma)
    whole = attack_odds(scenario, "Reyes", "Zombie").outcomes
    if called == 5:
        assert whole.prob(lambda o: o.hit) == dice.exact_tier(7, -3).prob(lambda t: t.success)
        return
    scenario.system.exact_dice = lambda fighter, choose: None
    by_faces = attack_odds(scenario, "Reyes", "Zombie").outcomes
    assert dict(whole.items()) == dict(by_faces.items())


def test_worked_example_a_head_shot_with_karma(tmp_path):
    """By hand from the dice layer: Reyes rolls in column 7 (Firearms 7) with short range +1,
    the scope +1, the called shot's 3 penalty dice and the Karma die they make him buy (2
    Karma, when_penalized): net 0 dice. A success tier's points (1-5, worst first) times the
    rifle's multiplier 5 + 3 for the called shot, less the rotting hide's 2."""
    got = attack_odds(head_shot(tmp_path, called=3), "Reyes", "Zombie")
    expected: dict[int, Fraction] = {}
    for tier, p in dice.exact_tier(7, 0).items():
        points = tier.rank - dice.FIRST_SUCCESS_RANK + 1 if tier.success else 0
        damage = max(0, points * (5 + 3) - 2) if points else 0
        expected[damage] = expected.get(damage, Fraction(0)) + p
    assert dict(got.by("damage").items()) == expected
    # the shipped table's column 7: Passable from 46, Awesome from 94 (a d% with no dice)
    assert expected[0] == Fraction(45, 100) and expected[5 * 8 - 2] == Fraction(7, 100)


def test_condition_names_life_and_the_dice_wounds_cost(tmp_path):
    """After the head shot (3 called dice, so 8 points a success tier, less 2 of armor): the
    zombie's life out of 14, the penalty die once it has lost half, down at 0, dead at -14."""
    got = attack_odds(head_shot(tmp_path, called=3), "Reyes", "Zombie").by("condition")
    assert set(got) == {
        "unhurt: 14/14 life",
        "wounded: 8/14 life",
        "down: 0/14 life",
        "down: -8/14 life",
        "dead: -16/14 life",
        "dead: -24/14 life",
    }
