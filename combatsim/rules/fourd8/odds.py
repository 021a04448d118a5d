"""``combatsim odds 4d8``: the exact odds of a 4D8 roll-under."""

from __future__ import annotations

import argparse

from ...odds import Read


class RollUnderOdds:
    name = "4d8"
    help = "4D8 roll-under: chance of success, degree, combinations and aspects"
    description = (
        "4D8 roll-under: chance of success and of each degree of success; the combinations over "
        "every roll and on successful rolls only; with --aspects, which dice made them."
    )
    examples = (
        "combatsim odds 4d8 --chance 18",
        "combatsim odds 4d8 --chance 36 --over32 doubles",
        "combatsim odds 4d8 --chance 18 --plot degree.png",
        "combatsim odds 4d8 --chance 18 --aspects",
        "combatsim odds 4d8 --chance 24 --aspects --plot aspects.png",
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
        parser.add_argument(
            "--aspects",
            action="store_true",
            help="which dice made the combination (physical, mental, social, magical), over "
            "every roll and on successful rolls only",
        )

    def compute(self, args: argparse.Namespace, read: Read) -> tuple:
        from . import odds_tables as tables

        if args.aspects:
            return tables.fourd8_aspects(read("--chance"), args.over32)
        return tables.fourd8_odds(read("--chance"), args.over32)

    def distribution(self, payload: dict) -> tuple[str, list[object], dict[str, list[float]]]:
        if payload.get("shows") == "aspects":
            rows = payload["aspects"]
            return (
                "combination: the dice that make it",
                [_short(r["kind"], r["aspects"]) for r in rows],
                {
                    "every roll": [r["p"] for r in rows],
                    "share of successes": [r["p_on_success"] for r in rows],
                },
            )
        keys = sorted(payload["degree"], key=int)
        return (
            "degree of success (0: failure)",
            [int(k) for k in keys],
            {"": [payload["degree"][k] for k in keys]},
        )


def _short(kind: str, aspects: list[str]) -> str:
    """A plot's label of an outcome: ``pair: phys+ment``, ``two_pairs: all four``."""
    dice = "all four" if len(aspects) == 4 else "+".join(a[:4] for a in aspects)
    return f"{kind}: {dice}"


ROLL_UNDER = RollUnderOdds()
