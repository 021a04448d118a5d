"""The words a study ends with: its table and verdict lines, as ``combatsim balance``,
``compare``, ``explain`` and ``sweep`` print them and as a ``Result`` prints itself.

One function per kind of study (``balance``, ``compare``, ``explain``, ``sweep``, and ``text``
to choose among them and the batch runs), so the command line and Python say the same answer in
the same words: the closest value and whether it holds the target, p-values as ``< 0.0001``
rather than 0.
"""

from __future__ import annotations

import textwrap
from typing import Any

from ..errors import UsageError, did_you_mean
from ..output import DOWN_MEANS

# how a chain's rates read (a run counts as a battle: its side wins when it completes the run)
CHAIN_RATES = (
    "a chain: the side's rate is its chance to complete the run; draws: runs ended by a drawn "
    "fight; turns: combat turns per run"
)
SHOWN_ROWS = 20  # explain's table: the rest are in table.csv
WIDTH = 100  # explain's summary and note lines


def text(result: Any, side: str | None = None) -> str:
    """The lines a study or batch ends with, for any ``Result``: what the command line prints
    after the run (``side``: the side a comparison headlines, default the first)."""
    from ..output import format_runs, format_summary

    kind, summary = result.kind, result.summary
    if kind == "balance":
        return balance(summary)
    if kind == "compare":
        return compare(summary, side)
    if kind == "explain":
        return explain(summary)
    if kind == "design":
        from .design_words import design_text

        return design_text(summary)
    if kind == "sweep":
        return sweep(result)
    if kind == "run":
        body = format_summary(summary)
        if summary.get("sets"):  # under the heading that names the scenario
            head, _, rest = body.partition("\n")
            body = f"{head}\nwith --set " + ", ".join(summary["sets"]) + f"\n{rest}"
    else:
        body = format_runs(summary["runs"])
        body += f"\n\n{summary['battles_completed']} battles in all"
    return body + precision_line(summary.get("precision"))


def precision_line(report: dict | None) -> str:
    if not report:
        return ""
    state = "reached" if report["reached"] else "NOT reached (--max-battles)"
    return (
        f"\nprecision +-{report['target']:g}: {state}; widest interval reaches "
        f"+-{report['widest']:.4f}"
    )


def balance(summary: dict) -> str:
    vary, target = summary["vary"], summary["target"]
    aim = summary.get("aim") or {"rate": "win", "who": summary["side"], "op": "="}
    name = vary["name"]
    phrase = aim.get("phrase") or (
        "draws" if aim["rate"] == "draw" else f"{aim['who']} {aim['rate']}"
    )
    if aim["rate"] == "win" and aim["op"] == "=":
        goal = f"{aim['who']} winning {target:.1%}"
    else:
        goal = f"{phrase} {aim['op']} {target:.1%}"
    count = len(vary["values"])
    how = {
        "bisect": f"searched {count} values by bisection (assumes the rate rises or falls with "
        f"the value), running {len(summary['variants'])} of them",
        "grid": f"ran every one of the {count} values",
    }[summary["search"]]
    lines = [
        f"{summary['scenario']} ({summary['source']}): {name} for {goal}",
        f"{how}; seed {summary['seed']}, the same battle seeds for every value",
        "",
    ]
    best = summary["best"]
    column = f"{aim['who']} wins" if aim["rate"] == "win" else phrase
    rows = [("", name, "battles", column, "95% interval")]
    for variant in summary["variants"]:
        rate, interval = _aimed(variant, aim)
        mark = ">" if best and variant["variant"] == best["variant"] else ""
        rows.append(
            (
                mark,
                str(variant["values"][name]),
                str(variant["battles_completed"]),
                _pct(rate),
                "-" if interval is None else f"{_pct(interval[0])} - {_pct(interval[1])}",
            )
        )
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    for r in rows:
        lines.append("  " + "  ".join(c.rjust(w) for c, w in zip(r, widths, strict=True)))
    if aim["rate"] == "down":
        lines.append(f"  ({DOWN_MEANS})")
    lines.append("")
    if best is None:
        lines.append("no value finished")
        return "\n".join(lines)
    holds = (
        f"which holds the target {target:.1%}"
        if best["target_in_interval"]
        else f"which does not hold the target {target:.1%}"
    )
    if aim["op"] != "=":
        keeps = "keeps" if best["meets"] else "is the closest, but no value searched keeps"
        holds = f"which {keeps} to {phrase} {aim['op']} {target:.1%}"
    verb = "win" if aim["rate"] == "win" else ""
    said = f"{aim['who']} win" if verb else phrase
    lines.append(
        f"closest: {name}={best['value']}: {said} {_pct(best['rate'])} (95% interval "
        f"{_pct(best['ci95'][0])} - {_pct(best['ci95'][1])}), {holds}"
    )
    if summary["neighbours"]:
        lines.append(
            "neighbours: "
            + "; ".join(
                f"{name}={n['value']}: {_pct(n['rate'])} "
                + ("" if n["ci95"] is None else f"({_pct(n['ci95'][0])} - {_pct(n['ci95'][1])})")
                for n in summary["neighbours"]
            )
        )
    lines += _hints(summary, name, target)
    return "\n".join(lines) + precision_line(summary.get("precision"))


