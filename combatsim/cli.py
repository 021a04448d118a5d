"""The ``combatsim`` command line: parses, calls the library, prints. No rules live here.

Each command lives in ``combatsim.commands.<name>`` with an ``add_parser(subparsers)`` that
registers its arguments and a handler returning the exit code. A user's mistake (a bad
argument, a scenario that does not validate) is one line on stderr and exit code 2, never a
traceback.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from .commands import balance as balance_command
from .commands import compare as compare_command
from .commands import explain as explain_command
from .commands import odds as odds_command
from .commands import report as report_command
from .commands import run as run_command
from .commands import sweep as sweep_command
from .commands import validate as validate_command
from .errors import CombatsimError

EXIT_USAGE = 2
COMMANDS = [
    odds_command,
    run_command,
    validate_command,
    sweep_command,
    compare_command,
    balance_command,
    explain_command,
    report_command,
]


class Parser(argparse.ArgumentParser):
    """argparse, but a usage error is a single line (the command and what was wrong)."""

    def error(self, message: str):
        self.exit(EXIT_USAGE, f"{self.prog}: error: {message}\n")


def build_parser() -> argparse.ArgumentParser:
    parser = Parser(prog="combatsim", description="Monte Carlo combat simulator for tabletop RPGs.")
    sub = parser.add_subparsers(
        dest="command", required=True, metavar="COMMAND", parser_class=Parser
    )
    for command in COMMANDS:
        command.add_parser(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        return args.handler(args)
    except CombatsimError as err:
        print(f"combatsim: error: {err}", file=sys.stderr)
        return EXIT_USAGE
    except BrokenPipeError:  # `combatsim ... | head` is not an error
        sys.stderr.close()
        return 0
    except KeyboardInterrupt:
        print("combatsim: interrupted", file=sys.stderr)
        return 130


if __name__ == "__main__":
    sys.exit(main())
