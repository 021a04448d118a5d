"""``combatsim balance SCENARIO --vary PATH=VALUES --side NAME``: what makes this fair?

Searches the values of one field (how many guards, a skill, an armor) for the one that brings
a side's win rate closest to ``--target`` (default 0.5, an even fight), and reports it with
its 95% interval and the rates of the values either side of it. Numbers (five or more) are
bisected, assuming the win rate rises or falls with the value; otherwise, or with ``--search
grid``, every value runs. Every value runs the same battle seeds.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from . import run

KEYS = ("scenario", "vary", "side", "target", "search", *run.BATCH_KEYS)


def add_parser(sub) -> None:
    p = sub.add_parser(
        "balance",
        help="find the value of a field that makes a side win at a target rate",
        description="Search the values of one field for the one whose win rate for --side is "
        "closest to --target, e.g. --vary 'sides[1].members[Guard].count=1..8' --side runners.",
    )
    p.add_argument("scenario", nargs="?", metavar="SCENARIO", help="scenario file (YAML)")
    p.add_argument(
        "--vary",
        metavar="[NAME:]PATH=VALUES",
        help="the field to search and its values, in order (e.g. count=1..8)",
    )
    p.add_argument("--side", metavar="NAME", help="the side whose win rate is balanced")
    p.add_argument("--target", type=float, default=0.5, help="the win rate to aim at (default 0.5)")
    p.add_argument(
        "--search",
        choices=("auto", "grid", "bisect"),
        default="auto",
        help="bisect (numbers, monotone win rate), grid (every value) or auto (default)",
    )
    run.add_batch_options(p, records="none", battles=run.DEFAULT_BATTLES)
    run.add_report_option(p)
    p.set_defaults(handler=_balance, parser=p)


def _balance(args: argparse.Namespace) -> int:
    run.check_batch_options(args)
    resumed = run.resume(args, "balance", KEYS)
    missing = [n for n, v in (("SCENARIO", args.scenario), ("--vary", args.vary)) if v is None]
    if args.side is None:
        missing.append("--side")
    if missing:
        args.parser.error("the following arguments are required: " + ", ".join(missing))
    from ..sweeps import api
    from ..sweeps.fields import parse_vary

    vary = parse_vary(args.vary)
    scenario = run.load_scenario(args.scenario)
    out = Path(args.out) if args.out else Path("results") / f"{Path(args.scenario).stem}-balance"
    progress = run.progress_display(args)
    try:
        result = api.balance(
            scenario,
            [vary],
            args.side,
            args.target,
            search=args.search,
            battles=args.battles,
            seed=args.seed,
            precision=args.precision,
            **run.batch_options(args, "balance", KEYS, out, resumed, progress),
        )
    finally:
        if progress is not None:
            progress.finish()
    files = run.with_report(args, out, result.files)
    if not args.quiet:
        print(describe(result.summary))
        names = run.listing(out, files)
        print(f"\nresults in {out}: {names}")
    if result.interrupted:
        return run.say_interrupted(result, "balance", out)
    return 0


def describe(summary: dict) -> str:
    vary, side, target = summary["vary"], summary["side"], summary["target"]
    name = vary["name"]
    how = {
        "bisect": "bisection (assumes the win rate rises or falls with the value)",
        "grid": "every value",
    }[summary["search"]]
    lines = [
        f"{summary['scenario']} ({summary['source']}): {name} for {side} winning {target:.1%}",
        f"searched {len(vary['values'])} values by {how}; seed {summary['seed']}, the same "
        "battle seeds for every value",
        "",
    ]
    best = summary["best"]
    rows = [("", name, "battles", f"{side} wins", "95% interval")]
    for variant in summary["variants"]:
        stats = variant["sides"][side]
        mark = ">" if best and variant["variant"] == best["variant"] else ""
        rows.append(
            (
                mark,
                str(variant["values"][name]),
                str(variant["battles_completed"]),
                _pct(stats["win_rate"]),
                f"{_pct(stats['ci95'][0])} - {_pct(stats['ci95'][1])}",
            )
        )
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    for r in rows:
        lines.append("  " + "  ".join(c.rjust(w) for c, w in zip(r, widths, strict=True)))
    lines.append("")
    if best is None:
        lines.append("no value finished")
        return "\n".join(lines)
    holds = (
        f"which holds the target {target:.1%}"
        if best["target_in_interval"]
        else f"which does not hold the target {target:.1%}"
    )
    lines.append(
        f"closest: {name}={best['value']}: {side} win {_pct(best['win_rate'])} (95% interval "
        f"{_pct(best['ci95'][0])} - {_pct(best['ci95'][1])}), {holds}"
    )
    if summary["neighbours"]:
        lines.append(
            "neighbours: "
            + "; ".join(
                f"{name}={n['value']}: {_pct(n['win_rate'])} "
                f"({_pct(n['ci95'][0])} - {_pct(n['ci95'][1])})"
                for n in summary["neighbours"]
            )
        )
    across = [
        n
        for n in summary["neighbours"]
        if (n["win_rate"] - target) * (best["win_rate"] - target) < 0
    ]
    if across and not best["target_in_interval"]:
        lines.append(
            f"the even point lies between {name}={best['value']} and {name}={across[0]['value']}"
            f" (no value in between was given)"
        )
    if not summary["monotone"]:
        lines.append(
            "note: the win rates do not rise or fall steadily with the value; "
            "try --search grid or more battles"
        )
    return "\n".join(lines) + run.precision_line(summary.get("precision"))


def _pct(x) -> str:
    return "-" if x is None else f"{x:.1%}"
