"""What a typical and an unlucky fight look like (``GET /api/runs/ID/story``).

A finished run's battles are ranked from the first side's point of view, worst first
(``ranked``): by outcome (lost, then drawn, then won), then by how many of its fighters
ended dead, then out of the fight, then by the damage they took in all, then by battle
number. The *median* battle sits at position ``(n - 1) // 2`` of that order, the *worst
tenth* at ``ceil(n / 10) - 1``: one battle in ten is as bad for the first side or worse.

The ranking reads the run's own per-battle records (``battles`` and ``combatants``, which a
run keeps for its tables), so picking costs nothing more; only the two battles picked are
played again (battle ``i`` has its own random stream: ``run_battle(scenario, seed, i)``
replays it exactly), with every fighter's condition noted at the end of each turn
(``conditions``): ``1 - harm`` (the rule system's share of the way to being out of the
fight) and its status. The same functions read the tables of ``combatsim run --out`` or
``combatsim.simulate``, so the page and the library pick the same battles.
"""

from __future__ import annotations

import math
import threading
from typing import Any

from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.routing import Route

from ..errors import UsageError
from . import common as web
from .runs import records_of
from .traces import MAX_TRACE_FIGHTERS

PICKS = (
    ("median", "a typical battle (the median)"),
    ("worst_tenth", "an unlucky battle (the worst tenth)"),
)


def positions(n: int) -> dict[str, int]:
    """Where the median and the worst-tenth battles sit in the worst-first order of ``n``."""
    return {"median": (n - 1) // 2, "worst_tenth": max(0, math.ceil(n / 10) - 1)}


def ranked(battles, combatants, side: str) -> list[int]:
    """Battle numbers, worst first for ``side`` (see the module docstring), from the per-battle
    tables of a run (``battles.csv`` and ``combatants.csv`` as frames)."""
    mine = combatants[combatants["side"] == side]
    fallen = (
        mine.assign(
            dead=(mine["status"] == "dead").astype(int),
            out=(~mine["standing"].astype(bool)).astype(int),
        )
        .groupby("battle")[["dead", "out", "damage_taken"]]
        .sum()
    )
    keys = battles[["battle", "winner"]].join(fallen, on="battle").fillna(0)
    keys["outcome"] = (keys["winner"] == side) * 2 + (keys["winner"] == "draw") * 1
    for column in ("dead", "out", "damage_taken"):
        keys[column] = -keys[column].astype(int)
    columns = ["outcome", "dead", "out", "damage_taken", "battle"]
    return [int(b) for b in keys.sort_values(columns, kind="stable")["battle"]]


def conditions(scenario, seed: int, index: int) -> dict[str, Any]:
    """Battle ``index`` of the run seeded ``seed`` played again, with each fighter's condition
    at the start (turn 0) and at the end of every turn: ``condition`` (``1 - harm``, from 1
    fresh to 0 out of the fight), ``status`` and ``standing`` (able to act), and how the
    battle ended."""
    from ..engine.battle import Battle
    from ..rng import battle_rng

    class Watched(Battle):
        """The battle, noting every fighter's condition when a turn's first line is traced
        (nothing has happened in that turn yet) and at the end."""

        def __init__(self, *args: Any, **kwargs: Any):
            super().__init__(*args, **kwargs)
            self.noted = [self.now()]

        def now(self) -> list[tuple[float, str, bool]]:
            system = self.system
            return [
                (
                    max(0.0, 1.0 - float(system.harm(f))),
                    "fled" if f.fled else system.status(f),
                    bool(f.can_act),
                )
                for f in self.fighters
            ]

        def trace(self, kind: str, text: str, actor: Any = None, **data: Any) -> None:
            while len(self.noted) < self.turn:
                self.noted.append(self.now())
            super().trace(kind, text, actor, **data)

    battle = Watched(scenario, battle_rng(seed, index), index=index, trace=True)
    result = battle.run()
    while len(battle.noted) <= result.turns:
        battle.noted.append(battle.now())
    fighters = []
    for k, f in enumerate(battle.fighters):
        fighters.append(
            {
                "name": f.name,
                "side": f.side,
                "condition": [round(turn[k][0], 4) for turn in battle.noted],
                "status": [turn[k][1] for turn in battle.noted],
                "standing": [turn[k][2] for turn in battle.noted],
            }
        )
    return {
        "battle": index,
        "winner": result.winner,
        "end_reason": result.end_reason,
        "turns": result.turns,
        "fighters": fighters,
    }


def story(scenario, seed: int, battles, combatants) -> dict[str, Any]:
    """The median and worst-tenth battles of a run (its per-battle tables as frames), each
    played again turn by turn (``conditions``)."""
    side = scenario.sides[0].name
    order = ranked(battles, combatants, side)
    if not order:
        raise UsageError("battles", 0, "a run with battles finished")
    picks = []
    for kind, label in PICKS:
        at = positions(len(order))[kind]
        picks.append(
            {"kind": kind, "label": label, "position": at, **conditions(scenario, seed, order[at])}
        )
    return {"side": side, "seed": seed, "battles": len(order), "picks": picks}


def job_story(job, folder) -> dict[str, Any]:
    """The story of a finished run job (made once, then kept with it)."""
    with job.extra.setdefault("story_lock", threading.Lock()):
        return _job_story(job, folder)


def _job_story(job, folder) -> dict[str, Any]:
    if "story" not in job.extra:
        scenario = job.extra["scenario"]
        if len(scenario.fighters) > MAX_TRACE_FIGHTERS:
            raise UsageError(
                "scenario",
                f"{len(scenario.fighters)} fighters",
                f"at most {MAX_TRACE_FIGHTERS} fighters to replay from the page",
            )
        summary = job.extra["summary"]
        battles = records_of(job, "battles", folder)
        combatants = records_of(job, "combatants", folder)
        job.extra["story"] = story(scenario, int(summary["seed"]), battles, combatants)
    return job.extra["story"]


async def run_story(request: Request):
    job = web.job_of(request, "run")
    if job.running or "summary" not in job.extra:
        return web.errors(409, "the run is still going (its story comes when it ends)")
    folder = web.server_of(request).tables
    return web.JSON(await run_in_threadpool(job_story, job, folder))


def routes() -> list:
    return [Route("/api/runs/{id}/story", run_story)]
