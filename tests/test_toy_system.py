"""A sixth rule system in new files only: the toy of ``tests/toy_system`` (coin flips for
hits, one point of damage) runs through the command line and the library like a shipped one,
found through the registry: registered in this process, or installed as an entry point.

``docs/writing-a-rule-system.md`` shows the toy's files; the test here holds it to them.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
import yaml
from jsonschema import Draft202012Validator

import combatsim
from combatsim.cli import main
from combatsim.errors import ScenarioError
from combatsim.rules import registry
from combatsim.scenario import build_scenario, load_scenario
from tests.toy_system.odds import COINS
from tests.toy_system.rules import CoinFlips

ROOT = Path(__file__).resolve().parents[1]
TOY = ROOT / "tests" / "toy_system"
DUEL = TOY / "duel.yaml"
DOC = ROOT / "docs" / "writing-a-rule-system.md"


@pytest.fixture
def toy():
    """The toy registered for one test, and forgotten after it."""
    registry.register(CoinFlips)
    registry.register_odds(COINS)
    yield CoinFlips
    registry.unregister(CoinFlips.name)
    registry.unregister_odds(COINS.name)


def duel(**changes) -> dict:
    data = yaml.safe_load(DUEL.read_text(encoding="utf-8"))
    data.update(changes)
    return data


def test_the_toy_is_unknown_until_registered():
    assert registry.system_class("coin-flips") is None
    with pytest.raises(ScenarioError, match="rules.system: found 'coin-flips'"):
        load_scenario(DUEL)


def test_validate_and_run_on_the_command_line(toy, tmp_path, capsys):
    assert main(["validate", str(DUEL)]) == 0
    assert "system coin-flips" in capsys.readouterr().out
    out = tmp_path / "out"
    assert main(["run", str(DUEL), "--battles", "40", "--out", str(out), "--quiet"]) == 0
    battles = (out / "battles.csv").read_text().splitlines()
    assert battles[0] == "battle,winner,end_reason,turns,survivors_north,survivors_south"
    assert len(battles) == 41
    combatants = (out / "combatants.csv").read_text().splitlines()
    assert {row.split(",")[1] for row in combatants[1:]} == {"Ada", "Bo"}


def test_the_library_runs_its_battles_and_every_hit_takes_one_point(toy):
    result = combatsim.simulate(str(DUEL), 60, workers=1, quiet=True)
    sides = result.summary["sides"]
    draws = result.summary["draws"]["count"]
    assert sides["north"]["wins"] + sides["south"]["wins"] + draws == 60
    fighters = result.combatants
    assert (fighters["damage_dealt"] == fighters["hits"]).all()  # one point a hit
    assert (fighters["hits"] <= fighters["shots"]).all()
    assert set(fighters["status"]) <= {"up", "down"}
    hit_rate = fighters["hits"].sum() / fighters["shots"].sum()
    assert 0.35 < hit_rate < 0.65  # heads on a fair coin


def test_list_and_schema_know_the_toy(toy, capsys):
    assert main(["list"]) == 0
    assert "coin-flips" in capsys.readouterr().out
    assert main(["schema", "coin-flips"]) == 0
    schema = json.loads(capsys.readouterr().out)
    validator = Draft202012Validator(schema)
    assert list(validator.iter_errors(duel())) == []
    bad = duel()
    bad["sides"][0]["members"][0]["healht"] = 3
    assert [e.message for e in validator.iter_errors(bad)] == [
        "Additional properties are not allowed ('healht' was unexpected)"
    ]


def test_odds_offers_the_toy_s_calculator(toy, capsys):
    assert main(["odds", "coins", "--flips", "3", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["hits"] == [0.125, 0.375, 0.375, 0.125]


def test_a_system_without_grenade_rules_refuses_a_grenade_in_one_line(toy, capsys, tmp_path):
    weapons = {"pistol": {"kind": "firearm", "max_range": 30}, "bomb": {"kind": "grenade"}}
    data = duel(weapons=weapons)
    data["sides"][1]["members"][0]["weapons"] = ["pistol", "bomb"]
    path = tmp_path / "bomb.yaml"
    path.write_text(yaml.safe_dump(data), encoding="utf-8")
    assert main(["validate", str(path)]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1
    assert "members[0].weapons[1]: found 'bomb', a grenade; allowed: a firearm or melee" in err
    assert "coin-flips has no grenade rules" in err


def test_a_misspelt_system_gets_a_did_you_mean(toy):
    with pytest.raises(ScenarioError, match=r"\(did you mean 'coin-flips'\?\)"):
        build_scenario(duel(rules={"system": "coin-flip"}), "<test>", TOY)


def test_shadowrun_s_former_tactics_are_ignored_by_a_system_that_does_not_read_them(toy):
    data = duel()
    data["sides"][0]["tactics"] = {"dodge": "all", "karma": "never", "sweep": True}
    fighter = build_scenario(data, "<test>", TOY).fighters[0]
    assert fighter.rule_tactics is None and fighter.tactics.rules == {}
    data["sides"][0]["tactics"] = {"rules": {"dodge": "all"}}
    with pytest.raises(ScenarioError, match="coin-flips has no rule-specific tactics"):
        build_scenario(data, "<test>", TOY)


@pytest.mark.slow  # four fresh interpreters
def test_an_installed_entry_point_is_found_without_registering(tmp_path):
    """A distribution on the path declaring the toy in ``combatsim.rule_systems`` and
    ``combatsim.odds``, as ``pip install`` of a package of its own would."""
    dist = tmp_path / "toy_rules-1.0.dist-info"
    dist.mkdir()
    (dist / "METADATA").write_text("Metadata-Version: 2.1\nName: toy-rules\nVersion: 1.0\n")
    (dist / "entry_points.txt").write_text(
        "[combatsim.rule_systems]\ncoin-flips = tests.toy_system.rules:CoinFlips\n\n"
        "[combatsim.odds]\ncoins = tests.toy_system.odds:COINS\n"
    )
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT), str(tmp_path)])}
    out = tmp_path / "out"
    for argv in (
        ["validate", str(DUEL)],
        ["run", str(DUEL), "--battles", "5", "--out", str(out), "--quiet", "--workers", "1"],
        ["odds", "coins", "--flips", "2"],
        ["list"],
    ):
        done = subprocess.run(
            [sys.executable, "-m", "combatsim", *argv], env=env, capture_output=True, text=True
        )
        assert done.returncode == 0, done.stderr
    assert "rule systems: 4d8, coin-flips, lost-souls" in done.stdout
    assert len((out / "battles.csv").read_text().splitlines()) == 6


def _shown_files() -> dict[str, str]:
    """The code blocks of the page that follow a line naming a file of the toy."""
    text = DOC.read_text(encoding="utf-8")
    blocks = re.findall(r"`(tests/toy_system/[\w./]+)`:\n\n```\w*\n(.*?)```", text, re.S)
    return dict(blocks)


def test_the_page_shows_every_file_of_the_toy_as_it_is():
    shown = _shown_files()
    files = {
        str(p.relative_to(ROOT)): p.read_text(encoding="utf-8")
        for p in sorted(TOY.iterdir())
        if p.suffix in (".py", ".yaml") and p.name != "__init__.py"
    }
    assert shown.keys() == files.keys()
    for name, text in files.items():
        assert shown[name] == text, f"{name} differs from the page"


@pytest.mark.slow
def test_a_type_checker_holds_the_toy_to_the_contract(tmp_path):
    """mypy passes the toy as written, and refuses a copy whose ``movement`` answers with the
    wrong type (the project's mypy settings, run from the repository root)."""
    broken = tmp_path / "broken_rules.py"
    text = (TOY / "rules.py").read_text(encoding="utf-8")
    wrong = "    def movement(self, fighter: Fighter) -> str:\n        return 'far'\n\n"
    broken.write_text(text.replace("    def movement(", wrong + "    def _unused(", 1))
    command = [sys.executable, "-m", "mypy", "--cache-dir", str(tmp_path / "cache")]
    for path, clean in ((TOY / "rules.py", True), (broken, False)):
        done = subprocess.run(
            [*command, str(path)], cwd=ROOT, capture_output=True, text=True, timeout=600
        )
        mine = [line for line in done.stdout.splitlines() if line.startswith(str(path))]
        if clean:
            assert mine == [], done.stdout
        else:
            assert any("incompatible with return type" in line for line in mine), done.stdout
