"""``combatsim run`` and ``combatsim validate`` end to end, on the fake scenario and runner.

The commands reach the scenario loader and the engine through ``run.load_scenario`` and
``run.battle_runner``; the tests put the fakes of ``tests.test_batch`` there. Also the progress
display the run command shows on stderr.
"""

from __future__ import annotations

import io
import json
import math
from pathlib import Path

import pandas as pd
import pytest

from combatsim.cli import main
from combatsim.commands import run as run_command
from combatsim.errors import ScenarioError
from combatsim.output import format_trace
from combatsim.progress import Progress
from tests.helpers import run_battles, write_results
from tests.test_batch import SCENARIO, FailAt, InterruptAt, fake_runner

SIDES = [side.name for side in SCENARIO.sides]


@pytest.fixture
def loaded(monkeypatch):
    """Fake loader and engine; returns the list of paths the loader was asked for."""
    asked: list[str] = []

    def load(path):
        asked.append(path)
        if "bad" in path:
            raise ScenarioError(path, "sides[0].members[1].weapon", "laser", "a known weapon", 7)
        return SCENARIO

    monkeypatch.setattr(run_command, "load_scenario", load)
    monkeypatch.setattr(run_command, "battle_runner", lambda: fake_runner)
    return asked


def use_runner(monkeypatch, runner):
    monkeypatch.setattr(run_command, "battle_runner", lambda: runner)


def one_error_line(capsys) -> str:
    err = capsys.readouterr().err
    assert "Traceback" not in err
    assert err.count("\n") == 1, err
    return err


# --- user mistakes: one line, exit 2 ----------------------------------------------------------


@pytest.mark.parametrize(
    ("flags", "argument"),
    [
        (["--battles", "0"], "--battles"),
        (["--battles", "-5"], "--battles"),
        (["--workers", "0"], "--workers"),
        (["--trace", "-1"], "--trace"),
        (["--seed", "-1"], "--seed"),
    ],
)
def test_out_of_range_options_are_one_line_and_exit_2(loaded, capsys, tmp_path, flags, argument):
    assert main(["run", "scenarios/dockside.yaml", "--out", str(tmp_path), *flags]) == 2
    err = one_error_line(capsys)
    assert err.startswith(f"combatsim: error: {argument}: got ")
    assert loaded == []  # refused before the scenario is even read
    assert not any(tmp_path.iterdir())


@pytest.mark.parametrize("flags", [["--battles", "many"], ["--workers", "2.5"], ["--nope"], []])
def test_malformed_command_lines_are_one_line_and_exit_2(loaded, capsys, flags):
    argv = ["run", *flags] if flags == [] else ["run", "scenarios/dockside.yaml", *flags]
    with pytest.raises(SystemExit) as exit_:
        main(argv)
    assert exit_.value.code == 2
    err = one_error_line(capsys)
    assert err.startswith(("combatsim run: error: ", "combatsim: error: unrecognized arguments"))


def test_a_bad_scenario_file_is_one_line_and_exit_2(loaded, capsys, tmp_path):
    assert main(["run", "scenarios/bad.yaml", "--out", str(tmp_path / "out")]) == 2
    err = one_error_line(capsys)
    assert err == (
        "combatsim: error: scenarios/bad.yaml:7: sides[0].members[1].weapon: found 'laser'; "
        "allowed: a known weapon\n"
    )
    assert not (tmp_path / "out").exists()


def test_an_engine_bug_is_not_dressed_up_as_a_user_mistake(loaded, monkeypatch, tmp_path):
    use_runner(monkeypatch, FailAt(3))
    with pytest.raises(ValueError, match="battle 3"):
        main(["run", "scenarios/dockside.yaml", "--battles", "10", "--out", str(tmp_path)])


# --- a batch ----------------------------------------------------------------------------------


def test_run_writes_the_files_prints_the_summary_and_where_they_went(loaded, capsys, tmp_path):
    out = tmp_path / "out"
    argv = ["run", "scenarios/dockside.yaml", "--battles", "50", "--seed", "9", "--out", str(out)]
    assert main(argv) == 0
    captured = capsys.readouterr()
    assert captured.err == ""  # a short run shows no progress
    assert "50 battles, seed 9" in captured.out
    assert "runners" in captured.out and "draws" in captured.out
    assert captured.out.rstrip().endswith(
        f"results in {out}: battles.csv, combatants.csv, summary.json"
    )
    expected = tmp_path / "expected"
    write_results(run_battles(SCENARIO, 50, seed=9, runner=fake_runner), expected)
    for name in ("battles.csv", "combatants.csv", "summary.json"):
        assert (out / name).read_bytes() == (expected / name).read_bytes()


