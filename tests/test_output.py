"""Result files (byte-stable, written atomically) and the terminal text of a batch and a trace."""

from __future__ import annotations

import json

import pandas as pd
import pytest

from combatsim import output
from combatsim.output import (
    format_outcome,
    format_summary,
    format_trace,
    summary_json,
)
from tests.helpers import write_results
from tests.test_batch import SCENARIO, InterruptAt, fake_runner, run

FILES = ["battles.csv", "combatants.csv", "summary.json"]
SIDES = [side.name for side in SCENARIO.sides]


def read_all(folder) -> dict[str, bytes]:
    return {name: (folder / name).read_bytes() for name in FILES}


# --- files ------------------------------------------------------------------------------------


def test_writes_the_three_files_into_a_new_nested_folder(tmp_path):
    out = tmp_path / "results" / "dockside"
    paths = write_results(run(20), out)
    assert [p.name for p in paths] == FILES
    assert sorted(p.name for p in out.iterdir()) == sorted(FILES)  # no temporary files left


@pytest.mark.slow
@pytest.mark.parametrize(("workers", "chunk_size"), [(1, 3), (2, 3), (3, 50)])
def test_same_seed_same_bytes_whatever_the_workers_and_chunks(tmp_path, workers, chunk_size):
    write_results(run(120, seed=11), tmp_path / "reference")
    write_results(run(120, seed=11, workers=workers, chunk_size=chunk_size), tmp_path / "other")
    assert read_all(tmp_path / "other") == read_all(tmp_path / "reference")


def test_another_seed_gives_other_files(tmp_path):
    write_results(run(50, seed=1), tmp_path / "a")
    write_results(run(50, seed=2), tmp_path / "b")
    a, b = read_all(tmp_path / "a"), read_all(tmp_path / "b")
    assert a["battles.csv"] != b["battles.csv"] and a["summary.json"] != b["summary.json"]


def test_csv_files_read_back_as_the_tables(tmp_path):
    result = run(40)
    write_results(result, tmp_path)
    pd.testing.assert_frame_equal(pd.read_csv(tmp_path / "battles.csv"), result.battles)
    combatants = pd.read_csv(tmp_path / "combatants.csv", dtype={"karma_spent": "Int64"})
    pd.testing.assert_frame_equal(combatants, result.combatants, rtol=1e-9)


def test_csv_text_is_fixed_a_draw_has_an_empty_winner_and_ints_stay_ints(tmp_path):
    result = run(40)
    write_results(result, tmp_path)
    battles = (tmp_path / "battles.csv").read_text()
    assert "\r" not in battles
    header, *rows = battles.splitlines()
    assert (
        header
        == "index,winner,end_reason,turns,survivors_runners,survivors_corp,survivors_bystanders"
    )
    draw = int(result.battles.index[result.battles["winner"].isna()][0])
    assert rows[draw].split(",")[1] == ""
    combatants = (tmp_path / "combatants.csv").read_text().splitlines()
    first = dict(zip(combatants[0].split(","), combatants[1].split(","), strict=True))
    assert first["karma_spent"].isdigit()  # 2, not 2.0
    corp = dict(zip(combatants[0].split(","), combatants[3].split(","), strict=True))
    assert corp["side"] == "corp" and corp["karma_spent"] == ""
    accuracy = result.combatants["accuracy"].iloc[0]
    assert first["accuracy"] == output.FLOAT_FORMAT % accuracy


def test_summary_json_is_sorted_indented_and_round_trips(tmp_path):
    result = run(40)
    write_results(result, tmp_path)
    text = (tmp_path / "summary.json").read_text()
    assert text == summary_json(result.summary) and text.endswith("}\n")
    assert json.loads(text) == result.summary
    top_keys = [line.split('"')[1] for line in text.splitlines() if line.startswith('  "')]
    assert top_keys == sorted(top_keys)


