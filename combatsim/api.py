"""The Python API a notebook user reaches first: ``combatsim.simulate``, ``run_many``,
``sweep``, ``compare`` and ``balance``.

Each takes a scenario file (a ``str`` or ``Path``) or a loaded ``Scenario``
(``combatsim.load_scenario``), runs on every core as the command line does, shows a progress
bar (tqdm: a widget in a notebook) unless ``quiet=True``, and returns a ``Result``: the
summary (a dict, as in ``summary.json``), ``table`` and ``casualties`` (pandas DataFrames) and,
for ``simulate``, the per-battle ``battles`` and ``combatants`` tables. The other keyword
arguments (``precision``, ``max_battles``, ``records``, ``out``, ``resume``, ``scheduler``,
``chunk_size``, ``runner``, ``progress``, ``watch``, ``cancel``) are those of
``combatsim.run.Options``: ``watch(update)`` sees each variant's tally grow chunk by chunk and
a ``combatsim.Cancel`` stops the run from another thread, keeping what finished.
docs/api.md is the reference.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Mapping, Sequence
from itertools import islice
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

from .errors import Described, UsageError
from .errors import shown as _shown
from .limits import (
    DEFAULT_BATTLES,
    MAX_SETS,
    MAX_VALUES,
    MAX_VARIANTS,
    MAX_VARIES,
)
from .run_arguments import check_run_options

if TYPE_CHECKING:
    from .sweeps.results import Result

__all__ = ["simulate", "run_many", "sweep", "compare", "balance", "explain", "design"]


Returned = TypeVar("Returned")  # what the entry point ``_call`` runs returns


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

    return _call(api.run_one, (_scenario(scenario),), battles, seed, workers, quiet, options)


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
    seed unless ``seed`` is given: one ``table`` row per scenario and side."""
    from .sweeps import api

    found = _scenario_list(scenarios)
    return _call(api.run_many, (found,), battles, seed, workers, quiet, options)


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
    variant and side, the varied values as snake_case columns (``guards``); every variant
    runs the same battle seeds."""
    from .sweeps import api

    args = (_subject(scenario), _vary(vary))
    return _call(api.sweep, args, battles, seed, workers, quiet, options)


def chain(
    chain,
    battles: int = DEFAULT_BATTLES,
    *,
    seed: int | None = None,
    workers: int | None = None,
    quiet: bool = False,
    **options: Any,
):
    """Runs of a chain of encounters (a chain file, or a ``combatsim.chains.Chain``): the
    carried side keeps its wounds, rounds, grenades and spent Karma or Edge from one fight to
    the next. Returns a ``combatsim.chains.study.ChainResult``: ``summary`` (the chance to
    complete the run, per encounter and per member, beside every fight fresh) and ``tables``.
    ``precision`` stops on the chance to complete the run."""
    from .chains.study import load, run_chain_study

    return _call(run_chain_study, (load(chain),), battles, seed, workers, quiet, options)


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

    sets = {"a_sets": _listed(a_sets, "a_sets"), "b_sets": _listed(b_sets, "b_sets")}
    args = (_subject(a, "a"), None if b is None else _subject(b, "b"))
    return _call(api.compare, args, battles, seed, workers, quiet, {**sets, **options})


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

    if isinstance(target, bool) or not isinstance(target, str | int | float):
        raise UsageError(
            "target", _shown(target), "a rate (0.5) or a target ('runners down <= 0.3')"
        )
    _text("side", side, optional=True)
    if search not in ("auto", "grid", "bisect"):
        raise UsageError("search", _shown(search), "'auto', 'grid' or 'bisect'")
    keywords = {"search": search, **options}
    args = (_subject(scenario), _vary(vary), side, target)
    return _call(api.balance, args, battles, seed, workers, quiet, keywords)


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

    _text("side", side, optional=True)
    _text("metric", metric)
    if only is not None:
        only = [_text("only", name) for name in _listed(only, "only")]
    keywords = {"only": only, **options}
    args = (_subject(scenario), side, metric)
    return _call(explaining.explain, args, battles, seed, workers, quiet, keywords)


def design(
    scenario,
    side: str,
    target: str | Sequence[str],
    *,
    pool: str | Sequence[str] | None = None,
    weapons: Sequence[str] = (),
    armor: Sequence[str] = (),
    min_members: int = 1,
    max_members: int = 8,
    max_kinds: int = 2,
    formation: str = "layout",
    top: int = 5,
    encounter: int | str | None = None,
    battles: int = DEFAULT_BATTLES,
    seed: int | None = None,
    workers: int | None = None,
    quiet: bool = False,
    **options: Any,
) -> Result:
    """The make-ups of ``side`` (archetypes of ``pool``, how many of each, and optionally a
    weapon and armor of ``weapons``/``armor``) whose battles hit every ``target``
    (``"runners win 0.6..0.75"``, ``"runners dead <= 0.05"``). The best ``top`` are confirmed
    on fresh battles and ranked surest, then simplest, first: ``summary["designs"]``, each
    with its rates and 95% intervals; ``summary["verdict"]`` says the gist in one line; the
    ``table`` lists every make-up tried (docs/design.md). ``scenario`` may be a chain file:
    then ``encounter`` names the fight whose opposition is designed."""
    from .sweeps import design as designing

    _text("side", side)
    targets = [_text("target", t) for t in _listed(target, "target")]
    if pool is not None and not isinstance(pool, str):
        pool = [_text("pool", name) for name in _listed(pool, "pool")]
    keywords = {
        "pool": pool,
        "weapons": [_text("weapons", w) for w in _listed(weapons, "weapons")],
        "armor": [_text("armor", a) for a in _listed(armor, "armor")],
        "min_members": min_members,
        "max_members": max_members,
        "max_kinds": max_kinds,
        "formation": formation,
        "top": top,
        "encounter": encounter,
        **options,
    }
    args = (_subject(scenario), side, targets)
    return _call(designing.design, args, battles, seed, workers, quiet, keywords)


def _call(
    function: Callable[..., Returned],
    args: tuple,
    battles: int,
    seed: int | None,
    workers: int | None,
    quiet: bool,
    options: dict[str, Any],
) -> Returned:
    """Run ``function`` with the CLI's defaults: every core, a progress bar unless quiet."""
    from .progress import Progress

    battles, seed, workers = check_run_arguments(battles, seed, workers, quiet, options)

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
    """A folder's scenario files (its subfolders' too, sorted, as ``combatsim run FOLDER``
    and the page list them), or the list as given."""
    if isinstance(scenarios, str | os.PathLike):
        folder = Path(scenarios)
        if not folder.is_dir():
            return [scenarios]
        from .scenario.files import scenario_files

        found = [f for f, _ in scenario_files(folder)]
        if not found:
            raise UsageError("scenarios", str(scenarios), "a folder with scenario files in it")
        return found
    if isinstance(scenarios, Mapping) or not isinstance(scenarios, Iterable):
        raise UsageError(
            "scenarios", _shown(scenarios), "a folder, or a list of scenario files or Scenarios"
        )
    return [_scenario(s, "scenarios[]") for s in _bounded(scenarios, "scenarios", MAX_VARIANTS)]


