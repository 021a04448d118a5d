"""A rule system that says its wounds never move initiative (``initiative_penalties =
False``, so the engine never asks) must indeed give a penalty of 0 to every fighter, hurt
or not, in every shipped scenario of it."""

from pathlib import Path

import pytest

from combatsim.engine.battle import Battle
from combatsim.rng import battle_rng
from combatsim.scenario.loader import load_scenario

SCENARIOS = sorted((Path(__file__).parents[2] / "scenarios").glob("*.yaml"))


@pytest.mark.parametrize("path", SCENARIOS, ids=lambda p: p.stem)
def test_a_system_without_initiative_penalties_never_has_one(path):
    scenario = load_scenario(path)
    system = scenario.system
    if system.initiative_penalties:
        pytest.skip(f"{system.name}: wounds can move initiative")
    hurt = 0
    for index in range(20):
        battle = Battle(scenario, battle_rng(5, index), index=index)
        battle.run()
        for f in battle.fighters:
            hurt += f.damage_taken > 0
            assert system.initiative_penalty(f) == 0
    assert hurt, "no fighter was hurt: the check saw no wounds"
