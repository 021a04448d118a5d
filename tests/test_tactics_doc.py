"""docs/tactics.md stays true: every traced excerpt comes out of the engine as printed.

Each excerpt follows a line naming its example (``scenarios/tactics/NAME.yaml``, battle N);
its lines must appear, in order, in that battle's trace (``combatsim run ... --trace N``).
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from combatsim import load_scenario
from combatsim.engine.battle import run_battle
from combatsim.output import format_trace

ROOT = Path(__file__).resolve().parents[1]
PAGE = (ROOT / "docs" / "tactics.md").read_text(encoding="utf-8")
EXCERPT = re.compile(r"`(scenarios/tactics/[\w-]+\.yaml)`, battle (\d+):.*?```text\n(.*?)```", re.S)
EXCERPTS = EXCERPT.findall(PAGE)


def test_the_page_has_an_excerpt_for_every_example():
    shipped = {str(p.relative_to(ROOT)) for p in (ROOT / "scenarios" / "tactics").glob("*.yaml")}
    assert {path for path, _, _ in EXCERPTS} == shipped


@pytest.mark.parametrize("path, battle, excerpt", EXCERPTS, ids=[e[0] for e in EXCERPTS])
def test_every_excerpt_is_in_its_trace_in_order(path, battle, excerpt):
    scenario = load_scenario(ROOT / path)
    result = run_battle(scenario, scenario.seed, int(battle), trace=True)
    lines = format_trace(result, [s.name for s in scenario.sides]).splitlines()
    at = 0
    for line in excerpt.splitlines():
        found = [i for i in range(at, len(lines)) if lines[i] == line]
        assert found, f"{path} battle {battle}: not in the trace after line {at}: {line!r}"
        at = found[0] + 1
