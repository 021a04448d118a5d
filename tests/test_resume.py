"""Interrupted runs: Ctrl-C keeps every finished chunk, ``--resume DIR`` finishes the run, and the
files are then byte-identical to those of a run that was never interrupted (on one worker or
several, with records, with the precision stop). Also what ``--resume`` refuses, and a real
SIGINT sent to a running ``combatsim`` process group."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import pytest

from combatsim.cli import main
from combatsim.commands import run as run_command
from combatsim.scenario import load_scenario
from tests.helpers import run_battles, write_results
from tests.test_faults import ctrl_c_with_work_left, needs_proc
from tests.test_sweep import one_error_line, toy_files, toy_runner

ROOT = Path(__file__).parent.parent


@dataclass(frozen=True)
class CtrlCAt:
    """``toy_runner``, but Ctrl-C arrives when a battle with this index starts (any variant)."""

    index: int

    def __call__(self, scenario, root_seed, index, trace=False):
        if index == self.index:
            raise KeyboardInterrupt
        return toy_runner(scenario, root_seed, index, trace)


@pytest.fixture
def toy(tmp_path):
    return toy_files(tmp_path / "scenarios")


def use(monkeypatch, runner) -> None:
    monkeypatch.setattr(run_command, "battle_runner", lambda: runner)


def files_of(folder: Path) -> dict[str, bytes]:
    return {
        p.relative_to(folder).as_posix(): p.read_bytes()
        for p in sorted(folder.rglob("*"))
        if p.is_file()
    }


def interrupted_then_resumed(monkeypatch, capsys, argv, out, command, at, workers="1"):
    use(monkeypatch, CtrlCAt(at))
    assert main([*argv, "--out", str(out), "--workers", workers]) == 130
    err = capsys.readouterr().err
    assert err.endswith(f"combatsim: continue with: combatsim {command} --resume {out}\n")
    assert (out / ".combatsim" / "journal.jsonl").exists()
    summary = json.loads((out / "summary.json").read_text())
    assert summary["interrupted"] is True
    use(monkeypatch, toy_runner)
    assert main([command, "--resume", str(out), "--quiet", "--workers", workers]) == 0
    assert not (out / ".combatsim").exists()
    return files_of(out)


SWEEP = [
    "--vary",
    "guards:sides[guards].members[Guard].count=1..3",
    "--battles",
    "120",
    "--chunk-size",
    "25",
    "--records",
    "all",
    "--quiet",
]


@pytest.mark.slow
@pytest.mark.parametrize("workers", ["1", "2"])
def test_a_resumed_sweep_ends_with_the_files_of_an_uninterrupted_one(
    toy, tmp_path, monkeypatch, capsys, workers
):
    argv = ["sweep", str(toy), *SWEEP]
    use(monkeypatch, toy_runner)
    assert main([*argv, "--out", str(tmp_path / "whole"), "--workers", "1"]) == 0
    whole = files_of(tmp_path / "whole")
    resumed = interrupted_then_resumed(
        monkeypatch, capsys, argv, tmp_path / "cut", "sweep", at=60, workers=workers
    )
    assert resumed == whole
    assert "records/0002/combatants.csv" in whole


def test_one_worker_keeps_the_battles_of_the_chunk_it_was_in(toy, tmp_path, monkeypatch, capsys):
    use(monkeypatch, CtrlCAt(60))
    out = tmp_path / "cut"
    assert main(["sweep", str(toy), *SWEEP, "--out", str(out), "--workers", "1"]) == 130
    capsys.readouterr()
    journal = (out / ".combatsim" / "journal.jsonl").read_text().splitlines()
    spans = [(json.loads(line)["start"], json.loads(line)["stop"]) for line in journal]
    assert spans == [(0, 25), (25, 50), (50, 60)]  # battle 60 of the first variant was hit
    assert len((out / "records" / "0000" / "battles.csv").read_text().splitlines()) == 1 + 60


@pytest.mark.slow
def test_a_resumed_precision_run_stops_where_an_uninterrupted_one_does(
    toy, tmp_path, monkeypatch, capsys
):
    argv = ["sweep", str(toy), *SWEEP, "--precision", "0.05"]
    use(monkeypatch, toy_runner)
    assert main([*argv, "--out", str(tmp_path / "whole"), "--workers", "1"]) == 0
    whole = files_of(tmp_path / "whole")
    assert json.loads(whole["summary.json"])["precision"]["reached"]
    # Cut in the second round (the first is 120 battles).
    resumed = interrupted_then_resumed(monkeypatch, capsys, argv, tmp_path / "cut", "sweep", 200)
    assert resumed == whole


def test_a_resumed_run_writes_the_files_run_always_wrote(toy, tmp_path, monkeypatch, capsys):
    argv = ["run", str(toy), "--battles", "300", "--chunk-size", "40", "--quiet"]
    use(monkeypatch, toy_runner)
    assert main([*argv, "--out", str(tmp_path / "whole"), "--workers", "1"]) == 0
    whole = files_of(tmp_path / "whole")
    assert sorted(whole) == [
        ".combatsim-files.json",
        "battles.csv",
        "casualties.csv",
        "casualties.parquet",
        "combatants.csv",
        "summary.json",
    ]
    resumed = interrupted_then_resumed(monkeypatch, capsys, argv, tmp_path / "cut", "run", 150)
    assert resumed == whole


@pytest.mark.slow
def test_a_resumed_comparison_and_balance_end_as_uninterrupted_ones(
    toy, tmp_path, monkeypatch, capsys
):
    heavy = "sides[runners].members[*].armor=heavy"
    for command, argv, at in (
        ("compare", ["compare", str(toy), "--b", heavy, "--battles", "200"], 130),
        (
            "balance",
            [
                "balance",
                str(toy),
                "--vary",
                "sides[guards].members[Guard].count=1..8",
                "--side",
                "runners",
                "--battles",
                "200",
            ],
            120,
        ),
    ):
        argv = [*argv, "--chunk-size", "30", "--quiet"]
        use(monkeypatch, toy_runner)
        assert main([*argv, "--out", str(tmp_path / f"{command}-whole"), "--workers", "1"]) == 0
        whole = files_of(tmp_path / f"{command}-whole")
        cut = tmp_path / f"{command}-cut"
        assert interrupted_then_resumed(monkeypatch, capsys, argv, cut, command, at) == whole


@pytest.mark.slow
def test_a_torn_last_journal_line_is_run_again(toy, tmp_path, monkeypatch, capsys):
    argv = ["sweep", str(toy), *SWEEP]
    use(monkeypatch, toy_runner)
    assert main([*argv, "--out", str(tmp_path / "whole"), "--workers", "1"]) == 0
    use(monkeypatch, CtrlCAt(100))
    out = tmp_path / "cut"
    assert main([*argv, "--out", str(out), "--workers", "1"]) == 130
    journal = out / ".combatsim" / "journal.jsonl"
    text = journal.read_text()
    journal.write_text(text[: len(text) - 40])  # killed while writing the last line
    use(monkeypatch, toy_runner)
    assert main(["sweep", "--resume", str(out), "--quiet", "--workers", "1"]) == 0
    assert files_of(out) == files_of(tmp_path / "whole")


# --- what --resume refuses --------------------------------------------------------------------


@pytest.fixture
def cut(toy, tmp_path, monkeypatch, capsys) -> Path:
    use(monkeypatch, CtrlCAt(30))
    out = tmp_path / "cut"
    assert main(["sweep", str(toy), *SWEEP, "--out", str(out), "--workers", "1"]) == 130
    capsys.readouterr()
    use(monkeypatch, toy_runner)
    return out


@pytest.mark.parametrize(
    ("argv", "why"),
    [
        (["sweep", "--resume", "{cut}", "--battles", "500"], "no --battles: the run keeps"),
        (["run", "--resume", "{cut}"], "an unfinished `combatsim sweep` run there"),
        (["sweep", "--resume", "{tmp}"], "a folder holding an unfinished run"),
    ],
)
def test_resume_refuses_what_would_change_the_run(cut, tmp_path, capsys, argv, why):
    argv = [a.format(cut=cut, tmp=tmp_path) for a in argv]
    assert main(argv) == 2
    err = one_error_line(capsys)
    assert err.startswith("combatsim: error: --resume: got ") and why in err


def test_resume_refuses_a_scenario_changed_since(cut, toy, capsys):
    toy.write_text(toy.read_text().replace("turn_limit: 12", "turn_limit: 13"))
    assert main(["sweep", "--resume", str(cut)]) == 2
    assert "changed since the run started" in one_error_line(capsys)


def test_resume_must_run_where_the_run_started(cut, tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    assert main(["sweep", "--resume", str(cut)]) == 2
    assert "where the run started" in one_error_line(capsys)


# --- a real Ctrl-C ----------------------------------------------------------------------------


@pytest.mark.slow
@needs_proc
def test_sigint_to_a_running_process_group_keeps_finished_chunks_and_resume_completes(tmp_path):
    """The real thing: the command on two worker processes, SIGINT to its process group (what
    Ctrl-C in a terminal sends), exit code 130, then ``--resume``: the same files as a run of
    the same battles that was never interrupted (here, written through the library)."""
    toy = toy_files(tmp_path / "scenarios")
    out = tmp_path / "cut"
    # seconds of work on two workers; the signal comes while chunks are left however fast
    # the engine or busy the machine (``ctrl_c_with_work_left``)
    battles, size = 12000, 200
    argv = ["run", str(toy), "--battles", str(battles), "--chunk-size", str(size)]
    argv += ["--records", "battles"]
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    command = [sys.executable, "-m", "combatsim", *argv, "--workers", "2", "--quiet"]
    process = subprocess.Popen(
        [*command, "--out", str(out)],
        cwd=ROOT,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
    )
    journal = out / ".combatsim" / "journal.jsonl"
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and process.poll() is None:
        if journal.exists() and journal.read_text().count("\n") >= 3:
            break
        time.sleep(0.05)
    assert process.poll() is None, process.communicate()
    ctrl_c_with_work_left(process, out, chunks=battles // size)
    _, err = process.communicate(timeout=60)
    assert process.returncode == 130, err
    assert "combatsim: interrupted: wrote the " in err and "Traceback" not in err
    done = json.loads((out / "summary.json").read_text())["battles_completed"]
    assert 600 <= done < battles  # the chunks in flight hand back their finished battles too
    resumed = subprocess.run(
        [sys.executable, "-m", "combatsim", "run", "--resume", str(out), "--quiet"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert resumed.returncode == 0, resumed.stderr
    reference = tmp_path / "reference"
    write_results(run_battles(load_scenario(toy), battles, records="battles", workers=2), reference)
    for name in ("battles.csv", "summary.json"):
        assert (out / name).read_bytes() == (reference / name).read_bytes(), name
    assert not (out / "combatants.csv").exists()
