"""``combatsim serve`` keeps its work bounded: a trace is a job of its own process, refused
when too big, ended when its client goes or the server stops; a worker that dies fails only
the work it held and the pool heals; a failed job's error names no absolute path; finished
runs keep their records on disk, not in memory; a study is checked before it starts."""

from __future__ import annotations

import contextlib
import multiprocessing
import os
import shutil
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
import yaml

httpx = pytest.importorskip("httpx")

from combatsim.errors import CombatsimError  # noqa: E402
from combatsim.serve.app import Server  # noqa: E402
from combatsim.serve.jobs import Job  # noqa: E402
from tests.helpers import default_sigint  # noqa: E402
from tests.serve.clients import page_client  # noqa: E402
from tests.serve.serving import ended  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
TOKEN = "test-token"
PORT = 8766
FIREFIGHT = "sr-firefight-4v4.yaml"
STOP_WITHIN = 5.0  # seconds: what the docs promise for SIGTERM and Ctrl-C, under any load


def crowd(per_side: int, turns: int = 20) -> str:
    """The firefight with ``per_side`` guards on each side (copies of 100 at most)."""
    data = yaml.safe_load((ROOT / "scenarios" / FIREFIGHT).read_text())
    for number, side in enumerate(data["sides"]):
        member = side["members"][-1]
        entries, left = [], per_side
        while left:
            count = min(100, left)
            at = [number * 24, len(entries) * 2]
            entries.append(
                {**member, "name": f"S{number}M{len(entries)}", "count": count, "position": at}
                | {"spacing": [0.2, 0.01]}
            )
            left -= count
        side["members"] = entries
    data["turn_limit"] = turns
    return yaml.safe_dump(data)


@pytest.fixture(scope="module")
def folder(tmp_path_factory) -> Path:
    served = tmp_path_factory.mktemp("served") / "scenarios"
    shutil.copytree(ROOT / "scenarios", served)
    (served / "crowd-2000.yaml").write_text(crowd(1000))
    (served / "crowd-500.yaml").write_text(crowd(250, turns=1000))
    return served


@pytest.fixture(scope="module")
def server(folder):
    made = Server(folder, TOKEN, workers=2, port=PORT)
    yield made
    made.close()


@pytest.fixture(scope="module")
def client(server):
    with page_client(server, TOKEN) as test_client:
        yield test_client


def finish(client, path: str, timeout: float = 60.0) -> dict:
    return ended(client, path, timeout)


# --- traces -----------------------------------------------------------------------------------


def test_a_trace_too_big_to_trace_in_seconds_is_refused_at_once_in_one_line(client):
    began = time.monotonic()
    answer = client.post("/api/trace", json={"scenario": "crowd-2000.yaml"})
    assert time.monotonic() - began < 2.0  # refused, not traced (that takes about 5 s here)
    assert answer.status_code == 422, answer.text
    (line,) = answer.json()["errors"]
    assert "2000 fighters" in line and "at most 500" in line and "\n" not in line


@pytest.mark.slow
def test_a_trace_counts_as_a_job_under_the_cap(client, server):
    runs = {"scenario": FIREFIGHT, "battles": 50_000}
    ids = [client.post("/api/runs", json={**runs, "page": f"p{n}"}).json()["id"] for n in range(4)]
    try:
        answer = client.post("/api/trace", json={"scenario": FIREFIGHT, "seed": 3})
        assert answer.status_code == 429, answer.text[:300]
    finally:
        for run_id in ids:
            client.delete(f"/api/runs/{run_id}")
    answer = client.post("/api/trace", json={"scenario": FIREFIGHT, "seed": 3})
    assert answer.status_code == 200, answer.text
    assert "seed 3" in answer.json()["text"]
    assert not server.jobs.busy()  # counted while it ran, forgotten once answered


# --- a pool that heals ------------------------------------------------------------------------


