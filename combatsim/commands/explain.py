"""``combatsim explain SCENARIO``: which lever of the scenario decides the fight?

Tries every lever the rule system declares for every member (attributes, skills, pools,
initiative dice, armor grades, karma or edge; a group's count) one step down and one step up,
all on the baseline's battle seeds, and ranks them by their paired effect on a rate (``--side``
and ``--metric``): each step with its Newcombe 95% interval and exact McNemar p-value, then a
plain-language summary. Writes ``table.csv``/``table.parquet`` and ``summary.json``; with
``--report`` a tornado chart in ``report.html``. See docs/explain.md.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from ..limits import DEFAULT_BATTLES
from . import examples, run

KEYS = ("scenario", "side", "metric", "only", "early_stop", *run.BATCH_KEYS)


def add_parser(sub) -> None:
    from ..metrics import metric_help

    p = sub.add_parser(
        "explain",
        help="rank every lever of a scenario (skills, attributes, armor, counts) by its effect",
        description="Try every lever of every member one step down and one step up, on the "
        "same battle seeds as the scenario as written, and rank the levers by their paired "
        "effect on a side's win rate (or another rate), with 95% intervals and p-values.",
        **examples(
            "combatsim explain scenarios/sr-firefight-4v4.yaml --side runners --report",
            "combatsim explain scenarios/sr-firefight-4v4.yaml --metric 'Razor down' --only Razor",
            "combatsim explain scenarios/sr2097-runners-vs-patrol.yaml --metric draw --battles 300",
        ),
    )
    p.add_argument("scenario", nargs="?", metavar="SCENARIO", help="scenario file (YAML)")
    p.add_argument(
        "--side", metavar="NAME", help="the side whose rate is explained (default: first)"
    )
    p.add_argument(
        "--metric",
        default="win",
        metavar="[WHO] RATE",
        help=f"the rate to explain (default win; 'Razor down' names WHO too): {metric_help()}",
    )
    p.add_argument(
        "--only",
        action="append",
        default=[],
        metavar="NAME",
        help="try only the levers of this side or member (repeatable; default: every member)",
    )
    p.add_argument(
        "--early-stop",
        choices=("on", "off"),
        default="on",
        help="on (default): a lever clearly outside the top 3 stops at a look (after 1/16, "
        "1/8, 1/4, 1/2 or 3/4 of --battles); off: every lever runs them all (docs/explain.md)",
    )
    run.add_batch_options(p, records="none", battles=DEFAULT_BATTLES)
    run.add_report_option(p)
    p.set_defaults(handler=_explain, parser=p)


def _explain(args: argparse.Namespace) -> int:
    required = (("scenario", "SCENARIO (or --resume DIR)"),)
    resumed = run.start_study(args, "explain", KEYS, required)
    from ..sweeps.explain import explain

    scenario = run.load_subject(args.scenario)
    out = run.out_folder(args, f"{Path(args.scenario).stem}-explain")
    if not args.quiet:  # its levers are counted later: the estimate is per variant
        run.warn_if_long(run.scenarios_of(scenario), args.battles, each=True)
    return run.run_study(
        args,
        "explain",
        KEYS,
        out,
        resumed,
        lambda **options: explain(
            scenario,
            args.side,
            args.metric,
            only=args.only,
            full=args.early_stop == "off",
            battles=args.battles,
            seed=args.seed,
            precision=args.precision,
            **options,
        ),
        lambda result: result.text(),
    )
