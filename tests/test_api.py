"""The top-level Python API: ``combatsim.simulate``, ``run_many``, ``sweep``, ``compare`` and
``balance`` take a path or a loaded scenario, share one result type, use every core as the CLI
does, and show progress unless ``quiet``.

The toy scenario and runner of tests/test_sweep.py stand in for the engine (passed as
``runner=``), except in the test that ``import combatsim`` stays light.
"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest

import combatsim
from combatsim.run import options as run_options
from combatsim.sweeps import api as sweeps_api
from tests.test_sweep import toy_files, toy_runner

ENTRY_POINTS = ("simulate", "run_many", "sweep", "compare", "balance", "explain")


@pytest.fixture
def toy(tmp_path) -> Path:
    return toy_files(tmp_path / "scenarios")


def call(name: str, scenario, **kwargs):
    """Each entry point with the arguments it needs on the toy scenario."""
    kwargs = {"battles": 60, "runner": toy_runner, "quiet": True, **kwargs}
    if name == "simulate":
        return combatsim.simulate(scenario, **kwargs)
    if name == "run_many":
        return combatsim.run_many([scenario, scenario], **kwargs)
    if name == "sweep":
        return combatsim.sweep(scenario, "sides[guards].members[Guard].count=1,2", **kwargs)
    if name == "compare":
        return combatsim.compare(scenario, b_sets="sides[runners].members[*].armor=heavy", **kwargs)
    if name == "explain":
        return combatsim.explain(scenario, "runners", only=["Guard"], **kwargs)
    return combatsim.balance(
        scenario, "sides[guards].members[Guard].count=1..3", "runners down = 0.5", **kwargs
    )


def test_dir_lists_the_entry_points_and_import_stays_light():
    assert set(ENTRY_POINTS) | {"Result", "load_scenario"} <= set(dir(combatsim))
    code = (
        "import sys, combatsim; "
        "heavy = [m for m in ('pandas', 'simpy', 'numpy', 'tqdm') if m in sys.modules]; "
        "assert not heavy, heavy"
    )
    subprocess.run([sys.executable, "-c", code], check=True)


@pytest.mark.slow  # heavy: every entry point end to end, three ways each
@pytest.mark.parametrize("name", ENTRY_POINTS)
def test_each_takes_a_str_a_path_or_a_scenario_and_returns_one_result_type(name, toy):
    results = [call(name, form) for form in (str(toy), Path(toy), combatsim.load_scenario(toy))]
    for result in results:
        assert type(result) is combatsim.Result
        assert isinstance(result.table, pd.DataFrame) and not result.table.empty
        assert isinstance(result.casualties, pd.DataFrame)
        assert name == "explain" or not result.casualties.empty  # explain's rows are levers
        assert isinstance(result.summary, dict) and result.summary["battles_completed"] > 0
    assert results[0].summary == results[1].summary == results[2].summary


@pytest.mark.parametrize("name", ENTRY_POINTS)
def test_the_repr_reads_as_a_summary(name, toy):
    text = repr(call(name, toy))
    assert text.startswith("<combatsim result: ")
    assert "runners" in text and "%" in text
    if name == "simulate":
        assert "casualties" in text and "Guard 2" in text
    if name == "compare":
        assert "B - A (95% interval)" in text and "runners: " in text  # the CLI's lines


@pytest.mark.parametrize("name", ENTRY_POINTS)
def test_printing_a_result_shows_the_lines_the_command_line_prints(name, toy, capsys):
    result = call(name, toy)
    print(result)
    printed = capsys.readouterr().out
    assert printed == result.text() + "\n" and not printed.startswith("<combatsim")
    if name == "balance":
        assert "closest: sides[guards].members[Guard].count=" in printed
        assert "the target" in printed
    if name == "compare":  # the CLI's p-values: "< 0.0001" or "= 0.0123", never "p = 0"
        assert re.search(r"\(p (< 0\.0001|= \d\.\d{4})\)\.", printed), printed
        assert "p = 0\n" not in printed and "p = 0," not in printed


def test_a_p_value_below_the_shown_digits_reads_below_them():
    from combatsim.sweeps.verdicts import compare

    d = {"side": "runners", "a": 0.2, "b": 0.6, "difference": 0.4, "ci95": [0.3, 0.5]}
    summary = {
        "a": {"scenario": "A", "source": "a.yaml"},
        "b": {"scenario": "B", "source": "a.yaml"},
    }
    summary |= {"battles_completed": 500, "seed": 1}
    summary["differences"] = [{**d, "p_value": 1e-30, "significant": True}]
    text = compare(summary)
    assert "(p < 0.0001)." in text and "<0.0001" in text and "p = 0" not in text


def test_simulate_keeps_the_per_battle_tables(toy):
    result = combatsim.simulate(toy, 40, runner=toy_runner, quiet=True)
    assert len(result.battles) == 40
    assert set(result.combatants["name"]) == {"Ace", "Brick", "Guard 1", "Guard 2"}


def test_the_record_tables_are_made_when_read_and_equal_the_files(toy, tmp_path):
    """``battles`` and ``combatants`` are built from the kept rows at their first read (once),
    equal to what a run writes as CSV; a result pickles before and after the read, a sweep's
    carry each variant's label first."""
    import pickle

    result = combatsim.simulate(toy, 40, runner=toy_runner, quiet=True)
    assert isinstance(result.records["battles"], sweeps_api.Records)
    copy = pickle.loads(pickle.dumps(result))
    battles = result.battles
    assert result.battles is battles  # made once, then kept
    written = combatsim.simulate(toy, 40, runner=toy_runner, quiet=True, out=tmp_path / "run")
    for kind in ("battles", "combatants"):
        on_disk = pd.read_csv(tmp_path / "run" / f"{kind}.csv")
        pd.testing.assert_frame_equal(getattr(copy, kind), on_disk, check_dtype=False)
    assert written.battles is None
    swept = combatsim.sweep(
        toy,
        "sides[guards].members[Guard].count=1,2",
        battles=20,
        records="all",
        runner=toy_runner,
        quiet=True,
    )
    assert list(swept.battles.columns)[0] == "variant" and len(swept.battles) == 40
    assert set(swept.battles["variant"]) == set(swept.table["variant"])
    assert pickle.loads(pickle.dumps(swept)).combatants.equals(swept.combatants)


