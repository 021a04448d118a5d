"""``combatsim design`` on the 4v4 firefight: its CPU cost as a multiple of a plain run's.

Run from the repository root::

    python benchmarks/bench_design.py                      # the default design run
    python benchmarks/bench_design.py --pool catalogue --max-kinds 1
    python benchmarks/bench_design.py --weapons ak97,hk227 --armor armor_vest,lined_coat

Times, in this process and on one worker (so the CPU time is the whole cost), ``combatsim run
SCENARIO --battles 1000 --records none`` and then ``combatsim design SCENARIO --side 'corp
security' --target 'runners win 0.6..0.9' --target 'runners dead <= 0.05'`` with the options
given (default: the side's own archetypes, up to 8 fighters, 1000 battles). Prints both CPU
times, their ratio, the make-ups screened and the verdict. The machines are shared: quote the
ratio as well as the seconds.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

SCENARIO = "scenarios/sr-firefight-4v4.yaml"
TARGETS = ["--target", "runners win 0.6..0.9", "--target", "runners dead <= 0.05"]


def cpu(argv: list[str]) -> float:
    """CPU seconds of ``combatsim ARGV`` run in this process (one worker: no other process)."""
    from combatsim.cli import main

    start = time.process_time()
    status = main(argv)
    used = time.process_time() - start
    if status != 0:
        raise SystemExit(f"combatsim {' '.join(argv)} exited {status}")
    return used


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--pool", default=None)
    parser.add_argument("--weapons", default=None)
    parser.add_argument("--armor", default=None)
    parser.add_argument("--max-kinds", default="2")
    parser.add_argument("--battles", default="1000")
    args = parser.parse_args()
    common = ["--workers", "1", "--quiet"]
    extra = ["--max-kinds", args.max_kinds, "--battles", args.battles]
    for flag in ("pool", "weapons", "armor"):
        if getattr(args, flag):
            extra += [f"--{flag}", getattr(args, flag)]
    with tempfile.TemporaryDirectory() as tmp:
        run_argv = ["run", SCENARIO, "--battles", "1000", "--records", "none", *common]
        cpu([*run_argv, "--out", f"{tmp}/warm"])  # imports and caches
        run_cpu = cpu([*run_argv, "--out", f"{tmp}/run"])
        design_argv = ["design", SCENARIO, "--side", "corp security", *TARGETS, *extra]
        design_cpu = cpu([*design_argv, *common, "--out", f"{tmp}/design"])
        summary = json.loads((Path(tmp) / "design" / "summary.json").read_text())
    print(f"design {' '.join(extra)}: {summary['candidates']} make-ups screened")
    print(f"  run 1000 battles: {run_cpu:.1f} s CPU; design: {design_cpu:.1f} s CPU")
    print(f"  ratio: {design_cpu / run_cpu:.1f}")
    print(f"  {summary['verdict']}")


if __name__ == "__main__":
    main()