@pytest.mark.slow
def test_a_killed_worker_fails_its_run_in_one_line_and_the_next_run_succeeds(client, server, capfd):
    answer = client.post("/api/runs", json={"scenario": FIREFIGHT, "battles": 50_000, "seed": 1})
    run_id = answer.json()["id"]
    waited = time.monotonic() + 30
    while client.get(f"/api/runs/{run_id}").json()["battles_done"] == 0:
        assert time.monotonic() < waited, "no battle finished within 30 s"
        time.sleep(0.05)
    worker = multiprocessing.active_children()[0]  # the pool's: this test starts no other
    os.kill(worker.pid, signal.SIGKILL)  # as the out-of-memory killer would
    got = finish(client, f"/api/runs/{run_id}")
    assert got["state"] == "failed"
    assert got["errors"] == ["a worker process died (out of memory?); run again"]
    again = client.post("/api/runs", json={"scenario": FIREFIGHT, "battles": 300, "seed": 1})
    assert finish(client, f"/api/runs/{again.json()['id']}")["state"] == "done"
    sweep = {"scenario": FIREFIGHT, "kind": "sweep", "vary": ["seed=1..2"], "battles": 100}
    study = client.post("/api/studies", json=sweep)
    assert finish(client, f"/api/studies/{study.json()['id']}")["state"] == "done"
    time.sleep(0.5)  # the old pool's manager thread has ended by now
    err = capfd.readouterr().err
    assert "Traceback" not in err and "InvalidStateError" not in err, err


def test_a_failed_jobs_error_names_no_absolute_path(server):
    def body(job: Job) -> dict:
        raise CombatsimError(f"{server.served.root}/nowhere.yaml: not a scenario")

    job = server.jobs.start(Job("run", body, server.pool))
    job.thread.join(5)
    assert job.error == "nowhere.yaml: not a scenario"


# --- stopping under load ----------------------------------------------------------------------


def serve(folder: Path, tmp_path: Path) -> tuple[subprocess.Popen, str, dict[str, str]]:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    command = [sys.executable, "-m", "combatsim", "serve", str(folder)]
    command += ["--port", "0", "--no-browser", "--workers", "2"]
    process = subprocess.Popen(
        command,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        cwd=tmp_path,
        preexec_fn=default_sigint,  # test_the_server_stops... sends it Ctrl-C
    )
    address, token = process.stdout.readline().strip().rsplit(" ", 1)[1].split("/?token=")
    return process, address, {"Authorization": f"Bearer {token}"}


def children(pid: int) -> set[int]:
    found = set()
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                stat = (entry / "stat").read_text().rsplit(")", 1)[1].split()
            except OSError:
                continue
            if int(stat[1]) == pid and stat[0] != "Z":
                found.add(int(entry.name))
    return found


def post_in_background(address: str, headers: dict[str, str], body: dict, timeout: float):
    """POST ``body`` to /api/trace from a thread; the client gives up after ``timeout``."""

    def post() -> None:
        with contextlib.suppress(httpx.HTTPError):  # the client giving up
            httpx.post(f"{address}/api/trace", headers=headers, json=body, timeout=timeout)

    thread = threading.Thread(target=post, daemon=True)
    thread.start()
    return thread


def wait_for(condition, timeout: float) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if condition():
            return True
        time.sleep(0.05)
    return False


@pytest.mark.slow
def test_a_trace_whose_client_goes_is_ended(folder, tmp_path):
    process, address, headers = serve(folder, tmp_path)
    try:
        pool = children(process.pid)
        post_in_background(address, headers, {"scenario": "crowd-500.yaml"}, timeout=1.0)
        assert wait_for(lambda: len(children(process.pid) - pool) == 1, 10.0)
        assert wait_for(lambda: not children(process.pid) - pool, 5.0), "the trace went on"
    finally:
        process.terminate()  # stopped as a user stops it: its temporary folders go too
        try:
            process.communicate(timeout=30)
        except subprocess.TimeoutExpired:
            process.kill()
            process.communicate()


@pytest.mark.slow
@pytest.mark.parametrize("stop", [signal.SIGTERM, signal.SIGINT])
def test_the_server_stops_within_5_s_with_three_large_traces_in_flight(folder, tmp_path, stop):
    process, address, headers = serve(folder, tmp_path)
    try:
        pool = children(process.pid)
        for _ in range(3):
            post_in_background(address, headers, {"scenario": "crowd-500.yaml"}, timeout=60.0)
        wait_for(lambda: len(children(process.pid) - pool) == 3, 10.0)  # each in its process
        everyone = children(process.pid)
        process.send_signal(stop)
        began = time.monotonic()
        _, err = process.communicate(timeout=30)
        assert time.monotonic() - began < STOP_WITHIN, err
        assert "Traceback" not in err, err
        assert wait_for(lambda: not any(Path(f"/proc/{pid}").exists() for pid in everyone), 2.0)
    finally:
        if process.poll() is None:
            process.kill()
            process.communicate()


