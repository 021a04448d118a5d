"""Design the opposition: the make-ups of one side whose battles hit the targets asked for.

A **kind** is an archetype of the pool (``--pool``, default: the archetypes the side uses as
written; ``catalogue``: every archetype the scenario can name), optionally with one weapon
(``weapons``) and one armor (``armor``) of the catalogues. A **candidate** is a few kinds
with a count each (at most ``max_kinds`` kinds, ``min_members`` to ``max_members`` fighters),
placed from the side's first position on (``formation``). Every candidate is a variant of the
scenario with the side's members replaced, run as a unit of a ``Study`` on the same battle
seeds (common random numbers), screened and confirmed as ``combatsim.sweeps.race`` says.

Variants are built on demand (``DesignVariants``): a study slot per screening look and one for
the confirmation, so that each look's battles are a unit of their own and a resumed run takes
its journal up look by look, making the same decisions as a run never stopped.
"""

from __future__ import annotations

import copy
import itertools
import json
import math
import os
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pandas as pd

from ..chains.loader import load_study_subject
from ..errors import CombatsimError, UsageError, did_you_mean
from ..output import write_table
from ..run import Pairing, Tally, holds_folder
from ..stats import rate_with_interval
from .race import Counts, Goal, Race, describe, screen
from .results import Result, about, seal
from .targets import Aim, check_aim, parse_aim

MAX_COUNT = 100  # MemberSpec.count's bound
MAX_CANDIDATES = 20_000  # a search larger than this is refused before it starts
BLOCK = 8  # candidates per unit of a look (each task builds each of its variants once)
KEPT_FIGHTERS = 4000  # fighters of built candidates kept for the next task
FORMATIONS = ("layout", "line", "column")
DESIGNS = "designs"


@dataclass(frozen=True)
class Kind:
    """One archetype, and the weapon and armor it carries when the search chooses them."""

    archetype: str
    weapon: str | None = None
    armor: str | None = None

    @property
    def name(self) -> str:
        extras = [x for x in (self.weapon, self.armor) if x]
        return f"{self.archetype} ({', '.join(extras)})" if extras else self.archetype

    def member(self, count: int, position, spacing) -> dict[str, Any]:
        member: dict[str, Any] = {"name": self.name, "archetype": self.archetype}
        if count > 1:
            member["count"] = count
        member["position"] = list(position)
        if count > 1:
            member["spacing"] = list(spacing)
        if self.weapon:
            member["weapons"] = [self.weapon]
        if self.armor:
            member["armor"] = self.armor
        return member


Candidate = tuple[tuple[int, int], ...]  # (kind, count) pairs, kinds in pool order


def candidates(kinds: int, min_members: int, max_members: int, max_kinds: int) -> list[Candidate]:
    """Every make-up of at most ``max_kinds`` of ``kinds`` kinds with ``min_members`` to
    ``max_members`` fighters, simplest first (fewest fighters, then fewest kinds). Counted
    before any is made: more than ``MAX_CANDIDATES`` is refused in one line."""
    total = count_candidates(kinds, min_members, max_members, max_kinds)
    if total > MAX_CANDIDATES:
        raise UsageError(
            "--max-members",
            max_members,
            f"limits that leave at most {MAX_CANDIDATES:,} make-ups (these leave {total:,}: "
            "fewer members, kinds or pool entries)",
        )
    found: list[Candidate] = []
    for used in range(1, min(max_kinds, kinds) + 1):
        for chosen in itertools.combinations(range(kinds), used):
            for counts in _splits(used, min_members, max_members):
                found.append(tuple(zip(chosen, counts, strict=True)))
    return sorted(found, key=lambda c: (simplicity(c), c))


def count_candidates(kinds: int, min_members: int, max_members: int, max_kinds: int) -> int:
    """How many make-ups ``candidates`` would list: for each number of kinds used, the ways to
    choose them times the ways to split each total among them (stars and bars)."""
    return sum(
        math.comb(kinds, used) * math.comb(total - 1, used - 1)
        for used in range(1, min(max_kinds, kinds) + 1)
        for total in range(max(min_members, used), max_members + 1)
    )


