"""``combatsim odds SYSTEM ...``: exact odds of a single roll, as a table or as JSON."""

from __future__ import annotations

import argparse
import json

from .. import odds
from ..errors import UsageError
from . import examples


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
        ),
    )
    sr.add_argument("--dice", type=int, required=True, help="dice in the pool (0-100)")
    sr.add_argument("--tn", type=int, help="target number")
    sr.add_argument("--d8", action="store_true", help="Shadowrun D8 variant (faces 0-7)")
    sr.add_argument("--tn-cap", action="store_true", help="D8 house rule: TN above 21 impossible")
    sr.add_argument("--compare", action="store_true", help="d6 against d8 for TN 2-20")
    _json_flag(sr)
    sr.set_defaults(handler=_sr)
    _add_other_systems(systems)


def _json_flag(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--json", action="store_true", help="machine-readable output")


def _emit(args: argparse.Namespace, result: tuple[dict, odds.Table]) -> int:
    payload, table = result
    print(json.dumps(payload, indent=2) if args.json else table.render())
    return 0


def _sr(args: argparse.Namespace) -> int:
    if args.compare:
        return _emit(args, odds.sr_compare(args.dice))
    if args.tn is None:
        raise UsageError("--tn", None, "an integer target number (or --compare)")
    return _emit(args, odds.sr_odds(args.dice, args.tn, d8=args.d8, tn_cap=args.tn_cap))


def _add_other_systems(systems) -> None:
    p = systems.add_parser(
        "2097",
        help="Shadowrun: 2097 success check (2d10 + bonus vs TN)",
        description="Chance and margin of a Shadowrun: 2097 check: 2d10 + bonus against a TN.",
        **examples(
            "combatsim odds 2097 --bonus 12 --tn 20",
            "combatsim odds 2097 --bonus 12 --tn 20 --edge --json",
        ),
    )
    p.add_argument("--bonus", type=int, required=True, help="skill bonus (ranks + two attributes)")
    p.add_argument("--tn", type=int, required=True, help="target number (15-30 typical)")
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
        ),
    )
    p.add_argument("--net", type=int, required=True, help="bonus minus penalty dice (-5 to 5)")
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
        ),
    )
    p.add_argument("--chance", type=int, required=True, help="ease + ability bonuses")
    p.add_argument(
        "--over32",
        choices=["automatic", "doubles", "bonus"],
        default="bonus",
        help="the choice for a chance above 32 (default: bonus)",
    )
    _json_flag(p)
    p.set_defaults(handler=_fourd8)


def _sr2097(args: argparse.Namespace) -> int:
    mode = (
        "advantage"
        if args.advantage or args.edge
        else "disadvantage"
        if args.disadvantage
        else "normal"
    )
    return _emit(args, odds.sr2097_odds(args.bonus, args.tn, mode, edge=args.edge))


def _lost_souls(args: argparse.Namespace) -> int:
    column = int(args.column) if args.column is not None and args.column.isdigit() else args.column
    return _emit(args, odds.lost_souls_odds(args.net, column))


def _fourd8(args: argparse.Namespace) -> int:
    return _emit(args, odds.fourd8_odds(args.chance, args.over32))
