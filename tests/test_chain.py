"""Chains of encounters: the file's checks, the rests of ruling 27 as traced, identical
numbers whatever the workers and chunks, and a resumed run."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from combatsim.chains import load_chain
from combatsim.chains.runner import run_chain
from combatsim.chains.study import run_chain_study
from combatsim.cli import main
from combatsim.errors import ScenarioError

ROOT = Path(__file__).resolve().parents[1]
CHAINS = ROOT / "scenarios" / "chains"
SHIPPED = sorted(CHAINS.glob("*.yaml"))


def write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "chain.yaml"
    path.write_text(text.replace("SCEN", str(ROOT / "scenarios")), encoding="utf-8")
    return path


@pytest.mark.parametrize("path", SHIPPED, ids=lambda p: p.name)
def test_every_shipped_chain_loads_and_runs(path):
    chain = load_chain(path)
    run = run_chain(chain, chain.seed, 0)
    assert 1 <= len(run.won) <= len(chain.encounters)


def test_three_shipped_chains_one_per_family():
    systems = {load_chain(p).system for p in SHIPPED}
    assert {"sr-classic", "sr2097"} <= systems and systems & {"lost-souls", "4d8"}


def test_the_long_rest_and_the_boss_give_back_edge_as_traced():
    """Ruling 27: the second fight starts from the first's end, 4 boxes healed, 1 Edge back;
    a survivor of a won boss fight gets 1 more."""
    chain = load_chain(CHAINS / "sr2097-patrol-and-boss.yaml")
    seen_boss_win = False
    for index in range(40):
        run = run_chain(chain, chain.seed, index, trace=True)
        first = run.fights[0].result.carried
        if len(run.fights) < 2:
            continue
        for name, start in run.fights[1].starts.items():
            end = first[name]
            if end.dead:  # the dead stay as they are
                assert start == end
                continue
            assert start.wounds == max(0, end.wounds - 4)
            assert start.spent == max(0, end.spent - 1)
        if run.won[1]:
            seen_boss_win = True
            last = run.fights[1].result.carried
            for m, name in enumerate(chain.roster):
                if not last[name].dead:
                    assert run.left[m].spent == max(0, last[name].spent - 1)
    assert seen_boss_win


def test_a_dead_fighter_stays_dead_and_a_fresh_chain_carries_nothing():
    chain = load_chain(CHAINS / "sr-loading-dock-run.yaml")
    fresh = chain.freshened()
    for index in range(12):
        run = run_chain(chain, chain.seed, index, trace=True)
        for k, fight in enumerate(run.fights[1:], 1):
            before = run.fights[k - 1].result.carried
            for name, start in fight.starts.items():
                if before[name].dead:
                    assert start.dead
        assert all(f.starts == {} for f in run_chain(fresh, 1, index, trace=True).fights)


@pytest.mark.slow
def test_numbers_are_the_same_whatever_the_workers_and_chunks():
    chain = load_chain(CHAINS / "lost-souls-two-raids.yaml")
    one = run_chain_study(chain, battles=60, workers=1, chunk_size=60).summary
    two = run_chain_study(chain, battles=60, workers=2, chunk_size=7).summary
    assert one == two
    assert one["carried"]["runs_completed"] == 60


def test_an_interrupted_run_resumes_to_the_same_files(tmp_path):
    chain = load_chain(CHAINS / "lost-souls-two-raids.yaml")
    whole = run_chain_study(chain, battles=40, chunk_size=10, out=tmp_path / "a").summary

    calls = []

    def stop_after_two(done, total):
        calls.append(done)
        if len(calls) == 2:
            raise KeyboardInterrupt

    # a Ctrl-C in the progress callback stops the run as one anywhere else does: the chunks
    # finished are kept and the run is marked interrupted
    cut = run_chain_study(
        chain, battles=40, chunk_size=10, out=tmp_path / "b", progress=stop_after_two
    ).summary
    assert cut["interrupted"] and cut["carried"]["runs_completed"] == 20
    journal = (tmp_path / "b" / ".combatsim" / "journal.jsonl").read_text().splitlines()
    assert journal and json.loads(journal[0])["tallies"][0]["kind"] == "chain"
    resumed = run_chain_study(chain, battles=40, chunk_size=10, out=tmp_path / "b", resume=True)
    assert resumed.summary == whole


@pytest.mark.slow
def test_precision_stops_on_the_chance_to_complete_the_run():
    chain = load_chain(CHAINS / "lost-souls-two-raids.yaml")
    summary = run_chain_study(chain, battles=50, precision=0.1, chunk_size=50).summary
    completes = summary["carried"]["completes"]
    assert (
        max(completes["rate"] - completes["ci95"][0], completes["ci95"][1] - completes["rate"])
        <= 0.1
    )
    assert summary["precision"]["reached"]


@pytest.mark.parametrize(
    ("text", "where"),
    [
        (
            "name: x\nside: runners\nencounters:\n  - scenario: nowhere.yaml\n",
            "chain.yaml:4: encounters[0].scenario",
        ),
        (
            "name: x\nside: nobody\nencounters:\n  - scenario: SCEN/sr-firefight-4v4.yaml\n",
            "chain.yaml:4: encounters[0].scenario",
        ),
        (
            "name: x\nside: runners\nencounters:\n  - scenario: SCEN/sr-firefight-4v4.yaml\n"
            "    set: ['sides[9].members[0].count=2']\n",
            "chain.yaml:5: encounters[0].set[0]",
        ),
        (
            "name: x\nside: runners\nencounters:\n  - scenario: SCEN/sr-firefight-4v4.yaml\n"
            "  - scenario: SCEN/sr-firefight-4v4.yaml\nrest: {edge: long_rest}\n",
            "chain.yaml:6: rest.edge",
        ),
        (
            "name: x\nside: runners\nencounters:\n  - scenario: SCEN/sr-firefight-4v4.yaml\n"
            "  - scenario: SCEN/sr-firefight-4v4.yaml\nrests:\n  - {after: 5, heal: 1}\n",
            "chain.yaml:7: rests[0].after",
        ),
        (
            "name: x\nside: runners\nencounters:\n  - scenario: SCEN/sr-firefight-4v4.yaml\n"
            "stop: sometimes\n",
            "chain.yaml:5: stop",
        ),
        (
            "name: x\nside: runners\nencounters:\n  - scenario: SCEN/sr-firefight-4v4.yaml\n"
            "  - scenario: SCEN/sr2097-runners-vs-patrol.yaml\n",
            "chain.yaml:5: encounters[1]",
        ),
    ],
)
def test_a_bad_chain_file_is_one_line_naming_file_line_and_field(tmp_path, capsys, text, where):
    path = write(tmp_path, text)
    with pytest.raises(ScenarioError) as caught:
        load_chain(path)
    assert f"{path.parent}/{where}" in str(caught.value)
    assert main(["chain", str(path), "--out", str(tmp_path / "out")]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and where in err


def test_the_command_writes_the_answers_and_traces_a_run(tmp_path, capsys):
    out = tmp_path / "out"
    path = str(CHAINS / "sr2097-patrol-and-boss.yaml")
    assert main(["chain", path, "--battles", "20", "--out", str(out), "--workers", "1"]) == 0
    summary = json.loads((out / "summary.json").read_text())
    assert summary["kind"] == "chain" and summary["boss"] == ["Ortiz's patrol"]
    assert {p.name for p in out.glob("*.csv")} == {
        "encounters.csv",
        "casualties.csv",
        "members.csv",
        "resources.csv",
    }
    assert "completes the run" in capsys.readouterr().out
    assert main(["chain", path, "--trace", "3"]) == 0
    text = capsys.readouterr().out
    assert "encounter 2: Ortiz's patrol" in text and "rest before it: heal 4" in text


def test_the_api_function_chain_survives_an_import_of_the_chain_modules():
    """``combatsim.chain`` is the function even after ``combatsim.chains`` is imported (a
    subpackage of the same name would have replaced it with a module)."""
    import combatsim
    import combatsim.chains.study  # noqa: F401

    assert callable(combatsim.chain) and not isinstance(combatsim.chain, type(combatsim))
