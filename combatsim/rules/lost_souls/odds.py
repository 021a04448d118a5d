"""``combatsim odds lost-souls``: the exact odds of a Lost Souls d% roll and its tiers."""

from __future__ import annotations

import argparse

from ...errors import UsageError, parse_integer
from ...odds import Read


class PercentileOdds:
    name = "lost-souls"
    help = "Lost Souls d%% with bonus/penalty dice"
    description = (
        "Lost Souls percentile roll with net bonus (+) or penalty (-) dice, read on the Action "
        "Results Table."
    )
    examples = (
        "combatsim odds lost-souls --net 0",
        "combatsim odds lost-souls --net -2 --column 8",
        "combatsim odds lost-souls --net 1 --plot tiers.png",
        "combatsim odds lost-souls --grid --net=-5..5",
    )
    grid = True

    def add_arguments(self, parser: argparse.ArgumentParser) -> None:
        parser.add_argument(
            "--net",
            required=True,
            help="bonus minus penalty dice (-5 to 5); with --grid a range: --net=-5..5 (every "
            "column)",
        )
        parser.add_argument("--column", help="Action Results Table column (default: every column)")

    def compute(self, args: argparse.Namespace, read: Read) -> tuple:
        from . import odds_tables as tables

        if args.grid:
            if args.column is not None:
                raise UsageError(
                    "--column", args.column, "nothing with --grid (it shows every one)"
                )
            return tables.lost_souls_grid(read("--net"))
        column = args.column
        if column is not None and column.isascii() and column.isdigit():
            column = parse_integer("--column", column)
        return tables.lost_souls_odds(read("--net"), column)

    def distribution(self, payload: dict) -> tuple[str, list[object], dict[str, list[float]]]:
        from ...dice import lost_souls

        tiers = [t.name for t in lost_souls.default_table().tiers]
        series = {f"column {c}": [d[t] for t in tiers] for c, d in payload["tiers"].items()}
        return "Action Results tier", list(tiers), series


PERCENTILE = PercentileOdds()
