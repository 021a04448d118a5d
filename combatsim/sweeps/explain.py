"""What decides this fight: every lever of a scenario, ranked by its paired effect on a rate.

For every member of every side (a group's copies together) the rule system declares its
levers (``Explainable.levers``: attributes, skills, pools, initiative dice, armor grades, karma
or edge), and a group adds its count. Each lever is tried one natural step down and one up
from the scenario as written: each step is a variant made by setting a field path
(``sides[0].members[1].skills.firearms``), validated again as ``sweep`` does. The baseline
and every variant run **in one unit** of a ``Study``: battle ``i`` of all of them runs in the
same task from the same seed (common random numbers), the baseline once, and for each
variant the pair (baseline outcome, variant outcome) of the chosen rate is tallied. Each step
then gets the paired difference from the baseline, Newcombe's 95% interval and McNemar's exact
p-value, computed by ``combatsim.stats`` exactly as ``compare`` computes them; so a step's row
is the number ``compare`` reports for that change on the same seed.

Levers are ranked by the larger of their two step effects (in absolute value); a lever's
effect per step is the slope across the values tried. ``--precision`` runs rounds until every
step's interval is within +-P, and the run journals and resumes like every other study.

Two things keep the battles where they can matter. A lever its rule system proves unread
(``Explainable.unread``: the Karma pool with Instant Karma off) is reported "not used by anyone"
and never run. The others run in rounds (``LOOK_AT``: a look after 1/16, 1/8, 1/4, 1/2, 3/4
and all of ``--battles``); after a round, a lever whose effect is clearly below the ``TOP``
levers' (the upper end of its interval under the ``TOP``-th largest lower end) stops there.
Every round's interval is taken at a level that spends the 5% error across the rounds
(``EARLY_ALPHA`` at each early look, the rest at the last), so the interval reported for a
lever, whenever it stopped, misses the truth at most 5% of the time
(``tests/test_explain_sequential.py`` checks it on simulated streams); a lever that runs to
the end has exactly the numbers a full run gives it.
"""

from __future__ import annotations

import copy
import json
import math
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pandas as pd

from ..chains.loader import load_study_subject
from ..errors import CombatsimError
from ..metrics import Metric, parse_metric, possessive
from ..output import write_table
from ..rules.levers import scenario_value
from ..run import Options, Pairing, Tally, holds_folder
from ..stats import (
    CONFIDENCE,
    half_width,
    paired_comparison,
    paired_difference_interval,
    rate_with_interval,
)
from .fields import FieldPath, apply, label_of
from .levers import MemberLever, scenario_levers
from .results import Result, about, seal, write_records

SUMMARY_LEVERS = 3  # levers that matter, named in the plain-language summary
SUMMARY_FLAT = 2  # and levers that do not
KEPT_FIGHTERS = 4000  # fighters of built variants kept for the next task
# Where the looks are, as shares of --battles (without --precision or --early-stop off): the
# first early, so that a lever that changes nothing stops on a few battles.
LOOK_AT = (0.0625, 0.125, 0.25, 0.5, 0.75, 1.0)
LOOKS = len(LOOK_AT)
TOP = 3  # levers whose place the early stop must not change (those the summary names)
ALPHA = 1 - CONFIDENCE  # what every reported interval may miss, over all its looks
EARLY_ALPHA = 0.004  # spent at each look before the last (the last gets the rest)
UNUSED = "not used by anyone"


@dataclass(frozen=True)
class MetricPairing(Pairing):
    """Counts, per battle index and per variant ``k`` of the unit (0: the baseline), the key
    ``(k, baseline outcome, variant outcome)`` of a 0/1 metric."""

    metric: Metric
    looks: int = 1  # and the early stop's rule, which decides what each round runs
    top: int = TOP

    @property
    def name(self) -> str:  # enters the run's fingerprint
        rule = f":looks {self.looks} top {self.top}" if self.looks > 1 else ""
        return f"explain:{self.metric.name}{rule}"

    def key(self, result: Any) -> int:
        return self.metric(result)

    def __call__(self, keys: Sequence[int]) -> list[tuple[int, int, int]]:
        base = keys[0]
        # k = 0 is the baseline against itself: its rate, even with no lever to try.
        return [(k, base, value if k else base) for k, value in enumerate(keys)]

    def precision(self, tallies: Sequence[Tally], pairs: Counter) -> float:
        steps = range(1, len(tallies))
        return max((_half(step_difference(pairs, k)) for k in steps), default=1.0)


