"""Every argument of the batch commands has bounds and a one-line error past them (issue 12);
workers are capped at the tasks and at a multiple of the cores; a lost Dask scheduler is one
line and leaves a journal that ``--resume`` finishes on this machine."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from combatsim import backends
from combatsim.backends import ProcessBackend, SerialBackend, make_backend
from combatsim.batch import Job, Task, default_workers, simulate
from combatsim.cli import main
from combatsim.commands import run as run_command
from combatsim.output import summary_json
from combatsim.scenario import load_scenario
from tests.test_sweep import one_error_line, toy_files, toy_runner

ROOT = Path(__file__).parent.parent


@pytest.fixture
def toy(tmp_path, monkeypatch):
    monkeypatch.setattr(run_command, "battle_runner", lambda: toy_runner)
    return toy_files(tmp_path / "scenarios")


@pytest.mark.parametrize(
    "flags, expected",
    [
        (["--battles", "100000001"], "--battles: got 100000001; allowed: an integer from 1 to"),
        (["--workers", "1025"], "--workers: got 1025; allowed: an integer from 1 to 1024"),
        (["--workers", "0"], "--workers: got 0"),
        (["--seed", str(2**64)], "--seed: got 18446744073709551616"),
        (["--chunk-size", "1000001"], "--chunk-size: got 1000001"),
        (["--max-battles", "0"], "--max-battles: got 0"),
        (["--precision", "1e-300"], "--precision: got 1e-300; allowed: a number from 0.0001"),
        (["--precision", "nan"], "--precision: got nan"),
        (["--precision", "inf"], "--precision: got inf"),
        (["--out", ""], "--out: got ''; allowed: a folder name (not empty)"),
        (["--out", "/dev/null"], "--out: got '/dev/null'; allowed: a folder (it is a file)"),
        (["--out", "/dev/null/x"], "allowed: a folder (it is inside /dev/null, a file)"),
        (["--out", "x" * 300], "--out: got 'xxxxxxxx"),
        (["--trace", "-1"], "--trace: got -1"),
    ],
)
def test_an_argument_past_its_bounds_is_one_line(toy, capsys, flags, expected):
    assert main(["run", str(toy), "--quiet", *flags]) == 2
    assert expected in one_error_line(capsys)


def test_out_that_is_an_existing_file_is_one_line_for_every_command(toy, tmp_path, capsys):
    afile = tmp_path / "a-file"
    afile.write_text("mine\n")
    vary = ["--vary", "guards:sides[guards].members[Guard].count=1..2"]
    for argv in (
        ["run", str(toy)],
        ["sweep", str(toy), *vary],
        ["compare", str(toy), "--b", "turn_limit=5"],
        ["balance", str(toy), *vary, "--side", "runners"],
    ):
        assert main([*argv, "--out", str(afile), "--quiet"]) == 2, argv
        assert "allowed: a folder (it is a file)" in one_error_line(capsys)
    assert afile.read_text() == "mine\n"


def test_a_default_output_folder_that_is_a_file_is_one_line(toy, tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "results").write_text("not a folder")
    assert main(["run", str(toy), "--quiet", "--battles", "10"]) == 2
    assert "--out: got 'results/toy'; allowed: a folder (it is inside results" in one_error_line(
        capsys
    )


def test_a_sweep_file_value_past_its_bounds_is_one_line(toy, tmp_path, capsys):
    sweep = tmp_path / "sweep.yaml"
    sweep.write_text(
        f"scenario: {toy}\nbattles: 1000000000\nvary: [{{path: turn_limit, values: [3, 4]}}]\n"
    )
    assert main(["sweep", "--file", str(sweep), "--quiet"]) == 2
    assert "sweep.yaml:2: battles: found 1000000000" in one_error_line(capsys)


def test_too_many_combinations_are_refused_before_any_is_built(toy, capsys):
    vary = [f"--vary=f{i}:turn_limit=1..20" for i in range(4)]  # 160,000 combinations
    started = time.monotonic()
    assert main(["sweep", str(toy), *vary, "--quiet"]) == 2
    assert "160,000 combinations" in one_error_line(capsys)
    assert time.monotonic() - started < 5


# --- workers ------------------------------------------------------------------------------------


def test_workers_are_capped_at_a_multiple_of_the_cores_and_at_the_tasks():
    cores = default_workers()
    backend = make_backend(1000)
    assert isinstance(backend, ProcessBackend | SerialBackend)
    assert backend.workers <= backends.WORKERS_PER_CORE * cores
    assert isinstance(make_backend(1000, tasks=1), SerialBackend)
    assert make_backend(1000, tasks=2).workers == 2


def test_a_sweep_with_more_workers_than_tasks_starts_one_per_task(tmp_path):
    """The issue's case: 1,000 workers for 2 tasks forked 1,000 processes. The pool is sized
    by the tasks of each round."""
    from combatsim.scenario import load_scenario

    toy = load_scenario(toy_files(tmp_path / "scenarios"))
    job = Job((toy,), toy_runner, (1,), "none")
    chunks = []
    with ProcessBackend(64) as backend:
        assert not backend.run(job, [Task((0,), 0, 10), Task((0,), 10, 20)], chunks.append)
        assert backend._size == 2  # noqa: SLF001 - the pool's size is what the issue is about
        assert len(backend._pool._processes) <= 2  # noqa: SLF001
    assert sorted(c.stop for c in chunks) == [10, 20]


# --- a lost Dask scheduler ----------------------------------------------------------------------

CLUSTER = """
import time
from distributed import LocalCluster
cluster = LocalCluster(n_workers=2, threads_per_worker=1, processes=False, host="127.0.0.1",
                       protocol="tcp", dashboard_address=None)
