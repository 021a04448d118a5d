"""The batch layer: battles in chunks, on one or several processes, into tables and a summary.

No real engine here: ``fake_runner`` decides each battle from ``battle_rng(root_seed, index)``
alone, exactly as the engine must, so these tests pin what the batch layer adds (order,
chunking, workers, interruption, the summary) and nothing about the rules. The fakes are
importable by the other batch-layer tests (output, CLI).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, replace

import pandas as pd
import pytest

from combatsim.engine.records import MUTUAL, TURN_LIMIT, VICTORY, BattleResult, TraceEvent
from combatsim.errors import UsageError
from combatsim.rng import battle_rng
from combatsim.run.tally import Tally
from combatsim.stats import wilson_interval
from tests.helpers import Batch, run_battles

# --- fakes ------------------------------------------------------------------------------------


@dataclass(frozen=True)
class FakeFighter:
    name: str


@dataclass(frozen=True)
class FakeSide:
    name: str
    fighters: tuple[FakeFighter, ...]


@dataclass(frozen=True)
class FakeSystem:
    name: str


@dataclass(frozen=True)
class FakeScenario:
    name: str
    source: str
    seed: int
    turn_limit: int
    sides: tuple[FakeSide, ...]
    system: FakeSystem


SCENARIO = FakeScenario(
    name="Dockside ambush",
    source="scenarios/dockside.yaml",
    seed=2024,
    turn_limit=12,
    sides=(
        FakeSide("runners", (FakeFighter("Ace"), FakeFighter("Brick"))),
        FakeSide("corp", (FakeFighter("Guard 1"), FakeFighter("Guard 2"), FakeFighter("Guard 3"))),
        # Never wins: a side without wins must still be in the summary, at 0 with an interval.
        FakeSide("bystanders", (FakeFighter("Dog"),)),
    ),
    system=FakeSystem("sr-classic"),
)


def fake_runner(scenario, root_seed: int, index: int, trace: bool = False) -> BattleResult:
    """A deterministic stand-in for ``run_battle``: runners win 50%, corp 40%, 10% draws."""
    rng = battle_rng(root_seed, index)
    roll = rng.random()
    turns = int(rng.integers(1, scenario.turn_limit + 1))
    if roll < 0.5:
        winner, end = "runners", VICTORY
    elif roll < 0.9:
        winner, end = "corp", VICTORY
    else:
        winner, end = None, (TURN_LIMIT if roll < 0.95 else MUTUAL)
        turns = scenario.turn_limit if end == TURN_LIMIT else turns
    survivors = {}
    combatants = []
    for side in scenario.sides:
        standing = 0
        for fighter in side.fighters:
            up = side.name == winner and rng.random() < 0.8 or side.name == "bystanders"
            standing += up
            combatants.append(
                {
                    "battle": index,
                    "name": fighter.name,
                    "side": side.name,
                    "status": "ok" if up else "down",
                    "boxes": int(rng.integers(0, 11)),
                    "shots": int(rng.integers(0, 20)),
                    # A float column, and an int column with gaps: both must print stably.
                    "accuracy": float(rng.random()),
                    "karma_spent": None if side.name == "corp" else int(rng.integers(0, 3)),
                }
            )
        survivors[f"survivors_{side.name}"] = standing
    row = {"index": index, "winner": winner, "end_reason": end, "turns": turns, **survivors}
    events = None
    if trace:
        events = [
            TraceEvent(1, None, None, "initiative", "Ace rolls 14, Guard 1 rolls 9"),
            TraceEvent(1, 14, "Ace", "attack", "Ace fires at Guard 1"),
            TraceEvent(1, 14, "Guard 1", "damage", "Guard 1 takes a Serious wound"),
            TraceEvent(1, 9, "Guard 1", "attack", "Guard 1 fires at Ace and misses"),
            TraceEvent(2, None, None, "initiative", "Ace rolls 11"),
            TraceEvent(2, 11, "Ace", "attack", "Ace fires at Guard 1; Guard 1 is down"),
        ]
    return BattleResult(index, winner, end, turns, row, combatants, events)


@dataclass(frozen=True)
class InterruptAt:
    """A runner that behaves like ``fake_runner`` but is Ctrl-C'd when it reaches ``index``."""

    index: int

    def __call__(self, scenario, root_seed, index, trace=False):
        if index == self.index:
            raise KeyboardInterrupt
        return fake_runner(scenario, root_seed, index, trace)