def _half(d: dict[str, Any]) -> float:
    return half_width(d["difference"], d["ci95"])


def step_difference(pairs: Counter, k: int, confidence: float = CONFIDENCE) -> dict[str, Any]:
    """Variant ``k``'s rate minus the baseline's, from the unit's pair counts, with Newcombe's
    paired interval (95%, or ``confidence``: a look of the sequential rule) and the exact
    McNemar p-value (``combatsim.stats``, as ``compare``)."""
    cells = (
        pairs.get((k, 1, 1), 0),
        pairs.get((k, 1, 0), 0),  # the baseline only
        pairs.get((k, 0, 1), 0),  # the step only
        pairs.get((k, 0, 0), 0),
    )
    d = paired_comparison(*cells)
    if confidence != CONFIDENCE and d["battles"]:
        both, base_only, step_only, neither = cells
        low, high = paired_difference_interval(both, step_only, base_only, neither, confidence)
        d["ci95"] = [round(low, 6), round(high, 6)]
        d["significant"] = bool(low > 0 or high < 0)
    return {
        "battles": d["battles"],
        "base": d["a"],
        "rate": d["b"],
        "ci95_rate": d["ci95_b"],
        "difference": d["difference"],
        "ci95": d["ci95"],
        "p_value": d["p_value"],
        "significant": d["significant"],
    }


# --- the variants -----------------------------------------------------------------------------


class StepVariants(Sequence):
    """The baseline (0) and each valid lever step (1, 2, ...), each built when asked for.

    A variant is a whole scenario, so holding all of them (a few per member) would take memory
    growing with the square of the members; here only the recipe is kept (a field path and a
    value), and the batch layer asks for one variant at a time (``one_at_a_time``). Every
    step is built once up front, one by one, to check it (as ``sweep`` does) and learn its
    sides. Only the baseline is tallied in full; a step's tally counts wins and turns (its
    pairs with the baseline are what ``explain`` reports), so its size does not grow with the
    members either.
    """

    one_at_a_time = True

    def __init__(self, base, levers: Sequence[MemberLever]):
        self.base = base
        self._built: dict[int, Any] = {}  # variants kept while small (see ``__getitem__``)
        self._kept = 0  # their fighters
        self.recipes: list[tuple[tuple[str, ...], Any, str]] = []  # (paths, value, label)
        self.blanks: list[Tally] = []  # each step's empty tally
        self.sizes: list[int] = []  # and its fighters
        self.steps: list[tuple[MemberLever, str, int]] = []  # (lever, way, variant)
        self.skipped: list[dict[str, Any]] = []
        for item in levers:
            for way, value in item.lever.steps:
                label = f"{item.path}={value}"
                try:
                    built = self._build(item.paths, scenario_value(value), label)
                except CombatsimError as err:
                    self.skipped.append(
                        {"path": item.path, "value": label_of(value), "why": str(err)}
                    )
                    continue
                self.steps.append((item, way, len(self.recipes) + 1))
                self.recipes.append((item.paths, scenario_value(value), label))
                self.blanks.append(_blank(built))
                self.sizes.append(_size(built))
                del built

    def _build(self, paths: tuple[str, ...], value: Any, label: str):
        return apply(self.base, [(FieldPath.parse(path), value) for path in paths], label)

    def __len__(self) -> int:
        return 1 + len(self.recipes)

    # Only an index: a slice would build many variants at once, what this class exists to avoid.
    def __getitem__(self, k: int):  # type: ignore[override]
        """Variant ``k``, built now; kept for the next task only while all the kept ones
        together have at most ``KEPT_FIGHTERS`` fighters (a small scenario's variants are
        built once per worker; a large one's, whose battles cost more, once per task)."""
        if not 0 <= k < len(self):
            raise IndexError(k)
        if k == 0:
            return self.base
        built = self._built.get(k)
        if built is None:
            built = self._build(*self.recipes[k - 1])
            fighters = self.sizes[k - 1]
            if self._kept + fighters <= KEPT_FIGHTERS:
                self._built[k] = built
                self._kept += fighters
        return built

    def __getstate__(self) -> dict[str, Any]:
        return {**self.__dict__, "_built": {}, "_kept": 0}  # a worker builds its own

    def empty_tally(self, k: int) -> Tally:
        if k == 0:
            own = getattr(self.base, "empty_tally", None)  # a chain counts its own runs
            return own() if own is not None else Tally.empty(self.base)
        return copy.deepcopy(self.blanks[k - 1])

    def recipe(self) -> str:
        """What the run's fingerprint needs besides the base scenario: how each step is made."""
        return json.dumps(
            [[p[0] if len(p) == 1 else list(p), label] for p, _, label in self.recipes],
            default=str,
        )


