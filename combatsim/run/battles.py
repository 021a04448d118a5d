"""Many battles of one scenario, in memory: ``run_battles`` and the summary of a tally.

A Ctrl-C (``KeyboardInterrupt``) stops the batch without losing what finished: every finished
battle is kept, on one worker or several (a chunk in flight ends early and hands back the
battles it finished). The result is then marked ``interrupted``.

The engine does no I/O; this module turns its plain records into pandas tables and a summary,
and ``combatsim.output`` writes them.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from ..engine.records import BattleResult
from ..errors import check_range
from ..limits import CHUNK_SIZE
from ..output import table
from .backends import make_backend
from .cancel import Cancel
from .chunks import Progress, Runner, check_records
from .study import Settings, Study, Watch
from .tally import Tally

if TYPE_CHECKING:  # pandas is imported where tables are made, never in a worker
    import pandas as pd


@dataclass(frozen=True)
class BatchResult:
    """What a batch produced.

    ``battles``: one row per finished battle (the engine's ``BattleResult.battle`` record), in
    battle-index order. ``combatants``: one row per combatant per finished battle
    (``BattleResult.combatants``), in battle order. Both are empty when ``records`` did not
    keep them. The batch layer does not interpret the columns; the summary comes from each
    result's own ``winner``, ``end_reason`` and ``turns`` (and, for the distributions, the
    combatants' ``side``, ``knocked_out_turn`` and ``damage_taken``).
    ``summary``: a JSON-ready dict (see ``summarize``).
    """

    battles: pd.DataFrame
    combatants: pd.DataFrame
    summary: dict[str, Any]

    @property
    def interrupted(self) -> bool:
        return self.summary["interrupted"]

    @property
    def battles_completed(self) -> int:
        return self.summary["battles_completed"]

    @property
    def table(self) -> pd.DataFrame:
        """The summary as a one-row tidy table (see ``combatsim.output.summary_table``)."""
        from ..output import summary_table

        return summary_table([self.summary])


def run_battles(
    scenario,
    battles: int,
    seed: int | None = None,
    workers: int | None = 1,
    progress: Progress | None = None,
    runner: Runner | None = None,
    chunk_size: int = CHUNK_SIZE,
    records: str = "all",
    scheduler: str | None = None,
    watch: Watch | None = None,
    cancel: Cancel | None = None,
) -> BatchResult:
    """Run battles ``0 .. battles - 1`` of ``scenario`` under root ``seed`` and tabulate them.

    The plain in-memory run of one scenario: no output folder, no journal (``combatsim.simulate``
    is the friendly face with both). ``seed`` None means the scenario's own ``seed``.
    ``workers`` above 1 runs chunks of ``chunk_size`` battles on that many processes (None: all
    cores; the scenario and ``runner`` must then pickle: module-level functions and plain
    dataclasses do); ``scheduler`` (a Dask scheduler address) runs them on a Dask cluster
    instead. ``progress(done, total)`` and ``watch(update)`` are called after each chunk;
    ``cancel`` stops the run early (see ``Study``). ``runner`` defaults to
    ``combatsim.engine.run_battle``. ``records``: ``"all"`` keeps both tables, ``"battles"``
    only ``battles``, ``"none"`` neither (memory then stays flat however many battles run).
    """
    check_range("battles", battles, 1)
    if workers is not None:
        check_range("workers", workers, 1)
    check_range("chunk_size", chunk_size, 1)
    check_records(records)
    root_seed = scenario.seed if seed is None else seed
    check_range("seed", root_seed, 0)
    settings = Settings(root_seed, battles, chunk_size=chunk_size, records=records)
    study = Study(
        [scenario], settings, default_runner(runner), progress=progress, watch=watch, cancel=cancel
    )
    tasks = -(-battles // chunk_size)
    with make_backend(workers, scheduler, tasks=tasks) as backend:
        complete = study.evaluate(backend)
    return BatchResult(
        battles=table(study.rows(0, "battles")),
        combatants=table(study.rows(0, "combatants")),
        summary=summarize(study.tally(0), scenario, root_seed, battles, not complete),
    )


def default_runner(runner: Runner | None = None) -> Runner:
    """``runner``, or the engine's ``run_battle`` (imported late: the engine pulls in simpy)."""
    if runner is None:
        from ..engine import run_battle

        return run_battle
    return runner


def summarize(
    tally: Tally | Sequence[BattleResult],
    scenario,
    seed: int,
    requested: int,
    interrupted: bool,
) -> dict[str, Any]:
    """The JSON-ready summary of the finished battles (a ``Tally``, or the results themselves).

    Keys: ``scenario``, ``source``, ``system``, ``seed``, ``battles_requested``,
    ``battles_completed``, ``interrupted``; ``sides`` (per side name, in scenario order:
    ``wins``, ``win_rate``, ``ci95``) and ``side_order`` (the names in scenario order, which
    ``summary.json``'s sorted keys lose); ``draws`` (``count``, ``rate``, ``ci95``: battles whose
    ``winner`` is None); ``turns`` (``mean``, ``median``, ``p10``, ``p90``, ``max``);
    ``end_reasons`` (count per reason); ``casualties`` (a list, per side, combatant and copy:
    ``side``, ``who``, ``level``, ``battles``, ``down``/``dead`` battle counts with
    ``down_rate``/``down_ci95`` and ``dead_rate``/``dead_ci95``; see ``Tally``; None when the
    records lack ``standing`` or ``status``); ``distributions``: ``turns`` (battles per length in
    turns, from 0), ``standing`` (per side: ``fighters`` and ``by_turn``, fighters still up at
    the end of each turn from 0 to the turn limit, summed over battles) and ``damage_taken``
    (per side: combatants per boxes of damage taken, from 0); the last two are None when the
    records lack what they need. Rates are None and intervals [0, 1] when no battle finished.
    Intervals are 95% Wilson score intervals. Nothing here depends on how the batch was run
    (workers, backend, chunks, time).
    """
    if not isinstance(tally, Tally):
        tally = Tally.of(scenario, tally)
    return {
        "scenario": scenario.name,
        "source": str(scenario.source),
        "system": scenario.system.name,
        "seed": int(seed),
        "battles_requested": int(requested),
        "interrupted": bool(interrupted),
        **tally.outcomes(),
    }
