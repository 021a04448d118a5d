"""A chain of two fights against an exact answer composed from single fights (ruling 27).

Each fight is one rifle shot: an ork with one action (his Reaction is 1, so one initiative
pass) fires once at a frail elf (Body 1) who holds, cannot shoot back, never dodges and has
no Karma, and the fight ends after its one turn. The elf is the carried side, so what fight 1
leaves her with (the boxes the shot did) is all fight 2 depends on: she ends the run standing
with chance

    sum over the first shot's outcomes that leave her standing, with damage d,
        P(first shot: d) * P(a shot at her starting at d boxes does not drop her),

every term an exact ``attack_odds``. The chain's count of runs she ends standing must fit that
number; the same runs played with every fight fresh must not (the test can fail).

False-failure budget: ``tests.stats.ALPHA`` (1e-4) for the fit, seeds fixed.
"""

from __future__ import annotations

from fractions import Fraction

import pytest

import combatsim
from combatsim.exact.attack import attack_odds
from tests.exact.sampled import scenario_file
from tests.stats import ALPHA

scipy_stats = pytest.importorskip("scipy.stats")

ONE_SHOT = """
name: one rifle shot
rules: {{system: sr-classic}}
catalogues: [sr-classic]
sides:
  - name: ork
    tactics: {{movement: hold, fire_mode: single}}
    members:
      - {{name: Ork, archetype: ork_mercenary, position: [0, 0], attributes: {{reaction: 1}}}}
  - name: elf
    tactics: {{movement: hold, dodge: none}}
    members:
      - {{name: Elf, archetype: elf_decker, position: [30, 0], karma: 0,
          attributes: {{body: 1}}{start}}}
turn_limit: 1
"""

CHAIN = """
name: two shots
side: elf
encounters:
  - {name: first shot, scenario: one-shot.yaml}
  - {name: second shot, scenario: one-shot.yaml}
stop: never
seed: 5
"""
RUNS = 4000


def one_shot(tmp_path, wounds: int = 0):
    start = f", start: {{wounds: {wounds}}}" if wounds else ""
    return scenario_file(tmp_path, ONE_SHOT.format(start=start))


def composed_standing(tmp_path) -> Fraction:
    """The exact chance she stands after both shots, the second from the first's damage."""
    first = attack_odds(one_shot(tmp_path), "Ork", "Elf").outcomes
    second: dict[int, Fraction] = {}
    total = Fraction(0)
    for outcome, p in first.items():
        if outcome.down:
            continue
        if outcome.damage not in second:
            odds = attack_odds(one_shot(tmp_path, outcome.damage), "Ork", "Elf")
            second[outcome.damage] = odds.p(lambda o: not o.down)
        total += p * second[outcome.damage]
    return total


def standing_at_the_end(summary: dict, mode: str) -> tuple[int, int]:
    (elf,) = summary[mode]["members"]
    up = elf["end"]["up"]
    return up["count"], up["of"]


@pytest.mark.slow
def test_two_shots_carried_fit_the_exact_composition_and_fresh_ones_do_not(tmp_path):
    exact = composed_standing(tmp_path)
    fresh_exact = attack_odds(one_shot(tmp_path), "Ork", "Elf").p(lambda o: not o.down)
    assert exact < fresh_exact  # a wounded elf drops more easily: the carry-over matters
    (tmp_path / "one-shot.yaml").write_text(ONE_SHOT.format(start=""))
    (tmp_path / "chain.yaml").write_text(CHAIN)
    result = combatsim.chain(tmp_path / "chain.yaml", RUNS, seed=5, workers=1, quiet=True)
    up, runs = standing_at_the_end(result.summary, "carried")
    assert runs == RUNS
    assert scipy_stats.binomtest(up, runs, float(exact)).pvalue >= ALPHA
    fresh_up, _ = standing_at_the_end(result.summary, "fresh")
    assert scipy_stats.binomtest(fresh_up, runs, float(exact)).pvalue < ALPHA
    assert scipy_stats.binomtest(fresh_up, runs, float(fresh_exact)).pvalue >= ALPHA