def _blank(variant) -> Tally:
    """A step's empty tally: of a scenario, wins and turns only (its pairs with the baseline
    are what is reported); of a chain, the chain's own."""
    own = getattr(variant, "empty_tally", None)
    if own is not None:
        return own()
    sides = tuple(side.name for side in variant.sides)
    fighters = tuple(len(side.fighters) for side in variant.sides)
    return Tally(sides, fighters, int(variant.turn_limit), wins=dict.fromkeys(sides, 0))


def _size(variant) -> int:
    """Its fighters (a chain's: in all its encounters)."""
    scenarios = (
        [e.scenario for e in variant.encounters] if hasattr(variant, "encounters") else [variant]
    )
    return sum(len(side.fighters) for s in scenarios for side in s.sides)


# --- the function -----------------------------------------------------------------------------


@holds_folder
def explain(
    scenario,
    side: str | None = None,
    metric: str = "win",
    *,
    only: Sequence[str] | None = None,
    full: bool = False,
    **options: Any,
) -> Result:
    """Rank every lever of ``scenario`` (a file or a loaded ``Scenario``) by its effect on
    ``metric`` (``[WHO] RATE``, RATE of ``combatsim.metrics.RATES``: ``win``, ``loss``,
    ``draw``, ``down``, ``dead``; WHO a side, or for ``down``/``dead`` also a member or a
    fighter; default ``side``, then the first side). ``only``: names of sides or members
    whose levers are tried (default: every member's). ``full``: every lever runs all the
    battles (no early stop; levers no one uses are still not run).

    Each lever runs one step down and one step up, every variant on the same battle seeds as
    the baseline. The result's ``table`` has one row per lever, largest effect first: the
    values tried, the rate at each, each step's difference from the baseline with its
    Newcombe interval (95% over all its looks: see the module) and exact McNemar p-value, and
    its ``status`` (ran, stopped early, not used by anyone); ``summary["text"]`` says the gist
    in plain words. ``options``: see ``combatsim.run.Options`` (``records`` defaults to
    ``"none"``; ``precision``: every step's interval within +-P).
    """
    opts = Options(**options)
    base = load_study_subject(scenario)
    chosen = parse_metric(metric, base, side)
    levers = scenario_levers(base, only)
    variants = StepVariants(base, [item for item in levers if not item.unread])
    steps, skipped = variants.steps, variants.skipped
    root = opts.root_seed(base)
    looks = 1 if full or opts.precision is not None else LOOKS
    unit = tuple(range(len(variants)))
    pairing = MetricPairing(chosen, looks, TOP)
    study = opts.study(variants, "explain", root, units=[unit], pairing=pairing)
    sequential = Sequential(levers, steps, opts.battles, looks, TOP)
    complete = sequential.run(opts, study)
    pairs = merged_pairs(study)
    baseline = study.tally(0).outcomes()
    n = baseline["battles_completed"]
    base_count = pairs.get((0, 1, 1), 0)
    base_rate, base_ci = rate_with_interval(base_count, n)
    rows = _rows(levers, steps, pairs, base_rate, sequential)
    summary = {
        "kind": "explain",
        **about(base),
        "seed": root,
        "who": chosen.who,
        "metric": {"name": chosen.name, "rate": chosen.rate, "describe": _describe(chosen, base)},
        "battles_requested": opts.battles,
        "battles_completed": n,
        "interrupted": not complete,
        "precision": study.precision_report(),
        "baseline": {
            "rate": base_rate,
            "ci95": base_ci,
            "sides": baseline["sides"],
            "draws": baseline["draws"],
        },
        "levers": rows,
        "only": list(only) if only else None,
        "skipped": skipped,
        "variants": len(variants),
        "stopping": sequential.describe(),
    }
    summary["text"] = plain_summary(summary)
    summary["note"] = battles_note(summary)
    frame = explain_table(rows)
    result = Result("explain", summary, frame, complete=complete)
    if opts.out is None:
        return result
    folder = Path(opts.out)
    result.files += write_table(frame, folder)
    result.files += write_records(study, folder, range(len(variants)))
    return seal(study, folder, result, summary, complete)


