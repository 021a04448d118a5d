"""Many battles of one scenario, or of several variants of it: run them in chunks, tally them.

Battle ``i`` of a root seed draws only from its own stream (``combatsim.rng.battle_rng``), so
every number here is the same, row for row, whatever the worker count, backend or chunk size:
chunks only decide how work is handed out and how often progress is reported. Every variant of
a sweep uses the same root seed, so battle ``i`` of two variants starts from the same dice
(common random numbers).

Results are aggregated as they come in: a ``Tally`` holds integer counts only (wins, end
reasons, a histogram of battle lengths, fighters standing after each turn, a histogram of
damage taken, battles in which each side, group and combatant ended down or dead), so merging
tallies is exact and order-free, and memory does not grow with the number of battles.
Per-battle records are kept only when asked for (``records``).

A Ctrl-C (``KeyboardInterrupt``) stops the batch without losing what finished: every finished
battle is kept, on one worker or several (a chunk in flight ends early and hands back the
battles it finished). The result is then marked ``interrupted``.

The engine does no I/O; this layer turns its plain records into pandas tables and a summary,
and ``combatsim.output`` writes them.
"""

from __future__ import annotations

import os
from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from numbers import Integral
from typing import TYPE_CHECKING, Any

from .engine.records import BattleResult
from .errors import UsageError, check_range
from .stats import describe_turn_counts, rate_with_interval

if TYPE_CHECKING:  # pandas is imported where tables are made, never in a worker
    import pandas as pd

CHUNK_SIZE = 250
RECORDS = ("none", "battles", "all")  # what per-battle records a run keeps

Runner = Callable[..., BattleResult]  # runner(scenario, root_seed, index) -> BattleResult
Progress = Callable[[int, int], None]  # progress(battles_done, battles_total)


# --- tallies ----------------------------------------------------------------------------------


