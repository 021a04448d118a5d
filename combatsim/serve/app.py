"""The HTTP side of ``combatsim serve``: a Starlette app over the served folder and the jobs.

Every request passes ``Guard`` first, which answers 403 in one line, before any work, unless:

- the ``Host`` header names this server (``127.0.0.1:PORT``, ``localhost:PORT``, the ``--host``
  value with the port; served on every address, also the address the request came to and the
  machine's name), which stops a page on another site from reaching it through DNS rebinding;
- a browser's ``Origin`` header, when sent, is the server's own or one of ``--allow-origin``,
  and ``Sec-Fetch-Site``, when sent, says the request comes from the page itself (or is a CORS
  request of an allowed origin, or a top-level navigation to the page). Every port of
  127.0.0.1 is one *site*, so the ``SameSite=Strict`` cookie alone would let a page of any other
  local program post a form or load an ``<img>`` here;
- a request that changes something (POST, PUT, DELETE) says ``Content-Type: application/json``,
  which no form and no no-cors ``fetch`` can send;
- it carries the token (``?token=``, ``Authorization: Bearer``, or the ``combatsim_token``
  cookie, set ``SameSite=Strict`` when the page is first loaded with the token).

It answers the CORS preflight of an allowed origin, adds ``Access-Control-Allow-Origin`` for
it, and puts the page's Content-Security-Policy and frame refusal on every answer. Last, an
error no route expected becomes a one-line JSON 500 and one line on stderr, not a traceback.
The routes are listed in ``routes``; docs/serve.md is their reference.
"""

from __future__ import annotations

import ipaddress
import multiprocessing
import secrets
import shutil
import socket
import sys
import tempfile
import traceback
from http.cookies import SimpleCookie
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs

from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import FileResponse, HTMLResponse
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles

from ..errors import CombatsimError
from ..names import for_terminal
from . import (
    calculators,
    chainruns,
    designs,
    maps,
    overview,
    runs,
    scenarios,
    story,
    studies,
    traces,
)
from .common import errors
from .folder import FenceMiddleware, Outside, Served
from .jobs import Busy, Jobs
from .overview import Overview
from .pool import WarmPool

STATIC = Path(__file__).parent / "static"
COOKIE = "combatsim_token"
WILDCARD = ("0.0.0.0", "::", "")  # --host values that listen on every address
CHANGES = ("POST", "PUT", "DELETE", "PATCH")  # the methods that must say application/json
# What the page loads: its own script and style sheet (plus colours set in style attributes of
# the charts it draws), the API by fetch and EventSource, and no frame, form target or plug-in.
POLICY = (
    "default-src 'none'; script-src 'self'; style-src 'self'; style-src-attr 'unsafe-inline'; "
    "img-src 'self' data:; connect-src 'self'; base-uri 'none'; form-action 'none'; "
    "frame-ancestors 'none'"
)
SECURITY_HEADERS = [
    (b"content-security-policy", POLICY.encode()),
    (b"x-frame-options", b"DENY"),
    (b"x-content-type-options", b"nosniff"),
    (b"referrer-policy", b"no-referrer"),  # the page's address carries the token
]
CORS_HEADERS = [
    (b"access-control-allow-methods", b"GET, POST, PUT, DELETE"),
    (b"access-control-allow-headers", b"Authorization, Content-Type"),
    (b"access-control-max-age", b"600"),
]