def _listed(sets, argument: str) -> list:
    """A text as a list of one, or the items of a list (at most ``MAX_SETS``)."""
    if isinstance(sets, str):
        return [sets]
    if isinstance(sets, Mapping) or not isinstance(sets, Iterable):
        raise UsageError(argument, _shown(sets), "a text or a list of texts")
    return _bounded(sets, argument, MAX_SETS)


# --- arguments, checked before anything is loaded or run --------------------------------------

SCENARIO = "a scenario file (a str or Path) or a Scenario from combatsim.load_scenario"
SUBJECT = (
    "a scenario file (a str or Path) or a Scenario from combatsim.load_scenario, or a chain "
    "file or a Chain from combatsim.chains.load_chain"
)


def check_run_arguments(battles, seed, workers, quiet, options: dict[str, Any]) -> tuple:
    """The API's keyword arguments checked as every front end's are
    (``combatsim.run_arguments``): a wrong type or a number past its bound is a ``UsageError``
    naming it. Returns ``battles``, ``seed`` and ``workers`` as plain ints, and makes
    ``options``' integers plain too."""
    given = {"battles": battles, "seed": seed, "workers": workers, "quiet": quiet, **options}
    checked = check_run_options(given)
    options.update({k: checked[k] for k in options})
    return checked["battles"], checked["seed"], checked["workers"]


