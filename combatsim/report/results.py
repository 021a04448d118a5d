"""What a report reads: the results folder's summary and its rows, and how values are shown."""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..errors import UsageError
from ..output import SUMMARY_JSON
from .figures import wrap

AS_WRITTEN = "as written"


@dataclass
class Row:
    """One row of the results (a scenario, a variant, A or B): label, varied values, summary."""

    label: str
    values: dict[str, Any]
    summary: dict[str, Any]

    @property
    def baseline(self) -> bool:
        return bool(self.summary.get("baseline"))

    def title(self, width: int = 40) -> str:
        """The row's name for a panel title: wrapped, never cut."""
        return wrap(self.label, width)


def load_results(folder: str | os.PathLike) -> tuple[dict[str, Any], list[Row], list[str]]:
    """The summary, one ``Row`` per variant, and the varied fields' names."""
    path = Path(folder) / SUMMARY_JSON
    if not path.exists():
        raise UsageError("DIR", str(folder), "a results folder with a summary.json in it")
    summary = json.loads(path.read_text(encoding="utf-8"))
    kind = summary.get("kind", "run")
    if kind == "run":
        return summary, [Row(summary["scenario"], {}, summary)], []
    if kind == "runs":
        rows = [Row(s["scenario"], {"scenario": s["scenario"]}, s) for s in summary["runs"]]
        return summary, rows, ["scenario"]
    if kind == "compare":
        rows = []
        for key in ("a", "b"):
            s = summary[key]
            label = key.upper() + (f": {s['changes']}" if s.get("changes") else "")
            rows.append(Row(label, {"variant": key.upper()}, s))
        return summary, rows, ["variant"]
    if kind in ("sweep", "balance"):
        varies = summary["vary"] if kind == "sweep" else [summary["vary"]]
        names = [v["name"] for v in varies]
        rows = []
        for s in summary["variants"]:
            known = [k for k in names if not is_missing(s["values"][k])]
            text = ", ".join(f"{k}={value_text(s['values'][k])}" for k in known)
            if s.get("baseline"):
                text = f"{AS_WRITTEN}: {text}" if text else f"the scenario {AS_WRITTEN}"
            rows.append(Row(text, s["values"], s))
        return summary, rows, names
    raise UsageError("DIR", str(folder), "the results of run, sweep, compare or balance")


def side_counts(rows: list[Row]) -> dict[str, int]:
    counts: dict[str, int] = {}
    for r in rows:
        for side in row_sides(r):
            counts[side] = counts.get(side, 0) + 1
    return counts


def outcome_rates(summary: dict, sides: list[str]) -> list[tuple[str, float, float, float]]:
    """(name, rate, low, high) for each side of this row that has a rate, then the draws."""
    out = []
    for side in sides:
        stats = summary["sides"].get(side)
        if stats is None or stats["win_rate"] is None:
            continue
        out.append((side, stats["win_rate"], *stats["ci95"]))
    draws = summary["draws"]
    if draws["rate"] is not None:
        out.append(("draws", draws["rate"], *draws["ci95"]))
    return out


def row_sides(row: Row) -> list[str]:
    return list(row.summary.get("side_order") or row.summary["sides"])


def aim_of(summary):
    """What a balance search aimed at (``summary["aim"]``; older summaries: a win rate)."""
    from ..sweeps.targets import Aim

    aim = summary.get("aim")
    if aim:
        return Aim(aim["rate"], aim["value"], aim.get("op", "="), aim.get("who"))
    return Aim("win", summary["target"], "=", summary.get("side"))


def aim_text(aim) -> str:
    op = {"=": "", "<=": "at most ", ">=": "at least "}[aim.op]
    return f"{aim.phrase} {op}{aim.value:.0%}"


def off_grid(summary) -> bool:
    return not (summary.get("baseline") or {}).get("in_grid", True)


def is_missing(value: Any) -> bool:
    return value is None or (isinstance(value, float) and value != value)


def value_text(value: Any) -> str:
    """A varied value as a reader wants it: 3 not 3.0; the as-written row's unknown value."""
    if value is None or (isinstance(value, float) and value != value):
        return AS_WRITTEN
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)


def sides_of(rows: list[Row]) -> list[str]:
    """Side names in scenario order (``side_order``; older summaries: as stored)."""
    seen: dict[str, None] = {}
    for r in rows:
        seen.update(dict.fromkeys(row_sides(r)))
    return list(seen)
