"""The exact odds of a whole fight (``combatsim.exact.fight``) and ``combatsim run --exact``.

The sampled comparison: the exact win and draw chances of a classic Shadowrun duel must fall
inside the 99.9% Wilson intervals of 2,000 sampled battles of the same scenario. Three rates are
checked against one fixed sample, so a correct chain fails with probability below 0.3% for
a given seed (the false-failure budget); the seed is fixed, so the test is deterministic.
"""

from __future__ import annotations

import json
from collections import defaultdict
from fractions import Fraction
from itertools import product
from pathlib import Path

import pytest

from combatsim.cli import main
from combatsim.exact import fight
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


def assert_within_sampled(odds, summary: dict) -> None:
    """Red's and blue's exact chance to win, and of a draw, each inside the interval of
    ``BATTLES`` sampled battles' count."""
    rates = {
        "red": (summary["sides"]["red"]["wins"], odds.win("red")),
        "blue": (summary["sides"]["blue"]["wins"], odds.win("blue")),
        "draw": (summary["draws"]["count"], odds.draw()),
    }
    for what, (count, exact) in rates.items():
        low, high = wilson_interval(count, BATTLES, CONFIDENCE)
        assert low <= exact <= high, f"{what}: exact {float(exact):.4f} not in [{low}, {high}]"


@pytest.mark.slow
def test_the_exact_odds_fall_inside_the_sampled_intervals(tmp_path):
    scenario = load_scenario(duel(tmp_path, turns=2))
    odds = fight_odds(scenario)
    summary = run_battles(scenario, BATTLES, seed=11, records="none").summary
    assert_within_sampled(odds, summary)


GANGERS = """
name: two gangers trade pistol shots
rules: {{system: sr2097}}
catalogues: [{catalogue}]
sides:
  - name: red
    tactics: {{movement: hold, rules: {{attack: never, damage: never, lessen: never, burn: false}}}}
    members:
      - {{name: Ace, archetype: ganger, weapons: [light_pistol], position: [0, 0],
         start: {{wounds: 20}}}}
  - name: blue
    tactics: {{movement: hold, rules: {{attack: never, damage: never, lessen: never, burn: false}}}}
    members:
      - {{name: Mark, archetype: ganger, weapons: [light_pistol], position: [10, 0],
         start: {{wounds: 20}}}}
turn_limit: 1
seed: 3
"""


@pytest.mark.slow
def test_a_2097_duel_answered_exactly_falls_inside_the_sampled_intervals(tmp_path):
    """Shadowrun: 2097 through the chain (its checks, damage dice, initiative): one turn of
    light pistols between two gangers already wounded, so a hit may drop either (each side
    wins about 20%; some 2,200 paths; the 30-turn sniper duel is refused as too large). Three rates
    at 99.9% each: a false failure below 0.3% (fixed seeds: a run is deterministic)."""
    path = tmp_path / "gangers.yaml"
    catalogue = ROOT / "scenarios" / "catalogues" / "sr2097.yaml"
    path.write_text(GANGERS.format(catalogue=catalogue), encoding="utf-8")
    scenario = load_scenario(path)
    odds = fight_odds(scenario)
    assert odds.win("red") > Fraction(1, 10) and odds.win("blue") > Fraction(1, 10)
    summary = run_battles(scenario, BATTLES, seed=5, records="none").summary
    assert_within_sampled(odds, summary)


# --- refusals -------------------------------------------------------------------------------


def test_a_fighter_that_would_move_is_refused_in_one_line(tmp_path):
    scenario = load_scenario(duel(tmp_path, blue_gun="derringer", blue_moves="advance"))
    with pytest.raises(NotExact, match="Mark's movement .it walks or runs in a sampled battle"):
        fight_odds(scenario)


def test_a_walk_no_sampled_battle_showed_is_refused_where_the_chain_meets_it(tmp_path, monkeypatch):
    monkeypatch.setattr(fight, "PROBES", 0)  # as if the walk were too rare to be sampled
    scenario = load_scenario(duel(tmp_path, blue_gun="derringer", blue_moves="advance"))
    with pytest.raises(NotExact, match="Mark's plan to (walk|run)"):
        fight_odds(scenario)


SHIPPED = sorted((ROOT / "scenarios").glob("*.yaml")) + sorted(
    (ROOT / "scenarios" / "tactics").glob("*.yaml")
)
# refused after walking 5,000 ways of the first initiative (a fight of several), or 50,000 ways
# of the first turn (the sniper duel): over a second of CPU here, more on CI
CROWDED = ("focus.yaml", "targets-in-reach.yaml", "sr2097-sniper-duel.yaml")


