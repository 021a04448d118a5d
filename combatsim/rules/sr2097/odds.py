"""``combatsim odds 2097``: the exact odds of a Shadowrun: 2097 success check, and of the damage
a hit or a whole attack leaves through armor (``--damage``)."""

from __future__ import annotations

import argparse

from ...errors import Described, UsageError
from ...odds import Read

DAMAGE_ONLY = ("--pt", "--dr", "--mos", "--burst", "--edge-damage")


class CheckOdds:
    name = "2097"
    help = "Shadowrun: 2097 success check (2d10 + bonus vs TN), and damage through armor"
    description = (
        "Chance and margin of a Shadowrun: 2097 check: 2d10 + bonus against a TN. With --damage, "
        "the damage a hit (or, with --bonus and --tn, a whole attack) leaves through armor PT/DR."
    )
    examples = (
        "combatsim odds 2097 --bonus 12 --tn 20",
        "combatsim odds 2097 --bonus 12 --tn 20 --edge --json",
        "combatsim odds 2097 --bonus 12 --tn 20 --disadvantage --edge remove",
        "combatsim odds 2097 --bonus 12 --tn 20 --plot check.png",
        "combatsim odds 2097 --grid --bonus 5..20 --tn 15..30/5",
        "combatsim odds 2097 --damage 2d6+3 --pt 4 --dr 25 --mos 6",
        "combatsim odds 2097 --damage 2d6+4 --pt 15 --dr 30 --bonus 14 --tn 27 --burst",
    )
    grid = True

    def add_arguments(self, parser: argparse.ArgumentParser) -> None:
        parser.add_argument(
            "--bonus",
            help="skill bonus (ranks + two attributes); with --grid a range: 5..20",
        )
        parser.add_argument("--tn", help="target number (15-30 typical); with --grid a range")
        parser.add_argument(
            "--advantage", action="store_true", help="3d10, the player keeps the best two"
        )
        parser.add_argument(
            "--disadvantage",
            action="store_true",
            help="3d10, the GM keeps the worst two (with --advantage too: neither)",
        )
        parser.add_argument(
            "--edge",
            nargs="?",
            const="advantage",
            metavar="advantage|remove",
            help="spend Edge on the check: 'advantage' (the default) buys Advantage, 'remove' "
            "removes Disadvantage (with --disadvantage); either way a kept double adds 5",
        )
        damage = parser.add_argument_group("damage through armor (rulings 14-15)")
        damage.add_argument(
            "--damage",
            metavar="Nd6+K",
            help="the weapon's damage roll, e.g. 2d6+3 (Nd6 + ST): the odds of what gets "
            "through armor; with --bonus and --tn of a whole attack, misses included",
        )
        damage.add_argument("--pt", default=None, help="armor's Penetration Threshold (0)")
        damage.add_argument("--dr", default=None, help="armor's Damage Reduction in percent (0)")
        damage.add_argument(
            "--mos", default=None, help="the hit's margin of success (0): +1d6 on 5-9, +2d6 on 10+"
        )
        damage.add_argument("--burst", action="store_true", help="a burst: +1d6")
        damage.add_argument("--edge-damage", action="store_true", help="Edge spent: +2d6 damage")

    def compute(self, args: argparse.Namespace, read: Read) -> tuple:
        from . import odds_tables as tables

        mode, edge, use = check_mode(args)
        if args.damage is not None:
            return self._damage(args, read, (mode, edge, use))
        given = [a for a in DAMAGE_ONLY if _given(args, a)]
        if given:
            raise UsageError(given[0], _value(args, given[0]), "nothing without --damage")
        if args.bonus is None or args.tn is None:
            missing = "--bonus" if args.bonus is None else "--tn"
            raise UsageError(
                missing, Described("nothing"), "an integer (or --damage alone for a hit's damage)"
            )
        if args.grid:
            return tables.sr2097_grid(read("--bonus"), read("--tn"), mode, edge=edge, use=use)
        return tables.sr2097_odds(read("--bonus"), read("--tn"), mode, edge=edge, use=use)

    def _damage(self, args: argparse.Namespace, read: Read, how: tuple) -> tuple:
        from . import odds_tables as tables

        if args.grid:
            raise UsageError("--grid", True, "nothing with --damage (one damage roll at a time)")
        dice, strength = parse_damage(args.damage)
        armor = {
            "pt": _read_or(read, args, "--pt", 0),
            "dr": _read_or(read, args, "--dr", 0),
            "burst": args.burst,
            "edge_damage": args.edge_damage,
        }
        if args.bonus is None and args.tn is None:
            flags = (("--advantage", args.advantage), ("--disadvantage", args.disadvantage))
            for flag, found in (*flags, ("--edge", args.edge)):
                if found:
                    raise UsageError(flag, found, "a check's flag: give --bonus and --tn with it")
            return tables.sr2097_hit_damage(
                args.damage, dice, strength, mos=_read_or(read, args, "--mos", 0), **armor
            )
        if args.mos is not None:
            raise UsageError("--mos", args.mos, "nothing with --bonus and --tn (the check decides)")
        if args.bonus is None or args.tn is None:
            missing = "--bonus" if args.bonus is None else "--tn"
            raise UsageError(missing, Described("nothing"), "an integer with the other (an attack)")
        check = (read("--bonus"), read("--tn"), *how)
        return tables.sr2097_attack_damage(args.damage, dice, strength, check, **armor)

    def distribution(self, payload: dict) -> tuple[str, list[object], dict[str, list[float]]]:
        if "dealt" in payload:
            keys = sorted(payload["dealt"], key=int)
            return (
                "damage through armor (0: miss or stopped)",
                [int(k) for k in keys],
                {"": [payload["dealt"][k] for k in keys]},
            )
        keys = sorted(payload["mos"], key=int)
        return (
            "margin of success (failure below 0)",
            [int(k) for k in keys],
            {"": [payload["mos"][k] for k in keys]},
        )


