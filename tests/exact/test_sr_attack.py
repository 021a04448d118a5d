"""``odds attack`` for classic Shadowrun and its D8 variant: the exact outcome of one attack
against the first attack of sampled battles, a worked example, and wrong rules rejected.

False-failure budget: ``tests.stats.ALPHA`` (1e-4) per fit, seeds fixed.
"""

from __future__ import annotations

from fractions import Fraction

import pytest

from combatsim.dice import shadowrun as sr
from combatsim.exact.attack import attack_odds
from tests.exact.sampled import first_attacks, scenario_file
from tests.stats import ALPHA, chi_square_p

# An ork with an assault rifle 100 m from an elf decker whose light pistol cannot reach back:
# both hold where they stand, so the first attack of every battle is the ork's, at long range.
DUEL = """
name: rifle against a decker
rules: {{system: {system}{options}}}
catalogues: [sr-classic]
sides:
  - name: ork
    tactics: {{movement: hold, fire_mode: {mode}, autofire_rounds: 3}}
    members:
      - {{name: Ork, archetype: ork_mercenary, position: [0, 0]}}
  - name: elf
    tactics: {{movement: hold, dodge: {dodge}}}
    members:
      - {{name: Elf, archetype: elf_decker, position: [{meters}, 0]}}
turn_limit: 2
"""

# Two fighters toe to toe with clubs and blades: whoever acts first attacks in melee.
BRAWL = """
name: melee
rules: {system: sr-classic}
catalogues: [sr-classic]
sides:
  - name: a
    members:
      - {name: Troll, archetype: troll_bouncer, position: [0, 0]}
  - name: b
    members:
      - {name: Adept, archetype: elf_adept, position: [1, 0]}
turn_limit: 2
"""


def duel(tmp_path, system="sr-classic", mode="single", dodge="match", meters=100, options=""):
    text = DUEL.format(system=system, mode=mode, dodge=dodge, meters=meters, options=options)
    return scenario_file(tmp_path, text)


def fits(scenario, attacker, target, battles, exact=None):
    """p-value of the sampled first attacks against the exact answer (computed unless given)."""
    if exact is None:
        exact = attack_odds(scenario, attacker, target).outcomes
    return chi_square_p(first_attacks(scenario, attacker, battles), exact)


@pytest.mark.slow
@pytest.mark.parametrize(
    "system, dodge, meters",
    [("sr-classic", "match", 100), ("sr-classic", "none", 30), ("sr-d8", "match", 100)],
)
def test_one_shot_fits_the_first_attack_of_sampled_battles(tmp_path, system, dodge, meters):
    scenario = duel(tmp_path, system=system, dodge=dodge, meters=meters)
    assert fits(scenario, "Ork", "Elf", 3000) >= ALPHA


@pytest.mark.slow
def test_a_three_round_burst_fits_the_first_attack_of_sampled_battles(tmp_path):
    scenario = duel(tmp_path, mode="autofire")
    assert fits(scenario, "Ork", "Elf", 3000) >= ALPHA


@pytest.mark.slow
def test_a_melee_attack_fits_the_first_attack_of_sampled_battles(tmp_path):
    scenario = scenario_file(tmp_path, BRAWL)
    assert fits(scenario, "Troll", "Adept", 3000) >= ALPHA


@pytest.mark.slow
def test_a_wrong_rule_on_the_exact_side_is_rejected(tmp_path):
    """Armor ignored (the target's ballistic and impact armor at 0): the same fit fails."""
    scenario = duel(tmp_path, meters=30, dodge="none")
    system = scenario.system
    arm = type(system).exact_dice.__get__(system)

    def no_armor(fighter, choose):
        arm(fighter, choose)
        fighter.state.ballistic = fighter.state.impact = 0

    system.exact_dice = no_armor
    try:
        wrong = attack_odds(scenario, "Ork", "Elf").outcomes
    finally:
        del system.exact_dice
    assert fits(scenario, "Ork", "Elf", 3000, exact=wrong) < ALPHA


def test_worked_example_one_shot_without_dodge_or_karma(tmp_path):
    """By hand from the dice layer: the ork's 5 Firearms dice at TN 3 (30 m is the AK-97's
    short range, TN 4, and the target stands still, -1); each success past the first stages
    the 6M4 up per 4; the decker resists with Body 3 at TN 6 (the Power), and its armored
    clothing's 3 ballistic points count as successes; Staging 4. No Dodge, no Karma."""
    text = DUEL.format(system="sr-classic", mode="single", dodge="none", meters=30, options="")
    text = text.replace("archetype: elf_decker,", "archetype: elf_decker, karma: 0,")
    text = text.replace("archetype: ork_mercenary,", "archetype: ork_mercenary, karma: 0,")
    scenario = scenario_file(tmp_path, text)
    got = attack_odds(scenario, "Ork", "Elf")
    elf = scenario.fighters[1]
    armor = 3  # armored clothing: 3 ballistic (the catalogue)
    body = elf.sheet.attributes.body
    levels = ["L", "M", "S", "D"]
    boxes = {"L": 1, "M": 3, "S": 6, "D": 10}
    expected: dict[int, Fraction] = {}
    for (hits, _), p_attack in sr.exact_outcomes(5, 3).items():
        if not hits:
            expected[0] = expected.get(0, Fraction(0)) + p_attack
            continue
        for resisted, p_body in sr.exact_successes(body, 6).items():
            index = 1 + (hits - 1) // 4 - (resisted + armor) // 4
            damage = boxes[levels[min(index, 3)]] if index >= 0 else 0
            expected[damage] = expected.get(damage, Fraction(0)) + p_attack * p_body
    assert dict(got.by("damage")) == {k: v for k, v in expected.items() if v}


@pytest.mark.parametrize("shots", [2, pytest.param(3, marks=pytest.mark.slow)])
def test_paths_meeting_between_shots_change_no_answer(tmp_path, shots):
    """The meeting points of a burst (``exact_key``, ``checkpoint``) are a promise that the
    rest of the burst reads nothing else: the answer with them is the answer without."""
    scenario = duel(tmp_path, mode="autofire", dodge="match", meters=30)
    merged = attack_odds(scenario, "Ork", "Elf", shots=shots)
    walked = attack_odds(scenario, "Ork", "Elf", shots=shots, meet=False)
    assert merged.outcomes == walked.outcomes
