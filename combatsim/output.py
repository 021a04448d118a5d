"""Where a batch's results go: files in an output folder, and readable text for a terminal.

Files: ``battles.csv`` (one row per battle), ``combatants.csv`` (one row per combatant per
battle) and ``summary.json``. The same scenario and seed give byte-identical files: floats in
a fixed format, JSON keys sorted, ``\\n`` line endings, nothing about when or how (workers,
chunks) the batch ran. A draw's ``winner`` is an empty cell. Each file is written to a
temporary file in the output folder and moved over the old one with ``os.replace``, so a
reader never sees a half-written file and a failed run leaves the previous results whole.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Iterable, Sequence
from itertools import groupby
from pathlib import Path
from typing import IO, Any

from .batch import BatchResult
from .engine.records import BattleResult

BATTLES_CSV = "battles.csv"
COMBATANTS_CSV = "combatants.csv"
SUMMARY_JSON = "summary.json"
FLOAT_FORMAT = "%.10g"


def write_results(result: BatchResult, out_dir: str | os.PathLike) -> list[Path]:
    """Write the three result files into ``out_dir`` (created if missing); return their paths."""
    folder = Path(out_dir)
    folder.mkdir(parents=True, exist_ok=True)
    return [
        _write_atomic(folder / BATTLES_CSV, lambda f: _write_csv(result.battles, f)),
        _write_atomic(folder / COMBATANTS_CSV, lambda f: _write_csv(result.combatants, f)),
        _write_atomic(folder / SUMMARY_JSON, lambda f: f.write(summary_json(result.summary))),
    ]


def summary_json(summary: dict[str, Any]) -> str:
    """The summary as the text of ``summary.json``: indented, keys sorted, no NaN."""
    return json.dumps(summary, indent=2, sort_keys=True, allow_nan=False) + "\n"


def _write_csv(frame, f: IO[str]) -> None:
    frame.to_csv(f, index=False, lineterminator="\n", float_format=FLOAT_FORMAT, na_rep="")


def _write_atomic(path: Path, write: Callable[[IO[str]], object]) -> Path:
    # A temporary file named by hand, not mkstemp: mkstemp's files are private (0600), and
    # the results should get the permissions any new file in the folder gets.
    temp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    try:
        with open(temp, "w", encoding="utf-8", newline="") as f:
            write(f)
        os.replace(temp, path)
    except BaseException:
        temp.unlink(missing_ok=True)
        raise
    return path


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
        rows.append((name, str(side["wins"]), _pct(side["win_rate"]), _interval(side["ci95"])))
    draws = summary["draws"]
    rows.append(("draws", str(draws["count"]), _pct(draws["rate"]), _interval(draws["ci95"])))
    lines += ["", *_columns(rows), ""]
    turns = summary["turns"]
    if turns["mean"] is not None:
        lines.append(
            f"turns: mean {turns['mean']:.1f}, median {_num(turns['median'])}, "
            f"10%-90% {_num(turns['p10'])}-{_num(turns['p90'])}, max {turns['max']}"
        )
    if summary["end_reasons"]:
        reasons = ", ".join(f"{k} {v}" for k, v in summary["end_reasons"].items())
        lines.append(f"ended by: {reasons}")
    return "\n".join(lines)


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


def _columns(rows: list[tuple[str, ...]]) -> list[str]:
    """Rows as aligned text: the first column left-aligned, the numbers right-aligned."""
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    lines = []
    for name, *numbers in rows:
        cells = [name.ljust(widths[0])] + [
            c.rjust(w) for c, w in zip(numbers, widths[1:], strict=True)
        ]
        lines.append("  " + "  ".join(cells))
    return lines


def _pct(rate: float | None) -> str:
    return "-" if rate is None else f"{rate:.1%}"


def _interval(bounds: Sequence[float]) -> str:
    return f"{bounds[0]:.1%} - {bounds[1]:.1%}"


def _num(x: float) -> str:
    return f"{x:g}" if float(x).is_integer() else f"{x:.1f}"
