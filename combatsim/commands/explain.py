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
import textwrap
from pathlib import Path

from ..limits import DEFAULT_BATTLES
from . import examples, run

KEYS = ("scenario", "side", "metric", "only", *run.BATCH_KEYS)
SHOWN_ROWS = 20
WIDTH = 100  # the summary's and the note's lines


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
    run.add_batch_options(p, records="none", battles=DEFAULT_BATTLES)
    run.add_report_option(p)
    p.set_defaults(handler=_explain, parser=p)


def _explain(args: argparse.Namespace) -> int:
    required = (("scenario", "SCENARIO (or --resume DIR)"),)
    resumed = run.start_study(args, "explain", KEYS, required)
    from ..sweeps.explain import explain

    scenario = run.load_scenario(args.scenario)
    out = run.out_folder(args, f"{Path(args.scenario).stem}-explain")
    if not args.quiet:  # its levers are counted later: the estimate is per variant
        run.warn_if_long([scenario], args.battles, each=True)
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
            battles=args.battles,
            seed=args.seed,
            precision=args.precision,
            **options,
        ),
        lambda result: describe(result.summary),
    )


def describe(summary: dict, shown: int = SHOWN_ROWS) -> str:
    """The console text: what was explained, the ranked table, the summary, the note."""
    rows = summary["levers"]
    what = summary["metric"]["describe"]
    base = summary["baseline"]
    lines = [
        f"{summary['scenario']} ({summary['source']}, {summary['system']}): what decides {what}",
        f"as written: {_pct(base['rate'])} ({_pct(base['ci95'][0])} - {_pct(base['ci95'][1])}); "
        f"{len(rows)} levers, each one step down and up on the same battle seeds "
        f"(seed {summary['seed']})",
        "",
    ]
    table = [("#", "lever", "down / as written / up", "rates", "down - base", "up - base")]
    for r in rows[:shown]:
        table.append(
            (
                str(r["rank"]),
                _cut(r["title"], 34),
                _cut(f"{_v(r['down'])} / {r['value']} / {_v(r['up'])}", 30),
                f"{_pct(r['rate_down'])} / {_pct(r['rate'])} / {_pct(r['rate_up'])}",
                _step(r, "down"),
                _step(r, "up"),
            )
        )
    widths = [max(len(t[i]) for t in table) for i in range(len(table[0]))]
    for t in table:
        cells = [t[0].rjust(widths[0]), t[1].ljust(widths[1]), t[2].ljust(widths[2])]
        cells += [c.rjust(w) for c, w in zip(t[3:], widths[3:], strict=True)]
        lines.append("  ".join(cells).rstrip())
    lines.append(
        "  (differences in points with their 95% intervals; * significant: the interval "
        "excludes 0; p-values in table.csv)"
    )
    if summary["metric"]["rate"] == "down":
        from ..output import DOWN_MEANS

        lines.append(f"  ({DOWN_MEANS})")
    if len(rows) > shown:
        lines.append(f"  ... {len(rows) - shown} more levers in table.csv")
    lines.append("")
    lines += [
        textwrap.fill(t, WIDTH, initial_indent="- ", subsequent_indent="  ")
        for t in summary["text"]
    ]
    lines += ["", textwrap.fill(summary["note"], WIDTH)]
    for s in summary["skipped"]:
        lines.append(f"skipped {s['path']}={s['value']}: {s['why']}")
    return "\n".join(lines) + run.precision_line(summary.get("precision"))


def _step(r: dict, way: str) -> str:
    d = r[f"difference_{way}"]
    if d is None:
        return "-"
    low, high = r[f"ci95_{way}"]
    mark = "*" if r[f"significant_{way}"] else " "
    return f"{_pts(d)} ({_pts(low)}..{_pts(high)}){mark}"


def _cut(text: str, width: int) -> str:
    return text if len(text) <= width else text[: width - 1] + "…"


def _v(x) -> str:
    return "-" if x is None else str(x)


def _pct(x) -> str:
    return "-" if x is None else f"{x:.1%}"


def _pts(x) -> str:
    return f"{x * 100:+.1f}"
