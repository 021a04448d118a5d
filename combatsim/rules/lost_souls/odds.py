"""``combatsim odds lost-souls``: the exact odds of a Lost Souls d% roll and its tiers."""

from __future__ import annotations

import argparse

from ...errors import Described, UsageError, parse_integer
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
        "combatsim odds lost-souls --net 0 --column 6 --assist-column 4",
        "combatsim odds lost-souls --net=-1 --column 6 --assist-column 8 --assist-net 1 --json",
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
        parser.add_argument(
            "--assist-column",
            help="a cooperative roll (ruling 19): the assistant's column; its Good or better "
            "gives a bonus die, Inferior or worse a penalty die (needs --column)",
        )
        parser.add_argument(
            "--assist-net",
            help="the assistant's own bonus minus penalty dice (-5 to 5; default 0)",
        )

    def compute(self, args: argparse.Namespace, read: Read) -> tuple:
        from . import odds_tables as tables

        if args.grid:
            for argument in ("--assist-column", "--assist-net"):
                value = getattr(args, argument[2:].replace("-", "_"))
                if value is not None:
                    raise UsageError(argument, value, "nothing with --grid (one roll at a time)")
            if args.column is not None:
                raise UsageError(
                    "--column", args.column, "nothing with --grid (it shows every one)"
                )
            return tables.lost_souls_grid(read("--net"))
        column = None if args.column is None else _column("--column", args.column)
        if args.assist_column is None:
            if args.assist_net is not None:
                raise UsageError("--assist-net", args.assist_net, "nothing without --assist-column")
            return tables.lost_souls_odds(read("--net"), column)
        if column is None:
            raise UsageError(
                "--column", Described("nothing"), "the lead's column, with --assist-column"
            )
        helper = _column("--assist-column", args.assist_column)
        helper_net = 0 if args.assist_net is None else read("--assist-net")
        return tables.lost_souls_assisted(read("--net"), column, helper, helper_net)

    def distribution(self, payload: dict) -> tuple[str, list[object], dict[str, list[float]]]:
        from ...dice import lost_souls

        tiers = [t.name for t in lost_souls.default_table().tiers]
        if "assisted" in payload:
            lead = payload["assisted"]
            return (
                "Action Results tier",
                list(tiers),
                {
                    "unassisted": [lead["unassisted_tiers"][t] for t in tiers],
                    "assisted": [lead["tiers"][t] for t in tiers],
                },
            )
        series = {f"column {c}": [d[t] for t in tiers] for c, d in payload["tiers"].items()}
        return "Action Results tier", list(tiers), series


def _column(argument: str, text: str) -> int | str:
    """A column label as typed: digits are the numbered columns, anything else a named one."""
    if text.isascii() and text.isdigit():
        return parse_integer(argument, text)
    return text


PERCENTILE = PercentileOdds()
