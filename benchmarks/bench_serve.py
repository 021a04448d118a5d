"""The live page's speed: from an edit (``POST /api/runs``) to the first figures and to 1,000
battles of the 4v4, through a real ``combatsim serve`` over HTTP.

Run from the repository root::

    python benchmarks/bench_serve.py [--repeats 9] [--workers 2] [--overview]

It starts ``python -m combatsim serve scenarios --port 0 --no-browser`` (as a user would),
then, per repeat, posts a run of ``scenarios/sr-firefight-4v4.yaml`` with 1,000 battles and a
different seed (each repeat is a new edit, from the same page, as the page sends them) and
reads its event stream: the time to the first event with ``battles_done > 0`` (the first
figures) and to the event with ``state: done`` (1,000 battles). Prints the median and the
worst of the repeats; the first repeat counts too (the worker pool is warm from start-up).
Targets (issue 22): under 1 s to first figures, under 2 s to 1,000 battles.
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SCENARIO = "sr-firefight-4v4.yaml"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=9)
    parser.add_argument("--workers", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--battles", type=int, default=1000)
    parser.add_argument(
        "--overview", action="store_true", help="with the folder overview refining meanwhile"
    )
    args = parser.parse_args()
    import httpx

    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    command = [sys.executable, "-m", "combatsim", "serve", "scenarios", "--port", "0"]
    command += ["--no-browser", "--workers", str(args.workers)]
    server = subprocess.Popen(command, cwd=ROOT, env=env, stdout=subprocess.PIPE, text=True)
    try:
        address, token = server.stdout.readline().strip().rsplit(" ", 1)[1].split("/?token=")
        client = httpx.Client(base_url=address, headers={"Authorization": f"Bearer {token}"})
        firsts, wholes = [], []
        if args.overview:  # as with the page open: the overview refines in the background
            client.get("/api/overview").raise_for_status()
            time.sleep(1.0)
        for seed in range(args.repeats):
            if args.overview:
                client.get("/api/overview").raise_for_status()
            first, whole = one_edit(client, seed, args.battles)
            firsts.append(first)
            wholes.append(whole)
        busy = ", the overview refining meanwhile" if args.overview else ""
        print(f"combatsim serve, {args.workers} workers, {SCENARIO}, {args.battles} battles{busy}")
        median, worst = _ms(statistics.median(firsts)), _ms(max(firsts))
        print(f"edit -> first figures: median {median}, worst {worst}")
        print(
            f"edit -> {args.battles:,} battles: median {_ms(statistics.median(wholes))}, "
            f"worst {_ms(max(wholes))}"
        )
    finally:
        server.send_signal(signal.SIGTERM)
        server.wait(timeout=10)
    return 0


def one_edit(client, seed: int, battles: int) -> tuple[float, float]:
    """Seconds from posting a run to its first figures and to its end."""
    began = time.perf_counter()
    body = {"scenario": SCENARIO, "battles": battles, "seed": seed, "page": "bench"}
    run_id = client.post("/api/runs", json=body).raise_for_status().json()["id"]
    first = None
    with client.stream("GET", f"/api/runs/{run_id}/events", timeout=60) as stream:
        for line in stream.iter_lines():
            if not line.startswith("data: "):
                continue
            event = json.loads(line[6:])
            if first is None and event.get("battles_done", 0) > 0:
                first = time.perf_counter() - began
            if event["state"] != "running":
                assert event["state"] == "done" and event["battles_done"] == battles, event
                return first or 0.0, time.perf_counter() - began
    raise AssertionError("the event stream ended early")


def _ms(seconds: float) -> str:
    return f"{seconds * 1000:.0f} ms"


if __name__ == "__main__":
    sys.exit(main())
