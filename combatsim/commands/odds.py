"""``combatsim odds SYSTEM ...``: exact odds of a single roll, as a table or as JSON.

``--plot FILE.png`` also draws the distribution (exactly, at least and at most each outcome);
``--grid`` prints the chance of success over ranges (``--dice 1..12 --tn 2..10``), and with
``--plot`` draws it as a heatmap. Everything comes from the dice layer's exact distributions.
"""

from __future__ import annotations

import argparse
import json
import os
from pathlib import Path
from typing import TYPE_CHECKING

from ..errors import UsageError, parse_integer
from ..names import for_terminal
from . import examples, integer

if TYPE_CHECKING:
    from .. import odds


def add_parser(sub) -> None:
    p_odds = sub.add_parser(
        "odds",
        help="exact odds of a single roll of any mechanic",
        description="Exact odds of a single roll, from the exact distribution (no sampling).",
        **examples(
            "combatsim odds sr --dice 6 --tn 5",
            "combatsim odds 2097 --bonus 12 --tn 20 --advantage",
            "combatsim odds lost-souls --net 1 --json",
        ),
    )
    systems = p_odds.add_subparsers(
        dest="system", required=True, metavar="SYSTEM", parser_class=type(p_odds)
    )

    sr = systems.add_parser(
        "sr",
        help="classic Shadowrun dice pool (d6, or d8 with --d8)",
        description="Successes of a classic Shadowrun dice pool against a target number.",
        **examples(
            "combatsim odds sr --dice 6 --tn 5",
            "combatsim odds sr --dice 6 --tn 5 --d8",
            "combatsim odds sr --dice 6 --compare",
            "combatsim odds sr --dice 6 --tn 5 --plot pool.png",
            "combatsim odds sr --grid --dice 1..12 --tn 2..12 --plot pools.png",
        ),
    )
    sr.add_argument(
        "--dice", required=True, help="dice in the pool (0-100); with --grid a range: 1..12"
    )
    sr.add_argument("--tn", help="target number; with --grid a range: 2..12")
    sr.add_argument("--d8", action="store_true", help="Shadowrun D8 variant (faces 0-7)")
    sr.add_argument("--tn-cap", action="store_true", help="D8 house rule: TN above 21 impossible")
    sr.add_argument("--compare", action="store_true", help="d6 against d8 for TN 2-20")
    sr.add_argument(
        "--need", type=integer, default=1, help="with --grid: successes needed (default 1)"
    )
    _json_flag(sr)
    sr.set_defaults(handler=_sr)
    _add_other_systems(systems)


def _json_flag(parser: argparse.ArgumentParser, grid: bool = True) -> None:
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


def _emit(args: argparse.Namespace, result: tuple[dict, odds.Table]) -> int:
    payload, table = result
    print(json.dumps(payload, indent=2) if args.json else table.render())
    if args.plot:
        from .. import odds
        from ..odds_plots import plot_distribution

        outcome, values, series = odds.distribution(payload)
        path = plot_distribution(table.title, outcome, values, series, args.plot)
        if not args.json:
            print(for_terminal(f"\nplot: {path}"))
    return 0


def _emit_grid(args: argparse.Namespace, result: tuple[dict, odds.Table, odds.Grid]) -> int:
    payload, table, grid = result
    print(json.dumps(payload, indent=2) if args.json else table.render())
    if args.plot:
        from ..odds_plots import plot_grid

        path = plot_grid(grid, args.plot)
        if not args.json:
            print(for_terminal(f"\nplot: {path}"))
    return 0


def _values(text: str | None, argument: str, grid: bool) -> list[int] | int:
    """An integer, or with ``--grid`` a list of them: ``N``, ``LO..HI``, ``LO..HI/STEP`` or
    ``a,b,c`` (as a sweep's values)."""
    if text is None:
        raise UsageError(argument, None, "an integer" + (" or a range LO..HI" if grid else ""))
    from ..sweeps.fields import parse_values

    values = [v for _, v in parse_values(text, argument)]
    if not all(isinstance(v, int) and not isinstance(v, bool) for v in values):
        raise UsageError(argument, text, "integers: N, LO..HI, LO..HI/STEP or a,b,c")
    if grid:
        return values
    if len(values) != 1:
        raise UsageError(argument, text, "one integer (a range needs --grid)")
    return values[0]


def _sr(args: argparse.Namespace) -> int:
    check_plot(args.plot)
    from .. import odds  # numpy and the exact tables: only for this command

    if args.grid:
        if args.compare:
            raise UsageError("--compare", True, "nothing with --grid")
        dice, tns = _values(args.dice, "--dice", True), _values(args.tn, "--tn", True)
        return _emit_grid(args, odds.sr_grid(dice, tns, args.need, args.d8, args.tn_cap))
    dice = _values(args.dice, "--dice", False)
    if args.compare:
        if args.plot:
            raise UsageError("--plot", args.plot, "nothing with --compare (try --grid)")
        return _emit(args, odds.sr_compare(dice))
    if args.tn is None:
        raise UsageError("--tn", None, "an integer target number (or --compare)")
    tn = _values(args.tn, "--tn", False)
    return _emit(args, odds.sr_odds(dice, tn, d8=args.d8, tn_cap=args.tn_cap))


