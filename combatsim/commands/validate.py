"""``combatsim validate FILE...``: load each scenario or catalogue file, say if it is valid.

A valid scenario gets ``ok: FILE (scenario NAME, N combatants, system S)`` on stdout, a valid
catalogue ``ok: FILE (catalogue: N weapons, N armor, N archetypes)``; a bad file gets its
one-line error on stderr. Every file is checked; the exit code is 2 if any was bad.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from ..errors import CombatsimError
from ..scenario import load_file
from . import examples, run

EXIT_INVALID = 2


def add_parser(sub) -> None:
    p = sub.add_parser(
        "validate",
        help="check scenario or catalogue files without running them",
        description="Load each scenario or catalogue file and say whether it is valid; a bad "
        "file gets one line naming the file, line, field, what was found and what is allowed.",
        **examples(
            "combatsim validate scenarios/sr-firefight-4v4.yaml",
            "combatsim validate scenarios/*.yaml scenarios/catalogues/sr-classic.yaml",
        ),
    )
    p.add_argument("files", nargs="+", metavar="FILE", help="scenario or catalogue files (YAML)")
    p.set_defaults(handler=_validate)


def _validate(args: argparse.Namespace) -> int:
    status = 0
    for path in args.files:
        try:
            # one read of the file: a catalogue or a scenario (anything else: the loader's
            # one-line error, for a missing file, a folder, a device or a bad name too)
            loaded = load_file(path) if _is_file(path) else run.load_scenario(path)
        except CombatsimError as err:
            print(f"combatsim: error: {err}", file=sys.stderr)
            status = EXIT_INVALID
            continue
        if isinstance(loaded, dict):
            counts = ", ".join(f"{len(v)} {k}" for k, v in loaded.items())
            print(f"ok: {path} (catalogue: {counts})")
            continue
        scenario = loaded
        combatants = sum(len(side.fighters) for side in scenario.sides)
        print(
            f"ok: {path} (scenario {scenario.name}, {combatants} combatants, "
            f"system {scenario.system.name})"
        )
    return status


def _is_file(path: str) -> bool:
    try:
        return Path(path).is_file()
    except (OSError, ValueError):  # a NUL byte or an over-long name: the loader says so
        return False