def test_rewriting_replaces_the_old_files(tmp_path):
    write_results(run(30, seed=1), tmp_path)
    write_results(run(30, seed=2), tmp_path)
    fresh = tmp_path / "fresh"
    write_results(run(30, seed=2), fresh)
    assert read_all(tmp_path) == read_all(fresh)


def test_a_failed_write_leaves_the_old_file_whole_and_no_temporary_file(tmp_path, monkeypatch):
    write_results(run(30, seed=1), tmp_path)
    before = read_all(tmp_path)

    def broken(frame, f):
        f.write("index,winner\n0,")  # half a file, then the disk fills up
        raise OSError("No space left on device")

    monkeypatch.setattr(output, "_write_csv", broken)
    with pytest.raises(OSError, match="No space"):
        write_results(run(30, seed=2), tmp_path)
    assert read_all(tmp_path) == before
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(FILES)


def test_result_files_get_the_permissions_of_any_new_file(tmp_path):
    write_results(run(5), tmp_path)
    (tmp_path / "plain.txt").write_text("x")
    plain = (tmp_path / "plain.txt").stat().st_mode
    assert {(tmp_path / name).stat().st_mode for name in FILES} == {plain}


def test_an_interrupted_batch_with_nothing_finished_still_writes_its_files(tmp_path):
    result = run(10, runner=InterruptAt(0))
    write_results(result, tmp_path)
    assert json.loads((tmp_path / "summary.json").read_text())["interrupted"] is True


# --- terminal text ----------------------------------------------------------------------------


def test_summary_text_shows_each_side_draws_and_turns():
    summary = run(200).summary
    text = format_summary(summary)
    assert "Dockside ambush (scenarios/dockside.yaml, sr-classic)" in text
    assert f"200 battles, seed {SCENARIO.seed}" in text
    runners = summary["sides"]["runners"]
    low, high = runners["ci95"]
    line = next(ln for ln in text.splitlines() if ln.strip().startswith("runners"))
    assert line.split() == [
        "runners",
        str(runners["wins"]),
        f"{runners['win_rate']:.1%}",
        f"{low:.1%}",
        "-",
        f"{high:.1%}",
    ]
    assert next(ln for ln in text.splitlines() if ln.strip().startswith("bystanders")).split()[
        1:3
    ] == [
        "0",
        "0.0%",
    ]
    draws = next(ln for ln in text.splitlines() if ln.strip().startswith("draws"))
    assert draws.split()[1] == str(summary["draws"]["count"])
    assert f"max {summary['turns']['max']}" in text
    assert "interrupted" not in text


def test_summary_text_says_when_a_batch_was_interrupted():
    text = format_summary(run(100, chunk_size=10, runner=InterruptAt(37)).summary)
    assert "37 battles" in text and "interrupted: 37 of 100 finished" in text


def test_summary_text_with_nothing_finished_has_no_rates():
    text = format_summary(run(10, runner=InterruptAt(0)).summary)
    line = next(ln for ln in text.splitlines() if ln.strip().startswith("runners"))
    assert line.split() == ["runners", "0", "-", "0.0%", "-", "100.0%"]
    assert "turns:" not in text


def test_trace_groups_events_under_turns_and_initiative_scores():
    result = fake_runner(SCENARIO, SCENARIO.seed, 3, trace=True)
    lines = format_trace(result, SIDES).splitlines()
    assert lines[:11] == [
        "Battle 3",
        "",
        "Turn 1",
        "  Ace rolls 14, Guard 1 rolls 9",
        "  score 14",
        "    Ace fires at Guard 1",
        "    Guard 1 takes a Serious wound",
        "  score 9",
        "    Guard 1 fires at Ace and misses",
        "",
        "Turn 2",
    ]
    assert lines[11:14] == [
        "  Ace rolls 11",
        "  score 11",
        "    Ace fires at Guard 1; Guard 1 is down",
    ]
    assert lines[-1] == format_outcome(result, SIDES)


