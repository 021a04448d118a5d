"""The whole run on the page: the folder's chain files (``GET /api/chains``) and a chain run
as ``combatsim chain FILE`` runs it (``POST /api/chains``, then followed as a study:
``GET /api/studies/ID`` and its events).

A chain job runs ``combatsim.chain`` itself on the warm pool, so its numbers are the
command's for the same seed and runs; its figures carry each encounter's cells already
written as the command writes them (``format_chain``'s own formatting) and the command's
whole text, so the page shows the same characters.
"""

from __future__ import annotations

from typing import Any

from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.routing import Route

from ..errors import CombatsimError, UsageError
from . import common as web
from .jobs import Job
from .runs import run_options
from .studies import MAX_STUDY_BATTLES


def chain_rows(served) -> list[dict[str, Any]]:
    """Every chain file of the folder: ``file``, ``name``, ``side`` and its ``encounters``
    by name (as the file gives them; a file that does not read is left out)."""
    from ..chains.loader import is_chain
    from ..safeyaml import load_yaml

    rows = []
    for path in served.yaml_files():
        try:
            data, _ = load_yaml(path)
        except CombatsimError:
            continue
        if not is_chain(data) or not isinstance(data.get("encounters"), list):
            continue
        names = [
            str(e.get("name") or f"{k + 1}: {e.get('scenario', '?')}")
            if isinstance(e, dict)
            else "?"
            for k, e in enumerate(data["encounters"])
        ]
        rows.append(
            {
                "file": served.relative(path),
                "name": str(data.get("name", path.stem)),
                "side": str(data.get("side", "")),
                "encounters": names,
            }
        )
    return rows


def load_chain_file(served, name: Any):
    """The chain file ``name`` of the folder, loaded inside the folder's fence."""
    from ..chains.loader import load_chain

    if not isinstance(name, str):
        raise UsageError("chain", name, "a chain file of the folder")
    path = served.path(name)
    if not path.is_file():
        raise LookupError(f"no chain file {name} in the folder")
    with served.fenced():
        return load_chain(path)


def chain_body(served, body: dict[str, Any], workers: int):
    """Check a chain request and return its job's work."""
    chain = load_chain_file(served, body.get("chain"))
    options = run_options(body, MAX_STUDY_BATTLES)
    root = f"{served.root}/"

    def work(job: Job) -> dict[str, Any]:
        import combatsim

        result = combatsim.chain(
            chain,
            **options,
            workers=workers,
            quiet=True,
            watch=job.counter("chain"),
            cancel=job.cancel,
            backend=job.backend,
        )
        figures = chain_figures(result.summary)
        figures["text"] = result.text().replace(root, "")
        return figures

    return work


def chain_figures(summary: dict[str, Any]) -> dict[str, Any]:
    """The page's view of a chain's summary: completion and each encounter in order, each
    number beside its cell as ``combatsim chain`` prints it."""
    from ..output import interval_text as _interval
    from ..output import percent as _pct

    carried, fresh = summary["carried"], summary["fresh"]

    def completes(part: dict[str, Any]) -> dict[str, Any]:
        c = part["completes"]
        return {**c, "cells": [_pct(c["rate"]), _interval(c["ci95"])]}

    encounters = []
    for e, f in zip(carried["encounters"], fresh["encounters"], strict=True):
        won = e["win_once_reached"]
        encounters.append(
            {
                "encounter": e["encounter"],
                "reach": e["reach"],
                "win_once_reached": won,
                "ends_run": e["ends_run"],
                "ends_most_runs": e["ends_most_runs"],
                "fresh_win_once_reached": f["win_once_reached"],
                "cells": {
                    "reached": _pct(e["reach"]["rate"]),
                    "reached_interval": _interval(e["reach"]["ci95"]),
                    "won": _pct(won["rate"]),
                    "interval": _interval(won["ci95"]),
                    "ends": _pct(e["ends_run"]["rate"]),
                    "fresh_won": _pct(f["win_once_reached"]["rate"]),
                },
            }
        )
    return {
        "kind": "chain",
        "chain": summary["chain"],
        "side": summary["side"],
        "seed": summary["seed"],
        "runs": carried["runs_completed"],
        "battles_done": carried["runs_completed"],
        "interrupted": summary["interrupted"],
        "completes": {"carried": completes(carried), "fresh": completes(fresh)},
        "encounters": encounters,
    }


async def list_chains(request: Request):
    server = web.server_of(request)
    return web.JSON(await run_in_threadpool(chain_rows, server.served))


async def start_chain(request: Request):
    server = web.server_of(request)
    body = await web.read_json(request)
    work = await run_in_threadpool(chain_body, server.served, body, server.study_workers)
    job = Job("chain", work, server.pool)
    page = body.get("page")
    server.jobs.start(job, f"{page}:chain" if isinstance(page, str) and page else None)
    return web.JSON({"id": job.id}, status_code=201)


def routes() -> list:
    return [
        Route("/api/chains", list_chains, methods=["GET"]),
        Route("/api/chains", start_chain, methods=["POST"]),
    ]