@dataclass(frozen=True)
class FailAt:
    """A runner with a bug at battle ``index``."""

    index: int

    def __call__(self, scenario, root_seed, index, trace=False):
        if index == self.index:
            raise ValueError(f"engine bug in battle {index}")
        return fake_runner(scenario, root_seed, index, trace)


@dataclass(frozen=True)
class OtherColumns:
    """``fake_runner`` with its battle row spelled differently: ``battle`` for the index, and
    ``"draw"`` written out; the result's own fields are unchanged."""

    def __call__(self, scenario, root_seed, index, trace=False):
        result = fake_runner(scenario, root_seed, index, trace)
        row = {k: v for k, v in result.battle.items() if k != "index"}
        row = {"battle": index, **row, "winner": result.winner or "draw"}
        return replace(result, battle=row)


def run(battles: int = 100, **kwargs) -> Batch:
    kwargs.setdefault("runner", fake_runner)
    return run_battles(SCENARIO, battles, **kwargs)


# --- the tables -------------------------------------------------------------------------------


def test_one_battle_row_per_battle_in_index_order_and_one_row_per_combatant():
    result = run(60, chunk_size=7)
    assert list(result.battles["index"]) == list(range(60))
    fighters = sum(len(side.fighters) for side in SCENARIO.sides)
    assert len(result.combatants) == 60 * fighters
    assert list(result.combatants["battle"]) == [i for i in range(60) for _ in range(fighters)]


def test_rows_are_what_the_runner_returned():
    result = run(20)
    for i in (0, 7, 19):
        expected = fake_runner(SCENARIO, SCENARIO.seed, i)
        assert result.battles.iloc[i].to_dict() == expected.battle


@pytest.mark.slow
@pytest.mark.parametrize(("workers", "chunk_size"), [(1, 7), (1, 1000), (2, 7), (3, 13)])
def test_tables_and_summary_do_not_depend_on_workers_or_chunk_size(workers, chunk_size):
    reference = run(90, seed=5, chunk_size=250)
    result = run(90, seed=5, workers=workers, chunk_size=chunk_size)
    pd.testing.assert_frame_equal(result.battles, reference.battles)
    pd.testing.assert_frame_equal(result.combatants, reference.combatants)
    assert result.summary == reference.summary


def test_a_shorter_batch_is_the_start_of_a_longer_one():
    short, long = run(15, seed=8), run(40, seed=8, workers=2, chunk_size=6)
    pd.testing.assert_frame_equal(short.battles, long.battles.iloc[:15])


def test_seed_none_means_the_scenarios_seed_and_another_seed_other_battles():
    default = run(50)
    assert default.summary["seed"] == SCENARIO.seed
    pd.testing.assert_frame_equal(default.battles, run(50, seed=SCENARIO.seed).battles)
    assert not default.battles.equals(run(50, seed=SCENARIO.seed + 1).battles)


def test_an_int_column_with_gaps_stays_integer():
    combatants = run(10).combatants
    assert str(combatants["karma_spent"].dtype) == "Int64"
    assert combatants["karma_spent"].isna().sum() == 10 * 3  # the corp's three, every battle
    assert combatants["accuracy"].dtype == float
    assert combatants["boxes"].dtype == "int64"


# --- the summary ------------------------------------------------------------------------------


def test_summary_counts_wins_draws_turns_and_end_reasons():
    result = run(400, chunk_size=50)
    battles, summary = result.battles, result.summary
    n = 400
    assert summary["battles_requested"] == summary["battles_completed"] == n
    assert summary["interrupted"] is False and result.interrupted is False
    assert (summary["scenario"], summary["source"], summary["system"]) == (
        "Dockside ambush",
        "scenarios/dockside.yaml",
        "sr-classic",
    )
    assert list(summary["sides"]) == ["runners", "corp", "bystanders"]
    for side in ("runners", "corp"):
        wins = int((battles["winner"] == side).sum())
        low, high = wilson_interval(wins, n)
        assert summary["sides"][side] == {
            "wins": wins,
            "win_rate": pytest.approx(wins / n, abs=1e-6),
            "ci95": [pytest.approx(low, abs=1e-6), pytest.approx(high, abs=1e-6)],
        }
    draws = int(battles["winner"].isna().sum())
    assert summary["draws"]["count"] == draws > 0
    assert summary["draws"]["rate"] == pytest.approx(draws / n, abs=1e-6)
    total = sum(s["wins"] for s in summary["sides"].values()) + draws
    assert total == n
    assert summary["end_reasons"] == {
        reason: int((battles["end_reason"] == reason).sum())
        for reason in sorted(set(battles["end_reason"]))
    }
    turns = battles["turns"]
    assert summary["turns"]["mean"] == pytest.approx(turns.mean(), abs=1e-6)
    assert summary["turns"]["median"] == turns.median()
    assert summary["turns"]["p10"] == pytest.approx(turns.quantile(0.1), abs=1e-6)
    assert summary["turns"]["p90"] == pytest.approx(turns.quantile(0.9), abs=1e-6)
    assert summary["turns"]["max"] == turns.max()