@pytest.mark.parametrize(
    "path",
    [pytest.param(p, marks=pytest.mark.slow) if p.name in CROWDED else p for p in SHIPPED],
    ids=lambda p: p.name,
)
def test_every_shipped_fight_is_refused_before_the_chain_is_walked(path, monkeypatch):
    """Each used to run for a minute or more (a fight that moves: minutes) toward the chain's
    limits, or ended in a message about the code ("holding Fighter in this_target"), before
    a refusal came. Now each is refused by the sampled battles that look for movement or by
    the projection from the chain's first two steps (a lost-souls or 4D8 fight, grenades:
    before either), in one line naming what it does not cover: the walk never starts."""

    def walked(self, max_states):
        raise AssertionError("the chain was walked")

    monkeypatch.setattr(fight.Chain, "walk", walked)
    with pytest.raises(NotExact) as refused:
        fight_odds(load_scenario(path))
    said = str(refused.value)
    assert "\n" not in said and "holding" not in said
    known = ("movement", "grenades", "Lost Souls fight", "4D8 fight", "ways")
    assert any(what in said for what in known), said


def test_grenades_are_refused_before_anything_is_worked_out():
    scenario = load_scenario(ROOT / "scenarios" / "sr-grenade-ambush.yaml")
    with pytest.raises(NotExact, match="grenades"):
        fight_odds(scenario)


def test_a_system_it_does_not_cover_is_refused_up_front_in_a_users_words(tmp_path):
    """Lost Souls and 4D8 keep the fighter's last target (for aiming) in its state: no plain
    value to merge states by, so the fight is refused in one line before anything is worked
    out, naming the systems it does cover, even a duel standing still."""
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
    with pytest.raises(NotExact, match="a Lost Souls fight") as refused:
        fight_odds(load_scenario(path))
    assert "Classic Shadowrun (sr-classic, sr-d8) or Shadowrun: 2097" in str(refused.value)
    assert "holding" not in str(refused.value)
    fourd8 = load_scenario(ROOT / "scenarios" / "4d8-dockside-shootout.yaml")
    with pytest.raises(NotExact, match="a 4D8 fight"):
        fight_odds(fourd8)


def test_a_fight_past_the_limits_is_refused(tmp_path, monkeypatch):
    scenario = load_scenario(duel(tmp_path, turns=1))
    with pytest.raises(NotExact, match="more than 50 states"):
        fight_odds(scenario, max_states=50)
    # the first turn start (36 ways) is held to a 200th of the limit on paths
    with pytest.raises(NotExact, match="first initiative alone falls more than 10 ways"):
        fight_odds(scenario, max_paths=2000)
    monkeypatch.setattr(fight, "FIRST_SHARE", {"turn": 1, "act": 1, "first turn": 20})
    # one turn is the whole fight: walked to the limit
    with pytest.raises(NotExact, match="more than 500 ways for the dice to fall"):
        fight_odds(scenario, max_paths=500)
    longer = load_scenario(duel(tmp_path, turns=3))
    # the first of three turns (941 ways) is held to a 20th of the limit
    with pytest.raises(NotExact, match="first turn alone falls more than 500 ways"):
        fight_odds(longer, max_paths=10_000)
    # projected: 941 ways of the first turn x 85 states the second starts from x 2 turns more
    monkeypatch.setattr(fight, "FIRST_SHARE", {"turn": 1, "act": 1, "first turn": 1})
    with pytest.raises(NotExact, match="some 159,970 ways .*past the limit of 20,000"):
        fight_odds(longer, max_paths=20_000)


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
    # every rate it reports has its fraction beside it
    assert summary["distributions"]["turns_probability"] == ["0", "1"]
    assert summary["turns"]["mean_exact"] == "1"
    reasons = summary["end_reason_probabilities"]
    assert reasons.keys() == summary["end_reasons"].keys()
    assert sum(map(Fraction, reasons.values())) == 1
    for casualty in summary["casualties"]:
        for what in ("down", "dead"):
            exact = Fraction(casualty[f"{what}_probability"])
            assert round(float(exact), 4) == round(casualty[f"{what}_rate"], 4)
    downs = {Fraction(c["down_probability"]) for c in summary["casualties"]}
    assert downs == {odds.down(0), odds.down(1)}
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
    assert err.count("\n") == 1 and "--exact" in err and "Mark's movement" in err
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


