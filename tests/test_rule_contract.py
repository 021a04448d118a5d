"""What the engine, the tactics and the loader ask of a rule system rather than assume: the
initiative scale, whether running stops shooting, whether autofire sweeps, which tactics are
the system's own, and the registry that finds systems by name."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from combatsim.engine.battle import Battle, run_battle
from combatsim.errors import ScenarioError
from combatsim.rng import battle_rng
from combatsim.rules import registry
from combatsim.rules.base import (
    Autofire,
    ExactHooks,
    Explainable,
    ExtraColumns,
    Grenades,
    RuleSystem,
    StartingConditions,
    WoundPenalties,
)
from combatsim.scenario import build_scenario, load_scenario
from combatsim.scenario.schema import scenario_schema
from combatsim.tactics.policies import plan_action
from tests.toy_system.rules import CoinFlips

ROOT = Path(__file__).resolve().parents[1]
DUEL = ROOT / "tests" / "toy_system" / "duel.yaml"
FIREFIGHT = ROOT / "scenarios" / "sr-firefight-4v4.yaml"
RAID = ROOT / "scenarios" / "lost-souls-warehouse-raid.yaml"


def data_of(path: Path) -> dict:
    return yaml.safe_load(path.read_text(encoding="utf-8"))


def build(data: dict, base: Path = ROOT / "scenarios"):
    return build_scenario(data, str(base / "x.yaml"), base)


@pytest.fixture
def system(request):
    """A variant of the toy, registered under the toy's name for one test."""
    cls = request.param
    registry.register(cls)
    yield cls
    registry.unregister(cls.name)


class AlwaysFifty(CoinFlips):
    def initiative(self, battle, fighter):
        return [50]


class WideScale(CoinFlips):
    initiative_top = 1000

    def initiative(self, battle, fighter):
        return [500]


def scores(scenario) -> set[int]:
    result = run_battle(scenario, scenario.seed, 0, trace=True)
    return {e.score for e in result.trace if e.kind == "decide"}


@pytest.mark.parametrize("system", [AlwaysFifty], indirect=True)
def test_a_score_above_the_system_s_top_acts_at_the_top(system):
    assert scores(load_scenario(DUEL)) == {CoinFlips.initiative_top}


@pytest.mark.parametrize("system", [WideScale], indirect=True)
def test_the_scale_is_the_system_s_not_shadowrun_s_hundred(system):
    assert scores(load_scenario(DUEL)) == {500}


class ShootsOnTheRun(CoinFlips):
    running_stops_shooting = False


class StopsOnTheRun(CoinFlips):
    running_stops_shooting = True


@pytest.mark.parametrize(
    "system, plan", [(ShootsOnTheRun, "fire"), (StopsOnTheRun, "none")], indirect=["system"]
)
def test_whether_a_running_fighter_may_shoot_is_the_system_s_rule(system, plan):
    battle = Battle(load_scenario(DUEL), battle_rng(7, 0), index=0)
    shooter = battle.fighters[0]
    shooter.running = shooter.ran_this_turn = True
    assert plan_action(battle, shooter).kind == plan


def test_every_shipped_system_keeps_seed_002_s_running_rule():
    for name in registry.system_names():
        assert registry.system_class(name).running_stops_shooting, name


def side_tactics(data: dict, side: int = 0, member: int = 0):
    return build(data).sides[side].fighters[member]


def test_shadowrun_reads_its_own_tactics_under_rules_or_at_the_top():
    data = data_of(FIREFIGHT)
    data["sides"][0]["tactics"] = {"dodge": "none", "sweep": True}
    fighter = side_tactics(data)
    assert (fighter.rule_tactics.dodge, fighter.rule_tactics.sweep) == ("none", True)
    assert not hasattr(fighter.tactics, "dodge")
    data["sides"][0]["tactics"] = {"dodge": "none", "rules": {"dodge": "all"}}
    assert side_tactics(data).rule_tactics.dodge == "all"  # rules: wins at one level
    data["sides"][0]["members"][0]["tactics"] = {"dodge": "half"}
    assert side_tactics(data).rule_tactics.dodge == "half"  # a member's key wins over its side


def test_a_bad_value_at_the_top_is_reported_where_it_is_written():
    data = data_of(FIREFIGHT)
    data["sides"][0]["tactics"] = {"dodge": "matc"}
    with pytest.raises(ScenarioError) as caught:
        build(data)
    assert "sides[0].tactics.dodge: found 'matc' (did you mean 'match'?)" in str(caught.value)