@dataclass
class Tally:
    """Everything a summary needs from a set of battles of one scenario, as integer counts.

    ``wins[side]``, ``draws`` (battles whose ``winner`` is None), ``end_reasons``;
    ``turns[t]``: battles that lasted ``t`` turns; ``standing[side][t]``: fighters of the side
    still able to act at the end of turn ``t`` (turn 0 is the start), summed over battles, the
    final state carried on to the turn limit; ``damage[side][b]``: combatants of the side that
    took ``b`` boxes of damage. ``standing`` and ``damage`` are None when the engine's
    combatant rows lack ``knocked_out_turn`` or ``damage_taken``.

    ``casualties[k]`` is ``[down, dead]`` for ``entries[k]`` (see ``casualty_entries``):
    battles in which at least one of the entry's fighters ended out of the fight (the row's
    ``standing`` is false: unconscious, dying, dead or fled) and in which at least one ended
    dead (``status`` "dead"). None when the rows lack ``standing`` or ``status``.
    """

    sides: tuple[str, ...]
    fighters: tuple[int, ...]
    turn_limit: int
    battles: int = 0
    wins: dict[str, int] = field(default_factory=dict)
    draws: int = 0
    end_reasons: Counter = field(default_factory=Counter)
    turns: list[int] = field(default_factory=list)
    standing: dict[str, list[int]] | None = None
    damage: dict[str, list[int]] | None = None
    entries: tuple[CasualtyEntry, ...] = ()
    casualties: list[list[int]] | None = None

    @classmethod
    def empty(cls, scenario) -> Tally:
        sides = tuple(side.name for side in scenario.sides)
        entries = casualty_entries(scenario)
        return cls(
            sides=sides,
            fighters=tuple(len(side.fighters) for side in scenario.sides),
            turn_limit=int(scenario.turn_limit),
            wins=dict.fromkeys(sides, 0),
            standing={side: [0] * (int(scenario.turn_limit) + 1) for side in sides},
            damage={side: [] for side in sides},
            entries=entries,
            casualties=[[0, 0] for _ in entries],
        )

    @classmethod
    def of(cls, scenario, results: Iterable[BattleResult]) -> Tally:
        tally = cls.empty(scenario)
        for result in results:
            tally.add(result)
        return tally

    def add(self, result: BattleResult) -> None:
        self.battles += 1
        if result.winner is None:
            self.draws += 1
        elif result.winner in self.wins:
            self.wins[result.winner] += 1
        self.end_reasons[str(result.end_reason)] += 1
        _bump(self.turns, int(result.turns))
        rows = result.combatants
        if self.standing is not None:
            if not rows or any("knocked_out_turn" not in row for row in rows):
                self.standing = None
            else:
                for row in rows:
                    curve = self.standing.get(row["side"])
                    if curve is None:
                        continue
                    out = row["knocked_out_turn"]
                    up_to = len(curve) if out is None else min(int(out), len(curve))
                    for t in range(up_to):
                        curve[t] += 1
        if self.damage is not None:
            if not rows or any(not isinstance(row.get("damage_taken"), Integral) for row in rows):
                self.damage = None
            else:
                for row in rows:
                    if row["side"] in self.damage:
                        _bump(self.damage[row["side"]], int(row["damage_taken"]))
        if self.casualties is not None:
            if not rows or any("standing" not in row or "status" not in row for row in rows):
                self.casualties = None
            else:
                self._add_casualties(rows)

    def _add_casualties(self, rows: list[dict[str, Any]]) -> None:
        down: set[tuple[str, str]] = set()
        dead: set[tuple[str, str]] = set()
        for row in rows:
            key = (row["side"], row["name"])
            if not row["standing"]:
                down.add(key)
            if row["status"] == "dead":
                dead.add(key)
        if not down:
            return
        for entry, counts in zip(self.entries, self.casualties, strict=True):
            if not down.isdisjoint(entry.members):
                counts[0] += 1
                if not dead.isdisjoint(entry.members):
                    counts[1] += 1

    def merge(self, other: Tally) -> Tally:
        """Add ``other``'s counts to this tally (in place) and return it."""
        known = self.entries and other.entries  # a tally from an old journal has none
        if (other.sides, other.fighters) != (self.sides, self.fighters) or (
            known and other.entries != self.entries
        ):
            raise ValueError("tallies of different scenarios cannot be merged")
        self.battles += other.battles
        for side in self.sides:
            self.wins[side] += other.wins[side]
        self.draws += other.draws
        self.end_reasons.update(other.end_reasons)
        _add_into(self.turns, other.turns)
        if other.battles:  # a tally lacking a distribution makes the merged one lack it too
            if self.standing is None or other.standing is None:
                self.standing = None
            else:
                for side in self.sides:
                    _add_into(self.standing[side], other.standing[side])
            if self.damage is None or other.damage is None:
                self.damage = None
            else:
                for side in self.sides:
                    _add_into(self.damage[side], other.damage[side])
            if self.casualties is None or other.casualties is None or not known:
                self.casualties = None
            else:
                for mine, theirs in zip(self.casualties, other.casualties, strict=True):
                    mine[0] += theirs[0]
                    mine[1] += theirs[1]
        return self

    def to_json(self) -> dict[str, Any]:
        return {
            "sides": list(self.sides),
            "fighters": list(self.fighters),
            "turn_limit": self.turn_limit,
            "battles": self.battles,
            "wins": dict(self.wins),
            "draws": self.draws,
            "end_reasons": dict(sorted(self.end_reasons.items())),
            "turns": list(self.turns),
            "standing": self.standing,
            "damage": self.damage,
            "entries": [entry.to_json() for entry in self.entries],
            "casualties": self.casualties,
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Tally:
        # A journal written before casualties were counted has neither key: they are unknown.
        return cls(
            sides=tuple(data["sides"]),
            fighters=tuple(data["fighters"]),
            turn_limit=data["turn_limit"],
            battles=data["battles"],
            wins=dict(data["wins"]),
            draws=data["draws"],
            end_reasons=Counter(data["end_reasons"]),
            turns=list(data["turns"]),
            standing=data["standing"],
            damage=data["damage"],
            entries=tuple(CasualtyEntry.from_json(e) for e in data.get("entries", ())),
            casualties=data.get("casualties"),
        )

    def outcomes(self) -> dict[str, Any]:
        """The summary's statistics: ``battles_completed``, ``sides``, ``draws``, ``turns``,
        ``end_reasons``, ``casualties`` and ``distributions`` (see ``summarize``)."""
        n = self.battles
        sides = {}
        for side in self.sides:
            rate, interval = rate_with_interval(self.wins[side], n)
            sides[side] = {"wins": self.wins[side], "win_rate": rate, "ci95": interval}
        draw_rate, draw_interval = rate_with_interval(self.draws, n)
        standing = None
        if self.standing is not None:
            standing = {
                side: {"fighters": count, "by_turn": list(self.standing[side])}
                for side, count in zip(self.sides, self.fighters, strict=True)
            }
        return {
            "battles_completed": n,
            "side_order": list(self.sides),  # JSON readers sort "sides"; this keeps the order
            "sides": sides,
            "draws": {"count": self.draws, "rate": draw_rate, "ci95": draw_interval},
            "turns": describe_turn_counts(self.turns),
            "end_reasons": dict(sorted(self.end_reasons.items())),
            "casualties": self.casualty_rates(),
            "distributions": {
                "turns": list(self.turns),
                "standing": standing,
                "damage_taken": None if self.damage is None else dict(self.damage),
            },
        }

    def casualty_rates(self) -> list[dict[str, Any]] | None:
        """Per entry: ``side``, ``who``, ``level``, ``battles``, ``down`` and ``dead`` (battle
        counts), ``down_rate``, ``down_ci95``, ``dead_rate``, ``dead_ci95`` (95% Wilson)."""
        if self.casualties is None:
            return None
        n = self.battles
        out = []
        for entry, (down, dead) in zip(self.entries, self.casualties, strict=True):
            down_rate, down_ci = rate_with_interval(down, n)
            dead_rate, dead_ci = rate_with_interval(dead, n)
            out.append(
                {
                    "side": entry.side,
                    "who": entry.who,
                    "level": entry.level,
                    "battles": n,
                    "down": down,
                    "down_rate": down_rate,
                    "down_ci95": down_ci,
                    "dead": dead,
                    "dead_rate": dead_rate,
                    "dead_ci95": dead_ci,
                }
            )
        return out


@dataclass(frozen=True)
class CasualtyEntry:
    """Whose casualties a summary reports: a side, a combatant (or a group of copies made by
    one member entry with ``count``), or one copy. ``members``: the ``(side, name)`` of its
    fighters; it is down in a battle when at least one of them ends down."""

    side: str
    who: str
    level: str  # "side", "combatant" or "copy"
    members: frozenset[tuple[str, str]]

    def to_json(self) -> list:
        return [self.side, self.who, self.level, sorted(list(m) for m in self.members)]

    @classmethod
    def from_json(cls, data: list) -> CasualtyEntry:
        side, who, level, members = data
        return cls(side, who, level, frozenset((s, n) for s, n in members))


def casualty_entries(scenario) -> tuple[CasualtyEntry, ...]:
    """Each side, then its combatants in scenario order: a member with several copies is one
    entry named as the member (``Guard``) followed by one per copy (``Guard 1``, ``Guard 2``,
    the names in ``combatants.csv``). Fighters of a side sharing a name are one entry."""
    entries: dict[tuple[str, str, str], CasualtyEntry] = {}

    def add(side: str, who: str, level: str, members) -> None:
        old = entries.get((side, who, level))
        members = frozenset(members) | (old.members if old is not None else frozenset())
        entries[(side, who, level)] = CasualtyEntry(side, who, level, members)

    for side in scenario.sides:
        everyone = [(side.name, f.name) for f in side.fighters]
        add(side.name, side.name, "side", everyone)
        for fighter in side.fighters:
            group = getattr(fighter, "group", None)
            if group is not None:
                copies = [(side.name, f.name) for f in side.fighters if f.group == group]
                if (side.name, group, "combatant") not in entries:
                    add(side.name, group, "combatant", copies)
                add(side.name, fighter.name, "copy", [(side.name, fighter.name)])
            else:
                add(side.name, fighter.name, "combatant", [(side.name, fighter.name)])
    return tuple(entries.values())


def _bump(histogram: list[int], value: int) -> None:
    if value >= len(histogram):
        histogram.extend([0] * (value + 1 - len(histogram)))
    histogram[value] += 1


def _add_into(target: list[int], other: Sequence[int]) -> None:
    if len(other) > len(target):
        target.extend([0] * (len(other) - len(target)))
    for i, count in enumerate(other):
        target[i] += count


# --- chunks of work ---------------------------------------------------------------------------


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
        if one_at_a_time(job.scenarios) and job.pairing is not None:
            return self._run_variant_by_variant(stop)
        key = getattr(job.pairing, "key", None) or (lambda result: result)
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

    def _run_variant_by_variant(self, stop: Callable[[], bool] | None) -> Chunk:
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
                keys[index - task.start].append(job.pairing.key(result))
            del scenario  # before the next one is built
        for each in keys:
            chunk.pairs.update(job.pairing(each))
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
    """The empty tally of a variant; a sequence built on demand says it without building."""
    make = getattr(scenarios, "empty_tally", None)
    return make(variant) if make is not None else Tally.empty(scenarios[variant])


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


# --- one scenario, in memory ------------------------------------------------------------------


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
        from .output import summary_table

        return summary_table([self.summary])


def simulate(
    scenario,
    battles: int,
    seed: int | None = None,
    workers: int | None = 1,
    progress: Progress | None = None,
    runner: Runner | None = None,
    chunk_size: int = CHUNK_SIZE,
    records: str = "all",
    scheduler: str | None = None,
) -> BatchResult:
    """Run battles ``0 .. battles - 1`` of ``scenario`` under root ``seed`` and tabulate them.

    ``seed`` None means the scenario's own ``seed``. ``workers`` above 1 runs chunks of
    ``chunk_size`` battles on that many processes (None: all cores; the scenario and
    ``runner`` must then pickle: module-level functions and plain dataclasses do);
    ``scheduler`` (a Dask scheduler address) runs them on a Dask cluster instead.
    ``progress(done, total)`` is called after each chunk. ``runner`` defaults to
    ``combatsim.engine.run_battle``. ``records``: ``"all"`` keeps both tables, ``"battles"``
    only ``battles``, ``"none"`` neither (memory then stays flat however many battles run).
    """
    from .backends import make_backend
    from .sweeps.study import Settings, Study

    check_range("battles", battles, 1)
    if workers is not None:
        check_range("workers", workers, 1)
    check_range("chunk_size", chunk_size, 1)
    check_records(records)
    root_seed = scenario.seed if seed is None else seed
    check_range("seed", root_seed, 0)
    if runner is None:
        from .engine import run_battle as runner  # imported late: the engine pulls in simpy

    settings = Settings(root_seed, battles, chunk_size=chunk_size, records=records)
    study = Study([scenario], settings, runner, progress=progress)
    tasks = -(-battles // chunk_size)
    with make_backend(workers, scheduler, tasks=tasks) as backend:
        complete = study.evaluate(backend)
    return BatchResult(
        battles=table(study.rows(0, "battles")),
        combatants=table(study.rows(0, "combatants")),
        summary=summarize(study.tally(0), scenario, root_seed, battles, not complete),
    )


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


def table(rows: Iterable[dict[str, Any]]) -> pd.DataFrame:
    """A DataFrame of record dicts in order; integer columns with gaps stay integers.

    pandas turns a column of ints and Nones into floats (3 -> 3.0 in the CSV); such a column
    becomes the nullable ``Int64`` instead, so the files show what the engine recorded.
    """
    records = list(rows)
    import pandas as pd

    frame = pd.DataFrame.from_records(records)
    for column in frame.columns:
        if frame[column].dtype.kind == "f" and all(
            isinstance(r.get(column), Integral | None) and not isinstance(r.get(column), bool)
            for r in records
        ):
            frame[column] = frame[column].astype("Int64")
    return frame
