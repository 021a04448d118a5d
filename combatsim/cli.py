"""The ``combatsim`` command line: parses, calls the library, prints. No rules live here.

Each command lives in ``combatsim.commands.<name>`` with an ``add_parser(subparsers)`` that
registers its arguments and a handler returning the exit code. A user's mistake (a bad
argument, a scenario that does not validate) is one line on stderr and exit code 2, never a
traceback.
"""

from __future__ import annotations

import argparse
import signal
import sys
import threading
from collections.abc import Sequence
from typing import Any

from . import __version__, build_kind
from .commands import balance as balance_command
from .commands import chain as chain_command
from .commands import compare as compare_command
from .commands import design as design_command
from .commands import examples
from .commands import explain as explain_command
from .commands import listing as list_command
from .commands import odds as odds_command
from .commands import report as report_command
from .commands import run as run_command
from .commands import schema as schema_command
from .commands import serve as serve_command
from .commands import sweep as sweep_command
from .commands import validate as validate_command
from .errors import CombatsimError
from .names import for_terminal

EXIT_USAGE = 2
COMMANDS = [
    odds_command,
    run_command,
    validate_command,
    schema_command,
    list_command,
    sweep_command,
    compare_command,
    balance_command,
    explain_command,
    chain_command,
    design_command,
    report_command,
    serve_command,
]


class Parser(argparse.ArgumentParser):
    """argparse, but a usage error is a single line (the command and what was wrong)."""

    def error(self, message: str):
        self.exit(EXIT_USAGE, for_terminal(f"{self.prog}: error: {message}", one_line=True) + "\n")


# The command names and the module that adds each, learnt from the first full build: a later
# parse of ``combatsim NAME ...`` builds NAME's arguments only (every command's took most of
# a short command's parse, and the API and the page call ``main`` many times).
_OWNERS: dict[str, Any] = {}


def build_parser(command: str | None = None) -> argparse.ArgumentParser:
    """The whole command line, or only ``command``'s part of it when ``command`` names one
    (what parses ``combatsim command ...`` exactly as the whole does)."""
    parser = Parser(
        prog="combatsim",
        description="Monte Carlo combat simulator for tabletop RPGs.",
        **examples(
            "combatsim run scenarios/sr-firefight-4v4.yaml",
            "combatsim odds sr --dice 6 --tn 5",
            "combatsim COMMAND --help   # the options and examples of one command",
        ),
    )
    parser.add_argument(
        "--version", action="version", version=f"%(prog)s {__version__} ({build_kind()})"
    )
    sub = parser.add_subparsers(
        dest="command", required=True, metavar="COMMAND", parser_class=Parser
    )
    only = _OWNERS.get(command) if command is not None else None
    for module in COMMANDS if only is None else [only]:
        before = set(sub.choices)
        module.add_parser(sub)
        if only is None:
            _OWNERS.update(dict.fromkeys(set(sub.choices) - before, module))
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    previous = stop_on_sigterm()
    argv = sys.argv[1:] if argv is None else list(argv)
    try:
        args = build_parser(argv[0] if argv else None).parse_args(argv)
        return args.handler(args)
    except CombatsimError as err:
        print(for_terminal(f"combatsim: error: {err}", one_line=True), file=sys.stderr)
        return EXIT_USAGE
    except BrokenPipeError:  # `combatsim ... | head` is not an error
        sys.stderr.close()
        return 0
    except KeyboardInterrupt:
        print("combatsim: interrupted", file=sys.stderr)
        return 130
    finally:
        if previous is not None:
            signal.signal(signal.SIGTERM, previous)


def stop_on_sigterm():
    """SIGTERM (``kill``, a service manager, a batch scheduler's time limit) stops a run as
    Ctrl-C does: every finished battle is written and the run can be resumed. Returns the
    previous handler, or None where none can be set (not the main thread)."""
    if threading.current_thread() is not threading.main_thread():
        return None
    return signal.signal(signal.SIGTERM, _interrupt)


def _interrupt(signum, frame):
    raise KeyboardInterrupt


if __name__ == "__main__":
    sys.exit(main())
