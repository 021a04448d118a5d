"""One battle blow by blow for the page (``POST /api/trace``), bounded like every other work.

A trace is a job (``Jobs`` counts it under the same cap as runs and studies) whose battle
runs in a process of its own, started for it: unlike a task on the warm pool, a process of
its own can be ended at once, so a trace stops when its client goes, when the server stops,
and after ``TRACE_SECONDS``. A scenario of more than ``MAX_TRACE_FIGHTERS`` fighters is
refused before anything starts: on this 2-core machine a 20-turn battle of the firefight's
guards takes about 0.5 s at 400 fighters, 1.2 s at 800 and 4.4 s at 2,000.
"""

from __future__ import annotations

import asyncio
import multiprocessing
import os
import time
from typing import Any

from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.routing import Route

from ..errors import CombatsimError, UsageError
from . import common as web
from .common import JSON as JSONResponse
from .jobs import Job
from .pool import install
from .runs import scenario_of

MAX_TRACE_FIGHTERS = 500  # fighters in all, every copy counted; more is refused (422)
TRACE_SECONDS = 10.0  # a trace still running after this is ended (422)
LOOK_EVERY = 0.05  # seconds between looks at a trace's cancel, clock and process


def trace_body(served, body: dict[str, Any]):
    """Check a trace request (422 before anything starts) and return its job's work."""
    from ..limits import MAX_SEED
    from ..run_arguments import check_run_options, integer

    scenario = scenario_of(served, body)
    fighters = len(scenario.fighters)
    if fighters > MAX_TRACE_FIGHTERS:
        raise UsageError(
            "scenario",
            f"{fighters} fighters",
            f"at most {MAX_TRACE_FIGHTERS} fighters to trace from the page "
            "(combatsim run FILE --trace K traces any)",
        )
    battle = body["battle"] if body.get("battle") is not None else 0  # null: the first
    battle = integer("battle", battle, 0, MAX_SEED)  # a battle index: as a seed's bounds
    seed = check_run_options({"seed": body.get("seed")})["seed"]
    seed = scenario.seed if seed is None else seed
    head = f"{scenario.name} ({scenario.source}, {scenario.system.name}), seed {seed}"

    def work(job: Job) -> dict[str, Any]:
        got = traced_apart(job, scenario, seed, battle, head)
        return {"text": None, "replay": None} if got is None else got

    return work


def traced_apart(job: Job, scenario, seed: int, battle: int, head: str) -> dict[str, Any] | None:
    """The trace's text and its replay for the map (``maps.replay``), made in a process of its
    own that is killed if ``job`` is cancelled or the trace outlasts ``TRACE_SECONDS``; None
    when cancelled."""
    from .. import engine, output  # noqa: F401 - imported once here, not in every child

    context = multiprocessing.get_context()
    mine, theirs = context.Pipe(duplex=False)
    process = context.Process(
        target=_trace, args=(os.getpid(), scenario, seed, battle, head, theirs), daemon=True
    )
    process.start()
    theirs.close()
    try:
        deadline = time.monotonic() + TRACE_SECONDS
        while not mine.poll(LOOK_EVERY):
            if job.cancel.cancelled:
                return None
            if not process.is_alive() and not mine.poll():
                raise CombatsimError("the trace's process died (out of memory?); trace again")
            if time.monotonic() > deadline:
                raise CombatsimError(
                    f"the trace took over {TRACE_SECONDS:g} s and was ended; trace a smaller "
                    "fight, or use combatsim run FILE --trace K"
                )
        ok, text, turns = mine.recv()
    finally:
        if process.is_alive():
            process.kill()
        process.join(timeout=2)
        mine.close()
    if not ok:
        raise CombatsimError(text)
    return {"text": text, "replay": turns}


def _trace(parent: int, scenario, seed: int, battle: int, head: str, conn) -> None:
    """In the trace's process: the battle, its text and replay sent back as (ok, text, replay)."""
    install(parent)  # Ctrl-C is the server's; end when the server is gone
    from ..engine import run_battle
    from ..names import for_terminal
    from ..output import format_trace
    from .maps import replay

    answer: tuple[bool, str, dict[str, Any] | None]
    try:
        result = run_battle(scenario, seed, battle, trace=True)
        sides = [side.name for side in scenario.sides]
        text = for_terminal(head) + "\n" + for_terminal(format_trace(result, sides))
        answer = (True, text, replay(scenario, result))
    except Exception as err:  # one line back, never a traceback on the server's stderr
        answer = (
            False,
            f"{type(err).__name__}: {err}" if not isinstance(err, CombatsimError) else str(err),
            None,
        )
    conn.send(answer)
    conn.close()


TRACE_LOOK = 0.05  # seconds between a trace request's looks at its job and its client


async def trace(request: Request):
    """A trace as a job of its own process (``traces``): 422 before it starts if it cannot
    be traced, 429 over the cap, ended when its client goes or the server stops."""
    server = web.server_of(request)
    body = await web.read_json(request)
    work = await run_in_threadpool(trace_body, server.served, body)
    job = Job("trace", work, server.pool)
    page = body.get("page")
    server.jobs.start(job, f"{page}:trace" if isinstance(page, str) and page else None)
    try:
        while job.running:
            if await request.is_disconnected():
                break
            await asyncio.sleep(TRACE_LOOK)
    finally:
        job.cancel.cancel()  # a trace ended is not touched; one still going ends now
    got = job.snapshot()
    server.jobs.forget(job)  # its text goes with this answer, not kept with the jobs
    if got["state"] == "failed":
        return web.errors(422, *got["errors"])
    if got["state"] != "done":
        return web.errors(409, "the trace was cancelled")
    text = got["text"].replace(f"{server.served.root}/", "")
    return JSONResponse({"text": text, "replay": got.get("replay")})


def routes() -> list:
    return [Route("/api/trace", trace, methods=["POST"])]
