"""Casualties: per side, combatant (a group's copies together) and copy, the share of battles
in which it ended down (out of the fight) and dead, each with its 95% Wilson interval.

A scripted runner decides who is down and dead from the battle index alone, so every count is
known exactly; then a shipped scenario on the real engine is checked against pandas on its
own ``combatants.csv``.
"""

from __future__ import annotations

from dataclasses import dataclass

import pandas as pd
import pytest

from combatsim.engine.records import VICTORY, BattleResult
from combatsim.output import casualty_table, format_summary, summary_table
from combatsim.run.tally import Tally, casualty_entries
from combatsim.stats import wilson_interval
from tests.helpers import run_battles, write_results
from tests.test_batch import FakeScenario, FakeSide, FakeSystem


@dataclass(frozen=True)
class Fighter:
    name: str
    group: str | None = None


SCENARIO = FakeScenario(
    name="Casualty arithmetic",
    source="scenarios/arithmetic.yaml",
    seed=1,
    turn_limit=5,
    sides=(
        FakeSide("runners", (Fighter("Ace"), Fighter("Brick"))),
        FakeSide(
            "corp",
            (Fighter("Boss"), Fighter("Guard 1", "Guard"), Fighter("Guard 2", "Guard")),
        ),
    ),
    system=FakeSystem("sr-classic"),
)

# Battle i: who ends down, and who of them is dead.
DOWN = {
    "Ace": lambda i: i % 2 == 0,
    "Brick": lambda i: i % 3 == 0,
    "Boss": lambda i: False,
    "Guard 1": lambda i: i % 5 == 0,
    "Guard 2": lambda i: i % 7 == 0,
}
DEAD = {"Ace": lambda i: i % 4 == 0, "Guard 2": lambda i: i % 14 == 0}


def scripted(scenario, root_seed, index, trace=False) -> BattleResult:
    rows = []
    for side in scenario.sides:
        for f in side.fighters:
            down = DOWN[f.name](index)
            dead = DEAD.get(f.name, lambda i: False)(index)
            status = "dead" if dead else ("unconscious" if down else "unhurt")
            rows.append(
                {"battle": index, "name": f.name, "side": side.name, "standing": not down}
                | {"status": status}
            )
    return BattleResult(index, "corp", VICTORY, 3, {"index": index, "winner": "corp"}, rows)


N = 84  # a multiple of 2, 3, 4, 7 and 14, so the counts below are exact


