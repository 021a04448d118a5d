"""``combatsim odds SYSTEM ...``: exact odds of a single roll, as a table or as JSON.

``--plot FILE.png`` also draws the distribution (exactly, at least and at most each outcome);
``--grid`` prints the chance of success over ranges (``--dice 1..12 --tn 2..10``), and with
``--plot`` draws it as a heatmap. Everything comes from the dice layer's exact distributions.
The calculators (``combatsim.odds.Calculator``) are the rule packages' own, found by the
registry: this module only turns the command line into their arguments and prints.
"""

from __future__ import annotations

import argparse
import functools
import json
import os
from pathlib import Path
from typing import TYPE_CHECKING

from ..errors import UsageError
from ..names import for_terminal
from ..odds_arguments import add_output_flags, reader
from ..rules.registry import odds_calculators
from . import examples
from .odds_attack import ATTACK

if TYPE_CHECKING:
    from .. import odds


def add_parser(sub) -> None:
    p_odds = sub.add_parser(
        "odds",
        help="exact odds of a single roll of any mechanic, or of one attack in a scenario",
        description="Exact odds of a single roll, from the exact distribution (no sampling), "
        "or of one attack in a scenario (odds attack), from the rules the battles run.",
        **examples(
            "combatsim odds sr --dice 6 --tn 5",
            "combatsim odds 2097 --bonus 12 --tn 20 --advantage",
            "combatsim odds lost-souls --net 1 --json",
            "combatsim odds attack scenarios/sr-firefight-4v4.yaml --attacker Grunt "
            "--target 'Guard 1'",
        ),
    )
    systems = p_odds.add_subparsers(
        dest="system", required=True, metavar="SYSTEM", parser_class=type(p_odds)
    )
    calculators: list[odds.Calculator] = [*odds_calculators().values(), ATTACK]
    for calculator in calculators:
        p = systems.add_parser(
            calculator.name,
            help=calculator.help,
            description=calculator.description,
            **examples(*calculator.examples),
        )
        calculator.add_arguments(p)
        add_output_flags(p, grid=calculator.grid)
        p.set_defaults(handler=functools.partial(_odds, calculator))


PLOT_FORMATS = (".png", ".pdf", ".svg")


def check_plot(value: str | None) -> None:
    """Refuse a ``--plot`` file that could not be written, before anything is computed: a
    picture format other than PNG, PDF or SVG, a name no file system takes, a folder or a
    device (``/dev/null``) where the picture would go."""
    if value is None:
        return
    from ..sweeps.fields import shortened

    found = shortened(value.replace("\0", "\\0"))
    if "\0" in value or not value.strip():
        raise UsageError("--plot", found, "a file name ending in .png, .pdf or .svg")
    if len(value) > 4096 or any(len(os.fsencode(part)) > 255 for part in value.split(os.sep)):
        raise UsageError("--plot", found, "a shorter file name (at most 255 bytes a part)")
    path = Path(value)
    if path.is_dir():
        raise UsageError("--plot", found, "a file name, not a folder (e.g. DIR/odds.png)")
    if path.suffix.lower() not in PLOT_FORMATS:
        raise UsageError("--plot", found, "a file name ending in .png, .pdf or .svg")
    if path.exists() and not path.is_file():
        raise UsageError("--plot", found, "a regular file (it is a device, pipe or socket)")
    inside = next((p for p in path.parents if p.exists() and not p.is_dir()), None)
    if inside is not None:
        raise UsageError("--plot", found, f"a file name in a folder ({inside} is a file)")


def _odds(calculator: odds.Calculator, args: argparse.Namespace) -> int:
    """Check the ``--plot`` file, compute, print the table or the JSON, and draw."""
    check_plot(args.plot)
    payload, table, *rest = calculator.compute(args, reader(args))
    print(json.dumps(payload, indent=2) if args.json else table.render())
    if args.plot:
        from ..odds_plots import plot_distribution, plot_grid

        if rest:
            path = plot_grid(rest[0], args.plot, payload.get("table_note"))
        else:
            outcome, values, series = calculator.distribution(payload)
            note = payload.get("table_note")
            path = plot_distribution(table.title, outcome, values, series, args.plot, note)
        if not args.json:
            print(for_terminal(f"\nplot: {path}"))
    return 0
