"""The Python API a notebook user reaches first: ``combatsim.simulate``, ``run_many``,
``sweep``, ``compare`` and ``balance``.

Each takes a scenario file (a ``str`` or ``Path``) or a loaded ``Scenario``
(``combatsim.load_scenario``), runs on every core as the command line does, shows a progress
bar (tqdm: a widget in a notebook) unless ``quiet=True``, and returns a ``Result``: the
summary (a dict, as in ``summary.json``), ``table`` and ``casualties`` (pandas DataFrames) and,
for ``simulate``, the per-battle ``battles`` and ``combatants`` tables. The other keyword
arguments (``precision``, ``max_battles``, ``records``, ``out``, ``resume``, ``scheduler``,
``chunk_size``, ``runner``, ``progress``) are those of ``combatsim.sweeps.api.Options``.
docs/api.md is the reference.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .sweeps.api import Result

DEFAULT_BATTLES = 1000  # as ``combatsim run``

__all__ = ["simulate", "run_many", "sweep", "compare", "balance", "explain"]


def simulate(
    scenario,
    battles: int = DEFAULT_BATTLES,
    *,
    seed: int | None = None,
    workers: int | None = None,
    quiet: bool = False,
    **options: Any,
) -> Result:
    """``battles`` battles of one scenario: win and draw rates, turns, casualties, and the
    per-battle tables (``records="all"`` by default; ``"battles"`` or ``"none"`` keep less).
    ``seed``: the root seed (default: the scenario's); ``workers``: processes (default: all
    cores); ``quiet``: no progress bar."""
    from .sweeps import api

    return _call(api.run_one, (scenario,), battles, seed, workers, quiet, options)


def run_many(
    scenarios,
    battles: int = DEFAULT_BATTLES,
    *,
    seed: int | None = None,
    workers: int | None = None,
    quiet: bool = False,
    **options: Any,
) -> Result:
    """Several scenarios (a folder, or a list of files or ``Scenario``s), each under its own
    seed unless ``seed`` is given: one ``table`` row per scenario."""
    from .sweeps import api

    return _call(api.run_many, (_scenario_list(scenarios),), battles, seed, workers, quiet, options)


def sweep(
    scenario,
    vary,
    battles: int = DEFAULT_BATTLES,
    *,
    seed: int | None = None,
    workers: int | None = None,
    quiet: bool = False,
    **options: Any,
) -> Result:
    """One scenario under every combination of ``vary``: ``"[NAME:]PATH=VALUES"`` (or a list
    of them, or ``{"NAME:PATH": [values]}``), e.g.
    ``"guards:sides[corp security].members[Guard].count=1..5"``. One ``table`` row per
    variant; every variant runs the same battle seeds."""
    from .sweeps import api

    return _call(api.sweep, (scenario, vary), battles, seed, workers, quiet, options)


def compare(
    a,
    b=None,
    *,
    a_sets: str | Sequence[Any] = (),
    b_sets: str | Sequence[Any] = (),
    battles: int = DEFAULT_BATTLES,
    seed: int | None = None,
    workers: int | None = None,
    quiet: bool = False,
    **options: Any,
) -> Result:
    """Scenario ``a`` against ``b`` (default: ``a`` again), with fields set on either
    (``"PATH=VALUE"``, or a list of them). Battle ``i`` of both runs from the same seed; the
    summary's ``differences`` (and ``result.extra["differences"]``) give B - A per side with
    a paired 95% interval and p-value."""
    from .sweeps import api

    sets = {"a_sets": _listed(a_sets), "b_sets": _listed(b_sets)}
    return _call(api.compare, (a, b), battles, seed, workers, quiet, {**sets, **options})


def balance(
    scenario,
    vary,
    target: float | str = 0.5,
    *,
    side: str | None = None,
    search: str = "auto",
    battles: int = DEFAULT_BATTLES,
    seed: int | None = None,
    workers: int | None = None,
    quiet: bool = False,
    **options: Any,
) -> Result:
    """The value of one field (``vary``, as for ``sweep``) that brings a rate closest to
    ``target``: ``"runners down <= 0.3"``, ``"Razor dead = 5%"``, ``"draw <= 0.1"``,
    ``"runners win = 0.5"``, or a number with ``side`` (that side's win rate). The summary's
    ``best`` is the value found, with its rate and 95% interval."""
    from .sweeps import api

    keywords = {"search": search, **options}
    return _call(
        api.balance, (scenario, vary, side, target), battles, seed, workers, quiet, keywords
    )


def explain(
    scenario,
    side: str | None = None,
    metric: str = "win",
    *,
    only: Sequence[str] | None = None,
    battles: int = DEFAULT_BATTLES,
    seed: int | None = None,
    workers: int | None = None,
    quiet: bool = False,
    **options: Any,
) -> Result:
    """Every lever of ``scenario`` (attributes, skills, pools, armor, group counts, ...) one
    step down and one up, on the baseline's battle seeds, ranked by its paired effect on
    ``metric`` (``"win"``, ``"draw"``, ``"runners down"``, ``"Razor dead"``...). The result's
    ``table`` has one row per lever with each step's difference, 95% interval and p-value;
    ``summary["text"]`` says the gist (docs/explain.md)."""
    from .sweeps import explain as explaining

    keywords = {"only": only, **options}
    return _call(
        explaining.explain, (scenario, side, metric), battles, seed, workers, quiet, keywords
    )


def _call(
    function: Callable[..., Result],
    args: tuple,
    battles: int,
    seed: int | None,
    workers: int | None,
    quiet: bool,
    options: dict[str, Any],
) -> Result:
    """Run ``function`` with the CLI's defaults: every core, a progress bar unless quiet."""
    from .progress import Progress

    progress = options.pop("progress", None)
    bar = None
    if progress is None and not quiet:
        progress = bar = Progress()
    try:
        return function(
            *args, battles=battles, seed=seed, workers=workers, progress=progress, **options
        )
    finally:
        if bar is not None:
            bar.finish()


def _scenario_list(scenarios) -> list:
    """A folder's scenario files (catalogues skipped, sorted), or the list as given."""
    if isinstance(scenarios, str | os.PathLike):
        folder = Path(scenarios)
        if not folder.is_dir():
            return [scenarios]
        from .errors import UsageError
        from .scenario import is_catalogue

        found = [
            f
            for f in sorted(folder.iterdir())
            if f.suffix in (".yaml", ".yml") and f.is_file() and not is_catalogue(f)
        ]
        if not found:
            raise UsageError("scenarios", str(scenarios), "a folder with scenario files in it")
        return found
    return list(scenarios)


def _listed(sets) -> list:
    return [sets] if isinstance(sets, str) else list(sets)