def test_defaults_are_1000_battles_the_scenario_seed_and_results_per_scenario(
    loaded, capsys, tmp_path, monkeypatch
):
    monkeypatch.chdir(tmp_path)
    assert main(["run", "scenarios/dockside.yaml"]) == 0
    summary = json.loads((tmp_path / "results" / "dockside" / "summary.json").read_text())
    assert summary["battles_completed"] == 1000 and summary["seed"] == SCENARIO.seed
    assert loaded == ["scenarios/dockside.yaml"]


@pytest.mark.slow
def test_workers_do_not_change_the_files(loaded, tmp_path):
    base = ["run", "scenarios/dockside.yaml", "--battles", "600", "--seed", "4"]
    assert main([*base, "--out", str(tmp_path / "one")]) == 0
    assert main([*base, "--workers", "2", "--out", str(tmp_path / "two")]) == 0
    for name in ("battles.csv", "combatants.csv", "summary.json"):
        assert (tmp_path / "one" / name).read_bytes() == (tmp_path / "two" / name).read_bytes()


def test_quiet_prints_nothing_but_still_writes(loaded, capsys, tmp_path):
    argv = ["run", "scenarios/dockside.yaml", "--battles", "20", "--out", str(tmp_path), "--quiet"]
    assert main(argv) == 0
    assert capsys.readouterr() == ("", "")
    assert (tmp_path / "summary.json").exists()


def test_ctrl_c_writes_what_finished_says_so_and_exits_130(loaded, capsys, monkeypatch, tmp_path):
    use_runner(monkeypatch, InterruptAt(37))
    argv = ["run", "scenarios/dockside.yaml", "--battles", "100", "--out", str(tmp_path)]
    assert main(argv) == 130
    captured = capsys.readouterr()
    assert captured.err == (
        f"combatsim: interrupted: wrote the 37 of 100 battles that finished to {tmp_path}\n"
        f"combatsim: continue with: combatsim run --resume {tmp_path}\n"
    )
    assert "interrupted: 37 of 100 finished" in captured.out
    summary = json.loads((tmp_path / "summary.json").read_text())
    assert summary["interrupted"] is True and summary["battles_completed"] == 37
    assert (tmp_path / "battles.csv").read_text().count("\n") == 1 + 37


# --- a traced battle --------------------------------------------------------------------------


def test_trace_prints_one_battle_blow_by_blow_and_writes_nothing(
    loaded, capsys, tmp_path, monkeypatch
):
    monkeypatch.chdir(tmp_path)
    assert main(["run", "scenarios/dockside.yaml", "--trace", "3", "--seed", "77"]) == 0
    out = capsys.readouterr().out
    expected = format_trace(fake_runner(SCENARIO, 77, 3, trace=True), SIDES)
    assert out == f"Dockside ambush (scenarios/dockside.yaml, sr-classic), seed 77\n{expected}\n"
    assert list(tmp_path.iterdir()) == []


def test_trace_without_seed_uses_the_scenarios_seed(loaded, capsys):
    assert main(["run", "scenarios/dockside.yaml", "--trace", "0"]) == 0
    out = capsys.readouterr().out
    assert f", seed {SCENARIO.seed}\n" in out
    assert out.endswith(
        format_trace(fake_runner(SCENARIO, SCENARIO.seed, 0, trace=True), SIDES) + "\n"
    )


# --- validate ---------------------------------------------------------------------------------


def test_validate_reports_each_good_file(loaded, capsys):
    assert main(["validate", "scenarios/dockside.yaml", "scenarios/other.yaml"]) == 0
    assert capsys.readouterr().out.splitlines() == [
        "ok: scenarios/dockside.yaml (scenario Dockside ambush, 6 combatants, system sr-classic)",
        "ok: scenarios/other.yaml (scenario Dockside ambush, 6 combatants, system sr-classic)",
    ]


def test_validate_checks_every_file_and_exits_2_if_one_is_bad(loaded, capsys):
    assert main(["validate", "scenarios/bad.yaml", "scenarios/dockside.yaml"]) == 2
    captured = capsys.readouterr()
    assert captured.out.startswith("ok: scenarios/dockside.yaml ")
    assert captured.err.count("\n") == 1 and "Traceback" not in captured.err
    assert captured.err.startswith("combatsim: error: scenarios/bad.yaml:7: sides[0]")
    assert loaded == ["scenarios/bad.yaml", "scenarios/dockside.yaml"]