def _splits(parts: int, low: int, high: int) -> Iterable[tuple[int, ...]]:
    """Every way to give ``parts`` kinds at least one fighter each, ``low`` to ``high`` in all
    (only those: never a search through the ones that do not fit)."""
    if parts == 1:
        yield from ((n,) for n in range(max(low, 1), high + 1))
        return
    for first in range(1, high - (parts - 1) + 1):
        for rest in _splits(parts - 1, max(low - first, parts - 1), high - first):
            yield (first, *rest)


def simplicity(candidate: Candidate) -> tuple[int, int]:
    return sum(n for _, n in candidate), len(candidate)


def describe_candidate(candidate: Candidate, kinds: Sequence[Kind]) -> str:
    """``3 corp_guard and 1 corp_sergeant``."""
    parts = [f"{n} {kinds[k].name}" for k, n in candidate]
    return parts[0] if len(parts) == 1 else ", ".join(parts[:-1]) + " and " + parts[-1]


# --- the scenario's side, rebuilt ---------------------------------------------------------------


def side_index(scenario, side: str) -> int:
    names = [s.name for s in scenario.sides]
    if side not in names:
        raise UsageError("--side", side, "one of " + ", ".join(names), did_you_mean(side, names))
    return names.index(side)


Point = tuple[float, float]


def placement(scenario, index: int, formation: str) -> tuple[Point, Point]:
    """Where the designed side's first fighter stands and the step to the next: ``layout``
    takes both from the side as written (its first member's position; the spacing of its
    first group, else the step between its first two members, else 2 m apart), ``line``
    stands abreast 2 m apart, ``column`` files away from the other sides 2 m apart."""
    if formation not in FORMATIONS:
        raise UsageError("--formation", formation, "one of " + ", ".join(FORMATIONS))
    members = scenario.data["sides"][index]["members"]
    anchor = _point(members[0].get("position", (0, 0)))
    if formation == "line":
        return anchor, (0.0, 2.0)
    if formation == "column":
        others = [
            f.position[0] for i, s in enumerate(scenario.sides) if i != index for f in s.fighters
        ]
        away = 2.0 if not others or anchor[0] >= sum(others) / len(others) else -2.0
        return anchor, (away, 0.0)
    for member in members:
        if int(member.get("count", 1)) > 1:
            return anchor, _point(member.get("spacing", (0, 2)))
    if len(members) > 1:
        second = members[1].get("position", (0, 0))
        return anchor, (float(second[0]) - anchor[0], float(second[1]) - anchor[1])
    return anchor, (0.0, 2.0)


def _point(pair) -> Point:
    return float(pair[0]), float(pair[1])


def design_data(base, index: int, kinds: Sequence[Kind], candidate: Candidate, place) -> dict:
    """The scenario's data with side ``index``'s members replaced by ``candidate``."""
    anchor, step = place
    data = copy.deepcopy(base.data)
    members, slot = [], 0
    for k, n in candidate:
        position = (anchor[0] + slot * step[0], anchor[1] + slot * step[1])
        members.append(kinds[k].member(n, position, step))
        slot += n
    data["sides"][index]["members"] = members
    return data


def build(base, data: dict, label: str):
    from ..scenario import build_scenario

    try:
        return build_scenario(data, base.source, Path(base.source).parent)
    except CombatsimError as err:
        raise CombatsimError(f"{label}: {err}") from None


