"""``combatsim design`` / ``combatsim.design``: the search finds a known answer, its designs
hold up when re-run on fresh seeds, and its numbers do not depend on workers or interruptions.

The known answer: on the shipped 4v4 with the guards' side made of ``corp_guard`` only, the
runners' win rate falls with the guards' count. Measured once with 3,000 battles each at
seed 4242 (not the seeds used here): 4 guards 97.3% (96.7-97.9%), 5 guards 78.3%
(76.8-79.7%), 6 guards 35.3% (33.6-37.0%); fewer than 4 win more, more than 6 less. So for
``runners win 0.4..0.9`` the one make-up that hits is 5 guards.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import combatsim
from combatsim.cli import main
from combatsim.run import Cancel
from combatsim.sweeps.design import candidates, design

ROOT = Path(__file__).resolve().parent.parent
FIREFIGHT = ROOT / "scenarios" / "sr-firefight-4v4.yaml"
SIDE = "corp security"
GUARDS = {"pool": ["corp_guard"], "max_kinds": 1}


def test_candidates_are_every_make_up_within_the_limits_simplest_first():
    found = candidates(3, 2, 3, 2)
    assert found[0] == ((0, 2),)
    assert len(found) == 3 + 3 + 6 + 3  # one kind x2 or x3; two kinds of 2 or 3 fighters
    assert all(2 <= sum(n for _, n in c) <= 3 and len(c) <= 2 for c in found)
    assert [sum(n for _, n in c) for c in found] == sorted(sum(n for _, n in c) for c in found)


@pytest.mark.slow
def test_the_search_finds_the_known_answer_and_it_holds_on_a_fresh_seed(tmp_path):
    result = design(
        FIREFIGHT, SIDE, ["runners win 0.4..0.9"], battles=200, seed=11, out=tmp_path, **GUARDS
    )
    best = result.summary["designs"][0]
    assert best["design"] == "5 corp_guard"
    assert best["verdict"] == "hits"
    assert result.summary["verdict"].startswith("5 corp_guard: runners win")
    assert len(result.table) == 8  # every make-up tried is a row
    # the written design is a ready scenario: re-run independently at 5,000 battles
    again = combatsim.simulate(
        tmp_path / best["file"], 5000, seed=987654, workers=1, quiet=True, records="none"
    )
    rate = again.summary["sides"]["runners"]["win_rate"]
    assert 0.4 <= rate <= 0.9


@pytest.mark.slow
def test_identical_results_for_any_number_of_workers():
    kwargs = dict(battles=64, seed=5, max_members=4, **GUARDS)
    targets = ["runners win 0.6..0.99", "runners dead <= 0.2"]
    one = design(FIREFIGHT, SIDE, targets, workers=1, **kwargs)
    two = design(FIREFIGHT, SIDE, targets, workers=2, chunk_size=7, **kwargs)
    assert one.summary == two.summary
    assert one.table.equals(two.table)


@pytest.mark.slow
def test_an_interrupted_search_resumes_to_the_numbers_of_one_never_stopped(tmp_path):
    kwargs = dict(battles=64, seed=5, max_members=4, workers=1, chunk_size=2, **GUARDS)
    targets = ["runners win 0.6..0.99"]
    straight = design(FIREFIGHT, SIDE, targets, **{**kwargs, "chunk_size": 50})
    cancel = Cancel()
    calls = []

    def progress(done, total):
        calls.append(done)
        if len(calls) == 5:
            cancel.cancel()

    out = tmp_path / "run"
    stopped = design(FIREFIGHT, SIDE, targets, out=out, cancel=cancel, progress=progress, **kwargs)
    assert stopped.interrupted
    assert stopped.summary["battles_completed"] == calls[-1] > 64  # mid-way through look 2
    assert (out / ".combatsim" / "journal.jsonl").exists()
    resumed = design(FIREFIGHT, SIDE, targets, out=out, resume=True, **kwargs)
    assert resumed.complete
    assert resumed.summary == straight.summary
    assert resumed.table.equals(straight.table)
    assert not (out / ".combatsim").exists()


def test_the_api_is_combatsim_design():
    assert combatsim.design.__module__ == "combatsim.api"


@pytest.mark.parametrize(
    ("extra", "says"),
    [
        (["--pool", "corp_gaurd"], "--pool: got 'corp_gaurd'"),
        (["--target", "runners win 0.9..0.1"], "LOW at most HIGH"),
        (["--target", "Nobody dead <= 0.1"], "--target: got 'Nobody'"),
        (["--precision", "0.02"], "--precision"),
        (["--records", "all"], "--records: got 'all'"),
        (["--side", "Nobody"], "--side: got 'Nobody'"),
        (["--weapons", "laser"], "--weapons: got 'laser'"),
        (["--max-members", "0"], "--max-members"),
    ],
)
def test_bad_arguments_are_one_line_and_exit_2(capsys, tmp_path, extra, says):
    argv = ["design", str(FIREFIGHT), "--side", SIDE, "--out", str(tmp_path / "o"), "--quiet"]
    if "--target" not in extra:
        argv += ["--target", "runners win 0.5..0.7"]
    code = main([*argv, *extra])
    err = capsys.readouterr().err
    assert code == 2
    assert says in err
    assert len(err.strip().splitlines()) == 1


def test_missing_target_is_refused(capsys):
    with pytest.raises(SystemExit) as stop:
        main(["design", str(FIREFIGHT), "--side", SIDE])
    assert stop.value.code == 2
    assert "--target" in capsys.readouterr().err


@pytest.mark.slow
def test_every_rate_is_the_one_a_plain_run_of_the_make_up_gives():
    """The screening's counts are the candidate's own battles, no more: each row's estimate
    is the rate ``combatsim.simulate`` gives its scenario on the same battles (a shared empty
    tally once counted every candidate's deaths into each other's)."""
    from combatsim.scenario import load_scenario
    from combatsim.sweeps.design import build, design_data, placement
    from combatsim.sweeps.design import design_kinds as kinds_of

    targets = ["runners dead <= 0.5", "corp security win >= 0.2"]
    kwargs = dict(pool=["elf_adept"], max_kinds=1, max_members=3, battles=32, seed=3)
    result = design(FIREFIGHT, SIDE, targets, workers=1, **kwargs)
    base = load_scenario(FIREFIGHT)
    kinds = kinds_of(base, 1, ["elf_adept"], [], [])
    place = placement(base, 1, "layout")
    for row in result.table.itertuples():
        count = row.members
        scenario = build(base, design_data(base, 1, kinds, ((0, count),), place), "check")
        plain = combatsim.simulate(
            scenario, int(row.screened), seed=3, workers=1, quiet=True, records="none"
        ).summary
        dead = next(e for e in plain["casualties"] if e["who"] == "runners")["dead_rate"]
        assert row.screen_rate_1 == pytest.approx(dead)
        assert row.screen_rate_2 == pytest.approx(plain["sides"]["corp security"]["win_rate"])


SYSTEMS = [  # one scenario of each other rule system family; the classic one is above
    ("sr2097-runners-vs-patrol.yaml", "patrol", "corp_sergeant", "runners win 0.6..0.95"),
    ("lost-souls-graveyard-zombies.yaml", "the dead", "zombie", "investigators win 0.6..0.9"),
    ("4d8-temple-guardians.yaml", "temple", "temple_guardian", "expedition win 0.3..0.7"),
]


@pytest.mark.slow
@pytest.mark.parametrize(("name", "side", "pool", "target"), SYSTEMS, ids=[s[0] for s in SYSTEMS])
def test_a_design_found_meets_its_target_when_rerun_on_a_fresh_seed(
    tmp_path, name, side, pool, target
):
    path = ROOT / "scenarios" / name
    result = design(
        path, side, [target], pool=[pool], max_kinds=1, battles=200, seed=11, out=tmp_path
    )
    best = result.summary["designs"][0]
    assert best["verdict"] == "hits", result.summary["verdict"]
    again = combatsim.simulate(
        tmp_path / best["file"], 5000, seed=987654, workers=1, quiet=True, records="none"
    )
    who, _, bounds = target.partition(" win ")
    low, high = (float(x) for x in bounds.split(".."))
    assert low <= again.summary["sides"][who]["win_rate"] <= high


@pytest.mark.slow
def test_report_shows_each_design_against_the_targets(tmp_path, capsys):
    out = tmp_path / "o"
    argv = ["design", str(FIREFIGHT), "--side", SIDE, "--target", "runners win 0.5..1"]
    argv += ["--pool", "corp_guard", "--max-members", "2", "--battles", "32", "--seed", "2"]
    assert main([*argv, "--workers", "1", "--out", str(out), "--report"]) == 0
    printed = capsys.readouterr().out
    assert "1 corp_guard" in printed and "at most 5%" in printed
    page = (out / "report.html").read_text(encoding="utf-8")
    summary = json.loads((out / "summary.json").read_text(encoding="utf-8"))
    assert summary["verdict"].replace("'", "&#x27;") in page
    for d in summary["designs"]:
        assert d["design"] in page and (out / d["file"]).is_file()
    assert (out / "plots" / "design.png").is_file()


def test_when_every_make_up_surely_misses_it_says_which_target_and_why():
    result = design(
        FIREFIGHT,
        SIDE,
        ["runners win <= 0.01"],
        battles=64,
        seed=2,
        workers=1,
        pool="corp_guard",
        max_members=2,
    )
    assert result.summary["designs"] == []
    verdict = result.summary["verdict"]
    assert verdict.startswith("No design within the limits can hit every target")
    assert (
        "no candidate reached runners win <= 0.01: the nearest was 100% with 1 corp_guard"
        in verdict
    )
    assert "none could still hit" in result.text()


def test_the_make_ups_are_counted_before_any_is_made():
    """A search of millions of make-ups is refused at once, saying how many (it used to walk
    every count of every kind before giving up)."""
    from combatsim.errors import UsageError
    from combatsim.sweeps.design import count_candidates

    for limits in [(3, 2, 3, 2), (5, 1, 8, 2), (4, 3, 9, 3), (2, 1, 1, 2)]:
        assert count_candidates(*limits) == len(candidates(*limits))
    with pytest.raises(UsageError, match="these leave 1,789,720,854,729,165,630"):
        candidates(19, 1, 100, 10)


def test_a_range_target_is_for_design_and_balance_still_refuses_it(capsys):
    from combatsim.sweeps.targets import parse_aim

    aim = parse_aim("runners win 60%..75%", ranges=True)
    assert (aim.op, aim.value, aim.high, aim.text) == ("in", 0.6, 0.75, "runners win 0.6..0.75")
    assert aim.meets(0.7) and not aim.meets(0.76)
    argv = ["balance", str(FIREFIGHT), "--vary", "sides[1].members[1].count=1..3"]
    assert main([*argv, "--target", "runners win 0.6..0.75", "--quiet"]) == 2
    assert "allowed: [WHO] win|draw|down|dead" in capsys.readouterr().err
