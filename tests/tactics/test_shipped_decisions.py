"""Every decision checked as it is made, over random small maps (hypothesis) and over the
shipped scenarios (the slow suite): the checks of ``ReasonChecked`` (no gun holds fire with an
enemy in reach unless told to, every traced reason true of its moment) and of
``DecisionChecked``:

* one action per initiative score: a fighter's decisions in a turn come at falling scores,
  no more of them than its scores, and the trace's scores never rise within a turn;
* a shot's target is within the gun's reach from where it fires, a blow's within melee range;
* the policy is applied: ``weakest`` and ``most_dangerous`` (choosing in reach) shoot an
  enemy scoring no lower than any other within the gun's reach from where they fire, and
  ``nearest`` the nearest from where it stands or from where it fires.
"""

from __future__ import annotations

import math
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from combatsim import load_scenario
from combatsim.rng import battle_rng
from tests.helpers import examples
from tests.tactics.test_properties import ReasonChecked, battles, in_reach_first

ROOT = Path(__file__).resolve().parents[2]
SHIPPED = sorted((ROOT / "scenarios").glob("*.yaml")) + sorted(
    (ROOT / "scenarios" / "tactics").glob("*.yaml")
)
BATTLES = 40
SLACK = 1e-9


class DecisionChecked(ReasonChecked):
    """``ReasonChecked``, and one action per score, targets in reach, the policy applied."""

    def __init__(self, *a, **kw):
        super().__init__(*a, **kw)
        self.decided_at: dict[tuple[int, str], list[int]] = {}
        self.last_score: tuple[int, int] | None = None  # (turn, score) of the last event

    def trace(self, kind, text, actor=None, **data):
        if self.score is not None:  # time runs down the scores within a turn
            last = self.last_score
            assert last is None or last[0] != self.turn or self.score <= last[1], (
                f"turn {self.turn}: {kind} {text!r} at score {self.score} after {last[1]}"
            )
            self.last_score = (self.turn, self.score)
        if kind == "decide" and self.score is not None:
            seen = self.decided_at.setdefault((self.turn, actor.name), [])
            where = f"{actor.name} in turn {self.turn}: decisions at {seen} then {self.score}"
            assert not seen or self.score < seen[-1], where
            seen.append(self.score)
            assert len(seen) <= len(actor.scores), where
        super().trace(kind, text, actor, **data)

    def _start_action(self, f):
        plan = super()._start_action(f)
        if plan is not None and plan.target is not None and plan.kind in ("fire", "melee"):
            self.check_target(f, plan)
        return plan

    def check_target(self, f, plan) -> None:
        at = f.position if plan.dest is None else plan.dest
        target = plan.target
        where = f"{f.name} in turn {self.turn} at {at}: {plan.kind} at {target.name}"
        if plan.kind == "melee":
            if plan.dest is None:
                assert math.dist(at, target.position) <= self.melee_range + SLACK, where
            return
        reach = plan.weapon.max_range
        assert math.dist(at, target.position) <= reach + SLACK, where
        policy = f.tactics.target
        if not in_reach_first(f):
            return
        in_reach = self.within(f, reach, at)
        if policy in ("weakest", "most_dangerous"):
            score = self.system.harm if policy == "weakest" else self.system.threat
            assert all(score(e) <= score(target) for e in in_reach), where
        elif policy == "nearest":  # the nearest from where it stands, or fires from
            enemies = self.standing_enemies(f)
            here = min(math.dist(f.position, e.position) for e in enemies)
            there = min(math.dist(at, e.position) for e in enemies)
            assert (
                math.dist(f.position, target.position) <= here + SLACK
                or math.dist(at, target.position) <= there + SLACK
            ), where


@pytest.mark.slow  # (a held action that outlived its score took about 400 maps to show)
@settings(max_examples=examples(400), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(sc=battles(), seed=st.integers(0, 2**32 - 1))
def test_every_decision_on_a_random_map_is_sound(sc, seed):
    DecisionChecked(sc, battle_rng(seed, 0), trace=True).run()


@pytest.mark.slow
@pytest.mark.parametrize("path", SHIPPED, ids=[str(p.relative_to(ROOT)) for p in SHIPPED])
def test_every_decision_of_a_shipped_scenario_is_sound(path):
    scenario = load_scenario(path)
    for i in range(BATTLES):
        DecisionChecked(scenario, battle_rng(scenario.seed, i), index=i, trace=True).run()
