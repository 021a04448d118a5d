"""The report of ``combatsim chain``: the whole run, carried over beside every fight fresh.

Plots (``plots/*.png``), each carried over beside fresh so the page shows what attrition costs:

* ``encounters.png``: the chance to complete the run, then per encounter the chance to reach
  it, to win it once reached and that the run ends there, with 95% intervals;
* ``members.png``: how each member ends the run (up, down, dead, left behind);
* ``resources.png``: what each member has left at the end, as small histograms.

``report.html`` embeds them (one self-contained file) with the tables: completion, encounters
(the one that ends most runs marked), members' ends and the casualties per encounter.
``combatsim.report.render_report`` hands a chain's folder to ``render_chain_report``.
"""

from __future__ import annotations

import base64
import html
import os
from pathlib import Path
from typing import Any

from ..chains.summary import shown_resources
from ..chains.tally import STATUSES
from ..folder import write_atomic
from ..names import html_name as _n
from ..names import isolated as _iso
from ..names import plots_text_as_written
from .explain import STYLE
from .figures import PLOTS_DIR, Plot, draw_bar, make_panels, rate_axis, save_plot, wrap

MODES = {"carried": ("carried over", "#1f77b4"), "fresh": ("every fight fresh", "#ff7f0e")}
MEASURES = (
    ("reach", "reached"),
    ("win_once_reached", "won once reached"),
    ("ends_run", "the run ends there"),
)
STATUS_COLORS = {"up": "#2ca02c", "down": "#ff9f40", "dead": "#d62728", "left_behind": "#8c8c8c"}
CHAIN_PLOTS = ("encounters", "members", "resources")


@plots_text_as_written
def render_chain_report(folder: str | os.PathLike, summary: dict[str, Any]) -> list[Path]:
    """Write the chain's plots and ``report.html`` into ``folder``; return their paths."""
    import matplotlib

    matplotlib.use("Agg", force=True)
    folder = Path(folder)
    plots_dir = folder / PLOTS_DIR
    plots_dir.mkdir(parents=True, exist_ok=True)
    plots: list[Plot] = []
    if summary["carried"]["runs_completed"]:
        plots += [encounter_plot(summary, plots_dir), member_plot(summary, plots_dir)]
        resources = resource_plot(summary, plots_dir)
        if resources is not None:
            plots.append(resources)
    page = folder / "report.html"
    text = _html(summary, plots)
    write_atomic(page, lambda f: f.write(text))
    return [p.path for p in plots] + [page]


def _pair(ax, y: float, figures: dict[str, dict[str, Any]]) -> None:
    """Carried and fresh as two bars at ``y``, carried on top, each with its whisker."""
    for offset, mode in ((-0.2, "carried"), (0.2, "fresh")):
        r = figures[mode]
        if r["rate"] is None:
            continue
        label, color = MODES[mode]
        low, high = r["ci95"]
        draw_bar(ax, y + offset, r["rate"], low, high, color, height=0.38, label=label)


def encounter_plot(summary: dict[str, Any], folder: Path) -> Plot:
    """Completion, then reach / win once reached / ends the run per encounter."""
    import matplotlib.pyplot as plt

    carried, fresh = summary["carried"], summary["fresh"]
    n = len(carried["encounters"])
    fig, axes = plt.subplots(
        4,
        1,
        figsize=(8.5, 1.6 + 0.85 * (1 + 3 * n)),
        layout="constrained",
        gridspec_kw={"height_ratios": [1, n, n, n]},
    )
    _pair(axes[0], 0, {"carried": carried["completes"], "fresh": fresh["completes"]})
    axes[0].set_yticks([0], ["the whole run"])
    axes[0].set_title("completes the run", fontsize=10, loc="left")
    for ax, (key, title) in zip(axes[1:], MEASURES, strict=True):
        labels = []
        for k, (e, f) in enumerate(zip(carried["encounters"], fresh["encounters"], strict=True)):
            _pair(ax, k, {"carried": e[key], "fresh": f[key]})
            mark = key == "ends_run" and e["ends_most_runs"]
            labels.append(wrap(e["encounter"], 24) + ("\n(ends most runs)" if mark else ""))
        ax.set_yticks(range(n), labels)
        ax.set_title(title, fontsize=10, loc="left")
    for ax in axes:
        rate_axis(ax, label=ax is axes[-1])
        ax.set_ylim(-0.7, ax.get_ylim()[1])
        ax.invert_yaxis()  # the first encounter on top
    axes[-1].set_xlabel("share of runs, with 95% interval")
    handles, names = axes[0].get_legend_handles_labels()
    fig.legend(handles, names, loc="outside upper center", ncols=2, fontsize=9)
    return save_plot(
        fig,
        folder,
        "encounters",
        "The run, encounter by encounter",
        "The chance to complete the run, then per encounter the chance to reach it, to win it "
        "once reached, and that the run ends there; carried over (blue) beside every fight "
        "fresh (orange), each with its 95% interval.",
    )


