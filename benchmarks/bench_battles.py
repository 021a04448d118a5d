"""Battles per second on the shipped 4-against-4 firefight, and the engine's cost per event.

Run from the repository root::

    python benchmarks/bench_battles.py [--battles 300] [--scenario scenarios/sr-firefight-4v4.yaml]

Runs the battles on one core and reports battles per second. It counts every event the
battles schedule in simpy and, in the same run, times a bare simpy loop of as many timeouts,
so the ratio "engine time per event / bare simpy time per event" says how much the rules,
tactics and dice cost on top of the event machinery itself. Quote the ratio: these machines
are shared and absolute times drift.
"""

from __future__ import annotations

import argparse
import cProfile
import pstats
import sys
import time
from pathlib import Path

import simpy

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from combatsim.engine import run_battle  # noqa: E402
from combatsim.scenario import load_scenario  # noqa: E402

DEFAULT_SCENARIO = "scenarios/sr-firefight-4v4.yaml"


class _Counter:
    """Counts ``Environment.schedule`` calls: every event a battle puts on the queue."""

    def __init__(self):
        self.events = 0
        self._schedule = simpy.Environment.schedule

    def __enter__(self):
        counter = self

        def schedule(env, event, priority=1, delay=0):
            counter.events += 1
            return counter._schedule(env, event, priority, delay)

        simpy.Environment.schedule = schedule
        return self

    def __exit__(self, *exc):
        simpy.Environment.schedule = self._schedule


def bare_simpy(events: int) -> float:
    """Seconds for a simpy process that yields ``events`` timeouts (the floor per event)."""
    env = simpy.Environment()

    def loop():
        for _ in range(events):
            yield env.timeout(1)

    env.process(loop())
    start = time.perf_counter()
    env.run()
    return time.perf_counter() - start


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--battles", type=int, default=300)
    parser.add_argument("--scenario", default=DEFAULT_SCENARIO)
    parser.add_argument("--profile", action="store_true", help="print where the time goes")
    args = parser.parse_args(argv)

    scenario = load_scenario(args.scenario)
    for i in range(5):  # warm-up
        run_battle(scenario, scenario.seed, i)
    with _Counter() as counter:
        start = time.perf_counter()
        for i in range(args.battles):
            run_battle(scenario, scenario.seed, i)
        engine = time.perf_counter() - start
    bare = min(bare_simpy(counter.events) for _ in range(3))
    per_event_engine = engine / counter.events
    per_event_bare = bare / counter.events
    print(f"scenario: {scenario.name} ({args.scenario})")
    print(f"battles: {args.battles} on one core")
    print(f"battles per second: {args.battles / engine:,.0f}")
    print(f"events scheduled: {counter.events:,} ({counter.events / args.battles:.0f} per battle)")
    print(
        f"engine time per event / bare simpy time per event: "
        f"{per_event_engine / per_event_bare:.1f}"
    )
    if args.profile:
        profiler = cProfile.Profile()
        profiler.enable()
        for i in range(min(args.battles, 100)):
            run_battle(scenario, scenario.seed, i)
        profiler.disable()
        pstats.Stats(profiler).sort_stats("cumulative").print_stats(25)
    return 0


if __name__ == "__main__":
    sys.exit(main())
