"""``combatsim explain`` on the 4v4 firefight: its CPU cost as a multiple of a plain run's.

Run from the repository root::

    python benchmarks/bench_explain.py                  # the default explanation, 1 worker
    python benchmarks/bench_explain.py --repeats 3      # interleaved three times, medians
    python benchmarks/bench_explain.py --battles 200    # quicker, a smaller explanation

Times, in this process and on one worker (so the CPU time is the whole cost), ``combatsim run
SCENARIO --battles 1000 --records none`` and ``combatsim explain SCENARIO --battles N``
interleaved (run, explain, run, explain, ...), and once ``explain --early-stop off`` (a full
run: every lever all N battles; levers no one uses are skipped in both). Prints the **ratio**
of explain's CPU time to the run's (issue 19's target: at most 30 for the default explanation
of the 4v4, 81 before it), the levers skipped as unused and stopped early, and whether the top
of the ranking (the ``TOP`` levers ``explain`` guards) is the full run's, lever for lever and
number for number. The machines are shared: quote the ratio, not the seconds.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

DEFAULT_SCENARIO = "scenarios/sr-firefight-4v4.yaml"


def cpu(argv: list[str]) -> float:
    """CPU seconds of ``combatsim ARGV`` run in this process (one worker: no other process)."""
    from combatsim.cli import main

    start = time.process_time()
    status = main(argv)
    used = time.process_time() - start
    if status != 0:
        raise SystemExit(f"combatsim {' '.join(argv)} exited {status}")
    return used


def top_levers(summary: dict, top: int) -> list[tuple]:
    return [(r["path"], r["difference_down"], r["difference_up"]) for r in summary["levers"][:top]]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--scenario", default=DEFAULT_SCENARIO)
    parser.add_argument("--battles", type=int, default=1000, help="explain: battles per value")
    parser.add_argument("--run-battles", type=int, default=1000, help="the plain run's battles")
    parser.add_argument("--repeats", type=int, default=1)
    parser.add_argument("--no-full", action="store_true", help="skip the full run's check")
    args = parser.parse_args()
    from combatsim.sweeps.explain import TOP

    common = ["--workers", "1", "--quiet"]
    runs, explains = [], []
    with tempfile.TemporaryDirectory() as tmp:
        run_argv = ["run", args.scenario, "--battles", str(args.run_battles), "--records", "none"]
        cpu([*run_argv, "--out", f"{tmp}/warm", *common])  # imports and caches
        for k in range(args.repeats):
            runs.append(cpu([*run_argv, "--out", f"{tmp}/run{k}", *common]))
            explain_argv = ["explain", args.scenario, "--battles", str(args.battles)]
            explains.append(cpu([*explain_argv, "--out", f"{tmp}/explain{k}", *common]))
        summary = json.loads((Path(tmp) / "explain0" / "summary.json").read_text())
        full = None
        if not args.no_full:
            full_cpu = cpu([*explain_argv, "--early-stop", "off", "--out", f"{tmp}/full", *common])
            full = json.loads((Path(tmp) / "full" / "summary.json").read_text())
    run_cpu, explain_cpu = statistics.median(runs), statistics.median(explains)
    statuses = [r["status"] for r in summary["levers"]]
    print(f"scenario: {args.scenario}; {len(statuses)} levers, {summary['variants']} variants")
    print(
        f"  not used by anyone: {statuses.count('not used by anyone')}; "
        f"stopped early: {statuses.count('stopped early')} (looks at "
        f"{summary['stopping']['looks']}); ran all {args.battles}: {statuses.count('ran')}"
    )
    print(f"run ({args.run_battles} battles, 1 worker): {run_cpu:.2f} s CPU (median)")
    print(f"explain ({args.battles} per value, 1 worker): {explain_cpu:.1f} s CPU (median)")
    print(f"ratio explain / run: {explain_cpu / run_cpu:.1f}  (target at most 30)")
    if full is not None:
        same = top_levers(summary, TOP) == top_levers(full, TOP)
        print(f"full run (--early-stop off): {full_cpu:.1f} s CPU, ratio {full_cpu / run_cpu:.1f}")
        print(f"top {TOP} of the ranking the full run's, lever and numbers: {same}")
        if not same:
            for mine, theirs in zip(top_levers(summary, TOP), top_levers(full, TOP), strict=True):
                print(f"    {mine}  |  {theirs}")


if __name__ == "__main__":
    main()