class DesignVariants(Sequence):
    """Variant ``slot * count + c`` is candidate ``c`` for study slot ``slot`` (a screening
    look, or the confirmation): the same scenario, built when asked for and kept while the
    kept ones hold at most ``KEPT_FIGHTERS`` fighters."""

    one_at_a_time = True

    def __init__(
        self, base, index: int, kinds, found: Sequence[Candidate], place, slots: int, fight=None
    ):
        self.base, self.side, self.kinds = base, index, tuple(kinds)
        self.found, self.place, self.slots = tuple(found), place, slots
        self.fight = fight  # a chain's encounter the designed scenario is put in (``Fight``)
        self._built: dict[int, Any] = {}
        self._kept = 0
        self._empty: dict[int, Tally] = {}

    def candidate(self, variant: int) -> int:
        return variant % len(self.found)

    def __len__(self) -> int:
        return self.slots * len(self.found)

    def __getitem__(self, variant: int):  # type: ignore[override]
        if not 0 <= variant < len(self):
            raise IndexError(variant)
        c = self.candidate(variant)
        built = self._built.get(c)
        if built is None:
            built = self.scenario(c)
            if self.fight is not None:
                built = self.fight.put(built)
            fighters = _fighters(built)
            if self._kept + fighters <= KEPT_FIGHTERS:
                self._built[c] = built
                self._kept += fighters
        return built

    def data(self, c: int) -> dict:
        return design_data(self.base, self.side, self.kinds, self.found[c], self.place)

    def scenario(self, c: int):
        return build(self.base, self.data(c), describe_candidate(self.found[c], self.kinds))

    def __getstate__(self) -> dict[str, Any]:
        return {**self.__dict__, "_built": {}, "_kept": 0}  # a worker builds its own

    def empty_tally(self, variant: int) -> Tally:
        c = self.candidate(variant)
        if c not in self._empty:
            built = self[variant]
            own = getattr(built, "empty_tally", None)  # a chain counts its own runs
            self._empty[c] = own() if own is not None else Tally.empty(built)
        return copy.deepcopy(self._empty[c])  # never the template's own lists

    def recipe(self) -> str:
        """What the run's fingerprint needs besides the base scenario."""
        kinds = [[k.archetype, k.weapon, k.armor] for k in self.kinds]
        where = None if self.fight is None else self.fight.encounter
        return json.dumps([self.side, kinds, self.found, self.place, self.slots, where])


def _fighters(built) -> int:
    scenarios = [e.scenario for e in built.encounters] if hasattr(built, "encounters") else [built]
    return sum(len(side.fighters) for s in scenarios for side in s.sides)


@dataclass(frozen=True)
class Fight:
    """The encounter of a chain whose opposition is designed: each candidate is the chain with
    that encounter's scenario replaced by the candidate's."""

    chain: Any
    encounter: int

    def put(self, scenario):
        return self.chain.with_scenario(self.encounter, scenario)


def design_subject(subject, side: str, encounter: int | str | None):
    """The scenario whose ``side`` is designed and, for a chain, the ``Fight`` it is put in
    (``encounter``: its name or index; needed when the chain has several)."""
    if not hasattr(subject, "encounters"):
        if encounter is not None:
            raise UsageError(
                "--encounter", encounter, "nothing: the file is a scenario, not a chain"
            )
        return subject, None
    names = [e.name for e in subject.encounters]
    if encounter is None and len(names) == 1:
        encounter = 0
    if isinstance(encounter, str) and encounter.strip().isdigit():
        encounter = int(encounter)
    if isinstance(encounter, str) and encounter in names:
        encounter = names.index(encounter)
    if not isinstance(encounter, int) or not 0 <= encounter < len(names):
        allowed = "the name or index (from 0) of the chain's encounter to design: " + ", ".join(
            names
        )
        raise UsageError("--encounter", encounter, allowed)
    if side == subject.side:
        raise UsageError("--side", side, f"a side the chain does not carry (it carries {side})")
    return subject.encounters[encounter].scenario, Fight(subject, encounter)


@dataclass(frozen=True)
class Silent(Pairing):
    """A unit of several candidates pairs nothing: each one's own tally is what counts."""

    rule: str = ""

    @property
    def name(self) -> str:  # enters the run's fingerprint
        return f"design:{self.rule}"

    def key(self, result: Any) -> None:
        return None

    def __call__(self, keys: Sequence[Any]) -> list[tuple]:
        return []

    def precision(self, tallies, pairs) -> float:
        return 0.0


# --- counts -------------------------------------------------------------------------------------


def aim_counts(aim: Aim, tally: Tally) -> tuple[int, int]:
    """The battles ``aim``'s rate counts, and the battles, in ``tally`` (a chain's: its runs,
    counted as battles)."""
    tally = getattr(tally, "runs", None) or tally
    n = tally.battles
    if aim.rate in ("win", "complete"):
        return tally.wins.get(aim.who or "", 0), n
    if aim.rate == "draw":
        return tally.draws, n
    order = {"side": 0, "combatant": 1, "copy": 2}
    entries = sorted(
        (i for i, e in enumerate(tally.entries) if e.who == aim.who),
        key=lambda i: order[tally.entries[i].level],
    )
    if not entries or tally.casualties is None:
        return 0, 0
    down, dead = tally.casualties[entries[0]]
    return (down if aim.rate == "down" else dead), n


