"""Whole battles against a bare simpy battle, interleaved, for every shipped scenario.

Run from the repository root::

    python benchmarks/bench_battles.py                 # every scenarios/*.yaml
    python benchmarks/bench_battles.py --references    # the four reference scenarios only
    python benchmarks/bench_battles.py --scenario scenarios/sr-bar-brawl.yaml  # one (repeatable)
    python benchmarks/bench_battles.py --rounds 40     # steadier on a busy machine
    python benchmarks/bench_battles.py --profile       # and where the time goes, per action
    python benchmarks/bench_battles.py --check         # exit 1 if a ratio is over its target

The reference is simpy's own cost for a battle: a bare simpy battle of 8 processes that each
yield 25 timeouts (200 events, no rules). For every scenario the benchmark alternates, in the
same process, a small chunk of engine battles (``run_battle`` as a batch runs them, untraced)
and a small chunk of bare battles, so both see the same machine load; each side's time is the
sum over its chunks, in CPU time of this process (``time.process_time``: time other jobs on
a shared machine take from it is not counted, though they still slow it through caches and
memory), and each bare chunk runs as many bare battles as take about as long as
the engine chunk before it (so neither side gets a quieter share of the machine). It prints
battles per second for both, the ratio "engine time per battle / bare time per battle", and
the events and actions per battle (events:
every event put on simpy's queue, counted in a separate pass so the count costs nothing in
the timed runs). Quote the ratios: these machines are shared and absolute times drift.

Targets: at most 4 for the four reference scenarios (the 4v4 firefight, the 2097
patrol, the 4D8 dockside shootout and the Lost Souls raid), at most 6 for every other shipped
scenario.
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

from combatsim.engine import run_battle, simpy_parts  # noqa: E402
from combatsim.scenario import load_scenario  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
REFERENCES = (  # the four reference scenarios, held to the tighter target
    "scenarios/sr-firefight-4v4.yaml",
    "scenarios/sr2097-runners-vs-patrol.yaml",
    "scenarios/4d8-dockside-shootout.yaml",
    "scenarios/lost-souls-warehouse-raid.yaml",
)
REFERENCE_TARGET, OTHER_TARGET = 4.0, 6.0  # the highest ratios allowed


def shipped_scenarios() -> list[str]:
    """Every shipped scenario, the references first, then the rest by name."""
    others = sorted(str(path.relative_to(ROOT)) for path in (ROOT / "scenarios").glob("*.yaml"))
    return list(REFERENCES) + [path for path in others if path not in REFERENCES]


def target(path: str) -> float:
    """The highest ratio allowed for this scenario file."""
    return REFERENCE_TARGET if Path(path).as_posix() in REFERENCES else OTHER_TARGET


BARE_PROCESSES, BARE_TIMEOUTS = 8, 25


def bare_battle() -> None:
    """simpy's floor for a battle: 8 processes x 25 timeouts (200 events), nothing else."""
    env = simpy.Environment()

    def fighter(env):
        for _ in range(BARE_TIMEOUTS):
            yield env.timeout(1)

    for _ in range(BARE_PROCESSES):
        env.process(fighter(env))
    env.run()


class _Counter:
    """Counts the events a battle puts on simpy's queue: every ``Environment.schedule`` call,
    and every push of the engine's own events (``simpy_parts``' ``At`` and ``Alarm`` push
    without that call)."""

    def __init__(self):
        self.events = 0
        self._schedule = simpy.Environment.schedule
        self._push = simpy_parts.heappush

    def __enter__(self):
        counter = self

        def schedule(env, event, priority=1, delay=0):
            counter.events += 1
            return counter._schedule(env, event, priority, delay)

        def push(queue, entry):
            counter.events += 1
            return counter._push(queue, entry)

        simpy.Environment.schedule = schedule
        simpy_parts.heappush = push
        return self

    def __exit__(self, *exc):
        simpy.Environment.schedule = self._schedule
        simpy_parts.heappush = self._push


