"""Big fights (``SHARED_LISTS`` fighters and more) keep each side's standing enemies and their
positions (a numpy array for finding candidates) up to date move by move, and measure the
meters to an enemy with math.dist only when a tactic reads them. They must give exactly the
battles, and the traces, that the one-pass path of small fights gives."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from combatsim.engine import battle, run_battle
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


@pytest.mark.parametrize("per_side", [40, 60])
@pytest.mark.parametrize("targets", [("focus", "weakest"), ("nearest", "focus")])
def test_big_fight_path_gives_the_same_battles(tmp_path, monkeypatch, per_side, targets):
    scenario = _walking_fight(tmp_path, per_side, targets)
    monkeypatch.setattr(battle, "SHARED_LISTS", 10**9)  # the one-pass path
    one_pass = _battles(scenario)
    monkeypatch.setattr(battle, "SHARED_LISTS", 0)  # the big-fight path
    shared = _battles(scenario)
    assert shared == one_pass
    assert any(r[1] and r[0]["turns"] > 1 for r in one_pass)
    moved = [e for r in one_pass for e in r[2] if e.kind == "move"]
    assert moved  # they walked
