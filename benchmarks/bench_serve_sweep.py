"""A sweep from the page against the same sweep from the command line, interleaved.

Run from the repository root::

    python benchmarks/bench_serve_sweep.py [--repeats 3] [--workers 2] [--values 200]
                                           [--battles 20]

Starts ``python -m combatsim serve scenarios --port 0 --no-browser`` (as a user would), then,
per repeat, times ``combatsim sweep scenarios/sr-firefight-4v4.yaml --vary seed=1..VALUES
--battles B`` as a command (its start-up included) and the same sweep posted to
``/api/studies`` and watched on its event stream until ``done``, one after the other so both
see the same load. Prints the median of each and their ratio (the page should cost what the
command costs: a ratio within 1.2). Many variants of few battles each weigh the cost per
variant, which is where the page once lost (its live rows worked out every variant at every
chunk).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SCENARIO = "sr-firefight-4v4.yaml"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--workers", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--values", type=int, default=200, help="seeds swept: seed=1..VALUES")
    parser.add_argument("--battles", type=int, default=20, help="battles per variant")
    args = parser.parse_args()
    import httpx

    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    command = [sys.executable, "-m", "combatsim", "serve", "scenarios", "--port", "0"]
    command += ["--no-browser", "--workers", str(args.workers)]
    server = subprocess.Popen(command, cwd=ROOT, env=env, stdout=subprocess.PIPE, text=True)
    try:
        address, token = server.stdout.readline().strip().rsplit(" ", 1)[1].split("/?token=")
        client = httpx.Client(
            base_url=address, headers={"Authorization": f"Bearer {token}"}, timeout=600
        )
        pages, commands = [], []
        for _ in range(args.repeats):
            commands.append(on_the_command_line(args, env))
            pages.append(from_the_page(client, args))
            print(f"command {commands[-1]:.2f} s, page {pages[-1]:.2f} s", flush=True)
        command_s, page_s = statistics.median(commands), statistics.median(pages)
        print(
            f"seed=1..{args.values}, {args.battles} battles each, {args.workers} workers: "
            f"command {command_s:.2f} s, page {page_s:.2f} s (median of {args.repeats}), "
            f"page/command {page_s / command_s:.2f}"
        )
    finally:
        server.terminate()
        server.wait()
    return 0


def on_the_command_line(args, env: dict[str, str]) -> float:
    with tempfile.TemporaryDirectory() as out:
        command = [sys.executable, "-m", "combatsim", "sweep", f"scenarios/{SCENARIO}"]
        command += ["--vary", f"seed=1..{args.values}", "--battles", str(args.battles)]
        command += ["--workers", str(args.workers), "--out", out, "--quiet"]
        began = time.perf_counter()
        subprocess.run(command, cwd=ROOT, env=env, check=True, capture_output=True)
        return time.perf_counter() - began


def from_the_page(client, args) -> float:
    body = {"scenario": SCENARIO, "kind": "sweep", "vary": [f"seed=1..{args.values}"]}
    body["battles"] = args.battles
    began = time.perf_counter()
    answer = client.post("/api/studies", json=body)
    answer.raise_for_status()
    with client.stream("GET", f"/api/studies/{answer.json()['id']}/events") as stream:
        for line in stream.iter_lines():
            if line.startswith("data: ") and json.loads(line[6:])["state"] != "running":
                break
    return time.perf_counter() - began


if __name__ == "__main__":
    sys.exit(main())
