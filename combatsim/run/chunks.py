"""Chunks of work: what a worker is given (a ``Job`` once, then ``Task`` s) and hands back.

Battle ``i`` of a root seed draws only from its own stream (``combatsim.rng.battle_rng``), so
every number is the same, row for row, whatever the worker count, backend or chunk size:
chunks only decide how work is handed out and how often progress is reported. Every variant of
a sweep uses the same root seed, so battle ``i`` of two variants starts from the same dice
(common random numbers). Per-battle records are kept only when asked for (``records``).

This module is what a worker process imports to run a task; it must stay free of the table
and plotting libraries (``tests/test_imports.py``).
"""

from __future__ import annotations

import contextlib
import gc
import os
from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any

from ..engine.records import BattleResult
from ..errors import UsageError
from ..limits import RECORDS
from .tally import Tally

Runner = Callable[..., BattleResult]  # runner(scenario, root_seed, index) -> BattleResult
Progress = Callable[[int, int], None]  # progress(battles_done, battles_total)


@dataclass(frozen=True)
class Job:
    """What every chunk of a run shares: the variants, how to run a battle, each variant's root
    seed (the same for all variants of a sweep) and which records to keep. Shipped to each
    worker once."""

    scenarios: Sequence[Any]  # a tuple, or variants built on demand (see ``one_at_a_time``)
    runner: Runner
    seeds: tuple[int, ...]
    records: str = "all"
    # What a task of several variants counts for each battle index: a function of the
    # variants' results returning the keys to count (see ``Chunk.pairs``). None: the pair of
    # winners of a two-variant task, as ``compare`` tallies them.
    pairing: Callable[[Sequence[BattleResult]], Iterable[Any]] | None = None


@dataclass(frozen=True)
class Task:
    """Battles ``start .. stop - 1`` of the listed variants. With two variants the battles are
    paired: battle ``i`` of both runs in the same task and the pair's winners are tallied."""

    variants: tuple[int, ...]
    start: int
    stop: int

    @property
    def size(self) -> int:
        return (self.stop - self.start) * len(self.variants)


@dataclass
class Chunk:
    """What a task produced: a tally and (if kept) record rows per variant, and for a paired
    task the count of each pair of winners (``(winner in A, winner in B)``, None for a draw),
    or of the keys the job's ``pairing`` returns for each battle index.
    ``stop`` is below ``task.stop`` when the task was interrupted part way."""

    task: Task
    stop: int
    tallies: list[Tally]
    battles: list[list[dict[str, Any]]] | None
    combatants: list[list[dict[str, Any]]] | None
    pairs: Counter | None = None

    @property
    def done(self) -> int:
        return (self.stop - self.task.start) * len(self.task.variants)


# Young objects between two collections while battles run (Python's default is 700): a big
# battle's memos live for a few actions, and most are gone before 10,000 are made, so they are
# never visited at all.
YOUNG = 10_000


@contextlib.contextmanager
def settled_heap() -> Iterator[None]:
    """While battles run in this process (a backend's round), leave the objects alive before
    them (the program, its libraries, the scenario) out of the garbage collector's passes
    (``gc.freeze``), and collect the young objects less often (``YOUNG``); both undone after.

    A big battle keeps thousands of objects alive for its whole length, so they reach the
    oldest generation, and every so often a full pass visits every object of the process:
    pandas and the rest of what is loaded included. In a battle of 128 against 128 those passes
    and the young ones cost about a tenth of the time. Garbage the battles make is collected as
    before. The collector is left as it is when it is off (or its threshold is 0), or when
    objects are frozen already: by the program (unfreezing would undo its freeze) or by a run
    in another thread (which puts everything back when it ends). Asking how many are frozen
    walks them all, so this is done once a round, not once a chunk."""
    if not gc.isenabled() or not gc.get_threshold()[0] or gc.get_freeze_count():
        yield
        return
    previous = gc.get_threshold()
    settle_worker_heap()
    try:
        yield
    finally:
        gc.set_threshold(*previous)
        gc.unfreeze()


def settle_worker_heap() -> None:
    """What ``settled_heap`` does, for the whole life of a worker process of a run: what it
    was started with (the run's job, and a forked worker's copy of its parent) is left out of
    every collection, and young objects are collected less often (a threshold of 0, collection
    off, stays 0)."""
    gc.freeze()
    threshold = gc.get_threshold()
    if threshold[0]:
        gc.set_threshold(max(YOUNG, threshold[0]), *threshold[1:])


