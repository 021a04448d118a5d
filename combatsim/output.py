"""Where a batch's results go: files in an output folder, and readable text for a terminal.

Files: ``battles.csv`` (one row per battle), ``combatants.csv`` (one row per combatant per
battle), ``casualties.csv`` and ``casualties.parquet`` (per side, combatant and copy, the
share of battles it ended down and dead, see ``casualty_table``), ``attacks.csv`` (one row per
attacker, target, weapon and shots the tactics used, see ``attack_table``) and
``summary.json``; for
several scenarios or variants, ``table.csv`` and ``table.parquet`` (one row per variant and
side, see ``tidy_table``). The same scenario and seed
give byte-identical files: floats in a fixed format, JSON keys sorted, ``\\n`` line endings,
nothing about when or how (workers, backend, chunks) the batch ran. A draw's ``winner`` is an
empty cell. Each file is written to a new temporary file in the output folder (created with
``O_EXCL``, never through a symbolic link) and moved over the old one with ``os.replace``, so a
reader never sees a half-written file and a failed run leaves the previous results whole. In a
folder a run holds (``combatsim.folder.writing``) each file is recorded in its manifest first.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from itertools import groupby
from numbers import Integral
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any

from .engine.records import BattleResult
from .folder import write_atomic
from .names import cell_problem, for_terminal

if TYPE_CHECKING:  # pandas is imported where tables are made, never in a worker
    import pandas as pd

BATTLES_CSV = "battles.csv"
COMBATANTS_CSV = "combatants.csv"
SUMMARY_JSON = "summary.json"
TABLE_CSV = "table.csv"
TABLE_PARQUET = "table.parquet"
CASUALTIES_CSV = "casualties.csv"
CASUALTIES_PARQUET = "casualties.parquet"
ATTACKS_CSV = "attacks.csv"
ATTACK_COLUMNS = (
    "attacker",
    "attacker_side",
    "target",
    "target_side",
    "weapon",
    "weapon_kind",
    "shots",
    "attacks",
)
FLOAT_FORMAT = "%.10g"


def table(rows: Iterable[dict[str, Any]]) -> pd.DataFrame:
    """A DataFrame of record dicts in order; integer columns with gaps stay integers.

    pandas turns a column of ints and Nones into floats (3 -> 3.0 in the CSV); such a column
    becomes the nullable ``Int64`` instead, so the files show what the engine recorded.
    """
    records = list(rows)
    import pandas as pd

    frame = pd.DataFrame.from_records(records)
    for column in frame.columns:
        if frame[column].dtype.kind == "f" and _integers_or_none(records, column):
            frame[column] = frame[column].astype("Int64")
    return frame


def _integers_or_none(records: list[dict[str, Any]], column: str) -> bool:
    """Whether every record's ``column`` is an integer (not a bool) or None (missing). By the
    values' types, each tested once: an isinstance test of every value against ``Integral``
    cost a 4v4 run 20 us a battle (measured), more than the rest of the table."""
    kinds = {type(r.get(column)) for r in records}
    return all(
        kind is type(None) or (issubclass(kind, Integral) and not issubclass(kind, bool))
        for kind in kinds
    )


def summary_json(summary: dict[str, Any]) -> str:
    """The summary as the text of ``summary.json``: indented, keys sorted, no NaN."""
    return json.dumps(summary, indent=2, sort_keys=True, allow_nan=False) + "\n"


def write_summary(summary: dict[str, Any], path: str | os.PathLike) -> Path:
    return _write_atomic(Path(path), lambda f: f.write(summary_json(summary)))


def write_csv(frame: pd.DataFrame, path: str | os.PathLike) -> Path:
    """One table as CSV, atomically, in the fixed format of every result file."""
    return _write_atomic(Path(path), lambda f: _write_csv(frame, f))


def write_table(frame: pd.DataFrame, out_dir: str | os.PathLike) -> list[Path]:
    """``table.csv`` and ``table.parquet`` in ``out_dir`` (created if missing)."""
    return _write_both(frame, Path(out_dir), TABLE_CSV, TABLE_PARQUET)


def write_casualties(
    summaries: Sequence[dict[str, Any]],
    out_dir: str | os.PathLike,
    labels: Sequence[dict] | None = None,
) -> list[Path]:
    """``casualties.csv`` and ``casualties.parquet`` (see ``casualty_table``) in ``out_dir``;
    nothing when no summary has casualties."""
    frame = casualty_table(summaries, labels)
    if frame.empty:
        return []
    return _write_both(frame, Path(out_dir), CASUALTIES_CSV, CASUALTIES_PARQUET)


def attack_rows(
    scenario: Any, attacks: Mapping[tuple[int, int, int, int], int] | None
) -> list[dict[str, Any]]:
    """The attacks the tactics made (a ``Tally``'s ``attacks``), one row per attacker, target,
    weapon and shots: the fighters' names and sides, the weapon's name on the attacker's
    sheet and its kind, the shots of each attack and ``attacks``, how many were made in all
    the battles. Most used first (ties in scenario order). A grenade thrown at a point has no
    target (None); bare hands are weapon and kind ``unarmed``. No rows when the attacks are
    unknown."""
    rows = []
    for (a, t, w, shots), count in sorted((attacks or {}).items(), key=lambda kv: (-kv[1], kv[0])):
        fighters = scenario.fighters
        attacker = fighters[a]
        target = fighters[t] if t >= 0 else None
        rows.append(
            {
                "attacker": attacker.name,
                "attacker_side": attacker.side,
                "target": target.name if target is not None else None,
                "target_side": target.side if target is not None else None,
                "weapon": attacker.sheet.weapons[w] if w >= 0 else "unarmed",
                "weapon_kind": attacker.weapons[w].kind if w >= 0 else "unarmed",
                "shots": shots,
                "attacks": count,
            }
        )
    return rows


def attack_table(
    scenario: Any, attacks: Mapping[tuple[int, int, int, int], int] | None
) -> pd.DataFrame:
    """``attack_rows`` as a table (``attacks.csv``; a missing target is an empty cell)."""
    import pandas as pd

    return pd.DataFrame(attack_rows(scenario, attacks), columns=list(ATTACK_COLUMNS))


def write_attacks(frame: pd.DataFrame, out_dir: str | os.PathLike) -> list[Path]:
    """``attacks.csv`` (see ``attack_table``) in ``out_dir``; nothing when it has no rows."""
    if frame.empty:
        return []
    folder = Path(out_dir)
    folder.mkdir(parents=True, exist_ok=True)
    return [write_csv(frame, folder / ATTACKS_CSV)]


def write_frame(frame: pd.DataFrame, out_dir: str | os.PathLike, stem: str) -> list[Path]:
    """``STEM.csv`` and ``STEM.parquet`` of ``frame`` in ``out_dir`` (created if missing)."""
    return _write_both(frame, Path(out_dir), f"{stem}.csv", f"{stem}.parquet")


def _write_both(frame: pd.DataFrame, folder: Path, csv_name: str, parquet_name: str) -> list[Path]:
    folder.mkdir(parents=True, exist_ok=True)
    paths = [write_csv(frame, folder / csv_name)]
    parquet = folder / parquet_name
    ready = parquet_ready(frame)
    write_atomic(parquet, lambda f: ready.to_parquet(f, index=False), binary=True)
    return [*paths, parquet]


def parquet_ready(frame: pd.DataFrame) -> pd.DataFrame:
    """Parquet wants one type per column: a column mixing numbers and text becomes text."""
    frame = frame.copy()
    for column in frame.columns:
        if frame[column].dtype == object:
            kinds = {type(v) for v in frame[column] if v is not None and v == v}
            if len(kinds) > 1:
                frame[column] = [None if v is None else str(v) for v in frame[column]]
    return frame


def concat_csv(parts: Sequence[str | os.PathLike], path: str | os.PathLike) -> Path:
    """Join CSV files with one header into ``path``, streaming (memory does not grow).

    Parts written by ``write_csv`` from consecutive slices of one table give the same bytes as
    the whole table written at once. Parts whose headers differ are read and joined with
    pandas instead (columns in order of first appearance, missing cells empty).
    """
    import pandas as pd

    files = [Path(p) for p in parts]
    headers = {_first_line(p) for p in files}
    if len(headers) > 1:
        frames = [pd.read_csv(p, keep_default_na=False, dtype=str) for p in files]
        return write_csv(pd.concat(frames, ignore_index=True, sort=False), path)

    def join(f: IO[str]) -> None:
        if not files:
            _write_csv(pd.DataFrame(), f)
        for i, part in enumerate(files):
            with open(part, encoding="utf-8", newline="") as src:
                if i:
                    src.readline()
                for block in iter(lambda: src.read(1 << 20), ""):
                    f.write(block)

    return _write_atomic(Path(path), join)


def _first_line(path: Path) -> str:
    with open(path, encoding="utf-8", newline="") as f:
        return f.readline()


def summary_table(
    summaries: Sequence[dict[str, Any]], labels: Sequence[dict] | None = None
) -> pd.DataFrame:
    """One row per summary: the label columns, then ``battles``, per side ``wins_<side>``,
    ``win_rate_<side>``, ``ci_low_<side>``, ``ci_high_<side>``, then ``draws``, ``draw_rate``,
    ``draw_ci_low``, ``draw_ci_high`` and ``turns_mean``, ``turns_median``, ``turns_p10``,
    ``turns_p90``, ``turns_max``; then, when the summaries count casualties, per side
    ``down_rate_<side>``, ``down_ci_low_<side>``, ``down_ci_high_<side>``, ``dead_rate_<side>``,
    ``dead_ci_low_<side>``, ``dead_ci_high_<side>`` (battles in which at least one of the side
    ended down, or dead). Intervals are 95% Wilson score intervals."""
    import pandas as pd

    rows = []
    for i, summary in enumerate(summaries):
        row: dict[str, Any] = dict(labels[i]) if labels is not None else {}
        row["battles"] = summary["battles_completed"]
        for side, stats in summary["sides"].items():
            row[f"wins_{side}"] = stats["wins"]
            row[f"win_rate_{side}"] = stats["win_rate"]
            row[f"ci_low_{side}"], row[f"ci_high_{side}"] = stats["ci95"]
        draws = summary["draws"]
        row["draws"] = draws["count"]
        row["draw_rate"] = draws["rate"]
        row["draw_ci_low"], row["draw_ci_high"] = draws["ci95"]
        for key in ("mean", "median", "p10", "p90", "max"):
            row[f"turns_{key}"] = summary["turns"][key]
        for entry in summary.get("casualties") or ():
            if entry["level"] == "side":
                side = entry["who"]
                for what in ("down", "dead"):
                    row[f"{what}_rate_{side}"] = entry[f"{what}_rate"]
                    row[f"{what}_ci_low_{side}"], row[f"{what}_ci_high_{side}"] = entry[
                        f"{what}_ci95"
                    ]
        rows.append(row)
    frame = pd.DataFrame.from_records(rows)
    for column in frame.columns:  # a side missing from some rows keeps its counts integer
        if (column.startswith("wins_") or column == "turns_max") and frame[
            column
        ].dtype.kind == "f":
            frame[column] = frame[column].astype("Int64")
    return frame


def column_name(name: object) -> str:
    """A label as a column name: snake_case, no spaces or brackets (``sides[0].armor`` ->
    ``sides_0_armor``), so that ``frame.sides_0_armor`` and a parquet schema both take it."""
    return re.sub(r"[^0-9a-z]+", "_", str(name).lower()).strip("_") or "value"


def _columns_of(label: dict[str, Any]) -> dict[str, Any]:
    return {column_name(key): value for key, value in label.items()}


TURN_STATS = ("mean", "median", "p10", "p90", "max")
SHARED_COLUMNS = (  # a scenario's (variant's) figures, the same on each of its sides' rows
    "battles",
    "draws",
    "draw_rate",
    "draw_ci_low",
    "draw_ci_high",
    *(f"turns_{key}" for key in TURN_STATS),
)


def tidy_table(
    summaries: Sequence[dict[str, Any]], labels: Sequence[dict] | None = None
) -> pd.DataFrame:
    """One row per summary and side (long form, as pandas and Mesa's ``batch_run`` expect):
    the label columns (a sweep's varied values, snake_case), ``side``, ``battles``, ``wins``,
    ``win_rate`` with its 95% Wilson interval ``win_ci_low``/``win_ci_high``, the scenario's
    ``draws``, ``draw_rate``, ``draw_ci_low``, ``draw_ci_high`` and ``turns_mean``,
    ``turns_median``, ``turns_p10``, ``turns_p90``, ``turns_max`` (repeated on each side's row),
    then, when the summaries count casualties, ``down_rate``, ``down_ci_low``,
    ``down_ci_high``, ``dead_rate``, ``dead_ci_low``, ``dead_ci_high`` (battles in which at
    least one of the side ended down, or dead)."""
    rows = []
    for i, summary in enumerate(summaries):
        label = _columns_of(labels[i]) if labels is not None else {}
        draws, turns = summary["draws"], summary["turns"]
        shared = {
            "battles": summary["battles_completed"],
            "draws": draws["count"],
            "draw_rate": draws["rate"],
            "draw_ci_low": draws["ci95"][0],
            "draw_ci_high": draws["ci95"][1],
            **{f"turns_{key}": turns[key] for key in TURN_STATS},
        }
        casualties = {e["who"]: e for e in summary.get("casualties") or () if e["level"] == "side"}
        for side, stats in summary["sides"].items():
            row = {**label, "side": side, "battles": shared["battles"], "wins": stats["wins"]}
            row["win_rate"] = stats["win_rate"]
            row["win_ci_low"], row["win_ci_high"] = stats["ci95"]
            row.update(shared)
            if side in casualties:
                for what in ("down", "dead"):
                    row[f"{what}_rate"] = casualties[side][f"{what}_rate"]
                    row[f"{what}_ci_low"], row[f"{what}_ci_high"] = casualties[side][f"{what}_ci95"]
            rows.append(row)
    return table(rows)


WIDE_NAMES = {"win_ci_low": "ci_low", "win_ci_high": "ci_high"}


def wide_table(frame: pd.DataFrame) -> pd.DataFrame:
    """A long table (``tidy_table``) back in wide form, one row per scenario or variant with
    the sides in the column names (``win_rate_<side>``, ``ci_low_<side>``, ...): what the
    terminal shows and the web page draws. A table without a ``side`` column is returned as
    it is."""
    import pandas as pd

    if "side" not in frame.columns:
        return frame
    columns = list(frame.columns)
    labels = columns[: columns.index("side")]
    shared = [c for c in SHARED_COLUMNS if c in columns]
    per_side = [c for c in columns if c not in labels and c not in shared and c != "side"]
    rows: list[dict[str, Any]] = []
    keys: list[tuple[str, ...]] = []
    for record in frame.to_dict("records"):  # one scenario's sides are consecutive rows
        key = tuple(repr(record[c]) for c in labels)
        if not rows or key != keys[-1]:
            rows.append({c: record[c] for c in [*labels, *shared]})
            keys.append(key)
        for c in per_side:
            rows[-1][f"{WIDE_NAMES.get(c, c)}_{record['side']}"] = record[c]
    return pd.DataFrame.from_records(rows)


CASUALTY_COLUMNS = (
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
)


def casualty_table(
    summaries: Sequence[dict[str, Any]], labels: Sequence[dict] | None = None
) -> pd.DataFrame:
    """One row per side, combatant and copy of each summary: the label columns (a sweep's
    varied values, say), then ``side``, ``who``, ``level`` (side, combatant or copy),
    ``battles``, ``down`` (battles in which it ended out of the fight), ``down_rate`` with its
    95% Wilson interval ``down_ci_low``/``down_ci_high``, and the same for ``dead``."""
    import pandas as pd

    rows = []
    for i, summary in enumerate(summaries):
        label = _columns_of(labels[i]) if labels is not None else {}
        for entry in summary.get("casualties") or ():
            row = {**label, **{k: entry[k] for k in ("side", "who", "level", "battles")}}
            for what in ("down", "dead"):
                row[what] = entry[what]
                row[f"{what}_rate"] = entry[f"{what}_rate"]
                row[f"{what}_ci_low"], row[f"{what}_ci_high"] = entry[f"{what}_ci95"]
            rows.append(row)
    return pd.DataFrame.from_records(rows)


def _write_csv(frame: pd.DataFrame, f: IO[str]) -> None:
    frame.to_csv(f, index=False, lineterminator="\n", float_format=FLOAT_FORMAT, na_rep="")


def _write_atomic(path: Path, write: Callable[[IO[str]], object]) -> Path:
    # A temporary file named by hand, not mkstemp: mkstemp's files are private (0600), and
    # the results should get the permissions any new file in the folder gets. It is created
    # with O_EXCL and O_NOFOLLOW: a link planted there is never followed.
    return write_atomic(path, write)


# --- terminal text ------------------------------------------------------------------------------


def format_summary(summary: dict[str, Any]) -> str:
    """A few readable lines: per side win rate with its 95% interval, draws, turns, end reasons."""
    n = summary["battles_completed"]
    lines = [
        f"{summary['scenario']} ({summary['source']}, {summary['system']})",
        f"{n} battles, seed {summary['seed']}",
    ]
    if summary["interrupted"]:
        lines[-1] += f" (interrupted: {n} of {summary['battles_requested']} finished)"
    rows = [("", "wins", "rate", "95% interval")]
    for name, side in summary["sides"].items():
        rows.append(
            (name, str(side["wins"]), percent(side["win_rate"]), interval_text(side["ci95"]))
        )
    draws = summary["draws"]
    rows.append(
        ("draws", str(draws["count"]), percent(draws["rate"]), interval_text(draws["ci95"]))
    )
    lines += ["", *aligned_rows(rows), ""]
    turns = summary["turns"]
    if turns["mean"] is not None:
        lines.append(
            f"turns: mean {turns['mean']:.1f}, median {_num(turns['median'])}, "
            f"10%-90% {_num(turns['p10'])}-{_num(turns['p90'])}, max {turns['max']}"
        )
    if summary["end_reasons"]:
        reasons = ", ".join(f"{k} {v}" for k, v in summary["end_reasons"].items())
        lines.append(f"ended by: {reasons}")
    if summary.get("casualties") and n:
        lines += ["", *format_casualties(summary["casualties"])]
    return "\n".join(lines)


INDENT = {"side": "", "combatant": "  ", "copy": "    "}
# What "down" counts, said wherever a down rate is printed: fleeing counts, not only wounds.
DOWN_MEANS = "down: out of the fight, that is unconscious, dying, dead or fled"


def format_casualties(entries: Sequence[dict[str, Any]]) -> list[str]:
    """Per side, combatant and copy (indented under each other): the share of battles in
    which it ended down (out of the fight) and dead, each with its 95% interval."""
    rows = [("casualties", "down", "95% interval", "dead", "95% interval")]
    for e in entries:
        rows.append(
            (
                INDENT[e["level"]] + e["who"],
                percent(e["down_rate"]),
                interval_text(e["down_ci95"]),
                percent(e["dead_rate"]),
                interval_text(e["dead_ci95"]),
            )
        )
    return [
        *aligned_rows(rows),
        "  (share of battles in which it, or at least one of them, ended down / dead;",
        f"   {DOWN_MEANS})",
    ]


def format_trace(result: BattleResult, side_names: Sequence[str]) -> str:
    """A traced battle blow by blow: events under their turn, and under their initiative score.

    Events with no score (between actions: initiative rolls, end of turn) sit directly under
    the turn; the rest are grouped under ``score N`` headers in the order they happened.
    Ends with the outcome.
    """
    lines = [f"Battle {result.index}"]
    for turn, events in groupby(result.trace or [], key=lambda e: e.turn):
        lines += ["", f"Turn {turn}"]
        for score, group in groupby(events, key=lambda e: e.score):
            if score is None:
                lines += [f"  {e.text}" for e in group]
            else:
                lines.append(f"  score {score}")
                lines += [f"    {e.text}" for e in group]
    lines += ["", format_outcome(result, side_names)]
    return "\n".join(lines)


def format_outcome(result: BattleResult, side_names: Iterable[str]) -> str:
    """One line: who won (or a draw), why, after how many turns, and who is still standing."""
    head = "draw" if result.winner is None else f"{result.winner} won"
    turns = "turn" if result.turns == 1 else "turns"
    survivors = ", ".join(
        f"{name} {result.battle[f'survivors_{name}']}"
        for name in side_names
        if f"survivors_{name}" in result.battle
    )
    text = f"Outcome: {head} ({result.end_reason}) after {result.turns} {turns}"
    return f"{text}; standing: {survivors}" if survivors else text


def format_table(
    frame: pd.DataFrame, labels: Sequence[str], sides: Sequence[str] | None = None
) -> str:
    """A results table for a terminal: the label columns, battles, each side's win rate with
    its 95% interval, draws and mean turns. A long table (``tidy_table``) is shown wide."""
    frame = wide_table(frame)
    if sides is None:
        sides = [c[len("win_rate_") :] for c in frame.columns if c.startswith("win_rate_")]
    head = [*labels, "battles", *sides, "draws", "turns"]
    rows = [tuple(head)]
    for record in frame.to_dict("records"):
        cells = [_cell(record.get(label)) for label in labels]
        cells.append(str(record["battles"]))
        for side in sides:
            rate = record.get(f"win_rate_{side}")
            if rate is None or rate != rate:
                cells.append("-")
            else:
                low, high = record[f"ci_low_{side}"], record[f"ci_high_{side}"]
                cells.append(f"{rate:.1%} ({low:.1%}-{high:.1%})")
        cells.append(
            percent(record["draw_rate"]) if record["draw_rate"] == record["draw_rate"] else "-"
        )
        mean = record["turns_mean"]
        cells.append("-" if mean is None or mean != mean else f"{mean:.1f}")
        rows.append(tuple(cells))
    labels_width = len(labels)
    widths = [max(len(row[i]) for row in rows) for i in range(len(head))]
    lines = []
    for row in rows:
        cells = [
            c.ljust(w) if i < labels_width else c.rjust(w)
            for i, (c, w) in enumerate(zip(row, widths, strict=True))
        ]
        lines.append("  " + "  ".join(cells).rstrip())
    return "\n".join(lines)


WIDTH = 120  # a terminal's width the batch tables keep within


def file_labels(sources: Sequence[str]) -> list[str]:
    """What names each of several scenarios in a table (``file``): its file's path from the
    folder they share, without the suffix (``sr-bar-brawl``, ``tactics/focus``), so files of
    one name in two subfolders stay apart. Shown escaped, and behind ``./`` where a
    spreadsheet would run it as a formula (``=x.yaml``), as every cell of a results CSV."""
    paths = [Path(source) for source in sources]
    try:
        common = Path(os.path.commonpath([p.parent for p in paths]))
        names = [p.with_suffix("").relative_to(common).as_posix() for p in paths]
    except ValueError:  # absolute and relative paths mixed, or none
        names = [p.stem for p in paths]
    names = [for_terminal(name, one_line=True) for name in names]
    return [name if cell_problem(name) is None else f"./{name}" for name in names]


def format_runs(summaries: Sequence[dict[str, Any]], width: int = WIDTH) -> str:
    """Several scenarios, one row per scenario and side: the scenario's ``file`` (its file
    name, which tells apart variants of one encounter, as ``table.csv``'s ``file`` column
    has it, on its first side's row, with battles, draws and mean turns), the side, its win
    rate with the 95% interval, and the share of battles in which it lost someone
    (``down``). Names too long for ``width`` characters are shortened with "..."."""
    head = ("file", "battles", "side", "wins", "95% interval", "down", "draws", "turns")
    rows = [head]
    for summary in summaries:
        downs = {
            e["who"]: e["down_rate"]
            for e in summary.get("casualties") or ()
            if e["level"] == "side"
        }
        n = summary["battles_completed"]
        turns = summary["turns"]["mean"]
        order = summary.get("side_order") or list(summary["sides"])
        for k, side in enumerate(order):
            stats = summary["sides"][side]
            first = k == 0
            rows.append(
                (
                    summary.get("file", Path(summary["source"]).stem) if first else "",
                    str(n) if first else "",
                    side,
                    percent(stats["win_rate"]),
                    interval_text(stats["ci95"]) if n else "-",
                    percent(downs.get(side)),
                    percent(summary["draws"]["rate"]) if first else "",
                    ("-" if turns is None else f"{turns:.1f}") if first else "",
                )
            )
    widths = [max(len(row[i]) for row in rows) for i in range(len(head))]
    widths[2] = min(widths[2], 20)
    rest = 2 + sum(widths[1:]) + 2 * (len(head) - 1)
    widths[0] = max(len(head[0]), min(widths[0], width - rest))
    lines = []
    for row in rows:
        cells = [_fit(c, w) for c, w in zip(row, widths, strict=True)]
        text = [
            c.ljust(w) if i in (0, 2) else c.rjust(w)
            for i, (c, w) in enumerate(zip(cells, widths, strict=True))
        ]
        lines.append("  " + "  ".join(text).rstrip())
    return "\n".join(lines)


def _fit(text: str, width: int) -> str:
    return text if len(text) <= width else text[: width - 3] + "..."


def _cell(value: Any) -> str:
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return "-" if value is None else str(value)


def aligned_rows(rows: Sequence[tuple[str, ...]]) -> list[str]:
    """Rows as aligned text: the first column left-aligned, the numbers right-aligned."""
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    lines = []
    for name, *numbers in rows:
        cells = [name.ljust(widths[0])] + [
            c.rjust(w) for c, w in zip(numbers, widths[1:], strict=True)
        ]
        lines.append("  " + "  ".join(cells))
    return lines


def percent(rate: float | None) -> str:
    return "-" if rate is None else f"{rate:.1%}"


def interval_text(bounds: Sequence[float]) -> str:
    return f"{bounds[0]:.1%} - {bounds[1]:.1%}"


def _num(x: float) -> str:
    return f"{x:g}" if float(x).is_integer() else f"{x:.1f}"
