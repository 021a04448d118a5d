"""The exact odds of a whole fight (``combatsim.exact.fight``) and ``combatsim run --exact``.

The sampled comparison: the exact win and draw chances of a classic Shadowrun duel must fall
inside the 99.9% Wilson intervals of 2,000 sampled battles of the same scenario. Three rates are
checked against one fixed sample, so a correct chain fails with probability below 0.3% for
a given seed (the false-failure budget); the seed is fixed, so the test is deterministic.
"""

from __future__ import annotations

import json
from fractions import Fraction
from itertools import product
from pathlib import Path

import pytest

from combatsim.cli import main
from combatsim.exact.attack import attack_odds
from combatsim.exact.fight import NotExact, fight_odds, tie_orders
from combatsim.exact.summary import exact_summary
from combatsim.scenario import load_scenario
from combatsim.stats import wilson_interval
from tests.helpers import run_battles

ROOT = Path(__file__).resolve().parents[2]
CATALOGUE = ROOT / "scenarios" / "catalogues" / "sr-classic.yaml"
BATTLES = 2000
CONFIDENCE = 0.999  # per rate; three rates: a false failure below 0.3%

# Two gunmen standing 15 m apart, single shots, no Dodge: blue is quicker (Reaction 5).
DUEL = """
name: duel with hand cannons
rules: {{system: sr-classic}}
catalogues: [{catalogue}]
weapons:
  hand_cannon: {{kind: firearm, damage: 8S2, ranges: [5, 20, 40, 60], ammo: 60}}
  derringer: {{kind: firearm, damage: 8S2, ranges: [1, 2, 3, 4], ammo: 2}}
sides:
  - name: red
    tactics: {{movement: hold, fire_mode: single, dodge: none}}
    members:
      - {{name: Ace, archetype: corp_guard, attributes: {{body: 2{red}}}, {red_skills}
         weapons: [hand_cannon], armor: armored_clothing, position: [0, 0]}}
  - name: blue
    tactics: {{movement: {blue_moves}, fire_mode: single, dodge: none}}
    members:
      - {{name: Mark, archetype: corp_guard, attributes: {{body: 2, reaction: 5}},
         weapons: [{blue_gun}], armor: armored_clothing, position: [15, 0]}}
turn_limit: {turns}
seed: 7
"""


def duel(
    tmp_path: Path,
    turns: int = 2,
    red: str = "",
    red_skills: str = "",
    blue_gun: str = "hand_cannon",
    blue_moves: str = "hold",
) -> Path:
    path = tmp_path / "duel.yaml"
    text = DUEL.format(
        catalogue=CATALOGUE,
        turns=turns,
        red=red,
        red_skills=red_skills,
        blue_gun=blue_gun,
        blue_moves=blue_moves,
    )
    path.write_text(text, encoding="utf-8")
    return path


# --- the order of equal initiative ------------------------------------------------------------


def test_two_fighters_of_equal_tiebreak_are_ordered_by_their_draws_then_by_position():
    t = 1 << 20
    assert tie_orders([4, 4]) == (
        ((0, 1), Fraction(t + 1, 2 * t)),  # the lower draw first; equal draws: the first
        ((1, 0), Fraction(t - 1, 2 * t)),
    )
    assert tie_orders([3, 5]) == (((1, 0), Fraction(1)),)  # the higher tie-break first


@pytest.mark.parametrize("tiebreaks", [[2, 2, 2], [1, 2, 1, 2], [7, 3, 7]])
def test_tie_orders_count_every_draw_as_a_stable_sort_of_the_keys_does(tiebreaks):
    ties = 4  # every draw enumerated: the engine's keys sorted as ``Battle._turns`` sorts them
    counts: dict[tuple[int, ...], int] = {}
    for draws in product(range(ties), repeat=len(tiebreaks)):
        keys = [d - t * ties for d, t in zip(draws, tiebreaks, strict=True)]
        order = tuple(sorted(range(len(keys)), key=keys.__getitem__))
        counts[order] = counts.get(order, 0) + 1
    total = ties ** len(tiebreaks)
    expected = {order: Fraction(n, total) for order, n in counts.items()}
    assert dict(tie_orders(tiebreaks, ties)) == expected


