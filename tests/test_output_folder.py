"""The output folder: one writer at a time (an OS lock, tested with real concurrent processes),
only a run's own files replaced or removed (the manifest, ``--force``), temporary files never
followed through a link, and every fault of the folder mid-run (removed, replaced by a file,
read-only, full, a dangling link) one line and exit 2 within seconds, each many times over
(the hang this guards against was intermittent).
"""

from __future__ import annotations

import errno
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from combatsim import folder as folders
from combatsim import output
from combatsim.cli import main
from combatsim.commands import run as run_command
from combatsim.errors import UsageError
from combatsim.sweeps import api
from tests.test_faults import (
    DEADLINE,
    ENV,
    ROOT,
    journal_lines,
    resume_in_a_new_process,
    start,
    wait_for,
)
from tests.test_sweep import one_error_line, toy_files, toy_runner

REAL = ROOT / "scenarios" / "sr-firefight-4v4.yaml"
LONG = ["run", str(REAL), "--battles", "100000", "--chunk-size", "50", "--quiet"]
FAULT_TRIALS = 6  # subprocess trials per fault case (each a couple of seconds)
INJECTED_TRIALS = 25  # in-process trials per injected fault


@pytest.fixture
def toy(tmp_path):
    return toy_files(tmp_path / "scenarios")


def files_of(folder: Path) -> dict[str, bytes]:
    return {
        p.relative_to(folder).as_posix(): p.read_bytes()
        for p in sorted(folder.rglob("*"))
        if p.is_file()
    }


# --- one writer per folder --------------------------------------------------------------------


@pytest.mark.slow
def test_a_second_run_into_a_folder_in_use_is_one_line_naming_the_other_run(tmp_path):
    out = tmp_path / "shared"
    argv = ["run", str(REAL), "--battles", "2000", "--chunk-size", "50", "--records", "none"]
    first = start([*argv, "--quiet", "--workers", "1", "--out", str(out)])
    try:
        wait_for(lambda: len(journal_lines(out)) >= 1, "finished chunk", first)
        began = time.monotonic()
        second = subprocess.run(
            [sys.executable, "-m", "combatsim", *LONG[:2], "--battles", "100", "--seed", "99"]
            + ["--quiet", "--out", str(out)],
            cwd=ROOT,
            env=ENV,
            capture_output=True,
            text=True,
            timeout=DEADLINE,
        )
        assert time.monotonic() - began < 30
        assert second.returncode == 2, second.stderr
        assert second.stderr.count("\n") == 1 and "Traceback" not in second.stderr
        assert f"{out}: another combatsim run is writing there (PID {first.pid}: " in second.stderr
        assert "combatsim run " in second.stderr  # the other run's command
        assert first.poll() is None  # the first run goes on undisturbed
    finally:
        _, err = first.communicate(timeout=4 * DEADLINE)
    assert first.returncode == 0, err
    summary = json.loads((out / "summary.json").read_text())
    assert summary["seed"] != 99 and summary["battles_completed"] == 2000


@pytest.mark.slow
def test_the_python_api_is_refused_a_folder_a_command_is_writing(tmp_path, toy):
    out = tmp_path / "shared"
    argv = ["run", str(REAL), "--battles", "2000", "--chunk-size", "50", "--records", "none"]
    first = start([*argv, "--quiet", "--workers", "1", "--out", str(out)])
    try:
        wait_for(lambda: len(journal_lines(out)) >= 1, "finished chunk", first)
        with pytest.raises(folders.FolderInUse, match=f"PID {first.pid}: combatsim run"):
            api.run_one(toy, battles=10, runner=toy_runner, out=out)
    finally:
        _, err = first.communicate(timeout=4 * DEADLINE)
    assert first.returncode == 0, err
    assert json.loads((out / "summary.json").read_text())["source"] == str(REAL)


