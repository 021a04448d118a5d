"""The ``combatsim`` command's entry point (and ``python -m combatsim``'s).

Loading the program takes a tenth of a second or more. A Ctrl-C or SIGTERM that comes
meanwhile is held until it has loaded, then stops the command like any other (``combatsim:
interrupted``, exit 130): interrupted in the middle of an import, Python would print a
traceback, or a compiled extension would fail with exit 1.
"""

from __future__ import annotations

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
    return command_line()
