"""Faults: a real Ctrl-C (SIGINT to the process group) on two workers keeps every finished
battle, chunks in flight included; a Ctrl-C or SIGTERM while the workers start is not lost;
SIGTERM stops a run as Ctrl-C does; ``kill -9`` of the parent leaves no worker behind; chunk
files that vanish mid-run are reported, not papered over; a damaged or foreign ``--resume``
folder is one line.

The subprocess tests poll for what they wait on with generous deadlines (the machine may be a
loaded 2-core one): no sleep assumes a speed. A Ctrl-C meant to cut a run short is sent while
the run is paused with chunks left (``ctrl_c_with_work_left``), never at a moment the run may
already have finished.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import signal
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import pytest

from combatsim.cli import main
from combatsim.commands import run as run_command
from combatsim.run import study as study_module
from combatsim.run.backends import IN_FLIGHT_PER_WORKER
from combatsim.scenario import load_scenario
from tests.helpers import default_sigint, run_battles, write_results
from tests.test_sweep import one_error_line, toy_files, toy_runner

ROOT = Path(__file__).parent.parent
ENV = {**os.environ, "PYTHONPATH": str(ROOT)}
DEADLINE = 120  # seconds: for a loaded machine; the tests end as soon as the condition holds

needs_proc = pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="needs Linux /proc")


def start(argv: list[str], cwd: Path = ROOT) -> subprocess.Popen:
    return subprocess.Popen(
        [sys.executable, "-m", "combatsim", *argv],
        cwd=cwd,
        env=ENV,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
        preexec_fn=default_sigint,
    )


def wait_for(condition, what: str, process: subprocess.Popen | None = None) -> None:
    deadline = time.monotonic() + DEADLINE
    while not condition():
        if process is not None and process.poll() is not None:
            raise AssertionError(f"the command ended before {what}: {process.communicate()}")
        if time.monotonic() > deadline:
            raise AssertionError(f"no {what} within {DEADLINE} s")
        time.sleep(0.05)


def resume_in_a_new_process(out: Path) -> subprocess.CompletedProcess:
    """``combatsim run --resume OUT`` in a process of its own, as a user would finish a run."""
    return subprocess.run(
        [sys.executable, "-m", "combatsim", "run", "--resume", str(out), "--quiet"],
        cwd=ROOT,
        env=ENV,
        capture_output=True,
        text=True,
        timeout=4 * DEADLINE,
    )


def journal_lines(out: Path) -> list[dict]:
    journal = out / ".combatsim" / "journal.jsonl"
    if not journal.exists():
        return []
    return [json.loads(line) for line in journal.read_text().splitlines() if line.endswith("}")]


def descendants(pid: int) -> list[int]:
    """Live (not zombie) processes below ``pid``: its workers, and with a start method other
    than fork, the server they are forked from."""
    parent_of = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
            except OSError:
                continue
            if fields[0] != "Z":
                parent_of[int(entry.name)] = int(fields[1])
    found, frontier = [], {pid}
    while frontier:
        frontier = {child for child, parent in parent_of.items() if parent in frontier}
        found += sorted(frontier)
    return found


def state(pid: int) -> str:
    """The process's state letter (R, S, T for stopped, Z for a zombie...); "" if it is gone."""
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return ""


def alive(pid: int) -> bool:
    return state(pid) not in ("", "Z")


def ctrl_c_with_work_left(
    process: subprocess.Popen, out: Path, chunks: int, workers: int = 2
) -> int:
    """Ctrl-C (SIGINT to the process group) at a moment the run surely has chunks left.

    The group is paused (SIGSTOP) first, so nothing moves between reading the journal and the
    signal; the run takes the signal when it goes on (SIGCONT). However busy the machine, the
    signal cannot come after the run's last chunk, as a plain ``killpg`` could. Fails if the run
    was too near its end (the chunks in flight, which may all come back whole). Returns the
    chunks in the journal when the signal was sent.
    """
    os.killpg(process.pid, signal.SIGSTOP)
    try:
        wait_for(lambda: state(process.pid) == "T", "paused run", process)
        done = len(journal_lines(out))
        assert done + IN_FLIGHT_PER_WORKER * workers < chunks, f"at {done} of {chunks} chunks"
        os.killpg(process.pid, signal.SIGINT)
    finally:
        with contextlib.suppress(ProcessLookupError):  # the run ended before the pause
            os.killpg(process.pid, signal.SIGCONT)
    return done


# --- a signal while a finished chunk is kept ---------------------------------------------------


