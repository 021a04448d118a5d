"""``combatsim list [SYSTEM or CATALOGUE]``: the weapons, armor and archetypes a scenario can
name, with their numbers as the catalogue writes them.

A catalogue file lists itself; a scenario file lists everything it can name (its catalogues
and its own entries); a rule system lists the shipped catalogues for it; nothing lists the
rule systems and the shipped catalogues.
"""

from __future__ import annotations

import argparse
import textwrap
from typing import Any

from ..names import for_terminal
from . import examples

WIDTH = 100
NAME = 24  # width of the name column


def add_parser(sub) -> None:
    p = sub.add_parser(
        "list",
        help="list the weapons, armor and archetypes of a catalogue, scenario or rule system",
        description="List the weapons, armor and archetypes a scenario can name, each with "
        "its numbers as written in the catalogue.",
        **examples(
            "combatsim list                                 # the systems, shipped catalogues",
            "combatsim list sr2097                          # the shipped catalogue for 2097",
            "combatsim list scenarios/catalogues/4d8.yaml   # one catalogue file (a copy)",
            "combatsim list scenarios/sr-bar-brawl.yaml     # what that scenario can name",
        ),
    )
    p.add_argument(
        "target",
        nargs="?",
        metavar="SYSTEM or CATALOGUE",
        help="a rule system, a catalogue file or a scenario file (default: list the systems)",
    )
    p.set_defaults(handler=_list)


def _list(args: argparse.Namespace) -> int:
    from ..rules.registry import system_class, system_names
    from ..scenario.catalogues import entries, shipped_catalogues
    from ..scenario.loader import serves_system

    if args.target is None:
        print("rule systems: " + ", ".join(system_names()))
        print("shipped catalogues (a scenario names one as catalogues: [NAME]):")
        for name, path, system in shipped_catalogues():
            serves = ", ".join(s for s in system_names() if serves_system(system, system_class(s)))
            print(for_terminal(f"  {name:<12} for {serves:<20} {path}"))
        print("\nmore: combatsim list SYSTEM, or combatsim list FILE")
        print("to change a shipped catalogue: copy its file beside your scenario, name the copy")
        return 0
    title, files, sections = entries(args.target)
    print(for_terminal(title))
    for path in files:
        print(for_terminal(f"  from {path}"))
    for key, section in sections.items():
        print(f"\n{key} ({len(section)})")
        for name, entry in section.items():
            print(for_terminal(_line(name, entry)))
    return 0


def _line(name: str, entry: Any) -> str:
    """One entry (wrapped, never cut): ``name  key value  key value ...``; a name too long
    for its column gets a line of its own."""
    if isinstance(entry, dict):
        # a short "key value" pair is never split across lines (\0 is a space textwrap keeps)
        pairs = (f"{k} {_value(v)}" for k, v in entry.items())
        text = "  ".join(p.replace(" ", "\0") if len(p) <= 30 else p for p in pairs)
    else:
        text = _value(entry)
    indent = " " * (NAME + 1)
    head = f"  {name:<{NAME - 2}} "
    first = ""
    if len(head) > len(indent):
        first, head = f"  {name}\n", indent
    wrapped = textwrap.fill(text, WIDTH, initial_indent=head, subsequent_indent=indent)
    return first + wrapped.replace("\0", " ")


def _value(value: Any) -> str:
    if isinstance(value, dict):
        return "{" + ", ".join(f"{k} {_value(v)}" for k, v in value.items()) + "}"
    if isinstance(value, list):
        return "[" + ", ".join(_value(v) for v in value) + "]"
    if isinstance(value, bool):
        return "yes" if value else "no"
    return str(value)
