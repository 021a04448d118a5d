"""``fall_back``: badly hurt, a fighter runs away from every standing enemy, to the point of
its run farthest from the nearest of them, or to a free cover point within its run that
leaves it farther from all of them. Classic Shadowrun: the runner (Quickness 3) runs 12 m;
its enemies hold toy guns and never attack; every face a 2.
"""

from __future__ import annotations

import math

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from combatsim.engine.battle import Battle
from combatsim.rng import battle_rng
from tests.engine.helpers import dump, fighter, member, scenario, sitting_target
from tests.helpers import examples
from tests.tactics.helpers import decisions, hurt, run_scripted

FAR = {"escape_distance": 1000}  # never fled: the run itself is what is looked at


def runner(**tactics):
    return member("Runner", reaction=5, weapons=["toy"], tactics={"fall_back": True, **tactics})


def nearest_meters(battle: Battle, at) -> float:
    return min(
        math.dist(at, e.position) for e in battle.standing_enemies(fighter(battle, "Runner"))
    )


def test_between_two_enemies_it_runs_off_their_line():
    """E1 10 m to the west, E2 20 m to the east. Running straight away from E1 took it 12 m
    east, 8 m from E2; now it runs off the line, to where the nearer of them is 18 m off.
    Regression: it ran back and forth between them."""
    enemies = [sitting_target("E1", position=(-10, 0)), sitting_target("E2", position=(20, 0))]
    sc = scenario({"A": [runner()], "B": enemies}, environment=FAR)
    battle, result, _ = run_scripted(sc, prepare=hurt("Runner", "S"), then=2)
    ((_, kind, reason),) = decisions(result, "Runner")
    assert (kind, reason) == ("flee", "badly hurt (60%): falls back from 2 enemies"), dump(result)
    at = fighter(battle, "Runner").position
    assert math.dist(at, (0, 0)) == pytest.approx(12)
    # 18.3 m from E1 and 19.0 from E2: the nearest 18.3 m off, against 10 before the run
    assert min(math.dist(at, (-10, 0)), math.dist(at, (20, 0))) > 18, at


def test_it_falls_back_to_a_free_cover_point_that_leaves_it_farther_from_all():
    """A partial cover point 8 m to the south is 12.8 m from E1 and 21.5 m from E2: farther
    from both than the runner stands (10 m from E1): it runs there and has its cover."""
    enemies = [sitting_target("E1", position=(-10, 0)), sitting_target("E2", position=(20, 0))]
    points = [{"position": [0, -8], "cover": "partial"}, {"position": [-9, 0], "cover": "full"}]
    sc = scenario({"A": [runner()], "B": enemies}, environment={**FAR, "cover_points": points})
    battle, result, _ = run_scripted(sc, prepare=hurt("Runner", "S"), then=2)
    ((_, kind, reason),) = decisions(result, "Runner")
    assert reason.endswith("falls back from 2 enemies, to partial cover"), dump(result)
    runner_ = fighter(battle, "Runner")
    assert runner_.position == (0, -8) and runner_.cover == "partial"


def test_one_enemy_it_runs_straight_away():
    sc = scenario(
        {"A": [runner()], "B": [sitting_target("E1", position=(-10, 0))]}, environment=FAR
    )
    battle, result, _ = run_scripted(sc, prepare=hurt("Runner", "S"), then=2)
    ((_, _, reason),) = decisions(result, "Runner")
    assert reason == "badly hurt (60%): falls back from E1", dump(result)
    assert fighter(battle, "Runner").position == (12, 0)


class FleesChecked(Battle):
    """Checks each fall back that ends where it was headed (not stopped by an interceptor):
    the runner's distance to the nearest standing enemy does not shrink by its own move
    whenever one of the points of its run (checked on 72 bearings) keeps it."""

    flees = 0

    def _execute(self, f, plan):
        before = f.position
        nearest_before = nearest_meters(self, before) if plan.kind == "flee" else 0.0
        super()._execute(f, plan)
        if plan.kind != "flee" or (not f.can_act and not f.fled):
            return
        if math.dist(f.position, plan.dest) > 1e-6:
            return  # stopped on its way
        self.flees += 1
        run = f.run
        keeps = any(
            nearest_meters(self, (before[0] + run * math.cos(a), before[1] + run * math.sin(a)))
            >= nearest_before
            for a in (2 * math.pi * k / 72 for k in range(72))
        )
        if keeps:
            assert nearest_meters(self, f.position) >= nearest_before - 1e-9, (
                before,
                f.position,
                [e.position for e in self.standing_enemies(f)],
            )


coord = st.integers(-20, 20).map(float)


@st.composite
def flights(draw):
    """A hurt runner with fall_back at the origin, two to four enemies that never attack (nor
    stand within 2 m of it), maybe cover points."""
    enemies = []
    for i in range(draw(st.integers(2, 4))):
        at = draw(st.tuples(coord, coord).filter(lambda p: math.hypot(*p) > 2))
        enemies.append(sitting_target(f"E{i}", position=at))
    points = [
        {"position": list(draw(st.tuples(coord, coord))), "cover": "partial"}
        for _ in range(draw(st.integers(0, 2)))
    ]
    tactics = {"fall_back": True, "fall_back_at": 0.2}
    runner_ = member(
        "Runner", quickness=draw(st.integers(1, 5)), reaction=5, weapons=["toy"], tactics=tactics
    )
    return scenario(
        {"A": [runner_], "B": enemies},
        environment={**FAR, "cover_points": points},
        turn_limit=3,
    )


@settings(max_examples=examples(80), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(sc=flights(), seed=st.integers(0, 2**32 - 1))
def test_a_fleeing_fighter_never_runs_nearer_the_nearest_enemy_when_it_need_not(sc, seed):
    battle = FleesChecked(sc, battle_rng(seed, 0))
    hurt("Runner", "S")(battle)
    battle.run()
