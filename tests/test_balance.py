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
from combatsim.sweeps.targets import Aim, parse_aim
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


@pytest.mark.slow
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
    assert list(result.table["guards"].unique()) == evaluated


@pytest.mark.slow
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


@pytest.mark.slow
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


@pytest.mark.slow
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


# --- aiming at any reported rate --------------------------------------------------------------


def aimed(summary, who, rate):
    """``rate`` (down or dead) of ``who`` in one variant's summary, from its casualties."""
    entry = next(e for e in summary["casualties"] if e["who"] == who)
    return entry[f"{rate}_rate"]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("runners down <= 0.3", Aim("down", 0.3, "<=", "runners")),
        ("corp security down<=30%", Aim("down", 0.3, "<=", "corp security")),
        ("Guard 2 dead = 0.05", Aim("dead", 0.05, "=", "Guard 2")),
        ("Razor down 0.5", Aim("down", 0.5, "=", "Razor")),
        ("runners wins >= 0.6", Aim("win", 0.6, ">=", "runners")),
        ("draw <= 10%", Aim("draw", 0.1, "<=", None)),
    ],
)
def test_target_expressions_parse(text, expected):
    assert parse_aim(text) == expected


@pytest.mark.parametrize(
    ("text", "side", "argument"),
    [
        ("runners down < 0.3", None, "--target"),  # no such operator
        ("runners down <= 1.3", None, "--target"),
        ("runners down <= many", None, "--target"),
        ("runners draw = 0.1", None, "--target"),  # draws belong to no one
        ("down = 0.2", None, "--target"),  # whose?
        ("0.5", None, "--side"),  # a bare number is a win rate: of which side?
        ("guards win = 0.5", "runners", "--side"),
    ],
)
def test_bad_target_expressions_are_refused(text, side, argument):
    with pytest.raises(UsageError, match=f"^{argument}:"):
        parse_aim(text, side)


def test_a_number_with_a_side_is_the_old_win_rate_target():
    expected = Aim("win", 0.4, "=", "runners")
    assert parse_aim("0.4", "runners") == parse_aim(0.4, "runners") == expected
    assert parse_aim("runners win = 0.4") == parse_aim("win = 40%", "runners") == expected


def test_an_unknown_name_is_refused_with_the_names_there_are(toy):
    with pytest.raises(UsageError, match="^--target: got 'Nobody'.*Guard 1"):
        api.balance(toy, [GUARDS], target="Nobody down = 0.5", runner=toy_runner, battles=10)


@pytest.mark.slow
def test_a_down_rate_target_picks_the_closest_value_of_every_value_run(toy):
    """The runners lose someone more often as guards are added; the grid's best is the value
    whose down rate (from its own casualties) is closest to the target."""
    vary = "guards:sides[guards].members[Guard].count=1..8"
    summary = api.balance(
        toy, [vary], target="runners down = 0.8", search="grid", runner=toy_runner, battles=400
    ).summary
    rates = {v["values"]["guards"]: aimed(v, "runners", "down") for v in summary["variants"]}
    assert list(rates.values()) == sorted(rates.values())  # rises with the guards
    closest = min(rates, key=lambda g: abs(rates[g] - 0.8))
    assert summary["best"]["value"] == closest
    assert summary["best"]["rate"] == rates[closest]
    assert summary["aim"] == {
        "rate": "down",
        "who": "runners",
        "op": "=",
        "value": 0.8,
        "text": "runners down = 0.8",
        "phrase": "runners down",
    }
    assert summary["side"] == "runners"
    bisected = api.balance(
        toy, [vary], target="runners down = 0.8", runner=toy_runner, battles=400
    ).summary
    assert bisected["search"] == "bisect" and bisected["best"] == summary["best"]


@pytest.mark.slow
def test_at_most_picks_the_largest_rate_that_keeps_to_the_bound(toy):
    vary = "guards:sides[guards].members[Guard].count=1..8"
    summary = api.balance(
        toy, [vary], target="runners down <= 0.8", search="grid", runner=toy_runner, battles=400
    ).summary
    rates = {v["values"]["guards"]: aimed(v, "runners", "down") for v in summary["variants"]}
    keeping = {g: r for g, r in rates.items() if r <= 0.8}
    assert keeping and len(keeping) < len(rates)
    assert summary["best"]["value"] == max(keeping, key=keeping.get)
    assert summary["best"]["meets"] is True
    impossible = api.balance(
        toy, [vary], target="runners down <= 0.01", search="grid", runner=toy_runner, battles=200
    ).summary
    assert impossible["best"]["meets"] is False and impossible["best"]["value"] == 1


def test_a_copy_missing_from_some_variants_is_skipped_not_an_error(toy):
    """``Guard 3`` exists only with three guards or more."""
    vary = "guards:sides[guards].members[Guard].count=1..4"
    summary = api.balance(
        toy, [vary], target="Guard 3 down = 0.9", search="grid", runner=toy_runner, battles=100
    ).summary
    assert summary["best"]["value"] in (3, 4)
    assert summary["best"]["rate"] is not None


def test_balance_command_with_a_down_target(toy, cli_toy, capsys, tmp_path):
    argv = ["balance", str(toy), "--vary", GUARDS, "--target", "runners down <= 80%"]
    assert main([*argv, "--battles", "300", "--workers", "1", "--out", str(tmp_path / "b")]) == 0
    text = capsys.readouterr().out
    assert "guards for runners down <= 80.0%" in text
    assert next(line for line in text.splitlines() if line.startswith("closest:")).startswith(
        "closest: guards="
    )
    summary = json.loads((tmp_path / "b" / "summary.json").read_text())
    assert summary["aim"]["rate"] == "down" and summary["best"]["meets"] is True


def test_balance_command_says_when_no_value_keeps_to_the_bound(toy, cli_toy, capsys, tmp_path):
    argv = ["balance", str(toy), "--vary", GUARDS, "--target", "runners down <= 1%"]
    assert main([*argv, "--battles", "200", "--workers", "1", "--out", str(tmp_path / "b")]) == 0
    closest = next(
        line for line in capsys.readouterr().out.splitlines() if line.startswith("closest:")
    )
    assert closest.startswith("closest: guards=1: runners down ")
    assert closest.endswith(
        "which is the closest, but no value searched keeps to runners down <= 1.0%"
    )
