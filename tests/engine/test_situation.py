"""What the engine works out once for every rule system (``combatsim.rules.situation``): range
bands, the situation of an attack, where a grenade lands, whom its blast reaches, how the
modifiers are named, and the enemies a fighter sees (kept in place)."""

from __future__ import annotations

import math
import re
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from combatsim.engine.battle import Battle, run_battle
from combatsim.rng import battle_rng
from combatsim.rules.situation import (
    NOT_SEEN,
    Scatter,
    band_of,
    band_tops,
    blast_distance,
    labelled,
    range_band,
    signed,
)
from combatsim.scenario import load_scenario
from tests.engine.helpers import ScriptedRoller

ROOT = Path(__file__).resolve().parents[2]
FIREFIGHT = ROOT / "scenarios" / "sr-firefight-4v4.yaml"


def counted_band(distance: float, tops, last: int) -> int:
    """The band as the systems counted it before: tops passed, at most ``last``."""
    band = 0
    for top in tops:
        if distance <= top:
            break
        band += 1
    return band if band < last else last


tops_strategy = st.lists(st.floats(0.5, 500, allow_nan=False), min_size=2, max_size=4).map(sorted)


@given(tops_strategy, st.floats(0, 1000, allow_nan=False), st.integers(1, 4))
def test_a_range_band_counts_the_tops_a_target_is_beyond(tops, distance, last):
    last = min(last, len(tops))
    band = range_band(distance, tops, last)
    assert band == counted_band(distance, tops, last)
    assert band_of(band_tops(tops, last), distance) == band


def test_a_target_at_a_bands_top_is_in_that_band():
    tops = (5.0, 10.0, 20.0, 40.0)
    assert [range_band(d, tops, 3) for d in (0, 5, 5.01, 10, 20, 20.5, 40, 400)] == [
        0,
        0,
        1,
        1,
        2,
        3,
        3,
        3,
    ]
    assert band_tops(None, 2) is None


def test_labelled_keeps_the_modifiers_that_are_not_0_in_order():
    pairs = labelled((2, 0, -1, 0, 3), ("a", "b", "c", "d", "e"))
    assert pairs == [(2, "a"), (-1, "c"), (3, "e")]
    assert signed(pairs) == ["a +2", "c -1", "e +3"]
    with pytest.raises(ValueError):
        labelled((1, 2), ("one",))


@pytest.fixture
def battle():
    return Battle(load_scenario(FIREFIGHT), battle_rng(1, 0))


def test_the_situation_of_an_attack(battle):
    a, b = battle.fighters[0], battle.fighters[-1]
    assert a.side != b.side
    a.position, b.position = (0.0, 0.0), (3.0, 4.0)
    battle.layout += 1
    a.moved_this_action = 1.5
    s = battle.situation(a, b)
    assert (s.distance, s.engaged) == (5.0, battle.opponents_in_melee(a))
    # the attacker's own object, filled again for its next attack
    a.moved_this_action = 0.0
    again = battle.situation(a, None, at=(0.0, 2.0))
    assert again is s
    assert s.distance == 2.0


def test_an_enemy_in_reach_is_counted_once_it_closes_in(battle):
    a = battle.fighters[0]
    enemies = [f for f in battle.fighters if f.side != a.side]
    a.position = (0.0, 0.0)
    for k, e in enumerate(enemies):
        e.position = (100.0 + k, 0.0)
    battle.layout += 1
    assert battle.situation(a, enemies[0]).engaged == 0
    enemies[1].position = (battle.melee_range, 0.0)
    battle.layout += 1
    assert battle.situation(a, enemies[0]).engaged == 1


def test_enemies_in_view_is_measured_again_in_place(battle):
    a = battle.fighters[0]
    assert a.enemies_seen is NOT_SEEN
    seen = battle.enemies_in_view(a)
    first = seen.nearest
    assert seen.layout == battle.layout and first in seen.enemies
    first.position = (1e4, 1e4)
    battle.layout += 1
    again = battle.enemies_in_view(a)
    assert again is seen and again.layout == battle.layout and again.nearest is not first
    assert NOT_SEEN.layout == -1 and NOT_SEEN.enemies == []


@pytest.mark.parametrize(
    ("scatter", "angles", "lands"),
    [
        (Scatter(0.0), [], (10.0, 0.0)),  # on target: no direction drawn
        (Scatter(0.0, always_turn=True), [1.0], (10.0, 0.0)),  # drawn all the same
        (Scatter(3.0), [math.pi / 2], (10.0, 3.0)),
        (Scatter(5.0, text="throws: lands at "), [math.pi], (5.0, 0.0)),
    ],
)
def test_a_grenade_lands_its_scatter_off_the_aim(scatter, angles, lands):
    roller = ScriptedRoller(angles=list(angles) + [9.0])  # 9.0: a draw too many shows
    battle = Battle(load_scenario(FIREFIGHT), battle_rng(1, 0), trace=True, roller=roller)
    thrower = battle.fighters[0]
    at = battle.land(thrower, (10.0, 0.0), scatter)
    assert at == pytest.approx(lands, abs=1e-12)
    assert roller.angles == [9.0]
    (event,) = battle.events
    assert event.kind == "grenade"
    assert event.text == f"{scatter.text}({at[0]:.1f}, {at[1]:.1f})"


