"""The library face of sweeps, comparisons, balance searches and batch runs.

Each function runs a ``Study`` on a backend (one process, local worker processes, or a Dask
cluster), and returns a ``Result``: the summary (a JSON-ready dict), the tidy tables (one row
per variant; casualties per side and combatant), pandas DataFrames, and, when kept in memory,
the per-battle records. With ``out`` it also writes them to that folder (``summary.json``,
``table.csv``, ``table.parquet``, ``casualties.csv``, ``records/NNNN/*.csv``) and journals as
it goes, so ``resume=True`` continues an interrupted run.

How a run goes (battles, seed, workers, precision, where to write...) is one ``Options``
object, built from each function's keyword arguments: the entry points differ only in what
they run. ``combatsim.api`` is the friendlier face (all cores, a progress bar).
"""

from __future__ import annotations

import functools
import os
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pandas as pd

from ..backends import make_backend
from ..batch import CHUNK_SIZE, Runner, one_at_a_time, summarize, table
from ..errors import UsageError, check_range
from ..folder import fault, writing
from ..folder import remove_stale as _remove_stale
from ..output import (
    BATTLES_CSV,
    COMBATANTS_CSV,
    SUMMARY_JSON,
    casualty_table,
    concat_csv,
    summary_table,
    write_casualties,
    write_csv,
    write_summary,
    write_table,
)
from .fields import (
    FieldPath,
    Variant,
    Vary,
    apply,
    as_written,
    grid,
    label_of,
    make_vary,
    parse_values,
)
from .fields import parse_vary as _parse_vary
from .study import DEFAULT_MAX_BATTLES, Pairing, Settings, Study, paired_differences
from .targets import check_aim, parse_aim

RECORDS_DIR = "records"
DIFFERENCES_CSV = "differences.csv"


@dataclass
class Result:
    """What a run, batch of scenarios, sweep, comparison or balance search produced: the one
    result type of ``combatsim.simulate``, ``run_many``, ``sweep``, ``compare`` and
    ``balance``.

    ``kind``: ``run``, ``runs``, ``sweep``, ``compare`` or ``balance``. ``summary``: JSON-ready
    (also ``summary.json``); ``table``: one row per scenario or variant (also ``table.csv`` and
    ``table.parquet``); ``casualties``: per side, combatant and copy (of each variant), the
    share of battles it ended down and dead (also ``casualties.csv``); ``battles`` /
    ``combatants``: the kept per-battle records in memory (a ``variant`` column first when
    there are several variants), None when not kept or written to files instead; ``files``:
    what was written; ``complete``: False if the run was interrupted (then ``resume`` can
    finish it); ``extra``: a comparison's ``differences`` table.
    """

    kind: str
    summary: dict[str, Any]
    table: pd.DataFrame
    casualties: pd.DataFrame = field(default_factory=pd.DataFrame)
    battles: pd.DataFrame | None = None
    combatants: pd.DataFrame | None = None
    files: list[Path] = field(default_factory=list)
    complete: bool = True
    extra: dict[str, Any] = field(default_factory=dict)

    @property
    def interrupted(self) -> bool:
        return not self.complete

    def __repr__(self) -> str:
        from ..output import format_runs, format_summary, format_table

        n = self.summary.get("battles_completed", 0)
        head = f"<combatsim result: {self.kind}, {n} battles"
        head += ", interrupted>" if self.interrupted else ">"
        if self.kind == "run":
            return f"{head}\n{format_summary(self.summary)}"
        if self.kind == "runs":
            return f"{head}\n{format_runs(self.summary['runs'])}"
        if self.kind == "explain":  # the ranked levers in words; the numbers are in .table
            from .explain import battles_note, plain_summary

            words = "\n".join(f"  {line}" for line in plain_summary(self.summary))
            return f"{head}\n{words}\n  {battles_note(self.summary)}"
        labels = [c for c in self.table.columns[: list(self.table.columns).index("battles")]]
        # A comparison's rows are told apart by A/B and the changes; a sweep's by its values.
        skip = {"scenario", "source", "system", "seed"} if self.kind == "compare" else {"variant"}
        labels = [c for c in labels if c not in skip]
        text = format_table(self.table, labels) if len(self.table) else "(no battles finished)"
        for d in self.summary.get("differences") or ():
            if d["difference"] is not None:
                text += (
                    f"\n  B - A, {d['side']}: {d['difference']:+.1%} "
                    f"({d['ci95'][0]:+.1%} to {d['ci95'][1]:+.1%}), p = {d['p_value']:.3g}"
                )
        return f"{head}\n{text}"