def test_run_many_takes_a_folder(toy):
    result = combatsim.run_many(toy.parent, 30, runner=toy_runner, quiet=True)
    # the catalogue is skipped; one row per side of the one scenario
    assert list(result.table["scenario"].unique()) == ["Toy standoff"]


@pytest.mark.parametrize("name", ENTRY_POINTS)
def test_the_default_is_every_core_as_on_the_command_line(name, toy, monkeypatch):
    asked = []
    real = run_options.make_backend  # every study gets its backend from its Options

    def spy(workers=None, scheduler=None, tasks=None):
        asked.append(workers)
        return real(1, scheduler, tasks)

    monkeypatch.setattr(run_options, "make_backend", spy)
    call(name, toy)
    assert asked and set(asked) == {None}  # None: all cores, the CLI's --workers default


@pytest.mark.parametrize("quiet", [False, True])
def test_progress_is_shown_unless_quiet(toy, monkeypatch, quiet):
    import combatsim.progress

    calls, finished = [], []

    class Recorder:
        def __call__(self, done, total):
            calls.append((done, total))

        def finish(self):
            finished.append(True)

    monkeypatch.setattr(combatsim.progress, "Progress", Recorder)
    combatsim.simulate(toy, 60, runner=toy_runner, quiet=quiet, workers=1, chunk_size=20)
    if quiet:
        assert calls == [] and finished == []
    else:
        assert calls[-1] == (60, 60) and finished == [True]


def test_the_same_numbers_as_the_library_below(toy):
    """The friendly face adds defaults, not numbers: the same summary as sweeps.api."""
    top = combatsim.sweep(toy, "sides[guards].members[Guard].count=1,2", 80, runner=toy_runner)
    below = sweeps_api.sweep(
        toy, "sides[guards].members[Guard].count=1,2", battles=80, runner=toy_runner
    )
    assert top.summary == below.summary
    pd.testing.assert_frame_equal(top.table, below.table)
    pd.testing.assert_frame_equal(top.casualties, below.casualties)


def test_an_unknown_option_is_a_type_error_naming_it(toy):
    with pytest.raises(TypeError, match="batles"):
        combatsim.simulate(toy, batles=10)
