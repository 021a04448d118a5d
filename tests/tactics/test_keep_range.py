"""Movement ``keep_range``: advance to ``preferred_range``, and back off to it when closer.

A fighter keeping its range walks toward its preferred range of the target from either side,
firing with each walk; a preferred range beyond the gun's reach counts as just inside it, so
backing off never takes the target out of reach. Fighters fire single shots with Firearms 1
and every face is a 2: every shot misses, one action a turn.
"""

from __future__ import annotations

import math

import pytest

from tests.engine.helpers import dump, scenario, sitting_target
from tests.tactics.helpers import after_each_turn, decisions, gunner, run_scripted, shots_at


def keep_scenario(target_x: float, preferred: float, limit: int = 1):
    gun = gunner("Keeper", tactics={"movement": "keep_range", "preferred_range": preferred})
    return scenario({"A": [gun], "B": [sitting_target(position=(target_x, 0))]}, turn_limit=limit)


def test_it_backs_off_to_its_preferred_range_firing_every_action():
    """5 m off, preferred 10: 3 m back a turn, then 2, then it stands at 10 m."""
    states = after_each_turn(lambda n: keep_scenario(5, 10, n), 4, "Keeper", then=2)
    assert [p[0] for p, _ in states] == [-3, -5, -5, -5]
    _, result, _ = run_scripted(keep_scenario(5, 10, 4), then=2)
    assert [kind for _, kind, _ in decisions(result, "Keeper")] == ["fire"] * 4, dump(result)


def test_it_closes_in_to_its_preferred_range_like_advance():
    states = after_each_turn(lambda n: keep_scenario(20, 14, n), 3, "Keeper", then=2)
    assert [p[0] for p, _ in states] == [3, 6, 6]


@pytest.mark.parametrize("start", [148, 140, 100])
@pytest.mark.parametrize("preferred", [200, 1000])
def test_it_never_backs_off_past_the_guns_reach(start, preferred):
    """The smg reaches 150 m and the preferred range is farther: the fighter backs off toward
    it but stays within 150 m of the target after every turn and fires every action.
    Regression: it backed off out of range, then had to run back (and could not shoot)."""
    turns = 4
    states = after_each_turn(lambda n: keep_scenario(start, preferred, n), turns, "Keeper", then=2)
    for position, _ in states:
        assert math.dist(position, (start, 0)) <= 150, states
    _, result, _ = run_scripted(keep_scenario(start, preferred, turns), then=2)
    assert [kind for _, kind, _ in decisions(result, "Keeper")] == ["fire"] * turns, dump(result)
    assert len(shots_at(result, "Keeper")) == turns
