"""A small fight's memo of each fighter's enemies (``Battle.enemies_in_view``) is kept across
moves where nothing it measured changed (a move leaves the mover's allies' memos current).
Whatever the route, a memo the battle calls current must hold what a full measure from
scratch gives: the same enemies in fighter order, math.dist's meters to each (bit for bit),
the first of the nearest and the count in melee reach."""

from __future__ import annotations

import math
from pathlib import Path

import pytest

from combatsim.engine.battle import Battle
from combatsim.rng import battle_rng
from combatsim.scenario import load_scenario

ROOT = Path(__file__).resolve().parents[2]
SCENARIOS = [
    "sr-d8-chop-shop-bust.yaml",
    "sr-night-extraction.yaml",
    "sr-bar-brawl.yaml",
    "sr-grenade-ambush.yaml",
    "sr-firefight-4v4.yaml",
    "lost-souls-warehouse-raid.yaml",
]


def measured_from_scratch(battle: Battle, me) -> tuple:
    """What a fighter's memo must hold, worked out from the fighters alone."""
    enemies = [f for f in battle.fighters if f.can_act and f.side != me.side]
    meters = {f.index: math.dist(me.position, f.position) for f in enemies}
    nearest = None
    for f in enemies:  # the first of the nearest, in fighter order
        if nearest is None or meters[f.index] < meters[nearest.index]:
            nearest = f
    in_reach = sum(1 for d in meters.values() if d <= battle.melee_range)
    return enemies, meters, nearest, in_reach


class CheckedBattle(Battle):
    """A battle that, after every move and every change of who stands, checks every memo it
    calls current against a measure from scratch."""

    checked = 0

    def check_memos(self) -> None:
        for f in self.fighters:
            seen = f.enemies_seen
            if seen.layout != self.layout:
                continue  # stale: measured again when next read
            enemies, meters, nearest, in_reach = measured_from_scratch(self, f)
            assert seen.enemies == enemies
            assert [seen.meters[e.index] for e in enemies] == [meters[e.index] for e in enemies]
            assert seen.nearest is nearest
            assert seen.in_reach == in_reach
            CheckedBattle.checked += 1

    def move(self, f, dest, budget):
        super().move(f, dest, budget)
        self.check_memos()

    def damage_dealt(self, attacker, target, boxes, what):
        super().damage_dealt(attacker, target, boxes, what)
        self.check_memos()


@pytest.mark.parametrize("name", SCENARIOS)
def test_every_current_memo_is_what_a_full_measure_gives(name):
    scenario = load_scenario(ROOT / "scenarios" / name)
    CheckedBattle.checked = 0
    for index in range(25):
        CheckedBattle(scenario, battle_rng(5, index), index=index).run()
    assert CheckedBattle.checked > 100  # memos were current after moves and wounds


@pytest.mark.parametrize("measured_before", [True, False])
def test_a_move_asks_the_enemy_it_passes_within_a_meter_to_intercept(measured_before):
    """The enemies a move might pass within a meter of are read from the mover's memo as
    its plan left it (measured where the move began), or from a measure where it stopped
    when that memo is stale: either way the enemy within a meter of the way is asked to
    intercept, the one farther off is not, and the mover's memo after the move is what a
    full measure gives."""
    scenario = load_scenario(ROOT / "scenarios" / "sr-bar-brawl.yaml")
    battle = CheckedBattle(scenario, battle_rng(1, 0))
    me = battle.fighters[0]
    enemies = [f for f in battle.fighters if f.side != me.side]
    me.position = (0.0, 0.0)
    for k, e in enumerate(enemies):
        e.position = (50.0 + k, 50.0)
    enemies[0].position = (3.0, 0.9)  # a meter or less off the way
    enemies[1].position = (3.0, 1.2)  # farther off it
    battle.layout += 1
    if measured_before:  # as its plan leaves it
        assert battle.enemies_in_view(me).nearest is enemies[0]
    asked = []
    battle.system.melee_attack = lambda b, attacker, target, weapon, interception=False: (
        asked.append((attacker, target, interception))
    )
    battle.move(me, (6.0, 0.0), 10.0)
    assert asked == [(enemies[0], me, True)]
    seen = battle.enemies_in_view(me)
    enemies_now, meters, nearest, in_reach = measured_from_scratch(battle, me)
    assert seen.enemies == enemies_now
    assert [seen.meters[e.index] for e in enemies_now] == [meters[e.index] for e in enemies_now]
    assert seen.nearest is nearest is enemies[0]
    assert seen.in_reach == in_reach
