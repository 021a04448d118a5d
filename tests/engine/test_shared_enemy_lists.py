"""Large fights list a side's standing enemies once for all its fighters (``SHARED_LISTS``);
small ones measure in one pass per fighter. Both must give the same battles."""

from __future__ import annotations

from pathlib import Path

import pytest

from combatsim.engine import field, run_battle
from combatsim.scenario import load_scenario

ROOT = Path(__file__).resolve().parents[2]
SCENARIOS = ["sr-firefight-4v4.yaml", "sr-grenade-ambush.yaml", "lost-souls-warehouse-raid.yaml"]


@pytest.mark.parametrize("name", SCENARIOS)
def test_shared_enemy_lists_give_the_same_battles(name, monkeypatch):
    scenario = load_scenario(ROOT / "scenarios" / name)
    one_pass = [run_battle(scenario, 11, i) for i in range(12)]
    monkeypatch.setattr(field, "SHARED_LISTS", 0)
    shared = [run_battle(scenario, 11, i) for i in range(12)]
    assert [(r.battle, r.combatants) for r in shared] == [
        (r.battle, r.combatants) for r in one_pass
    ]
