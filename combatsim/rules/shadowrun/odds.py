"""``combatsim odds sr``: the exact odds of a classic Shadowrun dice pool (d6, or D8)."""

from __future__ import annotations

import argparse

from ...errors import UsageError
from ...odds import Read


class PoolOdds:
    name = "sr"
    help = "classic Shadowrun dice pool (d6, or d8 with --d8)"
    description = "Successes of a classic Shadowrun dice pool against a target number."
    examples = (
        "combatsim odds sr --dice 6 --tn 5",
        "combatsim odds sr --dice 6 --tn 5 --d8",
        "combatsim odds sr --dice 6 --compare",
        "combatsim odds sr --dice 6 --tn 5 --plot pool.png",
        "combatsim odds sr --grid --dice 1..12 --tn 2..12 --plot pools.png",
    )
    grid = True

    def add_arguments(self, parser: argparse.ArgumentParser) -> None:
        parser.add_argument(
            "--dice", required=True, help="dice in the pool (0-100); with --grid a range: 1..12"
        )
        parser.add_argument("--tn", help="target number; with --grid a range: 2..12")
        parser.add_argument("--d8", action="store_true", help="Shadowrun D8 variant (faces 0-7)")
        parser.add_argument(
            "--tn-cap", action="store_true", help="D8 house rule: TN above 21 impossible"
        )
        parser.add_argument("--compare", action="store_true", help="d6 against d8 for TN 2-20")
        parser.add_argument("--need", default="1", help="with --grid: successes needed (default 1)")

    def compute(self, args: argparse.Namespace, read: Read) -> tuple:
        from . import odds_tables as tables

        if args.grid:
            if args.compare:
                raise UsageError("--compare", True, "nothing with --grid")
            need = read("--need", False)
            return tables.sr_grid(read("--dice"), read("--tn"), need, args.d8, args.tn_cap)
        dice = read("--dice")
        if args.compare:
            if args.plot:
                raise UsageError("--plot", args.plot, "nothing with --compare (try --grid)")
            return tables.sr_compare(dice)
        if args.tn is None:
            raise UsageError("--tn", None, "an integer target number (or --compare)")
        return tables.sr_odds(dice, read("--tn"), d8=args.d8, tn_cap=args.tn_cap)

    def distribution(self, payload: dict) -> tuple[str, list[object], dict[str, list[float]]]:
        return "successes", list(range(payload["dice"] + 1)), {"": payload["successes"]}


POOL = PoolOdds()
