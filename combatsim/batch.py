"""Many battles of one scenario: run them (in chunks, on one or several processes), tabulate them.

Battle ``i`` of a root seed draws only from its own stream (``combatsim.rng.battle_rng``), so
the tables are the same, row for row, whatever the worker count or chunk size: chunks only
decide how work is handed out and how often progress is reported. Results are assembled in
battle-index order.

A Ctrl-C (``KeyboardInterrupt``) stops the batch without losing what finished: on one worker
every finished battle is kept; on several, every finished chunk (a chunk in flight is lost
with the worker running it). The result is then marked ``interrupted``.

The engine does no I/O; this layer turns its plain records into pandas tables and a summary,
and ``combatsim.output`` writes them.
"""

from __future__ import annotations

import signal
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from dataclasses import dataclass
from numbers import Integral
from typing import Any

import pandas as pd

from .engine.records import BattleResult
from .errors import check_range
from .stats import describe_turns, rate_with_interval

CHUNK_SIZE = 250

Runner = Callable[..., BattleResult]  # runner(scenario, root_seed, index) -> BattleResult
Progress = Callable[[int, int], None]  # progress(battles_done, battles_total)


@dataclass(frozen=True)
class BatchResult:
    """What a batch produced.

    ``battles``: one row per finished battle (the engine's ``BattleResult.battle`` record), in
    battle-index order. ``combatants``: one row per combatant per finished battle
    (``BattleResult.combatants``), in battle order. The batch layer does not interpret the
    columns; the summary comes from each result's own ``winner``, ``end_reason`` and ``turns``.
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


def simulate(
    scenario,
    battles: int,
    seed: int | None = None,
    workers: int = 1,
    progress: Progress | None = None,
    runner: Runner | None = None,
    chunk_size: int = CHUNK_SIZE,
) -> BatchResult:
    """Run battles ``0 .. battles - 1`` of ``scenario`` under root ``seed`` and tabulate them.

    ``seed`` None means the scenario's own ``seed``. ``workers`` above 1 runs chunks of
    ``chunk_size`` battles on that many processes (the scenario and ``runner`` must then
    pickle: module-level functions and plain dataclasses do). ``progress(done, total)`` is
    called after each chunk. ``runner`` defaults to ``combatsim.engine.run_battle``.
    """
    check_range("battles", battles, 1)
    check_range("workers", workers, 1)
    check_range("chunk_size", chunk_size, 1)
    root_seed = scenario.seed if seed is None else seed
    check_range("seed", root_seed, 0)
    if runner is None:
        from .engine import run_battle as runner  # imported late: the engine pulls in simpy

    chunks = [(start, min(start + chunk_size, battles)) for start in range(0, battles, chunk_size)]
    report = progress or (lambda done, total: None)
    if workers == 1 or len(chunks) == 1:
        results, interrupted = _run_here(scenario, runner, root_seed, chunks, report)
    else:
        results, interrupted = _run_on_pool(
            scenario, runner, root_seed, chunks, min(workers, len(chunks)), report
        )

    return BatchResult(
        battles=_table(r.battle for r in results),
        combatants=_table(row for r in results for row in r.combatants),
        summary=summarize(results, scenario, root_seed, battles, interrupted),
    )


def summarize(
    results: Sequence[BattleResult], scenario, seed: int, requested: int, interrupted: bool
) -> dict[str, Any]:
    """The JSON-ready summary of the finished battles.

    Keys: ``scenario``, ``source``, ``system``, ``seed``, ``battles_requested``,
    ``battles_completed``, ``interrupted``; ``sides`` (per side name, in scenario order:
    ``wins``, ``win_rate``, ``ci95``); ``draws`` (``count``, ``rate``, ``ci95``: battles whose
    ``winner`` is None); ``turns`` (``mean``, ``median``, ``p10``, ``p90``, ``max``);
    ``end_reasons`` (count per reason). Rates are None and intervals [0, 1] when no battle
    finished. Intervals are 95% Wilson score intervals. Nothing here depends on how the batch
    was run (workers, chunks, time).
    """
    n = len(results)
    winners = Counter(r.winner for r in results)
    sides = {}
    for side in scenario.sides:
        rate, interval = rate_with_interval(winners[side.name], n)
        sides[side.name] = {"wins": winners[side.name], "win_rate": rate, "ci95": interval}
    draw_rate, draw_interval = rate_with_interval(winners[None], n)
    end_reasons = Counter(str(r.end_reason) for r in results)
    return {
        "scenario": scenario.name,
        "source": str(scenario.source),
        "system": scenario.system.name,
        "seed": int(seed),
        "battles_requested": int(requested),
        "battles_completed": n,
        "interrupted": bool(interrupted),
        "sides": sides,
        "draws": {"count": winners[None], "rate": draw_rate, "ci95": draw_interval},
        "turns": describe_turns([r.turns for r in results]),
        "end_reasons": dict(sorted(end_reasons.items())),
    }


def run_chunk(
    scenario, runner: Runner, root_seed: int, start: int, stop: int
) -> list[BattleResult]:
    """Battles ``start .. stop - 1``: the unit of work a worker process is given."""
    return [runner(scenario, root_seed, index) for index in range(start, stop)]


def _run_here(scenario, runner, root_seed, chunks, report) -> tuple[list[BattleResult], bool]:
    results: list[BattleResult] = []
    total = chunks[-1][1]
    try:
        for start, stop in chunks:
            for index in range(start, stop):
                results.append(runner(scenario, root_seed, index))
            report(len(results), total)
    except KeyboardInterrupt:
        return results, True
    return results, False


def _run_on_pool(
    scenario, runner, root_seed, chunks, workers, report
) -> tuple[list[BattleResult], bool]:
    total = chunks[-1][1]
    finished: dict[int, list[BattleResult]] = {}  # chunk start -> its battles
    pool = ProcessPoolExecutor(max_workers=workers, initializer=_ignore_sigint)
    futures: dict[Future, int] = {}
    interrupted = clean = False
    try:
        futures = {
            pool.submit(run_chunk, scenario, runner, root_seed, start, stop): start
            for start, stop in chunks
        }
        pending = set(futures)
        while pending:
            done, pending = wait(pending, return_when=FIRST_COMPLETED)
            for future in sorted(done, key=futures.__getitem__):
                finished[futures[future]] = future.result()
            report(sum(len(r) for r in finished.values()), total)
        clean = True
    except KeyboardInterrupt:
        interrupted = True
        # Chunks that finished while we were told to stop are kept too.
        for future, start in futures.items():
            if start not in finished and _succeeded(future):
                finished[start] = future.result()
    finally:
        if clean:
            pool.shutdown(wait=True)
        else:
            _stop(pool)
    return [r for start in sorted(finished) for r in finished[start]], interrupted


def _succeeded(future: Future) -> bool:
    return future.done() and not future.cancelled() and future.exception() is None


def _stop(pool: ProcessPoolExecutor) -> None:
    """Drop queued chunks and end the workers now, rather than wait for the chunks in flight.

    ``ProcessPoolExecutor`` has no public way to end running workers before Python 3.14
    (``terminate_workers``), so this reads its private ``_processes`` map. Were that map gone,
    nothing would be terminated: the chunks in flight would only be waited for at exit.
    """
    processes = list((getattr(pool, "_processes", None) or {}).values())
    pool.shutdown(wait=False, cancel_futures=True)
    for process in processes:
        if process.is_alive():
            process.terminate()
    for process in processes:
        process.join()


def _ignore_sigint() -> None:
    # Ctrl-C reaches the whole process group; only the parent decides what to keep.
    signal.signal(signal.SIGINT, signal.SIG_IGN)


def _table(rows: Iterable[dict[str, Any]]) -> pd.DataFrame:
    """A DataFrame of record dicts in order; integer columns with gaps stay integers.

    pandas turns a column of ints and Nones into floats (3 -> 3.0 in the CSV); such a column
    becomes the nullable ``Int64`` instead, so the files show what the engine recorded.
    """
    records = list(rows)
    frame = pd.DataFrame.from_records(records)
    for column in frame.columns:
        if frame[column].dtype.kind == "f" and all(
            isinstance(r.get(column), Integral | None) and not isinstance(r.get(column), bool)
            for r in records
        ):
            frame[column] = frame[column].astype("Int64")
    return frame