def test_validate_needs_a_file(capsys):
    with pytest.raises(SystemExit) as exit_:
        main(["validate"])
    assert exit_.value.code == 2
    assert one_error_line(capsys).startswith("combatsim validate: error: ")


# --- progress display -------------------------------------------------------------------------


class Terminal(io.StringIO):
    def isatty(self):
        return True


def test_progress_is_silent_for_a_short_run():
    stream = Terminal()
    with Progress(stream, delay=60) as progress:
        for done in (250, 500, 750, 1000):
            progress(done, 1000)
    assert stream.getvalue() == ""


def test_progress_into_a_file_or_pipe_draws_nothing():
    stream = io.StringIO()
    with Progress(stream, delay=0) as progress:
        for done in range(100, 1001, 100):
            progress(done, 1000)
    assert stream.getvalue() == ""


def test_progress_on_a_terminal_draws_a_bar_that_reaches_the_total_and_ends_its_line():
    stream = Terminal()
    progress = Progress(stream, delay=0)
    for done in range(50, 1001, 50):
        progress(done, 1000)
    progress.finish()
    text = stream.getvalue()
    assert text.endswith("\n") and text.count("\n") == 1
    assert "battles" in text and "1000/1000" in text.split("\r")[-1]


def test_progress_follows_a_total_that_grows_between_rounds():
    """A run to a precision adds rounds: the bar's total follows, and its count never drops."""
    stream = Terminal()
    progress = Progress(stream, delay=0)
    progress(250, 500)
    progress(500, 500)
    progress(750, 2000)
    assert (progress.bar.n, progress.bar.total) == (750, 2000)
    progress.finish()
    assert progress.bar is None
    assert "750/2000" in stream.getvalue()


# --- the real engine on the shipped scenarios ---------------------------------------------------

SHIPPED = sorted((Path(__file__).parent.parent / "scenarios").glob("*.yaml"))


@pytest.mark.slow
@pytest.mark.parametrize("path", SHIPPED, ids=[p.name for p in SHIPPED])
def test_shipped_scenarios_validate_run_and_trace(path, capsys, tmp_path):
    """Every shipped scenario on the real engine: validates, runs, same files on 1 and 2
    workers, traces."""
    pytest.importorskip("combatsim.engine")
    pytest.importorskip("combatsim.scenario")
    assert main(["validate", str(path)]) == 0
    assert capsys.readouterr().out.startswith(f"ok: {path} (scenario ")
    assert (
        main(["run", str(path), "--battles", "3", "--quiet", "--out", str(tmp_path / "cli")]) == 0
    )
    # Through the library, to split 6 battles into chunks of 2 over 2 processes: the real
    # scenario must pickle, and the files must not depend on how the work was shared.
    scenario = run_command.load_scenario(str(path))
    for workers in (1, 2):
        result = run_battles(scenario, 6, workers=workers, chunk_size=2)
        write_results(result, tmp_path / f"workers{workers}")
    for name in ("battles.csv", "combatants.csv", "summary.json"):
        one, two = (tmp_path / f"workers{w}" / name for w in (1, 2))
        assert one.read_bytes() == two.read_bytes()
    assert main(["run", str(path), "--trace", "1"]) == 0
    assert "\nOutcome: " in capsys.readouterr().out


# --- several scenarios, records, precision ----------------------------------------------------


def test_several_scenarios_make_one_table_with_a_row_each(loaded, capsys, tmp_path):
    out = tmp_path / "batch"
    argv = ["run", "scenarios/a.yaml", "scenarios/b.yaml", "--battles", "40", "--out", str(out)]
    assert main([*argv, "--workers", "1"]) == 0
    printed = capsys.readouterr().out
    assert f"results in {out}: table.csv, table.parquet, summary.json" in printed
    table = pd.read_csv(out / "table.csv")
    sides = ["runners", "corp", "bystanders"]  # long form: a row per scenario and side
    assert list(table["variant"]) == [0] * 3 + [1] * 3 and (table["battles"] == 40).all()
    assert list(table["side"]) == sides * 2
    assert list(table["scenario"]) == ["Dockside ambush"] * 6
    summary = json.loads((out / "summary.json").read_text())
    assert summary["kind"] == "runs" and summary["runs"][0]["seed"] == SCENARIO.seed
    assert summary["runs"][0]["sides"] == summary["runs"][1]["sides"]  # same seed, same fight
    assert loaded == ["scenarios/a.yaml", "scenarios/b.yaml"]