def measure(scenario, rounds: int, chunk: int) -> dict:
    """Alternate ``rounds`` chunks of ``chunk`` engine battles with chunks of bare battles
    that take about as long (as many as the ratio so far says), so both sides spend the same
    wall time under whatever load the machine has; the ratio is of the summed times per
    battle."""
    for i in range(chunk):  # warm-up
        run_battle(scenario, scenario.seed, i)
        bare_battle()
    engine = bare = 0.0
    bare_battles = 0
    index = 0
    clock = time.process_time  # CPU time of this process: what other jobs take is not counted
    per_chunk = chunk * 10  # bare battles per chunk, refined as the ratio becomes known
    for _ in range(rounds):
        start = clock()
        for i in range(index, index + chunk):
            run_battle(scenario, scenario.seed, i)
        engine += clock() - start
        start = clock()
        for _ in range(per_chunk):
            bare_battle()
        bare += clock() - start
        bare_battles += per_chunk
        index += chunk
        per_chunk = max(1, round(chunk * (engine / index) / (bare / bare_battles)))
    battles = rounds * chunk
    with _Counter() as counter:
        actions = 0
        for i in range(battles):
            result = run_battle(scenario, scenario.seed, i)
            actions += sum(row["actions"] for row in result.combatants)
    return {
        "battles": battles,
        "engine_per_s": battles / engine,
        "bare_per_s": bare_battles / bare,
        "ratio": (engine / battles) / (bare / bare_battles),
        "events": counter.events / battles,
        "actions": actions / battles,
    }


def profile(scenario, battles: int, top: int = 30) -> None:
    """Where the time goes (cProfile over ``battles`` battles), per fighter-action: a scenario
    whose battles have more actions costs more per battle for that alone, so the functions
    that cost more *per action* than in another scenario are the ones to look at."""
    profiler = cProfile.Profile()
    profiler.enable()
    for i in range(battles):
        run_battle(scenario, scenario.seed, i)
    profiler.disable()
    actions = sum(
        row["actions"]
        for i in range(battles)
        for row in run_battle(scenario, scenario.seed, i).combatants
    )
    stats = pstats.Stats(profiler).stats  # {(file, line, name): (_, calls, own time, ...)}
    rows = [
        (calls / actions, own / actions * 1e6, f"{Path(file).name}:{line}({name})")
        for (file, line, name), (_, calls, own, _, _) in stats.items()
    ]
    print(
        f"  per action ({actions / battles:.1f} actions a battle, cProfile inflates small "
        f"functions): {sum(r[0] for r in rows):.1f} calls, {sum(r[1] for r in rows):.2f} us"
    )
    print(f"  {'calls':>7} {'own us':>7}  function")
    for calls, own, where in sorted(rows, key=lambda r: -r[1])[:top]:
        print(f"  {calls:>7.2f} {own:>7.3f}  {where}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=20, help="chunks per scenario")
    parser.add_argument("--chunk", type=int, default=10, help="engine battles per chunk")
    parser.add_argument("--scenario", action="append", help="only this scenario file (repeatable)")
    parser.add_argument(
        "--references", action="store_true", help="only the four reference scenarios"
    )
    parser.add_argument("--profile", action="store_true", help="print where the time goes")
    parser.add_argument("--check", action="store_true", help="exit 1 if a ratio is over target")
    args = parser.parse_args(argv)

    paths = args.scenario or (list(REFERENCES) if args.references else shipped_scenarios())
    over = []
    print(
        f"{'scenario':<42} {'battles/s':>9} {'bare/s':>8} {'ratio':>6} {'target':>6} "
        f"{'events':>7} {'actions':>7}"
    )
    for path in paths:
        scenario = load_scenario(path)
        m = measure(scenario, args.rounds, args.chunk)
        limit = target(path)
        if m["ratio"] > limit:
            over.append(path)
        print(
            f"{Path(path).stem:<42} {m['engine_per_s']:>9,.0f} {m['bare_per_s']:>8,.0f} "
            f"{m['ratio']:>6.2f} {limit:>6.1f} {m['events']:>7.1f} {m['actions']:>7.1f}",
            flush=True,
        )
        if args.profile:
            profile(scenario, 200)
    print(
        f"({args.rounds} interleaved chunks of {args.chunk} engine battles per scenario; bare: "
        f"{BARE_PROCESSES} simpy processes x {BARE_TIMEOUTS} timeouts)"
    )
    if args.check and over:
        print("over target:", ", ".join(over))
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
