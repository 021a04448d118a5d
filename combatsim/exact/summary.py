"""An exact fight's ``summary.json``: the keys of a sampled run's (``run.battles.summarize``),
with exact rates in place of sampled ones.

Rates are the exact probabilities as floats (rounded as a sampled run rounds them), each with
its fraction beside it (``probability``); every interval has zero width; counts of battles are
None (no battle was run) and ``"exact": true`` says so. The turns are described from their
exact distribution (the mean exactly, percentiles as the quantiles of the distribution), and
``distributions.turns`` gives the probability of each length. What needs the battles' records
(fighters standing turn by turn, damage taken) is None, as in a run that kept no records.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any

from ..engine.records import TURN_LIMIT
from ..run.tally import casualty_entries
from ..stats import rounded
from .fight import FightOdds


def exact_summary(odds: FightOdds) -> dict[str, Any]:
    """The summary of ``odds`` (see the module's docstring)."""
    scenario = odds.scenario
    sides = [s.name for s in scenario.sides]
    turns = odds.turns()
    return {
        "scenario": scenario.name,
        "source": str(scenario.source),
        "system": scenario.system.name,
        "seed": int(scenario.seed),
        "exact": True,
        "battles_requested": None,
        "battles_completed": None,
        "interrupted": False,
        "side_order": sides,
        "sides": {side: _rate(odds.win(side), wins=None) for side in sides},
        "draws": _rate(odds.draw(), count=None),
        "turns": describe_turns(turns),
        "end_reasons": {
            reason: rounded(float(p))
            for reason, p in sorted(odds.endings.map(lambda e: e.reason).items())
        },
        "casualties": casualties(odds),
        "distributions": {
            "turns": [
                rounded(float(turns[t])) if t in turns else 0.0
                for t in range(scenario.turn_limit + 1)
            ],
            "standing": None,
            "damage_taken": None,
        },
        "chain": {"states": odds.states, "paths": odds.paths},
    }


def _rate(p: Fraction, **counts: None) -> dict[str, Any]:
    rate = rounded(float(p))
    return {
        **counts,
        "rate" if "count" in counts else "win_rate": rate,
        "ci95": [rate, rate],
        "probability": str(p),
    }


def describe_turns(turns: Any) -> dict[str, Any]:
    """Mean, median, 10th and 90th percentiles (the least length whose cumulative probability
    reaches them) and the longest possible battle, in turns."""
    mean = turns.mean()
    lengths = sorted(t for t, p in turns.items() if p)

    def quantile(q: Fraction) -> int:
        total = Fraction(0)
        for t in lengths:
            total += turns[t]
            if total >= q:
                return t
        return lengths[-1]

    return {
        "mean": rounded(float(mean)),
        "median": float(quantile(Fraction(1, 2))),
        "p10": float(quantile(Fraction(1, 10))),
        "p90": float(quantile(Fraction(9, 10))),
        "max": lengths[-1],
    }


def casualties(odds: FightOdds) -> list[dict[str, Any]]:
    """Per side, combatant and copy (``run.tally.casualty_entries``): the chance that one of
    its fighters ends down (unable to act) and that one ends dead, as the tally counts them."""
    fighters = [(f.side, f.name) for f in odds.scenario.fighters]
    out = []
    for entry in casualty_entries(odds.scenario):
        members = [i for i, who in enumerate(fighters) if who in entry.members]

        def down(e: Any, members: list[int] = members) -> bool:
            return any(not e.fighters[i][0] for i in members)

        def dead(e: Any, members: list[int] = members) -> bool:
            return down(e) and any(e.fighters[i][1] == "dead" for i in members)

        p_down, p_dead = odds.endings.prob(down), odds.endings.prob(dead)
        out.append(
            {
                "side": entry.side,
                "who": entry.who,
                "level": entry.level,
                "battles": None,
                "down": None,
                "down_rate": rounded(float(p_down)),
                "down_ci95": [rounded(float(p_down))] * 2,
                "dead": None,
                "dead_rate": rounded(float(p_dead)),
                "dead_ci95": [rounded(float(p_dead))] * 2,
            }
        )
    return out


def format_exact(summary: dict[str, Any], seconds: float) -> str:
    """The exact summary as the lines ``combatsim run --exact`` prints."""
    lines = [
        f"{summary['scenario']} ({summary['source']}, {summary['system']})",
        f"exact: every way the dice can fall, {summary['chain']['states']:,} states and "
        f"{summary['chain']['paths']:,} paths in {seconds:.2f} s (no battles sampled; "
        "exact fractions in summary.json)",
        "",
    ]
    for name in summary["side_order"]:
        side = summary["sides"][name]
        lines.append(f"  {name}: wins {side['win_rate']:.2%}")
    lines.append(f"  draws: {summary['draws']['rate']:.2%}")
    turns = summary["turns"]
    lines.append(
        f"  turns: mean {turns['mean']:.2f}, median {turns['median']:g}, "
        f"10%-90% {turns['p10']:g}-{turns['p90']:g}, longest {turns['max']}"
    )
    reasons = ", ".join(f"{k} {v:.2%}" for k, v in summary["end_reasons"].items())
    lines.append(f"  end reasons: {reasons}")
    if TURN_LIMIT in summary["end_reasons"]:
        lines.append("  (a draw at the turn limit: both sides still standing)")
    return "\n".join(lines)