def test_outcome_names_the_winner_or_the_draw_and_who_stands():
    for index in range(40):
        result = fake_runner(SCENARIO, SCENARIO.seed, index)
        text = format_outcome(result, SIDES)
        head = "draw" if result.winner is None else f"{result.winner} won"
        assert text.startswith(f"Outcome: {head} ({result.end_reason}) after {result.turns} turn")
        standing = ", ".join(f"{s} {result.battle[f'survivors_{s}']}" for s in SIDES)
        assert text.endswith(f"; standing: {standing}")


# --- tables and chunked records ---------------------------------------------------------------


def test_csv_written_in_slices_and_joined_is_the_whole_table_to_the_byte(tmp_path):
    result = run(97)
    whole = tmp_path / "whole.csv"
    output.write_csv(result.combatants, whole)
    parts = []
    for k, start in enumerate(range(0, 97, 13)):
        rows = result.combatants[result.combatants["battle"].between(start, start + 12)]
        # Each slice is typed on its own, as a chunk's records are.
        part = output.table(rows.astype(object).where(rows.notna(), None).to_dict("records"))
        parts.append(output.write_csv(part, tmp_path / f"part{k}.csv"))
    joined = output.concat_csv(parts, tmp_path / "joined.csv")
    assert joined.read_bytes() == whole.read_bytes()


def test_csv_parts_with_other_columns_are_joined_by_name(tmp_path):
    a = output.write_csv(pd.DataFrame({"x": [1, 2], "y": ["a", "b"]}), tmp_path / "a.csv")
    b = output.write_csv(pd.DataFrame({"y": ["c"], "z": [3]}), tmp_path / "b.csv")
    joined = output.concat_csv([a, b], tmp_path / "j.csv")
    assert joined.read_text().splitlines() == ["x,y,z", "1,a,", "2,b,", ",c,3"]


def test_summary_table_has_a_row_per_summary_and_columns_per_side(tmp_path):
    summaries = [run(40, seed=s).summary for s in (1, 2)]
    table = output.summary_table(
        summaries, [{"variant": 0, "armor": "vest"}, {"variant": 1, "armor": "heavy"}]
    )
    assert list(table.columns[:3]) == ["variant", "armor", "battles"]
    for side in SIDES:
        assert [f"wins_{side}", f"win_rate_{side}", f"ci_low_{side}", f"ci_high_{side}"] == [
            c for c in table.columns if c.endswith(f"_{side}")
        ]
    assert list(table.columns[-9:]) == [
        "draws",
        "draw_rate",
        "draw_ci_low",
        "draw_ci_high",
        "turns_mean",
        "turns_median",
        "turns_p10",
        "turns_p90",
        "turns_max",
    ]
    assert table["win_rate_runners"][1] == summaries[1]["sides"]["runners"]["win_rate"]
    paths = output.write_table(table, tmp_path)
    assert [p.name for p in paths] == ["table.csv", "table.parquet"]
    pd.testing.assert_frame_equal(pd.read_parquet(paths[1]), table)
    pd.testing.assert_frame_equal(pd.read_csv(paths[0]), table, check_dtype=False)


TIDY_COLUMNS = [
    "side",
    "battles",
    "wins",
    "win_rate",
    "win_ci_low",
    "win_ci_high",
    "draws",
    "draw_rate",
    "draw_ci_low",
    "draw_ci_high",
    "turns_mean",
    "turns_median",
    "turns_p10",
    "turns_p90",
    "turns_max",
]