def test_a_side_that_never_wins_has_zero_wins_and_an_interval_from_zero():
    side = run(100).summary["sides"]["bystanders"]
    assert side["wins"] == 0 and side["win_rate"] == 0.0
    assert side["ci95"][0] == 0.0
    assert side["ci95"][1] == pytest.approx(wilson_interval(0, 100)[1], abs=1e-6)


def test_summary_comes_from_the_results_fields_not_the_rows_columns():
    other = run(200, runner=OtherColumns())
    assert other.summary == run(200).summary
    assert other.summary["draws"]["count"] == int((other.battles["winner"] == "draw").sum()) > 0


def test_summary_is_plain_json():
    summary = run(30).summary
    assert json.loads(json.dumps(summary, allow_nan=False)) == summary


# --- interruption -----------------------------------------------------------------------------


def test_ctrl_c_on_one_worker_keeps_every_finished_battle():
    reference = run(100, chunk_size=10)
    result = run(100, chunk_size=10, runner=InterruptAt(37))
    assert result.interrupted and result.summary["interrupted"] is True
    assert result.battles_completed == result.summary["battles_completed"] == 37
    assert result.summary["battles_requested"] == 100
    pd.testing.assert_frame_equal(result.battles, reference.battles.iloc[:37])
    finished = reference.combatants["battle"] < 37
    pd.testing.assert_frame_equal(result.combatants, reference.combatants[finished])
    wins = int((result.battles["winner"] == "runners").sum())
    assert result.summary["sides"]["runners"]["wins"] == wins