@pytest.mark.slow
def test_a_run_killed_outright_leaves_the_folder_free_and_resumable(tmp_path):
    out = tmp_path / "crashed"
    argv = ["run", str(REAL), "--battles", "3000", "--chunk-size", "50", "--quiet"]
    first = start([*argv, "--workers", "1", "--out", str(out)])
    wait_for(lambda: len(journal_lines(out)) >= 2, "finished chunks", first)
    os.killpg(first.pid, signal.SIGKILL)  # no cleanup at all: the OS drops the lock
    first.communicate(timeout=DEADLINE)
    resumed = resume_in_a_new_process(out)
    assert resumed.returncode == 0, resumed.stderr
    assert json.loads((out / "summary.json").read_text())["battles_completed"] == 3000
    assert not (out / folders.LOCK).exists()


def test_one_process_may_hold_a_folder_twice_and_lets_go_of_it(tmp_path, toy):
    out = tmp_path / "nested"
    with folders.writing(out) as outer, folders.writing(out) as inner:
        assert inner is outer and (out / folders.LOCK).read_text().startswith(f"{os.getpid()}\n")
        api.run_one(toy, battles=10, runner=toy_runner, out=out)
    assert not (out / folders.LOCK).exists()
    with folders.writing(out):  # free again
        pass


# --- only the run's own files ---------------------------------------------------------------


def test_a_folder_holding_other_files_is_refused_unless_forced_and_they_are_kept(
    tmp_path, toy, capsys
):
    """The issue's case: the user's table.csv, report.html and plots beside a summary.json
    were deleted by the next run into the folder."""
    out = tmp_path / "mine"
    argv = ["run", str(toy), "--battles", "20", "--quiet", "--out", str(out)]
    run_command_runner = run_command.battle_runner
    try:
        run_command.battle_runner = lambda: toy_runner
        assert main(argv) == 0
        (out / "table.csv").write_text("my table")
        (out / "report.html").write_text("my page")
        (out / "plots").mkdir()
        (out / "plots" / "win_rate.png").write_bytes(b"my plot")
        assert main(argv) == 2
        err = one_error_line(capsys)
        assert "it holds files combatsim did not write: plots/win_rate.png, report.html" in err
        assert "add --force" in err
        assert main([*argv, "--force", "--records", "none"]) == 0
    finally:
        run_command.battle_runner = run_command_runner
    assert (out / "table.csv").read_text() == "my table"
    assert (out / "report.html").read_text() == "my page"
    assert (out / "plots" / "win_rate.png").read_bytes() == b"my plot"
    assert not (out / "battles.csv").exists()  # its own stale file is gone


def test_the_python_api_refuses_foreign_files_unless_forced(tmp_path, toy):
    out = tmp_path / "mine"
    out.mkdir()
    (out / "notes.txt").write_text("mine")
    with pytest.raises(UsageError, match=r"^out: .*notes\.txt.*add force=True"):
        api.sweep(toy, ["guards:sides[guards].members[Guard].count=1..2"], out=out, battles=5)
    api.run_one(toy, battles=5, runner=toy_runner, out=out, force=True)
    assert (out / "notes.txt").read_text() == "mine"


@pytest.mark.parametrize("call", ["simulate", "run_one", "sweep"])
def test_an_empty_out_is_refused_in_python_as_on_the_command_line(tmp_path, toy, call):
    import combatsim

    (tmp_path / "keep.txt").write_text("mine")
    os.chdir(tmp_path)
    with pytest.raises(UsageError, match="^out: got ''.*a folder name"):
        if call == "simulate":
            combatsim.simulate(toy, 5, quiet=True, workers=1, out="")
        elif call == "run_one":
            api.run_one(toy, battles=5, runner=toy_runner, out="")
        else:
            api.sweep(toy, ["guards:sides[guards].members[Guard].count=1..2"], out="")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["keep.txt", "scenarios"]


def test_the_manifest_lists_what_the_run_wrote_and_a_rerun_removes_only_that(tmp_path, toy):
    out = tmp_path / "out"
    first = api.run_one(toy, battles=20, runner=toy_runner, out=out)
    manifest = json.loads((out / folders.MANIFEST).read_text())
    assert manifest == sorted(p.relative_to(out).as_posix() for p in first.files)
    api.run_one(toy, battles=20, runner=toy_runner, out=out, records="none")
    assert not (out / "battles.csv").exists()
    assert "battles.csv" not in json.loads((out / folders.MANIFEST).read_text())