class Server:
    """What the routes share: the folder, the token, the hosts allowed, the pool, the jobs."""

    def __init__(
        self,
        folder,
        token: str,
        workers: int,
        host: str = "127.0.0.1",
        port: int = 0,
        allow_origins: tuple[str, ...] | list[str] = (),
    ):
        self.served = Served(folder)
        # worker processes already running in this process (a test's): never this server's
        self._before = {p.pid for p in multiprocessing.active_children()}
        self.token = token
        self.host = host
        self.pool = WarmPool(workers)
        self.study_workers = workers
        self.jobs = Jobs(message=self.message)
        self.overview = Overview(
            self.served, self.pool, lambda: scenarios.scenario_rows(self), busy=self.jobs.busy
        )
        self.tables = Path(tempfile.mkdtemp(prefix="combatsim-serve-"))
        self.allow_origins = frozenset(origin.rstrip("/") for origin in allow_origins)
        self.hosts: set[str] = set()
        self.set_port(port)

    def set_port(self, port: int) -> None:
        """Allow the Host headers that name this server at ``port`` (known once bound): on every
        address (``--host 0.0.0.0``), also the machine's name (and ``NAME.local``)."""
        self.port = port
        names = {"127.0.0.1", "localhost", self.host}
        if self.host in WILDCARD:
            machine = socket.gethostname().lower()
            names |= {machine, f"{machine}.local", "[::1]"}
        self.hosts = {_with_port(name, port) for name in names if name not in WILDCARD}

    def host_allowed(self, host: str, arrived: str | None = None) -> bool:
        """Whether a ``Host`` header names this server; ``arrived``: the address the request
        came to, which names it too when the server listens on every address."""
        host = host.lower()
        if host in self.hosts:
            return True
        return (
            self.host in WILDCARD and arrived is not None and host == _with_port(arrived, self.port)
        )

    def own_origin(self, origin: str, arrived: str | None = None) -> bool:
        """Whether a browser's ``Origin`` is this server's own page."""
        return origin.startswith("http://") and self.host_allowed(origin[7:], arrived)

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

    def message(self, err: object) -> str:
        """One line, with the folder's own path left out (names are relative to it)."""
        text = str(err).replace(f"{self.served.root}/", "")
        return for_terminal(text, one_line=True)


def _with_port(name: str, port: int) -> str:
    """``name:port`` as a Host header writes it (an IPv6 address in brackets)."""
    name = name.strip("[]").lower()
    try:
        if ipaddress.ip_address(name).version == 6:
            mapped = ipaddress.IPv6Address(name).ipv4_mapped
            name = str(mapped) if mapped else f"[{name}]"
    except ValueError:
        pass
    return f"{name}:{port}"


# --- the guard --------------------------------------------------------------------------------


class Guard:
    """ASGI middleware: the checks of the module docstring, CORS for ``--allow-origin``, the
    page's security headers, and the last safety net for an error no route expected."""

    def __init__(self, app, server: Server):
        self.app, self.server = app, server

    async def __call__(self, scope, receive, send):
        if scope["type"] != "http":
            return await self.app(scope, receive, send)
        headers = {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in scope["headers"]}
        origin = headers.get("origin")
        extra = list(SECURITY_HEADERS)
        if origin is not None and origin in self.server.allow_origins:
            extra += [(b"access-control-allow-origin", origin.encode()), (b"vary", b"Origin")]
        started = False

        async def send_with_headers(message):
            nonlocal started
            if message["type"] == "http.response.start":
                started = True
                message = {**message, "headers": [*message.get("headers", []), *extra]}
            await send(message)

        why = self.foreign(scope, headers)
        if why is None and origin in self.server.allow_origins and _preflight(scope, headers):
            start = {"type": "http.response.start", "status": 204, "headers": CORS_HEADERS}
            await send_with_headers(start)
            return await send({"type": "http.response.body", "body": b""})
        why = why or self.unauthorised(scope, headers)
        if why is not None:
            return await errors(403, why)(scope, receive, send_with_headers)
        try:
            await self.app(scope, receive, send_with_headers)
        except Exception as err:  # the safety net: a bug, told in one line each side
            print(f"combatsim: {unexpected(scope, err)}", file=sys.stderr, flush=True)
            if not started:
                line = f"unexpected error ({type(err).__name__}); the server's log has a line"
                await errors(500, line)(scope, receive, send_with_headers)

    def foreign(self, scope, headers: dict[str, str]) -> str | None:
        """Why the request is not this server's to answer: another Host, another page."""
        server = self.server
        arrived = (scope.get("server") or (None,))[0]
        if not server.host_allowed(headers.get("host", ""), arrived):
            return "this server answers only to its own address (Host header refused)"
        origin = headers.get("origin")
        allowed = origin is not None and origin in server.allow_origins
        if origin is not None and not allowed and not server.own_origin(origin, arrived):
            return f"requests from another page ({origin[:80]}) are refused (see --allow-origin)"
        site = headers.get("sec-fetch-site", "same-origin")  # scripts send none
        if site in ("same-origin", "none") or allowed:  # "none": typed in or a bookmark
            return None
        navigation = headers.get("sec-fetch-mode") == "navigate" and scope["method"] == "GET"
        if navigation and not scope["path"].startswith("/api/"):
            return None  # a link to the page from elsewhere: it shows, it starts nothing
        return f"requests from another page ({site}) are refused (see --allow-origin)"

    def unauthorised(self, scope, headers: dict[str, str]) -> str | None:
        """Why the request may not do what it asks: no JSON where it changes, no token."""
        if scope["method"] in CHANGES:
            kind = headers.get("content-type", "").split(";")[0].strip().lower()
            if kind != "application/json":
                return "a request that changes something needs Content-Type: application/json"
        page = headers.get("origin") not in self.server.allow_origins  # the cookie is the page's
        given = token_of(scope, headers, cookie=page).encode()
        if not secrets.compare_digest(given, self.server.token.encode()):
            return "a valid token is needed (?token=, Authorization: Bearer, or the page's cookie)"
        return None


