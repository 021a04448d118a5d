"""``compare``: two scenarios or variants on the same battle seeds, their difference in win rate
with Newcombe's paired interval, McNemar's p-value and a verdict (the interval's math is in
tests/test_stats.py). Uses the toy scenario and runner of tests/test_sweep.py."""

from __future__ import annotations

import json

import pandas as pd
import pytest

from combatsim.cli import main
from combatsim.commands import run as run_command
from combatsim.errors import UsageError
from combatsim.scenario import load_scenario
from combatsim.stats import paired_difference_interval
from combatsim.sweeps import api
from combatsim.sweeps.fields import grid, parse_vary
from tests.test_sweep import one_error_line, toy_files, toy_runner

HEAVY = "sides[runners].members[*].armor=heavy"


@pytest.fixture
def toy(tmp_path):
    return toy_files(tmp_path / "scenarios")


@pytest.fixture
def cli_toy(monkeypatch):
    monkeypatch.setattr(run_command, "battle_runner", lambda: toy_runner)


def test_the_difference_is_b_minus_a_with_the_paired_interval(toy):
    result = api.compare(toy, b_sets=[HEAVY], battles=800, runner=toy_runner)
    summary = result.summary
    a, b = summary["a"], summary["b"]
    assert a["battles_completed"] == b["battles_completed"] == 800
    runners = summary["differences"][0]
    assert runners["side"] == "runners"
    assert runners["a"] == a["sides"]["runners"]["win_rate"]
    assert runners["b"] == b["sides"]["runners"]["win_rate"]
    assert runners["difference"] == pytest.approx(runners["b"] - runners["a"], abs=1e-6)
    # The pair counts behind the interval: a win in A only, in B only.
    both = a["sides"]["runners"]["wins"] - runners["a_only"]
    neither = 800 - both - runners["a_only"] - runners["b_only"]
    low, high = paired_difference_interval(both, runners["b_only"], runners["a_only"], neither)
    assert runners["ci95"] == [round(low, 6), round(high, 6)]
    # Heavier armor for the runners makes them win more, and the pairing sees it clearly.
    assert runners["difference"] > 0 and runners["significant"] and runners["p_value"] < 0.001
    assert [d["side"] for d in summary["differences"]] == ["runners", "guards", "draws"]


def test_each_side_of_a_comparison_is_the_run_of_that_variant(toy):
    """A and B are ordinary runs on the same seeds: the same tallies as a sweep's rows."""
    result = api.compare(toy, b_sets=[HEAVY], battles=300, runner=toy_runner)
    swept = api.sweep(
        toy, ["armor:" + HEAVY.replace("heavy", "vest,heavy")], battles=300, runner=toy_runner
    )
    for key, row in (("a", 0), ("b", 1)):
        assert result.summary[key]["sides"] == swept.summary["variants"][row]["sides"]


def test_the_same_scenario_twice_differs_by_nothing(toy):
    result = api.compare(toy, toy, battles=200, runner=toy_runner)
    for d in result.summary["differences"]:
        assert d["difference"] == 0 and d["a_only"] == d["b_only"] == 0
        assert d["significant"] is False and d["p_value"] == 1.0
        assert d["ci95"][0] <= 0 <= d["ci95"][1]


def test_a_field_that_changes_nothing_is_not_significant(toy):
    result = api.compare(
        toy, a_sets=["description=a"], b_sets=["description=b"], battles=300, runner=toy_runner
    )
    assert not any(d["significant"] for d in result.summary["differences"])


def test_precision_for_a_comparison_narrows_the_difference_interval(toy):
    result = api.compare(
        toy, b_sets=[HEAVY], battles=100, precision=0.02, chunk_size=50, runner=toy_runner
    )
    assert result.summary["precision"]["reached"]
    for d in result.summary["differences"][:-1]:
        assert max(d["difference"] - d["ci95"][0], d["ci95"][1] - d["difference"]) <= 0.02
    assert result.summary["battles_completed"] > 100


@pytest.mark.slow
def test_two_workers_give_the_same_comparison(toy):
    kwargs = {"b_sets": [HEAVY], "battles": 240, "chunk_size": 35, "runner": toy_runner}
    assert (
        api.compare(toy, workers=1, **kwargs).summary
        == api.compare(toy, workers=2, **kwargs).summary
    )


def test_scenarios_with_different_numbers_of_sides_are_refused(toy, tmp_path):
    three = tmp_path / "scenarios" / "three.yaml"
    text = toy.read_text().replace(
        "turn_limit:",
        "  - name: bystanders\n    members:\n      - {name: Dog, archetype: guard}\nturn_limit:",
    )
    three.write_text(text)
    with pytest.raises(UsageError, match="same number of sides"):
        api.compare(toy, three, battles=10, runner=toy_runner)


# --- the command ------------------------------------------------------------------------------


def test_compare_command_prints_the_verdict_and_writes_files(toy, cli_toy, capsys, tmp_path):
    out = tmp_path / "cmp"
    argv = ["compare", str(toy), "--b", HEAVY, "--battles", "600", "--out", str(out)]
    assert main([*argv, "--workers", "1"]) == 0
    text = capsys.readouterr().out
    assert f"B: Toy standoff ({toy}) with {HEAVY}" in text
    assert "600 battles each, seed 77" in text
    runners = next(line for line in text.splitlines() if line.strip().startswith("runners"))
    assert runners.rstrip().endswith(" significant") and "not" not in runners
    assert "runners: B wins " in text and "more often than A" in text
    differences = pd.read_csv(out / "differences.csv")
    assert list(differences["side"]) == ["runners", "guards", "draws"]
    summary = json.loads((out / "summary.json").read_text())
    assert summary["kind"] == "compare" and summary["b"]["changes"] == HEAVY
    table = pd.read_csv(out / "table.csv")  # A and B, each side
    assert list(table["variant"]) == ["A", "A", "B", "B"]


def test_compare_command_says_when_it_could_be_noise(toy, cli_toy, capsys, tmp_path):
    argv = ["compare", str(toy), str(toy), "--side", "guards", "--battles", "100"]
    assert main([*argv, "--out", str(tmp_path / "o"), "--workers", "1"]) == 0
    assert "guards: no significant difference" in capsys.readouterr().out


@pytest.mark.parametrize(
    ("argv", "start"),
    [
        (["--b", "turn_limit=5,6"], "combatsim: error: --b: got 'turn_limit=5,6'"),
        (["--side", "nobody"], "combatsim: error: --side: got 'nobody'"),
        ([], "combatsim: error: compare: got 'one scenario'"),
    ],
)
def test_compare_command_errors_are_one_line(toy, cli_toy, capsys, tmp_path, argv, start):
    base = ["compare", str(toy), "--battles", "20", "--out", str(tmp_path / "o"), "--workers", "1"]
    if argv and argv[0] == "--side":
        base += ["--b", HEAVY]
    assert main([*base, *argv]) == 2
    assert one_error_line(capsys).startswith(start)


def test_variants_compared_are_the_sweep_s_variants(toy):
    base = load_scenario(toy)
    vest, heavy = grid(base, [parse_vary(HEAVY.replace("heavy", "vest,heavy"))])
    result = api.compare(vest.scenario, heavy.scenario, battles=100, runner=toy_runner)
    same = api.compare(
        toy, a_sets=[HEAVY.replace("heavy", "vest")], b_sets=[HEAVY], battles=100, runner=toy_runner
    )
    assert result.summary["differences"] == same.summary["differences"]
