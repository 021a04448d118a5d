"""Runs of several variants: rounds of battles, the precision stop, a resumable output folder.

A ``Study`` runs battles of its variants in **units**: a unit is one variant (a sweep's row), or
two variants run battle by battle side by side (a comparison, whose battle pairs are tallied).
Every variant draws battle ``i`` from the same root seed (common random numbers).

Without a precision target each unit runs ``battles`` battles. With one, a unit runs in rounds:
``battles`` first, then more until every reported interval (each side's win rate; for a pair,
each side's difference) reaches no further than ``precision`` from its estimate, or
``max_battles`` is reached. A round's size is worked out from the previous round's complete
tally, so where a run stops depends only on the seed, never on workers or timing.

With an output folder, every finished chunk is committed to ``.combatsim/journal.jsonl`` (its
tallies, one JSON line; its per-battle records to files beside it first), so a run stopped by
Ctrl-C or a crash continues with ``resume`` where it stopped, and ends with the same files as a
run that was never stopped. The folder's ``.combatsim`` is removed when the run completes.
"""

from __future__ import annotations

import contextlib
import errno
import hashlib
import json
import math
import os
import shutil
import stat
from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TextIO

from ..errors import BackendLost, CombatsimError, UsageError
from ..limits import (
    CHUNK_SIZE,
    DEFAULT_MAX_BATTLES,
)
from ..output import table, write_csv
from ..run_arguments import check_run_options
from ..stats import half_width, paired_comparison
from .backends import Backend
from .cancel import Cancel, held_signals
from .chunks import (
    Chunk,
    Job,
    Progress,
    Runner,
    Task,
    empty_tally,
    one_at_a_time,
    split,
)
from .tally import Tally

STATE = ".combatsim"
RUN_FILE = "run.json"
JOURNAL = "journal.jsonl"
FORMAT = 1
MAX_RUN_FILE = 1 << 20  # bytes: a run file holds the arguments and settings only
GROWTH = 4  # a precision round at most quadruples the battles so far
MARGIN = 1.1  # and aims a little past the estimate, so most units need only one more round
WIDE_TASK = 8  # a task of a wide unit holds about this many chunks' worth of battles


@dataclass(frozen=True)
class Settings:
    """Everything that fixes a study's numbers (so a resumed run must match it)."""

    seed: int | None  # None: each scenario's own seed
    battles: int
    precision: float | None = None
    max_battles: int = DEFAULT_MAX_BATTLES
    chunk_size: int = CHUNK_SIZE
    records: str = "none"

    def __post_init__(self):
        fields = ("seed", "battles", "precision", "max_battles", "chunk_size", "records")
        check_run_options({name: getattr(self, name) for name in fields})

    def to_json(self) -> dict[str, Any]:
        return {
            "seed": self.seed,
            "battles": self.battles,
            "precision": self.precision,
            "max_battles": self.max_battles,
            "chunk_size": self.chunk_size,
            "records": self.records,
        }


@dataclass
class Unit:
    """Variants that run battle by battle together; what of them is finished."""

    variants: tuple[int, ...]
    tallies: list[Tally]
    pairs: Counter | None
    pairing: Pairing | None = None  # what ``pairs`` counts; None: the winners of A and B
    done: int = 0  # battles first .. done - 1 are finished and in the tallies
    target: int = 0  # where this round ends
    settled: bool = False  # no more rounds: the precision is reached, or the limit
    available: dict[int, Chunk] = field(default_factory=dict)  # finished, beyond ``done``
    spans: list[tuple[int, int]] = field(default_factory=list)  # merged chunks' battles
    first: int = 0  # its first battle (a unit added for a later round starts there)

    def precision(self) -> float:
        """How far the widest reported interval reaches from its estimate."""
        if self.pairs is None:
            own = getattr(self.tallies[0], "precision", None)  # a tally that says it itself
            if own is not None:
                return own()
            outcomes = self.tallies[0].outcomes()["sides"].values()
            return max(half_width(s["win_rate"], s["ci95"]) for s in outcomes)
        if self.pairing is not None:
            return self.pairing.precision(self.tallies, self.pairs)
        differences = paired_differences(self.tallies[0], self.tallies[1], self.pairs)
        return max(half_width(d["difference"], d["ci95"]) for d in differences[:-1])


