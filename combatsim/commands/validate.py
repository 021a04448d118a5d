"""``combatsim validate FILE...``: load each scenario file and say whether it is valid.

A valid file gets ``ok: FILE (scenario NAME, N combatants, system S)`` on stdout; a bad one
gets its one-line error on stderr. Every file is checked; the exit code is 2 if any was bad.
"""

from __future__ import annotations

import argparse
import sys

from ..errors import CombatsimError
from . import run

EXIT_INVALID = 2


def add_parser(sub) -> None:
    p = sub.add_parser("validate", help="check scenario files without running them")
    p.add_argument("files", nargs="+", metavar="FILE", help="scenario files (YAML)")
    p.set_defaults(handler=_validate)


def _validate(args: argparse.Namespace) -> int:
    status = 0
    for path in args.files:
        try:
            scenario = run.load_scenario(path)
        except CombatsimError as err:
            print(f"combatsim: error: {err}", file=sys.stderr)
            status = EXIT_INVALID
            continue
        combatants = sum(len(side.fighters) for side in scenario.sides)
        print(
            f"ok: {path} (scenario {scenario.name}, {combatants} combatants, "
            f"system {scenario.system.name})"
        )
    return status
