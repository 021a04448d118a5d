"""``combatsim odds 4d8``: the exact odds of a 4D8 roll-under."""

from __future__ import annotations

import argparse

from ...odds import Read


class RollUnderOdds:
    name = "4d8"
    help = "4D8 roll-under: chance of success and degree"
    description = "4D8 roll-under: chance of success and of each degree of success."
    examples = (
        "combatsim odds 4d8 --chance 18",
        "combatsim odds 4d8 --chance 36 --over32 doubles",
        "combatsim odds 4d8 --chance 18 --plot degree.png",
    )
    grid = False

    def add_arguments(self, parser: argparse.ArgumentParser) -> None:
        parser.add_argument("--chance", required=True, help="ease + ability bonuses")
        parser.add_argument(
            "--over32",
            choices=["automatic", "doubles", "bonus"],
            default="bonus",
            help="the choice for a chance above 32 (default: bonus)",
        )

    def compute(self, args: argparse.Namespace, read: Read) -> tuple:
        from . import odds_tables as tables

        return tables.fourd8_odds(read("--chance"), args.over32)

    def distribution(self, payload: dict) -> tuple[str, list[object], dict[str, list[float]]]:
        keys = sorted(payload["degree"], key=int)
        return (
            "degree of success (0: failure)",
            [int(k) for k in keys],
            {"": [payload["degree"][k] for k in keys]},
        )


ROLL_UNDER = RollUnderOdds()
