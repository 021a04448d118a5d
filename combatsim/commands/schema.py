"""``combatsim schema [SYSTEM]``: the JSON Schema of a scenario (or catalogue) file.

Made from the pydantic models that validate the files (``combatsim.scenario.schema``), so an
editor with the YAML language server completes keys and flags mistakes as you type: save the
output and put ``# yaml-language-server: $schema=FILE`` on a scenario's first line.
"""

from __future__ import annotations

import argparse
import json

from . import examples


def add_parser(sub) -> None:
    p = sub.add_parser(
        "schema",
        help="print the JSON Schema of scenario files, for completion in an editor",
        description="Print the JSON Schema (draft 2020-12) of a scenario file of SYSTEM, or "
        "with --catalogue of a catalogue file. With a SYSTEM the schema knows that system's "
        "sheet, weapon, armor, options and tactics keys; without one, only the shape every "
        "system shares.",
        **examples(
            "combatsim schema sr-classic   # save it: ... > sr-classic.schema.json",
            "combatsim schema lost-souls --catalogue",
            "# then, as the first line of a scenario file:",
            "# yaml-language-server: $schema=sr-classic.schema.json",
        ),
    )
    p.add_argument(
        "system",
        nargs="?",
        metavar="SYSTEM",
        help="rule system, as combatsim list names them (default: any)",
    )
    p.add_argument(
        "--catalogue", action="store_true", help="the schema of a catalogue file instead"
    )
    p.set_defaults(handler=_schema)


def _schema(args: argparse.Namespace) -> int:
    from ..scenario.schema import scenario_schema

    print(json.dumps(scenario_schema(args.system, catalogue=args.catalogue), indent=2))
    return 0