# --- worked by hand -------------------------------------------------------------------------


def test_one_turn_against_a_fighter_out_of_reach_is_one_attack(tmp_path):
    """Blue's derringer does not reach 15 m: it holds every action (wasted, as nobody moves).
    Red (Reaction 1 + 1d6: at most 7, one action; Firearms 8 to stage a hit up to Deadly) fires
    once in the one turn, so red wins exactly when that shot drops blue: ``odds attack``'s
    chance of down."""
    path = duel(
        tmp_path,
        turns=1,
        red=", reaction: 1",
        red_skills="skills: {firearms: 8},",
        blue_gun="derringer",
    )
    scenario = load_scenario(path)
    odds = fight_odds(scenario)
    drop = attack_odds(scenario, "Ace", "Mark").p(lambda o: o.down)
    assert 0 < drop < 1
    assert odds.win("red") == drop
    assert odds.win("blue") == 0
    assert odds.draw() == 1 - drop
    assert odds.turns() == {1: Fraction(1)}
    assert odds.down(1) == drop and odds.down(0) == 0


@pytest.mark.slow
def test_the_chances_add_up_and_a_longer_fight_is_decided_more_often(tmp_path):
    short = fight_odds(load_scenario(duel(tmp_path, turns=1)))
    longer = fight_odds(load_scenario(duel(tmp_path, turns=2)))
    for odds in (short, longer):
        assert odds.win("red") + odds.win("blue") + odds.draw() == 1
        assert odds.endings.total() == 1
    assert longer.draw() < short.draw()
    assert longer.win("blue") > short.win("blue") > short.win("red")  # blue acts first
    assert longer.win("red") > short.win("red")


# --- against sampled battles ----------------------------------------------------------------


@pytest.mark.slow
def test_the_exact_odds_fall_inside_the_sampled_intervals(tmp_path):
    scenario = load_scenario(duel(tmp_path, turns=2))
    odds = fight_odds(scenario)
    summary = run_battles(scenario, BATTLES, seed=11, records="none").summary
    rates = {
        "red": (summary["sides"]["red"]["wins"], odds.win("red")),
        "blue": (summary["sides"]["blue"]["wins"], odds.win("blue")),
        "draw": (summary["draws"]["count"], odds.draw()),
    }
    for what, (count, exact) in rates.items():
        low, high = wilson_interval(count, BATTLES, CONFIDENCE)
        assert low <= exact <= high, f"{what}: exact {float(exact):.4f} not in [{low}, {high}]"


# --- refusals -------------------------------------------------------------------------------


def test_a_fighter_that_would_move_is_refused_in_one_line(tmp_path):
    scenario = load_scenario(duel(tmp_path, blue_gun="derringer", blue_moves="advance"))
    with pytest.raises(NotExact, match="Mark's plan to (walk|run)"):
        fight_odds(scenario)


def test_grenades_are_refused_before_anything_is_worked_out():
    scenario = load_scenario(ROOT / "scenarios" / "sr-grenade-ambush.yaml")
    with pytest.raises(NotExact, match="grenades"):
        fight_odds(scenario)


def test_a_rule_state_that_points_at_other_fighters_is_refused(tmp_path):
    """Lost Souls keeps the fighter's target (and the allies that may assist it) in its state:
    no plain value to merge states by, so the fight is refused in one line, not guessed."""
    catalogue = ROOT / "scenarios" / "catalogues" / "lost-souls.yaml"
    path = tmp_path / "lost-souls-duel.yaml"
    path.write_text(
        f"""
name: lost souls duel
rules: {{system: lost-souls}}
catalogues: [{catalogue}]
sides:
  - name: law
    tactics: {{movement: hold}}
    members: [{{name: Dana, archetype: detective, position: [0, 0]}}]
  - name: cult
    tactics: {{movement: hold}}
    members: [{{name: Hal, archetype: beat_cop, position: [8, 0]}}]
turn_limit: 1
""",
        encoding="utf-8",
    )
    with pytest.raises(NotExact, match="holding Fighter"):
        fight_odds(load_scenario(path))