def test_a_blast_reaches_whom_the_system_says_at_the_ruling_25_distance(battle, monkeypatch):
    system = battle.system
    hurt = []
    monkeypatch.setattr(system, "in_blast", lambda weapon, distance: distance <= 5.0)
    monkeypatch.setattr(
        system,
        "grenade_blast",
        lambda b, thrower, weapon, victim, distance: hurt.append((victim.index, distance)),
    )
    burst = (0.0, 0.0)
    spots = [(3.0, 4.0), (0.1, 0.2), (5.0, 0.1), (-1.0, 0.0)]
    for f, spot in zip(battle.fighters, spots + [(50.0, 50.0)] * 8, strict=False):
        f.position = spot
    battle.blast(battle.fighters[0], "nade", burst)
    assert hurt == [(0, 5.0), (1, blast_distance(burst, (0.1, 0.2))), (3, 1.0)]


def test_4d8_names_the_range_ease_before_the_modifiers():
    """The trace's "<band> range N" is the band's ease alone; the modifiers follow it."""
    scenario = load_scenario(ROOT / "scenarios" / "4d8-dockside-shootout.yaml")
    ease = scenario.system.options.ease
    seen = 0
    for k in range(5):
        for event in run_battle(scenario, 1, k, trace=True).trace:
            for band, value in re.findall(r"(short|medium|long|extreme) range (-?\d+)", event.text):
                assert int(value) == getattr(ease, band), event.text
                seen += 1
    assert seen > 20


def shuffled_situations(path: Path, seed: int, times: int):
    """``times`` random situations of an attack in a battle of the scenario at ``path``: the
    fighters placed anew, then an attacker and a target with a random cover, running, moving
    and aim (the attacker's ``prev_target``); yields ``(battle, attacker, target, rng)`` for
    the caller to draw the rest (weapon, wounds) from ``rng``."""
    import random

    scenario = load_scenario(path)
    battle = Battle(scenario, battle_rng(1, 0))
    rng = random.Random(seed)
    covers = ["none", "partial", "full", "hidden"]
    for _ in range(times):
        attacker, target = rng.sample(battle.fighters, 2)
        for f in battle.fighters:
            f.position = (rng.uniform(-30, 30), rng.uniform(-30, 30))
        battle.layout += 1
        target.cover = rng.choice(covers)
        target.running = rng.random() < 0.3
        attacker.moved_this_action = rng.choice([0.0, 2.5])
        attacker.state.prev_target = rng.choice([None, target])
        yield battle, attacker, target, rng


def test_lost_souls_counts_the_same_dice_traced_and_untraced():
    """``circumstances`` is one path (``_values``), traced or not: traced, the dice it names
    add up to the dice it counts, on every situation, and untraced it counts the same."""
    checked = 0
    raid = ROOT / "scenarios" / "lost-souls-warehouse-raid.yaml"
    for battle, attacker, target, rng in shuffled_situations(raid, 5, 400):
        system = battle.system
        if attacker.state.profile is None:  # the battle's first roll would arm it
            system._arm(battle)
        attacker.state.life = rng.randint(1, attacker.state.max_life)
        weapon = rng.choice([*attacker.spec.weapons, None])
        kit = system._kit(battle, attacker, weapon)
        ranged = weapon is not None and weapon.kind != "melee"
        aim = None if rng.random() < 0.8 else (1.0, 2.0)
        who = None if aim is not None else target
        if who is None and not ranged:
            continue
        parts: list = []
        traced = system.circumstances(battle, attacker, who, kit, ranged, aim, parts)
        assert system.circumstances(battle, attacker, who, kit, ranged, aim) == traced
        assert (
            traced
            == sum(n for n, _ in parts) + kit.fixed - kit.quality - attacker.state.profile.standing
        )
        checked += 1
    assert checked > 300


def test_4d8_names_every_part_of_the_ease_it_adds():
    """``_ease`` is one path, traced or not: its notes name the band's (or melee's) ease and
    every modifier that is not 0, and they add up to the ease it returns (capped at 32), on
    every situation (range, cover, aiming, a running target, a moving attacker, an enemy in
    reach, wounds, melee, a throw at a point); untraced it returns the same number."""
    from collections import Counter

    from combatsim.dice.fourd8 import MAX_EASE

    checked: Counter = Counter()
    temple = ROOT / "scenarios" / "4d8-temple-guardians.yaml"
    for battle, attacker, target, rng in shuffled_situations(temple, 7, 1500):
        attacker.state.wounded = rng.random() < 0.4
        weapon = rng.choice([*attacker.spec.weapons, None])
        arms = attacker.state.arms[id(weapon)]
        ranged = arms.ranges is not None
        aim = (1.0, 2.0) if ranged and rng.random() < 0.2 else None
        who = None if aim is not None else target
        notes: list[str] = []
        traced = battle.system._ease(battle, attacker, who, arms, ranged, aim, notes)
        assert battle.system._ease(battle, attacker, who, arms, ranged, aim, None) == traced
        named = sum(int(note.rsplit(" ", 1)[1]) for note in notes if not note.startswith("capped"))
        assert traced == min(named, MAX_EASE), notes
        assert (f"capped at {MAX_EASE}" in notes) == (named > MAX_EASE), notes
        checked[(ranged, who is None)] += 1
    assert checked[(True, False)] > 100 and checked[(False, False)] > 300
    assert checked[(True, True)] > 25