def _text(argument: str, value: Any, optional: bool = False) -> Any:
    if value is None and optional:
        return value
    if not isinstance(value, str):
        raise UsageError(argument, _shown(value), "a text" + (" or None" if optional else ""))
    return value


def _subject(value: Any, argument: str = "scenario") -> Any:
    """What a study takes: a scenario, or a chain of encounters."""
    from .chains import Chain

    if isinstance(value, Chain):
        return value
    try:
        return _scenario(value, argument)
    except UsageError:
        raise UsageError(argument, _shown(value), SUBJECT) from None


def _scenario(value: Any, argument: str = "scenario") -> Any:
    """A scenario file's name or a loaded ``Scenario``, else a ``UsageError`` saying so (a
    dict or a number would fail deep inside, with a message about something else)."""
    if isinstance(value, str | os.PathLike):
        return value
    from .scenario import Scenario

    if isinstance(value, Scenario):
        return value
    raise UsageError(argument, _shown(value), SCENARIO)


def _vary(vary: Any) -> Any:
    """``sweep``'s and ``balance``'s ``vary`` in one of its forms, every list of values
    counted before it is listed (``range(1, 10**9)`` is refused at once)."""
    from .sweeps.fields import Vary

    if isinstance(vary, str | Vary):
        return vary
    if isinstance(vary, Mapping):
        if len(vary) > MAX_VARIES:
            raise UsageError("vary", f"{len(vary)} fields", f"at most {MAX_VARIES} varied fields")
        out = {}
        for key, values in vary.items():
            _text("vary", key)
            out[key] = values if isinstance(values, str) else _values(key, values)
        return out
    if not isinstance(vary, Iterable):
        raise UsageError(
            "vary", _shown(vary), "'[NAME:]PATH=VALUES', a list of them, or {PATH: values}"
        )
    items = _bounded(vary, "vary", MAX_VARIES, "varied fields")
    for item in items:
        if not isinstance(item, str | Vary):
            raise UsageError("vary", _shown(item), "'[NAME:]PATH=VALUES' texts")
    return items


def _values(argument: str, values: Any) -> list:
    if isinstance(values, Mapping) or not isinstance(values, Iterable):
        raise UsageError(argument, _shown(values), "a list of values, or a text such as '2..6'")
    listed = _bounded(values, argument, MAX_VALUES, "values")
    if not listed:
        raise UsageError(argument, Described("no values"), "at least one value")
    return listed


def _bounded(items: Iterable, argument: str, cap: int, what: str = "items") -> list:
    """The items as a list, refused past ``cap`` without listing them: a sized collection by
    its length (``len(range(...))`` costs nothing), anything else read up to ``cap + 1``."""
    too_many = UsageError(
        argument, Described(f"more than {cap:,} {what}"), f"at most {cap:,} {what}"
    )
    try:
        count = len(items)  # type: ignore[arg-type]
    except TypeError:
        count = None
    except OverflowError:  # range(10**20): more than fits a length
        raise too_many from None
    if count is not None and count > cap:
        raise UsageError(argument, Described(f"{count:,} {what}"), f"at most {cap:,} {what}")
    listed = list(islice(items, cap + 1))
    if len(listed) > cap:
        raise too_many
    return listed
