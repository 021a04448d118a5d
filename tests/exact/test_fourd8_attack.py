"""``odds attack`` for 4D8: the exact outcome of one attack against the first attack of sampled
battles, a worked example by hand, and a wrong rule rejected.

The duels are the shipped scenarios' casts (the dockside shootout at dusk, the temple's hunter
and guardians), two fighters each. Initiative is 10 + an ability's bonus + 1d8
(``initiative_ability``); here that ability is ``initiative``, which only the attacker has (20),
so the attacker opens every battle before the target has moved (a guardian acting first would
run at it) and the ability counts for nothing else. The attacker holds still, so its first
attack is in the situation the exact answer assumes.
False-failure budget: ``tests.stats.ALPHA`` (1e-4) per fit, seeds fixed.
"""

from __future__ import annotations

from fractions import Fraction

import pytest

from combatsim.dice import fourd8 as dice
from combatsim.exact.attack import attack_odds
from tests.exact.sampled import first_attacks, scenario_file
from tests.stats import ALPHA, chi_square_p

# 4d8-dockside-shootout.yaml: Dr. Jones's revolver at the gangster in his steel vest, at dusk.
DOCKSIDE = """
name: dockside duel
rules: {{system: 4d8, options: {{initiative_ability: initiative{options}}}}}
catalogues: [4d8]
environment: {{visibility: reduced_light}}
sides:
  - name: expedition
    tactics: {{movement: hold}}
    members:
      - name: Dr. Jones
        archetype: archaeologist
        abilities: {{shooting: 3, melee: 2, coordination: 2, running: 2, strength: 1,
                    scholarship: 5, initiative: 20}}
        position: [0, 0]
  - name: rivals
    tactics: {{movement: hold}}
    members:
      - {{name: Lefty Moran, archetype: gangster, position: [{meters}, 0]}}
turn_limit: 2
"""

# 4d8-temple-guardians.yaml: the hunter with his scope (a better shot here, so that his chance
# tops 32 at short range: ruling 21's over-32 roll) at a guardian in a bronze breastplate.
TEMPLE = """
name: temple duel
rules: {{system: 4d8, options: {{initiative_ability: initiative}}}}
catalogues: [4d8]
sides:
  - name: expedition
    tactics: {{movement: hold, rules: {{over32: {over32}}}}}
    members:
      - name: Ashby
        archetype: big_game_hunter
        abilities: {{shooting: 9, coordination: 3, initiative: 20}}
        energy: 12
        position: [0, 0]
  - name: temple
    tactics: {{movement: hold}}
    members:
      - {{name: Guardian, archetype: temple_guardian, position: [{meters}, 0]}}
turn_limit: 2
"""

# The temple's guardian with its spear at Mac's throat (combinations: a social triple staggers).
SPEAR = """
name: spear
rules: {system: 4d8, options: {initiative_ability: initiative}}
catalogues: [4d8]
sides:
  - name: temple
    tactics: {movement: hold}
    members:
      - name: Guardian
        archetype: temple_guardian
        abilities: {melee: 4, strength: 2, running: 2, coordination: 1, initiative: 20}
        position: [1, 0]
  - name: expedition
    tactics: {movement: hold}
    members:
      - {name: Mac, archetype: aviator, position: [0, 0]}
turn_limit: 2
"""


def fits(scenario, attacker, target, battles, exact=None):
    """p-value of the sampled first attacks against the exact answer (computed unless given)."""
    if exact is None:
        exact = attack_odds(scenario, attacker, target).outcomes
    return chi_square_p(first_attacks(scenario, attacker, battles), exact)


def dockside(tmp_path, meters=30, options=""):
    return scenario_file(tmp_path, DOCKSIDE.format(meters=meters, options=options))


def temple(tmp_path, over32="best", meters=20):
    return scenario_file(tmp_path, TEMPLE.format(over32=over32, meters=meters))


@pytest.mark.slow
def test_a_shot_at_dusk_fits_the_first_attack_of_sampled_battles(tmp_path):
    assert fits(dockside(tmp_path), "Dr. Jones", "Lefty Moran", 4000) >= ALPHA


# chance 34 at 20 m (short range 20, the scope +2, shooting and coordination 12): "best" takes
# the doubles roll here (combinations and their effects), "bonus" adds 2 to the highest die
@pytest.mark.slow
@pytest.mark.parametrize("over32", ["best", "bonus"])
def test_an_over_32_shot_fits_the_first_attack_of_sampled_battles(tmp_path, over32):
    scenario = temple(tmp_path, over32)
    odds = attack_odds(scenario, "Ashby", "Guardian")
    assert odds.p(lambda o: not o.hit) < Fraction(1, 100)  # over 32: (nearly) sure to hit
    assert fits(scenario, "Ashby", "Guardian", 3000, exact=odds.outcomes) >= ALPHA


@pytest.mark.slow
def test_a_melee_attack_with_combinations_fits_the_first_attack_of_sampled_battles(tmp_path):
    scenario = scenario_file(tmp_path, SPEAR)
    odds = attack_odds(scenario, "Guardian", "Mac")
    assert odds.p(lambda o: o.condition.endswith("staggered")) > 0
    assert fits(scenario, "Guardian", "Mac", 4000, exact=odds.outcomes) >= ALPHA


@pytest.mark.slow
def test_a_wrong_rule_on_the_exact_side_is_rejected(tmp_path):
    """The degree's damage band left out (ruling 22) on the exact side only: the fit fails."""
    scenario = dockside(tmp_path)
    system = scenario.system
    right = system._degree_damage  # the band's extra damage by degree (ruling 22)
    system._degree_damage = [0] * len(right)
    try:
        wrong = attack_odds(scenario, "Dr. Jones", "Lefty Moran").outcomes
    finally:
        system._degree_damage = right
    assert fits(scenario, "Dr. Jones", "Lefty Moran", 4000, exact=wrong) < ALPHA


def test_worked_example_a_revolver_shot_at_dusk(tmp_path):
    """By hand from the dice layer: Dr. Jones at 12 m is at the revolver's medium range (ease
    17), -2 at dusk; shooting 3 and coordination 2 (within his energy 6): chance 20. A success
    deals the revolver's 3 + the degree's band (``degree_damage``) less the steel vest's 3;
    combination effects off, so only the degree counts."""
    scenario = dockside(tmp_path, meters=12, options=", special_effects: false")
    got = attack_odds(scenario, "Dr. Jones", "Lefty Moran")
    bands = scenario.system.options.degree_damage  # lowest degree -> extra damage
    expected: dict[int, Fraction] = {}
    for (success, degree, _), p in dice.exact_outcomes(17 - 2 + 3 + 2).items():
        extra = max((bonus for low, bonus in bands.items() if degree >= low), default=0)
        damage = max(0, 3 + extra - 3) if success else 0
        expected[damage] = expected.get(damage, Fraction(0)) + p
    assert dict(got.by("damage").items()) == expected
    assert got.p(lambda o: o.hit) == dice.exact_outcomes(20).prob(lambda k: k[0])


def test_condition_names_health_wounds_and_a_stagger(tmp_path):
    conditions = set(attack_odds(scenario_file(tmp_path, SPEAR), "Guardian", "Mac").by("condition"))
    assert "unhurt: 12/12 health" in conditions
    assert any(c.endswith("/12 health, -2 ease for wounds, staggered") for c in conditions)
    assert all(c.split(":")[0] in ("unhurt", "wounded", "down", "dead") for c in conditions)