class Pairing:
    """How a unit of several variants is tallied battle by battle (``combatsim explain``'s
    baseline against each of its variants, say), in place of ``compare``'s pair of winners.

    A subclass is a picklable object (it travels to the workers inside the ``Job``) with a
    ``name`` that changes whenever what it counts changes (it enters the run's fingerprint),
    and provides ``key(result)``: what of one battle's result it needs (kept, per variant,
    until every variant of the unit ran that battle index; the default keeps the result);
    ``__call__(keys)``: the keys to count for one battle index, given those of the unit's
    variants in order (JSON-ready tuples of numbers, text or None); and
    ``precision(tallies, pairs)``: how far the widest interval it reports reaches from its
    estimate, for ``--precision``.
    """

    @property
    def name(self) -> str:
        return "pairing"

    def key(self, result: Any) -> Any:
        return result

    def __call__(self, keys: Sequence[Any]) -> Iterable[tuple]:
        raise NotImplementedError

    def precision(self, tallies: Sequence[Tally], pairs: Counter) -> float:
        raise NotImplementedError


@dataclass(frozen=True)
class Update:
    """What a watcher of a running study is told each time a chunk of battles comes in.

    ``done`` of ``total`` battles are finished (``total`` grows when a precision target adds
    a round); ``variants`` are those whose tallies the chunk added to; ``tally(variant)`` is
    a variant's tally so far, every finished battle counted, from which a live page can show
    the summary as it firms up (``combatsim.run.summarize``).
    """

    done: int
    total: int
    variants: tuple[int, ...]
    study: Study

    def tally(self, variant: int) -> Tally:
        return self.study.tally(variant)


Watch = Callable[[Update], None]