def test_the_tidy_table_has_a_row_per_summary_and_side_with_the_parameters_as_columns(
    tmp_path,
):
    summaries = [run(40, seed=s).summary for s in (1, 2)]
    labels = [{"variant": 0, "guard armor": "vest"}, {"variant": 1, "guard armor": "heavy"}]
    table = output.tidy_table(summaries, labels)
    assert list(table.columns) == ["variant", "guard_armor", *TIDY_COLUMNS]
    assert not any(" " in c for c in table.columns)
    assert list(table[["variant", "side"]].itertuples(index=False, name=None)) == [
        (v, side) for v in (0, 1) for side in SIDES
    ]
    for row in table.to_dict("records"):
        summary = summaries[row["variant"]]
        stats = summary["sides"][row["side"]]
        assert row["guard_armor"] == labels[row["variant"]]["guard armor"]
        assert (row["battles"], row["wins"], row["win_rate"]) == (
            summary["battles_completed"],
            stats["wins"],
            stats["win_rate"],
        )
        assert [row["win_ci_low"], row["win_ci_high"]] == list(stats["ci95"])
        assert (row["draws"], row["draw_rate"]) == (
            summary["draws"]["count"],
            summary["draws"]["rate"],
        )
        assert row["turns_mean"] == summary["turns"]["mean"]
    paths = output.write_table(table, tmp_path)
    pd.testing.assert_frame_equal(pd.read_parquet(paths[1]), table)
    pd.testing.assert_frame_equal(pd.read_csv(paths[0]), table, check_dtype=False)


def test_a_side_casualty_rates_are_on_its_row_of_the_tidy_table(tmp_path):
    summary = run(40, seed=1).summary
    entry = {
        "level": "side",
        "who": "corp",
        "down_rate": 0.25,
        "down_ci95": [0.1, 0.4],
        "dead_rate": 0.05,
        "dead_ci95": [0.0, 0.2],
    }
    table = output.tidy_table([{**summary, "casualties": [entry]}])
    corp = table[table["side"] == "corp"].iloc[0]
    assert (corp["down_rate"], corp["down_ci_low"], corp["dead_ci_high"]) == (0.25, 0.1, 0.2)
    assert table[table["side"] == "runners"]["down_rate"].isna().all()


def test_the_wide_table_is_the_tidy_table_with_the_sides_across():
    summaries = [run(40, seed=s).summary for s in (1, 2)]
    labels = [{"variant": 0, "armor": "vest"}, {"variant": 1, "armor": "heavy"}]
    wide = output.wide_table(output.tidy_table(summaries, labels))
    old = output.summary_table(summaries, labels)
    assert sorted(wide.columns) == sorted(old.columns)
    pd.testing.assert_frame_equal(wide[old.columns], old, check_dtype=False)
    explain_like = pd.DataFrame({"lever": ["a"], "battles": [3]})  # no side: as it is
    assert output.wide_table(explain_like) is explain_like


def test_the_terminal_shows_a_long_table_one_line_per_variant():
    summaries = [run(60, seed=s).summary for s in (1, 2)]
    labels = [{"armor": "vest"}, {"armor": "heavy"}]
    long = output.format_table(output.tidy_table(summaries, labels), ["armor"])
    assert long == output.format_table(output.summary_table(summaries, labels), ["armor"])


def test_a_column_mixing_numbers_and_text_is_text_in_parquet(tmp_path):
    table = pd.DataFrame({"value": [1, "two"], "battles": [3, 4]})
    parquet = output.write_table(table, tmp_path)[1]
    assert list(pd.read_parquet(parquet)["value"]) == ["1", "two"]


def test_table_text_shows_rates_with_intervals():
    summaries = [run(60, seed=s).summary for s in (1, 2)]
    table = output.summary_table(summaries, [{"armor": "vest"}, {"armor": "heavy"}])
    lines = output.format_table(table, ["armor"]).splitlines()
    assert lines[0].split() == [
        "armor",
        "battles",
        "runners",
        "corp",
        "bystanders",
        "draws",
        "turns",
    ]
    runners = summaries[0]["sides"]["runners"]
    low, high = runners["ci95"]
    assert f"{runners['win_rate']:.1%} ({low:.1%}-{high:.1%})" in lines[1]
