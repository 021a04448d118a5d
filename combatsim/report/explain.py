"""The report of ``combatsim explain``: a tornado chart of the levers and the ranked table.

``plots/tornado.png`` draws, for each lever (largest effect at the top), the change in the
explained rate one step down and one step up from the scenario as written, each bar with its
paired 95% interval; ``report.html`` embeds it (one self-contained file) with the summary,
the note on battles and interval widths, and the table. ``combatsim.report.render_report``
hands an explain folder to ``render_explain_report``.
"""

from __future__ import annotations

import base64
import html
import os
from pathlib import Path
from typing import Any

from ..folder import write_atomic
from ..names import html_name as _n
from ..names import isolated as _iso
from ..names import plots_text_as_written
from .figures import save_figure, wrap
from .page import chain_note, p_equation

TORNADO = "tornado"
MAX_BARS = 25
DOWN_COLOR = "#1f77b4"
UP_COLOR = "#d62728"


@plots_text_as_written
def render_explain_report(folder: str | os.PathLike, summary: dict[str, Any]) -> list[Path]:
    """Write ``plots/tornado.png`` and ``report.html`` into ``folder``; return their paths."""
    import matplotlib

    matplotlib.use("Agg", force=True)
    folder = Path(folder)
    plots = folder / "plots"
    plots.mkdir(parents=True, exist_ok=True)
    paths = []
    chart = None
    if summary["levers"] and summary["battles_completed"]:
        chart = tornado_chart(summary, plots / f"{TORNADO}.png")
        paths.append(chart)
    page = folder / "report.html"
    text = _html(summary, chart)
    write_atomic(page, lambda f: f.write(text))
    return [*paths, page]


@plots_text_as_written
def tornado_chart(summary: dict[str, Any], path: Path, limit: int = MAX_BARS) -> Path:
    """The levers' down-step and up-step effects with their intervals, largest at the top."""
    import matplotlib.pyplot as plt
    from matplotlib.ticker import FuncFormatter

    rows = summary["levers"][:limit]
    height = max(2.5, 0.42 * len(rows) + 1.4)
    fig, ax = plt.subplots(figsize=(10, height), layout="constrained")
    ys = list(range(len(rows)))[::-1]  # rank 1 at the top
    for way, color, shift in (("down", DOWN_COLOR, 0.18), ("up", UP_COLOR, -0.18)):
        for y, r in zip(ys, rows, strict=True):
            d = r[f"difference_{way}"]
            if d is None:
                continue
            low, high = r[f"ci95_{way}"]
            ax.barh(y + shift, d, height=0.34, color=color, alpha=0.75)
            ax.errorbar(
                d, y + shift, xerr=[[d - low], [high - d]], fmt="none", ecolor="black", lw=0.9
            )
    ax.axvline(0, color="black", lw=0.8)
    labels = [
        f"{r['side']}: {r['title']} ({_v(r['down'])} / {r['value']} / {_v(r['up'])})" for r in rows
    ]

    ax.set_yticks(ys, [wrap(label, 60) for label in labels], fontsize=8)
    ax.xaxis.set_major_formatter(FuncFormatter(lambda x, _: f"{x * 100:+.0f}"))
    ax.set_xlabel(f"change in {summary['metric']['describe']} from the scenario as written, points")
    ax.grid(alpha=0.3, axis="x")
    from matplotlib.patches import Patch

    ax.legend(
        handles=[
            Patch(color=DOWN_COLOR, alpha=0.75, label="one step down"),
            Patch(color=UP_COLOR, alpha=0.75, label="one step up"),
        ],
        fontsize=8,
        loc="lower right",
    )
    ax.set_title(
        f"What decides {summary['metric']['describe']}: {summary['scenario']}", fontsize=10
    )

    save_figure(fig, path)
    plt.close(fig)
    return path


def _v(x) -> str:
    return "-" if x is None else str(x)


def _pct(x) -> str:
    return "-" if x is None else f"{x:.1%}"


