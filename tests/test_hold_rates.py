"""Waking a held action only for the moves that concern them (ruling 30) moves no pinned
battle (the golden files are unchanged) but could move later ones, where holders woken by
one move now act in initiative order: every shipped scenario's win, draw and casualty rates
over ``BATTLES`` battles agree with those of the engine before the ruling, each pair's
99.9% Wilson intervals overlapping.

The "before" counts are a fixture, ``golden/hold_rates_before.json``, made once from the
commit before ruling 30 (the merge of the tactics branch, 31d3476) by running this file
there with the same scenarios and seeds::

    mkdir /tmp/before && git archive 31d3476 | tar -x -C /tmp/before
    cp tests/test_hold_rates.py /tmp/before/tests/
    cd /tmp/before && PYTHONPATH=$PWD python tests/test_hold_rates.py --record OUT.json

then copying OUT.json to ``tests/golden/hold_rates_before.json``.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

ROOT = Path.cwd() if "--record" in sys.argv else Path(__file__).resolve().parents[1]
BEFORE = Path(__file__).with_name("golden") / "hold_rates_before.json"
BATTLES = 20_000
CONFIDENCE = 0.999
SCENARIOS = sorted((ROOT / "scenarios").glob("*.yaml")) + sorted(
    (ROOT / "scenarios" / "tactics").glob("*.yaml")
)


def counts(path: Path) -> dict[str, int]:
    """Wins per side, draws, and per side the battles it ended with a fighter down or dead
    (the side rows of the casualties table), over ``BATTLES`` battles from the scenario's
    seed, on every core (no count depends on the workers)."""
    from combatsim import api

    summary = api.simulate(str(path), BATTLES, workers=None, quiet=True, records="none").summary
    out = {f"wins {side}": s["wins"] for side, s in summary["sides"].items()}
    out["draws"] = summary["draws"]["count"]
    for entry in summary.get("casualties") or ():
        if entry["level"] == "side":
            out[f"down {entry['who']}"] = entry["down"]
            out[f"dead {entry['who']}"] = entry["dead"]
    out["battles"] = summary["battles_completed"]
    return out


def key(path: Path) -> str:
    return str(path.relative_to(ROOT))


def overlap(a: int, b: int, n: int) -> bool:
    """Whether ``a`` and ``b`` out of ``n`` have overlapping 99.9% Wilson intervals."""
    from combatsim.stats import wilson_interval

    low_a, high_a = wilson_interval(a, n, CONFIDENCE)
    low_b, high_b = wilson_interval(b, n, CONFIDENCE)
    return low_a <= high_b and low_b <= high_a


def test_overlap_tells_a_real_move_apart():
    assert overlap(10_000, 10_100, BATTLES)
    assert not overlap(10_000, 10_800, BATTLES)


@pytest.mark.slow
@pytest.mark.parametrize("path", SCENARIOS, ids=key)
def test_rates_agree_with_before_the_ruling(path):
    before = json.loads(BEFORE.read_text(encoding="utf-8"))[key(path)]
    now = counts(path)
    assert now.keys() == before.keys()
    n = now.pop("battles")
    assert n == before.pop("battles") == BATTLES
    moved = {k: (before[k], v) for k, v in now.items() if not overlap(before[k], v, n)}
    assert not moved, f"{key(path)}: rates out of each other's 99.9% intervals: {moved}"


if __name__ == "__main__" and sys.argv[1:2] == ["--record"]:
    table = {}
    for p in SCENARIOS:
        table[key(p)] = counts(p)
        print(key(p), table[key(p)], flush=True)
    Path(sys.argv[2]).write_text(json.dumps(table, indent=1) + "\n", encoding="utf-8")
