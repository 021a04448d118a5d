"""The attacks a battle records (``BattleResult.attacks``): who attacked whom with which weapon
and how many shots, counted where the engine carries out a plan. They must match what a
traced battle prints (one "attack" line per attack, one "throws" line per grenade), and the
run layer's sum of them must not depend on how the battles were split among workers."""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

import pytest

from combatsim.api import simulate
from combatsim.engine import run_battle
from combatsim.run.tally import Tally
from combatsim.scenario import load_scenario

ROOT = Path(__file__).resolve().parents[2]
SCENARIOS = (
    "sr-firefight-4v4",
    "sr2097-runners-vs-patrol",
    "4d8-dockside-shootout",
    "lost-souls-warehouse-raid",
    "sr-grenade-ambush",
    "sr-bar-brawl",
    "4d8-temple-guardians",
)


def _named_in(text: str, names: list[str], actor: str) -> str:
    """The one fighter other than ``actor`` that an attack line names (``Guard 1`` is not
    taken for ``Guard 10``)."""
    found = {
        n
        for n in names
        if n != actor and re.search(rf"(?<![\w]){re.escape(n)}(?![\w]| \d)", text) is not None
    }
    found = {n for n in found if not any(n != m and n in m for m in found)}
    assert len(found) == 1, (text, found)
    return found.pop()


def _traced_attacks(scenario, index: int) -> tuple[Counter, Counter, Counter]:
    """The recorded attacks of battle ``index`` as (attacker, target) counts of attacks and
    (attacker, weapon) counts of grenades, and the same read off the battle's trace."""
    result = run_battle(scenario, scenario.seed, index, trace=True)
    specs = scenario.fighters
    names = [f.name for f in specs]
    recorded, grenades = Counter(), Counter()
    for (a, t, w, _shots), n in result.attacks.items():
        if specs[a].weapons[w].kind == "grenade":
            grenades[(names[a], specs[a].sheet.weapons[w])] += n
        else:
            recorded[(names[a], names[t])] += n
    traced, thrown = Counter(), Counter()
    assert result.trace is not None
    for event in result.trace:
        if event.kind == "attack" and "wasted sweeping" not in event.text:
            traced[(event.actor, _named_in(event.text, names, event.actor))] += 1
        elif event.kind == "grenade" and " throws " in event.text:
            weapon = event.text.split(" throws ", 1)[1].split(" at ", 1)[0]
            thrown[(event.actor, weapon)] += 1
    assert recorded == traced
    return recorded, grenades, thrown


@pytest.mark.parametrize("name", SCENARIOS)
def test_recorded_attacks_are_the_attacks_a_traced_battle_prints(name):
    scenario = load_scenario(ROOT / "scenarios" / f"{name}.yaml")
    attacked = 0
    for index in range(4):
        recorded, grenades, thrown = _traced_attacks(scenario, index)
        assert grenades == thrown
        attacked += sum(recorded.values())
    assert attacked > 0


def test_a_sweep_is_one_attack_on_each_fighter_it_walks_across():
    scenario = load_scenario(ROOT / "scenarios" / "sr-autofire-vs-armor.yaml")
    swept = 0
    for index in range(6):
        result = run_battle(scenario, scenario.seed, index, trace=True)
        assert result.trace is not None
        names = [f.name for f in scenario.fighters]
        recorded = Counter()
        for (a, t, _w, _shots), n in result.attacks.items():
            recorded[(names[a], names[t])] += n
        traced = Counter(
            (e.actor, _named_in(e.text, names, e.actor))
            for e in result.trace
            if e.kind == "attack" and "wasted sweeping" not in e.text
        )
        assert recorded == traced
        swept += sum(1 for e in result.trace if "wasted sweeping" in e.text)
    assert swept > 0  # the scenario's sweeping fighter did sweep


