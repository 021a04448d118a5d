"""Starting conditions (a member's ``start:``, ``run_battle(starts=...)``, ruling 27): each
system reads each key it has into its state, the loader refuses what is out of bounds in one
line naming the field, a fighter that starts down is out of the fight from the first turn,
and what a battle ``carried`` starts the next one where it left off."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from combatsim.commands.run import with_sets
from combatsim.engine.battle import Battle, run_battle
from combatsim.errors import ScenarioError
from combatsim.rng import battle_rng
from combatsim.scenario import load_scenario
from combatsim.scenario.start import Start

ROOT = Path(__file__).resolve().parents[1]

CLASSIC = """name: start
rules: {{system: sr-classic, options: {{instant_karma: true}}}}
catalogues: [sr-classic]
sides:
  - name: a
    members:
      - name: Razor
        archetype: street_samurai
        start: {start}
      - {{name: Boom, archetype: grenadier, position: [0, 3]}}
  - name: b
    members:
      - {{name: Guard, archetype: corp_guard, count: 2, position: [20, 0]}}
"""

SR2097 = """name: start
rules: {{system: sr2097}}
catalogues: [sr2097]
sides:
  - name: a
    members:
      - {{name: Face, archetype: face, start: {start}}}
  - name: b
    members:
      - {{name: Guard, archetype: corp_guard, position: [20, 0]}}
"""

LOST_SOULS = """name: start
rules: {{system: lost-souls}}
catalogues: [lost-souls]
sides:
  - name: a
    members:
      - {{name: Harlan, archetype: detective, start: {start}}}
  - name: b
    members:
      - {{name: Cop, archetype: beat_cop, position: [20, 0]}}
"""

FOURD8 = """name: start
rules: {{system: 4d8}}
catalogues: [4d8]
sides:
  - name: a
    members:
      - {{name: Indy, archetype: archaeologist, start: {start}}}
  - name: b
    members:
      - {{name: Hood, archetype: gangster, position: [20, 0]}}
