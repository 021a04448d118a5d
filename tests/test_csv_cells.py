"""Every text that reaches a cell of a results CSV keeps one rule: nothing a spreadsheet would
run as a formula (a leading = + - @, also behind spaces or quotes, also full-width). Names are
refused where they are written, a vary's name and text values wherever the vary comes from
(the command line, a sweep file, Python), in one line naming where; numbers stay numbers."""

from __future__ import annotations

import csv

import pytest

from combatsim.cli import main
from combatsim.commands import run as run_command
from combatsim.errors import UsageError
from combatsim.names import cell_problem, name_problem
from combatsim.sweeps import api
from combatsim.sweeps.fields import parse_vary
from tests.test_names import PLACES, with_name
from tests.test_names import folder as folder  # noqa: F401 - the fixture
from tests.test_sweep import one_error_line, toy_files, toy_runner

FORMULAS = {
    "quote then =": '"=1+1',
    "apostrophe then -": "'-1",
    "space then =": " =1+1",
    "full-width =": '＝HYPERLINK("http://x")',
    "full-width +": "＋1",
    "small @": "﹫SUM(A1)",
    "superscript =": "⁼1+1",
    "curly quote then =": "“=1+1",
    "@": "@SUM(A1)",
    "+": "+1",
    "-": "-1",
}
PLAIN = ["O'Brien", '"the" boss', "a-b", "Ψ-wolf", "1st", "x = y", "'quoted'"]


@pytest.fixture
def toy(tmp_path, monkeypatch):
    monkeypatch.setattr(run_command, "battle_runner", lambda: toy_runner)
    return toy_files(tmp_path / "scenarios")


@pytest.mark.parametrize("text", FORMULAS.values(), ids=FORMULAS.keys())
def test_the_rule_refuses_what_a_spreadsheet_may_run(text):
    assert name_problem(text) is not None and cell_problem(text) is not None


@pytest.mark.parametrize("text", PLAIN)
def test_the_rule_keeps_plain_text(text):
    assert name_problem(text) is None and cell_problem(text) is None


@pytest.mark.parametrize("place", ["scenario", "side", "member", "weapon key"])
@pytest.mark.parametrize("name", FORMULAS.values(), ids=FORMULAS.keys())
def test_a_name_a_spreadsheet_may_run_is_refused_where_it_is_written(folder, capsys, place, name):  # noqa: F811
    path = with_name(folder, place, name)
    assert main(["validate", str(path)]) == 2
    err = one_error_line(capsys)
    assert f"{PLACES[place][2]}: found " in err and "formula" in err, err


@pytest.mark.parametrize("label", ['"=1+1"', "=1+1", "＝HYPERLINK(1)", "' @SUM(A1)'"])
def test_a_command_line_vary_value_is_refused_as_in_a_sweep_file(tmp_path, toy, capsys, label):
    out = tmp_path / "out"
    argv = ["sweep", str(toy), "--vary", f"description=plain,{label}", "--battles", "5"]
    assert main([*argv, "--quiet", "--out", str(out)]) == 2
    err = one_error_line(capsys)
    assert err.startswith("combatsim: error: --vary: got ") and "formula" in err, err
    assert not list(out.glob("*.csv"))
    sweep = tmp_path / "sweep.yaml"
    sweep.write_text(
        f"scenario: {toy}\nvary:\n  - path: description\n    values: plain,{label}\n",
        encoding="utf-8",
    )
    assert main(["sweep", "--file", str(sweep), "--quiet", "--out", str(out)]) == 2
    assert "sweep.yaml:4: vary[0].values: found " in one_error_line(capsys)


@pytest.mark.parametrize("name", ["@cmd", '"+cmd', "＠cmd", " -cmd"])
def test_a_command_line_vary_name_is_refused_as_in_a_sweep_file(toy, capsys, name):
    argv = ["sweep", str(toy), "--vary", f"{name}:turn_limit=3,4", "--battles", "5"]
    assert main([*argv, "--quiet"]) == 2
    err = one_error_line(capsys)
    assert err.startswith("combatsim: error: --vary: got ") and "formula" in err, err


def test_balance_and_python_varies_keep_the_same_rule(toy, capsys):
    argv = ["balance", str(toy), "--vary", "@x:turn_limit=3..5", "--side", "runners"]
    assert main([*argv, "--quiet"]) == 2
    assert "formula" in one_error_line(capsys)
    with pytest.raises(UsageError, match="formula"):
        api.sweep(toy, {"description": ["plain", "=1+1"]}, battles=5)
    with pytest.raises(UsageError, match="formula"):
        api.sweep(toy, ["@x:turn_limit=3,4"], battles=5)


def test_negative_numbers_stay_numbers_and_plain_text_stays_as_written(tmp_path, toy):
    vary = parse_vary("mod:rules.options.x=-2,-1,+1")
    assert vary.labels == [-2, -1, 1]
    out = tmp_path / "out"
    argv = ["sweep", str(toy), "--vary", "description=a-b,x = y", "--battles", "5"]
    assert main([*argv, "--vary", "turn_limit=3,4", "--quiet", "--out", str(out)]) == 0
    with open(out / "table.csv", encoding="utf-8", newline="") as f:
        rows = list(csv.DictReader(f))
    assert {r["description"] for r in rows} == {"", "a-b", "x = y"}  # "" as written
    assert {r["turn_limit"] for r in rows} == {"12", "3", "4"}


def test_a_file_name_in_a_folder_table_keeps_the_rule():
    """A run of several scenarios names each by its file (the ``file`` column): a file name
    a spreadsheet would run stands behind ``./``, a control character escaped."""
    from combatsim.output import file_labels

    names = file_labels(["s/=x.yaml", "s/sub/@y.yml", "s/plain.yaml", "s/a\x1bb.yaml"])
    assert names == ["./=x", "sub/@y", "plain", "a\\x1bb"]
    assert all(cell_problem(name) is None for name in names)