def merged_tally(study, variant: int) -> Tally | None:
    """The variant's battles up to each unit's end (never chunks a resumed run's journal holds
    beyond it: the decisions must be those of a run never stopped)."""
    total = None
    for unit in study.units:
        if variant in unit.variants:
            part = unit.tallies[unit.variants.index(variant)]
            if total is None:
                total = copy.deepcopy(part)
            else:
                total.merge(part)
    return total


# --- the function -------------------------------------------------------------------------------


@holds_folder
def design(
    scenario,
    side: str,
    targets: Sequence[str] | str,
    *,
    pool: Sequence[str] | str | None = None,
    weapons: Sequence[str] = (),
    armor: Sequence[str] = (),
    min_members: int = 1,
    max_members: int = 8,
    max_kinds: int = 2,
    formation: str = "layout",
    top: int = 5,
    encounter: int | str | None = None,
    **options: Any,
) -> Result:
    """Search the make-up of ``side`` in ``scenario`` (a file or a loaded ``Scenario``) for
    the designs whose battles hit every target (``"runners win 0.6..0.75"``, ``"runners
    dead <= 0.05"``: ``combatsim.sweeps.targets``, with ranges). ``pool``: archetype names
    (or ``"catalogue"``: every archetype the scenario can name; default: those ``side`` uses
    as written); ``weapons``/``armor``: names of the catalogues to choose from as well.
    ``top`` designs are confirmed on fresh battles and reported, surest and simplest first;
    see ``combatsim.sweeps.race`` for the rule and its stated error. ``options``: see
    ``combatsim.run.Options`` (``battles``: each confirmation's battles and the screening's
    last look; ``precision`` is not taken).

    ``scenario`` may be a chain of encounters: then ``encounter`` (its name or index) is the
    fight whose opposition is designed, every candidate runs the whole chain, and the targets
    are the chain's (``"completes the run 0.7"``, ``"runners dead <= 0.05"`` at the run's end).
    """
    from ..run import Options

    opts = Options(**options)
    if opts.precision is not None:
        raise UsageError("--precision", opts.precision, "nothing: design sets its own rounds")
    if opts.records not in (None, "none"):
        raise UsageError("--records", opts.records, "none: design keeps no per-battle records")
    subject = load_study_subject(scenario)
    base, fight = design_subject(subject, side, encounter)
    index = side_index(base, side)
    _check_limits(min_members, max_members, max_kinds, top)
    goals = _goals(targets, subject, index)
    kinds = design_kinds(base, index, pool, weapons, armor)
    found = candidates(len(kinds), min_members, max_members, max_kinds)
    place = placement(base, index, formation)
    race = Race(goals, [simplicity(c) for c in found], opts.battles, top)
    slots = len(race.ends) + 1
    variants = DesignVariants(base, index, kinds, found, place, slots, fight)
    for kind in kinds:  # each kind validated once, before any battle
        one = build(
            base, design_data(base, index, kinds, ((kinds.index(kind), 1),), place), kind.name
        )
        if fight is not None:
            fight.put(one)
    root = opts.root_seed(subject)
    rule = f"{[g.text for g in goals]} top {top}"
    first = _blocks(0, len(found), range(len(found)))  # the first look's units
    study = opts.study(variants, "design", root, pairing=Silent(rule), units=first)
    with opts.open_backend() as backend:
        search = _Search(study, backend, race, goals, len(found))
        finalists = screen(race, len(found), search.screen_look)
        confirmed = search.confirm(finalists) if finalists is not None else None
    complete = confirmed is not None
    summary = _summary(subject, side, root, opts, race, goals, kinds, found, search, confirmed)
    frame = candidate_table(found, kinds, goals, race, search, confirmed)
    result = Result("design", summary, frame, complete=complete)
    if opts.out is None:
        return result
    folder = Path(opts.out)
    result.files += write_table(frame, folder)
    if confirmed is not None:
        result.files += write_designs(variants, summary["designs"], folder)
    return seal(study, folder, result, summary, complete)


def _check_limits(min_members: int, max_members: int, max_kinds: int, top: int) -> None:
    from ..errors import check_range

    check_range("--min-members", min_members, 1, MAX_COUNT)
    check_range("--max-members", max_members, min_members, MAX_COUNT)
    check_range("--max-kinds", max_kinds, 1, 10)
    check_range("--top", top, 1, 50)


