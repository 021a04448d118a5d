"""``combatsim design SCENARIO --side SIDE --target ...``: which opposition gives this fight?

Searches the make-up of ``--side`` (which archetypes of ``--pool``, how many of each, and with
``--weapons``/``--armor`` what each carries) for the designs whose battles hit every
``--target`` (as ``balance`` reads them, with ranges: ``'runners win 0.6..0.75'``). Candidates
are screened on the same battle seeds with successive halving, and the best ``--top`` are
confirmed on fresh battles; each is written as a ready scenario file. See docs/design.md.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from ..limits import DEFAULT_BATTLES
from . import examples, integer, run

KEYS = (
    "scenario",
    "side",
    "target",
    "pool",
    "weapons",
    "armor",
    "min_members",
    "max_members",
    "max_kinds",
    "formation",
    "top",
    "encounter",
    *run.BATCH_KEYS,
)


def add_parser(sub) -> None:
    p = sub.add_parser(
        "design",
        help="find the make-ups of a side whose battles hit the rates you aim at",
        description="Search which archetypes, how many of each (and optionally which weapon "
        "and armor) --side should field so that every --target is hit, e.g. --side 'corp "
        "security' --target 'runners win 0.6..0.75' --target 'runners dead <= 0.05'. The best "
        "designs are confirmed on fresh battles and written as scenario files.",
        **examples(
            "combatsim design scenarios/sr-firefight-4v4.yaml --side 'corp security' \\",
            "  --target 'runners win 0.6..0.75' --target 'runners dead <= 0.05'",
            "combatsim design scenarios/sr-firefight-4v4.yaml --side 'corp security' \\",
            "  --target 'runners win 0.5..0.7' --pool corp_guard,lone_star_officer --max-members 6",
        ),
    )
    p.add_argument("scenario", nargs="?", metavar="SCENARIO", help="scenario file (YAML)")
    p.add_argument("--side", metavar="NAME", help="the side whose make-up is searched")
    p.add_argument(
        "--target",
        action="append",
        default=[],
        metavar="TARGET",
        help="a rate to hit (repeatable): '[WHO] win|draw|down|dead OP VALUE' or "
        "'WHO RATE LOW..HIGH', e.g. 'runners win 0.6..0.75', 'runners dead <= 5%%'",
    )
    p.add_argument(
        "--pool",
        action="append",
        default=[],
        metavar="NAMES",
        help="archetypes to choose from, comma-separated or repeated; 'catalogue': every "
        "archetype the scenario can name (default: those the side uses as written)",
    )
    p.add_argument(
        "--weapons", action="append", default=[], metavar="NAMES", help="weapons to choose from"
    )
    p.add_argument(
        "--armor", action="append", default=[], metavar="NAMES", help="armor to choose from"
    )
    p.add_argument("--min-members", type=integer, default=1, metavar="N", help="default 1")
    p.add_argument("--max-members", type=integer, default=8, metavar="N", help="default 8")
    p.add_argument(
        "--max-kinds",
        type=integer,
        default=2,
        metavar="N",
        help="at most N different kinds in a design (default 2)",
    )
    p.add_argument(
        "--formation",
        choices=("layout", "line", "column"),
        default="layout",
        help="where the designed fighters stand: the side's own layout (default), a line "
        "abreast, or a column away from the enemy, 2 m apart",
    )
    p.add_argument("--top", type=integer, default=5, metavar="N", help="designs to report (5)")
    p.add_argument(
        "--encounter",
        metavar="NAME",
        help="with a chain file: the encounter whose opposition is designed (its name or "
        "index from 0); every candidate runs the whole chain, and the targets are the chain's "
        "('completes the run 0.7')",
    )
    run.add_batch_options(p, records="none", battles=DEFAULT_BATTLES)
    run.add_report_option(p)
    p.set_defaults(handler=_design, parser=p)


def names(values: list[str]) -> list[str]:
    """Comma-separated or repeated names, in order, each once."""
    return list(dict.fromkeys(n.strip() for v in values for n in v.split(",") if n.strip()))


def _design(args: argparse.Namespace) -> int:
    resumed = run.start_study(args, "design", KEYS)
    missing = [n for n, v in (("SCENARIO", args.scenario), ("--side", args.side)) if v is None]
    if not args.target:
        missing.append("--target")
    run.refuse_missing(args, missing)
    from ..sweeps.design import design

    scenario = run.load_subject(args.scenario)
    out = run.out_folder(args, f"{Path(args.scenario).stem}-design")
    pool = names(args.pool) or None
    return run.run_study(
        args,
        "design",
        KEYS,
        out,
        resumed,
        lambda **options: design(
            scenario,
            args.side,
            args.target,
            pool=pool,
            weapons=names(args.weapons),
            armor=names(args.armor),
            min_members=args.min_members,
            max_members=args.max_members,
            max_kinds=args.max_kinds,
            formation=args.formation,
            top=args.top,
            encounter=args.encounter,
            battles=args.battles,
            seed=args.seed,
            precision=args.precision,
            **options,
        ),
        lambda result: result.text(),
    )
