"""``combatsim odds 2097``: the exact odds of a Shadowrun: 2097 success check."""

from __future__ import annotations

import argparse

from ...odds import Read


class CheckOdds:
    name = "2097"
    help = "Shadowrun: 2097 success check (2d10 + bonus vs TN)"
    description = "Chance and margin of a Shadowrun: 2097 check: 2d10 + bonus against a TN."
    examples = (
        "combatsim odds 2097 --bonus 12 --tn 20",
        "combatsim odds 2097 --bonus 12 --tn 20 --edge --json",
        "combatsim odds 2097 --bonus 12 --tn 20 --plot check.png",
        "combatsim odds 2097 --grid --bonus 5..20 --tn 15..30/5",
    )
    grid = True

    def add_arguments(self, parser: argparse.ArgumentParser) -> None:
        parser.add_argument(
            "--bonus",
            required=True,
            help="skill bonus (ranks + two attributes); with --grid a range: 5..20",
        )
        parser.add_argument(
            "--tn", required=True, help="target number (15-30 typical); with --grid a range"
        )
        group = parser.add_mutually_exclusive_group()
        group.add_argument(
            "--advantage", action="store_true", help="3d10, the player keeps the best two"
        )
        group.add_argument(
            "--disadvantage", action="store_true", help="3d10, the GM keeps the worst two"
        )
        group.add_argument(
            "--edge", action="store_true", help="Edge-bought Advantage: a kept double always adds 5"
        )

    def compute(self, args: argparse.Namespace, read: Read) -> tuple:
        from . import odds_tables as tables

        mode = (
            "advantage"
            if args.advantage or args.edge
            else "disadvantage"
            if args.disadvantage
            else "normal"
        )
        if args.grid:
            return tables.sr2097_grid(read("--bonus"), read("--tn"), mode, edge=args.edge)
        return tables.sr2097_odds(read("--bonus"), read("--tn"), mode, edge=args.edge)

    def distribution(self, payload: dict) -> tuple[str, list[object], dict[str, list[float]]]:
        keys = sorted(payload["mos"], key=int)
        return (
            "margin of success (failure below 0)",
            [int(k) for k in keys],
            {"": [payload["mos"][k] for k in keys]},
        )


CHECK = CheckOdds()
