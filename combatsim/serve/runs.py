"""A run of one scenario for the page: the same study ``combatsim run`` makes, on the warm pool.

``scenario_of`` turns a request (``{"scenario": FILE}`` or ``{"yaml": TEXT}``, with
``"set": ["PATH=VALUE", ...]``) into a scenario; ``run_body`` runs it as a ``OneRun``, as
``combatsim run`` does (``combatsim.sweeps.api.run_one``), so a finished run's numbers are
those of ``combatsim run FILE --battles N --seed S``. Its figures are the summary so far,
with ``battles_done`` and a plain-language ``verdict``; its tables are written as
``combatsim run`` writes them, on demand.

Memory stays bounded: a run keeps its per-battle records while it runs only up to
``MAX_RECORD_ROWS`` fighter-battles (beyond, its tables answer 410), and when it ends they go
to the server's table folder as two frames (``spill``) and leave memory: a finished run
holds its summary and tallies only.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import FileResponse
from starlette.routing import Route

from ..errors import CombatsimError, UsageError
from ..limits import DEFAULT_BATTLES
from ..run import OneRun, Options, Update
from ..run_arguments import check_run_options
from ..sweeps.fields import apply, parse_vary
from .common import JSON, cancel_job, errors, get_job, job_events, job_of, read_json, server_of
from .exacts import exact_attacks
from .folder import Served
from .jobs import Job

CHUNK = 100  # battles per task: first figures sooner, a cancel felt sooner (no number moves)
MAX_SERVED_BATTLES = 50_000  # per run, from the page
MAX_RECORD_ROWS = 400_000  # fighter-battles a run keeps records of (the 4v4 at 50,000)
RECORDS = ("battles", "combatants")  # the tables made of per-battle records
TABLES = {
    f"{name}.{suffix}": None if name == "casualties" else name
    for name in ("battles", "combatants", "casualties", "attacks")
    for suffix in ("csv", "parquet")
}


def scenario_of(served: Served, body: dict[str, Any]):
    """The scenario a request names or sends, with its ``set`` edits applied: text sent with
    the file it is an edit of (``"scenario"``) reads its catalogues from that file's folder."""
    if "yaml" in body and body.get("yaml") is not None:
        scenario = served.load_text(body["yaml"], file_of(body))
    elif isinstance(body.get("scenario"), str):
        scenario = served.load(body["scenario"])
    else:
        raise UsageError("scenario", body.get("scenario"), "a file of the folder, or 'yaml' text")
    return apply(scenario, edits(body.get("set")), "set")


def file_of(body: dict[str, Any]) -> str | None:
    """The file of the folder a request's text is an edit of, if it names one."""
    file = body.get("scenario")
    return file if isinstance(file, str) else None


def edited_yaml(
    served: Served, body: dict[str, Any], name: str | None = None, at: str | None = None
) -> str:
    """The request's scenario text with its ``set`` edits folded in: each field path applied
    to the parsed data as ``apply`` (and so sweep) applies it, then written back into the text
    by ``roundtrip.write_into``, which keeps its comments and layout; with ``name``, the
    scenario's ``name`` becomes that; ``at``: the file the text is for (``Served.load_text``).
    Without edits, the text as sent or as the file has it."""
    import copy

    from ..sweeps.fields import Inheritance
    from .roundtrip import write_into

    sets = edits(body.get("set"))
    if "yaml" in body and body.get("yaml") is not None:
        text = body["yaml"]
        scenario = served.load_text(text, at or file_of(body))
    else:
        text = served.read(body["scenario"])
        scenario = served.load(body["scenario"])
    if not sets and name is None:
        return text
    data = copy.deepcopy(scenario.data)
    inherit = Inheritance(data, Path(scenario.source).parent)
    for path, value in sets:
        path.set(data, value, inherit)
    return write_into(text, _lists(data), name)


