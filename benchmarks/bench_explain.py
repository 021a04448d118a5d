"""``combatsim explain`` on the 4v4 firefight: its cost per battle against a plain run's.

Run from the repository root::

    python benchmarks/bench_explain.py                 # 100 battles per value, 2 workers
    python benchmarks/bench_explain.py --battles 1000  # the default explanation, timed whole

Times ``combatsim run SCENARIO --records none`` (``--run-battles`` battles) and ``combatsim
explain SCENARIO`` (``--battles`` per value, so that times the number of variants in all) on
the same workers, interleaved (run, explain, run, explain), best of ``--repeats`` each.
**Overhead** = explain's time per battle / run's time per battle: what building the variants,
pairing the outcomes and journalling cost on top of the battles. Aim: 1.1 or under. The
projection says how long the default explanation (1,000 battles per value) takes at the
measured engine speed; the issue's target is about a minute on 2 cores once the engine is
fast. The machines are shared: quote the overhead, not the seconds.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

DEFAULT_SCENARIO = "scenarios/sr-firefight-4v4.yaml"


# Seconds for ``combatsim ARGV`` in this process: the same timer as the parallel benchmark's.
from bench_parallel import run_command as timed  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--scenario", default=DEFAULT_SCENARIO)
    parser.add_argument("--battles", type=int, default=100, help="explain: battles per value")
    parser.add_argument("--run-battles", type=int, default=1000, help="the plain run's battles")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--repeats", type=int, default=1)
    args = parser.parse_args()
    common = ["--workers", str(args.workers), "--quiet"]
    runs, explains = [], []
    with tempfile.TemporaryDirectory() as tmp:
        for k in range(args.repeats):
            out = Path(tmp) / f"run{k}"
            runs.append(
                timed(
                    [
                        "run",
                        args.scenario,
                        "--battles",
                        str(args.run_battles),
                        "--records",
                        "none",
                        "--out",
                        str(out),
                        *common,
                    ]
                )
            )
            out = Path(tmp) / f"explain{k}"
            explains.append(
                timed(
                    [
                        "explain",
                        args.scenario,
                        "--battles",
                        str(args.battles),
                        "--out",
                        str(out),
                        *common,
                    ]
                )
            )
        summary = json.loads((out / "summary.json").read_text())
    variants = summary["variants"]
    per_run = min(runs) / args.run_battles
    per_explain = min(explains) / (args.battles * variants)
    print(f"scenario: {args.scenario}; {len(summary['levers'])} levers, {variants} variants")
    print(f"run:     {args.run_battles / min(runs):8.0f} battles/s on {args.workers} workers")
    print(
        f"explain: {args.battles * variants / min(explains):8.0f} battles/s "
        f"({args.battles} per value, {args.battles * variants} in all, {min(explains):.1f} s)"
    )
    print(f"overhead (explain / run, per battle): {per_explain / per_run:.2f}")
    print(f"projected default explanation (1000 per value): {1000 * variants * per_explain:.0f} s")


if __name__ == "__main__":
    main()
