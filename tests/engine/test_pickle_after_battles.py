"""A scenario that has run battles still pickles, and its copy runs the same battles.

Rule systems and the engine keep per-scenario caches (derived sheet values, the last
battle's dice counter); worker processes receive the scenario pickled, often after the
parent has run battles of it (a traced replay, a sweep's baseline). Whatever a cache holds
must not stop the pickling nor change a battle.
"""

import pickle
from pathlib import Path

import pytest

from combatsim.engine.battle import run_battle
from combatsim.scenario.loader import load_scenario

SCENARIOS = sorted((Path(__file__).parents[2] / "scenarios").glob("*.yaml"))


@pytest.mark.parametrize("path", SCENARIOS, ids=lambda p: p.stem)
def test_scenario_pickles_after_battles_and_runs_the_same(path):
    scenario = load_scenario(path)
    for index in range(3):
        run_battle(scenario, 11, index)
    copy = pickle.loads(pickle.dumps(scenario))
    for index in (3, 4):
        assert run_battle(copy, 11, index).combatants == run_battle(scenario, 11, index).combatants