def _describe(metric: Metric, base) -> str:
    """What the metric is, in words; of a chain, what a run's win is: completing it."""
    if metric.rate == "win" and hasattr(base, "encounters"):
        return f"the {possessive(metric.who or base.side)} chance to complete the run"
    if metric.rate in ("down", "dead") and hasattr(base, "encounters"):
        return metric.describe() + " at the end of the run"
    return metric.describe()


# --- rounds and the early stop -----------------------------------------------------------------


def merged_pairs(study, merged_only: bool = False) -> Counter:
    """The pair counts of every unit of the study, keyed by variant (not by place in a unit):
    a round's unit holds the baseline and the levers still running. ``merged_only``: only
    the battles up to each unit's end so far, not chunks beyond it that a resumed run's
    journal already holds (the early stop must decide on what an unbroken run had seen)."""
    total: Counter = Counter()
    for unit in study.units:
        counts = (unit.pairs or Counter()) if merged_only else study.pairs(unit.variants)
        for (k, base, value), count in counts.items():
            total[(unit.variants[k], base, value)] += count
    return total


def look_confidence(look: int, looks: int) -> float:
    """The level of look ``look`` of ``looks``: ``EARLY_ALPHA`` spent at each look before the
    last and the rest of ``ALPHA`` at the last, so that the chance that *any* look's interval
    misses is at most ``ALPHA`` (the union bound): the interval of the look a lever stopped at
    covers the truth at least 1 - ``ALPHA`` of the time, whatever made it stop."""
    if looks == 1:
        return CONFIDENCE
    spent = EARLY_ALPHA if look < looks else ALPHA - (looks - 1) * EARLY_ALPHA
    return 1 - spent


def look_end(battles: int, look: int, looks: int) -> int:
    """The battles run by the end of look ``look``: all of them at a single look."""
    return battles if looks == 1 else max(1, math.ceil(battles * LOOK_AT[look - 1]))


def effect_bounds(intervals: Sequence[Sequence[float]]) -> tuple[float, float]:
    """The lowest and highest the larger absolute step effect can be, from the steps'
    intervals (a step whose interval holds 0 may have no effect)."""
    low = max((0.0 if a <= 0 <= b else min(abs(a), abs(b)) for a, b in intervals), default=0.0)
    high = max((max(abs(a), abs(b)) for a, b in intervals), default=0.0)
    return low, high


def settled(bounds: dict[int, tuple[float, float]], top: int = TOP) -> set[int]:
    """The levers (keys of ``bounds``: lever -> its effect's lowest and highest) that are
    clearly not among the ``top``: the highest their effect can be is below the ``top``-th
    largest lowest. Nothing is settled while there are at most ``top`` levers."""
    if len(bounds) <= top:
        return set()
    threshold = sorted((low for low, _ in bounds.values()), reverse=True)[top - 1]
    return {lever for lever, (_, high) in bounds.items() if high < threshold}


