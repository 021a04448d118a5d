"""The HTTP side of ``combatsim serve``: a Starlette app over the served folder and the jobs.

Every request passes ``Guard`` first: the ``Host`` header must name this server
(``127.0.0.1:PORT``, ``localhost:PORT`` or the ``--host`` value with the port), which stops a
page on another site from reaching it through DNS rebinding, and it must carry the token
(``?token=``, ``Authorization: Bearer``, or the ``combatsim_token`` cookie, set
``SameSite=Strict`` when the page is first loaded with the token). Anything else gets 403.
The routes are listed in ``routes``; docs/serve.md is their reference.
"""

from __future__ import annotations

import multiprocessing
import secrets
import shutil
import tempfile
from http.cookies import SimpleCookie
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs

from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import FileResponse, HTMLResponse, JSONResponse
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles

from ..errors import CombatsimError
from ..names import for_terminal
from . import extras, runs
from .common import cancel_job, errors, get_job, job_events, job_of, read_json, server_of
from .folder import Outside, Served
from .jobs import Busy, Job, Jobs
from .overview import Overview
from .pool import WarmPool
from .views import mapping_at

STATIC = Path(__file__).parent / "static"
COOKIE = "combatsim_token"


class Server:
    """What the routes share: the folder, the token, the hosts allowed, the pool, the jobs."""

    def __init__(self, folder, token: str, workers: int, host: str = "127.0.0.1", port: int = 0):
        self.served = Served(folder)
        # worker processes already running in this process (a test's): never this server's
        self._before = {p.pid for p in multiprocessing.active_children()}
        self.token = token
        self.host = host
        self.pool = WarmPool(workers)
        self.study_workers = workers
        self.jobs = Jobs(message=self.message)
        self.overview = Overview(
            self.served, self.pool, lambda: scenario_rows(self), busy=self.jobs.busy
        )
        self.tables = Path(tempfile.mkdtemp(prefix="combatsim-serve-"))
        self.hosts: set[str] = set()
        self.set_port(port)

    def set_port(self, port: int) -> None:
        """Allow the Host headers that name this server at ``port`` (known once bound)."""
        self.port = port
        self.hosts = {f"{name}:{port}" for name in ("127.0.0.1", "localhost", self.host)}
        if self.host == "::1" or ":" in self.host:
            self.hosts.add(f"[{self.host.strip('[]')}]:{port}")

    def close(self) -> None:
        """Stop everything: jobs are cancelled and given a moment, then every worker process
        still alive (the warm pool's, a study's caught mid-chunk) is ended, so that nothing
        outlives the server and its exit does not wait for a chunk to finish."""
        self.overview.close()
        self.jobs.close()
        self.pool.close()
        ours = [p for p in multiprocessing.active_children() if p.pid not in self._before]
        for process in ours:
            process.kill()
        for process in ours:
            process.join(timeout=2)
        shutil.rmtree(self.tables, ignore_errors=True)

    def message(self, err: BaseException) -> str:
        """One line, with the folder's own path left out (names are relative to it)."""
        text = str(err).replace(f"{self.served.root}/", "")
        return for_terminal(text, one_line=True)


# --- the guard --------------------------------------------------------------------------------


class Guard:
    """ASGI middleware: the Host check and the token (see the module docstring)."""

    def __init__(self, app, server: Server):
        self.app, self.server = app, server

    async def __call__(self, scope, receive, send):
        if scope["type"] != "http":
            return await self.app(scope, receive, send)
        headers = {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in scope["headers"]}
        why = self.refusal(scope, headers)
        if why is not None:
            return await JSONResponse({"errors": [why]}, status_code=403)(scope, receive, send)
        return await self.app(scope, receive, send)

    def refusal(self, scope, headers: dict[str, str]) -> str | None:
        if headers.get("host", "") not in self.server.hosts:
            return "this server answers only to its own address (Host header refused)"
        given = parse_qs(scope.get("query_string", b"").decode("latin-1")).get("token", [""])[0]
        bearer = headers.get("authorization", "")
        if bearer.lower().startswith("bearer "):
            given = given or bearer[7:].strip()
        if not given and "cookie" in headers:
            cookie = SimpleCookie()
            try:
                cookie.load(headers["cookie"])
            except Exception:  # a malformed cookie header is no token
                cookie = SimpleCookie()
            given = cookie[COOKIE].value if COOKIE in cookie else ""
        if not secrets.compare_digest(given.encode(), self.server.token.encode()):
            return "a valid token is needed (?token=, Authorization: Bearer, or the page's cookie)"
        return None


