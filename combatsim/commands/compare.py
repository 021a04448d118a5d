"""``combatsim compare A [B]``: is B really different from A, or is that noise?

A and B are two scenario files, or one file with fields set differently (``--a PATH=VALUE``,
``--b PATH=VALUE``). Battle ``i`` of A and battle ``i`` of B start from the same seed and run
side by side; for each side (by position) the command reports both win rates, the difference
B - A with Newcombe's 95% interval for paired proportions, McNemar's exact p-value, and whether
the difference is significant (the interval excludes 0). ``--precision P`` runs until every
side's difference interval is within +-P.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from ..limits import DEFAULT_BATTLES
from . import examples, run

KEYS = ("a", "b", "set_a", "set_b", *run.BATCH_KEYS)


def add_parser(sub) -> None:
    p = sub.add_parser(
        "compare",
        help="compare two scenarios or variants: is the win-rate difference real or noise?",
        description="Run A and B on the same battle seeds and report, per side, the difference "
        "in win rate (B - A) with its 95% interval and whether it is significant.",
        **examples(
            "combatsim compare scenarios/sr-firefight-4v4.yaml \\",
            "  --b 'sides[runners].members[Razor].armor=armor_jacket'",
            "combatsim compare scenarios/sr2097-compare-classic.yaml "
            "scenarios/sr2097-runners-vs-patrol.yaml",
        ),
    )
    p.add_argument("a", nargs="?", metavar="A", help="scenario file A (YAML)")
    p.add_argument("b", nargs="?", metavar="B", help="scenario file B (default: A again)")
    p.add_argument(
        "--a",
        dest="set_a",
        action="append",
        default=[],
        metavar="PATH=VALUE",
        help="set a field of A (repeatable), e.g. 'sides[0].members[1].armor=lined_coat'",
    )
    p.add_argument(
        "--b",
        dest="set_b",
        action="append",
        default=[],
        metavar="PATH=VALUE",
        help="set a field of B (repeatable)",
    )
    p.add_argument("--side", metavar="NAME", help="the side to headline (default: the first)")
    run.add_batch_options(p, records="none", battles=DEFAULT_BATTLES)
    run.add_report_option(p)
    p.set_defaults(handler=_compare, parser=p)


def _compare(args: argparse.Namespace) -> int:
    resumed = run.start_study(args, "compare", KEYS, required=(("a", "A (or --resume DIR)"),))
    from ..sweeps import api

    first = run.load_subject(args.a)
    second = run.load_subject(args.b) if args.b else None
    if args.b:
        default = f"{Path(args.a).stem}-vs-{Path(args.b).stem}"
    else:
        default = f"{Path(args.a).stem}-compare"
    out = run.out_folder(args, default)
    if not args.quiet:
        run.warn_if_long(run.scenarios_of(first) + run.scenarios_of(second or first), args.battles)
    return run.run_study(
        args,
        "compare",
        KEYS,
        out,
        resumed,
        lambda **options: api.compare(
            first,
            second,
            a_sets=args.set_a,
            b_sets=args.set_b,
            battles=args.battles,
            seed=args.seed,
            precision=args.precision,
            **options,
        ),
        lambda result: result.text(args.side),
    )
