"""Start-up: how long ``combatsim validate`` takes on the shipped reference scenarios.

Run from the repository root::

    python benchmarks/bench_startup.py [--repeats 7]

Each repeat runs ``python -m combatsim validate FILE`` in a fresh interpreter and records its
wall time and its CPU time (user + system of the child, which load from other jobs on a
shared machine does not inflate); the best of the repeats is printed per scenario. Target
(issue 10): well under half a second. ``tests/test_imports.py`` checks that validate imports
no numpy, pandas, simpy or matplotlib, the largest parts of that time.
"""

from __future__ import annotations

import argparse
import resource
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SCENARIOS = (
    "scenarios/sr-firefight-4v4.yaml",
    "scenarios/sr2097-runners-vs-patrol.yaml",
    "scenarios/4d8-dockside-shootout.yaml",
    "scenarios/lost-souls-warehouse-raid.yaml",
)


def one(path: str) -> tuple[float, float]:
    """Wall and CPU seconds of one ``combatsim validate`` in a fresh interpreter."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    subprocess.run(
        [sys.executable, "-m", "combatsim", "validate", path],
        cwd=ROOT,
        check=True,
        stdout=subprocess.DEVNULL,
    )
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=7)
    args = parser.parse_args(argv)
    print(f"{'scenario':<42} {'wall s':>7} {'cpu s':>7}  (best of {args.repeats})")
    for path in SCENARIOS:
        runs = [one(path) for _ in range(args.repeats)]
        print(
            f"{Path(path).stem:<42} {min(w for w, _ in runs):>7.3f} {min(c for _, c in runs):>7.3f}"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
