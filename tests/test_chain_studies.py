"""Studies on chains of encounters: a chain file wherever a scenario goes (sweep, compare,
balance, explain, design), with field paths into the chain file and into its encounters'
scenarios. A run counts as a battle; the side wins a run it completes.

The checks are identities on common random numbers: a study's variant gives exactly the
numbers of the same chain, edited by hand and run alone from the same seed."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from combatsim.chains import load_chain
from combatsim.chains.study import run_chain_study
from combatsim.cli import main
from combatsim.errors import CombatsimError, UsageError
from combatsim.sweeps.api import balance, compare, sweep
from combatsim.sweeps.design import design
from combatsim.sweeps.explain import StepVariants, explain
from combatsim.sweeps.fields import FieldPath
from combatsim.sweeps.levers import scenario_levers

ROOT = Path(__file__).resolve().parents[1]
DOCK = ROOT / "scenarios" / "chains" / "sr-loading-dock-run.yaml"
RAIDS = ROOT / "scenarios" / "chains" / "lost-souls-two-raids.yaml"
GUARDS = "sides[corp security].members[Guard].count"


def edited(chain, path: str, value):
    return chain.with_sets([(FieldPath.parse(path), value)])


def guards(scenario) -> int:
    return sum(f.name.startswith("Guard") for f in scenario.fighters)


def test_a_path_into_an_encounter_sets_that_encounters_scenario_only():
    chain = load_chain(DOCK)
    assert [guards(e.scenario) for e in chain.encounters] == [1, 2, 3]
    by_name = edited(chain, f"encounters[the inner gate].{GUARDS}", 4)
    assert [guards(e.scenario) for e in by_name.encounters] == [1, 4, 3]
    every = edited(chain, f"encounters[*].{GUARDS}", 2)
    assert [guards(e.scenario) for e in every.encounters] == [2, 2, 2]
    assert chain.values_at(FieldPath.parse(f"encounters[*].{GUARDS}")) == [1, 2, 3]
    assert edited(chain, "rest.heal", 5).rests[0].heal == 5
    assert chain.values_at(FieldPath.parse("rest.heal")) == [2]


@pytest.mark.parametrize(
    ("path", "value", "said"),
    [
        (f"encounters[the back door].{GUARDS}", 2, "no encounter named 'the back door'"),
        (f"encounters[7].{GUARDS}", 2, "has 3 encounters"),
        ("rests[0].heal", 2, "a field of the chain file"),
        ("rest.heal", -1, "rest.heal"),
        (f"encounters[1].{GUARDS}", 101, "encounters[1].set"),
    ],
)
def test_a_bad_path_or_value_in_a_chain_is_one_clear_error(path, value, said):
    with pytest.raises(CombatsimError) as caught:
        edited(load_chain(DOCK), path, value)
    assert said in str(caught.value) and "\n" not in str(caught.value)


def test_a_sweep_row_is_the_chain_edited_by_hand_and_run_alone():
    chain = load_chain(RAIDS)
    result = sweep(chain, {"heal:rest.heal": [0, 6]}, battles=20)
    alone = run_chain_study(edited(chain, "rest.heal", 6), battles=20).summary["carried"]
    row = result.summary["variants"][1]
    assert row["values"] == {"heal": 6}
    assert row["sides"]["police"]["wins"] == alone["completes"]["count"]
    assert row["chain"] == alone  # every per-encounter and per-member answer
    assert result.summary["chain"] == {"side": "police", "encounters": 2}
    table = result.table.set_index("heal")
    assert table.loc[6, "win_rate"] == alone["completes"]["rate"]


def test_compare_pairs_runs_and_balance_aims_at_completing_the_run():
    chain = load_chain(RAIDS)
    result = compare(chain, b_sets=["rest.heal=6"], battles=20)
    alone = run_chain_study(edited(chain, "rest.heal", 6), battles=20).summary["carried"]
    police = result.summary["differences"][0]
    assert police["side"] == "police" and police["b"] == alone["completes"]["rate"]
    assert "chance to complete the run" in result.text()

    found = balance(
        chain, {"heal:rest.heal": [0, 3, 6]}, target="completes the run 0.5", battles=40
    )
    aim = found.summary["aim"]
    assert (aim["rate"], aim["who"]) == ("complete", "police")
    rates = {
        v["values"]["heal"]: v["sides"]["police"]["win_rate"] for v in found.summary["variants"]
    }
    best = found.summary["best"]
    assert best["rate"] == rates[best["value"]]
    assert abs(best["rate"] - 0.5) == min(abs(r - 0.5) for r in rates.values())


def test_completing_the_run_is_refused_as_a_target_of_a_scenario():
    scenario = ROOT / "scenarios" / "sr-firefight-4v4.yaml"
    with pytest.raises(UsageError, match="a rate of a scenario"):
        balance(scenario, {f"g:{GUARDS}": [1, 2]}, target="completes the run 0.5", battles=4)


def test_explain_moves_a_carried_fighter_in_every_encounter_it_fights():
    chain = load_chain(DOCK)
    levers = scenario_levers(chain)
    firearms = next(
        i for i in levers if i.member_name == "Razor" and i.lever.path.endswith("firearms")
    )
    assert len(firearms.paths) == 3 and firearms.where == ""
    opponent = next(i for i in levers if i.side_name == "corp security")
    assert opponent.where == "the outer gate" and opponent.paths[0].startswith("encounters[0].")
    variants = StepVariants(chain, [firearms])
    step = variants[1]
    values = step.values_at(FieldPath.parse("encounters[*].sides[runners].members[Razor].skills"))
    before = chain.values_at(FieldPath.parse("encounters[*].sides[runners].members[Razor].skills"))
    assert {v["firearms"] for v in values} == {firearms.lever.steps[0][1]}
    assert {v["firearms"] for v in before} == {firearms.lever.value}


def test_explain_on_a_chain_runs_and_names_the_chance_to_complete_the_run():
    result = explain(RAIDS, only=["Father Amon"], battles=6, full=True)
    assert result.summary["metric"]["describe"] == "the police's chance to complete the run"
    titles = {r["title"].rpartition(" (")[2] for r in result.summary["levers"]}
    assert titles == {"the hideout)", "the warehouse)"}  # an opponent's levers, per fight


def test_design_on_a_chain_names_its_encounter_and_writes_a_chain_that_runs(tmp_path):
    with pytest.raises(UsageError, match="--encounter"):
        design(DOCK, "corp security", "completes the run 0.2..0.6", battles=8)
    with pytest.raises(UsageError, match="does not carry"):
        design(DOCK, "runners", "completes the run 0.2..0.6", encounter=2, battles=8)
    result = design(
        DOCK,
        "corp security",
        "completes the run 0.0..1.0",
        encounter="the way out",
        max_members=2,
        top=2,
        battles=30,
        out=tmp_path / "d",
    )
    first = result.summary["designs"][0]
    written = load_chain(tmp_path / "d" / first["file"])
    assert [e.name for e in written.encounters] == [
        "the outer gate",
        "the inner gate",
        "the way out",
    ]
    last = written.encounters[2].scenario
    assert sum(f.side == "corp security" for f in last.fighters) == first["members"]
    assert [guards(e.scenario) for e in written.encounters[:2]] == [1, 2]
    assert (tmp_path / "d" / first["scenario_file"]).exists()


def test_the_commands_take_a_chain_file(tmp_path, capsys):
    out = tmp_path / "s"
    code = main(
        ["sweep", str(RAIDS), "--vary", "heal:rest.heal=0,6", "--battles", "10", "--out", str(out)]
    )
    assert code == 0
    text = capsys.readouterr().out
    assert "chance to complete the run" in text and "run seeds" in text
    assert json.loads((out / "summary.json").read_text())["chain"]["side"] == "police"
    assert main(["sweep", str(RAIDS), "--vary", "rest.heal=-1", "--battles", "5"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "rest.heal" in err


def test_a_chain_keeps_a_record_of_each_run_and_of_how_each_fighter_ended_it(tmp_path):
    result = run_chain_study(RAIDS, battles=12, records="all", out=tmp_path / "r")
    runs = (tmp_path / "r" / "records" / "0000" / "battles.csv").read_text().splitlines()
    fighters = (tmp_path / "r" / "records" / "0000" / "combatants.csv").read_text().splitlines()
    assert runs[0] == "run,completed,encounters_won,ended_at,end_reason,turns" and len(runs) == 13
    assert fighters[0].startswith("run,side,name,status,standing,wounds")
    assert len(fighters) == 1 + 12 * 4  # four detectives a run
    completed = sum(line.split(",")[1] == "True" for line in runs[1:])
    assert completed == result.summary["carried"]["completes"]["count"]
    dead = sum(",dead," in line for line in fighters[1:])
    assert dead == sum(m["end"]["dead"]["count"] for m in result.summary["carried"]["members"])


@pytest.mark.slow
def test_a_design_found_on_a_chain_meets_its_targets_run_again_with_a_fresh_seed(tmp_path):
    """A design reported as hitting completes the run within the target range when its chain
    file is run again from a seed the search never used, at 5,000 runs (the design's stated
    error is 5%; with the shipped seed this one is well inside)."""
    result = design(
        DOCK,
        "corp security",
        ["completes the run 0.3..0.5", "runners dead <= 0.05"],
        encounter="the way out",
        max_members=4,
        battles=1000,
        out=tmp_path / "d",
    )
    first = result.summary["designs"][0]
    assert first["verdict"] == "hits"
    again = run_chain_study(tmp_path / "d" / first["file"], battles=5000, seed=2026).summary
    completes = again["carried"]["completes"]
    assert completes["ci95"][0] >= 0.3 and completes["ci95"][1] <= 0.5
    dead = [m["end"]["dead"]["rate"] for m in again["carried"]["members"]]
    assert max(dead) <= 0.05
