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

from ..errors import UsageError, did_you_mean
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

    first = run.load_scenario(args.a)
    second = run.load_scenario(args.b) if args.b else None
    if args.b:
        default = f"{Path(args.a).stem}-vs-{Path(args.b).stem}"
    else:
        default = f"{Path(args.a).stem}-compare"
    out = run.out_folder(args, default)
    if not args.quiet:
        run.warn_if_long([first, second or first], args.battles)
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
        lambda result: describe(result.summary, args.side),
    )


def describe(summary: dict, side: str | None = None) -> str:
    a, b = summary["a"], summary["b"]
    n = summary["battles_completed"]
    lines = [
        f"A: {_label(a)}",
        f"B: {_label(b)}",
        f"{n} battles each, seed {summary['seed']}: battle i of A and of B start from the same "
        "dice, and differences are judged pair by pair",
        "",
    ]
    rows = [("", "A", "B", "B - A (95% interval)", "p", "")]
    for d in summary["differences"]:
        rows.append(
            (
                d["side"],
                _pct(d["a"]),
                _pct(d["b"]),
                f"{_pts(d['difference'])} ({_pts(d['ci95'][0])} to {_pts(d['ci95'][1])})",
                _p(d["p_value"]),
                "significant" if d["significant"] else "not significant",
            )
        )
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    for r in rows:
        cells = [r[0].ljust(widths[0])] + [
            c.rjust(w) for c, w in zip(r[1:-1], widths[1:-1], strict=True)
        ]
        lines.append("  " + "  ".join(cells) + "  " + r[-1])
    sides = [d for d in summary["differences"] if d["side"] != "draws"]
    names = [d["side"] for d in sides]
    if side is not None and side not in names:
        raise UsageError("--side", side, "one of " + ", ".join(names), did_you_mean(side, names))
    head = sides[names.index(side) if side else 0]
    lines += ["", _verdict(head)]
    return "\n".join(lines) + run.precision_line(summary.get("precision"))


def _verdict(d: dict) -> str:
    if d["difference"] is None:
        return f"{d['side']}: no battle finished"
    low, high = d["ci95"]
    if d["significant"]:
        way = "more" if d["difference"] > 0 else "less"
        return (
            f"{d['side']}: B wins {abs(d['difference']) * 100:.1f} points {way} often than A "
            f"(95% interval {_pts(low)} to {_pts(high)} points): a real difference, not noise "
            f"(p {_p_is(d['p_value'])})."
        )
    return (
        f"{d['side']}: no significant difference: B - A = {_pts(d['difference'])} points, "
        f"95% interval {_pts(low)} to {_pts(high)}; this could be noise (p {_p_is(d['p_value'])})."
    )


def _label(summary: dict) -> str:
    text = f"{summary['scenario']} ({summary['source']})"
    return f"{text} with {summary['changes']}" if summary.get("changes") else text


def _pct(x) -> str:
    return "-" if x is None else f"{x:.1%}"


def _pts(x) -> str:
    return "-" if x is None else f"{x * 100:+.1f}"


def _p_is(p: float) -> str:
    return "< 0.0001" if p < 0.0001 else f"= {p:.4f}"


def _p(p: float) -> str:
    return "<0.0001" if p < 0.0001 else f"{p:.4f}"