# --- routes -----------------------------------------------------------------------------------


async def page(request: Request):
    index = STATIC / "index.html"
    response: Any = (
        FileResponse(index)
        if index.is_file()
        else HTMLResponse("<!doctype html><title>combatsim</title><p>combatsim serve</p>")
    )
    token = request.query_params.get("token")
    if token:
        response.set_cookie(COOKIE, token, httponly=True, samesite="strict", path="/")
    return response


async def list_scenarios(request: Request):
    server = server_of(request)
    return JSONResponse(await run_in_threadpool(scenario_rows, server))


def scenario_rows(server: Server) -> list[dict[str, Any]]:
    """Every scenario file of the folder (catalogues and broken files left out)."""
    from ..safeyaml import parse_yaml, read_text

    rows = []
    for path in server.served.yaml_files():
        try:
            data, _ = parse_yaml(read_text(path), str(path))
        except CombatsimError:
            continue
        if not isinstance(data, dict) or "sides" not in data:
            continue
        rules = mapping_at(data, "rules")
        rows.append(
            {
                "file": server.served.relative(path),
                "name": str(data.get("name", path.stem)),
                "system": str(rules.get("system", "")),
            }
        )
    return rows


async def start_run(request: Request):
    server = server_of(request)
    body = await read_json(request)

    def prepare() -> Job:
        scenario = runs.scenario_of(server.served, body)
        options = runs.run_options(body)
        return Job("run", runs.run_body(scenario, options, server.tables), server.pool)

    job = await run_in_threadpool(prepare)
    page_id = body.get("page")
    server.jobs.start(job, page_id if isinstance(page_id, str) else None)
    return JSONResponse({"id": job.id}, status_code=201)


async def run_table(request: Request):
    job = job_of(request, "run")
    name = request.path_params["table"]
    if name not in runs.TABLES:
        names = ", ".join(runs.TABLES)
        raise LookupError(f"no table {name} ({names})")
    if job.running or "summary" not in job.extra:
        return errors(409, "the run is still going (its tables come when it ends)")
    path = await run_in_threadpool(runs.write_table, job, name, server_of(request).tables)
    media = "text/csv" if name.endswith(".csv") else "application/vnd.apache.parquet"
    return FileResponse(path, media_type=media, filename=name)


async def run_exact(request: Request):
    """The exact odds of one attack for the run's most used attacks (``runs.exact_attacks``),
    once the run has ended: worked out here, in the server's process."""
    job = job_of(request, "run")
    if job.running or "summary" not in job.extra:
        return errors(409, "the run is still going (the exact odds come when it ends)")
    return JSONResponse(await run_in_threadpool(runs.exact_attacks, job))


def routes() -> list:
    return [
        Route("/", page),
        Route("/api/scenarios", list_scenarios),
        Route("/api/runs", start_run, methods=["POST"]),
        Route("/api/runs/{id}", get_job, methods=["GET"]),
        Route("/api/runs/{id}", cancel_job, methods=["DELETE"]),
        Route("/api/runs/{id}/events", job_events),
        Route("/api/runs/{id}/exact", run_exact),
        Route("/api/runs/{id}/{table}", run_table),
        *extras.routes(),
        Mount("/static", StaticFiles(directory=STATIC, check_dir=False), name="static"),
    ]


# --- errors as JSON ---------------------------------------------------------------------------


def handlers(server: Server) -> dict:
    def refused(request, err):
        return errors(403, server.message(err))

    def invalid(request, err):
        return errors(422, server.message(err))

    def busy(request, err):
        return errors(429, server.message(err))

    def gone(request, err):
        return errors(410, server.message(err))

    def missing(request, err):
        return errors(404, str(err.args[0]) if err.args else "not found")

    return {
        Outside: refused,
        CombatsimError: invalid,
        Busy: busy,
        runs.Dropped: gone,
        LookupError: missing,
    }


def make_app(server: Server) -> Starlette:
    app = Starlette(routes=routes(), exception_handlers=handlers(server))
    app.state.server = server
    app.add_middleware(Guard, server=server)
    return app
