"""Every argument of the batch commands has bounds and a one-line error past them (issue 12);
workers are capped at the tasks and at a multiple of the cores; a lost Dask scheduler is one
line and leaves a journal that ``--resume`` finishes on this machine."""

from __future__ import annotations

import errno
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from combatsim.cli import main
from combatsim.commands import run as run_command
from combatsim.output import summary_json
from combatsim.run import backends
from combatsim.run.backends import ProcessBackend, SerialBackend, make_backend
from combatsim.run.chunks import Job, Task, default_workers
from combatsim.scenario import load_scenario
from tests.helpers import run_battles
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


@pytest.mark.slow
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
    reference = run_battles(load_scenario(toy), 200000, runner=toy_runner, records="none")
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


# --- integers, field paths and --plot files: one line each ------------------------------------

BIG = "9" * 5000


@pytest.mark.parametrize(
    "argv",
    [
        ["sweep", "TOY", "--vary", f"turn_limit=1..{BIG}"],
        ["sweep", "TOY", "--vary", f"turn_limit={BIG}"],
        ["sweep", "TOY", "--vary", f"turn_limit=1..3/{BIG}"],
        ["sweep", "TOY", "--vary", f"sides[{BIG}].name=x"],
        ["compare", "TOY", "--b", f"turn_limit={BIG}"],
        ["odds", "sr", "--grid", "--dice", f"1..{BIG}", "--tn", "5"],
        ["odds", "sr", "--grid", "--dice", "1..3", "--tn", BIG],
        ["odds", "sr", "--dice", BIG, "--tn", "5"],
        ["odds", "2097", "--grid", f"--bonus=-{BIG}..3", "--tn", "20"],
        ["odds", "lost-souls", "--net", "0", "--column", BIG],
    ],
    ids=lambda argv: " ".join(a[:12] for a in argv),
)
def test_an_integer_of_thousands_of_digits_is_one_short_line(toy, capsys, argv):
    argv = [str(toy) if a == "TOY" else a for a in argv]
    assert main([*argv, "--quiet"] if argv[0] != "odds" else argv) == 2
    line = one_error_line(capsys)
    assert "allowed: an integer of at most 100 digits" in line
    assert len(line) < 300


@pytest.mark.parametrize("option", ["--battles", "--seed", "--chunk-size", "--trace"])
def test_an_integer_option_of_thousands_of_digits_is_one_short_line(toy, capsys, option):
    with pytest.raises(SystemExit) as caught:
        main(["run", str(toy), option, BIG])
    assert caught.value.code == 2
    line = one_error_line(capsys)
    assert f"argument {option}: got a number of 5,000 digits" in line and len(line) < 200


def test_a_vary_path_thousands_of_keys_deep_is_one_line(toy, capsys):
    deep = ".".join(["a"] * 5000)
    assert main(["sweep", str(toy), "--vary", f"{deep}=1", "--quiet"]) == 2
    line = one_error_line(capsys)
    assert "allowed: a path of at most 50 keys and [..]" in line and len(line) < 300


def test_a_path_of_fifty_steps_parses_and_fifty_one_do_not():
    from combatsim.errors import UsageError
    from combatsim.sweeps.fields import FieldPath

    assert len(FieldPath.parse("a" + "[0]" * 49).steps) == 50
    with pytest.raises(UsageError, match="at most 50 keys"):
        FieldPath.parse("a" + "[0]" * 50)


def _odds_plot(path: str) -> list[str]:
    return ["odds", "sr", "--dice", "6", "--tn", "5", "--plot", path]


@pytest.mark.parametrize(
    "name, allowed",
    [
        ("odds.jpg", "a file name ending in .png, .pdf or .svg"),
        ("odds", "a file name ending in .png, .pdf or .svg"),
        ("FOLDER", "a file name, not a folder"),
        ("/dev/null", "a file name ending in .png, .pdf or .svg"),
        ("/dev/null/odds.png", "a file name in a folder (/dev/null is a file)"),
        ("x" * 300 + ".png", "a shorter file name (at most 255 bytes a part)"),
        ("", "a file name ending in .png, .pdf or .svg"),
    ],
    ids=["jpg", "no-suffix", "folder", "dev-null", "inside-a-file", "long", "empty"],
)
def test_a_plot_file_that_cannot_be_written_is_refused_before_computing(
    tmp_path, capsys, monkeypatch, name, allowed
):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "FOLDER").mkdir()
    assert main(_odds_plot(name)) == 2
    out = capsys.readouterr()
    assert out.out == ""  # refused before the odds were worked out and printed
    assert "Traceback" not in out.err and out.err.count("\n") == 1, out.err
    assert "--plot: got " in out.err and allowed in out.err and len(out.err) < 300
    assert sorted(p.name for p in tmp_path.iterdir()) == ["FOLDER"]


@pytest.mark.slow
@pytest.mark.parametrize(
    "suffix, start", [(".svg", b"<?xml"), (".pdf", b"%PDF"), (".PNG", b"\x89PNG")]
)
def test_odds_draw_svg_and_pdf_as_well_as_png(tmp_path, capsys, suffix, start):
    target = tmp_path / "new" / f"odds{suffix}"
    assert main(_odds_plot(str(target))) == 0
    assert target.read_bytes().startswith(start)
    assert [p.name for p in target.parent.iterdir()] == [target.name]  # no temporary left


def test_a_plot_that_fails_to_write_is_one_line_and_keeps_the_old_file(
    tmp_path, capsys, monkeypatch
):
    from matplotlib.figure import Figure

    def full(self, *args, **kwargs):
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    target = tmp_path / "odds.png"
    target.write_bytes(b"the old picture")
    monkeypatch.setattr(Figure, "savefig", full)
    assert main(_odds_plot(str(target))) == 2
    line = one_error_line(capsys)
    assert "--plot: got" in line and "a file that can be written (No space left on device)" in line
    assert target.read_bytes() == b"the old picture"
    assert [p.name for p in tmp_path.iterdir()] == ["odds.png"]
