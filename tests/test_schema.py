"""``combatsim schema``: the JSON Schema accepts every shipped file and refuses unknown keys,
so an editor using it agrees with the loader."""

import copy
import json
from pathlib import Path

import pytest
import yaml
from jsonschema import Draft202012Validator

from combatsim.cli import main
from combatsim.scenario.schema import scenario_schema

ROOT = Path(__file__).resolve().parents[1]
SCENARIOS = sorted((ROOT / "scenarios").glob("*.yaml"))
CATALOGUES = sorted((ROOT / "scenarios" / "catalogues").glob("*.yaml"))


def _system(data: dict) -> str:
    return data.get("rules", {}).get("system", "sr-classic")


def _errors(schema: dict, data) -> list[str]:
    Draft202012Validator.check_schema(schema)
    return [e.message for e in Draft202012Validator(schema).iter_errors(data)]


@pytest.mark.slow
@pytest.mark.parametrize("path", SCENARIOS, ids=lambda p: p.name)
def test_every_shipped_scenario_fits_its_systems_schema(path):
    data = yaml.safe_load(path.read_text(encoding="utf-8"))
    assert _errors(scenario_schema(_system(data)), data) == []
    assert _errors(scenario_schema(), data) == []


@pytest.mark.parametrize("path", CATALOGUES, ids=lambda p: p.name)
def test_every_shipped_catalogue_fits_its_systems_schema(path):
    data = yaml.safe_load(path.read_text(encoding="utf-8"))
    assert _errors(scenario_schema(data["system"], catalogue=True), data) == []


@pytest.mark.parametrize(
    "where",
    [
        ("sidez",),
        ("environment", "visiblity"),
        ("rules", "options", "wound_modifierz"),
        ("sides", 0, "tactics", "dodg"),
        ("sides", 0, "members", 0, "skils"),
        ("sides", 0, "members", 0, "skills", "firarms"),
        ("sides", 0, "members", 0, "tactics", "rules", "edge"),  # 2097's, not sr-classic's
    ],
    ids=lambda w: ".".join(map(str, w)),
)
def test_the_schema_refuses_an_unknown_key(where):
    data = yaml.safe_load((ROOT / "scenarios" / "sr-firefight-4v4.yaml").read_text())
    bad = copy.deepcopy(data)
    node = bad
    for key in where[:-1]:
        node = node.setdefault(key, {}) if isinstance(key, str) else node[key]
    node[where[-1]] = 1
    errors = _errors(scenario_schema("sr-classic"), bad)
    assert errors == [f"Additional properties are not allowed ({where[-1]!r} was unexpected)"]


def test_a_member_overrides_one_skill_but_an_archetype_must_be_whole():
    data = yaml.safe_load((ROOT / "scenarios" / "sr-firefight-4v4.yaml").read_text())
    schema = scenario_schema("sr-classic")
    data["sides"][0]["members"][0]["skills"] = {"firearms": 7}
    assert _errors(schema, data) == []
    data["archetypes"] = {"rookie": {"skills": {"firearms": 2}}}
    assert _errors(schema, data)  # no attributes


def test_schema_command_prints_json(capsys):
    assert main(["schema", "sr2097"]) == 0
    schema = json.loads(capsys.readouterr().out)
    assert schema["$schema"].endswith("2020-12/schema")
    assert schema["properties"]["rules"]["properties"]["system"] == {"const": "sr2097"}


def test_schema_of_an_unknown_system_suggests_one(capsys):
    assert main(["schema", "sr2079"]) == 2
    assert "did you mean 'sr2097'?" in capsys.readouterr().err


@pytest.mark.parametrize("system", ["sr-classic", "sr-d8"])
def test_schema_command_shows_the_karma_reroll_option_with_the_rulings_default(system, capsys):
    """Ruling 26's switch, on by default, is in the schema an editor reads, and the schema
    accepts it as a scenario writes it (YAML's on/off are booleans)."""
    assert main(["schema", system]) == 0
    schema = json.loads(capsys.readouterr().out)
    ref = schema["properties"]["rules"]["properties"]["options"]["$ref"]
    option = schema["$defs"][ref.split("/")[-1]]["properties"]["karma_reroll_fumbles"]
    assert option["default"] is True and "ruling 26" in option["description"]
    data = yaml.safe_load((ROOT / "scenarios" / "sr-firefight-4v4.yaml").read_text())
    data["rules"] = {"system": system, "options": yaml.safe_load("{karma_reroll_fumbles: off}")}
    assert _errors(scenario_schema(system), data) == []