def stop_settled(
    pairs: Counter,
    variants: dict[int, list[int]],
    stopped: dict[int, int],
    look: int,
    looks: int,
    top: int = TOP,
) -> None:
    """After look ``look``: mark in ``stopped`` (lever -> look) the levers now settled.
    ``variants``: each lever's step variants, whose pair counts ``pairs`` holds (keyed as
    ``MetricPairing`` keys them); a lever already stopped keeps its interval of then."""
    bounds = {}
    for lever, ks in variants.items():
        level = look_confidence(stopped.get(lever, look), looks)
        bounds[lever] = effect_bounds([step_difference(pairs, k, level)["ci95"] for k in ks])
    for lever in settled(bounds, top) - set(stopped):
        stopped[lever] = look


class Sequential:
    """Runs the levers in rounds and stops each once it is settled (see the module's text):
    round ``r`` is a unit of the baseline and the levers still running over battles
    ``look_end(r - 1) .. look_end(r) - 1``; a resumed run makes the same decisions from the
    same journal, so it ends where an unbroken run ends."""

    def __init__(self, levers, steps, battles: int, looks: int, top: int):
        self.looks, self.battles, self.top = looks, battles, top
        self.index = {id(item): n for n, item in enumerate(levers)}
        self.variants: dict[int, list[int]] = {}  # lever -> its step variants
        for item, _, k in steps:
            self.variants.setdefault(self.index[id(item)], []).append(k)
        self.stopped: dict[int, int] = {}  # lever -> the look it stopped at

    def look_of(self, item: MemberLever) -> int:
        return self.stopped.get(self.index[id(item)], self.looks)

    def run(self, opts, study) -> bool:
        """Every round until the last look or until no lever runs; False if interrupted."""
        start = 0
        with opts.open_backend() as backend:
            for look in range(1, self.looks + 1):
                running = sorted(lv for lv in self.variants if lv not in self.stopped)
                if not running:
                    return True
                unit = (0, *sorted(k for lv in running for k in self.variants[lv]))
                stop = look_end(self.battles, look, self.looks)
                study.extend(unit, start, stop)
                if not study.evaluate(backend, [unit]):
                    return False
                if look < self.looks:
                    self._stop_settled(study, look)
                start = stop
        return True

    def _stop_settled(self, study, look: int) -> None:
        pairs = merged_pairs(study, merged_only=True)
        stop_settled(pairs, self.variants, self.stopped, look, self.looks, self.top)

    def describe(self) -> dict[str, Any]:
        """For the summary: the rule, and how many levers stopped at each look."""
        ends = [look_end(self.battles, r, self.looks) for r in range(1, self.looks + 1)]
        return {
            "looks": ends,
            "top": self.top,
            "confidence": [
                round(look_confidence(r, self.looks), 6) for r in range(1, self.looks + 1)
            ],
            "stopped_early": len(self.stopped),
        }


