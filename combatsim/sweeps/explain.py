"""What decides this fight: every lever of a scenario, ranked by its paired effect on a rate.

For every member of every side (a group's copies together) the rule system declares its
levers (``RuleSystem.levers``: attributes, skills, pools, initiative dice, armor grades, karma
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
"""

from __future__ import annotations

import json
import math
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pandas as pd

from ..errors import CombatsimError, UsageError
from ..metrics import Metric, parse_metric
from ..output import write_table
from ..rules.levers import Lever, scenario_value
from ..run import Options, Pairing, Tally, holds_folder, load
from ..stats import half_width, paired_comparison, rate_with_interval
from .fields import FieldPath, apply, label_of
from .results import Result, about, seal, write_records

MAX_COUNT = 100  # MemberSpec.count's bound
SUMMARY_LEVERS = 3  # levers that matter, named in the plain-language summary
SUMMARY_FLAT = 2  # and levers that do not
KEPT_FIGHTERS = 4000  # fighters of built variants kept for the next task


@dataclass(frozen=True)
class MemberLever:
    """A lever of one member: where the member is and what its system (or count) declares."""

    side: int
    side_name: str
    member: int
    member_name: str
    lever: Lever

    @property
    def path(self) -> str:
        return f"sides[{self.side}].members[{self.member}].{self.lever.path}"

    @property
    def title(self) -> str:
        """``Razor's firearms``."""
        owner = self.member_name
        return (
            f"{owner}' {self.lever.label}"
            if owner.endswith("s")
            else f"{owner}'s {self.lever.label}"
        )


@dataclass(frozen=True)
class MetricPairing(Pairing):
    """Counts, per battle index and per variant ``k`` of the unit (0: the baseline), the key
    ``(k, baseline outcome, variant outcome)`` of a 0/1 metric."""

    metric: Metric

    @property
    def name(self) -> str:  # enters the run's fingerprint
        return f"explain:{self.metric.name}"

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


def step_difference(pairs: Counter, k: int) -> dict[str, Any]:
    """Variant ``k``'s rate minus the baseline's, from the unit's pair counts, with Newcombe's
    paired 95% interval and the exact McNemar p-value (``combatsim.stats``, as ``compare``)."""
    d = paired_comparison(
        pairs.get((k, 1, 1), 0),
        pairs.get((k, 1, 0), 0),  # the baseline only
        pairs.get((k, 0, 1), 0),  # the step only
        pairs.get((k, 0, 0), 0),
    )
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


# --- levers -----------------------------------------------------------------------------------


def scenario_levers(scenario, only: Sequence[str] | None = None) -> list[MemberLever]:
    """Every lever of every member, in scenario order: the system's, then a group's count.

    ``only``: names of sides or members; then only those members' levers.
    """
    armors = _armors(scenario)
    found = []
    sides = list(zip(scenario.sides, scenario.data["sides"], strict=True))
    known = {s.name for s, _ in sides}
    for i, (side, side_data) in enumerate(sides):
        first = 0
        for j, member in enumerate(side_data["members"]):
            count = int(member.get("count", 1))
            fighter = side.fighters[first]
            first += count
            name = member.get("name") or member.get("archetype") or f"{side.name} {j + 1}"
            known.add(name)
            if only and side.name not in only and name not in only:
                continue
            for lever in scenario.system.levers(fighter.sheet, armors):
                found.append(MemberLever(i, side.name, j, name, lever))
            if count > 1:
                up = count + 1 if count < MAX_COUNT else None
                lever = Lever("count", "count", "count", count, count - 1, up, "copy")
                found.append(MemberLever(i, side.name, j, name, lever))
    unknown = [name for name in only or () if name not in known]
    if unknown:
        raise UsageError(
            "--only", unknown[0], "a side or member of the scenario: " + ", ".join(sorted(known))
        )
    return found


def _armors(scenario) -> dict[str, Any]:
    """Every armor the scenario can name, validated by its system (as loading does)."""
    from ..scenario import load_catalogue

    base = Path(scenario.source).parent
    armors: dict[str, Any] = {}
    for rel in scenario.data.get("catalogues") or []:
        armors.update(load_catalogue(base / rel)["armor"])
    for name, data in (scenario.data.get("armor") or {}).items():
        armors[name] = scenario.system.Armor.model_validate(data)
    return armors


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
        self.recipes: list[tuple[str, Any, str]] = []  # (path, value, label) per step
        self.shapes: list[tuple[tuple[str, ...], tuple[int, ...], int]] = []
        self.steps: list[tuple[MemberLever, str, int]] = []  # (lever, way, variant)
        self.skipped: list[dict[str, Any]] = []
        for item in levers:
            for way, value in item.lever.steps:
                label = f"{item.path}={value}"
                try:
                    built = self._build(item.path, scenario_value(value), label)
                except CombatsimError as err:
                    self.skipped.append(
                        {"path": item.path, "value": label_of(value), "why": str(err)}
                    )
                    continue
                self.steps.append((item, way, len(self.recipes) + 1))
                self.recipes.append((item.path, scenario_value(value), label))
                self.shapes.append(_shape(built))
                del built

    def _build(self, path: str, value: Any, label: str):
        return apply(self.base, [(FieldPath.parse(path), value)], label)

    def __len__(self) -> int:
        return 1 + len(self.recipes)

    def __getitem__(self, k: int):
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
            fighters = sum(self.shapes[k - 1][1])
            if self._kept + fighters <= KEPT_FIGHTERS:
                self._built[k] = built
                self._kept += fighters
        return built

    def __getstate__(self) -> dict[str, Any]:
        return {**self.__dict__, "_built": {}, "_kept": 0}  # a worker builds its own

    def empty_tally(self, k: int) -> Tally:
        if k == 0:
            return Tally.empty(self.base)
        sides, fighters, turn_limit = self.shapes[k - 1]
        return Tally(sides, fighters, turn_limit, wins=dict.fromkeys(sides, 0))

    def recipe(self) -> str:
        """What the run's fingerprint needs besides the base scenario: how each step is made."""
        return json.dumps([[p, label] for p, _, label in self.recipes], default=str)


