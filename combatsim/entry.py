"""The ``combatsim`` command's entry point (and ``python -m combatsim``'s).

Loading the program takes a tenth of a second or more. A Ctrl-C or SIGTERM that comes
meanwhile is held until it has loaded, then stops the command like any other (``combatsim:
interrupted``, exit 130): interrupted in the middle of an import, Python would print a
traceback, or a compiled extension would fail with exit 1.

An installed pure-Python build (setup.py installs one where it cannot compile) says so once, on
the first command run from it, with how to get the compiled one.
"""

from __future__ import annotations

import os
import signal
import sys

HELD = {signal.SIGINT, signal.SIGTERM}
EXIT_INTERRUPTED = 130


def main() -> int:
    previous = signal.pthread_sigmask(signal.SIG_BLOCK, HELD)
    try:
        try:
            from .cli import main as command_line
            from .cli import stop_on_sigterm

            stop_on_sigterm()  # before a held SIGTERM comes, so it is taken as Ctrl-C
        finally:
            signal.pthread_sigmask(signal.SIG_SETMASK, previous)  # a held signal comes now
    except KeyboardInterrupt:
        print("combatsim: interrupted", file=sys.stderr)
        return EXIT_INTERRUPTED
    from . import build_kind

    notice = pure_build_notice(os.path.dirname(__file__), build_kind(), cache_folder())
    if notice:
        print(notice, file=sys.stderr)
    return command_line()


PURE_NOTICE = (
    "combatsim: this install is the pure-Python build, whose battles take about 1.5 times as"
    " long; for the compiled one, install a C compiler and the Python headers (Debian:"
    " build-essential python3-dev), then in the source folder: pip install --force-reinstall"
    " --no-deps ."
)


def cache_folder() -> str:
    return os.path.join(
        os.environ.get("XDG_CACHE_HOME") or os.path.expanduser("~/.cache"), "combatsim"
    )


def pure_build_notice(package: str, kind: str, cache: str) -> str | None:
    """``PURE_NOTICE`` the first time an installed pure-Python build at ``package`` runs (a
    marker per install location in ``cache`` remembers it), else None. A source checkout or an
    editable install runs its source on purpose and is not told; where the marker cannot be
    written nothing is said, rather than the line on every command."""
    if kind == "compiled":
        return None
    if os.path.basename(os.path.dirname(package)) not in ("site-packages", "dist-packages"):
        return None
    import hashlib

    where = hashlib.sha256(os.path.abspath(package).encode()).hexdigest()[:16]
    marker = os.path.join(cache, f"told-pure-python-{where}")
    if os.path.exists(marker):
        return None
    try:
        os.makedirs(cache, exist_ok=True)
        with open(marker, "w") as told:
            told.write(f"{package}\n")
    except OSError:
        return None
    return PURE_NOTICE