def test_an_untraced_battle_records_the_same_attacks():
    scenario = load_scenario(ROOT / "scenarios" / "sr-firefight-4v4.yaml")
    for index in range(3):
        traced = run_battle(scenario, scenario.seed, index, trace=True).attacks
        assert run_battle(scenario, scenario.seed, index).attacks == traced


def test_the_tally_of_attacks_is_the_same_however_the_battles_are_split():
    scenario = load_scenario(ROOT / "scenarios" / "4d8-dockside-shootout.yaml")
    one = simulate(scenario, 60, workers=1, quiet=True, records="none").extra["attacks"]
    split = simulate(scenario, 60, workers=2, chunk_size=7, quiet=True, records="none").extra[
        "attacks"
    ]
    assert one.equals(split)
    by_hand = Counter()
    for index in range(60):
        by_hand.update(run_battle(scenario, scenario.seed, index).attacks)
    assert int(one["attacks"].sum()) == sum(by_hand.values())
    assert list(one["attacks"]) == sorted(one["attacks"], reverse=True)


def test_a_tally_keeps_its_attacks_through_its_journal_form_and_merges_them():
    scenario = load_scenario(ROOT / "scenarios" / "sr-bar-brawl.yaml")
    results = [run_battle(scenario, scenario.seed, i) for i in range(6)]
    whole = Tally.of(scenario, results)
    halves = Tally.of(scenario, results[:3]).merge(Tally.of(scenario, results[3:]))
    assert whole.attacks == halves.attacks and sum(whole.attacks.values()) > 0
    again = Tally.from_json(whole.to_json())
    assert again.attacks == whole.attacks
    old = whole.to_json()
    del old["attacks"]  # a journal written before attacks were counted
    assert Tally.from_json(old).merge(whole).attacks is None


def test_bare_hands_are_recorded_as_weapon_minus_one_and_named_unarmed():
    from combatsim.output import attack_rows
    from tests.engine.test_lost_souls_system import duel, fighter_entry, play, shooter

    scenario = duel(
        shooter(life=7),
        fighter_entry("Biter", position=(1.0, 0.0), weapons=(), abilities={"melee": 5}),
    )
    _, result = play(scenario, [1, 9, 8, 10, 5, 10])
    biter = [f.name for f in scenario.fighters].index("Biter")
    assert result.attacks[(biter, 1 - biter, -1, 1)] == 1
    (row,) = [r for r in attack_rows(scenario, result.attacks) if r["attacker"] == "Biter"]
    assert (row["weapon"], row["weapon_kind"], row["attacks"]) == ("unarmed", "unarmed", 1)


@dataclass(frozen=True)
class _StopAt:
    """The engine's battles, but Ctrl-C arrives when battle ``index`` starts."""

    index: int

    def __call__(self, scenario, root_seed, index, trace=False):
        if index == self.index:
            raise KeyboardInterrupt
        return run_battle(scenario, root_seed, index, trace)


def test_a_resumed_run_writes_the_attacks_of_an_unbroken_one(tmp_path, monkeypatch, capsys):
    from combatsim.cli import main
    from combatsim.commands import run as run_command

    scenario = str(ROOT / "scenarios" / "4d8-dockside-shootout.yaml")
    argv = ["run", scenario, "--battles", "120", "--chunk-size", "25", "--quiet", "--workers", "1"]
    assert main([*argv, "--out", str(tmp_path / "whole")]) == 0
    monkeypatch.setattr(run_command, "battle_runner", lambda: _StopAt(70))
    assert main([*argv, "--out", str(tmp_path / "cut")]) == 130
    monkeypatch.setattr(run_command, "battle_runner", lambda: run_battle)
    assert main(["run", "--resume", str(tmp_path / "cut"), "--quiet"]) == 0
    whole = (tmp_path / "whole" / "attacks.csv").read_bytes()
    assert (tmp_path / "cut" / "attacks.csv").read_bytes() == whole
    assert whole.count(b"\n") > 10
