"""``combatsim odds sr``: the exact odds of a classic Shadowrun dice pool (d6, or D8)."""

from __future__ import annotations

import argparse

from ...errors import UsageError
from ...odds import Read

# Instant Karma's uses of one point (ruling 11): re-roll the failed dice, or undo a fumble
KARMA_USES = ("reroll", "negate")


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
        "combatsim odds sr --dice 6 --tn 4 --against 5",
        "combatsim odds sr --dice 5 --tn 4 --dodge 3 --dodge-tn 6",
        "combatsim odds sr --dice 4 --tn 5 --karma reroll",
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
        opposed = parser.add_argument_group("opposed tests (rulings 5 and 9)")
        opposed.add_argument(
            "--against", help="melee: the defender's dice (skill + Defense Pool), 0-100"
        )
        opposed.add_argument("--against-tn", help="melee: the defender's TN (default: --tn)")
        opposed.add_argument(
            "--against-karma", choices=KARMA_USES, help="melee: the defender's Instant Karma"
        )
        opposed.add_argument(
            "--dodge", help="ranged: the Dodge Pool dice the defender spends, 0-100"
        )
        opposed.add_argument(
            "--dodge-tn", help="ranged: the defender's TN (the weapon's Power + wounds)"
        )
        karma = parser.add_argument_group("Instant Karma (rulings 11 and 26)")
        karma.add_argument(
            "--karma",
            choices=KARMA_USES,
            help="1 point: reroll the failed dice of a test with no success, or negate a fumble",
        )
        karma.add_argument(
            "--karma-reroll-fumbles",
            choices=["on", "off"],
            help="whether a re-roll with every die on 1 (0 on D8) fumbles (default on)",
        )

    def compute(self, args: argparse.Namespace, read: Read) -> tuple:
        from . import odds_tables as tables

        _check_combination(args)
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
        tn, kind = read("--tn"), {"d8": args.d8, "tn_cap": args.tn_cap}
        tester = {"karma": args.karma, "reroll_fumbles": args.karma_reroll_fumbles != "off"}
        if args.against is not None:
            from .odds_opposed import sr_melee

            against_tn = tn if args.against_tn is None else read("--against-tn")
            defender = {"against_karma": args.against_karma}
            return sr_melee(dice, tn, read("--against"), against_tn, **kind, **tester, **defender)
        if args.dodge is not None:
            from .odds_opposed import sr_dodge

            return sr_dodge(dice, tn, read("--dodge"), read("--dodge-tn"), **kind, **tester)
        if args.karma:
            return tables.sr_karma(dice, tn, **kind, **tester)
        return tables.sr_odds(dice, tn, **kind)

    def distribution(self, payload: dict) -> tuple[str, list[object], dict[str, list[float]]]:
        test = payload.get("test")
        if test == "melee":
            margins = list(payload["margin"])
            numbers: list[object] = [int(m) for m in margins]
            return (
                "attacker's successes less the defender's (0: a tie)",
                numbers,
                {"": [payload["margin"][m] for m in margins]},
            )
        if test == "dodge":
            nets = payload["net_on_hit"]
            return (
                "outcome of the attack",
                ["no success", "clean miss", *(f"hit, net {k}" for k in range(len(nets)))],
                {"": [payload["p_no_success"], payload["p_clean_miss"], *nets]},
            )
        values: list[object] = list(range(payload["dice"] + 1))
        if payload.get("karma"):
            return (
                "successes",
                values,
                {
                    "without Karma": payload["successes_without_karma"],
                    f"Karma ({payload['karma']})": payload["successes"],
                },
            )
        return "successes", values, {"": payload["successes"]}


def _check_combination(args: argparse.Namespace) -> None:
    """One line for options that do not go together, before anything is computed."""
    if args.against is not None and args.dodge is not None:
        raise UsageError("--dodge", args.dodge, "nothing with --against (one opposed test)")
    for option, value, needs, present in (
        ("--against-tn", args.against_tn, "--against", args.against is not None),
        ("--against-karma", args.against_karma, "--against", args.against is not None),
        ("--dodge-tn", args.dodge_tn, "--dodge", args.dodge is not None),
        ("--dodge", args.dodge, "--dodge-tn", args.dodge_tn is not None),
        (
            "--karma-reroll-fumbles",
            args.karma_reroll_fumbles,
            "--karma reroll or --against-karma reroll",
            "reroll" in (args.karma, args.against_karma),
        ),
    ):
        if value is not None and not present:
            raise UsageError(option, value, f"nothing without {needs}")
    if any(v is not None for v in (args.against, args.dodge, args.karma)):
        for option, on in (("--grid", args.grid), ("--compare", args.compare)):
            if on:
                raise UsageError(option, True, "nothing with --against, --dodge or --karma")


POOL = PoolOdds()