StudyResult = Result  # the name before the five entry points shared it


@dataclass(frozen=True)
class Options:
    """How a study runs: what every entry point takes besides its own arguments.

    ``battles`` per scenario or variant (with ``precision``, the first round); ``seed`` the
    root seed (None: each scenario's own); ``precision``: run until every reported interval
    reaches no further than this from its estimate, at most ``max_battles``; ``records``:
    ``"none"``, ``"battles"`` or ``"all"`` (None: the entry point's default); ``workers``:
    local processes (None: all cores), or ``scheduler``, a Dask scheduler address;
    ``runner``: runs one battle (default ``combatsim.engine.run_battle``); ``progress(done,
    total)`` is called after each chunk; ``out``: a folder to write and journal into (then
    ``resume=True`` finishes an interrupted run there); ``chunk_size``: battles per unit of
    work (no number depends on it); ``meta``: stored with the run for ``resume``; ``force``:
    write into a folder holding files combatsim did not write (they are left as they are).
    """

    battles: int = 1000
    seed: int | None = None
    precision: float | None = None
    max_battles: int = DEFAULT_MAX_BATTLES
    records: str | None = None
    workers: int | None = 1
    scheduler: str | None = None
    runner: Runner | None = None
    progress: Callable[[int, int], None] | None = None
    out: str | os.PathLike | None = None
    resume: bool = False
    chunk_size: int = CHUNK_SIZE
    meta: dict[str, Any] | None = None
    force: bool = False

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
        None for each scenario's own; ``records``: the default when ``self.records`` is None)."""
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
        return Study(
            scenarios if one_at_a_time(scenarios) else list(scenarios),
            settings,
            _runner(self.runner),
            units=units,
            out=self.out,
            resume=self.resume,
            meta={"command": command, **(self.meta or {})},
            progress=self.progress,
            pairing=pairing,
        )

    def backend(self, tasks: int | None = None):
        return make_backend(self.workers, self.scheduler, tasks=tasks)

    def evaluate(self, study: Study) -> bool:
        """Run every unit of ``study`` to its end; False if interrupted."""
        with self.backend() as backend:
            return study.evaluate(backend)


# --- the functions ----------------------------------------------------------------------------


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


@holds_folder
def sweep(scenario, vary, **options: Any) -> Result:
    """Run ``scenario`` (a file or a loaded ``Scenario``) under every combination of ``vary``.

    ``vary``: ``{"NAME:PATH" or "PATH": values}`` (values a list, or text such as ``"2..6"``
    or ``"ak97,fn_har"``), or ``"[NAME:]PATH=VALUES"`` strings, or ``Vary`` objects. Every
    variant runs the same battle seeds (common random numbers). ``options``: see
    ``Options`` (``records`` defaults to ``"none"``). The ``table`` has one row per variant.
    """
    opts = Options(**options)
    base = _load(scenario)
    varies = varies_from(vary)
    if not varies:
        raise UsageError("vary", vary, "at least one field to vary")
    variants = grid(base, varies)
    # The scenario as written is a row too (the baseline), unless a variant is exactly it;
    # it comes last, so the grid's variant numbers do not depend on it.
    baseline = next((i for i, v in enumerate(variants) if _same(v.scenario, base)), None)
    in_grid = baseline is not None
    if baseline is None:
        variants.append(as_written(base, varies))
        baseline = len(variants) - 1
    root = base.seed if opts.seed is None else opts.seed
    study = opts.study([v.scenario for v in variants], "sweep", root)
    complete = opts.evaluate(study)
    summaries = [_variant_summary(study, i, v) for i, v in enumerate(variants)]
    for i, one in enumerate(summaries):
        one["baseline"] = i == baseline
    summary = {
        "kind": "sweep",
        **_about(base),
        "seed": root,
        "vary": [v.to_json() for v in varies],
        "baseline": {"variant": baseline, "in_grid": in_grid},
        "battles_requested": opts.battles,
        "battles_completed": sum(s["battles_completed"] for s in summaries),
        "interrupted": not complete,
        "precision": study.precision_report(),
        "variants": summaries,
    }
    labels = [{"variant": i, "baseline": i == baseline, **v.values} for i, v in enumerate(variants)]
    return _finish(study, "sweep", summary, summaries, labels, list(range(len(variants))), complete)