def test_other_systems_ignore_shadowrun_s_keys_at_the_top_and_the_schema_says_so():
    data = data_of(RAID)
    data["sides"][0]["tactics"]["karma"] = "survive"  # Shadowrun's, not Lost Souls' own
    fighter = side_tactics(data)
    assert fighter.rule_tactics.karma == "when_penalized"  # its tactics.rules.karma
    assert tactics_schema("lost-souls")["karma"]["deprecated"] is True
    assert tactics_schema("sr-classic")["karma"]["enum"] == ["never", "survive", "attack", "both"]


def tactics_schema(system: str) -> dict:
    """The properties the system's schema allows in a side's ``tactics:``."""
    schema = scenario_schema(system)
    ref = schema["$defs"]["SideSpecFile"]["properties"]["tactics"]["$ref"]
    return schema["$defs"][ref.split("/")[-1]]["properties"]


def test_only_shadowrun_sweeps():
    sweepers = {n for n in registry.system_names() if _sweeps(registry.system_class(n))}
    assert sweepers == {"sr-classic", "sr-d8"}


def _sweeps(cls: type[RuleSystem]) -> bool:
    return issubclass(cls, Autofire) and cls.autofire_sweeps is not Autofire.autofire_sweeps


def _having(capability: type) -> set[str]:
    return {n for n in registry.system_names() if issubclass(registry.system_class(n), capability)}


def test_capabilities_are_what_each_shipped_system_has_and_the_toy_has_none():
    every = {"sr-classic", "sr-d8", "sr2097", "4d8", "lost-souls"}
    assert _having(Grenades) == every - {"sr2097"}
    assert _having(WoundPenalties) == {"sr-classic", "sr-d8"}  # the others' wounds cost dice
    assert _having(Autofire) == {"sr-classic", "sr-d8", "sr2097"}
    for capability in (StartingConditions, Explainable, ExtraColumns, ExactHooks):
        assert _having(capability) == every, capability.__name__
    capabilities = (Grenades, WoundPenalties, Autofire, StartingConditions, Explainable)
    assert not any(issubclass(CoinFlips, c) for c in (*capabilities, ExtraColumns, ExactHooks))


def test_the_required_methods_are_the_ones_the_page_lists_and_python_enforces_them():
    required = {
        "new_state", "initiative", "can_act", "status", "movement", "threat", "harm",
        "ranged_attack", "melee_attack",
    }  # fmt: skip
    assert RuleSystem.__abstractmethods__ == required
    page = (ROOT / "docs" / "writing-a-rule-system.md").read_text(encoding="utf-8")
    assert all(f"`{name}(" in page for name in required)
    capabilities = {
        Grenades: {"throw_grenade", "grenade_blast", "blast_radius"},
        WoundPenalties: {"initiative_penalty"},
        Autofire: {"max_autofire"},
        StartingConditions: {"check_start", "down_at", "down_wounds", "apply_start", "carried"},
        Explainable: {"levers"},
        ExtraColumns: {"record"},
        ExactHooks: {"condition"},
    }
    for capability, methods in capabilities.items():
        assert capability.__abstractmethods__ == methods, capability.__name__
        assert f"`{capability.__name__}`" in page, capability.__name__
        assert all(f"`{name}(" in page for name in methods), capability.__name__

    class Empty(RuleSystem):
        name = "empty"

    with pytest.raises(TypeError, match="abstract method"):
        Empty(CoinFlips.Options())


def test_a_registered_system_wins_over_a_shipped_one_of_its_name():
    class Impostor(CoinFlips):
        name = "sr2097"

    registry.register(Impostor)
    try:
        assert registry.system_class("sr2097") is Impostor
    finally:
        registry.unregister("sr2097")
    assert registry.system_class("sr2097").__module__ == "combatsim.rules.sr2097.system"


def test_a_reference_to_something_not_a_rule_system_is_a_clear_error(monkeypatch):
    monkeypatch.setitem(registry._built_in("SYSTEMS"), "bogus", "combatsim.errors:UsageError")
    with pytest.raises(TypeError, match="not a RuleSystem subclass whose name is 'bogus'"):
        registry.system_class("bogus")
