"""Speed-up of 2 worker processes over 1, and peak memory as the battle count grows.

Run from the repository root::

    python benchmarks/bench_parallel.py                      # the full benchmark (long: see below)
    python benchmarks/bench_parallel.py --memory 10000,100000  # a quicker memory check

**Speed-up.** ``combatsim run SCENARIO --records none`` on 1 worker and on 2, interleaved
(1, 2, 1, 2, ...) so both see the same load, best of ``--repeats`` each; the ratio is
best time on 1 worker / best time on 2. The 2-worker time includes starting the worker
processes. Aim: 1.8 or better on a 2-core machine. First, the same ratio for a bare CPU loop
says what the machine allows at the time: on a shared machine another job's load lowers both.

**Memory.** ``combatsim run SCENARIO --records none --workers 2`` for each battle count in
``--memory``, each in a fresh process, which reports its own peak resident set size (the
coordinating process) and the largest of its worker processes' peaks (``getrusage``). With
``--records none`` nothing grows with the number of battles: aim, the same peak at 10,000 and
at 1,000,000 battles. At about 4 ms a battle on one core, 1,000,000 battles of the default
scenario take roughly half an hour on two.

The machines are shared: quote the ratio and the peaks, not the seconds.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

DEFAULT_SCENARIO = "scenarios/sr-firefight-4v4.yaml"


def run_command(argv: list[str]) -> float:
    """Seconds for ``combatsim ARGV`` run in this process."""
    from combatsim.cli import main

    start = time.perf_counter()
    status = main(argv)
    elapsed = time.perf_counter() - start
    if status != 0:
        raise SystemExit(f"combatsim {' '.join(argv)} exited {status}")
    return elapsed


def speed_up(scenario: str, battles: int, repeats: int) -> dict:
    times: dict[int, list[float]] = {1: [], 2: []}
    with tempfile.TemporaryDirectory() as tmp:
        base = ["run", scenario, "--battles", str(battles), "--records", "none", "--quiet"]
        run_command([*base, "--workers", "1", "--out", f"{tmp}/warm"])  # imports, caches
        for _ in range(repeats):
            for workers in (1, 2):
                out = f"{tmp}/w{workers}"
                times[workers].append(run_command([*base, "--workers", str(workers), "--out", out]))
        one = (Path(tmp) / "w1" / "summary.json").read_bytes()
        two = (Path(tmp) / "w2" / "summary.json").read_bytes()
    return {
        "battles": battles,
        "best_1": min(times[1]),
        "best_2": min(times[2]),
        "speed_up": min(times[1]) / min(times[2]),
        "same_summary": one == two,
    }


def _burn(n: int) -> int:
    total = 0
    for i in range(n):
        total += i * i
    return total


def machine_parallelism(n: int = 10_000_000) -> float:
    """How much faster a bare CPU loop runs on 2 processes than on 1, right now: what the
    machine itself allows (other load on a shared machine lowers it), to read the ratio by."""
    from concurrent.futures import ProcessPoolExecutor

    with ProcessPoolExecutor(2) as pool:
        list(pool.map(_burn, [1000, 1000]))  # start the workers first
        start = time.perf_counter()
        list(pool.map(_burn, [n, n]))
        parallel = time.perf_counter() - start
    start = time.perf_counter()
    _burn(n)
    _burn(n)
    serial = time.perf_counter() - start
    return serial / parallel


def peak_memory(scenario: str, battles: int) -> dict:
    """Run the batch in a fresh process; return its peaks in MiB and the time taken."""
    with tempfile.TemporaryDirectory() as tmp:
        start = time.perf_counter()
        child = subprocess.run(
            [sys.executable, __file__, "--child", scenario, str(battles), tmp],
            capture_output=True,
            text=True,
            cwd=ROOT,
        )
        elapsed = time.perf_counter() - start
    if child.returncode != 0:
        raise SystemExit(child.stderr)
    peaks = json.loads(child.stdout.strip().splitlines()[-1])
    return {"battles": battles, "seconds": elapsed, **peaks}


def child(scenario: str, battles: int, out: str) -> None:
    """In the fresh process: run the batch, then report this process's and its workers' peaks."""
    run_command(
        [
            "run",
            scenario,
            "--battles",
            str(battles),
            "--records",
            "none",
            "--workers",
            "2",
            "--quiet",
            "--out",
            out,
        ]
    )
    own = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # KiB on Linux
    workers = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
    print(json.dumps({"coordinator_mib": round(own, 1), "worker_mib": round(workers, 1)}))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--scenario", default=DEFAULT_SCENARIO)
    parser.add_argument("--battles", type=int, default=4000, help="battles per speed-up run")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument(
        "--memory",
        default="10000,1000000",
        help="battle counts for the memory runs, comma-separated ('' to skip)",
    )
    parser.add_argument("--skip-speed", action="store_true")
    parser.add_argument(
        "--child", nargs=3, metavar=("SCENARIO", "BATTLES", "OUT"), help=argparse.SUPPRESS
    )
    args = parser.parse_args()
    if args.child:
        child(args.child[0], int(args.child[1]), args.child[2])
        return 0

    print(f"scenario {args.scenario}; {os.cpu_count()} cores; load {os.getloadavg()[0]:.2f}")
    if not args.skip_speed:
        print(f"machine: a bare CPU loop runs {machine_parallelism():.2f}x faster on 2 processes")
        result = speed_up(args.scenario, args.battles, args.repeats)
        print(
            f"speed-up, {result['battles']} battles, best of {args.repeats}: "
            f"1 worker {result['best_1']:.2f} s, 2 workers {result['best_2']:.2f} s, "
            f"ratio {result['speed_up']:.2f} (aim 1.8); same summary: {result['same_summary']}"
        )
    for count in [int(c) for c in args.memory.split(",") if c.strip()]:
        result = peak_memory(args.scenario, count)
        print(
            f"peak memory, {count:,} battles, --records none, 2 workers: coordinator "
            f"{result['coordinator_mib']:.1f} MiB, largest worker {result['worker_mib']:.1f} MiB "
            f"({result['seconds']:.0f} s)",
            flush=True,
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
