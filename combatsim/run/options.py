"""How a study runs, and the start-up every study shares.

Every study (a run, a sweep, a comparison, a balance search, an explanation) starts the same
way: its keyword arguments become one ``Options`` (checked), its scenarios are loaded
(``load``: a file, or a scenario already loaded), its output folder is held for the whole run
(``holds_folder``) and its ``Study`` is made, fresh or resumed from the folder's journal
(``Options.study``). The studies differ only in what variants they run and what they report.
"""

from __future__ import annotations

import functools
import os
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, TypeVar

from ..errors import check_range
from ..folder import fault, writing
from ..limits import CHUNK_SIZE, DEFAULT_BATTLES, DEFAULT_MAX_BATTLES
from .backends import Backend, make_backend
from .battles import default_runner
from .cancel import Cancel
from .chunks import Progress, Runner, one_at_a_time
from .study import Pairing, Settings, Study, Watch

Result = TypeVar("Result")


@dataclass(frozen=True)
class Options:
    """How a study runs: what every entry point takes besides its own arguments.

    ``battles`` per scenario or variant (with ``precision``, the first round); ``seed`` the
    root seed (None: each scenario's own); ``precision``: run until every reported interval
    reaches no further than this from its estimate, at most ``max_battles``; ``records``:
    ``"none"``, ``"battles"`` or ``"all"`` (None: the entry point's default); ``workers``:
    local processes (None: all cores), or ``scheduler``, a Dask scheduler address;
    ``runner``: runs one battle (default ``combatsim.engine.run_battle``); ``progress(done,
    total)`` and ``watch(update)`` (a ``combatsim.run.Update``) are called after each chunk;
    ``cancel`` (a ``combatsim.run.Cancel``) stops the run from another thread; ``out``: a
    folder to write and journal into (then ``resume=True`` finishes an interrupted run there);
    ``chunk_size``: battles per unit of work (no number depends on it); ``meta``: stored with
    the run for ``resume``; ``force``: write into a folder holding files combatsim did not
    write (they are left as they are); ``backend``: a ``Backend`` the caller owns and keeps
    open (e.g. a pool of workers already started) to run the chunks on instead of making one
    from ``workers``/``scheduler`` (it is not closed at the end; no number depends on it).
    """

    battles: int = DEFAULT_BATTLES
    seed: int | None = None
    precision: float | None = None
    max_battles: int = DEFAULT_MAX_BATTLES
    records: str | None = None
    workers: int | None = 1
    scheduler: str | None = None
    runner: Runner | None = None
    progress: Progress | None = None
    watch: Watch | None = None
    cancel: Cancel | None = None
    out: str | os.PathLike | None = None
    resume: bool = False
    chunk_size: int = CHUNK_SIZE
    meta: dict[str, Any] | None = None
    force: bool = False
    backend: Backend | None = None

    def root_seed(self, scenario) -> int:
        """The root seed of a study of ``scenario``'s variants: ``seed``, else the file's."""
        return scenario.seed if self.seed is None else self.seed

    def study(
        self,
        scenarios: Sequence[Any],
        command: str,
        seed: int | None,
        records: str = "none",
        units: Sequence[tuple[int, ...]] | None = None,
        pairing: Pairing | None = None,
    ) -> Study:
        """The ``Study`` of ``scenarios`` under these options (``seed``: the root seed to use,
        None for each scenario's own; ``records``: the default when ``self.records`` is None),
        resumed from the output folder's journal when ``resume`` is set."""
        if self.workers is not None:
            check_range("workers", self.workers, 1)
        settings = Settings(
            seed,
            self.battles,
            self.precision,
            self.max_battles,
            self.chunk_size,
            self.records if self.records is not None else records,
        )
        # what runs one battle: the variants' own (a chain of encounters runs its fights in
        # order, each with the engine), else the caller's, else the engine's
        own = getattr(scenarios[0], "runner", None) if len(scenarios) else None
        return Study(
            scenarios if one_at_a_time(scenarios) else list(scenarios),
            settings,
            default_runner(own or self.runner),
            units=units,
            out=self.out,
            resume=self.resume,
            meta={"command": command, **(self.meta or {})},
            progress=self.progress,
            pairing=pairing,
            watch=self.watch,
            cancel=self.cancel,
        )

    def open_backend(self, tasks: int | None = None) -> Backend:
        """The backend to run on (to use in a ``with``): the caller's ``backend``, left open at
        the end, else a new one of ``workers`` or ``scheduler``."""
        if self.backend is not None:
            return Borrowed(self.backend)
        return make_backend(self.workers, self.scheduler, tasks=tasks)

    def evaluate(self, study: Study) -> bool:
        """Run every unit of ``study`` to its end; False if interrupted."""
        with self.open_backend() as backend:
            return study.evaluate(backend)


class Borrowed(Backend):
    """A caller's backend, used and not closed (its owner closes it)."""

    def __init__(self, backend: Backend):
        self.inner = backend
        self.workers = backend.workers

    def run(self, job, tasks, on_chunk) -> bool:
        return self.inner.run(job, tasks, on_chunk)

    def describe(self) -> str:
        return self.inner.describe()


def load(scenario):
    """A scenario file (a ``str`` or path) loaded, or a scenario already loaded as it is."""
    if isinstance(scenario, str | os.PathLike):
        from ..scenario import load_scenario

        return load_scenario(os.fspath(scenario))
    return scenario


def holds_folder(function: Callable[..., Result]) -> Callable[..., Result]:
    """Run ``function`` holding its ``out`` folder (``combatsim.folder.writing``): no other
    run writes there meanwhile, a folder holding files combatsim did not write is refused
    unless ``force=True``, and a fault of the folder (removed, read-only, full) is one line."""

    @functools.wraps(function)
    def held(*args: Any, **options: Any) -> Result:
        out = options.get("out")
        if out is None:
            return function(*args, **options)
        force, resume = bool(options.get("force")), bool(options.get("resume"))
        with writing(out, force=force, resume=resume, argument="out", force_flag="force=True"):
            try:
                return function(*args, **options)
            except OSError as err:
                raise fault(out, err) from None

    return held
