"""Rates a study can aim at, each as a 0/1 outcome of one battle.

``combatsim explain`` ranks levers by their effect on a rate; a paired comparison of rates
needs each battle's outcome as 0 or 1, so that battle ``i`` of two variants (same seed) can be
tallied as a pair. A metric is a name (``win``, ``draw``, ``loss``) and, where the rate
belongs to a side, the side: ``Metric("win", "runners")(result)`` is 1 when the runners won
that battle.

To add a rate, register a ``Rate`` in ``RATES``: its name, whether it needs a side, a
function of the battle's ``BattleResult`` (its ``winner``, its ``combatants`` rows) and the
side, and how the summary names it. Nothing else needs to change.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from .errors import UsageError


@dataclass(frozen=True)
class Rate:
    """A kind of rate: ``outcome(result, side)`` is True when the battle counts."""

    name: str
    needs_side: bool
    outcome: Callable[[Any, str | None], bool]
    phrase: str  # "{side}'s win rate"; {side} is filled in when the rate needs one
    help: str


def _win(result, side: str | None) -> bool:
    return result.winner == side


def _loss(result, side: str | None) -> bool:
    return result.winner is not None and result.winner != side


def _draw(result, side: str | None) -> bool:
    return result.winner is None


RATES: dict[str, Rate] = {
    rate.name: rate
    for rate in (
        Rate("win", True, _win, "the {side}' win rate", "the side wins"),
        Rate("loss", True, _loss, "the {side}' loss rate", "another side wins"),
        Rate("draw", False, _draw, "the draw rate", "no side wins (turn limit, mutual)"),
    )
}


@dataclass(frozen=True)
class Metric:
    """A rate of a scenario: ``rate`` (a key of ``RATES``) and its ``side`` (or None).

    Called on a ``BattleResult`` it gives that battle's outcome, 1 or 0. Picklable (it
    travels to the workers), so it holds names only.
    """

    rate: str
    side: str | None = None

    def __call__(self, result) -> int:
        return int(RATES[self.rate].outcome(result, self.side))

    @property
    def name(self) -> str:
        return self.rate if self.side is None else f"{self.rate}:{self.side}"

    def describe(self) -> str:
        """``the runners' win rate``."""
        side = self.side or ""
        phrase = RATES[self.rate].phrase
        if not side.endswith("s"):
            phrase = phrase.replace("{side}'", "{side}'s")
        return phrase.format(side=side)


def parse_metric(text: str, sides: list[str], side: str | None = None) -> Metric:
    """The metric ``text`` names (a key of ``RATES``) for ``side`` (default: the first side).

    Raises ``UsageError`` for an unknown rate or side.
    """
    rate = RATES.get(text)
    if rate is None:
        raise UsageError("--metric", text, "one of " + ", ".join(sorted(RATES)))
    if side is not None and side not in sides:
        raise UsageError("--side", side, "one of " + ", ".join(sides))
    if not rate.needs_side:
        return Metric(rate.name)
    return Metric(rate.name, side if side is not None else sides[0])


def metric_help() -> str:
    """For ``--help``: every rate and what it counts."""
    return "; ".join(f"{r.name}: {r.help}" for r in RATES.values())