def _preflight(scope, headers: dict[str, str]) -> bool:
    """A browser asking whether a cross-origin request may be sent (it carries no token)."""
    return scope["method"] == "OPTIONS" and "access-control-request-method" in headers


def token_of(scope, headers: dict[str, str], cookie: bool = True) -> str:
    """The token a request carries: in its query, a Bearer header, or the page's cookie."""
    given = parse_qs(scope.get("query_string", b"").decode("latin-1")).get("token", [""])[0]
    bearer = headers.get("authorization", "")
    if bearer.lower().startswith("bearer "):
        given = given or bearer[7:].strip()
    if not given and cookie and "cookie" in headers:
        jar = SimpleCookie()
        try:
            jar.load(headers["cookie"])
        except Exception:  # a malformed cookie header is no token
            jar = SimpleCookie()
        given = jar[COOKIE].value if COOKIE in jar else ""
    return given


def unexpected(scope, err: BaseException) -> str:
    """One line for the log: the request, the error and where it was raised."""
    frames = traceback.extract_tb(err.__traceback__)
    where = f" at {Path(frames[-1].filename).name}:{frames[-1].lineno}" if frames else ""
    text = for_terminal(str(err), one_line=True)[:200]
    return f"unexpected {type(err).__name__} on {scope['method']} {scope['path']}{where}: {text}"


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


def routes() -> list:
    return [
        Route("/", page),
        *scenarios.routes(),
        *runs.routes(),
        *story.routes(),  # before the tables: /api/runs/ID/story is not a table
        *runs.table_routes(),
        *studies.routes(),
        *traces.routes(),
        *calculators.routes(),
        *overview.routes(),
        *chainruns.routes(),
        *designs.routes(),
        *maps.routes(),
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

    def missing(request, err):  # a name from the request may hold anything: one line
        return errors(404, server.message(err.args[0]) if err.args else "not found")

    def http(request, err):  # no such route, a method it does not take
        return errors(err.status_code, str(err.detail))

    return {
        Outside: refused,
        CombatsimError: invalid,
        Busy: busy,
        runs.Dropped: gone,
        LookupError: missing,
        HTTPException: http,
    }


def make_app(server: Server) -> Starlette:
    app = Starlette(routes=routes(), exception_handlers=handlers(server))
    app.state.server = server
    app.add_middleware(FenceMiddleware, served=server.served)  # inside the guard
    app.add_middleware(Guard, server=server)
    return app