def _shape(scenario) -> tuple[tuple[str, ...], tuple[int, ...], int]:
    sides = tuple(side.name for side in scenario.sides)
    return sides, tuple(len(side.fighters) for side in scenario.sides), int(scenario.turn_limit)


# --- the function -----------------------------------------------------------------------------


@holds_folder
def explain(
    scenario,
    side: str | None = None,
    metric: str = "win",
    *,
    only: Sequence[str] | None = None,
    **options: Any,
) -> Result:
    """Rank every lever of ``scenario`` (a file or a loaded ``Scenario``) by its effect on
    ``metric`` (``[WHO] RATE``, RATE of ``combatsim.metrics.RATES``: ``win``, ``loss``,
    ``draw``, ``down``, ``dead``; WHO a side, or for ``down``/``dead`` also a member or a
    fighter; default ``side``, then the first side). ``only``: names of sides or members
    whose levers are tried (default: every member's).

    Each lever runs one step down and one step up, every variant on the same battle seeds as
    the baseline. The result's ``table`` has one row per lever, largest effect first: the
    values tried, the rate at each, each step's difference from the baseline with its 95%
    Newcombe interval and exact McNemar p-value; ``summary["text"]`` says the gist in plain
    words. ``options``: see ``combatsim.run.Options`` (``records`` defaults to
    ``"none"``; ``precision``: every step's interval within +-P).
    """
    opts = Options(**options)
    base = load(scenario)
    chosen = parse_metric(metric, base, side)
    levers = scenario_levers(base, only)
    variants = StepVariants(base, levers)
    steps, skipped = variants.steps, variants.skipped
    root = opts.root_seed(base)
    unit = tuple(range(len(variants)))
    study = opts.study(variants, "explain", root, units=[unit], pairing=MetricPairing(chosen))
    complete = opts.evaluate(study)
    pairs = study.pairs(tuple(range(len(variants))))
    baseline = study.tally(0).outcomes()
    n = baseline["battles_completed"]
    base_count = pairs.get((0, 1, 1), 0)
    base_rate, base_ci = rate_with_interval(base_count, n)
    rows = _rows(levers, steps, pairs, base_rate)
    summary = {
        "kind": "explain",
        **about(base),
        "seed": root,
        "who": chosen.who,
        "metric": {"name": chosen.name, "rate": chosen.rate, "describe": chosen.describe()},
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


def _rows(levers, steps, pairs: Counter, base_rate) -> list[dict[str, Any]]:
    by_lever: dict[int, dict[str, Any]] = {}
    index = {id(item): n for n, item in enumerate(levers)}
    for item, way, k in steps:
        by_lever.setdefault(index[id(item)], {})[way] = (k, step_difference(pairs, k))
    rows = []
    for n, item in enumerate(levers):
        done = by_lever.get(n)
        if not done:
            continue
        lever = item.lever
        row: dict[str, Any] = {
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
        rows.append(row)
    rows.sort(key=lambda r: -(r["effect"] or 0))  # stable: scenario order among equals
    for rank, row in enumerate(rows, start=1):
        row["rank"] = rank
    return rows


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
    matter = [r for r in rows if r["significant"]][:SUMMARY_LEVERS]
    for r in matter:
        per = UNIT_WORDS.get(r["unit"], r["unit"])
        tried = (r["down"], r["value"], r["up"])
        out.append(
            f"{r['title']} is worth about {_points(r['per_step'])} points of {what} per {per} "
            f"(tried {', '.join(str(v) for v in tried if v is not None)})."
        )
    if not matter:
        out.append(f"No lever changes {what} measurably at {summary['battles_completed']} battles.")
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
    return out


def battles_note(summary: dict[str, Any]) -> str:
    """How many battles each row used, and how wide the intervals are."""
    rows = summary["levers"]
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
    return (
        f"Each value ran {n} battles on the same seeds as the baseline ({summary['variants']} "
        f"variants in all); a step's 95% interval reaches +-{median * 100:.1f} points from its "
        f"difference in the median row and +-{widths[-1] * 100:.1f} at the widest "
        "(--battles or --precision narrows them)."
    )
