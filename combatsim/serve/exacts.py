"""The exact odds of one attack for an ended run's most used attacks (``GET
/api/runs/ID/exact``), worked out apart and answered as they come.

One attack's exact walk can take seconds to tens of seconds (an autofire burst of four shots
against armor); worked out in the server's own process, all of them before the first answer,
the table took 35 s to appear and the walks held the server's interpreter while the next run
was being started. So the rows are worked out in a process of their own, one by one, and each
answer gives the rows done so far (``complete`` says when all are): the table fills in as the
walks end. The process is ended when nobody has asked for the table for ``UNASKED`` seconds
(the page asks while it shows it), when the page has started another run, after
``EXACT_SECONDS``, and with the server; the rows not worked out by then say so.
"""

from __future__ import annotations

import multiprocessing
import os
import threading
import time
from collections.abc import Callable
from typing import Any

from .jobs import Job
from .pool import install

EXACT_SECONDS = 60.0  # a table still being worked out after this is left as it is
UNASKED = 3.0  # seconds without an ask after which the work stops (the page asks every 0.5 s)
LOOK_EVERY = 0.05  # seconds between looks at the pipe, the clock and the asks
WORKING = "being worked out…"
STOPPED = "not worked out here (stopped after {seconds:g} s or when no longer shown): "
STOPPED += "combatsim odds attack or the run's report works it out"


def exact_attacks(job: Job, wanted: Callable[[], bool] = lambda: True) -> dict[str, Any]:
    """The section "Exact odds of one attack" of an ended run (``report.attacks``) so far:
    ``rows`` for its most used attacks (a row not worked out yet has a ``reason``),
    ``pairs``, ``battles``, the ``note`` and ``complete``. The first ask starts the work;
    ``wanted``: whether the run is still the one its page shows."""
    from ..output import attack_rows
    from ..report.attacks import NOTE, TOP_PAIRS, exact_attack_rows

    with job.extra.setdefault("exact_lock", threading.Lock()):
        state = job.extra.get("exact")
        if state is None:
            summary, scenario = job.extra["summary"], job.extra["scenario"]
            pairs = attack_rows(scenario, job.extra["tally"].attacks)
            casualties = summary.get("casualties")
            waiting = exact_attack_rows(None, pairs[:TOP_PAIRS], casualties)
            state = {
                "battles": summary.get("battles_completed", 0),
                "pairs": len(pairs),
                "rows": [{**row, "reason": WORKING} for row in waiting],
                "note": NOTE,
                "complete": not waiting,
                "asked": time.monotonic(),
            }
            job.extra["exact"] = state
            if waiting:
                work = (scenario, pairs[:TOP_PAIRS], casualties)
                threading.Thread(target=_watch, args=(state, work, wanted), daemon=True).start()
        state["asked"] = time.monotonic()
        return {key: value for key, value in state.items() if key != "asked"}


def _watch(state: dict[str, Any], work: tuple, wanted: Callable[[], bool]) -> None:
    """Start the rows' process and take its rows as they come; end it when it is done, no
    longer asked for or wanted, or late."""
    context = multiprocessing.get_context()
    mine, theirs = context.Pipe(duplex=False)
    process = context.Process(target=_rows, args=(os.getpid(), *work, theirs), daemon=True)
    process.start()
    theirs.close()
    deadline = time.monotonic() + EXACT_SECONDS
    try:
        while not state["complete"]:
            if mine.poll(LOOK_EVERY):
                i, row = mine.recv()
                state["rows"][i] = row
                state["complete"] = all(r.get("reason") != WORKING for r in state["rows"])
                continue
            unasked = time.monotonic() - state["asked"] > UNASKED
            if unasked or not wanted() or time.monotonic() > deadline or not process.is_alive():
                break
    except (EOFError, OSError):  # the process died: its rows say they were not worked out
        pass
    finally:
        if process.is_alive():
            process.kill()
        process.join(timeout=2)
        mine.close()
        stopped = STOPPED.format(seconds=EXACT_SECONDS)
        state["rows"] = [
            {**r, "reason": stopped} if r.get("reason") == WORKING else r for r in state["rows"]
        ]
        state["complete"] = True


def _rows(parent: int, scenario, pairs: list, casualties, conn) -> None:
    """In the rows' process: each row as it is worked out, sent back as (index, row)."""
    install(parent)  # Ctrl-C is the server's; end when the server is gone
    from ..report.attacks import exact_attack_rows

    for i, pair in enumerate(pairs):
        try:
            (row,) = exact_attack_rows(scenario, [pair], casualties)
        except Exception as err:  # one line in the row, never a traceback on the server
            (row,) = exact_attack_rows(None, [pair], casualties)
            row["reason"] = f"{type(err).__name__}: {err}"[:200]
        conn.send((i, row))
    conn.close()
