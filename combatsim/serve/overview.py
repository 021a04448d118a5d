"""The folder overview: every scenario run briefly in the background, refined while watched.

Rounds grow (``ROUNDS`` battles per scenario in all after each round), so every row has
first figures within seconds and firmer ones later. Each round of a scenario is battles
``done .. target - 1`` of its own seed, merged into its tally: the figures after a round are
those of ``combatsim run FILE --battles TARGET``. Work runs on the warm pool in steps of
``STEP`` battles, and the user's runs and studies come first: between steps the refining
waits while any of them is running. It stops when nobody has asked for the overview for
``WATCHED`` seconds and resumes at the next ask.

Per side: its win rate with interval, the chance it loses someone (at least one of its
fighters ends down) and that someone of it dies; the draws, with their interval. A scenario is
``dangerous`` when someone of its first side (the players' by convention) dies in at least
``DANGER_DEATH`` of the battles, judged by the 95% interval's low end: a character lost for
good is what a game master must know of in advance, and a few unlucky battles of the first
rounds do not mark a scenario. Losing the fight, or a draw, is not danger: the win rates
show those.
"""

from __future__ import annotations

import threading
import time
from typing import Any

from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.routing import Route

from ..errors import CombatsimError
from ..run import Cancel, Settings, Study, default_runner
from . import common as web
from .common import JSON as JSONResponse
from .folder import Served
from .pool import WarmPool

ROUNDS = (50, 200, 1000, 5000)  # battles per scenario after each round
CHUNK = 50
STEP = 100  # battles between two looks at whether the user's runs are waiting
YIELD = 0.1  # seconds between those looks while they are
WATCHED = 30.0  # seconds after the last ask that refining goes on
DANGER_DEATH = 0.10


class Overview:
    """The rows of the folder overview, refined by one background thread."""

    def __init__(self, served: Served, pool: WarmPool, scenarios, busy=lambda: False):
        self.served, self.pool, self._scenarios, self._busy = served, pool, scenarios, busy
        self._rows: dict[str, dict[str, Any]] = {}
        self._studies: dict[str, Study] = {}
        self._lock = threading.Lock()
        self._asked = 0.0
        self._thread: threading.Thread | None = None
        self.cancel = Cancel()

    def rows(self) -> list[dict[str, Any]]:
        """The rows so far; starts or wakes the refining."""
        self._asked = time.monotonic()
        with self._lock:
            if self._thread is None or not self._thread.is_alive():
                self._thread = threading.Thread(target=self._refine, name="combatsim-overview")
                self._thread.daemon = True
                self._thread.start()
            known = dict(self._rows)
        return [known.get(row["file"], {**row, "battles": 0, "sides": []}) for row in self._list()]

    def close(self) -> None:
        self.cancel.cancel()

    def _list(self) -> list[dict[str, Any]]:
        return self._scenarios()

    def _refine(self) -> None:
        with self.served.fenced():
            self._rounds()

    def _rounds(self) -> None:
        for target in ROUNDS:
            for row in self._list():
                if self.cancel.cancelled or time.monotonic() - self._asked > WATCHED:
                    return
                try:
                    self._advance(row, target)
                except (CombatsimError, LookupError, OSError) as err:
                    # a file that turned invalid, was removed or became unreadable while the
                    # page was open, or a worker died under it: its row says why (paths
                    # relative to the folder), it starts afresh at the next round, and the
                    # other rows go on refining
                    self._studies.pop(row["file"], None)
                    with self._lock:
                        self._rows[row["file"]] = {
                            **row,
                            "battles": 0,
                            "sides": [],
                            "error": str(err).replace(f"{self.served.root}/", ""),
                        }

    def _advance(self, row: dict[str, Any], target: int) -> None:
        study = self._studies.get(row["file"])
        if study is None:
            scenario = self.served.load(row["file"])
            settings = Settings(None, target, None, target, CHUNK, "none")
            study = Study([scenario], settings, default_runner(), cancel=self.cancel)
            self._studies[row["file"]] = study
        unit = study.units[0]
        while unit.done < target and not self.cancel.cancelled:
            while self._busy() and not self.cancel.cancelled:  # the user's runs go first
                time.sleep(YIELD)
            unit.target = min(target, unit.done + STEP)
            study.evaluate(self.pool.backend(self.cancel))
            with self._lock:
                self._rows[row["file"]] = overview_row(row, study)


def overview_row(row: dict[str, Any], study: Study) -> dict[str, Any]:
    tally = study.tally(0)
    outcomes = tally.outcomes()
    casualties = {c["side"]: c for c in (outcomes.get("casualties") or []) if c["level"] == "side"}
    sides = []
    for name, figures in outcomes["sides"].items():
        side = casualties.get(name, {})
        sides.append(
            {
                "side": name,
                "win": figures["win_rate"],
                "win_ci95": figures["ci95"],
                "loses_someone": side.get("down_rate"),
                "loses_someone_ci95": side.get("down_ci95"),
                "someone_dies": side.get("dead_rate"),
                "someone_dies_ci95": side.get("dead_ci95"),
            }
        )
    first = sides[0] if sides else {}
    dies = first.get("someone_dies_ci95") or [0.0, 0.0]
    draws = outcomes.get("draws") or {}
    return {
        **row,
        "battles": outcomes["battles_completed"],
        "draw": draws.get("rate"),
        "draw_ci95": draws.get("ci95"),
        "sides": sides,
        "dangerous": bool(first) and dies[0] >= DANGER_DEATH,
    }


async def overview(request: Request):
    server = web.server_of(request)
    return JSONResponse(await run_in_threadpool(server.overview.rows))


def routes() -> list:
    return [Route("/api/overview", overview)]