def _lists(value: Any) -> Any:
    """Plain mappings and lists (tuples as lists), as ``safe_dump`` writes them."""
    if isinstance(value, dict):
        return {k: _lists(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_lists(v) for v in value]
    return value


def edits(sets: Any) -> list[tuple[Any, Any]]:
    """``["PATH=VALUE", ...]`` as (field path, value) pairs."""
    if sets is None:
        return []
    if not isinstance(sets, list) or not all(isinstance(s, str) for s in sets):
        raise UsageError("set", sets, "a list of 'PATH=VALUE' strings")
    out = []
    for text in sets:
        vary = parse_vary(text, "set")
        if len(vary.values) != 1:
            raise UsageError("set", text, "PATH=VALUE with a single value")
        out.append((vary.path, vary.values[0][1]))
    return out


def run_options(body: dict[str, Any], limit: int = MAX_SERVED_BATTLES) -> dict[str, Any]:
    """``battles``, ``seed`` and ``precision`` of a request, checked as ``combatsim run``
    checks them, and held to ``limit`` battles."""
    battles = body.get("battles", DEFAULT_BATTLES)
    precision = body.get("precision")
    given = {"battles": battles, "seed": body.get("seed"), "precision": precision}
    if precision is not None:
        given["max_battles"] = limit
    checked = check_run_options(given)
    if checked["battles"] > limit:
        raise UsageError("battles", checked["battles"], f"at most {limit:,} battles from the page")
    return {key: value for key, value in checked.items() if key != "precision" or value is not None}


class Dropped(CombatsimError):
    """A run's tables that were never kept (HTTP 410)."""


def run_body(scenario, options: dict[str, Any], tables: Path):
    """The work of a run job (see the module docstring); its records end in ``tables``."""
    most = options.get("max_battles", options["battles"])
    records = "all" if most * len(scenario.fighters) <= MAX_RECORD_ROWS else "none"

    def body(job: Job) -> dict[str, Any]:
        def watch(update: Update) -> None:
            job.publish(figures(None))

        opts = Options(
            **options, watch=watch, cancel=job.cancel, chunk_size=CHUNK, backend=job.backend
        )
        run = OneRun.start(scenario, opts, records)
        job.extra["scenario"] = scenario

        def figures(complete: bool | None) -> dict[str, Any]:
            """The summary so far (``complete`` None: still running)."""
            summary = run.summary(complete)
            summary["battles_done"] = summary.get("battles_completed", 0)
            summary["verdict"] = verdict(summary)
            return summary

        job.publish(figures(None), force=True)
        final = figures(run.evaluate())
        if run.records != "none":
            spill(run.study, tables / job.id)
        job.extra["tally"] = run.study.tally(0)
        job.extra["summary"] = final
        return final

    return body


def spill(study, folder: Path) -> None:
    """The study's per-battle records as frames in ``folder`` (pickled, so every column's
    type comes back as it was), for ``write_table``; the study then leaves memory."""
    from ..output import table

    folder.mkdir(parents=True, exist_ok=True)
    for kind in RECORDS:
        table(study.rows(0, kind)).to_pickle(folder / f"{kind}.pickle")


def records_of(job: Job, kind: str, folder: Path):
    """A finished run's ``kind`` records as ``spill`` left them; ``Dropped`` if not kept."""
    import pandas as pd

    path = folder / job.id / f"{kind}.pickle"
    if not path.is_file():
        raise Dropped(
            f"this run kept no {kind} records (over {MAX_RECORD_ROWS:,} fighter-battles); "
            "combatsim run FILE --out DIR writes them"
        )
    return pd.read_pickle(path)  # our own file, written by ``spill`` in the server's folder


def verdict(summary: dict[str, Any]) -> str:
    """One plain line: the first side's win rate and interval, and who is favoured."""
    sides = summary.get("sides") or {}
    order = summary.get("side_order") or list(sides)
    if not order or summary.get("battles_completed", 0) == 0:
        return "no battles yet"
    first = sides[order[0]]
    line = f"{order[0]} win {_percent(first['win_rate'])} ({_interval(first['ci95'])})"
    ranked = sorted(order, key=lambda name: sides[name]["win_rate"] or 0.0, reverse=True)
    top = sides[ranked[0]]
    if len(ranked) < 2:
        return line
    second = sides[ranked[1]]
    gap = (top["win_rate"] or 0.0) - (second["win_rate"] or 0.0)
    if top["ci95"][0] <= second["ci95"][1]:
        return f"{line}: too close to call"
    strength = "slightly " if gap < 0.15 else "strongly " if gap > 0.5 else ""
    return f"{line}: the {ranked[0]} are {strength}favoured"


def _percent(rate: float | None) -> str:  # one decimal, as the CLI prints rates
    return "-" if rate is None else f"{rate * 100:.1f}%"


def _interval(ci: list[float]) -> str:
    return f"{ci[0] * 100:.1f}-{ci[1] * 100:.1f}%"


def write_table(job: Job, name: str, folder: Path) -> Path:
    """The run's table ``name`` (``battles.csv``, ``battles.parquet``...) written into
    ``folder`` as ``combatsim run`` writes it: the same columns, number formats and row order;
    Parquet by the writer of its ``casualties.parquet`` (a column mixing numbers and text as
    text)."""
    from ..folder import write_atomic
    from ..output import attack_table, casualty_table, parquet_ready, write_csv

    path = folder / job.id / name
    if path.exists():
        return path
    path.parent.mkdir(parents=True, exist_ok=True)
    kind = TABLES[name]
    if kind is None:
        frame = casualty_table([job.extra["summary"]])
    elif kind == "attacks":
        frame = attack_table(job.extra["scenario"], job.extra["tally"].attacks)
    else:
        frame = records_of(job, kind, folder)
    if path.suffix == ".parquet":
        ready = parquet_ready(frame)
        return write_atomic(path, lambda f: ready.to_parquet(f, index=False), binary=True)
    return write_csv(frame, path)


# --- routes --------------------------------------------------------------------------------------


async def start_run(request: Request):
    server = server_of(request)
    body = await read_json(request)

    def prepare() -> Job:
        scenario = scenario_of(server.served, body)
        options = run_options(body)
        return Job("run", run_body(scenario, options, server.tables), server.pool)

    job = await run_in_threadpool(prepare)
    page_id = body.get("page")
    server.jobs.start(job, page_id if isinstance(page_id, str) else None)
    return JSON({"id": job.id}, status_code=201)


async def run_table(request: Request):
    job = job_of(request, "run")
    name = request.path_params["table"]
    if name not in TABLES:
        names = ", ".join(TABLES)
        raise LookupError(f"no table {name} ({names})")
    if job.running or "summary" not in job.extra:
        return errors(409, "the run is still going (its tables come when it ends)")
    path = await run_in_threadpool(write_table, job, name, server_of(request).tables)
    media = "text/csv" if name.endswith(".csv") else "application/vnd.apache.parquet"
    return FileResponse(path, media_type=media, filename=name)


async def run_exact(request: Request):
    """The exact odds of one attack for the run's most used attacks, once the run has ended:
    the rows worked out so far (``exacts``), while the run is still its page's latest."""
    job = job_of(request, "run")
    if job.running or "summary" not in job.extra:
        return errors(409, "the run is still going (the exact odds come when it ends)")
    jobs = server_of(request).jobs

    def wanted() -> bool:
        return job.page is None or jobs.latest(job.page) == job.id

    return JSON(await run_in_threadpool(exact_attacks, job, wanted))


def routes() -> list:
    """The run's routes; its table route comes last, after any ``/api/runs/ID/NAME`` route
    of another module (``story``), which would otherwise be read as a table's name."""
    return [
        Route("/api/runs", start_run, methods=["POST"]),
        Route("/api/runs/{id}", get_job, methods=["GET"]),
        Route("/api/runs/{id}", cancel_job, methods=["DELETE"]),
        Route("/api/runs/{id}/events", job_events),
        Route("/api/runs/{id}/exact", run_exact),
    ]


def table_routes() -> list:
    return [Route("/api/runs/{id}/{table}", run_table)]