def test_a_temporary_file_is_never_written_through_a_planted_link(tmp_path):
    victim = tmp_path / "victim.txt"
    victim.write_text("precious")
    out = tmp_path / "out"
    out.mkdir()
    os.symlink(victim, out / f".summary.json.{os.getpid()}.tmp")
    output.write_summary({"a": 1}, out / "summary.json")
    assert victim.read_text() == "precious"
    assert json.loads((out / "summary.json").read_text()) == {"a": 1}


def test_a_dangling_link_as_the_output_folder_is_one_line(tmp_path, toy, capsys):
    link = tmp_path / "link"
    link.symlink_to(tmp_path / "nowhere")
    for _ in range(5):
        assert main(["run", str(toy), "--battles", "5", "--quiet", "--out", str(link)]) == 2
        err = one_error_line(capsys)
        assert "a symbolic link to" in err and "which does not exist" in err
    with pytest.raises(UsageError, match="symbolic link"):
        api.run_one(toy, battles=5, runner=toy_runner, out=link)
    assert not (tmp_path / "nowhere").exists()


# --- faults of the folder mid-run -------------------------------------------------------------


def remove(out: Path) -> None:
    shutil.rmtree(out, ignore_errors=True)
    shutil.rmtree(out, ignore_errors=True)  # a chunk written meanwhile


def replace_by_file(out: Path) -> None:
    """The folder removed and a file put in its place; again if a chunk the run was writing
    made the folder anew between the two (a loaded machine saw that)."""
    for _ in range(100):
        remove(out)
        try:
            out.write_text("a file now")
            return
        except IsADirectoryError:
            continue
    raise AssertionError(f"{out} kept coming back as a folder")


@pytest.mark.slow
@pytest.mark.parametrize("fault", [remove, replace_by_file])
def test_a_folder_removed_or_replaced_mid_run_ends_in_one_line_within_seconds(tmp_path, fault):
    """On two workers, many times: the run used to hang now and then at exit, waiting on the
    pool's manager thread after its workers were killed mid-send."""
    for trial in range(FAULT_TRIALS):
        out = tmp_path / f"trial{trial}"
        process = start([*LONG, "--workers", "2", "--records", "all", "--out", str(out)])
        wait_for(lambda: len(journal_lines(out)) >= 1, "finished chunk", process)  # noqa: B023
        fault(out)
        faulted = time.monotonic()
        _, err = process.communicate(timeout=DEADLINE)
        assert time.monotonic() - faulted < 30, trial
        assert process.returncode == 2, (trial, err)
        assert err.count("\n") == 1 and "Traceback" not in err, (trial, err)
        assert err.startswith("combatsim: error: "), err


class Failing:
    """Raise ``OSError(code)`` from the chunk writer once ``after`` chunks were written."""

    def __init__(self, code: int, after: int):
        self.code, self.after, self.calls = code, after, 0
        self.real = output._write_csv

    def __call__(self, frame, f):
        self.calls += 1
        if self.calls > self.after:
            raise OSError(self.code, os.strerror(self.code))
        return self.real(frame, f)


