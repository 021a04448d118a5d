"""``combatsim odds attack SCENARIO --attacker NAME --target NAME``: one attack, exactly.

A calculator like the rule packages' (``combatsim.odds.Calculator``), offered by the command
line itself: it reads a scenario, which the dice-only calculators never do.
"""

from __future__ import annotations

import argparse
from typing import ClassVar

from ..odds import Read
from . import integer


class AttackOdds:
    name: ClassVar[str] = "attack"
    help: ClassVar[str] = "one attack in a scenario: miss, damage, condition, down and dead"
    description: ClassVar[str] = (
        "The exact odds of one attack in a scenario's situation at the start of the battle "
        "(range, cover, light, wounds, pools as the tactics spend them), from the same rule "
        "code the battles run: every way the dice can fall is walked once."
    )
    examples: ClassVar[tuple[str, ...]] = (
        "combatsim odds attack scenarios/sr-firefight-4v4.yaml --attacker Grunt --target 'Guard 1'",
        "combatsim odds attack scenarios/sr-firefight-4v4.yaml --attacker Razor "
        "--target 'Guard 2' --weapon ares_predator_smart --json",
        "combatsim odds attack scenarios/sr-firefight-4v4.yaml --attacker Grunt "
        "--target 'Guard 1' --shots 1 --set 'sides[1].members[1].position=[0, 20]'",
    )
    grid: ClassVar[bool] = False

    def add_arguments(self, parser: argparse.ArgumentParser) -> None:
        parser.add_argument("scenario", metavar="SCENARIO", help="a scenario file (YAML)")
        parser.add_argument("--attacker", required=True, help="the attacker's name")
        parser.add_argument("--target", required=True, help="the target's name")
        parser.add_argument(
            "--weapon",
            help="a weapon on the attacker's sheet (default: its firearm if the target is in "
            "range, else its melee weapon if within reach)",
        )
        parser.add_argument(
            "--shots",
            type=integer,
            help="rounds fired (default: what the tactics fire; at most the weapon's autofire)",
        )
        parser.add_argument(
            "--set",
            dest="sets",
            action="append",
            default=[],
            metavar="PATH=VALUE",
            help="set a field of the scenario first (repeatable; as run --set)",
        )

    def compute(self, args: argparse.Namespace, read: Read) -> tuple:
        from ..exact.attack import attack_odds
        from ..exact.tables import attack_payload, attack_table
        from ..scenario import load_scenario
        from .run import with_sets

        scenario = with_sets(load_scenario(args.scenario), args.sets)
        odds = attack_odds(scenario, args.attacker, args.target, args.weapon, args.shots)
        return attack_payload(odds), attack_table(odds)

    def distribution(self, payload: dict) -> tuple[str, list[object], dict[str, list[float]]]:
        """The damage of the attack, a miss counted as 0."""
        damage = {int(k): v for k, v in payload["damage"].items()}
        values = list(range(max(damage) + 1))
        return "damage", list(values), {"": [damage.get(v, 0.0) for v in values]}


ATTACK = AttackOdds()