class ChunkBuilder:
    """Runs a task battle by battle; what it holds is always a consistent, finished prefix."""

    def __init__(self, job: Job, task: Task):
        self.job, self.task = job, task
        keep_battles = job.records in ("battles", "all")
        keep_combatants = job.records == "all"
        self.chunk = Chunk(
            task,
            task.start,
            [empty_tally(job.scenarios, v) for v in task.variants],
            [[] for _ in task.variants] if keep_battles else None,
            [[] for _ in task.variants] if keep_combatants else None,
            Counter() if len(task.variants) >= 2 else None,
        )

    def run(self, stop: Callable[[], bool] | None = None) -> Chunk:
        """Run the task's battles; with ``stop``, end early (a shorter chunk of the battles
        finished) once ``stop()`` is true, so an interrupted worker hands back its work."""
        job, chunk = self.job, self.chunk
        key = getattr(job.pairing, "key", None) or (lambda result: result)
        if one_at_a_time(job.scenarios) and job.pairing is not None:
            return self._run_variant_by_variant(job.pairing, key, stop)
        for index in range(self.task.start, self.task.stop):
            if stop is not None and stop():
                break
            results = [
                job.runner(job.scenarios[v], job.seeds[v], index) for v in self.task.variants
            ]
            for k, result in enumerate(results):
                self._keep(k, result)
            if chunk.pairs is not None:
                if job.pairing is not None:
                    chunk.pairs.update(job.pairing([key(r) for r in results]))
                else:
                    chunk.pairs[(results[0].winner, results[1].winner)] += 1
            chunk.stop = index + 1
        return chunk

    def _run_variant_by_variant(
        self,
        pairing: Callable[[Sequence[Any]], Iterable[Any]],
        key: Callable[[BattleResult], Any],
        stop: Callable[[], bool] | None,
    ) -> Chunk:
        """The task's battles for one variant after another, so that only one variant is
        built at a time (``explain``'s variants are made on demand: all of them at once would
        take memory growing with the square of the scenario). Each variant's tally and records
        get its battles in index order, and the pairing the same keys, so the chunk is the one
        the battle-by-battle loop makes. Stopped part way, nothing is finished for every
        variant: the chunk hands back no battle."""
        job, chunk, task = self.job, self.chunk, self.task
        keys: list[list[Any]] = [[] for _ in range(task.start, task.stop)]
        for k, variant in enumerate(task.variants):
            scenario = job.scenarios[variant]
            for index in range(task.start, task.stop):
                if stop is not None and stop():
                    return chunk
                result = job.runner(scenario, job.seeds[variant], index)
                self._keep(k, result)
                keys[index - task.start].append(key(result))
            del scenario  # before the next one is built
        if chunk.pairs is not None:  # as in ``run``: a task of one variant pairs nothing
            for each in keys:
                chunk.pairs.update(pairing(each))
        chunk.stop = task.stop
        return chunk

    def _keep(self, k: int, result: BattleResult) -> None:
        chunk = self.chunk
        chunk.tallies[k].add(result)
        if chunk.battles is not None:
            chunk.battles[k].append(result.battle)
        if chunk.combatants is not None:
            chunk.combatants[k].extend(result.combatants)


def one_at_a_time(scenarios: Sequence[Any]) -> bool:
    """Whether ``scenarios`` builds each variant when it is asked for (``explain``'s): then
    a variant is asked for once per task, and never all of them at once."""
    return getattr(scenarios, "one_at_a_time", False)


def empty_tally(scenarios: Sequence[Any], variant: int) -> Tally:
    """The empty tally of a variant; a sequence built on demand says it without building, and
    a variant that is not a scenario (a chain of fights) makes its own kind."""
    make = getattr(scenarios, "empty_tally", None)
    if make is not None:
        return make(variant)
    scenario = scenarios[variant]
    own = getattr(scenario, "empty_tally", None)  # a chain of fights counts its own tally
    return own() if own is not None else Tally.empty(scenario)


def run_task(job: Job, task: Task) -> Chunk:
    """Run one task: the unit of work a worker is given."""
    return ChunkBuilder(job, task).run()


def split(variants: tuple[int, ...], start: int, stop: int, chunk_size: int) -> Iterator[Task]:
    """Tasks covering battles ``start .. stop - 1``, cut at multiples of ``chunk_size``."""
    edge = start
    while edge < stop:
        end = min(stop, (edge // chunk_size + 1) * chunk_size)
        yield Task(variants, edge, end)
        edge = end


def default_workers() -> int:
    """All the cores this process may use."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        return os.cpu_count() or 1


def check_records(records: str) -> str:
    if records not in RECORDS:
        raise UsageError("records", records, "one of " + ", ".join(RECORDS))
    return records