@pytest.mark.slow
@pytest.mark.parametrize(
    "code, says",
    [
        (errno.ENOSPC, "(No space left on device); the finished battles are kept; free some"),
        (errno.EROFS, "(Read-only file system); the finished battles are kept; make it writable"),
        (errno.EACCES, "(Permission denied); the finished battles are kept; make it writable"),
    ],
)
@pytest.mark.parametrize("workers", ["1", "2"])
def test_a_full_or_read_only_folder_is_one_line_and_resume_gives_the_same_files(
    tmp_path, toy, monkeypatch, capsys, code, says, workers
):
    monkeypatch.setattr(run_command, "battle_runner", lambda: toy_runner)
    argv = ["sweep", str(toy), "--vary", "guards:sides[guards].members[Guard].count=1..2"]
    argv += ["--battles", "200", "--chunk-size", "20", "--records", "all", "--quiet"]
    argv += ["--workers", workers]
    reference = tmp_path / "reference"
    assert main([*argv, "--out", str(reference)]) == 0
    trials = INJECTED_TRIALS if workers == "2" else 5
    for trial in range(trials):
        out = tmp_path / f"trial{trial}"
        failing = Failing(code, after=trial % 7)
        monkeypatch.setattr(output, "_write_csv", failing)
        began = time.monotonic()
        assert main([*argv, "--out", str(out)]) == 2
        assert time.monotonic() - began < 30
        err = one_error_line(capsys)
        assert err.startswith(f"combatsim: error: {out}: cannot write the results there "), err
        assert says in err and f"combatsim sweep --resume {out}" in err, err
        monkeypatch.setattr(output, "_write_csv", failing.real)  # space freed
        assert main(["sweep", "--resume", str(out), "--quiet", "--workers", workers]) == 0
        assert files_of(out) == files_of(reference), trial


def test_report_on_a_folder_it_cannot_write_is_one_line(tmp_path, toy, monkeypatch, capsys):
    api.run_one(toy, battles=20, runner=toy_runner, out=tmp_path / "done")

    def refuse(path, binary=False, dir_fd=None):
        raise PermissionError(errno.EACCES, os.strerror(errno.EACCES), str(path))

    monkeypatch.setattr(folders, "create_exclusive", refuse)
    for _ in range(3):
        assert main(["report", str(tmp_path / "done")]) == 2
        err = one_error_line(capsys)
        assert "cannot write the results there (Permission denied)" in err, err


@pytest.mark.skipif(os.geteuid() == 0, reason="root may write into a read-only folder")
def test_report_on_a_read_only_folder_is_one_line(tmp_path, toy, capsys):
    done = tmp_path / "done"
    api.run_one(toy, battles=20, runner=toy_runner, out=done)
    done.chmod(0o555)
    try:
        assert main(["report", str(done)]) == 2
        assert "Permission denied" in one_error_line(capsys)
    finally:
        done.chmod(0o755)


@pytest.fixture
def small_disk(tmp_path):
    """A 256 KB tmpfs (skipped where mounting is not permitted)."""
    mount = tmp_path / "disk"
    mount.mkdir()
    made = subprocess.run(
        ["mount", "-t", "tmpfs", "-o", "size=256k", "tmpfs", str(mount)],
        capture_output=True,
    )
    if made.returncode != 0:
        pytest.skip("cannot mount a tmpfs here")
    yield mount
    subprocess.run(["umount", "-l", str(mount)], check=False)


@pytest.mark.slow
def test_a_really_full_disk_is_one_line_and_resume_after_freeing_space_finishes(
    small_disk, tmp_path
):
    out = small_disk / "out"
    argv = ["run", str(REAL), "--battles", "600", "--chunk-size", "50", "--quiet"]
    full = subprocess.run(
        [sys.executable, "-m", "combatsim", *argv, "--workers", "2", "--out", str(out)],
        cwd=ROOT,
        env=ENV,
        capture_output=True,
        text=True,
        timeout=DEADLINE,
    )
    assert full.returncode == 2, full.stderr
    assert full.stderr.count("\n") == 1 and "No space left on device" in full.stderr
    subprocess.run(["mount", "-o", "remount,size=64m", str(small_disk)], check=True)
    resumed = resume_in_a_new_process(out)
    assert resumed.returncode == 0, resumed.stderr
    reference = tmp_path / "reference"
    subprocess.run(
        [sys.executable, "-m", "combatsim", *argv, "--out", str(reference)],
        cwd=ROOT,
        env=ENV,
        check=True,
        timeout=4 * DEADLINE,
    )
    assert files_of(out) == files_of(reference)


# --- every writer on a read-only folder -------------------------------------------------------