class Study:
    """Variants, settings, and (optionally) an output folder to journal into.

    ``meta`` is stored in the folder for ``resume`` (the command's arguments); ``fingerprint``
    must change whenever anything that fixes the numbers changes (see ``fingerprint``).
    ``pairing`` (a ``Pairing``) says what units of two variants or more count battle by
    battle; without it a unit must have at most two variants, whose winners are paired.
    ``progress(done, total)`` and ``watch(update)`` (an ``Update``) are called as each chunk
    comes in; ``cancel`` (a ``Cancel``) stops the run from outside, as Ctrl-C does.
    """

    def __init__(
        self,
        scenarios: Sequence[Any],
        settings: Settings,
        runner: Runner,
        units: Sequence[tuple[int, ...]] | None = None,
        out: str | os.PathLike | None = None,
        resume: bool = False,
        meta: dict[str, Any] | None = None,
        progress: Progress | None = None,
        pairing: Pairing | None = None,
        watch: Watch | None = None,
        cancel: Cancel | None = None,
    ):
        # Variants built on demand (``explain``'s) stay so: never all built at once.
        lazy = one_at_a_time(scenarios)
        self.scenarios = scenarios if lazy else list(scenarios)
        self.settings = settings
        if settings.seed is None:
            seeds = tuple(s.seed for s in self.scenarios)
        else:
            seeds = (settings.seed,) * len(self.scenarios)
        self.seeds = seeds
        shared = self.scenarios if lazy else tuple(self.scenarios)
        self.job = Job(shared, runner, seeds, settings.records, pairing)
        self.units = [
            Unit(
                tuple(u),
                [empty_tally(self.scenarios, v) for v in u],
                Counter() if len(u) >= 2 else None,
                pairing,
            )
            for u in (units or [(v,) for v in range(len(self.scenarios))])
        ]
        self._unit_of = {u.variants: u for u in self.units}
        self._pending: dict[tuple[int, ...], list[tuple[int, Any]]] = {}  # see ``extend``
        self._pairing = pairing
        self.progress = progress or (lambda done, total: None)
        self.watch = watch
        self.cancel = cancel or Cancel()
        self.interrupted = False
        self.out = Path(out) if out is not None else None
        self.state = self.out / STATE if self.out is not None else None
        # Without a folder, kept records stay in memory: variant -> chunk start -> rows.
        self._rows: dict[int, dict[int, tuple[list, list | None]]] = {}
        self._journal: TextIO | None = None
        meta = dict(meta or {})
        self._command = meta.get("command")
        self._fingerprint = fingerprint(
            self.scenarios, settings, meta.get("command"), pairing.name if pairing else None
        )
        if self.state is not None:
            if resume:
                self._load(meta)
            else:
                if self.state.exists():
                    shutil.rmtree(self.state)
                self.state.mkdir(parents=True)
                stored = {
                    "format": FORMAT,
                    "meta": meta,
                    "settings": settings.to_json(),
                    "fingerprint": self._fingerprint,
                }
                _write_text(self.state / RUN_FILE, json.dumps(stored, indent=2, sort_keys=True))
            # never through a link planted as the journal of an interrupted run
            flags = os.O_WRONLY | os.O_APPEND | os.O_CREAT | os.O_NOFOLLOW | os.O_CLOEXEC
            fd = os.open(self.state / JOURNAL, flags, 0o666)
            self._journal = os.fdopen(fd, "a", encoding="utf-8")

    # --- running ----------------------------------------------------------------------------

    def extend(self, variants: Sequence[int], start: int, stop: int) -> None:
        """Have the unit of ``variants`` run battles up to ``stop``; a unit not yet in the
        study is added, starting at battle ``start``. A study that narrows its variants round
        by round (``explain`` stops the levers that are settled) runs each round's survivors as
        a unit from where the last round ended: battle ``i`` still draws from seed ``i``, so
        every number is the one a single unit would give. A resumed run's journal lines for a
        unit added later are taken up here."""
        key = tuple(variants)
        unit = self._unit_of.get(key)
        if unit is None:
            unit = Unit(
                key,
                [empty_tally(self.scenarios, v) for v in key],
                Counter() if len(key) >= 2 else None,
                self._pairing,
                done=start,
                target=start,
                first=start,
            )
            self.units.append(unit)
            self._unit_of[key] = unit
            for number, entry in self._pending.pop(key, []):
                self._take(number, entry)
            self._advance(unit)
        unit.target = max(unit.target, stop)

    def evaluate(self, backend: Backend, units: Sequence[tuple[int, ...]] | None = None) -> bool:
        """Bring the units (default: all) to their final battle counts; False if interrupted.

        Units already there cost nothing, so a search may call this again and again.
        """
        chosen = [self._unit_of[tuple(u)] for u in units] if units is not None else self.units
        for unit in chosen:
            if unit.target == 0:
                unit.target = self.settings.battles
        while not self.interrupted:
            if self.cancel.cancelled:  # before any work, or between precision rounds
                self.interrupted = True
                break
            for unit in chosen:
                self._advance(unit)
            todo = [u for u in chosen if u.done < u.target]
            if todo:
                self._run_round(backend, todo)
                continue
            growing = [u for u in chosen if not u.settled and self._next_round(u)]
            if not growing:
                self.check_records()
                return True
        self.check_records()
        return False

    def _next_round(self, unit: Unit) -> bool:
        precision, settings = self.settings.precision, self.settings
        if precision is None or unit.settled:
            unit.settled = True
            return False
        now = unit.precision()
        if now <= precision or unit.done >= settings.max_battles:
            unit.settled = True
            return False
        # precision >= MIN_PRECISION and now <= 1 keep this finite
        wanted = math.ceil(unit.done * min((now / precision) ** 2, 1e12) * MARGIN)
        step = settings.chunk_size
        wanted = max(unit.done + step, min(wanted, GROWTH * unit.done))
        wanted = math.ceil(wanted / step) * step
        unit.target = min(wanted, settings.max_battles)
        return True

    def _run_round(self, backend: Backend, units: list[Unit]) -> None:
        total = sum((u.target - u.first) * len(u.variants) for u in self.units if u.target)
        done = sum(
            (u.done - u.first + sum(c.stop - c.task.start for c in u.available.values()))
            * len(u.variants)
            for u in self.units
        )

        def on_chunk(chunk: Chunk) -> None:
            nonlocal done
            self._commit(chunk)
            done += chunk.done
            self.progress(done, total)
            if self.watch is not None:
                self.watch(Update(done, total, chunk.task.variants, self))
            self.cancel.check()

        tasks = (t for u in units for t in self._gaps(u))
        try:
            if backend.run(self.job, tasks, on_chunk):
                self.interrupted = True
        except BackendLost as err:
            raise BackendLost(f"{err}{self._resume_hint()}") from None
        except OSError:  # the folder went away, or filled up: close what can be closed
            with contextlib.suppress(OSError):
                self.close()
            self._journal = None
            raise
        for unit in units:
            self._advance(unit)

    def _resume_hint(self) -> str:
        if self.state is None or not (self.state / RUN_FILE).exists():
            return ""
        command = self._command or "run"
        return f"; finish the run with: combatsim {command} --resume {self.out}"

    def _gaps(self, unit: Unit) -> Iterator[Task]:
        edge = unit.done
        span = self._span(unit)
        # A snapshot: chunks committed while these tasks are handed out change ``available``.
        spans = sorted((s, c.stop) for s, c in unit.available.items() if s >= unit.done)
        for start, stop in spans:
            if start > edge:
                yield from split(unit.variants, edge, min(start, unit.target), span)
            edge = max(edge, stop)
        if edge < unit.target:
            yield from split(unit.variants, edge, unit.target, span)

    def _span(self, unit: Unit) -> int:
        """Battle indexes per task. A wide unit (``explain``'s baseline and its 100-odd
        variants) runs every variant for each index, so its tasks span fewer indexes: about
        ``WIDE_TASK`` chunks' worth of battles each, enough tasks to keep every worker busy
        and a journal line per task that stays small. Results never depend on it."""
        size = self.settings.chunk_size
        if unit.pairing is None or len(unit.variants) <= 2:
            return size
        return max(1, math.ceil(size * WIDE_TASK / len(unit.variants)))

    def _commit(self, chunk: Chunk) -> None:
        """Journal a finished chunk and add it to its unit, whole or not at all: a Ctrl-C
        between the two would leave battles in the journal the summary does not count."""
        with held_signals():
            self._commit_held(chunk)

    def _commit_held(self, chunk: Chunk) -> None:
        unit = self._unit_of[chunk.task.variants]
        if self.state is not None:
            journal = self._open_journal()
            self._check_journal(journal)
            self._write_records(chunk)
            line = {
                "variants": list(chunk.task.variants),
                "start": chunk.task.start,
                "stop": chunk.stop,
                "tallies": [t.to_json() for t in chunk.tallies],
                "pairs": _pairs_json(chunk.pairs),
            }
            journal.write(json.dumps(line, sort_keys=True) + "\n")
            journal.flush()
            chunk = Chunk(chunk.task, chunk.stop, chunk.tallies, None, None, chunk.pairs)
        elif chunk.battles is not None:
            for k, variant in enumerate(chunk.task.variants):
                combatants = chunk.combatants[k] if chunk.combatants is not None else None
                self._rows.setdefault(variant, {})[chunk.task.start] = (
                    chunk.battles[k],
                    combatants,
                )
            chunk = Chunk(chunk.task, chunk.stop, chunk.tallies, None, None, chunk.pairs)
        unit.available[chunk.task.start] = chunk
        self._advance(unit)  # merge as chunks arrive: only out-of-order ones wait, briefly

    def _advance(self, unit: Unit) -> None:
        while unit.done in unit.available and unit.done < max(unit.target, 1):
            chunk = unit.available.pop(unit.done)
            for mine, theirs in zip(unit.tallies, chunk.tallies, strict=True):
                mine.merge(theirs)
            if unit.pairs is not None and chunk.pairs is not None:
                unit.pairs.update(chunk.pairs)
            if self.settings.records != "none":  # only to find the chunks' record files
                unit.spans.append((chunk.task.start, chunk.stop))
            unit.done = chunk.stop

    # --- what it found ----------------------------------------------------------------------

    def tally(self, variant: int) -> Tally:
        """The variant's tally: its finished battles (after an interruption, every finished
        chunk, whether or not the ones before it finished), over every unit it runs in."""
        total = None
        for unit in self.units:
            if variant in unit.variants:
                k = unit.variants.index(variant)
                if total is None:
                    total = empty_tally(self.scenarios, variant)
                total.merge(unit.tallies[k])
                for chunk in unit.available.values():
                    total.merge(chunk.tallies[k])
        if total is None:
            raise KeyError(variant)
        return total

    def pairs(self, unit: tuple[int, ...]) -> Counter:
        found = self._unit_of[tuple(unit)]
        total = Counter(found.pairs or {})
        for chunk in found.available.values():
            total.update(chunk.pairs or {})
        return total

    def precision_report(self) -> dict[str, Any] | None:
        """For the summary: the target, whether every unit reached it, the widest interval."""
        if self.settings.precision is None:
            return None
        return {
            "target": self.settings.precision,
            "max_battles": self.settings.max_battles,
            "reached": all(u.precision() <= self.settings.precision for u in self.units if u.done),
            "widest": round(max((u.precision() for u in self.units if u.done), default=1.0), 6),
        }

    def requested(self, variant: int) -> int:
        targets = [u.target for u in self.units if variant in u.variants]
        if not targets:
            raise KeyError(variant)
        return max(*targets, self.settings.battles)

    def rows(self, variant: int, kind: str) -> Iterator[dict[str, Any]]:
        """Without a folder: the variant's kept records of ``kind`` (``battles`` or
        ``combatants``), in battle order."""
        kept = self._rows.get(variant, {})
        for start in sorted(kept):
            rows = kept[start][0 if kind == "battles" else 1]
            yield from rows or ()

    # --- the folder ---------------------------------------------------------------------------

    def _folder(self) -> tuple[Path, Path]:
        """The output folder and its state folder, for the methods only a study given a
        folder reaches (their callers check ``self.state`` first)."""
        if self.out is None or self.state is None:
            raise RuntimeError("a study without an output folder keeps no files")
        return self.out, self.state

    def _open_journal(self) -> TextIO:
        """The journal a study given a folder writes each chunk to, while it is open."""
        if self._journal is None:
            raise ValueError(f"{self.out}: the run's journal is closed")
        return self._journal

    def _check_journal(self, journal: TextIO) -> None:
        """Fail (``FileNotFoundError``) once the journal is no longer in the folder: the
        folder was removed or replaced, and writing on would only recreate it piecemeal."""
        out, state = self._folder()
        try:
            there = os.stat(state / JOURNAL)
        except OSError:
            there = None
        if there is None or not os.path.samestat(there, os.fstat(journal.fileno())):
            raise FileNotFoundError(errno.ENOENT, os.strerror(errno.ENOENT), str(out))

    def _write_records(self, chunk: Chunk) -> None:
        for k, variant in enumerate(chunk.task.variants):
            for kind, rows in (("battles", chunk.battles), ("combatants", chunk.combatants)):
                if rows is None or not rows[k]:
                    continue
                path = self._chunk_file(variant, kind, chunk.task.start, chunk.stop)
                path.parent.parent.mkdir(exist_ok=True)  # never the folder itself, if it went
                path.parent.mkdir(exist_ok=True)
                write_csv(table(rows[k]), path)

    def _chunk_file(self, variant: int, kind: str, start: int, stop: int) -> Path:
        _, state = self._folder()
        return state / "records" / f"v{variant:04d}" / f"{kind}-{start:010d}-{stop:010d}.csv"

    def record_files(self, variant: int, kind: str) -> list[Path]:
        """The variant's chunk files of ``kind`` records, in battle order (every finished
        chunk's); a ``CombatsimError`` naming them if any has vanished (see ``check_records``)."""
        if self.state is None:
            return []
        files = self._expected_files(variant, kind)
        self._refuse_missing([path for path, _ in files])
        return [path for path, _ in files]

    def check_records(self) -> None:
        """Refuse to go on when chunk files of kept records vanished during the run (the output
        folder deleted or cleaned): the table would count battles the records lack."""
        if self.state is None or self.settings.records == "none":
            return
        kinds = ("battles", "combatants") if self.settings.records == "all" else ("battles",)
        expected = [
            path
            for variant in range(len(self.scenarios))
            for kind in kinds
            for path, _ in self._expected_files(variant, kind)
        ]
        self._refuse_missing(expected)

    def _expected_files(self, variant: int, kind: str) -> list[tuple[Path, int]]:
        spans = sorted(
            span
            for unit in self.units
            if variant in unit.variants
            for span in unit.spans + [(c.task.start, c.stop) for c in unit.available.values()]
        )
        if kind == "combatants":  # a chunk whose battles had no combatant rows has no file
            return [
                (self._chunk_file(variant, kind, a, b), b - a)
                for a, b in spans
                if self._chunk_file(variant, "battles", a, b).exists()
                or self._chunk_file(variant, kind, a, b).exists()
            ]
        return [(self._chunk_file(variant, kind, a, b), b - a) for a, b in spans if b > a]

    def _refuse_missing(self, expected: list[Path]) -> None:
        missing = [path for path in expected if not path.is_file()]
        if not missing:
            return
        out, state = self._folder()
        shown = ", ".join(str(p.relative_to(state)) for p in missing[:3])
        more = f" and {len(missing) - 3} more" if len(missing) > 3 else ""
        if (state / RUN_FILE).exists():
            then = (
                f"; continue with: combatsim {self._command or 'run'} --resume {out} "
                "(the chunks whose records are missing run again)"
            )
        else:
            then = "; run it again"
        self.close()
        raise CombatsimError(
            f"{out}: {len(missing)} chunk file(s) of per-battle records vanished during "
            f"the run ({shown}{more} in {state}): the folder was changed while the run "
            f"wrote to it, so its table would disagree with its records{then}"
        )

    def _load(self, meta: dict[str, Any]) -> None:
        """Take up the journal of an interrupted run in this folder.

        Refuses, in one line, a folder whose run file is damaged or belongs to other
        scenarios or settings, and a journal line that does not fit this run; a torn last line
        (a run killed while writing it) is run again, as are chunks whose record files are gone.
        """
        out, state = self._folder()
        stored = read_run_file(out)
        if stored.get("fingerprint") != self._fingerprint:
            raise CombatsimError(
                f"--resume {out}: the scenario files, catalogues or settings changed since "
                "the run started; start it afresh (without --resume)"
            )
        journal = state / JOURNAL
        if not journal.exists():
            return
        lines = _journal_lines(journal, out)
        for number, line in enumerate(lines, 1):
            try:
                entry = json.loads(line)
            except json.JSONDecodeError:
                if number == len(lines):
                    continue  # the last line of a run killed while writing it
                raise _damaged(out, f"line {number} of {JOURNAL} is not JSON") from None
            variants = entry.get("variants") if isinstance(entry, dict) else None
            key = tuple(variants) if isinstance(variants, list) else None
            if (
                self._pairing is not None
                and key is not None
                and key not in self._unit_of
                and all(type(v) is int and 0 <= v < len(self.scenarios) for v in key)
            ):  # a unit a later round adds (``extend``)
                self._pending.setdefault(key, []).append((number, entry))
                continue
            self._take(number, entry)

    def _take(self, number: int, entry: Any) -> None:
        """Journal line ``number``, read, as a finished chunk of its unit."""
        out, _ = self._folder()
        try:
            chunk = self._chunk_from(entry)
        except (KeyError, TypeError, ValueError, AttributeError) as err:
            raise _damaged(
                out, f"line {number} of {JOURNAL} does not fit this run ({err})"
            ) from None
        if chunk is None:
            return
        kept = self._expected_chunk_files(chunk)
        if all(path.is_file() for path in kept):
            self._unit_of[chunk.task.variants].available[chunk.task.start] = chunk

    def _chunk_from(self, entry: Any) -> Chunk | None:
        """A journal entry as a chunk, checked against this run's units and scenarios."""
        variants = tuple(entry["variants"])
        unit = self._unit_of.get(variants)
        if unit is None:
            raise ValueError(f"no unit of variants {list(variants)}")
        start, stop = entry["start"], entry["stop"]
        if not all(type(x) is int for x in (start, stop)) or not 0 <= start < stop:
            raise ValueError(f"battles {start!r} to {stop!r}")
        if len(entry["tallies"]) != len(variants):
            raise ValueError(f"{len(entry['tallies'])} tallies for {len(variants)} variants")
        tallies = []
        for variant, data in zip(variants, entry["tallies"], strict=True):
            empty = empty_tally(self.scenarios, variant)  # a chain's tally checks its own
            getattr(empty, "check_json", _check_counts)(data)
            tally = type(empty).from_json(data)
            tallies.append(tally)
            if (tally.sides, tally.fighters) != (empty.sides, empty.fighters):
                raise ValueError(f"a tally of other sides {list(tally.sides)}")
            if tally.battles != stop - start:
                raise ValueError(f"a tally of {tally.battles} battles for {stop - start}")
        pairs = _pairs_from_json(entry["pairs"])
        if (pairs is None) != (unit.pairs is None):
            raise ValueError("pairs where none belong, or none where they do")
        return Chunk(Task(variants, start, stop), stop, tallies, None, None, pairs)

    def _expected_chunk_files(self, chunk: Chunk) -> list[Path]:
        if self.settings.records == "none":
            return []
        start, stop = chunk.task.start, chunk.stop
        return [self._chunk_file(v, "battles", start, stop) for v in chunk.task.variants]

    def close(self) -> None:
        if self._journal is not None:
            self._journal.close()
            self._journal = None

    def cleanup(self) -> None:
        """Remove the journal and chunk files: call once the results are written."""
        self.close()
        if self.state is not None and self.state.exists():
            shutil.rmtree(self.state)


