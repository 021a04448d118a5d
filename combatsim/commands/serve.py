"""``combatsim serve [FOLDER]``: the live page on a local web server (docs/serve.md).

Prints one line, ``combatsim: serving FOLDER at http://HOST:PORT/?token=TOKEN``, opens it in
the browser (unless ``--no-browser``) and serves until Ctrl-C or SIGTERM, which stop it
within a few seconds with its runs and worker processes. The web stack (Starlette, uvicorn)
is imported here, when the command runs, so no other command pays for it.

A ``--host`` other than a loopback address is allowed, with a warning on stderr: the token
then travels the network in clear text, so use it only on a network you trust. Served on every
address (``0.0.0.0``, ``::``), the printed address is the loopback one and the warning names
the machine's, as another machine opens it. ``--allow-origin`` lets the pages of exactly those
origins (a virtual tabletop's) call the API from the browser (CORS), with the token.
"""

from __future__ import annotations

import argparse
import contextlib
import ipaddress
import secrets
import socket
import sys
import threading
from urllib.parse import urlsplit

from ..errors import UsageError
from ..limits import MAX_WORKERS
from . import examples

DEFAULT_PORT = 8765
STOP_WITHIN = 1  # seconds uvicorn waits for open requests (event streams) when stopping


def add_parser(sub) -> None:
    p = sub.add_parser(
        "serve",
        help="serve a live page (and its HTTP API) on the scenarios of a folder",
        description="Start a local web server on the real engine and open its page: pick a "
        "scenario, edit it, and watch the odds move. Stops on Ctrl-C.",
        **examples(
            "combatsim serve scenarios/",
            "combatsim serve --port 0 --no-browser   # a free port; print the address only",
        ),
    )
    p.add_argument("folder", nargs="?", default=".", metavar="FOLDER", help="default: here")
    p.add_argument("--host", default="127.0.0.1", help="address to listen on (default 127.0.0.1)")
    p.add_argument(
        "--port", type=int, default=DEFAULT_PORT, help="port (default 8765; 0: a free one)"
    )
    p.add_argument("--token", help="the access token (default: a fresh random one)")
    p.add_argument("--workers", type=int, help="worker processes (default: one per core)")
    p.add_argument("--no-browser", action="store_true", help="do not open the page")
    p.add_argument(
        "--allow-origin",
        action="append",
        default=[],
        metavar="ORIGIN",
        help="let the pages of ORIGIN (scheme://host[:port], e.g. a virtual tabletop's) call "
        "the API from the browser, with the token; repeatable (default: none)",
    )
    p.set_defaults(handler=_serve)


def _serve(args: argparse.Namespace) -> int:
    import uvicorn

    from ..run.chunks import default_workers
    from ..serve.app import Server, make_app

    if not 0 <= args.port <= 65535:
        raise UsageError("--port", args.port, "a port from 0 to 65535")
    workers = args.workers if args.workers is not None else default_workers()
    if not 1 <= workers <= min(MAX_WORKERS, 64):
        raise UsageError("--workers", workers, "from 1 to 64")
    origins = tuple(_origin(origin) for origin in args.allow_origin)
    token = args.token or secrets.token_urlsafe(24)
    listener = _listen(args.host, args.port)
    port = listener.getsockname()[1]
    if not _loopback(args.host):
        print(
            f"combatsim: warning: serving on {args.host}, reachable from other machines "
            f"(as http://{_reached_as(args.host)}:{port}/); the token travels unencrypted",
            file=sys.stderr,
        )
    server = Server(args.folder, token, workers, host=args.host, port=port, allow_origins=origins)
    try:
        url = f"http://{_shown(args.host)}:{port}/?token={token}"
        print(f"combatsim: serving {args.folder} at {url}", flush=True)
        if not args.no_browser:
            threading.Thread(target=_open, args=(url,), daemon=True).start()
        config = uvicorn.Config(
            make_app(server),
            log_level="warning",
            access_log=False,
            timeout_graceful_shutdown=STOP_WITHIN,
            lifespan="off",
        )
        with contextlib.suppress(KeyboardInterrupt):  # Ctrl-C, SIGTERM: the way to stop it
            _runner(config, server).run(sockets=[listener])
    finally:
        server.close()
        listener.close()
    print("combatsim: stopped serving", file=sys.stderr)
    return 0


def _runner(config, server):
    """uvicorn's server, which on Ctrl-C or SIGTERM first cancels every job (and the overview):
    requests waiting on one (a trace, an event stream) then end at once, within uvicorn's
    ``STOP_WITHIN``, rather than being cut off with a traceback."""
    import uvicorn

    class Runner(uvicorn.Server):
        async def shutdown(self, sockets=None) -> None:
            server.overview.close()
            server.jobs.cancel_all()
            await super().shutdown(sockets)

    return Runner(config)


def _listen(host: str, port: int) -> socket.socket:
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    listener = socket.socket(family, socket.SOCK_STREAM)
    listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        listener.bind((host, port))
    except OSError as err:
        listener.close()
        raise UsageError("--port", port, f"a port free on {host} ({err.strerror})") from None
    listener.listen(128)
    return listener


def _origin(text: str) -> str:
    """An ``--allow-origin`` value as a browser's ``Origin`` header writes it."""
    try:
        parts = urlsplit(text)
        port = parts.port
    except ValueError:
        parts, port = None, None
    if (
        parts is None
        or parts.scheme not in ("http", "https")
        or not parts.hostname
        or parts.path not in ("", "/")
        or parts.query
        or parts.fragment
        or parts.username is not None
    ):
        raise UsageError("--allow-origin", text, "an origin: scheme://host[:port]")
    host = parts.hostname if ":" not in parts.hostname else f"[{parts.hostname}]"
    default = {"http": 80, "https": 443}[parts.scheme]
    return f"{parts.scheme}://{host}" + (f":{port}" if port not in (None, default) else "")


def _shown(host: str) -> str:
    """The address printed (and opened): the loopback one where the server takes every one."""
    host = {"0.0.0.0": "127.0.0.1", "::": "::1", "": "127.0.0.1"}.get(host, host)
    return host if ":" not in host else f"[{host}]"


def _reached_as(host: str) -> str:
    """How another machine names this one: the machine's name where it takes every address."""
    return socket.gethostname() if host in ("0.0.0.0", "::", "") else _shown(host)


def _loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def _open(url: str) -> None:
    import webbrowser

    with contextlib.suppress(Exception):  # no browser here: the printed line is enough
        webbrowser.open(url)
