"""Movement ``hold``: never move; fire at an enemy within the gun's reach, else hold fire.

A holding fighter with a gun fires whenever a standing enemy is within the gun's reach, whatever
its target policy (every policy chooses among the enemies in reach while one is); with none in
reach it holds its action, saying truly that no enemy is within the gun's range, and fires the
moment one comes within it. Fighters fire single shots with Firearms 1 (one die a shot) and
every face is a 2 unless said otherwise: every shot misses, one action a turn.
"""

from __future__ import annotations

import math

import pytest

from tests.engine.helpers import dump, events, fighter, member, scenario, sitting_target
from tests.tactics.helpers import PISTOL, decisions, gunner, hurt, run_scripted, shots_at

# Per target policy: the enemy it would pick among all of them stands out of the smg's 150 m
# ("Far", 200 m off) and another ("Near", 100 m) within them; and how to make it so.
FAVOURITE_OUT_OF_REACH = {
    "nearest": ({}, None),  # the nearest is within reach whenever any enemy is
    "weakest": ({}, hurt("Far")),
    "most_dangerous": ({"weapons": ["toy", "rifle"], "firearms": 6}, None),
    "random": ({}, None),  # Far comes first: the draw of 0 picks it among all of them
    "focus": ({}, None),
}


@pytest.mark.parametrize("policy", sorted(FAVOURITE_OUT_OF_REACH))
@pytest.mark.parametrize("movement", ["hold", "take_cover"])
def test_it_never_holds_fire_while_an_enemy_stands_within_reach(policy, movement):
    """Regression: weakest, most_dangerous and random picked the enemy out of reach and held
    fire (or ran at it) while another stood within the gun's reach."""
    far_kw, prepare = FAVOURITE_OUT_OF_REACH[policy]
    far_kw = {"weapons": ["toy"], **far_kw}  # a toy gun first: Far never fires or moves
    far = member("Far", position=(200, 0), tactics={"dodge": "none", "movement": "hold"}, **far_kw)
    near = sitting_target("Near", position=(0, 100))
    holder = gunner("Holder", tactics={"movement": movement, "target": policy})
    sc = scenario({"A": [holder], "B": [far, near]}, turn_limit=2)
    battle, result, _ = run_scripted(sc, prepare=prepare, then=2)
    assert [kind for _, kind, _ in decisions(result, "Holder")] == ["fire", "fire"], dump(result)
    assert shots_at(result, "Holder") == [(1, "Holder", "Near"), (2, "Holder", "Near")]
    assert fighter(battle, "Holder").position == (0, 0)


def test_it_fires_at_an_enemy_in_reach_and_never_moves():
    sc = scenario({"A": [gunner("Holder")], "B": [sitting_target(position=(120, 0))]}, turn_limit=3)
    battle, result, _ = run_scripted(sc, then=2)
    assert fighter(battle, "Holder").position == (0, 0)
    assert shots_at(result, "Holder") == [(t, "Holder", "Target") for t in (1, 2, 3)]
    assert not [e for e in result.trace if e.kind == "move"], dump(result)


@pytest.mark.parametrize("weapon, reach", [("smg", 150), ("pistol", 90)])
def test_with_no_enemy_in_reach_it_holds_and_says_so_truly(weapon, reach):
    """Its reason names the gun's reach, and no enemy is within it."""
    holder = gunner("Holder", weapons=[weapon])
    sc = scenario(
        {"A": [holder], "B": [sitting_target(position=(reach + 1, 0))]},
        weapons={"pistol": PISTOL},
        turn_limit=2,
    )
    battle, result, _ = run_scripted(sc, then=2)
    assert decisions(result, "Holder") == [
        (t, "hold", f"no enemy within {reach} m: holds fire until one comes in range")
        for t in (1, 2)
    ]
    assert math.dist(fighter(battle, "Holder").position, (reach + 1, 0)) > reach
    assert fighter(battle, "Holder").position == (0, 0) and not shots_at(result)