"""


def scenario(tmp_path: Path, template: str, start: str):
    path = tmp_path / "x.yaml"
    path.write_text(template.format(start=start), encoding="utf-8")
    return load_scenario(path)


def first(sc, name: str):
    """The fighter ``name`` as a battle of ``sc`` starts it."""
    battle = Battle(sc, battle_rng(1, 0))
    return battle, next(f for f in battle.fighters if f.name == name)


# --- each system reads each key -----------------------------------------------------------------


def test_classic_starts_with_its_boxes_penalty_karma_and_magazine(tmp_path):
    sc = scenario(
        tmp_path, CLASSIC, "{wounds: 6, stun: 3, karma_spent: 2, rounds: {ares_predator_smart: 4}}"
    )
    battle, razor = first(sc, "Razor")
    st = razor.state
    assert (st.physical, st.stun, st.overflow) == (6, 3, 0)
    assert st.penalty == 3 + 2  # ruling 7: 6 Physical boxes +3, 3 Stun boxes +2
    assert (st.karma, st.karma_spent) == (1, 2)  # the samurai's 3 Karma, 2 gone
    assert razor.ammo == [4, 0]  # the pistol's 4 rounds; the katana needs none
    assert razor.can_act and battle.system.status(razor) == "wounded"


def test_classic_wounds_past_the_monitor_are_overflow_and_dead_is_past_body(tmp_path):
    _, razor = first(scenario(tmp_path, CLASSIC, "{wounds: 13}"), "Razor")
    assert (razor.state.physical, razor.state.overflow, razor.can_act) == (10, 3, False)
    assert razor.knocked_out_turn == 0
    battle, razor = first(scenario(tmp_path, CLASSIC, "{condition: dead}"), "Razor")
    assert battle.system.status(razor) == "dead" and not razor.can_act


def test_grenades_left_stay_in_the_last_slots(tmp_path):
    sc = scenario(tmp_path, CLASSIC, "{}")
    grenadier = next(f for f in sc.fighters if f.name == "Boom")
    slots = [i for i, w in enumerate(grenadier.weapons) if w.kind == "grenade"]
    loads = [grenadier.weapons[i].ammo for i in slots]
    battle = Battle(sc, battle_rng(1, 0), starts={"Boom": Start(grenades=loads[-1] + 1)})
    boom = battle.fighters[1]
    assert [boom.ammo[i] for i in slots] == [1, loads[-1]]


def test_sr2097_starts_with_physical_stun_and_edge_spent(tmp_path):
    _, face = first(scenario(tmp_path, SR2097, "{wounds: 4, stun: 2, edge_spent: 3}"), "Face")
    st = face.state
    assert (st.physical, st.stun, st.edge) == (4, 2, st.profile.edge - 3)


def test_lost_souls_starts_with_life_lost_and_karma_spent(tmp_path):
    _, harlan = first(scenario(tmp_path, LOST_SOULS, "{wounds: 5, karma_spent: 2}"), "Harlan")
    st = harlan.state
    assert (st.life, st.max_life, st.karma, st.karma_spent) == (11 - 5, 11, 0, 2)


def test_fourd8_starts_with_health_lost_and_its_wounded_ease(tmp_path):
    battle, indy = first(scenario(tmp_path, FOURD8, "{wounds: 6}"), "Indy")
    st = indy.state
    assert st.health == st.max_health - 6 and st.wounded
    _, fresh = first(scenario(tmp_path, FOURD8, "{}"), "Indy")
    assert not fresh.state.wounded


@pytest.mark.parametrize("template", [CLASSIC, SR2097, LOST_SOULS, FOURD8])
def test_condition_down_alone_starts_out_of_the_fight(tmp_path, template):
    sc = scenario(tmp_path, template, "{condition: down}")
    battle, f = first(sc, sc.fighters[0].name)
    assert not f.can_act and battle.system.status(f) != "dead"


# --- the engine ---------------------------------------------------------------------------------


def test_a_side_that_starts_with_nobody_standing_loses_at_once(tmp_path):
    sc = scenario(tmp_path, SR2097, "{condition: dead}")
    result = run_battle(sc, 1, 0, trace=True)
    assert (result.winner, result.turns, result.trace) == ("b", 0, [])
    row = next(r for r in result.combatants if r["name"] == "Face")
    assert (row["status"], row["standing"], row["knocked_out_turn"]) == ("dead", False, 0)


def test_a_fighter_that_starts_down_never_acts_and_its_side_fights_on(tmp_path):
    sc = scenario(tmp_path, CLASSIC, "{stun: 10}")
    result = run_battle(sc, 1, 0, trace=True)
    assert not [e for e in result.trace if e.actor == "Razor" and e.kind == "decide"]
    assert [e for e in result.trace if e.actor == "Boom" and e.kind == "decide"]


def test_starts_override_the_spec_by_name(tmp_path):
    sc = scenario(tmp_path, CLASSIC, "{wounds: 6}")
    battle = Battle(sc, battle_rng(1, 0), starts={"Razor": Start(wounds=2)})
    assert battle.fighters[0].state.physical == 2


SHIPPED = [
    "sr-firefight-4v4",
    "sr-grenade-ambush",
    "sr-d8-chop-shop-bust",
    "sr2097-runners-vs-patrol",
    "lost-souls-warehouse-raid",
    "4d8-dockside-shootout",
]


@pytest.mark.parametrize("name", SHIPPED)
def test_what_a_battle_carried_starts_the_next_where_it_left_off(name):
    """Every fighter's end, fed to a new battle, is the state that battle starts from: the
    same carried values, condition and magazines (the dead start dead)."""
    sc = load_scenario(ROOT / "scenarios" / f"{name}.yaml")
    system = sc.system
    changed = 0
    for index in range(6):
        carried = run_battle(sc, 7, index).carried
        assert set(carried) == {f.name for f in sc.fighters}
        battle = Battle(sc, battle_rng(7, 100 + index), starts=carried)
        again = battle._carried()
        for f in battle.fighters:
            end, start = carried[f.name], again[f.name]
            changed += (end.wounds, end.stun, end.spent, end.rounds) != (0, 0, 0, None)
            if end.dead:
                assert start.dead and system.status(f) == "dead"
                continue
            assert start == end, f.name
            assert f.can_act == (system.can_act(f) and not system.down_at(f.spec, end))
    assert changed  # the battles did leave marks to carry


# --- what the loader refuses --------------------------------------------------------------------


@pytest.mark.parametrize(
    "template, start, path, allowed",
    [
        (CLASSIC, "{wounds: 17}", "start.wounds", "at most 16"),
        (CLASSIC, "{stun: 11}", "start.stun", "at most 10 Stun boxes"),
        (CLASSIC, "{karma_spent: 4}", "start.karma_spent", "at most the Karma pool, 3"),
        (CLASSIC, "{edge_spent: 1}", "start.edge_spent", "a key sr-classic has"),
        (
            CLASSIC,
            "{rounds: {ares_predator_smart: 16}}",
            "start.rounds.ares_predator_smart",
            "at most 15",
        ),
        (CLASSIC, "{rounds: {katana: 1}}", "start.rounds.katana", "a weapon with a magazine"),
        (CLASSIC, "{rounds: [1, 2]}", "start.rounds", "a list of 1"),
        (CLASSIC, "{grenades: 1}", "start.grenades", "at most 0"),
        (CLASSIC, "{wounds: 10, condition: up}", "start.condition", "down, as its wounds"),
        (CLASSIC, "{wounds: 3, condition: down}", "start.condition", "up, as its wounds"),
        (CLASSIC, "{woonds: 3}", "start.woonds", "wounds"),
        (SR2097, "{karma_spent: 1}", "start.karma_spent", "a key sr2097 has"),
        (SR2097, "{edge_spent: 9}", "start.edge_spent", "at most the sheet's Edge"),
        (LOST_SOULS, "{stun: 1}", "start.stun", "a key lost-souls has"),
        (LOST_SOULS, "{wounds: 22}", "start.wounds", "at most 21"),
        (FOURD8, "{karma_spent: 1}", "start.karma_spent", "a key 4d8 has"),
    ],
)
def test_a_start_out_of_bounds_is_one_line_at_its_field(tmp_path, template, start, path, allowed):
    with pytest.raises(ScenarioError) as caught:
        scenario(tmp_path, template, start)
    message = str(caught.value)
    assert "\n" not in message
    assert f"sides[0].members[0].{path}" in message and allowed in message, message
    assert message.startswith(f"{tmp_path / 'x.yaml'}:"), message  # with its line


@pytest.mark.slow
def test_a_bad_start_through_set_exits_2_in_one_line(tmp_path):
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "combatsim",
            "run",
            str(ROOT / "scenarios" / "sr-firefight-4v4.yaml"),
            "--set",
            "sides[runners].members[Razor].start.wounds=30",
            "--out",
            str(tmp_path / "out"),
        ],
        capture_output=True,
        text=True,
        cwd=ROOT,
    )
    assert done.returncode == 2
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and "sides[0].members[0].start.wounds: found 30" in lines[0], lines
    assert not (tmp_path / "out").exists()


@pytest.mark.slow
def test_a_start_through_set_changes_the_battles():
    """``--set`` reaches ``start:`` like any field: the samurai at 9 boxes goes down more."""
    sc = load_scenario(ROOT / "scenarios" / "sr-firefight-4v4.yaml")
    hurt = with_sets(sc, ["sides[runners].members[Razor].start.wounds=9"])
    down = [
        sum(
            not r["standing"]
            for b in range(60)
            for r in run_battle(s, 3, b).combatants
            if r["name"] == "Razor"
        )
        for s in (sc, hurt)
    ]
    assert down[1] > down[0]