def _add_other_systems(systems) -> None:
    p = systems.add_parser(
        "2097",
        help="Shadowrun: 2097 success check (2d10 + bonus vs TN)",
        description="Chance and margin of a Shadowrun: 2097 check: 2d10 + bonus against a TN.",
        **examples(
            "combatsim odds 2097 --bonus 12 --tn 20",
            "combatsim odds 2097 --bonus 12 --tn 20 --edge --json",
            "combatsim odds 2097 --bonus 12 --tn 20 --plot check.png",
            "combatsim odds 2097 --grid --bonus 5..20 --tn 15..30/5",
        ),
    )
    p.add_argument(
        "--bonus",
        required=True,
        help="skill bonus (ranks + two attributes); with --grid a range: 5..20",
    )
    p.add_argument("--tn", required=True, help="target number (15-30 typical); with --grid a range")
    group = p.add_mutually_exclusive_group()
    group.add_argument(
        "--advantage", action="store_true", help="3d10, the player keeps the best two"
    )
    group.add_argument(
        "--disadvantage", action="store_true", help="3d10, the GM keeps the worst two"
    )
    group.add_argument(
        "--edge", action="store_true", help="Edge-bought Advantage: a kept double always adds 5"
    )
    _json_flag(p)
    p.set_defaults(handler=_sr2097)

    p = systems.add_parser(
        "lost-souls",
        help="Lost Souls d%% with bonus/penalty dice",
        description="Lost Souls percentile roll with net bonus (+) or penalty (-) dice, read on "
        "the Action Results Table.",
        **examples(
            "combatsim odds lost-souls --net 0",
            "combatsim odds lost-souls --net -2 --column 8",
            "combatsim odds lost-souls --net 1 --plot tiers.png",
            "combatsim odds lost-souls --grid --net=-5..5",
        ),
    )
    p.add_argument(
        "--net",
        required=True,
        help="bonus minus penalty dice (-5 to 5); with --grid a range: --net=-5..5 (every column)",
    )
    p.add_argument("--column", help="Action Results Table column (default: every column)")
    _json_flag(p)
    p.set_defaults(handler=_lost_souls)

    p = systems.add_parser(
        "4d8",
        help="4D8 roll-under: chance of success and degree",
        description="4D8 roll-under: chance of success and of each degree of success.",
        **examples(
            "combatsim odds 4d8 --chance 18",
            "combatsim odds 4d8 --chance 36 --over32 doubles",
            "combatsim odds 4d8 --chance 18 --plot degree.png",
        ),
    )
    p.add_argument("--chance", type=integer, required=True, help="ease + ability bonuses")
    p.add_argument(
        "--over32",
        choices=["automatic", "doubles", "bonus"],
        default="bonus",
        help="the choice for a chance above 32 (default: bonus)",
    )
    _json_flag(p, grid=False)
    p.set_defaults(handler=_fourd8)


def _sr2097(args: argparse.Namespace) -> int:
    check_plot(args.plot)
    from .. import odds  # numpy and the exact tables: only for this command

    mode = (
        "advantage"
        if args.advantage or args.edge
        else "disadvantage"
        if args.disadvantage
        else "normal"
    )
    if args.grid:
        bonuses, tns = _values(args.bonus, "--bonus", True), _values(args.tn, "--tn", True)
        return _emit_grid(args, odds.sr2097_grid(bonuses, tns, mode, edge=args.edge))
    bonus, tn = _values(args.bonus, "--bonus", False), _values(args.tn, "--tn", False)
    return _emit(args, odds.sr2097_odds(bonus, tn, mode, edge=args.edge))


def _lost_souls(args: argparse.Namespace) -> int:
    check_plot(args.plot)
    from .. import odds  # numpy and the exact tables: only for this command

    if args.grid:
        if args.column is not None:
            raise UsageError("--column", args.column, "nothing with --grid (it shows every one)")
        return _emit_grid(args, odds.lost_souls_grid(_values(args.net, "--net", True)))
    column = args.column
    if column is not None and column.isascii() and column.isdigit():
        column = parse_integer("--column", column)
    return _emit(args, odds.lost_souls_odds(_values(args.net, "--net", False), column))


def _fourd8(args: argparse.Namespace) -> int:
    check_plot(args.plot)
    from .. import odds  # numpy and the exact tables: only for this command

    return _emit(args, odds.fourd8_odds(args.chance, args.over32))
