"""A chain costs what its fights cost: ``run_chain`` against the ``run_battle`` calls it makes.

Runs of a shipped chain are timed whole, and the time spent inside the engine's
``run_battle`` (the fights themselves, their starts applied) is timed within them; the
**ratio** whole / fights is what the chain layer (its bookkeeping, rests, tallies) adds.
Target: **1.10 or under** (``--check`` exits 1 above it). Interleaved best-of-N repeats, as
every benchmark here, because the machine is shared.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from combatsim.chains import load_chain, runner  # noqa: E402
from combatsim.chains.tally import ChainTally  # noqa: E402

TARGET = 1.10
CHAIN = ROOT / "scenarios" / "chains" / "sr2097-patrol-and-boss.yaml"


def measure(chain, runs: int) -> tuple[float, float]:
    """Seconds for ``runs`` runs tallied as the run layer tallies them, and the part of it
    spent in the fights."""
    inner = runner.run_battle
    spent = 0.0

    def timed(*args, **kwargs):
        nonlocal spent
        start = time.perf_counter()
        try:
            return inner(*args, **kwargs)
        finally:
            spent += time.perf_counter() - start

    runner.run_battle = timed
    try:
        tally = ChainTally.empty(chain)
        start = time.perf_counter()
        for index in range(runs):
            tally.add(runner.run_chain(chain, chain.seed, index))
        whole = time.perf_counter() - start
    finally:
        runner.run_battle = inner
    return whole, spent


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=200)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--check", action="store_true")
    args = parser.parse_args()
    chain = load_chain(CHAIN)
    ratios = []
    for _ in range(args.repeats):
        whole, fights = measure(chain, args.runs)
        ratios.append(whole / fights)
    ratio = min(ratios)
    print(f"{CHAIN.name}: {args.runs} runs, chain / its fights = {ratio:.3f} (target {TARGET})")
    return 1 if args.check and ratio > TARGET else 0


if __name__ == "__main__":
    sys.exit(main())