def _goals(targets: Sequence[str] | str, base, index: int) -> list[Goal]:
    texts = [targets] if isinstance(targets, str) else list(targets)
    if not texts:
        raise UsageError("--target", None, "at least one target, e.g. 'runners win 0.6..0.75'")
    aims = [check_aim(parse_aim(t, None, ranges=True), [base]) for t in texts]
    return [Goal.of(aim) for aim in aims]


def catalogue_names(base) -> dict[str, list[str]]:
    """The archetypes, weapons and armor the scenario can name (its catalogues, then its own)."""
    from ..scenario import load_catalogue

    names: dict[str, dict[str, None]] = {"archetypes": {}, "weapons": {}, "armor": {}}
    folder = Path(base.source).parent
    for rel in base.data.get("catalogues") or []:
        for section, entries in load_catalogue(folder / rel).items():
            if section in names:
                names[section].update(dict.fromkeys(entries))
    for section in names:
        names[section].update(dict.fromkeys(base.data.get(section) or {}))
    return {section: list(found) for section, found in names.items()}


def design_kinds(
    base, index: int, pool, weapons: Sequence[str], armor: Sequence[str]
) -> list[Kind]:
    """The kinds a search of side ``index`` chooses from, its names checked (the page counts
    the make-ups with it before it starts a search)."""
    known = catalogue_names(base)
    if pool is None:
        members = base.data["sides"][index]["members"]
        chosen = list(dict.fromkeys(m["archetype"] for m in members if m.get("archetype")))
        if not chosen:
            raise UsageError("--pool", None, "archetypes to choose from (the side names none)")
    elif pool == "catalogue" or list(pool) == ["catalogue"]:
        chosen = known["archetypes"]
    else:
        chosen = list(dict.fromkeys([pool] if isinstance(pool, str) else pool))
    for flag, names, section in (
        ("--pool", chosen, "archetypes"),
        ("--weapons", weapons, "weapons"),
        ("--armor", armor, "armor"),
    ):
        for name in names:
            if name not in known[section]:
                allowed = known[section]
                raise UsageError(
                    flag,
                    name,
                    f"one of the {section}: "
                    + ", ".join(allowed[:12])
                    + (", ..." if len(allowed) > 12 else ""),
                    did_you_mean(name, allowed),
                )
    carried: list[str | None] = list(dict.fromkeys(weapons)) or [None]
    worn: list[str | None] = list(dict.fromkeys(armor)) or [None]
    return [Kind(a, w, r) for a in chosen for w in carried for r in worn]


def _blocks(slot: int, count: int, live: Sequence[int]) -> list[tuple[int, ...]]:
    """Slot ``slot``'s units: the live candidates ``BLOCK`` at a time, in order."""
    chosen = list(live)
    return [
        tuple(slot * count + c for c in chosen[i : i + BLOCK]) for i in range(0, len(chosen), BLOCK)
    ]


class _Search:
    """Runs the race's looks and the confirmation as units of the study."""

    def __init__(self, study, backend, race: Race, goals: Sequence[Goal], count: int):
        self.study, self.backend, self.race, self.goals = study, backend, race, goals
        self.count = count
        self.look = 0
        self.screened: dict[int, Tally] = {}
        self.confirm_start = race.ends[-1]

    def _run(self, slot: int, live: Sequence[int], start: int, stop: int) -> dict | None:
        units = _blocks(slot, self.count, live)
        for unit in units:
            self.study.extend(unit, start, stop)
        if not self.study.evaluate(self.backend, units):
            return None
        return {c: self._tally(slot, c) for c in live}

    def _tally(self, slot: int, c: int) -> Tally:
        tally = merged_tally(self.study, slot * self.count + c)
        assert tally is not None
        return tally

    def counts(self, tally: Tally) -> Counts:
        return [aim_counts(goal.aim, tally) for goal in self.goals]

    def screen_look(self, live: list[int], start: int, stop: int) -> dict[int, Counts] | None:
        """One screening look: slot ``look``'s units over battles ``start .. stop - 1``, the
        counts of every live candidate over all its screening battles."""
        found = self._run(self.look, live, start, stop)
        self.look += 1
        if found is None:
            return None
        for c, tally in found.items():
            if c in self.screened:
                self.screened[c].merge(tally)
            else:
                self.screened[c] = tally
        return {c: self.counts(self.screened[c]) for c in live}

    def confirm(self, finalists: list[int]) -> dict[int, Tally] | None:
        """The finalists on fresh battles: indexes after every screening battle."""
        start = self.confirm_start
        slot = len(self.race.ends)
        return self._run(slot, finalists, start, start + self.race.battles)