@holds_folder
def run_many(scenarios: Sequence[Any], **options: Any) -> Result:
    """Several scenarios (files or loaded ``Scenario``s), each under its own seed unless
    ``seed`` is given: one table row each. ``options``: see ``Options``."""
    opts = Options(**options)
    loaded = [_load(s) for s in scenarios]
    if not loaded:
        raise UsageError("scenarios", scenarios, "at least one scenario file")
    study = opts.study(loaded, "run", opts.seed)
    complete = opts.evaluate(study)
    summaries = []
    for i, scenario in enumerate(loaded):
        one = summarize(study.tally(i), scenario, study.seeds[i], study.requested(i), not complete)
        summaries.append({"variant": i, **one})
    summary = {
        "kind": "runs",
        "seed": opts.seed,
        "battles_requested": opts.battles,
        "battles_completed": sum(s["battles_completed"] for s in summaries),
        "interrupted": not complete,
        "precision": study.precision_report(),
        "runs": summaries,
    }
    labels = [
        {
            "variant": i,
            "scenario": s.name,
            "source": str(s.source),
            "system": s.system.name,
            "seed": study.seeds[i],
        }
        for i, s in enumerate(loaded)
    ]
    return _finish(study, "runs", summary, summaries, labels, list(range(len(loaded))), complete)