def member_plot(summary: dict[str, Any], folder: Path) -> Plot:
    """How each member ends the run: one stacked bar carried, one fresh."""
    import matplotlib.pyplot as plt

    members = summary["carried"]["members"]
    fig, ax = plt.subplots(figsize=(8.5, 1.4 + 0.75 * len(members)), layout="constrained")
    ticks, labels = [], []
    for m, member in enumerate(members):
        for offset, mode in ((-0.2, "carried"), (0.2, "fresh")):
            _stacked(
                ax, m + offset, summary[mode]["members"][m]["end"], m == 0 and mode == "carried"
            )
            ticks.append(m + offset)
            labels.append(f"{wrap(member['member'], 24)}, {MODES[mode][0]}")
    ax.set_yticks(ticks, labels, fontsize=8)
    ax.invert_yaxis()
    rate_axis(ax, label=False)
    ax.set_xlabel("share of runs")
    fig.legend(loc="outside upper center", ncols=len(STATUSES), fontsize=9)
    return save_plot(
        fig,
        folder,
        "members",
        "How each member ends the run",
        "For each member, the share of runs it ends up, down, dead or left behind: carried "
        "over (upper bar) and with every fight fresh (lower bar).",
    )


def _stacked(ax, y: float, end: dict[str, dict[str, Any]], legend: bool) -> None:
    """One member's ends as one stacked bar at ``y``, each share written on its piece."""
    left = 0.0
    for status in STATUSES:
        rate = end[status]["rate"] or 0.0
        label = status.replace("_", " ") if legend else None
        ax.barh(y, rate, 0.36, left=left, color=STATUS_COLORS[status], label=label)
        if rate >= 0.08:
            ax.text(left + rate / 2, y, f"{rate:.0%}", ha="center", va="center", fontsize=7)
        left += rate


def resource_plot(summary: dict[str, Any], folder: Path) -> Plot | None:
    """Small histograms: each member's resources left at the end, carried beside fresh."""
    panels = []
    for m, member in enumerate(summary["carried"]["members"]):
        fresh = dict(shown_resources(summary["fresh"]["members"][m]["left"]))
        for label, histogram in shown_resources(member["left"]):
            panels.append((f"{member['member']}: {label}", histogram, fresh.get(label, [0])))
    if not panels:
        return None
    from matplotlib.ticker import PercentFormatter

    fig, axes = make_panels(len(panels))
    for ax, (title, ours, theirs) in zip(axes, panels, strict=False):
        _histograms(ax, {"carried": ours, "fresh": theirs})
        ax.set_title(wrap(title, 36), fontsize=9)
        ax.yaxis.set_major_formatter(PercentFormatter(1.0))
        ax.grid(axis="y", alpha=0.3)
    handles, names = axes[0].get_legend_handles_labels()
    fig.legend(handles, names, loc="outside upper center", ncols=2, fontsize=9)
    return save_plot(
        fig,
        folder,
        "resources",
        "What each member has left at the end",
        "Each member's wounds, Karma or Edge spent and rounds per weapon at the end of the run "
        "(among the runs it fought in), as the share of runs at each value.",
    )


def _histograms(ax, histograms: dict[str, list[int]]) -> None:
    """Shares of runs by value: bars side by side for a few values, overlaid steps for many
    (wounds on a long monitor), where side-by-side bars would be too thin to see."""
    many = max(len(h) for h in histograms.values()) > 16
    for shift, mode in ((-0.2, "carried"), (0.2, "fresh")):
        histogram = histograms[mode]
        shares = [c / (sum(histogram) or 1) for c in histogram]
        label, color = MODES[mode]
        if many:
            edges = [v - 0.5 for v in range(len(shares) + 1)]
            ax.stairs(shares, edges, fill=True, alpha=0.45, color=color, label=label)
            ax.stairs(shares, edges, color=color)
        else:
            ax.bar([v + shift for v in range(len(shares))], shares, 0.4, color=color, label=label)


# --- the page -------------------------------------------------------------------------------


def _pct(r: dict[str, Any] | None) -> str:
    return "-" if r is None or r["rate"] is None else f"{r['rate']:.1%}"


def _interval(r: dict[str, Any]) -> str:
    if r["rate"] is None:
        return "-"
    return f"{r['ci95'][0]:.1%} - {r['ci95'][1]:.1%}"


def _table(head: list[str], rows: list[list[str]]) -> str:
    """An HTML table; ``head`` and the cells are HTML already (names escaped by the caller);
    the first cell of a row is a label."""
    lines = ['<div class="scroll"><table><tr>' + "".join(f"<th>{h}</th>" for h in head) + "</tr>"]
    for row in rows:
        cells = f'<td class="label">{row[0]}</td>' + "".join(f"<td>{c}</td>" for c in row[1:])
        lines.append(f"<tr>{cells}</tr>")
    return "\n".join([*lines, "</table></div>"])


def _figure(plot: Plot) -> str:
    data = base64.b64encode(plot.path.read_bytes()).decode("ascii")
    return (
        f'<figure id="{plot.name}"><img alt="{html.escape(plot.title)}" '
        f'src="data:image/png;base64,{data}"><figcaption>{html.escape(plot.caption)}'
        "</figcaption></figure>"
    )


