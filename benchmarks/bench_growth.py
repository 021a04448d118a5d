"""How the cost of a fighter's action grows with the size of the battle.

Run from the repository root::

    python benchmarks/bench_growth.py                # every layout, the far turn, set-up
    python benchmarks/bench_growth.py --rounds 8     # steadier on a busy machine
    python benchmarks/bench_growth.py --check        # exit 1 if a target is missed
    python benchmarks/bench_growth.py --sizes        # 1v1 to 128v128 in each layout

Three layouts of 128 against 128, each against the 4v4 firefight
(``scenarios/sr-firefight-4v4.yaml``), per fighter-action (the **growth ratio**):

- ``apart``: 32 copies of the whole 4v4 (fighters and cover points), each 200 m north of the
  one before: out of each other's reach, many small fights in one battle, whose winners
  then cross to the next copy;
- ``near``: the same copies 12 m apart, so that the fighters stand as the 4v4's do (3 m
  apart in a line, 24 m from the other side's line): one long fight, where a fighter sees
  about three times the enemies near it that a 4v4 fighter does;
- ``dense``: a mass battle, two blocks of 128 (16 files of 8, 1.5 m apart, no cover) 6 m
  apart facing each other, every enemy within every gun's reach.

Each round runs every battle once, in an order that turns round after round (interleaved:
every one sees the same load), a chunk of battles of about the same number of
fighter-actions each; the cost is the CPU time of the process (``time.process_time``) per
fighter-action (the ``actions`` of ``combatants.csv``, summed). A chunk runs with the heap
settled (``combatsim.run.chunks.settled_heap``), as a run's chunks do. With ``--sizes`` it runs
n against n for n = 1 to 128 in each layout too (n against n is the first n fighters of each
side below 4, n / 4 copies or the first n of each block from 4 up) and prints the
least-squares line ``cost = a + b x fighters``.

Then a **far turn**: one turn (``turn_limit: 1``) of 1,000 against 1,000 4v4 fighters with
their tactics, the sides 50 km apart (no weapon reaches, no cover within reach: everyone
runs toward the enemy), against the same of 100 against 100, each as ``combatsim.simulate``
runs it from its file (reading it, the set-up of the run, the one battle): the median CPU
of ``--repeats`` interleaved runs, and their ratio (linear growth: 10).

Then the **set-up** of ``simulate`` per battle: ``simulate`` of the 4v4, 1,000 battles on
one worker (records kept, as by default), against the same 1,000 battles run with
``run_battle`` alone, interleaved: the difference per battle, and its share of the run.

Targets: growth ratios ``apart`` 1.2, ``near`` 1.5, ``dense`` 2.0; the far turn 15 times
the 100-against-100 turn.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from combatsim import api  # noqa: E402
from combatsim.engine import run_battle  # noqa: E402
from combatsim.run.chunks import settled_heap  # noqa: E402
from combatsim.scenario import load_scenario  # noqa: E402

BASE = ROOT / "scenarios" / "sr-firefight-4v4.yaml"
SIZES = (1, 2, 4, 8, 16, 32, 64, 128)  # fighters a side (``--sizes``)
BIG = 128  # fighters a side of the layouts the targets are for
LAYOUTS = {"apart": 200.0, "near": 12.0, "dense": None}  # meters between copies (None: blocks)
TARGETS = {"apart": 1.2, "near": 1.5, "dense": 2.0}
FAR_TARGET = 15.0  # the 1,000-against-1,000 turn against the 100-against-100 one
DENSE_FILES, DENSE_SPACING, DENSE_GAP = 16, 1.5, 6.0  # a block: files of fighters, meters
ACTIONS_PER_CHUNK = 6000  # fighter-actions each battle runs per round (about)
FAR_SIDES, FAR_GAP = (100, 1000), 50_000.0
SETUP_BATTLES = 1000


def _base() -> dict:
    data = yaml.safe_load(BASE.read_text())
    data["catalogues"] = [str(ROOT / "scenarios" / "catalogues" / "sr-classic.yaml")]
    return data


def _members(side: dict) -> list[dict]:
    """A side's members one fighter each (``count`` spelled out), in order."""
    out = []
    for m in side["members"]:
        count = m.get("count", 1)
        dx, dy = m.get("spacing", (0.0, 2.0))
        x, y = m["position"]
        for k in range(count):
            one = {key: v for key, v in m.items() if key not in ("count", "spacing")}
            one["position"] = [x + k * dx, y + k * dy]
            one["name"] = f"{m['name']} {k + 1}" if count > 1 else m["name"]
            out.append(one)
    return out


