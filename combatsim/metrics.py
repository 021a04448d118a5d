"""Rates a study can aim at, each as a 0/1 outcome of one battle.

``combatsim explain`` ranks levers by their effect on a rate; a paired comparison of rates
needs each battle's outcome as 0 or 1, so that battle ``i`` of two variants (same seed) can be
tallied as a pair. A metric is a rate and whose it is:

* ``win`` / ``loss``: a side wins / another side wins;
* ``draw``: no side wins (the turn limit, or the last fighters fell together);
* ``down`` / ``dead``: at least one of WHO's fighters ends the battle out of the fight (not
  standing: unconscious, dying, dead or fled) / dead. WHO is a side, a member (a group's
  copies together: ``Guard``), or one fighter (``Guard 2``, ``Razor``): the names and the
  definitions of the casualties table (``combatsim.run.tally.casualty_entries``), so explain's
  baseline rate is the ``down_rate`` / ``dead_rate`` that ``run`` reports.

Text names a metric as ``[WHO] RATE``: ``win`` (of the side given apart, default the first),
``corp security win``, ``draw``, ``Razor down``, ``runners dead``.

To add a rate, register a ``Rate`` in ``RATES``: its name, what WHO may be, a function of
the battle's ``BattleResult`` (its ``winner``, its ``combatants`` rows) and the ``Metric``, and
how the summary names it. Nothing else needs to change.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from .errors import UsageError

if TYPE_CHECKING:
    from .engine.records import BattleResult
    from .scenario.model import Scenario


@dataclass(frozen=True)
class Rate:
    """A kind of rate: ``outcome(result, metric)`` is True when the battle counts."""

    name: str
    who: str  # "side", "anyone" (a side, member or fighter) or "none"
    outcome: Callable[[BattleResult, Metric], bool]
    phrase: str  # "{who} win rate"; {who} is the possessive of WHO
    help: str


def _win(result: BattleResult, metric: Metric) -> bool:
    return result.winner == metric.who


def _loss(result: BattleResult, metric: Metric) -> bool:
    return result.winner is not None and result.winner != metric.who


def _draw(result: BattleResult, metric: Metric) -> bool:
    return result.winner is None


def _down(result: BattleResult, metric: Metric) -> bool:
    return any(
        not row["standing"]
        for row in result.combatants
        if (row["side"], row["name"]) in metric.members
    )


def _dead(result: BattleResult, metric: Metric) -> bool:
    return any(
        row["status"] == "dead"
        for row in result.combatants
        if (row["side"], row["name"]) in metric.members
    )


RATES: dict[str, Rate] = {
    rate.name: rate
    for rate in (
        Rate("win", "side", _win, "{who} win rate", "the side wins"),
        Rate("loss", "side", _loss, "{who} loss rate", "another side wins"),
        Rate("draw", "none", _draw, "the draw rate", "no side wins (turn limit, mutual)"),
        Rate(
            "down",
            "anyone",
            _down,
            "{who} down rate",
            "at least one of WHO (a side, member or fighter) ends out of the fight",
        ),
        Rate("dead", "anyone", _dead, "{who} dead rate", "at least one of WHO ends dead"),
    )
}


@dataclass(frozen=True)
class Metric:
    """A rate of a scenario: ``rate`` (a key of ``RATES``) of ``who`` (a side, member or
    fighter; None for draws), ``members`` the ``(side, name)`` of WHO's fighters.

    Called on a ``BattleResult`` it gives that battle's outcome, 1 or 0. Picklable (it
    travels to the workers), so it holds names only.
    """

    rate: str
    who: str | None = None
    members: frozenset[tuple[str, str]] = field(default=frozenset(), compare=False)
    of_side: bool = field(default=True, compare=False)  # WHO is a side ("the runners' ...")

    def __call__(self, result: BattleResult) -> int:
        return int(RATES[self.rate].outcome(result, self))

    @property
    def name(self) -> str:
        return self.rate if self.who is None else f"{self.who} {self.rate}"

    def describe(self) -> str:
        """``the runners' win rate``, ``Razor's down rate``, ``the draw rate``."""
        phrase = RATES[self.rate].phrase
        if self.who is None:
            return phrase
        text = phrase.format(who=possessive(self.who))
        # a side named "the Armadillo" reads "the Armadillo's", not "the the Armadillo's"
        named_with_the = self.who.lower().startswith("the ")
        return f"the {text}" if self.of_side and not named_with_the else text


def possessive(name: str) -> str:
    return f"{name}'" if name.endswith("s") else f"{name}'s"


def parse_metric(text: str, scenario: Any, side: str | None = None) -> Metric:
    """The metric ``[WHO] RATE`` names in ``scenario`` (or a chain, by its carried side);
    WHO defaults to ``side``, then to the first side. Raises ``UsageError`` for an unknown
    rate or name."""
    words = str(text).split()
    rate = RATES.get(words[-1]) if words else None
    if rate is None:
        allowed = "[WHO] RATE, RATE one of " + ", ".join(RATES)
        raise UsageError("--metric", text, allowed)
    sides = [s.name for s in scenario.sides]
    if side is not None and side not in sides and rate.who != "anyone":
        raise UsageError("--side", side, "one of " + ", ".join(sides))
    who = " ".join(words[:-1]) or side
    if rate.who == "none":
        if len(words) > 1:
            raise UsageError("--metric", text, f"'{rate.name}' with no name before it")
        return Metric(rate.name)
    who = who if who is not None else sides[0]
    groups = fighter_groups(scenario)
    if rate.who == "side" and who not in sides:
        raise UsageError("--metric", text, f"a side before '{rate.name}': " + ", ".join(sides))
    if who not in groups:
        raise UsageError("--metric", text, "a side, member or fighter: " + ", ".join(groups))
    return Metric(rate.name, who, groups[who], who in sides)


def fighter_groups(scenario: Scenario) -> dict[str, frozenset[tuple[str, str]]]:
    """Every name a casualty rate may be of, with its fighters' ``(side, name)``: the entries
    of the casualties table (``combatsim.run.tally.casualty_entries``: each side, each combatant
    or group of copies, each copy), so a rate here is the one ``summary.json`` reports."""
    from .run.tally import casualty_entries

    found: dict[str, frozenset[tuple[str, str]]] = {}
    for entry in casualty_entries(scenario):
        found[entry.who] = found.get(entry.who, frozenset()) | entry.members
    return found


def metric_help() -> str:
    """For ``--help``: every rate and what it counts."""
    return "; ".join(f"{r.name}: {r.help}" for r in RATES.values())