def _step(r: dict[str, Any], way: str) -> str:
    d = r[f"difference_{way}"]
    if d is None:
        return "-"
    low, high = r[f"ci95_{way}"]
    return f"{d * 100:+.1f} ({low * 100:+.1f} to {high * 100:+.1f}), {p_equation(r[f'p_{way}'])}"


STYLE = """
body { font-family: system-ui, sans-serif; margin: 2em auto; max-width: 1240px; padding: 0 1em;
       color: #222; line-height: 1.45; }
.scroll { overflow-x: auto; }
table { border-collapse: collapse; margin: 1em 0; font-size: 0.85em; }
th, td { padding: 0.3em 0.6em; border-bottom: 1px solid #e4e4e4; text-align: right;
         white-space: nowrap; }
th { background: #f4f4f4; } td.label { text-align: left; white-space: normal; }
figure img { max-width: 100%; border: 1px solid #eee; }
.note { background: #f7f7f7; padding: 0.7em 1em; border-left: 3px solid #bbb; font-size: 0.92em; }
"""


def _battles(r: dict[str, Any]) -> str:
    """How many battles the row ran, and why fewer than the rest (see docs/explain.md)."""
    status = r.get("status", "ran")
    if status == "ran":
        return str(r.get("battles", ""))
    if status == "stopped early":
        return f"{r['battles']} (stopped early)"
    return status


def _html(summary: dict[str, Any], chart: Path | None) -> str:
    e = html.escape
    what = summary["metric"]["describe"]
    base = summary["baseline"]
    parts = [
        "<!DOCTYPE html>",
        '<html lang="en"><head><meta charset="utf-8">',
        f"<title>What decides {e(what)}: {e(_iso(summary['scenario']))}</title>",
        f"<style>{STYLE}</style></head><body>",
        f"<h1>What decides {e(what)}: {_n(summary['scenario'])}</h1>",
        f"<p>{_n(summary['source'])}, {e(summary['system'])}, seed {summary['seed']}. As written: "
        f"{_pct(base['rate'])} (95% interval {_pct(base['ci95'][0])} - {_pct(base['ci95'][1])})."
        "</p>",
        "<ul>" + "".join(f'<li dir="auto">{e(line)}</li>' for line in summary["text"]) + "</ul>",
        f'<p class="note">{e(summary["note"])}</p>',
    ]
    note = chain_note(summary)
    if note is not None:
        parts.append(f'<p class="note">{e(note)}</p>')
    if chart is not None:
        data = base64.b64encode(chart.read_bytes()).decode("ascii")
        parts.append(
            f'<figure id="{TORNADO}"><img alt="tornado chart" src="data:image/png;base64,{data}">'
            "<figcaption>Each lever one step down (blue) and one step up (red) from the "
            "scenario as written, on the same battle seeds; the black lines are the paired 95% "
            "intervals (Newcombe; a lever stopped early has the wider interval of its look). "
            f"The {min(len(summary['levers']), MAX_BARS)} largest effects."
            "</figcaption></figure>"
        )
    head = (
        "#",
        "side",
        "lever",
        "down / as written / up",
        "rates",
        "down - base",
        "up - base",
        "battles",
    )
    # Numbers never wrap (a rate or an interval split over lines misreads); names may, and a
    # table wider than the page scrolls on its own.
    header = "".join(f"<th>{h}</th>" for h in head)
    parts.append(f'<div class="scroll"><table><tr>{header}</tr>')
    for r in summary["levers"]:
        cells = [
            str(r["rank"]),
            r["side"],
            r["title"],
            f"{_v(r['down'])} / {r['value']} / {_v(r['up'])}",
            f"{_pct(r['rate_down'])} / {_pct(r['rate'])} / {_pct(r['rate_up'])}",
            _step(r, "down"),
            _step(r, "up"),
            _battles(r),
        ]
        parts.append(
            "<tr>"
            + "".join(
                f'<td class="label">{_n(c)}</td>' if k in (1, 2, 3) else f"<td>{e(c)}</td>"
                for k, c in enumerate(cells)
            )
            + "</tr>"
        )
    parts += ["</table></div>", "</body></html>"]
    return "\n".join(parts)
