"""What every study returns and writes: the ``Result``, its tables and its output folder.

A study (``combatsim.sweeps.api``'s entry points, ``combatsim.sweeps.explain``) ends the same
way: a summary per variant (``variant_summary``), the tidy tables, and with an output folder
``table.csv``/``table.parquet``, ``casualties.csv``, each variant's records and
``summary.json`` (``finish``, ``seal``), the journal removed once the run is complete.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pandas as pd

from ..folder import remove_stale as _remove_stale
from ..output import (
    SUMMARY_JSON,
    casualty_table,
    concat_csv,
    table,
    tidy_table,
    write_casualties,
    write_summary,
    write_table,
)
from ..run import Study
from .fields import Variant

RECORDS_DIR = "records"
DIFFERENCES_CSV = "differences.csv"


@dataclass
class Result:
    """What a run, batch of scenarios, sweep, comparison or balance search produced: the one
    result type of ``combatsim.simulate``, ``run_many``, ``sweep``, ``compare`` and
    ``balance``.

    ``kind``: ``run``, ``runs``, ``sweep``, ``compare`` or ``balance``. ``summary``: JSON-ready
    (also ``summary.json``); ``table``: long form, one row per scenario or variant and side,
    the varied values as snake_case columns (also ``table.csv`` and ``table.parquet``; see
    ``combatsim.output.tidy_table``, and ``wide_table`` for one row per variant);
    ``casualties``: per side, combatant and copy (of each variant), the share of battles it
    ended down and dead (also ``casualties.csv``); ``battles`` /
    ``combatants``: the kept per-battle records in memory (a ``variant`` column first when
    there are several variants), None when not kept or written to files instead; made into a
    table when first read (``Records``), as most callers read only the summary; ``files``:
    what was written; ``complete``: False if the run was interrupted (then ``resume`` can
    finish it); ``extra``: a comparison's ``differences`` table.
    """

    kind: str
    summary: dict[str, Any]
    table: pd.DataFrame
    casualties: pd.DataFrame = field(default_factory=pd.DataFrame)
    files: list[Path] = field(default_factory=list)
    complete: bool = True
    extra: dict[str, Any] = field(default_factory=dict)
    records: dict[str, Any] = field(default_factory=dict, repr=False)

    @property
    def battles(self) -> pd.DataFrame | None:
        return self._table("battles")

    @battles.setter
    def battles(self, value: pd.DataFrame | Records | None) -> None:
        self.records["battles"] = value

    @property
    def combatants(self) -> pd.DataFrame | None:
        return self._table("combatants")

    @combatants.setter
    def combatants(self, value: pd.DataFrame | Records | None) -> None:
        self.records["combatants"] = value

    def _table(self, kind: str) -> pd.DataFrame | None:
        kept = self.records.get(kind)
        if isinstance(kept, Records):
            kept = self.records[kind] = kept.table()
        return kept

    @property
    def interrupted(self) -> bool:
        return not self.complete

    def text(self, side: str | None = None) -> str:
        """The table and verdict lines the command line prints for this run or study
        (``combatsim.sweeps.verdicts``): a balance's closest value and whether it holds the
        target, a comparison's verdict with its p-value, explain's ranked levers."""
        from .verdicts import text

        return text(self, side)

    def __str__(self) -> str:
        return self.text()

    def __repr__(self) -> str:
        n = self.summary.get("battles_completed", 0)
        head = f"<combatsim result: {self.kind}, {n} battles"
        head += ", interrupted>" if self.interrupted else ">"
        return f"{head}\n{self.text()}"


StudyResult = Result  # the name before the five entry points shared it


@dataclass(frozen=True)
class Records:
    """Kept records not yet made into a table: ``parts`` pairs a variant's label (None for a
    run of one scenario) with its rows. Building the DataFrame cost a 4v4 run about 20 us a
    battle, a third of what ``simulate`` adds to its battles, for a table most callers never
    read; picklable, so a ``Result`` still is."""

    parts: tuple[tuple[Any, list[dict[str, Any]]], ...]

    def table(self) -> pd.DataFrame:
        """The rows as ``output.table`` makes them, with a ``variant`` column first where the
        parts are labelled."""
        if len(self.parts) == 1 and self.parts[0][0] is None:
            return table(self.parts[0][1])
        frames = []
        for label, rows in self.parts:
            part = table(rows)
            if not part.empty:
                part.insert(0, "variant", label)
                frames.append(part)
        return pd.concat(frames, ignore_index=True) if frames else pd.DataFrame()


def about(scenario) -> dict[str, Any]:
    """What names a scenario (or a chain of encounters) in a summary: its name, file and rule
    system, and for a chain the side it carries."""
    system = scenario.system
    named = {
        "scenario": scenario.name,
        "source": str(scenario.source),
        "system": system if isinstance(system, str) else system.name,
    }
    if hasattr(scenario, "encounters"):
        named["chain"] = {"side": scenario.side, "encounters": len(scenario.encounters)}
    return named


def variant_summary(study: Study, i: int, variant: Variant) -> dict[str, Any]:
    scenario = variant.scenario
    return {
        "variant": i,
        "values": dict(variant.values),
        **about(scenario),
        "seed": study.seeds[i],
        "battles_requested": study.requested(i),
        **study.tally(i).outcomes(),
    }


def record_kinds(records: str) -> tuple[str, ...]:
    """The record tables a ``records`` setting keeps: ``none``, ``battles`` or ``all``."""
    return {"none": (), "battles": ("battles",), "all": ("battles", "combatants")}[records]


def finish(
    study: Study,
    kind: str,
    summary: dict[str, Any],
    summaries: list[dict[str, Any]],
    labels: list[dict[str, Any]],
    variants: list[int],
    complete: bool,
) -> Result:
    frame = tidy_table(summaries, labels)
    casualties = casualty_table(summaries, labels)
    result = Result(kind, summary, frame, casualties=casualties, complete=complete)
    records = study.settings.records
    if study.out is None:
        for kind_ in record_kinds(records):
            parts = zip(labels, variants, strict=True)
            rows = tuple((label["variant"], list(study.rows(i, kind_))) for label, i in parts)
            result.records[kind_] = Records(rows)
        return result
    folder = study.out
    result.files += write_table(frame, folder)
    result.files += write_casualties(summaries, folder, labels)
    result.files += write_records(study, folder, variants)
    # compare adds its differences first, then removes what is stale itself
    return seal(study, folder, result, summary, complete, stale=kind != "compare")


def write_records(study: Study, folder: Path, variants: Sequence[int]) -> list[Path]:
    """Each variant's records, as the study keeps them, in ``records/NNNN/<kind>.csv``."""
    files = []
    for kind in record_kinds(study.settings.records):
        for i in variants:
            target = folder / RECORDS_DIR / f"{i:04d}" / f"{kind}.csv"  # folders made as needed
            files.append(concat_csv(study.record_files(i, kind), target))
    return files


def seal(
    study: Study,
    folder: Path,
    result: Result,
    summary: dict[str, Any],
    complete: bool,
    stale: bool = True,
) -> Result:
    """The last step of every study written to a folder: ``summary.json``, files of an
    earlier run that this one did not write removed (``stale``), and the journal deleted
    when the run is complete, else closed so that ``--resume`` can finish it."""
    result.files.append(write_summary(summary, folder / SUMMARY_JSON))
    if stale:
        remove_stale(folder, result.files)
    if complete:
        study.cleanup()
    else:
        study.close()
    return result


def remove_stale(folder: Path, written: Sequence[Path]) -> None:
    """Remove what an earlier run wrote in ``folder`` (its manifest lists it) and this run did
    not write again; nothing else is ever removed (``combatsim.folder.remove_stale``)."""
    _remove_stale(folder, written)
