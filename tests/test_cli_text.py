"""The words the commands print: whole sentences, the search as it ran, and what "down"
counts (fleeing too) wherever a down rate is shown."""

from __future__ import annotations

import pytest

from combatsim.cli import main
from combatsim.output import DOWN_MEANS, format_casualties
from combatsim.sweeps import api, verdicts
from tests.test_sweep import toy_files, toy_runner

GUARDS = "guards:sides[guards].members[Guard].count=1..6"


@pytest.fixture
def toy(tmp_path):
    return toy_files(tmp_path / "scenarios")


@pytest.mark.parametrize(
    "args", [["--net", "0"], ["--net", "1", "--column", "3"], ["--grid", "--net=-1..1"]]
)
def test_lost_souls_odds_say_in_full_that_the_table_is_invented(args, capsys):
    assert main(["odds", "lost-souls", *args]) == 0
    out = capsys.readouterr().out
    note = out[out.index("table: APPROXIMATION") :].rstrip()
    assert "invented to have a plausible shape" in " ".join(note.split())
    assert note.endswith("load_table(path).")
    assert max(len(line) for line in note.splitlines()) <= 100
    assert "action_results_table.yaml" in note  # "this file" named


def test_compare_help_line_is_a_phrase(capsys):
    with pytest.raises(SystemExit):
        main(["--help"])
    assert "interval, p" not in capsys.readouterr().out


def _balance(toy, search, target="0.5", side="runners"):
    result = api.balance(
        toy, [GUARDS], side, target, search=search, runner=toy_runner, battles=60, workers=1
    )
    return result.summary


def test_a_grid_search_says_it_ran_every_value_and_advises_no_grid(toy):
    summary = _balance(toy, "grid")
    summary["monotone"] = False  # as noise can make it
    text = verdicts.balance(summary)
    assert "ran every one of the 6 values" in text
    assert "by every value" not in text
    assert "try more battles" in text and "--search grid" not in text


def test_a_bisection_says_how_many_values_it_ran_and_may_advise_a_grid(toy):
    summary = _balance(toy, "bisect")
    ran = len(summary["variants"])
    text = verdicts.balance({**summary, "monotone": False})
    assert (
        f"searched 6 values by bisection (assumes the rate rises or falls with the value), "
        f"running {ran} of them" in text
    )
    assert "try --search grid or more battles" in text


def test_down_is_explained_where_it_is_printed(toy):
    summary = _balance(toy, "grid", target="runners down <= 0.5", side=None)
    assert f"({DOWN_MEANS})" in verdicts.balance(summary)
    assert "fled" in DOWN_MEANS
    entry = {
        "level": "side",
        "who": "runners",
        "down_rate": 0.5,
        "down_ci95": [0.4, 0.6],
        "dead_rate": 0.1,
        "dead_ci95": [0.05, 0.2],
    }
    assert any(DOWN_MEANS in line for line in format_casualties([entry]))
