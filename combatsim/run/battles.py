"""The summary of one scenario's battles (``summarize``) and the engine's battle runner.

A summary is made from a ``Tally``'s integer counts, so nothing in it depends on how the
battles were run (workers, backend, chunks, time); ``combatsim.run.OneRun`` is how a front end
runs one scenario.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ..engine.records import BattleResult
from .chunks import Runner
from .tally import Tally


def default_runner(runner: Runner | None = None) -> Runner:
    """``runner``, or the engine's ``run_battle`` (imported late: the engine pulls in simpy)."""
    if runner is None:
        from ..engine import run_battle

        return run_battle
    return runner


def summarize(
    tally: Tally | Sequence[BattleResult],
    scenario,
    seed: int,
    requested: int,
    interrupted: bool,
) -> dict[str, Any]:
    """The JSON-ready summary of the finished battles (a ``Tally``, or the results themselves).

    Keys: ``scenario``, ``source``, ``system``, ``seed``, ``battles_requested``,
    ``battles_completed``, ``interrupted``; ``sides`` (per side name, in scenario order:
    ``wins``, ``win_rate``, ``ci95``) and ``side_order`` (the names in scenario order, which
    ``summary.json``'s sorted keys lose); ``draws`` (``count``, ``rate``, ``ci95``: battles whose
    ``winner`` is None); ``turns`` (``mean``, ``median``, ``p10``, ``p90``, ``max``);
    ``end_reasons`` (count per reason); ``casualties`` (a list, per side, combatant and copy:
    ``side``, ``who``, ``level``, ``battles``, ``down``/``dead`` battle counts with
    ``down_rate``/``down_ci95`` and ``dead_rate``/``dead_ci95``; see ``Tally``; None when the
    records lack ``standing`` or ``status``); ``distributions``: ``turns`` (battles per length in
    turns, from 0), ``standing`` (per side: ``fighters`` and ``by_turn``, fighters still up at
    the end of each turn from 0 to the turn limit, summed over battles) and ``damage_taken``
    (per side: combatants per boxes of damage taken, from 0); the last two are None when the
    records lack what they need. Rates are None and intervals [0, 1] when no battle finished.
    Intervals are 95% Wilson score intervals. Nothing here depends on how the batch was run
    (workers, backend, chunks, time).
    """
    if not isinstance(tally, Tally):
        tally = Tally.of(scenario, tally)
    return {
        "scenario": scenario.name,
        "source": str(scenario.source),
        "system": scenario.system.name,
        "seed": int(seed),
        "battles_requested": int(requested),
        "interrupted": bool(interrupted),
        **tally.outcomes(),
    }