# --- what it found ------------------------------------------------------------------------------


def finished_battles(study) -> int:
    """Every battle of every candidate that finished, an interrupted look's included."""
    return sum(
        tally.battles
        for unit in study.units
        for chunk_tallies in ([unit.tallies] + [c.tallies for c in unit.available.values()])
        for tally in chunk_tallies
    )


def _figures(goals: Sequence[Goal], counts: Counts) -> list[dict[str, Any]]:
    out = []
    for goal, (k, n) in zip(goals, counts, strict=True):
        rate, interval = rate_with_interval(k, n)
        out.append(
            {
                "target": goal.text,
                "rate": rate,
                "ci95": interval,
                "inside": rate is not None and goal.low <= rate <= goal.high,
            }
        )
    return out


def _summary(base, side, root, opts, race, goals, kinds, found, search, confirmed) -> dict:
    designs = []
    if confirmed is not None:
        counts = {c: search.counts(t) for c, t in confirmed.items()}
        for rank, c in enumerate(race.rank(list(confirmed), counts), 1):
            designs.append(
                {
                    "rank": rank,
                    "candidate": c,
                    "design": describe_candidate(found[c], kinds),
                    "members": simplicity(found[c])[0],
                    "kinds": simplicity(found[c])[1],
                    "verdict": race.verdict(counts[c]),
                    "battles": confirmed[c].battles,
                    "rates": _figures(goals, counts[c]),
                    "file": f"{DESIGNS}/{rank:02d}.yaml",
                }
            )
            if hasattr(base, "encounters"):  # the chain file, and the designed fight's
                designs[-1]["scenario_file"] = f"{DESIGNS}/{rank:02d}-encounter.yaml"
    summary = {
        "kind": "design",
        **about(base),
        "side": side,
        "seed": root,
        "targets": [
            {**g.aim.to_json(), "text": g.text, "low": g.low, "high": g.high} for g in goals
        ],
        "pool": [k.name for k in kinds],
        "candidates": len(found),
        "rule": describe(race),
        "battles_requested": opts.battles,
        "battles_completed": finished_battles(search.study),
        "interrupted": confirmed is None,
        "designs": designs,
    }
    summary["verdict"] = verdict_line(summary, search, goals, found, kinds)
    return summary


def verdict_line(summary, search, goals, found, kinds) -> str:
    """One line: the best design with its rates, or, when none surely hits, which target was
    closest and why."""
    designs = summary["designs"]
    if summary["interrupted"]:
        return "Interrupted before the designs were confirmed."
    if not designs:
        why = _closest_miss(search, goals, found, kinds)
        return f"No design within the limits can hit every target: all surely miss ({why})."
    best = designs[0]
    rates = ", ".join(_rate_words(g, r) for g, r in zip(goals, best["rates"], strict=True))
    if best["verdict"] == "hits":
        return f"{best['design']}: {rates}."
    if best["verdict"] == "may hit":
        why = (
            f"within reach but not sure at {best['battles']} battles; more --battles may settle it"
        )
    else:
        why = _closest_miss(search, goals, found, kinds)
    return f"No design within the limits surely hits every target ({why}); the closest: " + (
        f"{best['design']}: {rates}."
    )


def _rate_words(goal: Goal, figure: dict[str, Any]) -> str:
    low, high = figure["ci95"]
    rate = figure["rate"]
    shown = "no battle" if rate is None else f"{_pct(rate)} ({_pct(low)}-{_pct(high)})"
    return f"{goal.aim.phrase} {shown}"


def _pct(x: float) -> str:
    """A share as a percentage: whole points, or tenths below 10% (0.4% is not 0%)."""
    return f"{x:.0%}" if x >= 0.1 or x == 0 else f"{x:.1%}"


