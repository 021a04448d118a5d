"""``combatsim balance SCENARIO --vary PATH=VALUES --side NAME``: what makes this fair?

Searches the values of one field (how many guards, a skill, an armor) for the one that brings
a side's win rate closest to ``--target`` (default 0.5, an even fight), or any other reported
rate (``--target 'runners down <= 0.3'``, see ``combatsim.sweeps.targets``), and reports it
with its 95% interval and the rates of the values either side of it. Numbers (five or more) are
bisected, assuming the win rate rises or falls with the value; otherwise, or with ``--search
grid``, every value runs. Every value runs the same battle seeds.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from ..limits import DEFAULT_BATTLES
from . import examples, run

KEYS = ("scenario", "vary", "side", "target", "search", *run.BATCH_KEYS)


def add_parser(sub) -> None:
    p = sub.add_parser(
        "balance",
        help="find the value of a field that brings a win, draw, down or dead rate to a target",
        description="Search the values of one field for the one whose win rate for --side is "
        "closest to --target, e.g. --vary 'sides[1].members[Guard].count=1..8' --side runners. "
        "--target can name any reported rate instead: '[WHO] win|draw|down|dead [=|<=|>=] "
        "VALUE', WHO a side or combatant (a group by its member name, or one copy), VALUE "
        "0.3 or 30%; with <= or >= the value closest to the bound that keeps to it wins.",
        **examples(
            "combatsim balance scenarios/sr-firefight-4v4.yaml --side runners --target 0.5 \\",
            "  --vary 'guards:sides[corp security].members[Guard].count=1..8'",
            "# how many guards before the runners lose someone in more than 30% of battles?",
            "combatsim balance scenarios/sr-firefight-4v4.yaml --target 'runners down <= 0.3' \\",
            "  --vary 'guards:sides[corp security].members[Guard].count=1..8'",
            "combatsim balance scenarios/sr-firefight-4v4.yaml --target 'Razor down = 50%' \\",
            "  --vary 'sides[corp security].members[Sergeant Tanaka].archetype=corp_guard,"
            "corp_sergeant'",
        ),
    )
    p.add_argument("scenario", nargs="?", metavar="SCENARIO", help="scenario file (YAML)")
    p.add_argument(
        "--vary",
        metavar="[NAME:]PATH=VALUES",
        help="the field to search and its values, in order (e.g. count=1..8)",
    )
    p.add_argument(
        "--side", metavar="NAME", help="the side whose win rate is balanced (with a number target)"
    )
    p.add_argument(
        "--target",
        default="0.5",
        metavar="TARGET",
        help="the win rate of --side to aim at (default 0.5), or '[WHO] RATE [OP] VALUE' for "
        "any rate: 'runners down <= 0.3', 'Razor dead = 5%%', 'draw <= 0.1'",
    )
    p.add_argument(
        "--search",
        choices=("auto", "grid", "bisect"),
        default="auto",
        help="bisect (numbers, monotone win rate), grid (every value) or auto (default)",
    )
    run.add_batch_options(p, records="none", battles=DEFAULT_BATTLES)
    run.add_report_option(p)
    p.set_defaults(handler=_balance, parser=p)


def _balance(args: argparse.Namespace) -> int:
    resumed = run.start_study(args, "balance", KEYS)
    missing = [n for n, v in (("SCENARIO", args.scenario), ("--vary", args.vary)) if v is None]
    from ..sweeps.targets import is_number

    if is_number(args.target) and args.side is None:  # a bare number: the win rate of --side
        missing.append("--side")
    run.refuse_missing(args, missing)
    from ..sweeps import api
    from ..sweeps.fields import parse_vary

    vary = parse_vary(args.vary)
    scenario = run.load_subject(args.scenario)
    out = run.out_folder(args, f"{Path(args.scenario).stem}-balance")
    if not args.quiet:  # at worst every value is tried
        run.warn_if_long(run.scenarios_of(scenario), args.battles, len(vary.values))
    return run.run_study(
        args,
        "balance",
        KEYS,
        out,
        resumed,
        lambda **options: api.balance(
            scenario,
            [vary],
            args.side,
            args.target,
            search=args.search,
            battles=args.battles,
            seed=args.seed,
            precision=args.precision,
            **options,
        ),
        lambda result: result.text(),
    )
