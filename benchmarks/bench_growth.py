"""How the cost of a fighter's action grows with the size of the battle.

Run from the repository root::

    python benchmarks/bench_growth.py                # 1v1 to 128v128, and 2,000 apart
    python benchmarks/bench_growth.py --rounds 8     # steadier on a busy machine
    python benchmarks/bench_growth.py --check        # exit 1 if a target is missed
    python benchmarks/bench_growth.py --step 200     # copies out of each other's reach

The battles are copies of the 4v4 firefight (``scenarios/sr-firefight-4v4.yaml``): n against
n is the first n fighters of each side below 4, and n / 4 copies of the whole 4v4 from 4 up,
each copy (fighters and cover points) 12 m north of the one before, so that the fighters
stand as the 4v4's do (3 m apart in a line, 24 m from the other side's line): one long
fight, where a fighter sees about three times the enemies near it that a 4v4 fighter does.
With ``--step 200`` the copies stand out of each other's reach: many small fights in one
battle, whose winners then cross to the next copy. Each round runs
every size once, in an order that turns round after round (interleaved: every size sees the
same load), a chunk of battles of about the same number of fighter-actions per size; the cost
is the CPU time of the process (``time.process_time``) per fighter-action (the ``actions`` of
``combatants.csv``, summed). It prints the cost per size against the 4v4's (the **growth
ratio**) and the least-squares line ``cost = a + b x fighters``.

Then one turn of **2,000 combatants that never meet**: 1,000 a side, 4v4 fighters with their
tactics, the sides 50 km apart (no weapon reaches, no cover within reach: everyone runs
toward the enemy): the median CPU time of ``run_battle`` with a turn limit of 1.

Targets (issue 19): the 128v128 growth ratio at most 1.2, the 2,000-combatant turn under
50 ms.
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

from combatsim.engine import run_battle  # noqa: E402
from combatsim.scenario import load_scenario  # noqa: E402

BASE = ROOT / "scenarios" / "sr-firefight-4v4.yaml"
SIZES = (1, 2, 4, 8, 16, 32, 64, 128)  # fighters a side
COPY_STEP = 12.0  # meters north between copies of the 4v4
ACTIONS_PER_CHUNK = 6000  # fighter-actions each size runs per round (about)
GROWTH_TARGET, APART_TARGET = 1.2, 0.050
APART_PER_SIDE, APART_GAP = 1000, 50_000.0


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


def growth_scenario(per_side: int, step: float = COPY_STEP) -> dict:
    """n against n copies of the 4v4, ``step`` meters apart (see the module's docstring)."""
    data = _base()
    copies = max(1, per_side // 4)
    points = data["environment"]["cover_points"]
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


def apart_scenario() -> dict:
    """2,000 combatants in two lines 50 km apart, one turn."""
    data = _base()
    data["turn_limit"] = 1
    data["environment"]["cover_points"] = []
    for s, side in enumerate(data["sides"]):
        kinds = _members(side)
        side["members"] = [
            dict(
                kinds[k % len(kinds)],
                name=f"{kinds[k % len(kinds)]['name']} #{k}",
                position=[s * APART_GAP, 3.0 * k],
            )
            for k in range(APART_PER_SIDE)
        ]
    return data


def _load(data: dict, folder: Path, name: str):
    path = folder / f"{name}.yaml"
    path.write_text(yaml.safe_dump(data))
    return load_scenario(path)


def _chunk(scenario, first: int, battles: int) -> tuple[float, int]:
    """CPU seconds and fighter-actions of ``battles`` battles from ``first``."""
    actions = 0
    start = time.process_time()
    for i in range(first, first + battles):
        result = run_battle(scenario, 2050, i)
        actions += sum(c["actions"] for c in result.combatants)
    return time.process_time() - start, actions


def growth(rounds: int, folder: Path, step: float = COPY_STEP) -> dict[int, float]:
    """Microseconds of CPU per fighter-action, per size, interleaved over ``rounds``."""
    scenarios = {n: _load(growth_scenario(n, step), folder, f"growth-{n}") for n in SIZES}
    per_battle = {}
    for n, scenario in scenarios.items():  # warm up and size the chunks
        _, actions = _chunk(scenario, 10**6, 2)
        per_battle[n] = max(1, actions // 2)
    battles = {n: max(1, round(ACTIONS_PER_CHUNK / per_battle[n])) for n in SIZES}
    spent = dict.fromkeys(SIZES, 0.0)
    acted = dict.fromkeys(SIZES, 0)
    order = list(SIZES)
    for r in range(rounds):
        for n in order[r % len(order) :] + order[: r % len(order)]:
            seconds, actions = _chunk(scenarios[n], r * battles[n], battles[n])
            spent[n] += seconds
            acted[n] += actions
        order.reverse()
    return {n: 1e6 * spent[n] / acted[n] for n in SIZES}


def line(costs: dict[int, float]) -> tuple[float, float]:
    """Least squares ``cost = a + b x fighters`` (fighters: both sides)."""
    xs = [2.0 * n for n in costs]
    ys = list(costs.values())
    mx, my = statistics.fmean(xs), statistics.fmean(ys)
    b = sum((x - mx) * (y - my) for x, y in zip(xs, ys, strict=True)) / sum(
        (x - mx) ** 2 for x in xs
    )
    return my - b * mx, b


def apart_turn(repeats: int, folder: Path) -> float:
    """Median CPU seconds of one turn of the 2,000 combatants that never meet."""
    scenario = _load(apart_scenario(), folder, "apart")
    run_battle(scenario, 2050, 0)  # prepares the scenario's fighters once, as a batch does
    times = []
    for i in range(repeats):
        start = time.process_time()
        run_battle(scenario, 2050, i + 1)
        times.append(time.process_time() - start)
    return statistics.median(times)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--repeats", type=int, default=7, help="turns of the 2,000 apart")
    parser.add_argument("--check", action="store_true")
    parser.add_argument(
        "--step", type=float, default=COPY_STEP, help="meters between copies of the 4v4"
    )
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        costs = growth(args.rounds, folder, args.step)
        apart = apart_turn(args.repeats, folder)
    four = costs[4]
    print(f"{'size':>9} {'us/action':>10} {'vs 4v4':>7}")
    for n, cost in costs.items():
        print(f"{n:>4}v{n:<4} {cost:>10.2f} {cost / four:>7.2f}")
    a, b = line(costs)
    print(f"cost per fighter-action = {a:.2f} us + {b:.4f} us x fighters")
    print(f"2,000 combatants apart, one turn: {1e3 * apart:.1f} ms CPU (median of {args.repeats})")
    growth_ratio = costs[SIZES[-1]] / four
    missed = growth_ratio > GROWTH_TARGET or apart > APART_TARGET
    if args.check and missed:
        print(
            f"target missed: growth {growth_ratio:.2f} (<= {GROWTH_TARGET}), "
            f"apart {1e3 * apart:.1f} ms (< {1e3 * APART_TARGET:.0f})"
        )
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
