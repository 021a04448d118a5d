"""A finished battle is freed by reference counting, not left to the cyclic garbage
collector: a batch runs thousands, and collecting their cycles cost about 3% of the time.
(``Battle._tear_down`` and the rule systems' ``end_battle``; only an optimisation, so this
checks that it keeps working, in every rule system.)"""

import gc
import weakref
from pathlib import Path

import pytest

from combatsim.engine.battle import Battle, Fighter
from combatsim.rng import battle_rng
from combatsim.scenario.loader import load_scenario

SCENARIOS = Path(__file__).parents[2] / "scenarios"


class Watched(Battle):
    """A battle that can be referred to weakly (a compiled ``Battle`` cannot itself)."""


@pytest.mark.parametrize(
    "name",
    [
        "sr-firefight-4v4",
        "sr2097-runners-vs-patrol",
        "4d8-dockside-shootout",
        "lost-souls-warehouse-raid",
    ],
)
def test_a_finished_battle_is_freed_without_the_garbage_collector(name):
    scenario = load_scenario(SCENARIOS / f"{name}.yaml")
    gc.collect()
    fighters_before = sum(isinstance(o, Fighter) for o in gc.get_objects())
    gc.disable()
    try:
        refs = []
        for index in range(5):
            battle = Watched(scenario, battle_rng(3, index), index=index)
            result = battle.run()
            assert result.end_reason  # the battle ran to an end
            refs.append(weakref.ref(battle))
            del battle
        assert all(ref() is None for ref in refs)
        assert sum(isinstance(o, Fighter) for o in gc.get_objects()) == fighters_before
    finally:
        gc.enable()