def _rows(levers, steps, pairs: Counter, base_rate, sequential) -> list[dict[str, Any]]:
    by_lever: dict[int, dict[str, Any]] = {}
    index = {id(item): n for n, item in enumerate(levers)}
    for item, way, k in steps:
        level = look_confidence(sequential.look_of(item), sequential.looks)
        by_lever.setdefault(index[id(item)], {})[way] = (k, step_difference(pairs, k, level))
    rows = []
    for n, item in enumerate(levers):
        if item.unread:
            rows.append(_unused_row(item, base_rate))
            continue
        done = by_lever.get(n)
        if not done:
            continue
        lever = item.lever
        row = _row_head(item, base_rate)
        for way in ("down", "up"):
            k, d = done.get(way, (None, None))
            value = getattr(lever, way)
            row[way] = label_of(value) if value is not None and d is not None else None
            row[f"variant_{way}"] = k
            row[f"rate_{way}"] = d["rate"] if d else None
            row[f"difference_{way}"] = d["difference"] if d else None
            row[f"ci95_{way}"] = d["ci95"] if d else None
            row[f"p_{way}"] = d["p_value"] if d else None
            row[f"significant_{way}"] = d["significant"] if d else None
            row["battles"] = d["battles"] if d else row.get("battles", 0)
        effects = [
            abs(row[f"difference_{w}"])
            for w in ("down", "up")
            if row[f"difference_{w}"] is not None
        ]
        row["effect"] = round(max(effects), 6) if effects else None
        row["per_step"] = _per_step(row)
        row["significant"] = bool(row["significant_down"] or row["significant_up"])
        bounds = [abs(b) for w in ("down", "up") if row[f"ci95_{w}"] for b in row[f"ci95_{w}"]]
        row["within"] = round(max(bounds), 6) if bounds else None
        look = sequential.look_of(item)
        row["status"] = "ran" if look == sequential.looks else "stopped early"
        row["confidence"] = round(look_confidence(look, sequential.looks), 6)
        rows.append(row)
    # stable: scenario order among equals; the levers no one uses last
    rows.sort(key=lambda r: (-(r["effect"] or 0), r["status"] == UNUSED))
    for rank, row in enumerate(rows, start=1):
        row["rank"] = rank
    return rows


def _row_head(item: MemberLever, base_rate) -> dict[str, Any]:
    """What a lever's row says of the lever itself, run or not."""
    lever = item.lever
    return {
        "side": item.side_name,
        "member": item.member_name,
        "lever": lever.label,
        "title": item.title,
        "kind": lever.kind,
        "unit": lever.unit,
        "path": item.path,
        "value": label_of(lever.value) if lever.value is not None else "none",
        "rate": base_rate,
    }


def _unused_row(item: MemberLever, base_rate) -> dict[str, Any]:
    """A lever no battle reads: each step's difference is exactly 0, without a battle run."""
    lever = item.lever
    row = _row_head(item, base_rate)
    row["battles"] = 0
    for way in ("down", "up"):
        value = getattr(lever, way)
        there = value is not None
        row[way] = label_of(value) if there else None
        row[f"variant_{way}"] = None
        row[f"rate_{way}"] = base_rate if there else None
        row[f"difference_{way}"] = 0.0 if there else None
        row[f"ci95_{way}"] = [0.0, 0.0] if there else None
        row[f"p_{way}"] = 1.0 if there else None
        row[f"significant_{way}"] = False if there else None
    row.update(effect=0.0, per_step=0.0, significant=False, within=0.0)
    row.update(status=UNUSED, confidence=1.0)
    return row


def _per_step(row: dict[str, Any]) -> float | None:
    """The slope across the values tried: the rate's change per step up."""
    down, up = row["difference_down"], row["difference_up"]
    if down is not None and up is not None:
        return round((up - down) / 2, 6)
    if up is not None:
        return up
    if down is not None:
        return round(-down, 6)
    return None


COLUMNS = [
    "rank",
    "side",
    "member",
    "lever",
    "kind",
    "path",
    "down",
    "value",
    "up",
    "battles",
    "rate_down",
    "rate",
    "rate_up",
    "difference_down",
    "ci_low_down",
    "ci_high_down",
    "p_down",
    "difference_up",
    "ci_low_up",
    "ci_high_up",
    "p_up",
    "effect",
    "per_step",
    "significant",
    "variant_down",
    "variant_up",
    "status",
    "confidence",
]


def explain_table(rows: list[dict[str, Any]]) -> pd.DataFrame:
    """One row per lever, ranked (the columns of ``table.csv``; see docs/explain.md)."""
    records = []
    for row in rows:
        record = {key: row.get(key) for key in COLUMNS}
        for way in ("down", "up"):
            ci = row[f"ci95_{way}"]
            record[f"ci_low_{way}"] = ci[0] if ci else None
            record[f"ci_high_{way}"] = ci[1] if ci else None
        records.append(record)
    frame = pd.DataFrame.from_records(records, columns=COLUMNS)
    for column in ("down", "value", "up"):  # numbers and names mix: text, for parquet
        frame[column] = [None if v is None else str(v) for v in frame[column]]
    return frame


