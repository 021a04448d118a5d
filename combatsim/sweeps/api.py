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

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import pandas as pd

from ..chains.loader import load_study_subject
from ..errors import UsageError
from ..output import (
    BATTLES_CSV,
    COMBATANTS_CSV,
    attack_table,
    casualty_table,
    concat_csv,
    file_labels,
    tidy_table,
    write_attacks,
    write_casualties,
    write_csv,
)
from ..run import OneRun, Options, holds_folder, load, paired_differences, summarize
from .fields import (
    FieldPath,
    Variant,
    Vary,
    as_written,
    grid,
    label_of,
    make_vary,
    parse_values,
    set_fields,
    sets_from,
    variant_of,
)
from .fields import parse_vary as _parse_vary
from .results import (
    DIFFERENCES_CSV,
    Records,
    Result,
    about,
    finish,
    record_kinds,
    remove_stale,
    seal,
    variant_summary,
)
from .targets import check_aim, parse_aim

__all__ = ["Options", "Result", "balance", "compare", "run_many", "run_one", "sweep"]


# --- the functions ----------------------------------------------------------------------------


@holds_folder
def sweep(scenario, vary, **options: Any) -> Result:
    """Run ``scenario`` (a file or a loaded ``Scenario``) under every combination of ``vary``.

    ``vary``: ``{"NAME:PATH" or "PATH": values}`` (values a list, or text such as ``"2..6"``
    or ``"ak97,fn_har"``), or ``"[NAME:]PATH=VALUES"`` strings, or ``Vary`` objects. Every
    variant runs the same battle seeds (common random numbers). ``options``: see
    ``Options`` (``records`` defaults to ``"none"``). The ``table`` has one row per variant
    and side, the varied values as columns.
    """
    opts = Options(**options)
    base = load_study_subject(scenario)
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
    root = opts.root_seed(base)
    study = opts.study([v.scenario for v in variants], "sweep", root)
    complete = opts.evaluate(study)
    summaries = [variant_summary(study, i, v) for i, v in enumerate(variants)]
    for i, one in enumerate(summaries):
        one["baseline"] = i == baseline
    summary = {
        "kind": "sweep",
        **about(base),
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
    return finish(study, "sweep", summary, summaries, labels, list(range(len(variants))), complete)


@holds_folder
def run_many(scenarios: Sequence[Any], **options: Any) -> Result:
    """Several scenarios (files or loaded ``Scenario``s), each under its own seed unless
    ``seed`` is given: one table row each. ``options``: see ``Options``."""
    opts = Options(**options)
    loaded = [load(s) for s in scenarios]
    if not loaded:
        raise UsageError("scenarios", scenarios, "at least one scenario file")
    study = opts.study(loaded, "run", opts.seed)
    complete = opts.evaluate(study)
    summaries = []
    files = file_labels([str(s.source) for s in loaded])
    for i, scenario in enumerate(loaded):
        one = summarize(study.tally(i), scenario, study.seeds[i], study.requested(i), not complete)
        summaries.append({"variant": i, "file": files[i], **one})
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
            "file": files[i],
            "scenario": s.name,
            "source": str(s.source),
            "system": s.system.name,
            "seed": study.seeds[i],
        }
        for i, s in enumerate(loaded)
    ]
    return finish(study, "runs", summary, summaries, labels, list(range(len(loaded))), complete)


