"""Runs of a chain through the run layer, and what they answer: ``run_chain_study``.

The chain and the same chain with every fight fresh are two variants of one ``Study``, run by
``run_chain`` on any backend; run ``i`` of both draws from the same streams. With ``out`` it
writes ``summary.json`` and the tidy tables (``encounters``, ``casualties``, ``members``,
``resources``, each ``.csv`` and ``.parquet``) and journals as it goes for ``resume``.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pandas as pd

from ..output import SUMMARY_JSON, table, write_frame, write_summary
from ..run import Options, holds_folder
from ..sweeps.results import remove_stale, write_records
from .chain import Chain
from .loader import load_chain
from .runner import run_chain
from .summary import (
    casualty_rows,
    chain_summary,
    encounter_rows,
    format_chain,
    member_rows,
    resource_rows,
)

TABLES = ("encounters", "casualties", "members", "resources")


@dataclass
class ChainResult:
    """What runs of a chain answer: ``summary`` (also ``summary.json``), the tidy tables by
    name (``encounters``, ``casualties``, ``members``, ``resources``; each also a ``.csv``
    and ``.parquet``), the files written and whether the run finished."""

    summary: dict[str, Any]
    tables: dict[str, pd.DataFrame]
    files: list[Path] = field(default_factory=list)
    complete: bool = True

    @property
    def interrupted(self) -> bool:
        return not self.complete

    def text(self) -> str:
        return format_chain(self.summary)

    def __str__(self) -> str:
        return self.text()


def load(chain) -> Chain:
    """A chain file (a ``str`` or path) loaded, or a ``Chain`` as it is."""
    return load_chain(os.fspath(chain)) if isinstance(chain, str | os.PathLike) else chain


@holds_folder
def run_chain_study(chain, **options: Any) -> ChainResult:
    """Run ``chain`` (a chain file or a loaded ``Chain``) ``battles`` times, and as many
    times with every fight fresh. ``options``: see ``combatsim.run.Options`` (``runner`` is
    the chain's own; ``precision`` stops on the chance to complete the run; ``records``:
    ``battles`` keeps a row per run, ``all`` also a row per carried fighter and run, how it
    ended it and what it had left, in ``records/0000`` (carried over) and ``records/0001``
    (every fight fresh))."""
    loaded = load(chain)
    opts = Options(**{**options, "runner": run_chain})
    root = opts.root_seed(loaded)
    study = opts.study([loaded, loaded.freshened()], "chain", root)
    complete = opts.evaluate(study)
    summary = chain_summary(
        loaded,
        study.tally(0),  # type: ignore[arg-type]
        study.tally(1),  # type: ignore[arg-type]
        root,
        study.requested(0),
        not complete,
        study.precision_report(),
    )
    rows = {
        "encounters": encounter_rows(summary),
        "casualties": casualty_rows(summary),
        "members": member_rows(summary),
        "resources": resource_rows(summary),
    }
    result = ChainResult(summary, {k: table(v) for k, v in rows.items()}, complete=complete)
    if study.out is None:
        return result
    folder = study.out
    for name in TABLES:
        if not result.tables[name].empty:
            result.files += write_frame(result.tables[name], folder, name)
    result.files += write_records(study, folder, [0, 1])
    result.files.append(write_summary(summary, folder / SUMMARY_JSON))
    remove_stale(folder, result.files)
    if complete:
        study.cleanup()
    else:
        study.close()
    return result
