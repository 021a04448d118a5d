"""Every shipped scenario and catalogue still loads and runs, so an example cannot rot.

Each YAML file directly in ``scenarios/`` is a scenario: it must load, name its description,
turn limit and seed, and run a few battles (one of them traced) that end by victory, the turn
limit or a mutual knock-out. For the Shadowrun systems (rulings 6-7) no condition monitor may
hold more than its 10 boxes. Each file in ``scenarios/catalogues/`` must validate, and its
archetypes may only name weapons and armor the same catalogue defines.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from combatsim.engine import run_battle
from combatsim.engine.records import MUTUAL, TURN_LIMIT, VICTORY
from combatsim.rules.shadowrun.system import ClassicShadowrun, ShadowrunD8
from combatsim.scenario import is_catalogue, load_catalogue, load_scenario

SCENARIOS_DIR = Path(__file__).resolve().parent.parent / "scenarios"
SCENARIO_FILES = sorted(SCENARIOS_DIR.glob("*.yaml"))
CATALOGUE_FILES = sorted((SCENARIOS_DIR / "catalogues").glob("*.yaml"))

BATTLES = 12  # a few battles each: enough to reach grenades, melee, karma and knock-outs
MONITOR_BOXES = 10  # ruling 7: Physical and Stun, 10 boxes each

by_name = pytest.mark.parametrize("path", SCENARIO_FILES, ids=lambda p: p.name)


def test_scenarios_are_shipped():
    """The folder holds scenarios (the parametrised tests below would pass vacuously without)."""
    assert len(SCENARIO_FILES) >= 5
    assert CATALOGUE_FILES


@by_name
def test_scenario_loads_with_description_turn_limit_and_seed(path):
    assert not is_catalogue(path)
    scenario = load_scenario(path)
    for key in ("description", "turn_limit", "seed"):
        assert key in scenario.data, f"{path.name} should state its {key}"
    assert scenario.description.strip()
    assert len(scenario.sides) >= 2


@by_name
def test_every_battle_ends_by_victory_turn_limit_or_mutual(path):
    scenario = load_scenario(path)
    sides = {side.name for side in scenario.sides}
    for index in range(BATTLES):
        result = run_battle(scenario, scenario.seed, index, trace=index == 0)
        assert result.end_reason in (VICTORY, TURN_LIMIT, MUTUAL)
        assert 1 <= result.turns <= scenario.turn_limit
        standing = {c["side"] for c in result.combatants if c["standing"]}
        if result.end_reason == VICTORY:
            assert result.winner in sides
            assert standing == {result.winner}
        else:
            assert result.winner is None
        if result.end_reason == MUTUAL:
            assert not standing
        if result.end_reason == TURN_LIMIT:
            assert len(standing) >= 2
            assert result.turns == scenario.turn_limit
        if index == 0:
            assert result.trace, "a traced battle records its events"


@by_name
def test_condition_monitors_never_exceed_ten_boxes(path):
    scenario = load_scenario(path)
    # by name, not isinstance: a compiled build's ABC cache may answer for a base class
    if scenario.system.name not in (ClassicShadowrun.name, ShadowrunD8.name):
        pytest.skip("condition monitors are a Shadowrun rule (ruling 7)")
    for index in range(BATTLES):
        for row in run_battle(scenario, scenario.seed, index).combatants:
            for monitor in ("physical_boxes", "stun_boxes"):
                assert 0 <= row[monitor] <= MONITOR_BOXES, (row["name"], monitor, row[monitor])
            if row["standing"]:
                assert row["physical_boxes"] < MONITOR_BOXES
                assert row["stun_boxes"] < MONITOR_BOXES


@by_name
def test_a_battle_is_the_same_when_run_again(path):
    scenario = load_scenario(path)
    first = run_battle(scenario, scenario.seed, 3)
    again = run_battle(scenario, scenario.seed, 3)
    assert first.battle == again.battle
    assert first.combatants == again.combatants


@pytest.mark.parametrize("path", CATALOGUE_FILES, ids=lambda p: p.name)
def test_catalogue_validates_and_its_archetypes_use_its_own_gear(path):
    sections = load_catalogue(path)
    for name, sheet in sections["archetypes"].items():
        for weapon in sheet.get("weapons", ()):
            assert weapon in sections["weapons"], f"archetype {name}: unknown weapon {weapon}"
        armor = sheet.get("armor")
        known = armor is None or armor in sections["armor"]
        assert known, f"archetype {name}: unknown armor {armor}"
