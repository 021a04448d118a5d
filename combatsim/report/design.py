"""The report of ``combatsim design``: each design's rates against the targets.

``plots/design.png`` has one panel per target: each reported design's confirmed rate with its
95% interval, the target's range shaded. ``report.html`` embeds it (one self-contained file)
with the verdict line, the stated chance of a wrong "hits", and the table of designs.
``combatsim.report.render_report`` hands a design folder to ``render_design_report``.
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
from .explain import STYLE
from .figures import save_figure, wrap
from .page import chain_note

CHART = "design"
VERDICT_COLORS = {"hits": "#2ca02c", "may hit": "#ff7f0e", "misses": "#d62728"}


@plots_text_as_written
def render_design_report(folder: str | os.PathLike, summary: dict[str, Any]) -> list[Path]:
    """Write ``plots/design.png`` and ``report.html`` into ``folder``; return their paths."""
    import matplotlib

    matplotlib.use("Agg", force=True)
    folder = Path(folder)
    paths = []
    chart = None
    if summary["designs"]:
        plots = folder / "plots"
        plots.mkdir(parents=True, exist_ok=True)
        chart = design_chart(summary, plots / f"{CHART}.png")
        paths.append(chart)
    page = folder / "report.html"
    text = _html(summary, chart)
    write_atomic(page, lambda f: f.write(text))
    return [*paths, page]


@plots_text_as_written
def design_chart(summary: dict[str, Any], path: Path) -> Path:
    """One panel per target: every design's rate and 95% interval, the target shaded."""
    import matplotlib.pyplot as plt
    from matplotlib.ticker import PercentFormatter

    designs, targets = summary["designs"], summary["targets"]
    height = max(2.5, 0.45 * len(designs) + 1.5)
    fig, axes = plt.subplots(
        1, len(targets), figsize=(5 * len(targets) + 3, height), layout="constrained", squeeze=False
    )
    ys = list(range(len(designs)))[::-1]  # rank 1 at the top
    for g, (ax, target) in enumerate(zip(axes[0], targets, strict=True)):
        ax.axvspan(target["low"], target["high"], color="#2ca02c", alpha=0.12)
        for y, d in zip(ys, designs, strict=True):
            figure = d["rates"][g]
            if figure["rate"] is None:
                continue
            low, high = figure["ci95"]
            color = VERDICT_COLORS[d["verdict"]]
            ax.errorbar(
                figure["rate"],
                y,
                xerr=[[figure["rate"] - low], [high - figure["rate"]]],
                fmt="o",
                color=color,
                ecolor="black",
                lw=0.9,
            )
        ax.set_xlim(-0.02, 1.02)
        ax.xaxis.set_major_formatter(PercentFormatter(1.0))
        ax.set_title(wrap(f"target: {target['text']}", 40), fontsize=9)
        ax.grid(alpha=0.3, axis="x")
        labels = [wrap(f"{d['rank']}. {d['design']} ({d['verdict']})", 40) for d in designs]
        ax.set_yticks(ys, labels if g == 0 else [""] * len(ys), fontsize=8)
    fig.suptitle(f"Designs of {summary['side']}: {summary['scenario']}", fontsize=10)
    save_figure(fig, path)
    plt.close(fig)
    return path


def _pct(x) -> str:
    return "-" if x is None else f"{x:.1%}"


def _html(summary: dict[str, Any], chart: Path | None) -> str:
    e = html.escape
    rule = summary["rule"]
    parts = [
        "<!DOCTYPE html>",
        '<html lang="en"><head><meta charset="utf-8">',
        f"<title>Designs of {e(_iso(summary['side']))}: {e(_iso(summary['scenario']))}</title>",
        f"<style>{STYLE}</style></head><body>",
        f"<h1>Designs of {_n(summary['side'])}: {_n(summary['scenario'])}</h1>",
        f"<p>{_n(summary['source'])}, {e(summary['system'])}, seed {summary['seed']}; "
        f"{summary['candidates']} make-ups screened, the best confirmed on "
        f"{rule['confirmation_battles']} fresh battles each.</p>",
        f'<p dir="auto"><strong>{e(summary["verdict"])}</strong></p>',
        *([f'<p class="note">{e(note)}</p>'] if (note := chain_note(summary)) else []),
        f'<p class="note">A design <em>hits</em> when every target\'s exact interval at '
        f"{rule['hit_confidence']:.2%} lies inside it, on battles the search did not choose "
        "by: the chance that any design reported as hitting misses a target is at most "
        f"{rule['false_hit_chance']:.0%}. <em>Misses</em>: a target's 95% interval lies "
        "wholly outside it. Every figure below is a 95% interval (Wilson).</p>",
    ]
    if chart is not None:
        data = base64.b64encode(chart.read_bytes()).decode("ascii")
        parts.append(
            f'<figure id="{CHART}"><img alt="each design against the targets" '
            f'src="data:image/png;base64,{data}"><figcaption>Each design\'s rate with its 95% '
            "interval; the shaded band is the target.</figcaption></figure>"
        )
    head = ["#", "design", "verdict", *(e(t["text"]) for t in summary["targets"]), "file"]
    parts.append('<div class="scroll"><table><tr>')
    parts.append("".join(f"<th>{h}</th>" for h in head) + "</tr>")
    for d in summary["designs"]:
        rates = [
            f"<td>{_pct(f['rate'])} ({_pct(f['ci95'][0])} - {_pct(f['ci95'][1])})</td>"
            for f in d["rates"]
        ]
        parts.append(
            f'<tr><td>{d["rank"]}</td><td class="label">{_n(d["design"])}</td>'
            f"<td>{e(d['verdict'])}</td>{''.join(rates)}<td>{e(d['file'])}</td></tr>"
        )
    parts += ["</table></div>", "</body></html>"]
    return "\n".join(parts)