def read_run_file(out: Path) -> dict[str, Any]:
    """The run file of the interrupted run in ``out`` (``.combatsim/run.json``), or a one-line
    error if there is none or it is damaged."""
    run_file = Path(out) / STATE / RUN_FILE
    try:
        info = run_file.stat()
    except (OSError, ValueError):
        info = None
    if info is None or not stat.S_ISREG(info.st_mode):
        raise UsageError(
            "--resume", str(out), "a folder holding an unfinished run (DIR/.combatsim/run.json)"
        )
    if info.st_size > MAX_RUN_FILE:
        raise _damaged(out, f"{RUN_FILE} is {info.st_size:,} bytes")
    try:
        stored = json.loads(run_file.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as err:
        raise _damaged(out, f"{RUN_FILE}: {err}") from None
    if not isinstance(stored, dict) or stored.get("format") != FORMAT:
        raise _damaged(out, f"{RUN_FILE} is not a combatsim run file of format {FORMAT}")
    meta = stored.get("meta")
    if not isinstance(meta, dict) or not isinstance(meta.get("args", {}), dict):
        raise _damaged(out, f"{RUN_FILE} lacks the run's arguments")
    return stored


def _journal_lines(journal: Path, out: Path) -> list[str]:
    """The journal's lines, read from a regular file only (never a FIFO or device)."""
    try:
        if not stat.S_ISREG(journal.stat().st_mode):
            raise _damaged(out, f"{JOURNAL} is not a regular file")
        with open(journal, encoding="utf-8", errors="replace") as f:
            return f.read().splitlines()
    except OSError as err:
        raise _damaged(out, f"{JOURNAL}: {err.strerror}") from None


def _check_counts(data: dict[str, Any]) -> None:
    """A journal tally holds counts only: non-negative integers, in lists and mappings."""
    parts = [data[k] for k in ("battles", "draws", "wins", "end_reasons", "turns")]
    parts += [data[k] for k in ("standing", "damage") if data[k] is not None]
    check_counts(parts)


def check_counts(parts: list[Any]) -> None:
    """``ValueError`` unless every leaf of ``parts`` (lists and mappings, however nested) is a
    non-negative integer: what a journal's tally may hold, of a battle or of a chain."""
    parts = list(parts)
    while parts:
        item = parts.pop()
        if isinstance(item, dict):
            parts += item.values()
        elif isinstance(item, list):
            parts += item
        elif type(item) is not int or item < 0:
            raise ValueError(f"a count of {item!r}")


def _damaged(out: Path, why: str) -> UsageError:
    return UsageError(
        "--resume",
        str(out),
        f"the folder of an unfinished combatsim run ({STATE}/{why}); start the run afresh "
        "(without --resume)",
    )


def _pairs_json(pairs: Counter | None) -> list | None:
    if pairs is None:
        return None
    # [*key, count]; None (a draw) sorts first; the order only makes the journal readable.
    return sorted(([*key, n] for key, n in pairs.items()), key=lambda t: [str(x) for x in t[:-1]])


def _pairs_from_json(data: list | None) -> Counter | None:
    if data is None:
        return None
    return Counter({tuple(row[:-1]): row[-1] for row in data})


def paired_differences(first: Tally, second: Tally, pairs: Counter) -> list[dict[str, Any]]:
    """Per side (by position), and for draws: B's rate minus A's, with Newcombe's paired
    interval and the exact McNemar p-value. ``pairs`` counts ``(winner in A, winner in B)``."""
    n = sum(pairs.values())
    rows = []
    outcomes = [(a, b) for a, b in zip(first.sides, second.sides, strict=True)] + [(None, None)]
    for side_a, side_b in outcomes:
        both = sum(c for (wa, wb), c in pairs.items() if wa == side_a and wb == side_b)
        a_only = sum(c for (wa, wb), c in pairs.items() if wa == side_a and wb != side_b)
        b_only = sum(c for (wa, wb), c in pairs.items() if wa != side_a and wb == side_b)
        d = paired_comparison(both, a_only, b_only, n - both - a_only - b_only)
        if side_a is None:
            label = "draws"
        else:
            label = side_a if side_a == side_b else f"{side_a} / {side_b}"
        rows.append(
            {
                "side": label,
                "a": d["a"],
                "b": d["b"],
                "difference": d["difference"],
                "ci95": d["ci95"],
                "p_value": d["p_value"],
                "significant": d["significant"],
                "a_only": a_only,
                "b_only": b_only,
            }
        )
    return rows


def fingerprint(
    scenarios: Sequence[Any], settings: Settings, command: Any = None, pairing: str | None = None
) -> str:
    """A hash of what fixes a study's numbers: each scenario's mapping and its catalogues' bytes
    (or, for a scenario not loaded from a file, its repr), the settings, the command and what
    its units pair (a ``Pairing``'s name)."""
    digest = hashlib.sha256()
    digest.update(json.dumps([command, settings.to_json()], sort_keys=True).encode())
    if pairing is not None:
        digest.update(pairing.encode())
    recipe = getattr(scenarios, "recipe", None)
    if recipe is not None:  # variants built on demand: the base and how each is made
        digest.update(recipe().encode())
        scenarios = [scenarios[0]]
    for scenario in scenarios:
        data = getattr(scenario, "data", None)
        if isinstance(data, dict):
            digest.update(json.dumps(data, sort_keys=True, default=str).encode())
            base = Path(scenario.source).parent
            for rel in data.get("catalogues") or []:
                try:
                    digest.update((base / rel).read_bytes())
                except OSError:
                    digest.update(b"missing " + str(rel).encode())
        else:
            digest.update(repr(scenario).encode())
    return digest.hexdigest()


def _write_text(path: Path, text: str) -> None:
    from ..folder import replace_text

    replace_text(path, text + "\n")
