"""``balance``: the value of one field whose win rate for a side is closest to a target.

The toy runner (tests/test_sweep.py) makes the runners' win rate fall steadily as guards are
added (0.96 * 3 / (3 + 1.5 * guards) with vest armor on everyone), so where the target lies is
known: at 50% the closest count is 2 guards (48%); 3 guards give 38%.
"""

from __future__ import annotations

import json

import pytest

from combatsim.cli import main
from combatsim.commands import run as run_command
from combatsim.errors import UsageError
from combatsim.sweeps import api
from tests.test_sweep import one_error_line, toy_files, toy_runner

GUARDS = "guards:sides[guards].members[Guard].count=1..12"


@pytest.fixture
def toy(tmp_path):
    return toy_files(tmp_path / "scenarios")


@pytest.fixture
def cli_toy(monkeypatch):
    monkeypatch.setattr(run_command, "battle_runner", lambda: toy_runner)


def balance(toy, vary=GUARDS, target=0.5, **kwargs):
    kwargs.setdefault("battles", 2000)
    return api.balance(toy, [vary], "runners", target, runner=toy_runner, **kwargs)


def test_bisection_finds_the_closest_value_with_few_runs(toy):
    result = balance(toy)
    summary = result.summary
    assert summary["search"] == "bisect"
    best = summary["best"]
    assert best["value"] == 2 and abs(best["win_rate"] - 0.48) < 0.03
    assert best["target_in_interval"] == (best["ci95"][0] <= 0.5 <= best["ci95"][1])
    assert [n["value"] for n in summary["neighbours"]] == [1, 3]
    evaluated = [v["values"]["guards"] for v in summary["variants"]]
    assert (
        evaluated == sorted(evaluated) and len(evaluated) < 12 and {1, 2, 3, 12} <= set(evaluated)
    )
    assert summary["monotone"] is True
    assert list(result.table["guards"]) == evaluated


def test_bisection_agrees_with_running_every_value(toy):
    bisected = balance(toy, battles=600).summary
    gridded = balance(toy, battles=600, search="grid").summary
    assert len(gridded["variants"]) == 12
    assert bisected["best"] == gridded["best"]
    # The same seeds: a value's numbers do not depend on which other values ran.
    rates = {v["values"]["guards"]: v["sides"] for v in gridded["variants"]}
    for variant in bisected["variants"]:
        assert variant["sides"] == rates[variant["values"]["guards"]]


def test_a_target_beyond_every_value_gives_the_nearest_end(toy):
    summary = balance(toy, target=0.9, battles=500).summary
    best = summary["best"]
    assert best["value"] == 1 and best["target_in_interval"] is False
    assert [n["value"] for n in summary["neighbours"]] == [2]


def test_names_are_searched_one_by_one(toy):
    armor = "armor:sides[runners].members[*].armor=vest,jacket,heavy"
    summary = balance(toy, vary=armor, target=0.6, battles=500).summary
    assert summary["search"] == "grid"
    assert [v["values"]["armor"] for v in summary["variants"]] == ["vest", "jacket", "heavy"]
    rates = [v["sides"]["runners"]["win_rate"] for v in summary["variants"]]
    assert (
        summary["best"]["value"]
        == ["vest", "jacket", "heavy"][min(range(3), key=lambda i: abs(rates[i] - 0.6))]
    )


def test_balance_is_the_same_on_two_workers(toy):
    one = balance(toy, battles=300, chunk_size=70, workers=1).summary
    two = balance(toy, battles=300, chunk_size=70, workers=2).summary
    assert one == two


@pytest.mark.parametrize(
    ("kwargs", "argument"),
    [
        ({"side": "nobody"}, "--side"),
        ({"target": 1.5}, "--target"),
        ({"search": "random"}, "--search"),
        ({"vary": ["turn_limit=5,6", "seed=1,2"]}, "--vary"),
    ],
)
def test_bad_arguments_are_refused(toy, kwargs, argument):
    args = {"vary": [GUARDS], "side": "runners", "target": 0.5, **kwargs}
    extra = {k: v for k, v in args.items() if k == "search"}
    with pytest.raises(UsageError, match=f"^{argument}:"):
        api.balance(toy, args["vary"], args["side"], args["target"], runner=toy_runner, **extra)


# --- the command ------------------------------------------------------------------------------


def test_balance_command_reports_the_closest_value_and_its_neighbours(
    toy, cli_toy, capsys, tmp_path
):
    out = tmp_path / "bal"
    argv = ["balance", str(toy), "--vary", GUARDS, "--side", "runners", "--battles", "1500"]
    assert main([*argv, "--out", str(out), "--workers", "1"]) == 0
    text = capsys.readouterr().out
    assert "guards for runners winning 50.0%" in text
    closest = next(line for line in text.splitlines() if line.startswith("closest:"))
    assert closest.startswith("closest: guards=2: runners win ")
    assert next(line for line in text.splitlines() if line.startswith("neighbours:")).startswith(
        "neighbours: guards=1: "
    )
    marked = next(line for line in text.splitlines() if line.strip().startswith(">"))
    assert marked.split()[1] == "2"
    summary = json.loads((out / "summary.json").read_text())
    assert summary["best"]["value"] == 2 and summary["kind"] == "balance"


def test_balance_command_needs_a_side_and_a_vary(toy, cli_toy, capsys):
    with pytest.raises(SystemExit) as exit_:
        main(["balance", str(toy), "--vary", GUARDS])
    assert exit_.value.code == 2
    assert "--side" in one_error_line(capsys)