def check_mode(args: argparse.Namespace) -> tuple[str, bool, str | None]:
    """The check's mode, whether Edge was spent, and on what, through the dice layer's
    ``check_mode`` (the rule "Using Edge": Advantage only on a check without it,
    removing only a Disadvantage there is)."""
    from ...dice import sr2097

    uses = {"advantage": sr2097.EDGE_GAIN_ADVANTAGE, "remove": sr2097.EDGE_REMOVE_DISADVANTAGE}
    if args.edge is not None and args.edge not in uses:  # no argparse choices: the live page
        # shows an argument with choices as a list that always picks one, and Edge is optional
        raise UsageError("--edge", args.edge, "'advantage' (the default) or 'remove'")
    use = None if args.edge is None else uses[args.edge]
    try:
        found = sr2097.check_mode(args.advantage, args.disadvantage, edge=use)
    except UsageError:
        allowed = (
            "'advantage' only on a check without --advantage (it has Advantage already)"
            if use == sr2097.EDGE_GAIN_ADVANTAGE
            else "'remove' only with --disadvantage (there is no Disadvantage to remove)"
        )
        raise UsageError("--edge", args.edge, allowed) from None
    return found.mode, found.edge, use


def parse_damage(text: str) -> tuple[int, int]:
    """``Nd6+K`` as ``(N, K)``, by the catalogue's own reading of a damage code."""
    from .models import Damage

    try:
        code = Damage.parse(text)
    except ValueError as problem:
        too_big = str(problem).split("; got")[0] if "at most" in str(problem) else None
        raise UsageError("--damage", text, too_big or "a damage roll Nd6+K, e.g. 2d6+3") from None
    if code.strength is None:
        raise UsageError("--damage", text, "Nd6+K with K a number (write the wielder's Strength)")
    return code.dice, code.strength


def _given(args: argparse.Namespace, argument: str) -> bool:
    value = _value(args, argument)
    return value is not None and value is not False


def _value(args: argparse.Namespace, argument: str) -> object:
    return getattr(args, argument[2:].replace("-", "_"))


def _read_or(read: Read, args: argparse.Namespace, argument: str, default: int) -> int:
    return default if _value(args, argument) is None else read(argument, False)


CHECK = CheckOdds()