print(cluster.scheduler_address, flush=True)
time.sleep(600)
"""


def test_a_lost_dask_scheduler_is_one_line_and_resume_finishes_locally(tmp_path):
    pytest.importorskip("distributed")
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    cluster = subprocess.Popen(
        [sys.executable, "-c", CLUSTER],
        cwd=ROOT,
        env={**os.environ, "PYTHONPATH": str(ROOT)},  # its workers unpickle the toy runner
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
        start_new_session=True,
    )
    try:
        address = cluster.stdout.readline().strip()
        assert address.startswith("tcp://"), address
        toy = toy_files(tmp_path / "scenarios")
        out = tmp_path / "out"
        argv = ["run", str(toy), "--battles", "200000", "--chunk-size", "100"]
        argv += ["--records", "none", "--quiet", "--out", str(out)]
        run = subprocess.Popen(
            [sys.executable, "-c", WITH_TOY, *argv, "--scheduler", address],
            cwd=ROOT,
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        journal = out / ".combatsim" / "journal.jsonl"
        deadline = time.monotonic() + 120
        while not (journal.exists() and journal.read_text().count("\n") >= 2):
            assert run.poll() is None, run.communicate()
            assert time.monotonic() < deadline, "no chunk finished on the cluster"
            time.sleep(0.05)
        os.killpg(cluster.pid, signal.SIGKILL)
        _, err = run.communicate(timeout=180)
    finally:
        if cluster.poll() is None:
            os.killpg(cluster.pid, signal.SIGKILL)
        cluster.wait()
    assert run.returncode == 2, err
    assert err.count("\n") == 1 and "Traceback" not in err, err
    assert err.startswith(f"combatsim: error: lost the Dask scheduler at {address}")
    assert err.rstrip().endswith(f"finish the run with: combatsim run --resume {out}")
    kept = [json.loads(line) for line in journal.read_text().splitlines() if line.endswith("}")]
    assert kept  # the finished chunks stay in the journal

    resumed = subprocess.run(
        [sys.executable, "-c", WITH_TOY, "run", "--resume", str(out), "--quiet", "--workers", "1"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert resumed.returncode == 0, resumed.stderr
    reference = simulate(load_scenario(toy), 200000, runner=toy_runner, records="none")
    summary = json.loads((out / "summary.json").read_text())
    assert summary == json.loads(summary_json(reference.summary))


# ``combatsim`` with the toy runner (quick battles), in a subprocess.
WITH_TOY = """
import sys
from combatsim.cli import main
from combatsim.commands import run
from tests.test_sweep import toy_runner
run.battle_runner = lambda: toy_runner
sys.exit(main(sys.argv[1:]))
"""