def growth_scenario(per_side: int, step: float | None = LAYOUTS["near"]) -> dict:
    """n against n copies of the 4v4, ``step`` meters apart, or (``step`` None) n of each
    side in a block (see the module's docstring)."""
    if step is None and per_side > 4:
        return dense_scenario(per_side)
    data = _base()
    copies = max(1, per_side // 4)
    points = data["environment"]["cover_points"]
    step = step or 0.0
    data["environment"]["cover_points"] = [
        dict(p, position=[p["position"][0], p["position"][1] + c * step])
        for c in range(copies)
        for p in points
    ]
    for side in data["sides"]:
        one_copy = _members(side)[: min(per_side, 4)]
        side["members"] = [
            dict(
                m,
                name=f"{m['name']} #{c}",
                position=[m["position"][0], m["position"][1] + c * step],
            )
            for c in range(copies)
            for m in one_copy
        ]
    return data


def dense_scenario(per_side: int) -> dict:
    """Two blocks of ``per_side`` facing each other, every enemy in reach, no cover."""
    data = _base()
    data["environment"]["cover_points"] = []
    for s, side in enumerate(data["sides"]):
        kinds = _members(side)[:4]
        members = []
        for k in range(per_side):
            row, file = divmod(k, DENSE_FILES)
            depth = row * DENSE_SPACING
            kind = kinds[k % len(kinds)]
            x = -depth if s == 0 else DENSE_GAP + depth
            members.append(
                dict(kind, name=f"{kind['name']} #{k}", position=[x, file * DENSE_SPACING])
            )
        side["members"] = members
    return data


def far_scenario(per_side: int) -> dict:
    """``per_side`` against as many in two lines ``FAR_GAP`` meters apart, one turn."""
    data = _base()
    data["turn_limit"] = 1
    data["environment"]["cover_points"] = []
    for s, side in enumerate(data["sides"]):
        kinds = _members(side)
        side["members"] = [
            dict(
                kinds[k % len(kinds)],
                name=f"{kinds[k % len(kinds)]['name']} #{k}",
                position=[s * FAR_GAP, 3.0 * k],
            )
            for k in range(per_side)
        ]
    return data


def _write(data: dict, folder: Path, name: str) -> Path:
    path = folder / f"{name}.yaml"
    path.write_text(yaml.safe_dump(data))
    return path


def _load(data: dict, folder: Path, name: str):
    return load_scenario(_write(data, folder, name))


def _chunk(scenario, first: int, battles: int) -> tuple[float, int]:
    """CPU seconds and fighter-actions of ``battles`` battles from ``first``."""
    actions = 0
    start = time.process_time()
    with settled_heap():  # as a run's chunk runs its battles
        for i in range(first, first + battles):
            result = run_battle(scenario, 2050, i)
            actions += sum(c["actions"] for c in result.combatants)
    return time.process_time() - start, actions


def growth(rounds: int, folder: Path, battles: dict[str, dict]) -> dict[str, float]:
    """Microseconds of CPU per fighter-action of each of ``battles`` (name -> scenario
    data), interleaved over ``rounds``."""
    scenarios = {n: _load(data, folder, n) for n, data in battles.items()}
    names = list(scenarios)
    chunk = {}
    for n, scenario in scenarios.items():  # warm up and size the chunks
        _, actions = _chunk(scenario, 10**6, 2)
        chunk[n] = max(1, round(ACTIONS_PER_CHUNK / max(1, actions // 2)))
    spent = dict.fromkeys(names, 0.0)
    acted = dict.fromkeys(names, 0)
    for r in range(rounds):
        turned = names[r % len(names) :] + names[: r % len(names)]
        for n in turned if r % 2 == 0 else turned[::-1]:
            seconds, actions = _chunk(scenarios[n], r * chunk[n], chunk[n])
            spent[n] += seconds
            acted[n] += actions
    return {n: 1e6 * spent[n] / acted[n] for n in names}


def line(costs: dict[int, float]) -> tuple[float, float]:
    """Least squares ``cost = a + b x fighters`` (fighters: both sides)."""
    xs = [2.0 * n for n in costs]
    ys = list(costs.values())
    mx, my = statistics.fmean(xs), statistics.fmean(ys)
    b = sum((x - mx) * (y - my) for x, y in zip(xs, ys, strict=True)) / sum(
        (x - mx) ** 2 for x in xs
    )
    return my - b * mx, b


def _simulate(path: Path, battles: int) -> float:
    """CPU seconds of ``combatsim.simulate`` of ``path`` (its file read, set up, run)."""
    start = time.process_time()
    api.simulate(str(path), battles, workers=1, quiet=True)
    return time.process_time() - start


def far_turn(repeats: int, folder: Path) -> dict[int, float]:
    """Median CPU seconds of one turn of each of ``FAR_SIDES`` a side far apart, from the
    file, interleaved."""
    paths = {n: _write(far_scenario(n), folder, f"far-{n}") for n in FAR_SIDES}
    for path in paths.values():
        _simulate(path, 1)  # warm up (imports, the catalogue's cache)
    times: dict[int, list[float]] = {n: [] for n in FAR_SIDES}
    for r in range(repeats):
        for n in FAR_SIDES if r % 2 == 0 else FAR_SIDES[::-1]:
            times[n].append(_simulate(paths[n], 1))
    return {n: statistics.median(t) for n, t in times.items()}


def setup_cost(repeats: int) -> tuple[float, float]:
    """Microseconds of CPU per battle that ``simulate`` of the 4v4 spends beyond its
    battles, and the battles' own (medians of ``repeats`` interleaved pairs)."""
    scenario = load_scenario(BASE)
    _simulate(BASE, 50)
    extra, own = [], []
    for _ in range(repeats):
        start = time.process_time()
        for i in range(SETUP_BATTLES):
            run_battle(scenario, scenario.seed, i)
        battles = time.process_time() - start
        whole = _simulate(BASE, SETUP_BATTLES)
        extra.append(1e6 * (whole - battles) / SETUP_BATTLES)
        own.append(1e6 * battles / SETUP_BATTLES)
    return statistics.median(extra), statistics.median(own)


def _report_sizes(rounds: int, folder: Path) -> None:
    for layout, step in LAYOUTS.items():
        battles = {f"{layout}-{n}": growth_scenario(n, step) for n in SIZES}
        costs = growth(rounds, folder, battles)
        by_size = dict(zip(SIZES, costs.values(), strict=True))
        print(f"{layout}: {'size':>9} {'us/action':>10} {'vs 4v4':>7}")
        for n, cost in by_size.items():
            print(f"{'':>{len(layout) + 1}} {n:>4}v{n:<4} {cost:>10.2f} {cost / by_size[4]:>7.2f}")
        a, b = line(by_size)
        print(
            f"{'':>{len(layout) + 1}} cost per fighter-action = {a:.2f} us + {b:.4f} us x fighters"
        )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--repeats", type=int, default=7, help="runs of the far turns, set-up")
    parser.add_argument("--check", action="store_true")
    parser.add_argument("--sizes", action="store_true", help="1v1 to 128v128 in each layout")
    args = parser.parse_args(argv)
    missed = []
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        if args.sizes:
            _report_sizes(args.rounds, folder)
        battles = {"4v4": growth_scenario(4)}
        battles.update({name: growth_scenario(BIG, step) for name, step in LAYOUTS.items()})
        costs = growth(args.rounds, folder, battles)
        four = costs["4v4"]
        print(f"4v4: {four:.2f} us a fighter-action")
        for name, target in TARGETS.items():
            ratio = costs[name] / four
            cost = f"{costs[name]:6.2f} us"
            print(f"{BIG}v{BIG} {name:>5}: {cost}, {ratio:.2f} x the 4v4 (target {target})")
            if ratio > target:
                missed.append(f"{name} {ratio:.2f} > {target}")
        far = far_turn(args.repeats, folder)
        small, big = FAR_SIDES
        ratio = far[big] / far[small]
        print(
            f"one far turn from the file: {small}v{small} {1e3 * far[small]:.1f} ms, "
            f"{big}v{big} {1e3 * far[big]:.1f} ms CPU: {ratio:.1f} x (target {FAR_TARGET})"
        )
        if ratio > FAR_TARGET:
            missed.append(f"far turn {ratio:.1f} > {FAR_TARGET}")
    extra, own = setup_cost(max(3, args.repeats // 2))
    share = extra / (extra + own)
    print(f"simulate's set-up per 4v4 battle: {extra:.1f} us ({share:.0%} of {extra + own:.1f} us)")
    if args.check and missed:
        print("target missed: " + ", ".join(missed))
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
