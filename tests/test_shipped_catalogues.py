"""The catalogues are installed with the package and a scenario names them by system, so
``list``, ``schema`` and a scenario written in any folder work outside the source checkout."""

from __future__ import annotations

import fnmatch
import json
import os
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

from combatsim.errors import ScenarioError
from combatsim.scenario import load_scenario
from combatsim.scenario.shipped import FOLDER, is_bare_name, shipped_names

ROOT = Path(__file__).resolve().parents[1]
COPIES = ROOT / "scenarios" / "catalogues"

ANYWHERE = """\
name: anywhere
catalogues: [{catalogue}]
rules: {{system: sr-classic}}
sides:
  - name: runners
    members: [{{archetype: street_samurai}}]
  - name: guards
    members: [{{archetype: corp_guard, count: 2}}]
"""


# Each command's exit code, stdout and stderr, from main() in one fresh interpreter: a test's
# commands share it (an interpreter that imports the package costs a third of a second).
COMMANDS = """
import contextlib, io, json, sys
from combatsim.cli import main
results = []
for argv in json.loads(sys.argv[1]):
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            code = main(argv)
        except SystemExit as stop:
            code = stop.code
    results.append([code, out.getvalue(), err.getvalue()])
sys.__stdout__.write(json.dumps(results))
"""


def combatsim(cwd: Path, *commands: list[str]) -> list[subprocess.CompletedProcess]:
    """The CLI's ``commands``, in order, in a fresh interpreter whose working folder is
    ``cwd`` (not the checkout)."""
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    done = subprocess.run(
        [sys.executable, "-c", COMMANDS, json.dumps(commands)],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    return [
        subprocess.CompletedProcess(argv, code, out, err)
        for argv, (code, out, err) in zip(commands, json.loads(done.stdout), strict=True)
    ]


def test_each_system_with_a_catalogue_ships_one_by_name():
    assert shipped_names() == ["4d8", "lost-souls", "sr-classic", "sr2097"]


def test_the_copies_in_scenarios_equal_the_installed_catalogues():
    """``scenarios/catalogues/`` is the copy a user edits; the package's files are the source."""
    copies = sorted(p.name for p in COPIES.glob("*.yaml"))
    assert copies == sorted(p.name for p in FOLDER.glob("*.yaml"))
    for name in copies:
        assert (COPIES / name).read_bytes() == (FOLDER / name).read_bytes(), name


def test_package_data_installs_every_catalogue():
    """pyproject's package-data globs (relative to the package) match each shipped file, so
    ``pip install`` puts them next to the code."""
    config = tomllib.loads((ROOT / "pyproject.toml").read_text())
    globs = config["tool"]["setuptools"]["package-data"]["combatsim"]
    for path in FOLDER.glob("*.yaml"):
        relative = path.relative_to(ROOT / "combatsim").as_posix()
        assert any(fnmatch.fnmatch(relative, g) for g in globs), relative


@pytest.mark.parametrize(
    "entry, bare",
    [("sr-classic", True), ("sr-classic.yaml", False), ("catalogues/sr-classic", False)],
)
def test_only_a_name_without_folder_or_yaml_ending_is_a_shipped_name(entry, bare):
    assert is_bare_name(entry) is bare


def test_list_and_schema_work_from_any_folder(tmp_path):
    listed, system, schema = combatsim(tmp_path, ["list"], ["list", "sr2097"], ["schema", "sr-d8"])
    assert listed.returncode == 0, listed.stderr
    assert "sr-classic   for sr-classic, sr-d8" in listed.stdout
    for name in shipped_names():
        assert str(FOLDER / f"{name}.yaml") in listed.stdout
    assert system.returncode == 0, system.stderr
    assert "weapons (" in system.stdout and "assault_rifle" in system.stdout
    assert schema.returncode == 0, schema.stderr
    described = json.loads(schema.stdout)["properties"]["catalogues"]["description"]
    assert described.startswith("a shipped catalogue's name (sr-classic) or a path")


def test_a_scenario_in_any_folder_names_a_shipped_catalogue(tmp_path, monkeypatch):
    from combatsim.cli import main

    (tmp_path / "x.yaml").write_text(ANYWHERE.format(catalogue="sr-classic"))
    checked, listed = combatsim(tmp_path, ["validate", "x.yaml"], ["list", "x.yaml"])
    assert checked.returncode == 0, checked.stderr
    assert f"from {FOLDER / 'sr-classic.yaml'}" in listed.stdout
    # and it runs there (here: the fresh interpreter's start-up checked, its run costs 0.6 s)
    monkeypatch.chdir(tmp_path)
    assert main(["run", "x.yaml", "--battles", "5", "--workers", "1", "--quiet"]) == 0


def test_a_shipped_name_loads_the_same_scenario_as_the_path(tmp_path):
    from combatsim.scenario import build_scenario
    from combatsim.scenario.yamlio import parse_yaml

    by_name = tmp_path / "name.yaml"
    by_name.write_text(ANYWHERE.format(catalogue="sr-classic"))
    text = ANYWHERE.format(catalogue="catalogues/sr-classic.yaml")  # beside scenarios/
    data, lines = parse_yaml(text, "by-path.yaml")
    expected = build_scenario(data, "by-path.yaml", COPIES.parent, lines)
    assert load_scenario(by_name).sides == expected.sides


def test_an_unknown_name_is_one_line_with_a_suggestion(tmp_path):
    (tmp_path / "x.yaml").write_text(ANYWHERE.format(catalogue="sr-clasic"))
    (checked,) = combatsim(tmp_path, ["validate", "x.yaml"])
    assert checked.returncode != 0
    lines = [x for x in checked.stderr.splitlines() if x.strip()]
    assert len(lines) == 1, checked.stderr
    assert "x.yaml:2: catalogues[0]: found 'sr-clasic' (did you mean 'sr-classic'?)" in lines[0]
    assert "a shipped catalogue (4d8, lost-souls, sr-classic, sr2097)" in lines[0]


def test_a_served_folder_lets_a_scenario_name_a_shipped_catalogue(tmp_path):
    """The web page's folder fence keeps paths inside the folder; a shipped name is no path."""

    from combatsim.serve.folder import Outside, Served

    served = Served(tmp_path)
    text = ANYWHERE.format(catalogue="sr-classic")
    assert served.load_text(text).sides[0].fighters
    (tmp_path / "x.yaml").write_text(text)
    assert served.load("x.yaml").name == "anywhere"
    with pytest.raises(Outside):  # a path out of the folder is still refused
        served.load_text(ANYWHERE.format(catalogue="../x.yaml"))


def test_a_copied_scenario_whose_catalogue_path_is_gone_is_offered_the_name(tmp_path):
    """A shipped scenario copied out of the checkout names ``catalogues/sr-classic.yaml``,
    which is not beside it: the error points to the shipped name."""
    (tmp_path / "x.yaml").write_text(ANYWHERE.format(catalogue="catalogues/sr-classic.yaml"))
    with pytest.raises(ScenarioError, match="did you mean 'sr-classic', the shipped catalogue"):
        load_scenario(tmp_path / "x.yaml")