# --- words ------------------------------------------------------------------------------------

UNIT_WORDS = {"point": "level", "grade": "grade", "copy": "copy"}


def _points(x: float) -> str:
    return f"{x * 100:+.0f}" if abs(x) >= 0.005 else f"{x * 100:+.1f}"


def plain_summary(summary: dict[str, Any]) -> list[str]:
    """A few sentences: the levers that matter most, and the ones that measurably do not."""
    rows = summary["levers"]
    what = summary["metric"]["describe"]
    if summary["battles_completed"] == 0:
        return ["No battle finished."]
    if not rows:
        return ["The rule system declares no levers for this scenario's members."]
    out = []
    unused = [r for r in rows if r["status"] == UNUSED]
    rows = [r for r in rows if r["status"] != UNUSED]
    matter = [r for r in rows if r["significant"]][:SUMMARY_LEVERS]
    for r in matter:
        per = UNIT_WORDS.get(r["unit"], r["unit"])
        tried = (r["down"], r["value"], r["up"])
        out.append(
            f"{r['title']} is worth about {_points(r['per_step'])} points of {what} per {per} "
            f"(tried {', '.join(str(v) for v in tried if v is not None)})."
        )
    if not matter:
        unit = "runs" if summary.get("chain") else "battles"
        out.append(f"No lever changes {what} measurably at {summary['battles_completed']} {unit}.")
    flat = sorted((r for r in rows if not r["significant"]), key=lambda r: r["within"])
    for r in flat[:SUMMARY_FLAT]:
        out.append(
            f"{r['title']} does not matter (within +-{math.ceil(r['within'] * 100)} points)."
        )
    others = len([r for r in rows if r["significant"]]) - len(matter)
    rest = len(flat) - min(len(flat), SUMMARY_FLAT)
    if others or rest:
        verb = "changes" if others == 1 else "change"
        does = "does" if rest == 1 else "do"
        out.append(
            f"Of the other levers, {others} {verb} {what} measurably and {rest} {does} not "
            "(see the table)."
        )
    if unused:
        names = ", ".join(r["title"] for r in unused[:3]) + (", ..." if len(unused) > 3 else "")
        out.append(
            f"{len(unused)} lever(s) are {UNUSED} under these rules ({names}): no battle "
            "reads them, so none was run."
        )
    return out


def battles_note(summary: dict[str, Any]) -> str:
    """How many battles each row used, and how wide the intervals are."""
    rows = [r for r in summary["levers"] if r["status"] != UNUSED]
    n = summary["battles_completed"]
    widths = sorted(
        half_width(r[f"difference_{w}"], r[f"ci95_{w}"])
        for r in rows
        for w in ("down", "up")
        if r[f"difference_{w}"] is not None
    )
    if not widths:
        return f"{n} battles; no lever step ran."
    median = widths[len(widths) // 2]
    stopping = summary.get("stopping") or {}
    early = stopping.get("stopped_early", 0)
    unused = len(summary["levers"]) - len(rows)
    stopped = (
        f"; {early} lever(s) clearly outside the top {stopping['top']} stopped early (at "
        f"{', '.join(str(x) for x in stopping['looks'][:-1])} battles: the table's battles "
        "and status), their intervals spending the 5% error over the looks"
        if early
        else ""
    )
    skipped = f"; {unused} lever(s) {UNUSED} ran no battle" if unused else ""
    return (
        f"Each value ran up to {n} {'runs' if summary.get('chain') else 'battles'} on the same "
        "seeds as the baseline "
        f"({summary['variants']} variants in all{stopped}{skipped}); a step's 95% interval "
        f"reaches +-{median * 100:.1f} points from its difference in the median row and "
        f"+-{widths[-1] * 100:.1f} at the widest (--battles or --precision narrows them)."
    )