@holds_folder
def run_one(scenario, *, sets: Sequence[Any] = (), **options: Any) -> Result:
    """One scenario, written as ``combatsim run`` always has: ``battles.csv`` and
    ``combatants.csv`` (as ``records`` keeps them; default ``"all"``), ``casualties.csv``
    and ``summary.json``. ``sets``: fields set first (``"PATH=VALUE"`` strings or
    ``(path, value)`` pairs, as ``compare``'s), recorded as ``summary["sets"]``.
    ``options``: see ``Options``."""
    variant = set_fields(scenario, sets)
    run = OneRun.start(variant.scenario, Options(**options))
    complete = run.evaluate()
    summary = run.summary(complete)
    if variant.settings:
        summary["sets"] = [f"{p}={label_of(v)}" for p, v in variant.settings]
    loaded, study, records, opts = run.scenario, run.study, run.records, run.options
    result = Result(
        "run",
        summary,
        tidy_table([summary]),
        casualties=casualty_table([summary]),
        complete=complete,
    )
    attacks = attack_table(loaded, study.tally(0).attacks)
    result.extra["attacks"] = attacks
    if opts.out is None:
        for kind in record_kinds(records):
            result.records[kind] = Records(((None, list(study.rows(0, kind))),))
        return result
    folder = Path(opts.out)
    names = {"battles": BATTLES_CSV, "combatants": COMBATANTS_CSV}
    for kind in record_kinds(records):
        result.files.append(concat_csv(study.record_files(0, kind), folder / names[kind]))
    result.files += write_casualties([summary], folder)
    result.files += write_attacks(attacks, folder)
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
    first = load_study_subject(a)
    second = first if b is None else load_study_subject(b)
    sets_a, sets_b = sets_from(a_sets, "--a"), sets_from(b_sets, "--b")
    if b is None and not sets_a and not sets_b:
        raise UsageError("compare", "one scenario", "two scenarios, or fields set with --a/--b")
    if hasattr(first, "encounters") != hasattr(second, "encounters"):
        raise UsageError("compare", "a chain and a scenario", "two scenarios, or two chains")
    variant_a = variant_of("A", first, sets_a)
    variant_b = variant_of("B", second, sets_b)
    if len(variant_a.scenario.sides) != len(variant_b.scenario.sides):
        raise UsageError(
            "compare",
            f"{len(variant_a.scenario.sides)} and {len(variant_b.scenario.sides)} sides",
            "two scenarios with the same number of sides (compared by position)",
        )
    root = opts.root_seed(first)
    scenarios = [variant_a.scenario, variant_b.scenario]
    study = opts.study(scenarios, "compare", root, units=[(0, 1)])
    complete = opts.evaluate(study)
    summaries = [variant_summary(study, i, v) for i, v in enumerate((variant_a, variant_b))]
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
    result = finish(study, "compare", summary, summaries, labels, [0, 1], complete)
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
    base = load_study_subject(scenario)
    varies = varies_from(vary)
    if len(varies) != 1:
        raise UsageError("--vary", [v.name for v in varies], "exactly one field to vary")
    aim = parse_aim(target, side)
    if search not in ("auto", "grid", "bisect"):
        raise UsageError("--search", search, "auto, grid or bisect")
    the_vary = varies[0]
    if search == "auto":
        labels_ = the_vary.labels
        numeric = all(isinstance(v, int | float) and not isinstance(v, bool) for v in labels_)
        search = "bisect" if numeric and len(labels_) >= 5 else "grid"
    variants = grid(base, varies)
    aim = check_aim(aim, [v.scenario for v in variants])
    root = opts.root_seed(base)
    study = opts.study([v.scenario for v in variants], "balance", root)
    with opts.open_backend() as backend:
        searching = _Search(study, backend, aim)
        complete, best = searching.find(search, len(variants))
    shown = sorted(searching.evaluated)
    summaries = {i: variant_summary(study, i, variants[i]) for i in shown}
    summary = {
        "kind": "balance",
        **about(base),
        "seed": root,
        "vary": the_vary.to_json(),
        "search": search,
        "battles_requested": opts.battles,
        "battles_completed": sum(s["battles_completed"] for s in summaries.values()),
        "interrupted": not complete,
        "precision": study.precision_report(),
        **_balance_findings(aim, base, the_vary.name, variants, summaries, best),
    }
    labels = [{"variant": i, **variants[i].values} for i in shown]
    return finish(study, "balance", summary, [summaries[i] for i in shown], labels, shown, complete)