# --- studies ----------------------------------------------------------------------------------

GUARDS = "sides[1].members[1].count"


@pytest.mark.parametrize(
    ("study", "named"),
    [
        ({"kind": "sweep", "vary": ["sides[1].members[9].count=1..3"]}, "members[9]"),
        ({"kind": "sweep", "vary": [f"{GUARDS}=1,500"]}, "500"),
        ({"kind": "sweep", "vary": ["sides[1].members[1].armor=armor_vest,tinfoil"]}, "tinfoil"),
        ({"kind": "sweep", "vary": ["seed=1..5000"]}, "5,000 variants"),
        ({"kind": "sweep", "vary": ["seed=1..200"], "battles": 20_000}, "battles in all"),
        ({"kind": "balance", "vary": f"{GUARDS}=1..4", "target": "ghosts win 0.5"}, "ghosts"),
        ({"kind": "compare", "b_set": [f"{GUARDS}=101"]}, "b_set"),
        ({"kind": "explain", "side": "ghosts"}, "ghosts"),
        ({"kind": "explain", "metric": "runners happy"}, "happy"),
    ],
)
def test_an_invalid_or_oversized_study_is_refused_before_it_starts(client, server, study, named):
    answer = client.post("/api/studies", json={"scenario": FIREFIGHT, **study})
    assert answer.status_code == 422, answer.text
    (line,) = answer.json()["errors"]
    assert named in line and "\n" not in line
    assert not server.jobs.busy()


# --- memory -----------------------------------------------------------------------------------


def resident_mb() -> float:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    pytest.skip("no /proc/self/status here")


def duel() -> str:
    """One guard against one, a single turn: the cheapest battle with records."""
    data = yaml.safe_load((ROOT / "scenarios" / FIREFIGHT).read_text())
    guard = data["sides"][1]["members"][1]
    for number, side in enumerate(data["sides"]):
        side["members"] = [{**guard, "name": f"G{number}", "count": 1, "position": [number, 0]}]
    data["turn_limit"] = 1
    return yaml.safe_dump(data)


def test_a_run_over_the_record_cap_keeps_no_records_and_its_tables_say_so(client, monkeypatch):
    from combatsim.serve import runs

    monkeypatch.setattr(runs, "MAX_RECORD_ROWS", 100)  # 8 fighters x 50 battles is over it
    answer = client.post("/api/runs", json={"scenario": FIREFIGHT, "battles": 50, "seed": 1})
    run_id = answer.json()["id"]
    assert finish(client, f"/api/runs/{run_id}")["state"] == "done"
    for name in ("battles.csv", "combatants.parquet"):
        gone = client.get(f"/api/runs/{run_id}/{name}")
        assert gone.status_code == 410, gone.text
        (line,) = gone.json()["errors"]
        assert "over 100 fighter-battles" in line and "combatsim run" in line
    assert client.get(f"/api/runs/{run_id}/attacks.csv").status_code == 200  # from its tally


@pytest.mark.slow
def test_ten_finished_50000_battle_runs_leave_the_servers_memory_flat(client, server):
    import gc

    grown = []
    for seed in range(10):
        body = {"yaml": duel(), "battles": 50_000, "seed": seed}
        run_id = client.post("/api/runs", json=body).json()["id"]
        assert finish(client, f"/api/runs/{run_id}", timeout=600)["state"] == "done"
        gc.collect()
        grown.append(resident_mb())
    # after the first (imports, the pool's buffers), nine more runs add next to nothing: each
    # run's records (about 40 MB here) went to the table folder, not into memory
    assert grown[-1] - grown[0] < 100, grown
    answer = client.get(f"/api/runs/{run_id}/combatants.csv")
    assert answer.status_code == 200 and answer.text.count("\n") == 100_001