def test_a_folder_runs_table_is_long_with_the_figures_of_its_summary(loaded, tmp_path):
    """table.csv and table.parquet: a row per scenario and side, snake_case columns, the
    numbers of summary.json's runs."""
    out = tmp_path / "batch"
    argv = ["run", "scenarios/a.yaml", "scenarios/b.yaml", "--battles", "30", "--quiet"]
    assert main([*argv, "--out", str(out), "--workers", "1"]) == 0
    table = pd.read_csv(out / "table.csv")
    pd.testing.assert_frame_equal(pd.read_parquet(out / "table.parquet"), table, check_dtype=False)
    assert all(c == c.lower() and " " not in c for c in table.columns)
    runs = json.loads((out / "summary.json").read_text())["runs"]
    assert len(table) == sum(len(r["sides"]) for r in runs)
    for row in table.to_dict("records"):
        summary = runs[row["variant"]]
        stats = summary["sides"][row["side"]]
        assert row["scenario"] == summary["scenario"] and row["seed"] == summary["seed"]
        assert (row["wins"], row["win_rate"]) == (stats["wins"], stats["win_rate"])
        assert [row["win_ci_low"], row["win_ci_high"]] == stats["ci95"]
        assert row["draws"] == summary["draws"]["count"]
        for side in summary["casualties"] or ():  # this runner does not count casualties
            if side["level"] == "side" and side["who"] == row["side"]:
                assert row["down_rate"] == side["down_rate"]
                assert row["dead_rate"] == side["dead_rate"]


def test_a_folder_runs_every_scenario_in_it_but_not_its_catalogues(loaded, tmp_path):
    folder = tmp_path / "scenarios"
    folder.mkdir()
    for name in ("b.yaml", "a.yaml"):
        (folder / name).write_text("name: x\nsides: []\n")
    (folder / "catalogue.yaml").write_text("system: sr-classic\nweapons: {}\n")
    (folder / "notes.txt").write_text("not a scenario")
    out = tmp_path / "out"
    assert main(["run", str(folder), "--battles", "5", "--quiet", "--out", str(out)]) == 0
    assert loaded == [str(folder / "a.yaml"), str(folder / "b.yaml")]
    assert sorted(set(pd.read_csv(out / "table.csv")["variant"])) == [0, 1]


def test_a_folder_run_takes_its_subfolders_and_names_each_file(tmp_path, monkeypatch, capsys):
    """Subfolders too, as the page lists them; chains and catalogues left out; the table's
    ``file`` column is the file as the console prints it, ``scenario`` its display name."""
    from tests.test_sweep import toy_files, toy_runner

    use_runner(monkeypatch, toy_runner)
    folder = tmp_path / "scenarios"
    toy = toy_files(folder)
    sub = folder / "tactics"
    sub.mkdir()
    text = toy.read_text().replace("catalogue.yaml", "../catalogue.yaml")
    (sub / "toy.yaml").write_text(text)  # the same name in a subfolder: told apart
    (folder / "chain.yaml").write_text("name: c\nside: a\nencounters: []\n")
    out = tmp_path / "out"
    assert main(["run", str(folder), "--battles", "5", "--workers", "1", "--out", str(out)]) == 0
    table = pd.read_csv(out / "table.csv")
    assert list(table.columns[:3]) == ["variant", "file", "scenario"]
    assert list(dict.fromkeys(table["file"])) == ["tactics/toy", "toy"]
    printed = capsys.readouterr().out.splitlines()
    assert printed[0].split()[0] == "file"
    assert [line.split()[0] for line in printed[1:5:2]] == ["tactics/toy", "toy"]
    names = set(table["scenario"])
    assert len(names) == 1 and names != {"toy"}  # the display name, not the file's


def test_records_none_writes_only_the_summary(loaded, tmp_path, capsys):
    argv = ["run", "scenarios/dockside.yaml", "--battles", "30", "--records", "none"]
    assert main([*argv, "--out", str(tmp_path)]) == 0
    assert sorted(p.name for p in tmp_path.iterdir()) == [".combatsim-files.json", "summary.json"]
    assert capsys.readouterr().out.rstrip().endswith(f"results in {tmp_path}: summary.json")