class _Search:
    """A balance search on one backend: the values it has run and the rate each gave."""

    def __init__(self, study, backend, aim):
        self.study, self.backend, self.aim = study, backend, aim
        self.evaluated: list[int] = []

    def rate(self, i: int) -> float | None:
        return self.aim.of(self.study.tally(i).outcomes())[0]

    def run(self, indexes) -> bool:
        """Run the values not yet run; False if interrupted."""
        todo = [i for i in dict.fromkeys(indexes) if i not in self.evaluated]
        if not todo:
            return True
        done = self.study.evaluate(self.backend, [(i,) for i in todo])
        if done:
            self.evaluated.extend(todo)
        return done

    def find(self, search: str, count: int) -> tuple[bool, int | None]:
        """Search, then run the best value's neighbours: (complete, the best value or None)."""
        last = count - 1
        complete = self.run(range(count)) if search == "grid" else self.bisect(last)
        best = self.best() if complete else None
        if best is not None:
            complete = self.run([i for i in (best - 1, best + 1) if 0 <= i <= last])
        return complete, best

    def bisect(self, last: int) -> bool:
        """Halve the range while its ends straddle the target; False if interrupted."""
        low, high, goal = 0, last, self.aim.value
        complete = self.run([low, high])
        ends = self.rate(low), self.rate(high)
        if not complete or None in ends or (ends[0] - goal) * (ends[1] - goal) >= 0:
            return complete
        while complete and high - low > 1:
            mid = (low + high) // 2
            complete = self.run([mid])
            if not complete or self.rate(mid) is None:
                break
            if self.rate(mid) == goal:
                low = high = mid
            elif (self.rate(mid) > goal) == (self.rate(low) > goal):
                low = mid
            else:
                high = mid
        return complete

    def best(self) -> int | None:
        """The value closest to the target (among those that keep to it, if any do)."""
        known = [i for i in sorted(self.evaluated) if self.rate(i) is not None]
        if not known:
            return None
        keeping = [i for i in known if self.aim.meets(self.rate(i))] or known
        return min(keeping, key=lambda i: abs(self.rate(i) - self.aim.value))


def _balance_findings(aim, base, name: str, variants, summaries, best) -> dict[str, Any]:
    """What a balance search found: the side, the aim, the best value and its neighbours,
    the values it ran, and whether their rates rose or fell steadily."""
    shown = sorted(summaries)
    rates = [r for r in (aim.of(summaries[i])[0] for i in shown) if r is not None]
    steps = list(zip(rates, rates[1:], strict=False))
    aim_side = next(
        (s for s in (aim.side_of(summaries[i]) for i in shown) if s is not None),
        aim.who if aim.rate == "win" else base.sides[0].name,
    )
    goal = aim.value

    def point(i: int) -> dict[str, Any]:
        value, interval = aim.of(summaries[i])
        wins = summaries[i]["sides"].get(aim_side, {})
        return {
            "variant": i,
            "value": variants[i].values[name],
            "rate": value,
            "ci95": interval,
            "target_in_interval": interval is not None and interval[0] <= goal <= interval[1],
            "meets": value is not None and aim.meets(value),
            "win_rate": wins.get("win_rate"),
            "win_ci95": wins.get("ci95"),
        }

    return {
        "side": aim_side,
        "target": goal,
        "aim": {**aim.to_json(), "text": aim.text, "phrase": aim.phrase},
        "best": point(best) if best is not None else None,
        "neighbours": (
            [point(i) for i in (best - 1, best + 1) if i in summaries] if best is not None else []
        ),
        "monotone": all(x <= y for x, y in steps) or all(x >= y for x, y in steps),
        "variants": [summaries[i] for i in shown],
    }


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


def _changes(variant: Variant) -> str:
    return "; ".join(f"{p}={label_of(v)}" for p, v in variant.settings)


def _same(one, other) -> bool:
    """Whether two scenarios fight the same battles (a variant that sets a field to what the
    file, or the archetype, already gives); two chains, the same runs."""
    if hasattr(one, "encounters"):
        return (
            len(one.encounters) == len(other.encounters)
            and all(
                _same(a.scenario, b.scenario) and (a.name, a.boss) == (b.name, b.boss)
                for a, b in zip(one.encounters, other.encounters, strict=True)
            )
            and (one.rests, one.stop, one.down, one.side)
            == (other.rests, other.stop, other.down, other.side)
        )
    rules = (one.data or {}).get("rules"), (other.data or {}).get("rules")
    return (
        one.sides == other.sides
        and one.environment == other.environment
        and (one.turn_limit, one.victory, one.name) == (other.turn_limit, other.victory, other.name)
        and one.description == other.description
        and rules[0] == rules[1]
    )