def test_a_held_action_fires_when_an_enemy_comes_within_reach_and_only_then():
    """The runner (Quickness 5, unarmed) starts 160 m off and runs 20 m at the holder: the
    holder's held action goes off then, at the runner within the smg's 150 m."""
    holder = gunner("Holder", reaction=5)
    runner = member("Runner", quickness=5, position=(160, 0))
    battle, result, _ = run_scripted(scenario({"A": [holder], "B": [runner]}), [1, 1, 2])
    assert [kind for _, kind, _ in decisions(result, "Holder")] == ["hold"]
    assert shots_at(result) == [(1, "Holder", "Runner")], dump(result)
    (attack,) = [e for e in result.trace if e.kind == "attack"]
    assert attack.score == 2  # the runner's action: the held action went off as it moved
    assert math.dist((0, 0), fighter(battle, "Runner").position) <= 150
    assert fighter(battle, "Holder").position == (0, 0)


def test_a_held_action_lapses_when_the_next_action_comes_due():
    """Reaction 10 + 6 = 16: actions at 16 and 9 (ruling 1). With no enemy in reach the
    holder holds at 16; at 9 that held action lapses and the fighter takes its second action
    (holding again). Regression: the first held action used up the turn's later scores, so a
    holder had one action a turn whatever its initiative."""
    holder = gunner("Holder", reaction=10)
    sc = scenario({"A": [holder], "B": [sitting_target(position=(200, 0))]}, turn_limit=2)
    _, result, _ = run_scripted(sc, [6, 2, 6, 2], then=2)
    decided = [
        (e.turn, e.score) for e in result.trace if e.kind == "decide" and e.actor == "Holder"
    ]
    assert decided == [(1, 16), (1, 9), (2, 16), (2, 9)], dump(result)
    lapses = [e for e in result.trace if e.actor == "Holder" and "lapses" in e.text]
    assert [(e.turn, e.score) for e in lapses] == [(1, 9), (2, 9)], dump(result)


def test_a_held_action_fires_before_the_next_score_and_the_scores_run_down():
    """The holder acts at 16 and 9; the runner (unarmed, 160 m off) acts at 2 and runs into
    the smg's 150 m: the held action of score 9 answers it at 2. Every action of the turn is
    traced at a score no higher than the one before. Regression: the held action of 16 fired
    at 2 and the fighter then took its action "at score 9" after score 2."""
    holder = gunner("Holder", reaction=10)
    runner = member("Runner", quickness=5, position=(160, 0))
    battle, result, _ = run_scripted(scenario({"A": [holder], "B": [runner]}), [6, 1], then=2)
    scores = [e.score for e in result.trace if e.kind in ("decide", "held")]
    assert scores == sorted(scores, reverse=True), dump(result)
    assert [(e.score, e.data["plan"]) for e in events(result, "decide", "Holder")] == [
        (16, "hold"),
        (9, "hold"),
    ], dump(result)
    assert [e.score for e in result.trace if e.kind == "held"] == [2], dump(result)
    assert shots_at(result) == [(1, "Holder", "Runner")], dump(result)


def test_a_hold_for_a_target_out_of_reach_fires_only_when_that_target_comes_within_it():
    """``target_in_reach: false``, most dangerous: the holder (smg, 150 m) holds for Far (a
    rifle on its sheet, 160 m off), though Near stands within reach all along. An ally's run
    wakes the hold: Far is still out of reach, so it keeps holding; then Far runs within 150
    m, and the held action fires at Far, and the trace's reason is true. Regression: it fired
    at Near whenever anyone moved, saying that Near "came within range"."""
    tactics = {"target": "most_dangerous", "target_in_reach": False}
    holder = gunner("Holder", reaction=5, tactics=tactics)
    mover = member(
        "Mover", reaction=3, weapons=["toy"], position=(0, -50), tactics={"movement": "advance"}
    )
    far = member(
        "Far",
        quickness=6,
        weapons=["toy", "rifle"],
        firearms=6,
        position=(160, 0),
        tactics={"movement": "advance", "dodge": "none"},
    )
    near = sitting_target("Near", position=(0, 100))
    sc = scenario({"A": [holder, mover], "B": [far, near]})
    battle, result, _ = run_scripted(sc, then=2)
    assert [kind for _, kind, _ in decisions(result, "Holder")] == ["hold"], dump(result)
    assert shots_at(result, "Holder") == [(1, "Holder", "Far")], dump(result)
    (held,) = [e for e in result.trace if e.kind == "held"]
    assert held.text.endswith("Far came within range"), held.text
    assert math.dist((0, 0), fighter(battle, "Far").position) <= 150
