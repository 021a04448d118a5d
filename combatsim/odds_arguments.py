"""How a calculator's arguments are read, the same from the command line and from the page.

``combatsim odds SYSTEM ...`` and the page's odds calculator both build the calculator's own
arguments (``Calculator.add_arguments``), add the output flags here, and read each number
through ``reader``: an integer, or with ``--grid`` a range of them, as a sweep's values.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable

from .errors import UsageError

Read = Callable[..., "list[int] | int"]  # read(argument, ranged=True)


def add_output_flags(parser: argparse.ArgumentParser, grid: bool = True) -> None:
    """``--json``, ``--plot`` and (for a calculator with a grid) ``--grid``."""
    parser.add_argument("--json", action="store_true", help="machine-readable output")
    parser.add_argument(
        "--plot",
        metavar="FILE.png",
        help="also draw the distribution (exactly / at least / at most), or the grid's heatmap "
        "(.png, .pdf or .svg)",
    )
    if grid:
        parser.add_argument(
            "--grid",
            action="store_true",
            help="P(success) over ranges of the two numbers (LO..HI) as a table",
        )


def reader(args: argparse.Namespace) -> Read:
    """What a calculator's ``compute`` reads its numbers with: ``read("--dice")`` is the
    argument's integer, or with ``--grid`` (and ``ranged``) its list of integers."""
    grid = bool(getattr(args, "grid", False))

    def read(argument: str, ranged: bool = True) -> list[int] | int:
        given = getattr(args, argument[2:].replace("-", "_"))
        return integers(given, argument, grid and ranged)

    return read


def integers(text: str | None, argument: str, grid: bool) -> list[int] | int:
    """An integer, or with ``--grid`` a list of them: ``N``, ``LO..HI``, ``LO..HI/STEP`` or
    ``a,b,c`` (as a sweep's values)."""
    if text is None:
        raise UsageError(argument, None, "an integer" + (" or a range LO..HI" if grid else ""))
    from .sweeps.fields import parse_values

    values = [v for _, v in parse_values(text, argument)]
    if not all(isinstance(v, int) and not isinstance(v, bool) for v in values):
        raise UsageError(argument, text, "integers: N, LO..HI, LO..HI/STEP or a,b,c")
    if grid:
        return values
    if len(values) != 1:
        raise UsageError(argument, text, "one integer (a range needs --grid)")
    return values[0]
