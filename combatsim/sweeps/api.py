"""The library face of sweeps, comparisons, balance searches and batch runs.

Each function runs a ``Study`` on a backend (one process, local worker processes, or a Dask
cluster), and returns a ``StudyResult``: the summary (a JSON-ready dict), the tidy table (one
row per variant, a pandas DataFrame) and, when kept in memory, the per-battle records. With
``out`` it also writes them to that folder (``summary.json``, ``table.csv``,
``table.parquet``, ``records/NNNN/*.csv``) and journals as it goes, so ``resume=True``
continues an interrupted run.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pandas as pd

from ..backends import make_backend
from ..batch import CHUNK_SIZE, Runner, summarize, table
from ..errors import UsageError, check_range, did_you_mean
from ..output import (
    BATTLES_CSV,
    COMBATANTS_CSV,
    SUMMARY_JSON,
    concat_csv,
    summary_table,
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
from .study import DEFAULT_MAX_BATTLES, Settings, Study, paired_differences

RECORDS_DIR = "records"
DIFFERENCES_CSV = "differences.csv"
# Result files a folder may hold from an earlier run (see ``remove_stale``).
OUTPUTS = (BATTLES_CSV, COMBATANTS_CSV, "table.csv", "table.parquet", DIFFERENCES_CSV)


@dataclass
class StudyResult:
    """What a sweep, comparison, balance search or batch run produced.

    ``summary``: JSON-ready (also ``summary.json``); ``table``: one row per variant (also
    ``table.csv`` and ``table.parquet``); ``battles`` / ``combatants``: the kept per-battle
    records in memory (a ``variant`` column first when there are several variants), None when
    not kept or written to files instead; ``files``: what was written; ``complete``: False if
    the run was interrupted (then ``resume`` can finish it).
    """

    kind: str
    summary: dict[str, Any]
    table: pd.DataFrame
    battles: pd.DataFrame | None = None
    combatants: pd.DataFrame | None = None
    files: list[Path] = field(default_factory=list)
    complete: bool = True
    extra: dict[str, Any] = field(default_factory=dict)

    @property
    def interrupted(self) -> bool:
        return not self.complete


# --- the functions ----------------------------------------------------------------------------


def sweep(
    scenario,
    vary,
    *,
    battles: int = 1000,
    seed: int | None = None,
    precision: float | None = None,
    max_battles: int = DEFAULT_MAX_BATTLES,
    records: str = "none",
    workers: int | None = 1,
    scheduler: str | None = None,
    runner: Runner | None = None,
    progress: Callable[[int, int], None] | None = None,
    out: str | os.PathLike | None = None,
    resume: bool = False,
    chunk_size: int = CHUNK_SIZE,
    meta: dict[str, Any] | None = None,
) -> StudyResult:
    """Run ``scenario`` (a file or a loaded ``Scenario``) under every combination of ``vary``.

    ``vary``: ``{"NAME:PATH" or "PATH": values}`` (values a list, or text such as ``"2..6"``
    or ``"ak97,fn_har"``), or ``"[NAME:]PATH=VALUES"`` strings, or ``Vary`` objects. Every
    variant runs the same battle seeds (common random numbers). ``battles`` per variant, or
    with ``precision`` the first round of battles: then each variant runs until each side's
    95% interval reaches no further than ``precision`` from its win rate (at most
    ``max_battles``). ``records``: ``"none"``, ``"battles"`` or ``"all"``. ``workers``: local
    processes (None: all cores); ``scheduler``: a Dask scheduler address instead.
    Returns a ``StudyResult`` whose ``table`` has one row per variant.
    """
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
    root = base.seed if seed is None else seed
    settings = Settings(root, battles, precision, max_battles, chunk_size, records)
    study = Study(
        [v.scenario for v in variants],
        settings,
        _runner(runner),
        out=out,
        resume=resume,
        meta={"command": "sweep", **(meta or {})},
        progress=progress,
    )
    complete = _evaluate(study, workers, scheduler)
    summaries = [_variant_summary(study, i, v) for i, v in enumerate(variants)]
    for i, one in enumerate(summaries):
        one["baseline"] = i == baseline
    summary = {
        "kind": "sweep",
        **_about(base),
        "seed": root,
        "vary": [v.to_json() for v in varies],
        "baseline": {"variant": baseline, "in_grid": in_grid},
        "battles_requested": battles,
        "battles_completed": sum(s["battles_completed"] for s in summaries),
        "interrupted": not complete,
        "precision": study.precision_report(),
        "variants": summaries,
    }
    labels = [{"variant": i, "baseline": i == baseline, **v.values} for i, v in enumerate(variants)]
    return _finish(study, "sweep", summary, summaries, labels, list(range(len(variants))), complete)


def run_many(
    scenarios: Sequence[Any],
    *,
    battles: int = 1000,
    seed: int | None = None,
    precision: float | None = None,
    max_battles: int = DEFAULT_MAX_BATTLES,
    records: str = "none",
    workers: int | None = 1,
    scheduler: str | None = None,
    runner: Runner | None = None,
    progress: Callable[[int, int], None] | None = None,
    out: str | os.PathLike | None = None,
    resume: bool = False,
    chunk_size: int = CHUNK_SIZE,
    meta: dict[str, Any] | None = None,
) -> StudyResult:
    """Several scenarios, each under its own seed unless ``seed`` is given: one table row each."""
    loaded = [_load(s) for s in scenarios]
    if not loaded:
        raise UsageError("scenarios", scenarios, "at least one scenario file")
    settings = Settings(seed, battles, precision, max_battles, chunk_size, records)
    study = Study(
        loaded,
        settings,
        _runner(runner),
        out=out,
        resume=resume,
        meta={"command": "run", **(meta or {})},
        progress=progress,
    )
    complete = _evaluate(study, workers, scheduler)
    summaries = []
    for i, scenario in enumerate(loaded):
        one = summarize(study.tally(i), scenario, study.seeds[i], study.requested(i), not complete)
        summaries.append({"variant": i, **one})
    summary = {
        "kind": "runs",
        "seed": seed,
        "battles_requested": battles,
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


def run_one(
    scenario,
    *,
    battles: int = 1000,
    seed: int | None = None,
    precision: float | None = None,
    max_battles: int = DEFAULT_MAX_BATTLES,
    records: str = "all",
    workers: int | None = 1,
    scheduler: str | None = None,
    runner: Runner | None = None,
    progress: Callable[[int, int], None] | None = None,
    out: str | os.PathLike | None = None,
    resume: bool = False,
    chunk_size: int = CHUNK_SIZE,
    meta: dict[str, Any] | None = None,
) -> StudyResult:
    """One scenario, written as ``combatsim run`` always has: ``battles.csv`` and
    ``combatants.csv`` (as ``records`` keeps them) and ``summary.json``."""
    loaded = _load(scenario)
    root = loaded.seed if seed is None else seed
    settings = Settings(root, battles, precision, max_battles, chunk_size, records)
    study = Study(
        [loaded],
        settings,
        _runner(runner),
        out=out,
        resume=resume,
        meta={"command": "run", **(meta or {})},
        progress=progress,
    )
    tasks = None if precision is not None else -(-battles // chunk_size)
    with make_backend(workers, scheduler, tasks=tasks) as backend:
        complete = study.evaluate(backend)
    summary = summarize(study.tally(0), loaded, root, study.requested(0), not complete)
    report = study.precision_report()
    if report is not None:
        summary["precision"] = report
    result = StudyResult("run", summary, summary_table([summary]), complete=complete)
    if out is None:
        result.battles = table(study.rows(0, "battles")) if records != "none" else None
        result.combatants = table(study.rows(0, "combatants")) if records == "all" else None
        return result
    folder = Path(out)
    kinds = {"none": (), "battles": ("battles",), "all": ("battles", "combatants")}[records]
    names = {"battles": BATTLES_CSV, "combatants": COMBATANTS_CSV}
    for kind in kinds:
        result.files.append(concat_csv(study.record_files(0, kind), folder / names[kind]))
    result.files.append(write_summary(summary, folder / SUMMARY_JSON))
    remove_stale(folder, result.files, study.had_results)
    if complete:
        study.cleanup()
    else:
        study.close()
    return result


def compare(
    a,
    b=None,
    *,
    a_sets: Sequence[Any] = (),
    b_sets: Sequence[Any] = (),
    battles: int = 1000,
    seed: int | None = None,
    precision: float | None = None,
    max_battles: int = DEFAULT_MAX_BATTLES,
    records: str = "none",
    workers: int | None = 1,
    scheduler: str | None = None,
    runner: Runner | None = None,
    progress: Callable[[int, int], None] | None = None,
    out: str | os.PathLike | None = None,
    resume: bool = False,
    chunk_size: int = CHUNK_SIZE,
    meta: dict[str, Any] | None = None,
) -> StudyResult:
    """Scenario ``a`` against ``b`` (default: ``a`` again), each with fields set
    (``a_sets``/``b_sets``: ``"PATH=VALUE"`` strings or ``(path, value)`` pairs).

    Battle ``i`` of A and of B run from the same seed, side by side, and their winners are
    tallied as pairs: the difference in each side's win rate (B minus A) gets Newcombe's
    paired interval and McNemar's exact p-value (``summary["differences"]``,
    ``result.extra["differences"]`` as a table). With ``precision``, battles continue until
    every side's difference interval reaches no further than ``precision``.
    """
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
    root = first.seed if seed is None else seed
    settings = Settings(root, battles, precision, max_battles, chunk_size, records)
    study = Study(
        [variant_a.scenario, variant_b.scenario],
        settings,
        _runner(runner),
        units=[(0, 1)],
        out=out,
        resume=resume,
        meta={"command": "compare", **(meta or {})},
        progress=progress,
    )
    complete = _evaluate(study, workers, scheduler)
    summaries = [_variant_summary(study, i, v) for i, v in enumerate((variant_a, variant_b))]
    for one, variant in zip(summaries, (variant_a, variant_b), strict=True):
        one["changes"] = _changes(variant)
    differences = paired_differences(study.tally(0), study.tally(1), study.pairs((0, 1)))
    summary = {
        "kind": "compare",
        "seed": root,
        "battles_requested": battles,
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
    if out is not None:
        result.files.append(write_csv(frame, Path(out) / DIFFERENCES_CSV))
        remove_stale(Path(out), result.files, study.had_results)
    return result


def balance(
    scenario,
    vary,
    side: str,
    target: float = 0.5,
    *,
    search: str = "auto",
    battles: int = 1000,
    seed: int | None = None,
    precision: float | None = None,
    max_battles: int = DEFAULT_MAX_BATTLES,
    records: str = "none",
    workers: int | None = 1,
    scheduler: str | None = None,
    runner: Runner | None = None,
    progress: Callable[[int, int], None] | None = None,
    out: str | os.PathLike | None = None,
    resume: bool = False,
    chunk_size: int = CHUNK_SIZE,
    meta: dict[str, Any] | None = None,
) -> StudyResult:
    """Which value of one field brings ``side``'s win rate closest to ``target``?

    ``search="grid"`` runs every value; ``"bisect"`` assumes the win rate rises or falls
    with the value (in the order given) and halves the range until two neighbouring values
    straddle the target, then runs the best value's neighbours; ``"auto"`` bisects numbers
    when there are five values or more. The summary's ``best`` is the evaluated value whose
    win rate is closest, with its interval and whether the interval holds the target;
    ``neighbours`` are the values either side of it. Every value runs the same battle seeds.
    """
    base = _load(scenario)
    varies = varies_from(vary)
    if len(varies) != 1:
        raise UsageError("--vary", [v.name for v in varies], "exactly one field to vary")
    sides = [s.name for s in base.sides]
    if side not in sides:
        raise UsageError("--side", side, "one of " + ", ".join(sides), did_you_mean(side, sides))
    if not 0 <= target <= 1:
        raise UsageError("--target", target, "a win rate from 0 to 1")
    if search not in ("auto", "grid", "bisect"):
        raise UsageError("--search", search, "auto, grid or bisect")
    the_vary = varies[0]
    labels_ = the_vary.labels
    if search == "auto":
        numeric = all(isinstance(v, int | float) and not isinstance(v, bool) for v in labels_)
        search = "bisect" if numeric and len(labels_) >= 5 else "grid"
    variants = grid(base, varies)
    root = base.seed if seed is None else seed
    settings = Settings(root, battles, precision, max_battles, chunk_size, records)
    study = Study(
        [v.scenario for v in variants],
        settings,
        _runner(runner),
        out=out,
        resume=resume,
        meta={"command": "balance", **(meta or {})},
        progress=progress,
    )
    evaluated: list[int] = []

    def rate(i: int) -> float:
        return study.tally(i).outcomes()["sides"][side]["win_rate"]

    with make_backend(workers, scheduler) as backend:

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
            if complete and (rate(low) - target) * (rate(high) - target) < 0:
                while complete and high - low > 1:
                    mid = (low + high) // 2
                    complete = run([mid])
                    if not complete:
                        break
                    if rate(mid) == target:
                        low = high = mid
                    elif (rate(mid) > target) == (rate(low) > target):
                        low = mid
                    else:
                        high = mid
        best = None
        if complete and evaluated:
            best = min(sorted(evaluated), key=lambda i: abs(rate(i) - target))
            complete = run([i for i in (best - 1, best + 1) if 0 <= i <= last])

    shown = sorted(evaluated)
    summaries = {i: _variant_summary(study, i, variants[i]) for i in shown}
    rates = [rate(i) for i in shown]
    steps = list(zip(rates, rates[1:], strict=False))
    monotone = all(x <= y for x, y in steps) or all(x >= y for x, y in steps)

    def point(i: int) -> dict[str, Any]:
        stats = summaries[i]["sides"][side]
        return {
            "variant": i,
            "value": variants[i].values[the_vary.name],
            "win_rate": stats["win_rate"],
            "ci95": stats["ci95"],
            "target_in_interval": stats["ci95"][0] <= target <= stats["ci95"][1],
        }

    summary = {
        "kind": "balance",
        **_about(base),
        "seed": root,
        "vary": the_vary.to_json(),
        "side": side,
        "target": target,
        "search": search,
        "battles_requested": battles,
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


def _evaluate(study: Study, workers: int | None, scheduler: str | None) -> bool:
    if workers is not None:
        check_range("workers", workers, 1)
    with make_backend(workers, scheduler) as backend:
        return study.evaluate(backend)


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
) -> StudyResult:
    frame = summary_table(summaries, labels)
    result = StudyResult(kind, summary, frame, complete=complete)
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
    for kind_ in kinds:
        for i in variants:
            target = folder / RECORDS_DIR / f"{i:04d}" / f"{kind_}.csv"
            target.parent.mkdir(parents=True, exist_ok=True)
            result.files.append(concat_csv(study.record_files(i, kind_), target))
    result.files.append(write_summary(summary, folder / SUMMARY_JSON))
    if kind != "compare":  # compare adds its differences first
        remove_stale(folder, result.files, study.had_results)
    if complete:
        study.cleanup()
    else:
        study.close()
    return result


def remove_stale(folder: Path, written: Sequence[Path], had_results: bool = True) -> None:
    """Remove what an earlier run left in ``folder`` and this run did not write again.

    Only in a folder that held results before (a ``summary.json``), and only combatsim's own
    names: the result files, ``records/NNNN/*.csv``, ``plots/*.png`` of the report's names and
    ``report.html``.
    """
    if not had_results:
        return
    from ..report import PLOT_NAMES, REPORT_HTML

    kept = {Path(p).resolve() for p in written}
    candidates = [folder / name for name in (*OUTPUTS, REPORT_HTML)]
    records = folder / RECORDS_DIR
    if records.is_dir():
        for sub in records.iterdir():
            if sub.is_dir() and sub.name.isdigit():
                candidates += [sub / BATTLES_CSV, sub / COMBATANTS_CSV]
    candidates += [folder / "plots" / f"{name}.png" for name in PLOT_NAMES]
    for path in candidates:
        if path.is_file() and path.resolve() not in kept:
            path.unlink()
    for sub in [*(records.iterdir() if records.is_dir() else ()), records, folder / "plots"]:
        if sub.is_dir() and not any(sub.iterdir()):
            sub.rmdir()