READ_ONLY_WRITERS = {
    "run into a new folder": ["run", "{toy}", "--battles", "5", "--out", "{ro}/new"],
    "run into an empty folder": ["run", "{toy}", "--battles", "5", "--out", "{ro}/empty"],
    "run over results": ["run", "{toy}", "--battles", "5", "--out", "{ro}/done"],
    "run --report": ["run", "{toy}", "--battles", "5", "--report", "--out", "{ro}/done"],
    "sweep": [
        "sweep",
        "{toy}",
        "--vary",
        "turn_limit=3,4",
        "--battles",
        "5",
        "--out",
        "{ro}/empty",
    ],
    "compare": ["compare", "{toy}", "{toy}", "--battles", "5", "--out", "{ro}/empty"],
    "balance": ["balance", "{toy}", "--vary", "turn_limit=3..4", "--side", "runners"]
    + ["--battles", "5", "--out", "{ro}/empty"],
    "explain": ["explain", "{toy}", "--battles", "5", "--out", "{ro}/empty"],
    "report": ["report", "{ro}/done"],
    "odds --plot": ["odds", "sr", "--dice", "6", "--tn", "5", "--plot", "{ro}/p.png"],
    "odds --plot in a folder": [
        "odds",
        "sr",
        "--dice",
        "6",
        "--tn",
        "5",
        "--plot",
        "{ro}/empty/p.png",
    ],
    "odds --plot in a new folder": [
        "odds",
        "sr",
        "--dice",
        "6",
        "--tn",
        "5",
        "--plot",
        "{ro}/new/p.png",
    ],
}


def _mounted_read_only(place: Path, fill) -> bool:
    """``place`` as a small tmpfs filled by ``fill``, then made read-only: a real read-only
    file system, which refuses root too. False where mounting is not permitted."""
    place.mkdir()
    if (
        subprocess.run(
            ["mount", "-t", "tmpfs", "-o", "size=8m", "tmpfs", str(place)], capture_output=True
        ).returncode
        != 0
    ):
        return False
    fill(place)
    subprocess.run(["mount", "-o", "remount,ro", str(place)], check=True)
    return True


@pytest.fixture(params=["read-only", "injected"])
def read_only(request, tmp_path, toy, monkeypatch):
    """A folder no file can be written in, with ``empty/`` and a finished run's ``done/``.
    ``read-only``: a read-only tmpfs (else, not as root, a chmod 555 folder; else skipped).
    ``injected``: every new file and removal refused with EROFS, as such a file system would,
    wherever the writers get past the folder checks (these run as root anywhere)."""
    place = tmp_path / "ro"

    def fill(folder: Path) -> None:
        (folder / "empty").mkdir()
        api.run_one(toy, battles=5, runner=toy_runner, out=folder / "done")

    if request.param == "injected":
        place.mkdir()
        fill(place)

        def refuse(*args, **kwargs):
            raise OSError(errno.EROFS, os.strerror(errno.EROFS))

        monkeypatch.setattr(folders, "create_exclusive", refuse)
        monkeypatch.setattr(Path, "mkdir", refuse)
        yield place
        return
    if _mounted_read_only(place, fill):
        yield place
        subprocess.run(["umount", "-l", str(place)], check=False)
        return
    if os.geteuid() == 0:
        pytest.skip("cannot mount here, and root may write into a chmod 555 folder")
    fill(place)
    for folder in (place, place / "empty", place / "done"):
        folder.chmod(0o555)
    yield place
    for folder in (place, place / "empty", place / "done"):
        folder.chmod(0o755)


@pytest.mark.parametrize("writer", READ_ONLY_WRITERS)
def test_every_writer_on_a_read_only_folder_ends_in_one_line(
    read_only, toy, monkeypatch, capsys, writer
):
    monkeypatch.setattr(run_command, "battle_runner", lambda: toy_runner)
    before = files_of(read_only)
    argv = [a.format(toy=toy, ro=read_only) for a in READ_ONLY_WRITERS[writer]]
    assert main([*argv, "--quiet"] if argv[0] not in ("odds", "report") else argv) == 2
    err = capsys.readouterr().err
    assert "Traceback" not in err and err.count("\n") == 1, err
    assert err.startswith("combatsim: error: "), err
    assert re.search(r"Read-only file system|may write in|Permission denied", err), err
    assert files_of(read_only) == before
