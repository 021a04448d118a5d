"""Movement ``advance``: walk toward ``preferred_range`` of the target, firing when in reach.

An advancing fighter walks (with its action) toward its target until it stands at its
preferred range, never backing off; a preferred range beyond the gun's reach counts as just
inside it, so it fires as soon as its walk brings the target within reach; when even the walk
leaves the target out of reach it runs closer and says so truly. Fighters fire single shots
with Firearms 1 and every face is a 2: every shot misses, one action a turn.
"""

from __future__ import annotations

import math

import pytest

from tests.engine.helpers import dump, events, fighter, scenario, sitting_target
from tests.tactics.helpers import (
    PISTOL,
    after_each_turn,
    decisions,
    gunner,
    hurt,
    meters,
    run_scripted,
    shots_at,
)


def advance_scenario(target_x: float, preferred: float, limit: int = 1):
    gun = gunner("Adv", tactics={"movement": "advance", "preferred_range": preferred})
    return scenario({"A": [gun], "B": [sitting_target(position=(target_x, 0))]}, turn_limit=limit)


def test_it_walks_to_its_preferred_range_firing_every_action_then_stands():
    """30 m off, preferred 20: 3 m a turn (Quickness 3) while farther than 20.5 m, firing
    after each walk; then it stands and fires."""
    states = after_each_turn(lambda n: advance_scenario(30, 20, n), 5, "Adv", then=2)
    assert [p[0] for p, _ in states] == [3, 6, 9, 10, 10]
    _, result, _ = run_scripted(advance_scenario(30, 20, 5), then=2)
    assert [kind for _, kind, _ in decisions(result, "Adv")] == ["fire"] * 5, dump(result)
    reasons = [reason for _, _, reason in decisions(result, "Adv")]
    assert reasons[0] == "single shot at Target (nearest), after walking 3.0 m"
    assert reasons[4] == "single shot at Target (nearest)"


def test_it_never_backs_off():
    """5 m off, preferred 20: ``advance`` stays and fires (``keep_range`` would back off)."""
    battle, result, _ = run_scripted(advance_scenario(5, 20, 2), then=2)
    assert fighter(battle, "Adv").position == (0, 0)
    assert len(shots_at(result, "Adv")) == 2


@pytest.mark.parametrize("preferred", [149.99, 200, 1000])
def test_a_preferred_range_past_the_guns_reach_still_brings_it_within_reach(preferred):
    """152 m off, the smg reaching 150: it walks to just inside 150 m (2.01 m) and fires.
    Regression: a preferred range past the reach kept it from walking, and the target out of
    range made it run instead."""
    battle, result, _ = run_scripted(advance_scenario(152, preferred), then=2)
    ((_, kind, reason),) = decisions(result, "Adv")
    assert kind == "fire" and reason.endswith("after walking 2.0 m"), dump(result)
    assert fighter(battle, "Adv").position == pytest.approx((2.01, 0))
    assert shots_at(result, "Adv") == [(1, "Adv", "Target")]


def test_out_of_reach_even_after_its_walk_it_runs_closer_and_says_so_truly():
    """300 m off: even 3 m closer the target is out of reach; it runs (Quickness 3 x 4 = 12 m)
    and cannot shoot that turn."""
    battle, result, _ = run_scripted(advance_scenario(300, 10), then=2)
    ((_, kind, reason),) = decisions(result, "Adv")
    assert (kind, reason) == ("run", "Target (nearest) is out of range: runs closer")
    assert fighter(battle, "Adv").position == (12, 0)
    assert math.dist((0, 0), (300, 0)) > 150 and not shots_at(result)


@pytest.mark.parametrize("movement", ["advance", "keep_range"])
def test_it_chooses_among_what_it_can_reach_after_its_walk(movement):
    """Weakest first: Weak (hurt) stands 92 m off, past the pistol's 90 m but within them
    after the fighter's 3 m walk; Fit (unhurt) stands 80 m off. The fighter walks 3 m toward
    Weak and shoots it from 89 m. Regression: it decided what was in reach before it walked,
    shot Fit, and walked toward Fit."""
    tactics = {"movement": movement, "target": "weakest"}
    gun = gunner("Adv", weapons=["pistol"], tactics=tactics)
    weak = sitting_target("Weak", position=(92, 0))
    fit = sitting_target("Fit", position=(0, 80))
    sc = scenario({"A": [gun], "B": [weak, fit]}, weapons={"pistol": PISTOL})
    battle, result, _ = run_scripted(sc, prepare=hurt("Weak"), then=2)
    ((_, kind, reason),) = decisions(result, "Adv")
    assert (kind, reason) == ("fire", "single shot at Weak (weakest), after walking 3.0 m")
    assert shots_at(result, "Adv") == [(1, "Adv", "Weak")], dump(result)
    assert meters(battle, "Adv", "Weak") == pytest.approx(89)


def test_a_target_just_past_its_reach_and_its_preferred_range_is_walked_into_reach():
    """150.3 m off, preferred 150 (the smg reaches 150): the gap to its preferred range is
    under half a meter, yet the target is out of reach: it walks the 0.31 m and fires."""
    battle, result, _ = run_scripted(advance_scenario(150.3, 150), then=2)
    ((_, kind, _),) = decisions(result, "Adv")
    assert kind == "fire", dump(result)
    assert fighter(battle, "Adv").position == pytest.approx((0.31, 0))


def test_a_rounding_leftover_of_the_turns_walk_is_no_walk():
    """Reaction 10 + 6 = 16: actions at 16 and 9. Toward a target at (20, 3) the first walk of
    3 m leaves 4.4e-16 m of the turn's walk by floating point: the second action fires where
    the fighter stands, with no walk in its reason. Regression: "after walking 0.0 m"."""
    gun = gunner("Adv", reaction=10, tactics={"movement": "advance"})
    sc = scenario({"A": [gun], "B": [sitting_target(position=(20, 3))]})
    battle, result, _ = run_scripted(sc, [6, 2], then=2)
    reasons = [reason for _, _, reason in decisions(result, "Adv")]
    assert reasons == [
        "single shot at Target (nearest), after walking 3.0 m",
        "single shot at Target (nearest)",
    ], dump(result)
    assert [e.text for e in events(result, "move", "Adv")] == ["Adv walks 3.0 m to (3.0, 0.4)"]