def test_precision_runs_until_the_intervals_are_narrow_enough(loaded, tmp_path, capsys):
    argv = ["run", "scenarios/dockside.yaml", "--battles", "100", "--precision", "0.04"]
    assert main([*argv, "--out", str(tmp_path), "--workers", "1"]) == 0
    printed = capsys.readouterr().out
    summary = json.loads((tmp_path / "summary.json").read_text())
    n = summary["battles_completed"]
    assert n > 100 and summary["battles_requested"] == n
    assert summary["precision"]["reached"] and summary["precision"]["widest"] <= 0.04
    assert f"{n} battles, seed {SCENARIO.seed}" in printed
    assert "precision +-0.04: reached" in printed


@pytest.mark.parametrize(
    ("flags", "argument"),
    [
        (["--precision", "0"], "--precision"),
        (["--precision", "0.5"], "--precision"),
        (["--precision", "0.01", "--max-battles", "10"], "--max-battles"),
        (["--chunk-size", "0"], "--chunk-size"),
    ],
)
def test_bad_batch_options_are_one_line(loaded, capsys, tmp_path, flags, argument):
    assert main(["run", "scenarios/dockside.yaml", "--out", str(tmp_path), *flags]) == 2
    assert one_error_line(capsys).startswith(f"combatsim: error: {argument}: got ")


def test_trace_takes_one_scenario(loaded, capsys):
    assert main(["run", "scenarios/a.yaml", "scenarios/b.yaml", "--trace", "1"]) == 2
    assert one_error_line(capsys).startswith("combatsim: error: --trace: got 1")


@pytest.mark.slow
def test_a_folder_run_prints_one_row_per_scenario_and_side_within_120_characters(capsys, tmp_path):
    """The shipped scenarios folder on the real engine (a few battles each)."""
    folder = Path(__file__).parent.parent / "scenarios"
    argv = ["run", str(folder), "--battles", "3", "--workers", "1", "--out", str(tmp_path)]
    assert main(argv) == 0
    lines = capsys.readouterr().out.splitlines()
    table = lines[: lines.index("")]
    assert max(len(line) for line in table) <= 120
    assert table[0].split() == [
        "file",
        "battles",
        "side",
        "wins",
        "95%",
        "interval",
        "down",
        "draws",
        "turns",
    ]
    summary = json.loads((tmp_path / "summary.json").read_text())
    expected_rows = sum(len(run["side_order"]) for run in summary["runs"])
    assert len(table) - 1 == expected_rows == len(summary["runs"]) * 2
    firsts = [line.split()[0] for line in table[1:] if not line.startswith("   ")]
    assert firsts == [run["file"] for run in summary["runs"]]
    assert "tactics/focus" in firsts  # the subfolders' scenarios too, as the page lists them


def test_a_run_that_may_take_hours_says_so_before_it_starts(capsys):
    """2,000 combatants x 1,000 turns x 1,000 battles is days of CPU: one line on stderr first;
    the shipped 4v4 is well under an hour and says nothing."""
    from types import SimpleNamespace

    side = SimpleNamespace(fighters=[None] * 1000)
    big = SimpleNamespace(sides=[side, side], turn_limit=1000)
    run_command.warn_if_long([big], None)
    line = capsys.readouterr().err
    assert line.count("\n") == 1 and "days of CPU" in line and "2,000 combatants" in line
    assert "1,000 battles" in line and "Ctrl-C stops it and keeps what it finished" in line
    from combatsim.scenario import load_scenario

    shipped = Path(__file__).resolve().parents[1] / "scenarios" / "sr-firefight-4v4.yaml"
    run_command.warn_if_long([load_scenario(shipped)], 1000)
    assert capsys.readouterr().err == ""


def test_a_study_counts_its_variants_in_the_estimate(tmp_path, capsys):
    """A sweep of 12 values runs 13 scenarios' worth of battles: a scenario of 40 minutes of
    worst-case CPU becomes a warning; explain, whose levers are counted later, says 'each
    variant'."""
    from types import SimpleNamespace

    side = SimpleNamespace(fighters=[None] * 100)
    mid = SimpleNamespace(sides=[side, side], turn_limit=100)
    seconds = run_command.worst_cpu_seconds(mid, 1000)
    assert seconds < run_command.LONG_RUN  # alone, no word
    variants = math.ceil(run_command.LONG_RUN / seconds) + 1
    run_command.warn_if_long([mid], 1000, variants)
    line = capsys.readouterr().err
    assert line.startswith("combatsim: this run could take") and f"x {variants:,} variants" in line
    run_command.warn_if_long([mid], 1000 * variants, each=True)
    assert capsys.readouterr().err.startswith("combatsim: each variant of this study could take")