def test_a_signal_between_journal_and_tally_waits_until_the_chunk_is_kept(tmp_path, monkeypatch):
    """SIGTERM raised right after a chunk's journal line is written, before the chunk joins
    the tally (the moment CI once hit with two workers): the run stops only once the chunk is
    kept, so the summary counts exactly the journal's battles."""
    toy = toy_files(tmp_path / "scenarios")
    out = tmp_path / "cut"
    made = study_module.Chunk
    sent = []

    def chunk_then_signal(*args):
        if not sent:
            sent.append(True)
            signal.raise_signal(signal.SIGTERM)  # the command line takes it as Ctrl-C
        return made(*args)

    monkeypatch.setattr(study_module, "Chunk", chunk_then_signal)
    argv = ["run", str(toy), "--battles", "1000", "--chunk-size", "200", "--workers", "1"]
    assert main([*argv, "--quiet", "--out", str(out)]) == 130
    kept = sum(c["stop"] - c["start"] for c in journal_lines(out))
    summary = json.loads((out / "summary.json").read_text())
    assert sent and summary["interrupted"] and summary["battles_completed"] == kept == 200


# --- Ctrl-C and SIGTERM with worker processes ---------------------------------------------------


@pytest.mark.slow
@needs_proc
def test_sigint_with_two_workers_keeps_the_battles_of_chunks_in_flight(tmp_path):
    """The issue's case: on two workers, Ctrl-C used to drop every battle of the chunks in
    flight. Now the workers stop after their current battle and hand those battles back: the
    journal holds chunks cut short, the files count exactly the journal's battles, and
    ``--resume`` ends with the files of a run never interrupted."""
    toy = toy_files(tmp_path / "scenarios")
    out, size, battles = tmp_path / "cut", 400, 12000  # seconds of work, even on a fast engine
    argv = ["run", str(toy), "--battles", str(battles), "--chunk-size", str(size)]
    argv += ["--records", "battles", "--workers", "2", "--quiet"]
    process = start([*argv, "--out", str(out)])
    wait_for(lambda: len(journal_lines(out)) >= 1, "finished chunk", process)
    wait_for(lambda: len(descendants(process.pid)) >= 2, "two workers", process)
    ctrl_c_with_work_left(process, out, chunks=battles // size)
    _, err = process.communicate(timeout=DEADLINE)
    assert process.returncode == 130, err
    assert "Traceback" not in err and "combatsim: interrupted: wrote the " in err
    chunks = journal_lines(out)
    kept = sum(c["stop"] - c["start"] for c in chunks)
    assert any(c["stop"] - c["start"] < size for c in chunks), chunks  # cut short, kept
    summary = json.loads((out / "summary.json").read_text())
    assert summary["battles_completed"] == kept < battles
    rows = (out / "battles.csv").read_text().count("\n") - 1
    assert rows == kept  # every finished battle is in the records too

    resumed = resume_in_a_new_process(out)
    assert resumed.returncode == 0, resumed.stderr
    reference = tmp_path / "reference"
    write_results(run_battles(load_scenario(toy), battles, records="battles", workers=2), reference)
    assert (out / "battles.csv").read_bytes() == (reference / "battles.csv").read_bytes()
    assert (out / "summary.json").read_bytes() == (reference / "summary.json").read_bytes()


# The command line, with a Ctrl-C (or SIGTERM) sent from inside, right after the process forked
# its first worker: the moment a signal used to be raised in an at-fork callback, where Python
# drops it ("Exception ignored"), so that the run went on to its end and exited 0.
SIGNAL_AT_FORK = """
import os, signal, sys
from combatsim.cli import main

armed = True


def send():
    global armed
    if armed:
        armed = False
        if sys.argv[1] == "SIGINT":
            os.killpg(0, signal.SIGINT)  # to the process group, as Ctrl-C in a terminal
        else:
            os.kill(os.getpid(), signal.SIGTERM)  # to this process alone, as `kill PID`


os.register_at_fork(after_in_parent=send)
sys.exit(main(sys.argv[2:]))
"""


@pytest.mark.slow
@needs_proc
@pytest.mark.parametrize("name", ["SIGINT", "SIGTERM"])
def test_a_signal_while_the_workers_start_stops_the_run(tmp_path, name):
    toy = toy_files(tmp_path / "scenarios")
    out, battles = tmp_path / "cut", 4000
    argv = ["run", str(toy), "--battles", str(battles), "--chunk-size", "200"]
    argv += ["--records", "battles", "--workers", "2", "--quiet", "--out", str(out)]
    run = subprocess.run(
        [sys.executable, "-c", SIGNAL_AT_FORK, name, *argv],
        cwd=ROOT,
        env=ENV,
        capture_output=True,
        text=True,
        timeout=DEADLINE,
        start_new_session=True,  # its own process group: the SIGINT reaches nothing else
        preexec_fn=default_sigint,
    )
    assert run.returncode == 130, run.stderr
    assert "Traceback" not in run.stderr and "Exception ignored" not in run.stderr, run.stderr
    assert "combatsim: interrupted: wrote the " in run.stderr
    summary = json.loads((out / "summary.json").read_text())
    assert summary["interrupted"] and summary["battles_completed"] < battles
    kept = sum(c["stop"] - c["start"] for c in journal_lines(out))
    assert summary["battles_completed"] == kept


@pytest.mark.slow
@needs_proc
def test_sigterm_stops_a_sweep_as_ctrl_c_does_and_leaves_no_worker(tmp_path):
    toy = toy_files(tmp_path / "scenarios")
    out = tmp_path / "swept"
    argv = ["sweep", str(toy), "--vary", "guards:sides[guards].members[Guard].count=1..4"]
    argv += ["--battles", "3000", "--chunk-size", "200", "--workers", "2", "--quiet"]
    process = start([*argv, "--out", str(out)])
    wait_for(lambda: len(journal_lines(out)) >= 1, "finished chunk", process)
    wait_for(lambda: len(descendants(process.pid)) >= 2, "two workers", process)
    workers = descendants(process.pid)
    process.send_signal(signal.SIGTERM)  # to the parent alone, as `kill PID` does
    _, err = process.communicate(timeout=DEADLINE)
    assert process.returncode == 130, err
    assert err.endswith(f"combatsim: continue with: combatsim sweep --resume {out}\n"), err
    assert not [pid for pid in workers if alive(pid)]
    kept = sum(c["stop"] - c["start"] for c in journal_lines(out))
    assert json.loads((out / "summary.json").read_text())["battles_completed"] == kept


@pytest.mark.slow
@needs_proc
def test_kill_9_of_the_parent_leaves_no_worker_behind(tmp_path):
    """Workers notice their parent is gone and end within seconds; the caller's pipes, which
    they inherited, close with them."""
    toy = toy_files(tmp_path / "scenarios")
    argv = ["run", str(toy), "--battles", "200000", "--chunk-size", "200", "--records", "none"]
    out = tmp_path / "killed"
    process = start([*argv, "--workers", "2", "--quiet", "--out", str(out)])
    wait_for(lambda: len(journal_lines(out)) >= 1, "finished chunk", process)
    wait_for(lambda: len(descendants(process.pid)) >= 2, "two workers", process)
    workers = descendants(process.pid)
    os.kill(process.pid, signal.SIGKILL)
    process.communicate(timeout=DEADLINE)  # EOF on both pipes: no worker holds them
    wait_for(lambda: not [pid for pid in workers if alive(pid)], "end of the workers")
    assert (out / ".combatsim" / "run.json").exists()  # the journal stays for --resume


# --- vanished chunk files ---------------------------------------------------------------------


@dataclass(frozen=True)
class CleanAt:
    """``toy_runner``, but when battle ``index`` starts, the run's chunk files are deleted (as
    someone cleaning the output folder would)."""

    index: int
    folder: Path

    def __call__(self, scenario, root_seed, index, trace=False):
        if index == self.index:
            shutil.rmtree(self.folder / ".combatsim" / "records", ignore_errors=True)
        return toy_runner(scenario, root_seed, index, trace)


@pytest.mark.slow
@pytest.mark.parametrize("command", ["run", "sweep"])
def test_vanished_chunk_files_fail_loudly_and_resume_runs_them_again(
    tmp_path, monkeypatch, capsys, command
):
    toy = toy_files(tmp_path / "scenarios")
    out = tmp_path / "cleaned"
    argv = [command, str(toy), "--battles", "300", "--chunk-size", "50", "--records", "all"]
    if command == "sweep":
        argv += ["--vary", "guards:sides[guards].members[Guard].count=1..2"]
    argv += ["--quiet", "--workers", "1", "--out", str(out)]
    monkeypatch.setattr(run_command, "battle_runner", lambda: CleanAt(120, out))
    assert main(argv) == 2
    err = one_error_line(capsys)
    assert "chunk file(s) of per-battle records vanished during the run" in err
    assert "battles-0000000000-0000000050.csv" in err
    assert f"continue with: combatsim {command} --resume {out}" in err
    assert not (out / "table.csv").exists() and not (out / "battles.csv").exists()

    monkeypatch.setattr(run_command, "battle_runner", lambda: toy_runner)
    assert main([command, "--resume", str(out), "--quiet", "--workers", "1"]) == 0
    reference = tmp_path / "reference"
    assert main([*argv[:-1], str(reference)]) == 0
    names = sorted(p.relative_to(reference) for p in reference.rglob("*") if p.is_file())
    assert names == sorted(p.relative_to(out) for p in out.rglob("*") if p.is_file())
    for name in names:
        assert (out / name).read_bytes() == (reference / name).read_bytes(), name


# --- damaged or foreign --resume folders ----------------------------------------------------


@pytest.fixture
def interrupted(tmp_path, monkeypatch, capsys):
    """A run cut by Ctrl-C at battle 120 of 300 (chunks of 50): its folder."""
    from tests.test_resume import CtrlCAt

    toy = toy_files(tmp_path / "scenarios")
    out = tmp_path / "cut"
    monkeypatch.setattr(run_command, "battle_runner", lambda: CtrlCAt(120))
    argv = ["run", str(toy), "--battles", "300", "--chunk-size", "50", "--records", "battles"]
    assert main([*argv, "--quiet", "--workers", "1", "--out", str(out)]) == 130
    capsys.readouterr()
    monkeypatch.setattr(run_command, "battle_runner", lambda: toy_runner)
    return out


def damage_run_file(state: Path, text: str) -> None:
    (state / "run.json").write_text(text)


def hand_edited(key: str, value):
    def edit(state: Path, _: str) -> None:
        stored = json.loads((state / "run.json").read_text())
        stored["meta"]["args"][key] = value
        (state / "run.json").write_text(json.dumps(stored))

    edit.__name__ = f"hand_edited_{key}"
    return edit


def damage_journal(state: Path, text: str) -> None:
    journal = state / "journal.jsonl"
    journal.write_text(text + journal.read_text())


def foreign_tally(state: Path, _: str) -> None:
    journal = state / "journal.jsonl"
    entry = json.loads(journal.read_text().splitlines()[0])
    entry["tallies"][0]["sides"] = ["martians", "venusians"]
    journal.write_text(json.dumps(entry) + "\n" + journal.read_text())


def negative_count(state: Path, _: str) -> None:
    journal = state / "journal.jsonl"
    entry = json.loads(journal.read_text().splitlines()[0])
    entry["tallies"][0]["turns"][0] = -5
    journal.write_text(json.dumps(entry) + "\n")


@pytest.mark.parametrize(
    "damage, text, expected",
    [
        (damage_run_file, "{not json", "run.json: Expecting property name"),
        (damage_run_file, "[1, 2]", "is not a combatsim run file"),
        (damage_run_file, '{"format": 1, "meta": {"command": "run"}}', "names its scenarios"),
        (damage_run_file, '{"format": 1, "meta": 5}', "lacks the run's arguments"),
        (hand_edited("battles", "many"), "", "a run file whose battles is what it was"),
        (hand_edited("scenarios", [3]), "", "a run file whose scenarios is what it was"),
        (hand_edited("chunk_size", 0), "", "(its --chunk-size is 0; allowed: an integer"),
        (damage_journal, "garbage\n", "line 1 of journal.jsonl is not JSON"),
        (damage_journal, '{"variants": [7], "start": 0}\n', "line 1 of journal.jsonl does not"),
        (damage_journal, '{"variants": [0], "start": 5, "stop": 2}\n', "battles 5 to 2"),
        (foreign_tally, "", "a tally of other sides"),
        (negative_count, "", "a count of -5"),
    ],
)
def test_a_damaged_or_foreign_resume_folder_is_one_line(
    interrupted, capsys, damage, text, expected
):
    damage(interrupted / ".combatsim", text)
    assert main(["run", "--resume", str(interrupted), "--quiet"]) == 2
    err = one_error_line(capsys)
    assert err.startswith(f"combatsim: error: --resume: got '{interrupted}'"), err
    assert expected in err, err


def test_a_run_file_that_is_a_fifo_is_refused_without_hanging(interrupted, capsys):
    run_file = interrupted / ".combatsim" / "run.json"
    run_file.unlink()
    os.mkfifo(run_file)
    assert main(["run", "--resume", str(interrupted), "--quiet"]) == 2
    assert "a folder holding an unfinished run" in one_error_line(capsys)