def test_ctrl_c_on_several_workers_keeps_every_finished_battle_of_chunks_in_flight():
    """Issue 12: a worker stops after its current battle and hands back what it finished, so
    each chunk keeps a run of battles from its start (whole, or cut short where the interrupt
    found it), and every kept battle is the uninterrupted run's. (Here the interrupt is an
    exception inside one battle, which loses that chunk; a real SIGINT lets it hand back its
    first battles too: tests/test_faults.py.)"""
    reference = run(100, chunk_size=10)
    result = run(100, workers=2, chunk_size=10, runner=InterruptAt(37))
    assert result.interrupted
    kept = list(result.battles["index"])
    assert 37 not in kept and kept == sorted(kept)
    for chunk in {i // 10 for i in kept}:
        in_chunk = [i for i in kept if i // 10 == chunk]
        assert in_chunk == list(range(chunk * 10, chunk * 10 + len(in_chunk)))
    assert result.battles_completed == len(kept)
    expected = reference.battles[reference.battles["index"].isin(kept)].reset_index(drop=True)
    pd.testing.assert_frame_equal(result.battles, expected)


def test_ctrl_c_before_any_battle_finished_gives_empty_tables_and_an_honest_summary():
    result = run(10, runner=InterruptAt(0))
    assert result.interrupted and result.battles_completed == 0
    assert result.battles.empty and result.combatants.empty
    summary = result.summary
    assert summary["sides"]["runners"] == {"wins": 0, "win_rate": None, "ci95": [0.0, 1.0]}
    assert summary["draws"] == {"count": 0, "rate": None, "ci95": [0.0, 1.0]}
    assert summary["turns"]["mean"] is None and summary["end_reasons"] == {}


@pytest.mark.parametrize("workers", [1, 2])
def test_an_engine_error_is_not_swallowed(workers):
    with pytest.raises(ValueError, match="battle 23"):
        run(60, workers=workers, chunk_size=10, runner=FailAt(23))


# --- progress and arguments -------------------------------------------------------------------


def test_progress_on_one_worker_is_reported_after_each_chunk():
    calls = []
    run(25, chunk_size=10, progress=lambda done, total: calls.append((done, total)))
    assert calls == [(10, 25), (20, 25), (25, 25)]


def test_progress_on_several_workers_grows_to_the_total():
    calls = []
    run(45, workers=2, chunk_size=10, progress=lambda done, total: calls.append((done, total)))
    done = [d for d, _ in calls]
    assert done == sorted(set(done)) and done[-1] == 45
    assert {total for _, total in calls} == {45}


@pytest.mark.parametrize(
    ("kwargs", "argument"),
    [
        ({"battles": 0}, "battles"),
        ({"workers": 0}, "workers"),
        ({"seed": -1}, "seed"),
        ({"chunk_size": 0}, "chunk_size"),
    ],
)
def test_bad_arguments_are_refused_by_name(kwargs, argument):
    kwargs = {"battles": 10, **kwargs}
    with pytest.raises(UsageError, match=f"^{argument}:"):
        run_battles(SCENARIO, runner=fake_runner, **kwargs)


# --- tallies and records ----------------------------------------------------------------------


def test_records_none_keeps_no_rows_and_the_same_summary():
    full = run(120, chunk_size=25)
    bare = run(120, chunk_size=25, records="none")
    assert bare.battles.empty and bare.combatants.empty
    assert bare.summary == full.summary
    only = run(120, records="battles")
    pd.testing.assert_frame_equal(only.battles, full.battles)
    assert only.combatants.empty


def test_records_must_be_none_battles_or_all():
    with pytest.raises(UsageError, match="^records:"):
        run_battles(SCENARIO, 10, runner=fake_runner, records="some")


def test_workers_none_means_every_core():
    assert run(60, workers=None, chunk_size=10).summary == run(60).summary


def result_with(winner, turns, rows):
    combatants = [
        {"battle": 0, "name": f"f{i}", "side": side, "knocked_out_turn": out, "damage_taken": dmg}
        for i, (side, out, dmg) in enumerate(rows)
    ]
    return BattleResult(0, winner, VICTORY if winner else TURN_LIMIT, turns, {}, combatants)


def test_a_tally_counts_fighters_standing_after_each_turn_and_damage_taken():
    scenario = FakeScenario(
        "Duel",
        "duel.yaml",
        1,
        4,
        (FakeSide("a", (FakeFighter("A1"), FakeFighter("A2"))), FakeSide("b", (FakeFighter("B"),))),
        FakeSystem("sr-classic"),
    )
    tally = Tally.of(
        scenario,
        [
            # b's fighter is out in turn 2; a's second fighter in turn 1.
            result_with("a", 2, [("a", None, 3), ("a", 1, 10), ("b", 2, 10)]),
            result_with(None, 4, [("a", None, 0), ("a", None, 1), ("b", None, 3)]),
        ],
    )
    assert tally.standing == {"a": [4, 3, 3, 3, 3], "b": [2, 2, 1, 1, 1]}
    assert tally.damage == {
        "a": [1, 1, 0, 1, 0, 0, 0, 0, 0, 0, 1],
        "b": [0, 0, 0, 1] + [0] * 6 + [1],
    }
    assert tally.turns == [0, 0, 1, 0, 1] and tally.draws == 1 and tally.wins == {"a": 1, "b": 0}
    outcomes = tally.outcomes()
    assert outcomes["distributions"]["standing"]["a"] == {"fighters": 2, "by_turn": [4, 3, 3, 3, 3]}
    assert outcomes["side_order"] == ["a", "b"]


def test_merging_tallies_is_the_tally_of_all_the_battles_in_any_order():
    results = [fake_runner(SCENARIO, 9, i) for i in range(90)]
    whole = Tally.of(SCENARIO, results)
    parts = [Tally.of(SCENARIO, results[i : i + 20]) for i in range(0, 90, 20)]
    forward, backward = Tally.empty(SCENARIO), Tally.empty(SCENARIO)
    for part in parts:
        forward.merge(part)
    for part in reversed(parts):
        backward.merge(part)
    assert forward.to_json() == backward.to_json() == whole.to_json()
    assert Tally.from_json(json.loads(json.dumps(whole.to_json()))).to_json() == whole.to_json()


def test_records_without_the_distribution_columns_leave_them_out():
    # fake_runner's combatant rows have neither knocked_out_turn nor damage_taken.
    distributions = run(30).summary["distributions"]
    assert distributions["standing"] is None and distributions["damage_taken"] is None
    assert sum(distributions["turns"]) == 30


def test_a_one_row_table_of_the_summary():
    from combatsim.output import summary_table

    result = run(50)
    table = summary_table([result.summary])
    assert len(table) == 1 and table["battles"][0] == 50
    assert table["wins_runners"][0] == result.summary["sides"]["runners"]["wins"]