def expected(who: str) -> tuple[int, int]:
    battles = range(N)
    count = {
        "runners": (
            sum(i % 2 == 0 or i % 3 == 0 for i in battles),
            sum(i % 4 == 0 for i in battles),
        ),
        "Ace": (N // 2, N // 4),
        "Brick": (N // 3, 0),
        "corp": (sum(i % 5 == 0 or i % 7 == 0 for i in battles), N // 14),
        "Boss": (0, 0),
        "Guard": (sum(i % 5 == 0 or i % 7 == 0 for i in battles), N // 14),
        "Guard 1": (sum(i % 5 == 0 for i in battles), 0),
        "Guard 2": (N // 7, N // 14),
    }
    return count[who]


def test_entries_are_sides_then_combatants_with_each_group_before_its_copies():
    found = [(e.side, e.who, e.level) for e in casualty_entries(SCENARIO)]
    assert found == [
        ("runners", "runners", "side"),
        ("runners", "Ace", "combatant"),
        ("runners", "Brick", "combatant"),
        ("corp", "corp", "side"),
        ("corp", "Boss", "combatant"),
        ("corp", "Guard", "combatant"),
        ("corp", "Guard 1", "copy"),
        ("corp", "Guard 2", "copy"),
    ]


@pytest.mark.parametrize(("workers", "chunk_size"), [(1, 1000), (1, 5), (2, 11)])
def test_counts_rates_and_intervals_are_exact(workers, chunk_size):
    summary = run_battles(
        SCENARIO, N, runner=scripted, workers=workers, chunk_size=chunk_size
    ).summary
    assert len(summary["casualties"]) == 8
    for entry in summary["casualties"]:
        down, dead = expected(entry["who"])
        assert (entry["battles"], entry["down"], entry["dead"]) == (N, down, dead), entry
        assert entry["down_rate"] == round(down / N, 6)
        assert entry["dead_rate"] == round(dead / N, 6)
        assert entry["down_ci95"] == [round(x, 6) for x in wilson_interval(down, N)]
        assert entry["dead_ci95"] == [round(x, 6) for x in wilson_interval(dead, N)]


def test_a_side_is_down_when_any_member_is_not_the_sum_of_its_members():
    """Ace (1/2) and Brick (1/3) are down together in 1/6 of battles: the side is down in
    1/2 + 1/3 - 1/6 = 2/3 of them."""
    entries = {e["who"]: e for e in run_battles(SCENARIO, N, runner=scripted).summary["casualties"]}
    assert entries["runners"]["down"] == 2 * N // 3


def test_tally_round_trips_through_the_journal_and_merges():
    tally = Tally.of(SCENARIO, (scripted(SCENARIO, 1, i) for i in range(N)))
    first = Tally.of(SCENARIO, (scripted(SCENARIO, 1, i) for i in range(40)))
    second = Tally.of(SCENARIO, (scripted(SCENARIO, 1, i) for i in range(40, N)))
    merged = Tally.from_json(first.to_json()).merge(Tally.from_json(second.to_json()))
    assert merged.casualty_rates() == tally.casualty_rates()


def test_an_old_journal_without_casualties_gives_none_not_an_error():
    data = Tally.of(SCENARIO, [scripted(SCENARIO, 1, 0)]).to_json()
    del data["entries"], data["casualties"]
    old = Tally.from_json(data)
    assert old.casualty_rates() is None
    assert Tally.empty(SCENARIO).merge(old).casualty_rates() is None


def test_rows_without_standing_give_no_casualties():
    from tests.test_batch import SCENARIO as PLAIN
    from tests.test_batch import fake_runner

    assert run_battles(PLAIN, 10, runner=fake_runner).summary["casualties"] is None


def test_tables_console_and_files(tmp_path):
    result = run_battles(SCENARIO, N, runner=scripted)
    frame = casualty_table([result.summary], [{"variant": 3}])
    assert list(frame.columns) == [
        "variant",
        "side",
        "who",
        "level",
        "battles",
        "down",
        "down_rate",
        "down_ci_low",
        "down_ci_high",
        "dead",
        "dead_rate",
        "dead_ci_low",
        "dead_ci_high",
    ]
    guard = frame[frame["who"] == "Guard 2"].iloc[0]
    assert (guard["down"], guard["dead"], guard["level"]) == (N // 7, N // 14, "copy")
    row = summary_table([result.summary]).iloc[0]
    assert row["down_rate_runners"] == round(2 / 3, 6)
    assert row["dead_rate_corp"] == round(1 / 14, 6)
    assert row["down_ci_low_corp"] < row["down_rate_corp"] < row["down_ci_high_corp"]
    text = format_summary(result.summary)
    assert "      Guard 2" in text and "casualties" in text
    names = [p.name for p in write_results(result, tmp_path)]
    assert "casualties.csv" in names and "casualties.parquet" in names
    pd.testing.assert_frame_equal(
        pd.read_parquet(tmp_path / "casualties.parquet"), casualty_table([result.summary])
    )


def test_a_shipped_scenario_agrees_with_its_own_combatants_csv():
    """The real engine: the copies' names are those of combatants.csv, and every rate is what
    pandas finds from the per-battle rows (down: not ``standing``; dead: ``status``)."""
    from combatsim.scenario import load_scenario

    scenario = load_scenario("scenarios/sr-firefight-4v4.yaml")
    result = run_battles(scenario, 60, seed=3)
    rows = result.combatants.assign(
        down=lambda c: ~c["standing"].astype(bool), dead=lambda c: c["status"] == "dead"
    )
    names = set(rows["name"])
    groups = {"Guard": ["Guard 1", "Guard 2", "Guard 3"]}
    for entry in result.summary["casualties"]:
        if entry["level"] == "side":
            members = rows[rows["side"] == entry["who"]]
        else:
            members = rows[rows["name"].isin(groups.get(entry["who"], [entry["who"]]))]
            assert set(groups.get(entry["who"], [entry["who"]])) <= names
        by_battle = members.groupby("battle")[["down", "dead"]].any()
        assert entry["down"] == by_battle["down"].sum(), entry
        assert entry["dead"] == by_battle["dead"].sum(), entry
    levels = [(e["who"], e["level"]) for e in result.summary["casualties"]]
    assert ("Guard", "combatant") in levels and ("Guard 3", "copy") in levels