# --- the memoised walk ----------------------------------------------------------------------


@pytest.mark.parametrize(
    "fight_of",
    [
        "classic",
        pytest.param("classic, 2 turns", marks=pytest.mark.slow),
        pytest.param("sr2097", marks=pytest.mark.slow),
    ],
)
def test_the_memoised_walk_gives_the_plain_walks_fractions(tmp_path, fight_of):
    """An action walked once for every node sharing what it reads, a turn kept as the order of
    its actions (2097: wounds do not move initiative), paths meeting by the chain's condition
    keys: the same fractions as walking every action from every node with the raw scores.
    Classic Shadowrun's wounds move initiative, so its timing is kept whole and the memo's
    key holds what ``damage_dealt`` reads of it: in a second turn a fighter's penalty when it
    rolled is not its condition's, and a key without it gives other fractions."""
    if fight_of.startswith("classic"):
        path = duel(tmp_path, turns=2 if "2 turns" in fight_of else 1)
    else:
        path = tmp_path / "gangers.yaml"
        catalogue = ROOT / "scenarios" / "catalogues" / "sr2097.yaml"
        path.write_text(GANGERS.format(catalogue=catalogue), encoding="utf-8")
    scenario = load_scenario(path)
    memoised = fight_odds(scenario)
    plain = fight_odds(scenario, memo=False)
    assert dict(memoised.endings.items()) == dict(plain.endings.items())
    assert memoised.paths < plain.paths


@pytest.mark.slow
def test_one_turn_of_the_sniper_duel_answered_exactly_fits_sampled_battles():
    """The shipped sniper duel, one turn (its 30 are too many to walk exactly): Advantage from
    the scope and smartlink, the dusk's Disadvantage removed for one sniper only, Edge spent by
    policy on attacks, damage and lessening, failures leaving Disadvantage. The exact chance of
    each way the turn ends (who wins, or a draw; each sniper's status) against 2,000 sampled
    battles by chi-square at the suite's budget (fixed seed). Some 820,000 paths: about a
    minute of CPU."""
    from dataclasses import replace

    from tests.stats import assert_fits

    scenario = load_scenario(ROOT / "scenarios" / "sr2097-sniper-duel.yaml")
    scenario = replace(scenario, turn_limit=1)
    odds = fight_odds(scenario)
    exact: dict = defaultdict(Fraction)
    for ending, p in odds.endings.items():
        exact[(ending.winner or "draw", *(status for _, status in ending.fighters))] += p
    batch = run_battles(scenario, BATTLES, seed=97, records="all")
    statuses = batch.combatants.pivot(index="battle", columns="name", values="status")
    names = [spec.name for spec in scenario.fighters]
    winners = batch.battles.set_index("battle")["winner"]
    samples = [(winners[b], *(statuses.loc[b, n] for n in names)) for b in batch.battles["battle"]]
    assert_fits(samples, exact)


def test_a_2097_condition_leaves_out_what_only_the_record_and_the_trace_read():
    """Edge spent by use is a counter for ``combatants.csv`` (added to through a subscript,
    which the source check does not see as a counter: 2097 names it), and a pending
    Disadvantage's tier and MoS only name it in a trace: two snipers that differ there alone
    are one condition of the chain."""
    from combatsim.exact.state import Condition, for_the_record, record_fields, record_only
    from combatsim.rules.sr2097.system import pending_after

    scenario = load_scenario(ROOT / "scenarios" / "sr2097-sniper-duel.yaml")
    chain = fight.Chain(scenario, 1000)
    system = chain.system
    assert "spent" in for_the_record(system) and "spent" not in record_only(type(system))
    condition = Condition(system.new_state(chain.battle.fighters[0]), frozenset(), {})
    narrow = Condition(
        system.new_state(chain.battle.fighters[0]),
        for_the_record(system),
        record_fields(system),
    )
    keys = []
    for mos, use in ((-12, "attack"), (-14, "damage")):
        f = chain.battle.renew(0)
        f.state.pending = pending_after("attack", mos)
        f.state.spent[use] += 1
        keys.append((condition.key(f, False), narrow.key(f, False)))
    assert keys[0][0] != keys[1][0]  # every field: two conditions
    assert keys[0][1] == keys[1][1]  # what the rules read: one
