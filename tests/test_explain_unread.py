"""``Explainable.unread``: the levers a rule system says no battle reads really change nothing.

``explain`` reports such a lever "not used by anyone" and runs no battle of it, so the claim
must hold exactly. For every shipped scenario (and the SR2097 ones with Edge switched off),
every member's lever its system names unread is set one step down and up, and a few traced
battles of each variant are compared with the scenario's own: the trace (every roll and
decision, in words), the battle row and every combatant's row must be identical. The test can
fail: a lever that is read (Firearms) changes the traces, which the last test checks.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from combatsim.engine import run_battle
from combatsim.rules.levers import scenario_value
from combatsim.scenario import load_scenario
from combatsim.sweeps.explain import scenario_levers
from combatsim.sweeps.fields import FieldPath, apply

ROOT = Path(__file__).resolve().parents[1]
SCENARIOS = sorted(p for p in (ROOT / "scenarios").glob("*.yaml"))
BATTLES = 3


def _battles(scenario) -> list[tuple]:
    """What a battle shows of itself: its trace, its row and its combatants' rows."""
    out = []
    for index in range(BATTLES):
        result = run_battle(scenario, scenario.seed, index, trace=True)
        trace = [repr(event) for event in result.trace or ()]
        out.append((trace, result.battle, result.combatants))
    return out


def _variant(base, item, value):
    label = f"{item.path}={value}"
    return apply(base, [(FieldPath.parse(item.path), scenario_value(value))], label)


def _edge_off(path: Path):
    base = load_scenario(str(path))
    return apply(base, [(FieldPath.parse("rules.options.edge"), False)], "edge off")


CASES = [(p.stem, lambda p=p: load_scenario(str(p))) for p in SCENARIOS]
SR2097 = [p for p in SCENARIOS if "system: sr2097" in p.read_text(encoding="utf-8")]
CASES += [(f"{p.stem} edge off", lambda p=p: _edge_off(p)) for p in SR2097]


@pytest.mark.slow
@pytest.mark.parametrize("make", [c[1] for c in CASES], ids=[c[0] for c in CASES])
def test_levers_said_unread_leave_every_traced_battle_identical(make):
    base = make()
    unread = [item for item in scenario_levers(base) if item.unread]
    if not unread:
        pytest.skip("the system names no lever of this scenario unread")
    expected = _battles(base)
    for item in unread:
        for _, value in item.lever.steps:
            assert _battles(_variant(base, item, value)) == expected, (item.path, value)


def test_the_check_sees_a_lever_that_is_read():
    """Firearms of the 4v4's street samurai is read on every shot: its traces differ."""
    base = load_scenario(str(ROOT / "scenarios" / "sr-firefight-4v4.yaml"))
    razor = next(i for i in scenario_levers(base) if i.path.endswith("skills.firearms"))
    assert not razor.unread
    assert _battles(_variant(base, razor, razor.lever.up)) != _battles(base)


def test_karma_and_throwing_are_unread_only_when_the_rules_say_so():
    """Instant Karma on (the autofire scenario) reads the pool; a grenadier's Throwing is
    read; with Edge off nobody's Edge is."""
    autofire = load_scenario(str(ROOT / "scenarios" / "sr-autofire-vs-armor.yaml"))
    assert not any(i.unread and i.lever.kind == "karma" for i in scenario_levers(autofire))
    grenades = load_scenario(str(ROOT / "scenarios" / "sr-grenade-ambush.yaml"))
    throwers = [
        i for i in scenario_levers(grenades) if i.path.endswith("skills.throwing") and not i.unread
    ]
    assert throwers, "someone in the grenade ambush throws"
    patrol = _edge_off(ROOT / "scenarios" / "sr2097-runners-vs-patrol.yaml")
    edges = [i for i in scenario_levers(patrol) if i.lever.kind == "edge"]
    assert edges and all(i.unread for i in edges)