@holds_folder
def run_one(scenario, **options: Any) -> Result:
    """One scenario, written as ``combatsim run`` always has: ``battles.csv`` and
    ``combatants.csv`` (as ``records`` keeps them; default ``"all"``), ``casualties.csv``
    and ``summary.json``. ``options``: see ``Options``."""
    opts = Options(**options)
    loaded = _load(scenario)
    root = loaded.seed if opts.seed is None else opts.seed
    study = opts.study([loaded], "run", root, records="all")
    records = study.settings.records
    tasks = None if opts.precision is not None else -(-opts.battles // opts.chunk_size)
    with opts.backend(tasks) as backend:
        complete = study.evaluate(backend)
    summary = summarize(study.tally(0), loaded, root, study.requested(0), not complete)
    report = study.precision_report()
    if report is not None:
        summary["precision"] = report
    result = Result(
        "run",
        summary,
        summary_table([summary]),
        casualties=casualty_table([summary]),
        complete=complete,
    )
    if opts.out is None:
        result.battles = table(study.rows(0, "battles")) if records != "none" else None
        result.combatants = table(study.rows(0, "combatants")) if records == "all" else None
        return result
    folder = Path(opts.out)
    kinds = {"none": (), "battles": ("battles",), "all": ("battles", "combatants")}[records]
    names = {"battles": BATTLES_CSV, "combatants": COMBATANTS_CSV}
    for kind in kinds:
        result.files.append(concat_csv(study.record_files(0, kind), folder / names[kind]))
    result.files += write_casualties([summary], folder)
    return seal(study, folder, result, summary, complete)


@holds_folder
def compare(
    a, b=None, *, a_sets: Sequence[Any] = (), b_sets: Sequence[Any] = (), **options: Any
) -> Result:
    """Scenario ``a`` against ``b`` (default: ``a`` again), each with fields set
    (``a_sets``/``b_sets``: ``"PATH=VALUE"`` strings or ``(path, value)`` pairs).

    Battle ``i`` of A and of B run from the same seed, side by side, and their winners are
    tallied as pairs: the difference in each side's win rate (B minus A) gets Newcombe's
    paired interval and McNemar's exact p-value (``summary["differences"]``,
    ``result.extra["differences"]`` as a table). With ``precision``, battles continue until
    every side's difference interval reaches no further than ``precision``. ``options``:
    see ``Options``.
    """
    opts = Options(**options)
    first, second = _load(a), _load(a if b is None else b)
    sets_a, sets_b = _sets(a_sets, "--a"), _sets(b_sets, "--b")
    if b is None and not sets_a and not sets_b:
        raise UsageError("compare", "one scenario", "two scenarios, or fields set with --a/--b")
    variant_a = _variant("A", first, sets_a)
    variant_b = _variant("B", second, sets_b)
    if len(variant_a.scenario.sides) != len(variant_b.scenario.sides):
        raise UsageError(
            "compare",
            f"{len(variant_a.scenario.sides)} and {len(variant_b.scenario.sides)} sides",
            "two scenarios with the same number of sides (compared by position)",
        )
    root = first.seed if opts.seed is None else opts.seed
    scenarios = [variant_a.scenario, variant_b.scenario]
    study = opts.study(scenarios, "compare", root, units=[(0, 1)])
    complete = opts.evaluate(study)
    summaries = [_variant_summary(study, i, v) for i, v in enumerate((variant_a, variant_b))]
    for one, variant in zip(summaries, (variant_a, variant_b), strict=True):
        one["changes"] = _changes(variant)
    differences = paired_differences(study.tally(0), study.tally(1), study.pairs((0, 1)))
    summary = {
        "kind": "compare",
        "seed": root,
        "battles_requested": opts.battles,
        "battles_completed": summaries[0]["battles_completed"],
        "interrupted": not complete,
        "precision": study.precision_report(),
        "a": summaries[0],
        "b": summaries[1],
        "differences": differences,
    }
    labels = [
        {"variant": v.values["variant"], "scenario": v.scenario.name, "changes": _changes(v)}
        for v in (variant_a, variant_b)
    ]
    result = _finish(study, "compare", summary, summaries, labels, [0, 1], complete)
    frame = pd.DataFrame.from_records(
        [
            {
                "side": d["side"],
                "a": d["a"],
                "b": d["b"],
                "difference": d["difference"],
                "ci_low": d["ci95"][0],
                "ci_high": d["ci95"][1],
                "p_value": d["p_value"],
                "significant": d["significant"],
            }
            for d in differences
        ]
    )
    result.extra["differences"] = frame
    if opts.out is not None:
        result.files.append(write_csv(frame, Path(opts.out) / DIFFERENCES_CSV))
        remove_stale(Path(opts.out), result.files)
    return result


@holds_folder
def balance(
    scenario,
    vary,
    side: str | None = None,
    target: float | str = 0.5,
    *,
    search: str = "auto",
    **options: Any,
) -> Result:
    """Which value of one field brings a reported rate closest to ``target``?

    ``target``: a rate for ``side`` to win (a number), or any rate a summary reports, as text
    (``combatsim.sweeps.targets``): ``"runners down <= 0.3"``, ``"Razor dead = 5%"``,
    ``"draw <= 0.1"``. ``search="grid"`` runs every value; ``"bisect"`` assumes the rate
    rises or falls with the value (in the order given) and halves the range until two
    neighbouring values straddle the target, then runs the best value's neighbours;
    ``"auto"`` bisects numbers when there are five values or more. The summary's ``best`` is
    the evaluated value whose rate is closest to the target (with ``<=`` or ``>=``: closest
    among those that keep to it, if any do; ``meets`` says), with its interval and whether
    the interval holds the target; ``neighbours`` are the values either side of it. Every
    value runs the same battle seeds. ``options``: see ``Options``.
    """
    opts = Options(**options)
    base = _load(scenario)
    varies = varies_from(vary)
    if len(varies) != 1:
        raise UsageError("--vary", [v.name for v in varies], "exactly one field to vary")
    aim = parse_aim(target, side)
    if search not in ("auto", "grid", "bisect"):
        raise UsageError("--search", search, "auto, grid or bisect")
    the_vary = varies[0]
    labels_ = the_vary.labels
    if search == "auto":
        numeric = all(isinstance(v, int | float) and not isinstance(v, bool) for v in labels_)
        search = "bisect" if numeric and len(labels_) >= 5 else "grid"
    variants = grid(base, varies)
    check_aim(aim, [v.scenario for v in variants])
    root = base.seed if opts.seed is None else opts.seed
    study = opts.study([v.scenario for v in variants], "balance", root)
    evaluated: list[int] = []
    goal = aim.value

    def rate(i: int) -> float | None:
        return aim.of(study.tally(i).outcomes())[0]

    with opts.backend() as backend:

        def run(indexes) -> bool:
            todo = [i for i in dict.fromkeys(indexes) if i not in evaluated]
            if not todo:
                return True
            done = study.evaluate(backend, [(i,) for i in todo])
            if done:
                evaluated.extend(todo)
            return done

        last = len(variants) - 1
        if search == "grid":
            complete = run(range(len(variants)))
        else:
            low, high = 0, last
            complete = run([low, high])
            ends = rate(low), rate(high)
            if complete and None not in ends and (ends[0] - goal) * (ends[1] - goal) < 0:
                while complete and high - low > 1:
                    mid = (low + high) // 2
                    complete = run([mid])
                    if not complete or rate(mid) is None:
                        break
                    if rate(mid) == goal:
                        low = high = mid
                    elif (rate(mid) > goal) == (rate(low) > goal):
                        low = mid
                    else:
                        high = mid
        best = None
        known = [i for i in sorted(evaluated) if rate(i) is not None]
        if complete and known:
            keeping = [i for i in known if aim.meets(rate(i))] or known
            best = min(keeping, key=lambda i: abs(rate(i) - goal))
            complete = run([i for i in (best - 1, best + 1) if 0 <= i <= last])

    shown = sorted(evaluated)
    summaries = {i: _variant_summary(study, i, variants[i]) for i in shown}
    rates = [r for r in (rate(i) for i in shown) if r is not None]
    steps = list(zip(rates, rates[1:], strict=False))
    monotone = all(x <= y for x, y in steps) or all(x >= y for x, y in steps)
    aim_side = next(
        (s for s in (aim.side_of(summaries[i]) for i in shown) if s is not None),
        aim.who if aim.rate == "win" else base.sides[0].name,
    )

    def point(i: int) -> dict[str, Any]:
        value, interval = aim.of(summaries[i])
        wins = summaries[i]["sides"].get(aim_side, {})
        return {
            "variant": i,
            "value": variants[i].values[the_vary.name],
            "rate": value,
            "ci95": interval,
            "target_in_interval": interval is not None and interval[0] <= goal <= interval[1],
            "meets": value is not None and aim.meets(value),
            "win_rate": wins.get("win_rate"),
            "win_ci95": wins.get("ci95"),
        }

    summary = {
        "kind": "balance",
        **_about(base),
        "seed": root,
        "vary": the_vary.to_json(),
        "side": aim_side,
        "target": goal,
        "aim": {**aim.to_json(), "text": aim.text},
        "search": search,
        "battles_requested": opts.battles,
        "battles_completed": sum(s["battles_completed"] for s in summaries.values()),
        "interrupted": not complete,
        "precision": study.precision_report(),
        "best": point(best) if best is not None else None,
        "neighbours": (
            [point(i) for i in (best - 1, best + 1) if i in summaries] if best is not None else []
        ),
        "monotone": monotone,
        "variants": [summaries[i] for i in shown],
    }
    labels = [{"variant": i, **variants[i].values} for i in shown]
    return _finish(
        study, "balance", summary, [summaries[i] for i in shown], labels, shown, complete
    )


# --- helpers ----------------------------------------------------------------------------------


def varies_from(vary) -> list[Vary]:
    """``Vary`` objects from the forms ``sweep`` accepts."""
    if vary is None:
        return []
    if isinstance(vary, Vary | str):
        vary = [vary]
    if isinstance(vary, Mapping):
        out = []
        for key, values in vary.items():
            name, _, path = key.partition(":") if ":" in key.split("[")[0] else ("", "", key)
            if isinstance(values, str):
                pairs = parse_values(values, key)
            else:
                pairs = [(label_of(v), v) for v in values]
            out.append(make_vary(name or path, FieldPath.parse(path), pairs))
        return out
    out = []
    for item in vary:
        out.append(item if isinstance(item, Vary) else _parse_vary(item))
    return out


def _sets(sets: Sequence[Any], argument: str) -> list[tuple[FieldPath, Any]]:
    out = []
    for item in sets:
        if isinstance(item, str):
            vary = _parse_vary(item, argument)
            if len(vary.values) != 1:
                raise UsageError(argument, item, "PATH=VALUE with a single value")
            out.append((vary.path, vary.values[0][1]))
        else:
            if isinstance(item, str | bytes) or not isinstance(item, Sequence) or len(item) != 2:
                raise UsageError(argument, item, "'PATH=VALUE' or a (path, value) pair")
            path, value = item
            out.append((FieldPath.parse(path) if isinstance(path, str) else path, value))
    return out


def _variant(name: str, scenario, sets) -> Variant:
    built = apply(scenario, sets, f"{name}") if sets else scenario
    return Variant({"variant": name}, built, tuple((p.text, v) for p, v in sets))


def _changes(variant: Variant) -> str:
    return "; ".join(f"{p}={label_of(v)}" for p, v in variant.settings)


def _load(scenario):
    if isinstance(scenario, str | os.PathLike):
        from ..scenario import load_scenario

        return load_scenario(scenario)
    return scenario


def _runner(runner: Runner | None) -> Runner:
    if runner is None:
        from ..engine import run_battle

        return run_battle
    return runner


def _about(scenario) -> dict[str, Any]:
    return {
        "scenario": scenario.name,
        "source": str(scenario.source),
        "system": scenario.system.name,
    }


def _same(one, other) -> bool:
    """Whether two scenarios fight the same battles (a variant that sets a field to what the
    file, or the archetype, already gives)."""
    rules = (one.data or {}).get("rules"), (other.data or {}).get("rules")
    return (
        one.sides == other.sides
        and one.environment == other.environment
        and (one.turn_limit, one.victory, one.name) == (other.turn_limit, other.victory, other.name)
        and one.description == other.description
        and rules[0] == rules[1]
    )


def _variant_summary(study: Study, i: int, variant: Variant) -> dict[str, Any]:
    scenario = variant.scenario
    return {
        "variant": i,
        "values": dict(variant.values),
        **_about(scenario),
        "seed": study.seeds[i],
        "battles_requested": study.requested(i),
        **study.tally(i).outcomes(),
    }


def _finish(
    study: Study,
    kind: str,
    summary: dict[str, Any],
    summaries: list[dict[str, Any]],
    labels: list[dict[str, Any]],
    variants: list[int],
    complete: bool,
) -> Result:
    frame = summary_table(summaries, labels)
    casualties = casualty_table(summaries, labels)
    result = Result(kind, summary, frame, casualties=casualties, complete=complete)
    records = study.settings.records
    kinds = {"none": (), "battles": ("battles",), "all": ("battles", "combatants")}[records]
    if study.out is None:
        for kind_ in kinds:
            frames = []
            for label, i in zip(labels, variants, strict=True):
                part = table(study.rows(i, kind_))
                if not part.empty:
                    part.insert(0, "variant", label["variant"])
                    frames.append(part)
            joined = pd.concat(frames, ignore_index=True) if frames else pd.DataFrame()
            setattr(result, kind_, joined)
        return result
    folder = study.out
    result.files += write_table(frame, folder)
    result.files += write_casualties(summaries, folder, labels)
    result.files += write_records(study, folder, variants)
    # compare adds its differences first, then removes what is stale itself
    return seal(study, folder, result, summary, complete, stale=kind != "compare")


def write_records(study: Study, folder: Path, variants: Sequence[int]) -> list[Path]:
    """Each variant's records, as the study keeps them, in ``records/NNNN/<kind>.csv``."""
    records = study.settings.records
    kinds = {"none": (), "battles": ("battles",), "all": ("battles", "combatants")}[records]
    files = []
    for kind in kinds:
        for i in variants:
            target = folder / RECORDS_DIR / f"{i:04d}" / f"{kind}.csv"
            target.parent.mkdir(parents=True, exist_ok=True)
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