def _closest_miss(search, goals: Sequence[Goal], found, kinds) -> str:
    """Why nothing hits: a target no candidate's screening estimate reached, with the nearest
    one came; else the targets pull apart."""
    for goal in goals:
        best, where = None, None
        for c, tally in search.screened.items():
            k, n = aim_counts(goal.aim, tally)
            if n and (best is None or goal.distance(k / n) < best[0]):
                best, where = (goal.distance(k / n), k / n), c
        if best is not None and best[0] > 0:
            design = describe_candidate(found[where], kinds)
            return f"no candidate reached {goal.text}: the nearest was {best[1]:.0%} with {design}"
    texts = " and ".join(g.text for g in goals)
    return f"each target is reached by some candidate, but not {texts} together, surely"


def candidate_table(found, kinds, goals, race, search, confirmed) -> pd.DataFrame:
    """Every candidate tried: its make-up, how far it got, its screening estimates and, for the
    confirmed ones, the confirmation's rates and 95% intervals."""
    records = []
    for c, candidate in enumerate(found):
        tally = search.screened.get(c)
        look, why = race.dropped.get(c, (None, "confirmed" if confirmed and c in confirmed else ""))
        row: dict[str, Any] = {
            "candidate": c,
            "design": describe_candidate(candidate, kinds),
            "members": simplicity(candidate)[0],
            "kinds": simplicity(candidate)[1],
            "screened": tally.battles if tally is not None else 0,
            "stopped_at_look": look,
            "status": why,
        }
        confirmed_tally = (confirmed or {}).get(c)
        for g, goal in enumerate(goals):
            k, n = aim_counts(goal.aim, tally) if tally is not None else (0, 0)
            row[f"screen_rate_{g + 1}"] = round(k / n, 6) if n else None
            if confirmed_tally is not None:
                k, n = aim_counts(goal.aim, confirmed_tally)
                rate, ci = rate_with_interval(k, n)
            else:
                rate, ci = None, [math.nan, math.nan]
            row[f"rate_{g + 1}"] = rate
            row[f"ci_low_{g + 1}"] = ci[0]
            row[f"ci_high_{g + 1}"] = ci[1]
        row["verdict"] = (
            race.verdict(search.counts(confirmed_tally)) if confirmed_tally is not None else None
        )
        records.append(row)
    return pd.DataFrame.from_records(records)


def write_designs(variants: DesignVariants, designs: Sequence[dict], folder: Path) -> list[Path]:
    """Each reported design as a ready scenario file, its catalogues named from where it is;
    of a chain, also a ready chain file fighting it in the designed encounter."""
    import yaml

    from ..folder import replace_text

    files = []
    where = folder / DESIGNS
    source_dir = Path(os.path.abspath(variants.base.source)).parent
    for entry in designs:
        data = variants.data(entry["candidate"])
        data["name"] = f"{data['name']}: {entry['design']}"[:100]
        data["catalogues"] = [
            os.path.relpath(source_dir / rel, os.path.abspath(where))
            for rel in data.get("catalogues") or []
        ]
        texts = {entry.get("scenario_file", entry["file"]): data}
        if variants.fight is not None:
            texts[entry["file"]] = _chain_file(variants.fight, entry, where)
        for name, written in texts.items():
            text = yaml.safe_dump(
                written, sort_keys=False, allow_unicode=True, default_flow_style=None, width=100
            )
            replace_text(folder / name, text)
            files.append(folder / name)
    return files


def _chain_file(fight: Fight, entry: dict, where: Path) -> dict:
    """The chain file with the designed encounter fought on the design's scenario file (its
    ``set`` edits are in it already), every other scenario named from ``where``."""
    chain = fight.chain
    data = copy.deepcopy(chain.data["chain"])
    data["name"] = f"{data['name']}: {entry['design']}"[:100]
    chain_dir = Path(os.path.abspath(chain.source)).parent
    for k, one in enumerate(data["encounters"]):
        if k == fight.encounter:
            one["scenario"] = Path(entry["scenario_file"]).name
            one.pop("set", None)
        else:
            one["scenario"] = os.path.relpath(chain_dir / one["scenario"], os.path.abspath(where))
        one.setdefault("name", chain.encounters[k].name)  # rests may name it
    return data
