"""``combatsim run SCENARIO --set PATH=VALUE``: a variant run (or traced) without copying the
file, with the same numbers as the copy, and its mistakes refused in one line."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml

from combatsim.cli import main

ROOT = Path(__file__).resolve().parents[1]
SCENARIO = ROOT / "scenarios" / "sr-firefight-4v4.yaml"
GUARDS = "sides[1].members[1].count=5"
BATTLES = ["--battles", "40", "--workers", "1", "--quiet"]


@pytest.fixture
def copy_with_five_guards(tmp_path) -> Path:
    """The 4v4 written out again with five guards, its catalogues named from where it is."""
    data = yaml.safe_load(SCENARIO.read_text())
    data["catalogues"] = [str(SCENARIO.parent / rel) for rel in data["catalogues"]]
    data["sides"][1]["members"][1]["count"] = 5
    copy = tmp_path / "copy.yaml"
    copy.write_text(yaml.safe_dump(data, sort_keys=False))
    return copy


def test_set_gives_the_numbers_of_an_edited_copy(tmp_path, copy_with_five_guards):
    assert (
        main(["run", str(SCENARIO), "--set", GUARDS, "--out", str(tmp_path / "set"), *BATTLES]) == 0
    )
    assert main(["run", str(copy_with_five_guards), "--out", str(tmp_path / "copy"), *BATTLES]) == 0
    for name in ("battles.csv", "combatants.csv", "casualties.csv"):
        assert (tmp_path / "set" / name).read_text() == (tmp_path / "copy" / name).read_text()
    summary = json.loads((tmp_path / "set" / "summary.json").read_text())
    copied = json.loads((tmp_path / "copy" / "summary.json").read_text())
    assert summary["sets"] == [GUARDS]
    assert "sets" not in copied
    for key in ("sides", "draws", "turns", "casualties"):
        assert summary[key] == copied[key]
    guards = [row for row in (tmp_path / "set" / "combatants.csv").read_text().splitlines()]
    assert sum(",Guard 5," in row for row in guards) == 40  # the fifth guard fought every battle


def test_set_changes_the_numbers(tmp_path):
    assert main(["run", str(SCENARIO), "--out", str(tmp_path / "plain"), *BATTLES]) == 0
    assert (
        main(["run", str(SCENARIO), "--set", GUARDS, "--out", str(tmp_path / "set"), *BATTLES]) == 0
    )
    plain = (tmp_path / "plain" / "battles.csv").read_text()
    assert plain != (tmp_path / "set" / "battles.csv").read_text()


def test_sets_repeat_and_the_summary_says_them(tmp_path, capsys):
    armor = "sides[runners].members[Razor].armor=armor_jacket"
    args = ["run", str(SCENARIO), "--set", GUARDS, "--set", armor, "--battles", "20"]
    assert main([*args, "--workers", "1", "--out", str(tmp_path / "o")]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[1] == f"with --set {GUARDS}, {armor}"
    summary = json.loads((tmp_path / "o" / "summary.json").read_text())
    assert summary["sets"] == [GUARDS, armor]


def test_trace_with_set_is_the_copy_traced(capsys, copy_with_five_guards):
    assert main(["run", str(SCENARIO), "--set", GUARDS, "--trace", "3"]) == 0
    traced = capsys.readouterr().out.splitlines()
    assert main(["run", str(copy_with_five_guards), "--trace", "3"]) == 0
    copied = capsys.readouterr().out.splitlines()
    assert traced[0].endswith(f"seed 2050, --set {GUARDS}")
    assert traced[1:] == copied[1:]
    assert any("Guard 5" in line for line in traced)


@pytest.mark.parametrize(
    ("setting", "says"),
    [
        ("sides[1].members[3].count=5", "has 2 items, so [3] is not one of them"),
        ("sides[1].members[Gaurd].count=5", "did you mean 'Guard'?"),
        ("sides[1].members[1].cont=5", "did you mean 'count'?"),
        ("sides[1].members[1].armor=armr_jacket", "did you mean 'armor_jacket'?"),
        ("sides[1].members[1].count=many", "a valid integer"),
        ("sides[1].members[1].count=1,2", "PATH=VALUE with a single value"),
        ("count", "PATH=VALUE, e.g."),
    ],
)
def test_a_bad_set_is_one_line_and_exit_2(tmp_path, capsys, setting, says):
    out = tmp_path / "never"
    assert main(["run", str(SCENARIO), "--set", setting, "--out", str(out), *BATTLES]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "Traceback" not in err
    assert says in err
    assert not out.exists()


def test_set_needs_one_scenario_file(capsys):
    args = ["run", str(SCENARIO), str(SCENARIO), "--set", GUARDS, *BATTLES]
    assert main(args) == 2
    assert "--set: got" in capsys.readouterr().err


def test_a_run_with_set_resumes_with_its_sets(tmp_path, monkeypatch, capsys):
    """The run file keeps the sets: ``--resume`` finishes the variant, not the file as written."""
    from tests.test_resume import files_of, interrupted_then_resumed, toy_files, use
    from tests.test_sweep import toy_runner

    toy = toy_files(tmp_path / "scenarios")
    setting = "sides[guards].members[Guard].count=4"  # the file has 2
    argv = ["run", str(toy), "--set", setting, "--battles", "120", "--chunk-size", "25"]
    use(monkeypatch, toy_runner)
    assert main([*argv, "--quiet", "--out", str(tmp_path / "whole"), "--workers", "1"]) == 0
    whole = files_of(tmp_path / "whole")
    cut = tmp_path / "cut"
    resumed = interrupted_then_resumed(monkeypatch, capsys, [*argv, "--quiet"], cut, "run", 60)
    assert resumed == whole
    assert json.loads((cut / "summary.json").read_text())["sets"] == [setting]


def test_a_set_run_never_writes_over_the_file_as_written(tmp_path, monkeypatch, capsys):
    """Without --out, a --set run writes to a folder of its own, named from its edits (the
    same edits, the same folder); the results of the file as written are left as they were."""
    monkeypatch.chdir(tmp_path)
    assert main(["run", str(SCENARIO), "--battles", "20", "--workers", "1"]) == 0
    plain = tmp_path / "results" / SCENARIO.stem
    assert f"results in {Path('results') / SCENARIO.stem}:" in capsys.readouterr().out
    before = {p.name: p.read_bytes() for p in plain.iterdir() if p.is_file()}
    for _ in range(2):
        assert (
            main(["run", str(SCENARIO), "--set", GUARDS, "--battles", "20", "--workers", "1"]) == 0
        )
    after = {p.name: p.read_bytes() for p in plain.iterdir() if p.is_file()}
    assert after == before and "sets" not in json.loads(before["summary.json"])
    (variant,) = [p for p in (tmp_path / "results").iterdir() if p != plain]
    assert variant.name.startswith(f"{SCENARIO.stem}--set-count-5-")
    assert all(c.isalnum() or c in "-_." for c in variant.name)
    assert json.loads((variant / "summary.json").read_text())["sets"] == [GUARDS]
    said = capsys.readouterr().out
    assert said.count(f"results in {Path('results') / variant.name}:") == 2


def test_a_member_of_a_shipped_catalogues_archetype_takes_a_set_field(tmp_path):
    """``catalogues: [sr2097]`` (a shipped catalogue by its bare name): a set weapon or skill
    of a member is copied from its archetype first, as from a catalogue file beside it (the
    path machinery read the bare name as a file and found nothing to copy)."""
    from combatsim.sweeps.fields import set_fields

    text = (ROOT / "scenarios" / "sr2097-runners-vs-patrol.yaml").read_text()
    path = tmp_path / "s.yaml"
    path.write_text(text.replace("[catalogues/sr2097.yaml]", "[sr2097]"))
    sets = ["sides[0].members[0].weapons[0]=sniper_rifle", "sides[0].members[0].skills.firearms=2"]
    razor = set_fields(str(path), sets).scenario.sides[0].fighters[0]
    assert razor.sheet.weapons == ("sniper_rifle", "sword")
    assert (razor.sheet.skills.firearms, razor.sheet.skills.melee) == (2, 6)