def _rest_words(rest: dict[str, Any]) -> str:
    """One rest as the page says it; Edge only where the rest gives some back (2097)."""
    words = f"after {_n(rest['after'])}: heal {rest['heal']}, heal stun {rest['heal_stun']}"
    if rest.get("edge") not in (None, "none"):
        words += f", Edge {html.escape(str(rest['edge']))}"
    return words


def _head(summary: dict[str, Any]) -> list[str]:
    e = html.escape
    n = summary["carried"]["runs_completed"]
    runs = f"{n} runs, seed {summary['seed']}"
    if summary["interrupted"]:
        runs += f" (interrupted: {n} of {summary['runs_requested']} finished)"
    rests = "; ".join(_rest_words(r) for r in summary["rests"])
    return [
        "<!DOCTYPE html>",
        '<html lang="en"><head><meta charset="utf-8">',
        f"<title>The run: {e(_iso(summary['chain']))}</title>",
        f"<style>{STYLE}</style></head><body>",
        f"<h1>The run: {_n(summary['chain'])}</h1>",
        f"<p>{_n(summary['source'])}, {e(summary['system'])}: side {_n(summary['side'])}; "
        f"{runs}; stops: {e(summary['stop'])}; down fighters: {e(summary['down'])}.</p>",
        f"<p>Rests: {rests or 'none'}.</p>" if summary["rests"] else "",
        '<p class="note">Carried over: the side keeps what each fight leaves (wounds, spent '
        "Karma or Edge, rounds, grenades, the dead). Every fight fresh: the same fights over "
        "the same random streams, each started unhurt; the difference is what attrition costs. "
        "Every rate has its 95% Wilson interval.</p>",
    ]


def _completion(summary: dict[str, Any]) -> str:
    rows = [
        [MODES[mode][0], _pct(summary[mode]["completes"]), _interval(summary[mode]["completes"])]
        for mode in MODES
    ]
    return _table(["", "completes the run", "95% interval"], rows)


def _encounters(summary: dict[str, Any]) -> str:
    rows = []
    pairs = zip(summary["carried"]["encounters"], summary["fresh"]["encounters"], strict=True)
    for e, f in pairs:
        mark = " <strong>&larr; ends most runs</strong>" if e["ends_most_runs"] else ""
        rows.append(
            [
                _n(e["encounter"]) + (" (boss)" if e["encounter"] in summary["boss"] else ""),
                _pct(e["reach"]),
                _pct(e["win_once_reached"]),
                _interval(e["win_once_reached"]),
                _pct(e["ends_run"]) + mark,
                _pct(f["win_once_reached"]),
                _interval(f["win_once_reached"]),
            ]
        )
    head = ["encounter", "reached", "won once reached", "95% interval", "ends the run"]
    return _table([*head, "fresh: won", "95% interval"], rows)


def _members(summary: dict[str, Any]) -> str:
    rows = []
    for m, member in enumerate(summary["carried"]["members"]):
        for mode in MODES:
            end = summary[mode]["members"][m]["end"]
            cells = [f"{_pct(end[s])} ({_interval(end[s])})" for s in STATUSES]
            rows.append([f"{_n(member['member'])}, {MODES[mode][0]}", *cells])
    return _table(["member", *(s.replace("_", " ") for s in STATUSES)], rows)


def _casualties(summary: dict[str, Any]) -> str:
    rows = []
    pairs = zip(summary["carried"]["encounters"], summary["fresh"]["encounters"], strict=True)
    for e, f in pairs:
        fresh = {c["member"]: c for c in f["casualties"]}
        for c in e["casualties"]:
            other = fresh.get(c["member"])
            rows.append(
                [
                    f"{_n(e['encounter'])}: {_n(c['member'])}",
                    str(c["fought"]),
                    f"{_pct(c['down'])} ({_interval(c['down'])})",
                    f"{_pct(c['dead'])} ({_interval(c['dead'])})",
                    _pct(other["down"] if other else None),
                    _pct(other["dead"] if other else None),
                ]
            )
    head = ["encounter: member", "entered standing", "down", "dead", "fresh: down", "fresh: dead"]
    return _table(head, rows)


def _html(summary: dict[str, Any], plots: list[Plot]) -> str:
    figures = {p.name: _figure(p) for p in plots}
    parts = [
        *_head(summary),
        "<h2>Does the side get through the whole run?</h2>",
        _completion(summary),
        figures.get("encounters", ""),
        "<h2>Encounter by encounter</h2>",
        _encounters(summary),
        "<h2>How each member ends the run</h2>",
        figures.get("members", ""),
        _members(summary),
        "<h2>Casualties per encounter</h2>",
        "<p>Down (out of the fight; the dead counted too) and dead, among the runs in which the "
        "member entered the fight standing.</p>",
        _casualties(summary),
    ]
    if "resources" in figures:
        parts += ["<h2>What each member has left at the end</h2>", figures["resources"]]
    return "\n".join([*parts, "</body></html>"])
