"""Big fights (``SHARED_LISTS`` fighters and more) keep each side's standing enemies and their
positions (a numpy array for finding candidates) up to date move by move, and measure the
meters to an enemy with math.dist only when a tactic reads them. They must give exactly the
battles, and the traces, that the one-pass path of small fights gives."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
import yaml

from combatsim.engine import field, run_battle
from combatsim.scenario import load_scenario

ROOT = Path(__file__).resolve().parents[2]


def _walking_fight(tmp_path, per_side, targets, gap=36.0):
    """Two sides ``gap`` meters apart that advance on each other past cover, in columns."""
    data = yaml.safe_load((ROOT / "scenarios" / "sr-firefight-4v4.yaml").read_text())
    data["catalogues"] = [str(ROOT / "scenarios" / "catalogues" / "sr-classic.yaml")]
    data["turn_limit"] = 8
    data["environment"]["cover_points"] = [
        {"position": [gap / 2 + dx, y], "cover": cover}
        for dx, cover in ((-6, "partial"), (6, "full"))
        for y in range(0, 30, 5)
    ]
    archetypes = ("ganger_brawler", "ganger")
    for s, side in enumerate(data["sides"]):
        side["tactics"] = dict(side["tactics"], target=targets[s], movement="advance")
        rows = 4
        side["members"] = [
            {
                "name": f"S{s} row {r}",
                "archetype": archetypes[s],
                "count": per_side // rows,
                "position": [r if s == 0 else gap - r, 0.5 * r],
                "spacing": [0, 2],
            }
            for r in range(rows)
        ]
    path = tmp_path / "big.yaml"
    path.write_text(yaml.safe_dump(data))
    return load_scenario(path)


def _battles(scenario):
    results = [run_battle(scenario, 5, i, trace=True) for i in range(2)]
    return [(r.battle, r.combatants, r.trace) for r in results]


@pytest.mark.parametrize("per_side", [40, pytest.param(60, marks=pytest.mark.slow)])
@pytest.mark.parametrize("targets", [("focus", "weakest"), ("nearest", "focus")])
def test_big_fight_path_gives_the_same_battles(tmp_path, monkeypatch, per_side, targets):
    scenario = _walking_fight(tmp_path, per_side, targets)
    monkeypatch.setattr(field, "SHARED_LISTS", 10**9)  # the one-pass path
    one_pass = _battles(scenario)
    monkeypatch.setattr(field, "SHARED_LISTS", 0)  # the big-fight path
    shared = _battles(scenario)
    assert shared == one_pass
    assert any(r[1] and r[0]["turns"] > 1 for r in one_pass)
    moved = [e for r in one_pass for e in r[2] if e.kind == "move"]
    assert moved  # they walked


def test_big_fight_measures_are_math_dist_even_at_the_edges(monkeypatch):
    """Enemies at exactly the melee range, at equal distances and at awkward coordinates:
    the nearest (first of equals), the count in reach and ``within`` are math.dist's."""
    import math
    import random

    from combatsim.engine.battle import Battle
    from combatsim.engine.field import _Meters

    scenario = load_scenario(ROOT / "scenarios" / "sr-firefight-4v4.yaml")
    monkeypatch.setattr(field, "SHARED_LISTS", 0)
    b = Battle(scenario, np.random.default_rng(1))
    me = b.fighters[0]
    enemies = [f for f in b.fighters if f.side != me.side]
    rng = random.Random(3)
    reach = b.melee_range
    for _ in range(300):
        here = (rng.uniform(-1e5, 1e5) * rng.choice([1, 1e-5]), rng.uniform(-50, 50))
        me.position = here
        angle = [rng.uniform(0, 2 * math.pi) for _ in enemies]
        dists = [rng.choice([reach, reach, 0.1 + 0.3 * k]) for k in range(len(enemies))]
        for e, a, d in zip(enemies, angle, dists, strict=True):
            e.position = (here[0] + d * math.cos(a), here[1] + d * math.sin(a))
            b.field.moved(e)  # as ``move`` keeps the grid
        b.field.roster += 1
        view = b.enemies_in_view(me)
        seen, meters, nearest, in_reach = view.enemies, view.meters, view.nearest, view.in_reach
        exact = {e.index: math.dist(here, e.position) for e in enemies}
        assert seen == enemies and isinstance(meters, _Meters)
        assert nearest is min(enemies, key=lambda e: exact[e.index])
        assert in_reach == sum(1 for d in exact.values() if d <= reach)
        for r in (reach, *exact.values()):
            assert meters.within(seen, r) == [e for e in enemies if exact[e.index] <= r]
        assert {e.index: meters[e.index] for e in enemies} == exact


def test_copies_far_apart_give_the_same_battles(tmp_path, monkeypatch):
    """bench_growth's battles with the copies 200 m apart (out of each other's reach): once
    a copy's fight is over, its winners look for enemies beyond the grid's rings (its
    coarser levels) and hold their fire while the other copies fight; the battles are the
    one-pass path's."""
    monkeypatch.syspath_prepend(str(ROOT / "benchmarks"))
    import bench_growth

    scenario = bench_growth._load(bench_growth.growth_scenario(16, 200.0), tmp_path, "far")
    monkeypatch.setattr(field, "SHARED_LISTS", 10**9)  # the one-pass path
    one_pass = _battles(scenario)
    monkeypatch.setattr(field, "SHARED_LISTS", 0)  # the big-fight path, with its grid
    assert _battles(scenario) == one_pass
    assert any(r[0]["turns"] > 3 for r in one_pass)
