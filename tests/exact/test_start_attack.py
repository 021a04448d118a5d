"""A fighter that starts wounded against one attack (ruling 27): ``odds attack`` gives the
exact chance to drop it, which grows with the boxes it starts at, and the first attacks of
sampled battles, where it starts as wounded, fit the exact outcome.

False-failure budget: ``tests.stats.ALPHA`` (1e-4) per fit, seeds fixed.
"""

from __future__ import annotations

import pytest

from combatsim.exact.attack import attack_odds
from tests.exact.sampled import first_attacks, scenario_file
from tests.stats import ALPHA, chi_square_p

# An ork with an assault rifle 30 m from an elf decker whose light pistol cannot reach back,
# both holding: the first attack of every battle the ork opens is one shot at the elf, who
# starts with ``wounds`` Physical boxes (their wound modifier on her Body and Dodge tests).
DUEL = """
name: rifle against a wounded decker
rules: {{system: sr-classic}}
catalogues: [sr-classic]
sides:
  - name: ork
    tactics: {{movement: hold, fire_mode: single}}
    members:
      - {{name: Ork, archetype: ork_mercenary, position: [0, 0]}}
  - name: elf
    tactics: {{movement: hold, dodge: none}}
    members:
      - {{name: Elf, archetype: elf_decker, position: [30, 0], start: {{wounds: {wounds}}}}}
turn_limit: 2
"""


def duel(tmp_path, wounds: int):
    return scenario_file(tmp_path, DUEL.format(wounds=wounds))


def test_the_chance_to_drop_a_wounded_target_grows_with_its_boxes(tmp_path):
    drop = [attack_odds(duel(tmp_path, n), "Ork", "Elf").p(lambda o: o.down) for n in (0, 3, 6, 9)]
    assert drop == sorted(drop) and drop[0] < drop[2] < drop[3]
    assert drop[3] > 0.5  # one box left: nearly any wound drops her


@pytest.mark.slow
@pytest.mark.parametrize("wounds", [6, 9])
def test_battles_starting_her_wounded_fit_the_exact_attack(tmp_path, wounds):
    scenario = duel(tmp_path, wounds)
    exact = attack_odds(scenario, "Ork", "Elf").outcomes
    observed = first_attacks(scenario, "Ork", 3000)
    assert chi_square_p(observed, exact) >= ALPHA


@pytest.mark.slow
def test_the_fresh_answer_does_not_fit_battles_of_a_wounded_target(tmp_path):
    """The fit can fail: battles of a target at 6 boxes against the exact odds of a fresh one."""
    fresh = attack_odds(duel(tmp_path, 0), "Ork", "Elf").outcomes
    observed = first_attacks(duel(tmp_path, 6), "Ork", 3000)
    assert chi_square_p(observed, fresh) < ALPHA