def test_a_fight_past_the_limits_is_refused(tmp_path):
    scenario = load_scenario(duel(tmp_path, turns=1))
    with pytest.raises(NotExact, match="more than 50 states"):
        fight_odds(scenario, max_states=50)
    with pytest.raises(NotExact, match="more than 1,000 ways"):
        fight_odds(scenario, max_paths=1000)


# --- the command ----------------------------------------------------------------------------


def test_run_exact_writes_the_summary_of_a_run_with_exact_rates(tmp_path, capsys):
    path = duel(tmp_path, turns=1)
    out = tmp_path / "out"
    assert main(["run", str(path), "--battles", "20", "--out", str(out), "--quiet"]) == 0
    assert (out / "battles.csv").exists()
    assert main(["run", str(path), "--exact", "--out", str(out)]) == 0
    shown = capsys.readouterr().out
    assert "exact: every way the dice can fall" in shown and "no battles.csv" in shown
    summary = json.loads((out / "summary.json").read_text(encoding="utf-8"))
    assert summary["exact"] is True and summary["battles_completed"] is None
    odds = fight_odds(load_scenario(path))
    assert summary == json.loads(json.dumps(exact_summary(odds)))
    red = summary["sides"]["red"]
    assert Fraction(red["probability"]) == odds.win("red")
    assert red["ci95"] == [red["win_rate"], red["win_rate"]]
    assert summary["draws"]["ci95"][0] == summary["draws"]["ci95"][1]
    assert summary["distributions"]["turns"] == [0.0, 1.0]
    # the sampled run's battles are not this answer's: gone with it
    assert not (out / "battles.csv").exists() and not (out / "combatants.csv").exists()
    # a variant with --set says so, as a sampled run's summary does
    longer = duel(tmp_path, turns=3)
    other = tmp_path / "other"
    assert main(["run", str(longer), "--exact", "--set", "turn_limit=1", "--out", str(other)]) == 0
    varied = json.loads((other / "summary.json").read_text(encoding="utf-8"))
    assert varied["sets"] == ["turn_limit=1"]
    assert varied["sides"] == summary["sides"]


def test_run_exact_refuses_in_one_line_and_writes_nothing(tmp_path, capsys):
    path = duel(tmp_path, blue_gun="derringer", blue_moves="advance")
    out = tmp_path / "out"
    assert main(["run", str(path), "--exact", "--out", str(out)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "--exact" in err and "Mark's plan" in err
    assert not out.exists()
    assert main(["run", str(path), "--exact", "--trace", "0"]) == 2
    assert "--trace" in capsys.readouterr().err


@pytest.mark.slow
def test_paths_meeting_between_shots_change_no_fight_answer(tmp_path):
    """Two-round bursts: the fight with the shots' meeting points is the fight without."""
    text = duel(tmp_path, turns=1).read_text(encoding="utf-8")
    text = text.replace("fire_mode: single", "fire_mode: autofire, autofire_rounds: 2")
    text = text.replace(
        "hand_cannon: {kind: firearm, damage: 8S2,",
        "hand_cannon: {kind: firearm, damage: 6M3, autofire: true,",
    )
    path = tmp_path / "bursts.yaml"
    path.write_text(text, encoding="utf-8")
    scenario = load_scenario(path)
    merged = fight_odds(scenario)
    walked = fight_odds(scenario, meet=False)
    assert merged.endings == walked.endings
    assert merged.paths < walked.paths
