"""What a balance search aims at: any rate a summary reports, not only a side's win rate.

The syntax (``combatsim balance --target``, ``combatsim.balance(target=...)``)::

    [WHO] RATE [OP] VALUE

``RATE`` is ``win`` (WHO a side), ``down`` or ``dead`` (WHO a side, a combatant, a group of
copies by its member name, or one copy: the names of the casualties table), or ``draw`` (no
WHO). ``OP`` is ``=`` (the closest value; the default), ``<=`` or ``>=`` (the value nearest
the bound that keeps to it). ``VALUE`` is a share, ``0.3``, or a percentage, ``30%``.
Examples: ``runners win = 0.5``, ``runners down <= 0.3`` (the runners lose someone in at most
30% of battles), ``Razor dead <= 5%``, ``draw <= 0.1``. On a chain of encounters a run counts
as a battle: ``completes the run 0.7`` (or ``runners win 0.7``) is the chance that the carried
side wins every encounter, and ``down``/``dead`` are how its fighters end the run. A bare
number is the win rate of the side named separately (``--side``), as before. Where a range
makes sense (``combatsim design`` asks for ``parse_aim(..., ranges=True)``), VALUE may also be
``LOW..HIGH``:
``runners win 0.6..0.75`` (no OP; both ends count).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from typing import Any

from ..errors import UsageError, did_you_mean

RATES = ("win", "draw", "down", "dead", "complete")
OPS = ("=", "<=", ">=")
ALIASES = {"wins": "win", "winning": "win", "draws": "draw", "==": "="}
SYNTAX = (
    "[WHO] win|draw|down|dead [=|<=|>=] VALUE, e.g. 'runners down <= 0.3' "
    "(a chain: 'completes the run 0.7')"
)
_PATTERN = re.compile(
    r"^\s*(?:(?P<who>.*?)\s+)?(?P<rate>wins?|winning|draws?|down|dead|completes?(?:\s+the\s+run)?)"
    r"\s*(?P<op><=|>=|==|=)?\s*(?P<value>[-+0-9.eE]+?%?)"
    r"(?:\s*\.\.\s*(?P<high>[-+0-9.eE]+%?))?\s*$"
)
RANGE_SYNTAX = SYNTAX + ", or a range: 'runners win 0.6..0.75'"


@dataclass(frozen=True)
class Aim:
    """One rate to aim at: ``rate`` of ``who`` (a side, combatant or copy; None for draws),
    compared by ``op`` with ``value``."""

    rate: str
    value: float
    op: str = "="  # or "in": from ``value`` to ``high``
    who: str | None = None
    high: float | None = None

    @property
    def text(self) -> str:
        head = (
            self.phrase
            if self.rate == "complete"
            else (f"{self.who} {self.rate}" if self.who else self.rate)
        )
        if self.op == "in":
            return f"{head} {self.value:g}..{self.high:g}"
        return f"{head} {self.op} {self.value:g}"

    @property
    def phrase(self) -> str:
        """``runners win``, ``Razor down``, ``draws``: what the rate is of, for a sentence."""
        if self.rate == "complete":
            return f"{self.who} complete the run" if self.who else "completes the run"
        return "draws" if self.rate == "draw" else f"{self.who} {self.rate}"

    def of(self, summary: dict[str, Any]) -> tuple[float | None, list[float] | None]:
        """The aimed rate and its 95% interval in one variant's summary (None, None when the
        variant has no such combatant, say a copy ``Guard 5`` of a group of three)."""
        if self.rate in ("win", "complete"):
            stats = summary["sides"][self.who or summary["side_order"][0]]
            return stats["win_rate"], stats["ci95"]
        if self.rate == "draw":
            return summary["draws"]["rate"], summary["draws"]["ci95"]
        for entry in _levels(summary.get("casualties") or (), self.who):
            return entry[f"{self.rate}_rate"], entry[f"{self.rate}_ci95"]
        return None, None

    def side_of(self, summary: dict[str, Any]) -> str | None:
        if self.rate == "complete":
            return self.who or summary["side_order"][0]
        if self.rate == "win":
            return self.who
        for entry in _levels(summary.get("casualties") or (), self.who):
            return entry["side"]
        return None

    def meets(self, rate: float) -> bool:
        if self.op == "<=":
            return rate <= self.value
        if self.op == ">=":
            return rate >= self.value
        if self.op == "in" and self.high is not None:
            return self.value <= rate <= self.high
        return True

    def to_json(self) -> dict[str, Any]:
        out = {"rate": self.rate, "who": self.who, "op": self.op, "value": self.value}
        if self.high is not None:
            out["high"] = self.high
        return out


def _levels(entries, who: str | None):
    """Casualty entries named ``who``, a side before a combatant before a copy."""
    order = {"side": 0, "combatant": 1, "copy": 2}
    return sorted((e for e in entries if e["who"] == who), key=lambda e: order[e["level"]])


def parse_aim(target: Any, side: str | None = None, ranges: bool = False) -> Aim:
    """An ``Aim`` from ``--target`` text (see the module docstring) or a number with ``side``;
    ``ranges``: ``LOW..HIGH`` is allowed too."""
    if isinstance(target, int | float) and not isinstance(target, bool):
        return _win(float(target), side)
    text = str(target).strip()
    try:
        return _win(_number(text), side)
    except ValueError:
        pass
    syntax = RANGE_SYNTAX if ranges else SYNTAX
    found = _PATTERN.match(text)
    if found is None or (found["high"] is not None and (not ranges or found["op"])):
        raise UsageError("--target", text, syntax)
    rate = ALIASES.get(found["rate"], found["rate"])
    rate = "complete" if rate.startswith("complete") else rate
    op = ALIASES.get(found["op"] or "=", found["op"] or "=")
    who = (found["who"] or "").strip() or None
    try:
        value = _number(found["value"])
        high = None if found["high"] is None else _number(found["high"])
    except ValueError:
        raise UsageError("--target", text, syntax) from None
    if rate == "draw" and who is not None:
        raise UsageError("--target", text, "'draw OP VALUE' with no name before it")
    if rate not in ("draw", "complete"):
        who = who or side
        if who is None:
            raise UsageError("--target", text, "a name before the rate: " + SYNTAX)
    if side is not None and who is not None and rate == "win" and who != side:
        raise UsageError("--side", side, f"the side named in --target ({who}), or no --side")
    _check_value(text, value)
    if high is None:
        return Aim(rate, value, op, who)
    _check_value(text, high)
    if high < value:
        raise UsageError("--target", text, "a range LOW..HIGH with LOW at most HIGH")
    return Aim(rate, value, "in", who, high)


def is_number(text: Any) -> bool:
    """Whether ``--target`` is a bare number (then it is the win rate of ``--side``)."""
    try:
        _number(str(text).strip())
    except ValueError:
        return False
    return True


def _win(value: float, side: str | None) -> Aim:
    if side is None:
        raise UsageError("--side", None, "a side whose win rate --target is (or 'SIDE win = X')")
    _check_value(value, value)
    return Aim("win", value, "=", side)


def _number(text: str) -> float:
    if text.endswith("%"):
        return float(text[:-1]) / 100
    return float(text)


def _check_value(shown: Any, value: float) -> None:
    if not 0 <= value <= 1:
        raise UsageError("--target", shown, "a rate from 0 to 1 (or 0% to 100%)")


def check_aim(aim: Aim, scenarios) -> Aim:
    """Refuse an aim that no variant can report (an unknown side or name); the aim, with a
    chain's side filled in for ``completes the run``."""
    if aim.rate == "complete" and aim.who is None and all(hasattr(s, "side") for s in scenarios):
        aim = replace(aim, who=scenarios[0].side)
    _check_aim(aim, scenarios)
    return aim


def _check_aim(aim: Aim, scenarios) -> None:
    from ..run.tally import casualty_entries

    chains = [hasattr(s, "encounters") for s in scenarios]
    if aim.rate == "complete" and not all(chains):
        raise UsageError("--target", aim.text, "a rate of a scenario: " + SYNTAX)
    if aim.rate == "draw":
        return
    sides = list(dict.fromkeys(side.name for s in scenarios for side in s.sides))
    if aim.rate == "complete":
        if aim.who is not None and aim.who not in sides:
            raise UsageError("--target", aim.who, "the chain's side: " + ", ".join(sides))
        return
    if aim.rate == "win":
        if aim.who not in sides:
            raise UsageError(
                "--side", aim.who, "one of " + ", ".join(sides), did_you_mean(aim.who, sides)
            )
        return
    names = dict.fromkeys(e.who for s in scenarios for e in casualty_entries(s))
    if aim.who not in names:
        raise UsageError(
            "--target",
            aim.who,
            "a side or combatant: " + ", ".join(names),
            did_you_mean(aim.who, names),
        )
