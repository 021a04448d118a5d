"""How much the Shadowrun pool sampler costs over the raw dice it has to roll anyway.

Run from the repository root::

    python benchmarks/bench_dice.py [--repeats 7] [--check]

Times ``combatsim.dice.shadowrun.sample`` for 1,000,000 six-die tests at TN 8 (every 6 is
re-rolled, so the sampler does its full work: first faces, the fumble check, one level of
re-rolls) against drawing the same 6,000,000 raw d6 faces with numpy. Each is timed the best of
``--repeats`` runs, interleaved so that both see the same machine load, and the ratio is printed.
Ratios, not absolute times, are what to compare across machines. ``--check`` exits 1 when the
ratio is above the target.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np

# Importable from a plain checkout: `python benchmarks/bench_dice.py` puts benchmarks/ on the
# path, not the repository root.
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from combatsim.dice.shadowrun import sample  # noqa: E402

TESTS, DICE, TN = 1_000_000, 6, 8
TARGET_RATIO = 5.0


def best_times(jobs: dict[str, Callable[[], object]], repeats: int) -> dict[str, float]:
    """Best wall-clock time of each job over ``repeats`` interleaved rounds (after a warm-up)."""
    for job in jobs.values():
        job()
    best = dict.fromkeys(jobs, float("inf"))
    for _ in range(repeats):
        for name, job in jobs.items():
            start = time.perf_counter()
            job()
            best[name] = min(best[name], time.perf_counter() - start)
    return best


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=7, help="timed rounds per job (best kept)")
    parser.add_argument("--check", action="store_true", help="exit 1 if the ratio is too high")
    args = parser.parse_args(argv)

    rng_sampler = np.random.default_rng(2026)
    rng_raw = np.random.default_rng(2027)
    times = best_times(
        {
            "sample": lambda: sample(rng_sampler, DICE, TN, TESTS),
            "raw": lambda: rng_raw.integers(1, 7, size=(TESTS, DICE)),
        },
        args.repeats,
    )
    ratio = times["sample"] / times["raw"]
    labels = {
        "sample": f"sample(rng, {DICE}, {TN}, size={TESTS:_})",
        "raw": f"rng.integers(1, 7, size=({TESTS:_}, {DICE}))",
    }
    for name, label in labels.items():
        print(f"{label:<42} {times[name] * 1e3:8.1f} ms")
    verdict = "ok" if ratio <= TARGET_RATIO else "OVER TARGET"
    print(f"ratio sample / raw faces: {ratio:.2f} (target <= {TARGET_RATIO:g}: {verdict})")
    print(f"best of {args.repeats} interleaved runs each")
    return 1 if args.check and ratio > TARGET_RATIO else 0


if __name__ == "__main__":
    sys.exit(main())