def _hints(summary: dict, name: str, target: float) -> list[str]:
    """Where the target lies between two values, and what to try when the rates do not rise
    or fall steadily (a grid search already ran every value: only more battles help)."""
    best = summary["best"]
    hints: list[str] = []
    across = [
        n
        for n in summary["neighbours"]
        if n["rate"] is not None and (n["rate"] - target) * (best["rate"] - target) < 0
    ]
    if across and not best["target_in_interval"]:
        hints.append(
            f"the target lies between {name}={best['value']} and {name}={across[0]['value']}"
            f" (no value in between was given)"
        )
    if not summary["monotone"]:
        advice = "more battles" if summary["search"] == "grid" else "--search grid or more battles"
        hints.append(f"note: the rates do not rise or fall steadily with the value; try {advice}")
    return hints


def _aimed(variant: dict, aim: dict):
    from .targets import Aim

    return Aim(aim["rate"], 0.0, aim["op"], aim["who"]).of(variant)


def compare(summary: dict, side: str | None = None) -> str:
    a, b = summary["a"], summary["b"]
    n = summary["battles_completed"]
    unit = "run" if a.get("chain") else "battle"
    lines = [
        f"A: {_label(a)}",
        f"B: {_label(b)}",
        f"{n} {unit}s each, seed {summary['seed']}: {unit} i of A and of B start from the same "
        "dice, and differences are judged pair by pair",
        *([CHAIN_RATES] if a.get("chain") else []),
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
    lines += ["", _verdict(head, "completes the run" if a.get("chain") else "wins")]
    return "\n".join(lines) + precision_line(summary.get("precision"))


def _verdict(d: dict, wins: str = "wins") -> str:
    if d["difference"] is None:
        return f"{d['side']}: nothing finished"
    low, high = d["ci95"]
    if d["significant"]:
        way = "more" if d["difference"] > 0 else "less"
        return (
            f"{d['side']}: B {wins} {abs(d['difference']) * 100:.1f} points {way} often than A "
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


def explain(summary: dict, shown: int = SHOWN_ROWS) -> str:
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
    return "\n".join(lines) + precision_line(summary.get("precision"))


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


def sweep(result) -> str:
    from ..output import column_name, format_table

    summary = result.summary
    names = [column_name(v["name"]) for v in summary["vary"]]
    sides = list(summary["variants"][0]["sides"]) if summary["variants"] else []
    baseline = summary.get("baseline") or {}
    count = len(summary["variants"]) - (0 if baseline.get("in_grid", True) else 1)
    chain = summary.get("chain")
    what = "chain" if chain else "scenario"
    lines = [
        f"{summary['scenario']} ({summary['source']}, {summary['system']})",
        f"{count} variant{'s' if count != 1 else ''}"
        + ("" if baseline.get("in_grid", True) else f" and the {what} as written")
        + f", seed {summary['seed']}: every row ran the same {'run' if chain else 'battle'} seeds",
        f"win rates with 95% intervals; * marks the {what} as written",
        *([CHAIN_RATES] if chain else []),
        "",
        format_table(marked(result.table, names), names, sides),
    ]
    return "\n".join(lines) + precision_line(summary.get("precision"))


def marked(table, names: list[str]):
    """The table with the as-written row marked ``*`` after its first label; a field the
    file gives several values (``members[*]``) or none reads ``as written``."""
    if "baseline" not in table.columns or not names:
        return table
    shown = table.copy()
    for column in names:
        shown[column] = shown[column].astype(object)
    for i in shown.index[shown["baseline"].astype(bool)]:
        for k, column in enumerate(names):
            value = shown.at[i, column]
            text = "as written" if value is None or value != value else _plain(value)
            shown.at[i, column] = f"{text} *" if k == 0 else text
    return shown


def _plain(value) -> str:
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)


def _pct(x) -> str:
    return "-" if x is None else f"{x:.1%}"


def _pts(x) -> str:
    return "-" if x is None else f"{x * 100:+.1f}"


def _p_is(p: float) -> str:
    return "< 0.0001" if p < 0.0001 else f"= {p:.4f}"


def _p(p: float) -> str:
    return "<0.0001" if p < 0.0001 else f"{p:.4f}"
