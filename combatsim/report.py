"""``combatsim report DIR``: a results folder as PNG plots and one self-contained HTML page.

Reads ``DIR/summary.json`` (written by ``run``, ``sweep``, ``compare`` or ``balance``) and
writes ``DIR/plots/*.png`` and ``DIR/report.html``, which embeds the same images, so the page
is one file to open, mail or archive. Plots, as the results allow:

* ``win_rate.png``: who wins, with 95% intervals and the draws: bars for one scenario, one
  panel of bars per scenario for a batch, A beside B for a comparison, lines against the varied
  value for a sweep or a balance search (one panel per value of a second varied field);
* ``heatmap.png``: for two varied fields (weapon x armor), one side's win rate per cell;
* ``difference.png``: for a comparison, B - A per side and for draws, with the paired interval;
* ``casualties.png``: for one scenario, how often each combatant ends down and dead;
* ``standing.png``: the share of each side's fighters still standing after each turn;
* ``turns.png``: the distribution of battle length;
* ``damage.png``: the distribution of damage taken per combatant, by side.

Readability rules every figure keeps: a side has one colour throughout the report (draws are
grey, anything not a side is a neutral dark grey); legends sit outside the data; labels and
titles are wrapped, never cut, and constrained layout keeps every text inside the figure
(``tests/test_report.py`` checks each one). matplotlib draws off-screen (Agg).
"""

from __future__ import annotations

import base64
import html
import json
import math
import os
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .errors import UsageError, did_you_mean
from .folder import fault, owns, write_atomic, writing
from .names import html_name as _n
from .names import isolated as _iso
from .names import plots_text_as_written
from .output import COMBATANTS_CSV, SUMMARY_JSON

REPORT_HTML = "report.html"
PLOTS_DIR = "plots"
PLOT_NAMES = (
    "win_rate",
    "aim",
    "heatmap",
    "difference",
    "casualties",
    "standing",
    "turns",
    "damage",
    "tornado",
)
MAX_PANELS = 24
COLUMNS = 3  # panels per line
DRAW_COLOR = "#8c8c8c"
NEUTRAL = "#4d4d4d"  # data that belongs to no side (battle length)
# Side colours: tab10 without its grey, then the light tab20 shades, then tab20b: 38 colours
# that stay apart from the draws' grey, before any repeats.
_TAB10 = ["#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2"]
_TAB10 += ["#bcbd22", "#17becf"]
_LIGHT = ["#aec7e8", "#ffbb78", "#98df8a", "#ff9896", "#c5b0d5", "#c49c94", "#f7b6d2"]
_LIGHT += ["#dbdb8d", "#9edae5"]
_TAB20B = ["#393b79", "#5254a3", "#6b6ecf", "#9c9ede", "#637939", "#8ca252", "#b5cf6b"]
_TAB20B += ["#cedb9c", "#8c6d31", "#bd9e39", "#e7ba52", "#e7cb94", "#843c39", "#ad494a"]
_TAB20B += ["#d6616b", "#e7969c", "#7b4173", "#a55194", "#ce6dbd", "#de9ed6"]
PALETTE = _TAB10 + _LIGHT + _TAB20B
AS_WRITTEN = "as written"


@dataclass
class Row:
    """One row of the results (a scenario, a variant, A or B): label, varied values, summary."""

    label: str
    values: dict[str, Any]
    summary: dict[str, Any]

    @property
    def baseline(self) -> bool:
        return bool(self.summary.get("baseline"))

    def title(self, width: int = 40) -> str:
        """The row's name for a panel title: wrapped, never cut."""
        return wrap(self.label, width)


@dataclass
class Plot:
    name: str
    title: str
    caption: str
    path: Path


def load_results(folder: str | os.PathLike) -> tuple[dict[str, Any], list[Row], list[str]]:
    """The summary, one ``Row`` per variant, and the varied fields' names."""
    path = Path(folder) / SUMMARY_JSON
    if not path.exists():
        raise UsageError("DIR", str(folder), "a results folder with a summary.json in it")
    summary = json.loads(path.read_text(encoding="utf-8"))
    kind = summary.get("kind", "run")
    if kind == "run":
        return summary, [Row(summary["scenario"], {}, summary)], []
    if kind == "runs":
        rows = [Row(s["scenario"], {"scenario": s["scenario"]}, s) for s in summary["runs"]]
        return summary, rows, ["scenario"]
    if kind == "compare":
        rows = []
        for key in ("a", "b"):
            s = summary[key]
            label = key.upper() + (f": {s['changes']}" if s.get("changes") else "")
            rows.append(Row(label, {"variant": key.upper()}, s))
        return summary, rows, ["variant"]
    if kind in ("sweep", "balance"):
        varies = summary["vary"] if kind == "sweep" else [summary["vary"]]
        names = [v["name"] for v in varies]
        rows = []
        for s in summary["variants"]:
            known = [k for k in names if not _missing(s["values"][k])]
            text = ", ".join(f"{k}={_value(s['values'][k])}" for k in known)
            if s.get("baseline"):
                text = f"{AS_WRITTEN}: {text}" if text else f"the scenario {AS_WRITTEN}"
            rows.append(Row(text, s["values"], s))
        return summary, rows, names
    raise UsageError("DIR", str(folder), "the results of run, sweep, compare or balance")


def _explain_summary(folder: Path) -> dict[str, Any] | None:
    path = folder / SUMMARY_JSON
    if not path.exists():
        return None
    summary = json.loads(path.read_text(encoding="utf-8"))
    return summary if summary.get("kind") == "explain" else None


@plots_text_as_written
def render_report(folder: str | os.PathLike, side: str | None = None) -> list[Path]:
    """Write ``plots/*.png`` and ``report.html`` into ``folder``; return their paths.

    ``side``: the side whose win rate the heatmap shows (default: the first side; for a
    balance search, the side it aimed at). The folder is held for the while (no run writes
    into it meanwhile), and a folder that cannot be written is one line.
    """
    if not (Path(folder) / SUMMARY_JSON).is_file():
        raise UsageError("DIR", str(folder), "a results folder with a summary.json in it")
    with writing(folder, force=True, argument="DIR"):
        try:
            return _render(Path(folder), side)
        except OSError as err:
            raise fault(folder, err) from None


def save_figure(fig, path: Path) -> Path:
    """A figure as PNG, written whole or not at all, never through a link."""
    return write_atomic(
        path, lambda f: fig.savefig(f, format="png", dpi=110, metadata={"Software": None}), True
    )


def _render(folder: Path, side: str | None) -> list[Path]:
    import matplotlib

    matplotlib.use("Agg", force=True)
    explained = _explain_summary(folder)
    if explained is not None:  # combatsim explain: its own page (report_explain.py)
        from .report_explain import render_explain_report

        return render_explain_report(folder, explained)
    summary, rows, names = load_results(folder)
    sides = _sides(rows)
    if side is not None and side not in sides:
        raise UsageError("--side", side, "one of " + ", ".join(sides), did_you_mean(side, sides))
    focus = side or (summary.get("side") if summary.get("kind") == "balance" else None) or sides[0]
    colors = side_colors(sides, _side_counts(rows))
    plots_dir = folder / PLOTS_DIR
    plots_dir.mkdir(parents=True, exist_ok=True)
    for stale in PLOT_NAMES:  # a plot this run does not draw must not linger from an older one
        if owns(plots_dir / f"{stale}.png"):
            (plots_dir / f"{stale}.png").unlink(missing_ok=True)
    finished = [r for r in rows if r.summary["battles_completed"]]
    casualties = _casualties(summary, folder) if summary.get("kind", "run") == "run" else None
    plots: list[Plot] = []
    if finished:
        plots.append(_win_rate_plot(summary, finished, names, colors, plots_dir))
        if summary.get("kind") == "balance" and _aim(summary).rate != "win":
            plots.append(_aim_plot(summary, finished, names, colors, plots_dir))
        if summary.get("kind") == "sweep" and len(names) == 2:
            plots.append(_heatmap(finished, names, focus, plots_dir))
        if summary.get("kind") == "compare":
            plots.append(_difference_plot(summary, colors, plots_dir))
        if casualties:
            plots.append(_casualty_plot(casualties, colors, plots_dir))
        for make in (_standing_plot, _turns_plot, _damage_plot):
            plot = make(finished, colors, plots_dir)
            if plot is not None:
                plots.append(plot)
    page = folder / REPORT_HTML
    text = _html(summary, rows, names, sides, plots, casualties)
    write_atomic(page, lambda f: f.write(text))
    return [p.path for p in plots] + [page]


def side_colors(sides: list[str], counts: dict[str, int] | None = None) -> dict[str, str]:
    """One colour per side name, the same in every figure of a report. With ``counts`` (how
    many scenarios a name fights in), the commonest names get the first, strongest colours."""
    order = sorted(sides, key=lambda s: -(counts or {}).get(s, 1))  # stable: ties keep order
    colors = {side: PALETTE[k % len(PALETTE)] for k, side in enumerate(order)}
    return {side: colors[side] for side in sides}


def _side_counts(rows: list[Row]) -> dict[str, int]:
    counts: dict[str, int] = {}
    for r in rows:
        for side in _row_sides(r):
            counts[side] = counts.get(side, 0) + 1
    return counts


# --- win rates --------------------------------------------------------------------------------


def _outcomes(summary: dict, sides: list[str]) -> list[tuple[str, float, float, float]]:
    """(name, rate, low, high) for each side of this row that has a rate, then the draws."""
    out = []
    for side in sides:
        stats = summary["sides"].get(side)
        if stats is None or stats["win_rate"] is None:
            continue
        out.append((side, stats["win_rate"], *stats["ci95"]))
    draws = summary["draws"]
    if draws["rate"] is not None:
        out.append(("draws", draws["rate"], *draws["ci95"]))
    return out


def _row_sides(row: Row) -> list[str]:
    return list(row.summary.get("side_order") or row.summary["sides"])


def _win_rate_plot(summary, rows, names, colors, folder) -> Plot:
    kind = summary.get("kind", "run")
    if kind == "run":
        return _bars_one(rows[0], colors, folder)
    if kind == "runs":
        return _bars_panels(rows, colors, folder)
    if kind == "compare":
        return _bars_compare(rows, colors, folder)
    return _lines(summary, rows, names, colors, folder)


def _bar(ax, y, rate, low, high, color, height=0.7, **kwargs) -> None:
    """A horizontal bar with its 95% interval as a whisker and its value written beside."""
    ax.barh(y, rate, height=height, color=color, **kwargs)
    ax.errorbar(
        rate,
        y,
        xerr=[[max(0.0, rate - low)], [max(0.0, high - rate)]],
        fmt="none",
        ecolor="black",
        elinewidth=1,
        capsize=3,
    )
    inside = high >= 0.88  # no room right of the whisker: inside the bar, left of the whisker
    ax.text(
        max(low - 0.015, 0.1) if inside else high + 0.02,
        y,
        f"{rate:.0%}",
        va="center",
        ha="right" if inside else "left",
        fontsize=8,
        color="black",
        bbox={"boxstyle": "round,pad=0.15", "fc": "white", "ec": "none", "alpha": 0.85}
        if inside
        else None,
    )


def _rate_axis(ax, label: bool = True) -> None:
    ax.set_xlim(0, 1.0)
    ax.xaxis.set_major_formatter(_percent())
    ax.grid(axis="x", alpha=0.3)
    ax.set_axisbelow(True)
    if label:
        ax.set_xlabel("share of battles, with 95% interval")


def _bars_one(row: Row, colors, folder) -> Plot:
    import matplotlib.pyplot as plt

    outcomes = _outcomes(row.summary, _row_sides(row))
    fig, ax = plt.subplots(figsize=(8, 1.3 + 0.55 * len(outcomes)), layout="constrained")
    for k, (name, rate, low, high) in enumerate(outcomes):
        color = DRAW_COLOR if name == "draws" else colors[name]
        _bar(ax, k, rate, low, high, color)
    ax.set_yticks(range(len(outcomes)))
    ax.set_yticklabels([_wrap_label(o[0]) for o in outcomes])
    ax.invert_yaxis()
    _rate_axis(ax)
    ax.set_title(wrap(f"Who wins: {row.label}", 80), fontsize=11)
    caption = (
        "The share of battles each side won, and the share drawn (turn limit reached, or nobody "
        "left standing), each with its 95% Wilson interval (the black whisker)."
    )
    return _save(fig, folder, "win_rate", "Who wins", caption)


def _bars_panels(rows: list[Row], colors, folder) -> Plot:
    """A batch of scenarios: one small panel of bars per scenario, side names on its axis."""
    fig, axes = _panels(
        len(rows),
        height=lambda r: 0.9 + 0.32 * len(_outcomes(r.summary, _row_sides(r))),
        rows=rows,
        sharex=True,
    )
    for ax, row in zip(axes, rows, strict=False):
        outcomes = _outcomes(row.summary, _row_sides(row))
        for k, (name, rate, low, high) in enumerate(outcomes):
            _bar(ax, k, rate, low, high, DRAW_COLOR if name == "draws" else colors[name])
        ax.set_yticks(range(len(outcomes)))
        ax.set_yticklabels([_wrap_label(o[0], 16) for o in outcomes], fontsize=8)
        ax.invert_yaxis()
        _rate_axis(ax, label=False)
        ax.tick_params(axis="x", labelsize=8, labelbottom=True)
        ax.set_title(row.title(38), fontsize=8.5)
    fig.supxlabel("share of battles, with 95% interval", fontsize=9)
    fig.suptitle(f"Who wins, in each of the {len(rows)} scenarios", fontsize=11)
    caption = (
        "One panel per scenario: the share of battles each side won and the share drawn, each "
        "with its 95% Wilson interval (black whisker). A side keeps its colour in every plot of "
        "this report." + _more(len(rows))
    )
    return _save(fig, folder, "win_rate", "Who wins", caption)


def _bars_compare(rows: list[Row], colors, folder) -> Plot:
    import matplotlib.pyplot as plt
    from matplotlib.patches import Patch

    a, b = rows
    names = [o[0] for o in _outcomes(a.summary, _row_sides(a))]
    fig, ax = plt.subplots(figsize=(8, 1.6 + 0.75 * len(names)), layout="constrained")
    for k, name in enumerate(names):
        color = DRAW_COLOR if name == "draws" else colors[name]
        for offset, row, style in ((-0.19, a, {"alpha": 0.45}), (0.19, b, {})):
            found = [o for o in _outcomes(row.summary, _row_sides(row)) if o[0] == name]
            if found:
                _bar(ax, k + offset, *found[0][1:], color, height=0.36, **style)
    ax.set_yticks(range(len(names)))
    ax.set_yticklabels([_wrap_label(n) for n in names])
    ax.invert_yaxis()
    _rate_axis(ax)
    handles = [
        Patch(facecolor=NEUTRAL, alpha=0.45, label="A (upper bar)"),
        Patch(facecolor=NEUTRAL, label="B (lower bar)"),
    ]
    fig.legend(handles=handles, loc="outside right upper", fontsize=9)
    ax.set_title("Who wins in A and in B", fontsize=11)
    caption = (
        "Each side's win rate and the draws, A (pale, upper bar) and B (full colour, lower bar), "
        "with 95% Wilson intervals. A and B ran the same battle seeds side by side; whether the "
        "difference is real is in the next plot."
    )
    return _save(fig, folder, "win_rate", "Who wins, A and B", caption)


def _lines(summary, rows, names, colors, folder) -> Plot:
    """A sweep or a balance search: rates against the first varied value, one panel per value
    of a second varied field, every side and the draws in each."""
    import matplotlib.pyplot as plt

    kind = summary.get("kind")
    first = names[0]
    grid = [r for r in rows if not (r.baseline and _off_grid(summary))]
    extra = [r for r in rows if r.baseline and _off_grid(summary)]
    groups: list[tuple[str | None, list[Row]]] = [(None, grid)]
    if len(names) == 2:
        groups = [
            (f"{names[1]} = {_value(v)}", [r for r in grid if r.values[names[1]] == v])
            for v in _unique(r.values[names[1]] for r in grid)
        ][:MAX_PANELS]
    sides = _sides(rows)
    draws = True  # shown even at 0%: a reader should not have to wonder where they went
    if len(groups) == 1:
        fig, ax = plt.subplots(figsize=(9, 4.8), layout="constrained")
        axes = [ax]
    else:
        fig, axes = _panels(len(groups), height=lambda _: 2.8, sharex=True, sharey=True)
    xs_all, numeric = _axis(grid, first)
    for ax, (title, members) in zip(axes, groups, strict=False):
        xs = [xs_all[grid.index(r)] for r in members]
        count = len(sides) + draws
        for k, side in enumerate(sides):
            shifted = xs if numeric else _dodge(xs, k, count)
            _series(ax, shifted, members, side, colors[side], side, numeric)
        if draws:
            shifted = xs if numeric else _dodge(xs, count - 1, count)
            _series(ax, shifted, members, None, DRAW_COLOR, "draws", numeric)
        if not numeric:
            _categories(ax, grid, first)
        for r in members:
            if r.baseline:
                x = xs[members.index(r)]
                ax.axvline(x, color=NEUTRAL, lw=1, ls=":", zorder=0)
                ax.annotate(
                    AS_WRITTEN,
                    (x, 1.0),
                    xytext=(3, -3),
                    textcoords="offset points",
                    va="top",
                    fontsize=8,
                    color=NEUTRAL,
                )
        if title is not None:
            ax.set_title(wrap(title, 40), fontsize=9)
        ax.set_ylim(-0.02, 1.04)
        ax.yaxis.set_major_formatter(_percent())
        ax.grid(alpha=0.3)
        if kind == "balance" and _aim(summary).rate == "win":
            _mark_aim(ax, summary, xs, members, first)
    if extra and numeric and len(groups) == 1:
        r = extra[0]
        x = r.values[first]
        if x is not None and x == x:
            for side in sides:
                stats = r.summary["sides"].get(side)
                if stats and stats["win_rate"] is not None:
                    axes[0].plot(
                        [x], [stats["win_rate"]], "*", ms=13, color=colors[side], mec="black"
                    )
    label = wrap(first, 60)
    if len(groups) == 1:
        axes[0].set_xlabel(label)
        axes[0].set_ylabel("share of battles")
    else:
        fig.supxlabel(label, fontsize=10)
        fig.supylabel("share of battles", fontsize=10)
    handles, labels = axes[0].get_legend_handles_labels()
    fig.legend(handles, labels, loc="outside right upper", fontsize=9)
    what = "balance search" if kind == "balance" else "sweep"
    fig.suptitle(wrap(f"Who wins across the {what}: {summary['scenario']}", 90), fontsize=11)
    caption = (
        "Each side's win rate and the draws against the varied value, with 95% Wilson "
        "intervals (bands for numbers, whiskers for names). Every variant ran the same battle "
        "seeds, so differences between neighbouring values come from the change, not luck."
    )
    if len(groups) > 1:
        caption += f" One panel per {_iso(names[1])}."
    if any(r.baseline for r in grid):
        caption += f" The dotted line marks the scenario {AS_WRITTEN}."
    elif extra:
        caption += f" The scenario {AS_WRITTEN} is not one of the grid's values" + (
            ": its win rates are the stars." if numeric and len(groups) == 1 else "; see the table."
        )
    if kind == "balance":
        aim = _aim(summary)
        caption += " Only the values the search ran are shown."
        if aim.rate == "win":
            caption += (
                f" The dashed line is the aim, {_aim_text(aim)}; the circled value is the one "
                "the search chose."
            )
    return _save(fig, folder, "win_rate", "Who wins", caption)


def _aim(summary):
    """What a balance search aimed at (``summary["aim"]``; older summaries: a win rate)."""
    from .sweeps.targets import Aim

    aim = summary.get("aim")
    if aim:
        return Aim(aim["rate"], aim["value"], aim.get("op", "="), aim.get("who"))
    return Aim("win", summary["target"], "=", summary.get("side"))


def _aim_text(aim) -> str:
    op = {"=": "", "<=": "at most ", ">=": "at least "}[aim.op]
    return f"{aim.phrase} {op}{aim.value:.0%}"


def _mark_aim(ax, summary, xs, members, first) -> None:
    """The aim's line (dashed) and the chosen value (circled) on an axis of rates."""
    ax.axhline(summary["target"], color="black", lw=1, ls="--", label="aim")
    best = summary.get("best")
    if best is not None:
        x = _position(xs, members, best["value"], first)
        rate = best.get("rate", best["win_rate"])
        ax.plot([x], [rate], "o", ms=14, mfc="none", mec="black", mew=1.5)


def _aim_plot(summary, rows, names, colors, folder) -> Plot:
    """A balance search aimed at a rate other than a win rate (``runners down <= 0.3``): that
    rate against the searched values, the aim and the chosen value."""
    import matplotlib.pyplot as plt

    aim = _aim(summary)
    first = names[0]
    xs, numeric = _axis(rows, first)
    rates = [aim.of(r.summary) for r in rows]
    side = aim.side_of(rows[0].summary) if aim.rate != "draw" else None
    color = colors.get(side, NEUTRAL) if side else DRAW_COLOR
    fig, ax = plt.subplots(figsize=(9, 4.4), layout="constrained")
    ys = [math.nan if r is None else r for r, _ in rates]
    lows = [math.nan if c is None else c[0] for _, c in rates]
    highs = [math.nan if c is None else c[1] for _, c in rates]
    if numeric:
        ax.plot(xs, ys, "-o", color=color, ms=4, label=aim.phrase)
        ax.fill_between(xs, lows, highs, color=color, alpha=0.18, lw=0)
    else:
        below = [max(0.0, y - lo) for y, lo in zip(ys, lows, strict=True)]
        above = [max(0.0, hi - y) for y, hi in zip(ys, highs, strict=True)]
        ax.errorbar(xs, ys, yerr=[below, above], fmt="o", color=color, capsize=4, label=aim.phrase)
        _categories(ax, rows, first)
    _mark_aim(ax, summary, xs, rows, first)
    ax.set_ylim(-0.02, 1.04)
    ax.yaxis.set_major_formatter(_percent())
    ax.grid(alpha=0.3)
    ax.set_xlabel(wrap(first, 60))
    ax.set_ylabel("share of battles")
    fig.legend(*ax.get_legend_handles_labels(), loc="outside right upper", fontsize=9)
    ax.set_title(wrap(f"The aim: {_aim_text(aim)}", 80), fontsize=11)
    what = {"down": "ended down (out of the fight)", "dead": "ended dead", "draw": "were drawn"}
    subject = "the battle" if aim.rate == "draw" else aim.who
    if side == aim.who and aim.rate in ("down", "dead"):
        subject = f"anyone of {aim.who}"
    caption = (
        f"The share of battles in which {subject} {what.get(aim.rate, aim.rate)}"
        ", against the searched values, with its 95% Wilson interval. The dashed line is the "
        "aim; the circled value is the one the search chose."
    )
    return _save(fig, folder, "aim", "The aim", caption)


def _in_grid(row: Row, rows: list[Row], names: list[str]) -> bool:
    """Whether another row has the same varied values (the baseline repeating a grid cell)."""
    return any(o is not row and all(o.values[n] == row.values[n] for n in names) for o in rows)


def _off_grid(summary) -> bool:
    return not (summary.get("baseline") or {}).get("in_grid", True)


def _series(ax, xs, rows, side, color, label, numeric: bool) -> None:
    rates, lows, highs = [], [], []
    for r in rows:
        stats = r.summary["draws"] if side is None else r.summary["sides"].get(side)
        rate = None if stats is None else (stats["rate"] if side is None else stats["win_rate"])
        if rate is None:
            rates.append(math.nan)
            lows.append(math.nan)
            highs.append(math.nan)
            continue
        rates.append(rate)
        lows.append(stats["ci95"][0])
        highs.append(stats["ci95"][1])
    if numeric:
        ax.plot(xs, rates, "-o", color=color, label=label, ms=4)
        ax.fill_between(xs, lows, highs, color=color, alpha=0.18, lw=0)
    else:
        below = [max(0.0, r - lo) for r, lo in zip(rates, lows, strict=True)]
        above = [max(0.0, hi - r) for r, hi in zip(rates, highs, strict=True)]
        ax.errorbar(
            xs, rates, yerr=[below, above], fmt="o", color=color, label=label, capsize=4, ms=5
        )


def _axis(rows, name) -> tuple[list, bool]:
    values = [r.values[name] for r in rows]
    numeric = all(isinstance(v, int | float) and not isinstance(v, bool) for v in values)
    if numeric:
        return values, True
    order = _unique(values)
    return [order.index(v) for v in values], False


def _dodge(xs, k: int, count: int) -> list[float]:
    """Series ``k`` of ``count`` sharing category positions, shifted so none hides another."""
    width = min(0.6, 0.15 * count)
    step = width / max(count - 1, 1)
    return [x - width / 2 + k * step if count > 1 else x for x in xs]


def _categories(ax, rows, name) -> None:
    labels = _unique(r.values[name] for r in rows)
    ax.set_xticks(range(len(labels)))
    ax.set_xticklabels(
        [_wrap_label(_value(v), 14) for v in labels],
        rotation=30 if len(labels) > 5 else 0,
        ha="right" if len(labels) > 5 else "center",
    )
    ax.set_xlim(-0.6, len(labels) - 0.4)


def _position(xs, rows, value, name):
    for x, r in zip(xs, rows, strict=True):
        if r.values[name] == value:
            return x
    return value


# --- heatmap and difference -------------------------------------------------------------------


def _heatmap(rows, names, focus, folder) -> Plot:
    import matplotlib.pyplot as plt
    import numpy as np
    from matplotlib.patches import Rectangle

    first, second = names
    off_grid = any(r.baseline for r in rows) and not any(
        r.baseline and _in_grid(r, rows, names) for r in rows
    )
    grid_rows = [r for r in rows if not (r.baseline and off_grid)]
    ys = _unique(r.values[first] for r in grid_rows)
    xs = _unique(r.values[second] for r in grid_rows)
    grid = np.full((len(ys), len(xs)), np.nan)
    text = [[""] * len(xs) for _ in ys]
    marked = None
    draws_any = any(r.summary["draws"]["count"] for r in grid_rows)
    for r in grid_rows:
        stats = r.summary["sides"].get(focus)
        if stats is None or stats["win_rate"] is None:
            continue
        i, j = ys.index(r.values[first]), xs.index(r.values[second])
        if text[i][j]:  # the baseline repeating a grid cell's values: the grid row wins
            continue
        grid[i, j] = stats["win_rate"]
        half = max(stats["win_rate"] - stats["ci95"][0], stats["ci95"][1] - stats["win_rate"])
        text[i][j] = f"{stats['win_rate']:.0%}\n±{half * 100:.0f}"
        if draws_any:
            text[i][j] += f"\ndraws {r.summary['draws']['rate']:.0%}"
        if r.baseline:
            marked = (i, j)
    fig, ax = plt.subplots(
        figsize=(3.2 + 1.3 * len(xs), 1.8 + (0.95 if draws_any else 0.75) * len(ys)),
        layout="constrained",
    )
    image = ax.imshow(grid, cmap="RdBu", vmin=0, vmax=1, aspect="auto")
    for i in range(len(ys)):
        for j in range(len(xs)):
            dark = not math.isnan(grid[i, j]) and abs(grid[i, j] - 0.5) > 0.3
            ax.text(
                j,
                i,
                text[i][j],
                ha="center",
                va="center",
                fontsize=8.5,
                color="white" if dark else "black",
            )
    if marked is not None:
        i, j = marked
        ax.add_patch(Rectangle((j - 0.5, i - 0.5), 1, 1, fill=False, ec="black", lw=2.5))
    ax.set_xticks(range(len(xs)))
    ax.set_xticklabels([_wrap_label(_value(x), 14) for x in xs], rotation=20, ha="right")
    ax.set_yticks(range(len(ys)))
    ax.set_yticklabels([_wrap_label(_value(y), 18) for y in ys])
    ax.set_xlabel(wrap(second, 40))
    ax.set_ylabel(wrap(first, 30))
    fig.colorbar(image, ax=ax, format=_percent(), label=wrap(f"{focus} win rate", 30))
    ax.set_title(wrap(f"{focus} win rate: {first} x {second}", 50), fontsize=11)
    caption = (
        f"Win rate of {_iso(focus)} for every {_iso(first)} and {_iso(second)}; below each rate, "
        "how far its 95% "
        "interval reaches (in percentage points)"
        + (", then the share of draws" if draws_any else "")
        + ". Blue: the side wins more often than not."
        + (f" The framed cell is the scenario {AS_WRITTEN}." if marked is not None else "")
        + " Another side: combatsim report DIR --side NAME."
    )
    return _save(fig, folder, "heatmap", f"{_iso(first)} x {_iso(second)}", caption)


def _difference_plot(summary, colors, folder) -> Plot:
    import matplotlib.pyplot as plt

    rows = [d for d in summary["differences"] if d["difference"] is not None]
    fig, ax = plt.subplots(figsize=(8, 1.6 + 0.6 * len(rows)), layout="constrained")
    for k, d in enumerate(rows):
        color = DRAW_COLOR if d["side"] == "draws" else colors.get(d["side"], NEUTRAL)
        low, high = d["ci95"]
        ax.plot([low * 100, high * 100], [k, k], color=color, lw=4, solid_capstyle="butt")
        ax.plot(
            [d["difference"] * 100],
            [k],
            "o",
            ms=8,
            color=color if d["significant"] else "white",
            mec=color,
            mew=2,
        )
    ax.axvline(0, color="black", lw=1)
    ax.set_yticks(range(len(rows)))
    ax.set_yticklabels(
        [
            _wrap_label(d["side"]) + ("\nsignificant" if d["significant"] else "\ncould be noise")
            for d in rows
        ]
    )
    ax.invert_yaxis()
    reach = max([abs(v) * 100 for d in rows for v in d["ci95"]] + [1.0])
    ax.set_xlim(-reach * 1.15, reach * 1.15)
    ax.set_xlabel("B - A, percentage points")
    ax.grid(axis="x", alpha=0.3)
    ax.set_title("Difference in win rate, B - A, with 95% paired interval", fontsize=11)
    caption = (
        "Each side's win rate, and the share of draws, in B minus A, with Newcombe's 95% "
        "interval for paired proportions (battle i of A and of B start from the same seed). "
        "A filled dot: the interval excludes 0, a significant difference; a hollow dot: it "
        "could be noise."
    )
    return _save(fig, folder, "difference", "Difference B - A", caption)


# --- casualties -------------------------------------------------------------------------------


def _casualties(summary, folder: Path) -> list[dict] | None:
    """For each side (anyone of it) and each combatant (a group's copies together): how often
    it ends down (out of the fight) and dead, with 95% intervals.

    From ``summary.json``'s ``casualties`` when the run wrote them (levels ``side`` and
    ``combatant``, each group's per-copy entries kept under it as ``copy_entries`` for the
    table; the chart shows the group), else counted from
    ``combatants.csv`` for an older folder: down is ``standing`` false at the end, dead is
    status ``dead``; each name is a combatant there (copies are not grouped)."""
    listed = summary.get("casualties")
    if listed:
        named = []
        for c in listed:
            if c.get("level") in ("side", "combatant"):
                named.append(dict(c))
            elif c.get("level") == "copy" and named and named[-1]["level"] == "combatant":
                named[-1]["copies"] = named[-1].get("copies", 0) + 1
                named[-1].setdefault("copy_entries", []).append(dict(c))
        return named or None
    path = folder / COMBATANTS_CSV
    if not path.exists():
        return None
    import pandas as pd

    wanted = ("battle", "name", "side", "status", "standing")
    frame = pd.read_csv(path, usecols=lambda c: c in wanted)
    if frame.empty or not set(wanted) <= set(frame.columns):
        return None
    frame["down"] = ~frame["standing"].astype(bool)
    frame["dead"] = frame["status"] == "dead"
    battles = int(frame["battle"].nunique())
    out = []
    for side, rows in frame.groupby("side", sort=False):
        per_battle = rows.groupby("battle")[["down", "dead"]].any()
        out.append(_casualty(side, side, "side", per_battle, battles))
        for name, mine in rows.groupby("name", sort=False):
            out.append(_casualty(side, name, "combatant", mine.set_index("battle"), battles))
    return out


def _casualty(side: str, who: str, level: str, frame, battles: int) -> dict[str, Any]:
    from .stats import wilson_interval

    down, dead = int(frame["down"].sum()), int(frame["dead"].sum())
    return {
        "side": side,
        "who": who,
        "level": level,
        "battles": battles,
        "down_rate": down / battles,
        "down_ci95": list(wilson_interval(down, battles)),
        "dead_rate": dead / battles,
        "dead_ci95": list(wilson_interval(dead, battles)),
    }


def _who(c: dict) -> str:
    """How a casualty entry reads: a side's entry is "anyone of" it."""
    if c.get("level") == "side":
        return f"anyone of {c['side']}"
    copies = f", any of {c['copies']}" if c.get("copies") else ""
    return f"{c['who']}{copies} ({c['side']})"


def _casualty_plot(casualties: list[dict], colors, folder) -> Plot:
    import matplotlib.pyplot as plt
    from matplotlib.patches import Patch

    rows = casualties
    fig, ax = plt.subplots(figsize=(9, 1.6 + 0.42 * len(rows)), layout="constrained")
    for k, c in enumerate(rows):
        color = colors.get(c["side"], NEUTRAL)
        _bar(ax, k, c["down_rate"], *c["down_ci95"], color, height=0.75, alpha=0.45)
        ax.barh(k, c["dead_rate"], height=0.35, color=color)
        low, high = c["dead_ci95"]
        ax.errorbar(
            c["dead_rate"],
            k,
            xerr=[[max(0.0, c["dead_rate"] - low)], [max(0.0, high - c["dead_rate"])]],
            fmt="none",
            ecolor=NEUTRAL,
            elinewidth=1,
            capsize=2,
        )
    ax.set_yticks(range(len(rows)))
    ax.set_yticklabels([_wrap_label(_who(c), 34) for c in rows], fontsize=9)
    ax.invert_yaxis()
    _rate_axis(ax)
    ax.set_xlabel("share of battles, with 95% interval")
    handles = [
        Patch(facecolor=NEUTRAL, alpha=0.45, label="ends down\n(out of the fight)"),
        Patch(facecolor=NEUTRAL, label="ends dead"),
    ]
    fig.legend(handles=handles, loc="outside right upper", fontsize=9)
    ax.set_title("How often each combatant goes down, and dies", fontsize=11)
    caption = (
        "For each side (anyone of it: the side lost someone) and each combatant (a group of "
        "copies together: any of them), the share of battles it ended down (out of the fight: "
        "unconscious, dying, dead or fled; wide pale bar, percentage written) and dead (narrow "
        "dark bar), each with its 95% Wilson interval."
    )
    return _save(fig, folder, "casualties", "Casualties", caption)


# --- distributions ----------------------------------------------------------------------------


def _panels(count: int, height=None, rows=None, sharex=False, sharey=False):
    """A grid of up to ``MAX_PANELS`` panels, ``COLUMNS`` a line, constrained layout."""
    import matplotlib.pyplot as plt
    from matplotlib.ticker import MaxNLocator

    shown = min(count, MAX_PANELS)
    cols = min(COLUMNS, shown)
    lines = math.ceil(shown / cols)
    tallest = 2.6
    if height is not None:
        tallest = max(height(r) for r in (rows or [None])[:shown])
    size = (4.1 * cols, tallest * lines + 0.9) if shown > 1 else (8.0, 4.2)
    fig, axes = plt.subplots(
        lines,
        cols,
        figsize=size,
        sharex=sharex,
        sharey=sharey,
        squeeze=False,
        layout="constrained",
    )
    flat = [ax for line in axes for ax in line]
    for ax in flat[shown:]:
        ax.set_visible(False)
    for ax in flat[:shown]:
        ax.xaxis.set_major_locator(MaxNLocator(integer=True))
    return fig, flat[:shown]


def _legend(fig, axes, per_panel: bool) -> None:
    """One legend outside the panels when every panel shows the same sides; else a small
    legend inside each panel (a batch: every scenario has its own sides)."""
    if per_panel:
        for ax in axes:
            if ax.get_legend_handles_labels()[0]:
                ax.legend(fontsize=7, loc="best", framealpha=0.8)
        return
    handles, labels = axes[0].get_legend_handles_labels()
    if handles:
        fig.legend(handles, labels, loc="outside right upper", fontsize=9)


def _same_sides(rows) -> bool:
    return len({tuple(_row_sides(r)) for r in rows}) == 1


def _standing_plot(rows, colors, folder) -> Plot | None:
    usable = [r for r in rows if r.summary["distributions"]["standing"]]
    if not usable:
        return None
    fig, axes = _panels(len(usable), sharex=True, sharey=True)
    for ax, r in zip(axes, usable, strict=False):
        standing = r.summary["distributions"]["standing"]
        n = r.summary["battles_completed"]
        for side in _row_sides(r):
            if side not in standing:
                continue
            curve = standing[side]
            total = curve["fighters"] * n
            shares = [c / total if total else 0 for c in curve["by_turn"]]
            ax.plot(range(len(shares)), shares, color=colors[side], label=side)
        if len(rows) > 1:
            ax.set_title(r.title(), fontsize=8.5)
        ax.grid(alpha=0.3)
        ax.set_ylim(0, 1.02)
        ax.yaxis.set_major_formatter(_percent())
    _legend(fig, axes, not _same_sides(usable))
    fig.supxlabel("turn", fontsize=10)
    fig.supylabel("fighters standing", fontsize=10)
    fig.suptitle("Share of each side still standing, by turn", fontsize=11)
    caption = (
        "For each side, the share of its fighters still able to act at the end of each turn, "
        "over all battles (a finished battle counts with its final state)." + _more(len(usable))
    )
    return _save(fig, folder, "standing", "Still standing by turn", caption)


def _turns_plot(rows, colors, folder) -> Plot:
    fig, axes = _panels(len(rows), sharex=True, sharey=True)
    for ax, r in zip(axes, rows, strict=False):
        counts = r.summary["distributions"]["turns"]
        n = sum(counts) or 1
        ax.bar(range(len(counts)), [c / n for c in counts], width=0.85, color=NEUTRAL)
        mean = r.summary["turns"]["mean"]
        if mean is not None:
            ax.axvline(mean, color="black", lw=1, ls="--")
        if len(rows) > 1:
            ax.set_title(r.title(), fontsize=8.5)
        ax.grid(alpha=0.3, axis="y")
        ax.yaxis.set_major_formatter(_percent())
    fig.supxlabel("battle length, turns", fontsize=10)
    fig.supylabel("share of battles", fontsize=10)
    fig.suptitle("Distribution of battle length", fontsize=11)
    caption = "Share of battles lasting each number of turns; the dashed line is the mean." + _more(
        len(rows)
    )
    return _save(fig, folder, "turns", "Battle length", caption)


def _damage_plot(rows, colors, folder) -> Plot | None:
    usable = [r for r in rows if r.summary["distributions"]["damage_taken"]]
    if not usable:
        return None
    fig, axes = _panels(len(usable), sharex=True, sharey=True)
    for ax, r in zip(axes, usable, strict=False):
        damage = r.summary["distributions"]["damage_taken"]
        for side in _row_sides(r):
            counts = damage.get(side)
            if not counts:
                continue
            total = sum(counts)
            ax.step(
                range(len(counts)),
                [c / total for c in counts],
                where="mid",
                color=colors[side],
                label=side,
            )
        if len(rows) > 1:
            ax.set_title(r.title(), fontsize=8.5)
        ax.grid(alpha=0.3)
        ax.yaxis.set_major_formatter(_percent())
    _legend(fig, axes, not _same_sides(usable))
    fig.supxlabel("damage taken in a battle, boxes", fontsize=10)
    fig.supylabel("share of combatants", fontsize=10)
    fig.suptitle("Distribution of damage taken per combatant", fontsize=11)
    caption = (
        "For each side, the share of its combatants that took each amount of damage in a "
        "battle (boxes of the condition monitors, as the rule system counts them)."
        + _more(len(usable))
    )
    return _save(fig, folder, "damage", "Damage taken", caption)


def _save(fig, folder: Path, name: str, title: str, caption: str) -> Plot:
    import matplotlib.pyplot as plt

    path = folder / f"{name}.png"
    save_figure(fig, path)
    plt.close(fig)
    return Plot(name, title, caption, path)


def _percent():
    from matplotlib.ticker import PercentFormatter

    return PercentFormatter(1.0, decimals=0)


def _more(count: int) -> str:
    if count <= MAX_PANELS:
        return ""
    return f" The first {MAX_PANELS} of {count} are shown."


def _unique(values) -> list:
    seen: dict = {}
    for v in values:
        seen.setdefault(v, None)
    return list(seen)


def wrap(text: str, width: int) -> str:
    """``text`` on lines of at most ``width`` characters where it can break: at spaces, and
    after the ``.``, ``=``, ``,`` and ``]`` of a field path (which has no spaces). Never cut: a
    piece longer than ``width`` keeps a line of its own."""
    pieces = re.findall(r"[^ .=,\]]*(?:[.=,\]]+ ?| |$)", str(text))
    lines, line = [], ""
    for piece in pieces:
        if not piece:
            continue
        if line and len(line + piece.rstrip()) > width:
            lines.append(line.rstrip())
            line = piece.lstrip()
        else:
            line += piece
    if line.strip():
        lines.append(line.rstrip())
    return "\n".join(lines) or str(text)


def _wrap_label(text: str, width: int = 22) -> str:
    return wrap(text, width)


def _missing(value: Any) -> bool:
    return value is None or (isinstance(value, float) and value != value)


def _value(value: Any) -> str:
    """A varied value as a reader wants it: 3 not 3.0; the as-written row's unknown value."""
    if value is None or (isinstance(value, float) and value != value):
        return AS_WRITTEN
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)


def _sides(rows: list[Row]) -> list[str]:
    """Side names in scenario order (``side_order``; older summaries: as stored)."""
    seen: dict[str, None] = {}
    for r in rows:
        seen.update(dict.fromkeys(_row_sides(r)))
    return list(seen)


# --- the page ---------------------------------------------------------------------------------

STYLE = """
body { font-family: system-ui, -apple-system, "Segoe UI", sans-serif; margin: 2em auto;
       max-width: 1100px; padding: 0 1em; color: #222; line-height: 1.45; }
h1 { font-size: 1.6em; margin-bottom: 0.2em; }
h2 { font-size: 1.2em; margin-top: 2em; border-bottom: 1px solid #ddd; padding-bottom: 0.2em; }
.meta { color: #555; }
.scroll { overflow-x: auto; }
table { border-collapse: collapse; margin: 1em 0; font-size: 0.92em; }
th, td { padding: 0.3em 0.7em; border-bottom: 1px solid #e4e4e4; text-align: right;
         vertical-align: top; }
th { background: #f4f4f4; }
td { white-space: nowrap; }
td.label { white-space: normal; }
td.nowrap { white-space: nowrap; }
td.label, th.label { text-align: left; }
td small { color: #666; white-space: nowrap; }
tr.best td, tr.baseline td { background: #fff6d6; }
tr.first td { border-top: 2px solid #ccc; }
.swatch { display: inline-block; width: 0.8em; height: 0.8em; border-radius: 2px;
          margin-right: 0.35em; vertical-align: baseline; }
.tag { font-size: 0.8em; background: #f0d98c; border-radius: 3px; padding: 0 0.3em; }
figure { margin: 1.5em 0; }
figure img { max-width: 100%; border: 1px solid #eee; }
figcaption { color: #555; font-size: 0.92em; margin-top: 0.4em; }
.note { background: #f7f7f7; padding: 0.7em 1em; border-left: 3px solid #bbb; font-size: 0.92em; }
"""


def _html(summary, rows, names, sides, plots, casualties=None) -> str:
    e = html.escape
    kind = summary.get("kind", "run")
    colors = side_colors(sides, _side_counts(rows))
    title, name = _heading(summary, rows)
    parts = [
        "<!DOCTYPE html>",
        '<html lang="en"><head><meta charset="utf-8">',
        f"<title>{e(title + (': ' + _iso(name) if name is not None else ''))}</title>",
        f"<style>{STYLE}</style></head><body>",
        f"<h1>{e(title)}{': ' + _n(name) if name is not None else ''}</h1>",
        f'<p class="meta">{e(_meta_line(summary, rows))}</p>',
    ]
    if summary.get("interrupted"):
        parts.append(
            '<p class="note"><b>Interrupted:</b> these are the battles that finished; '
            "resume the run to complete it.</p>"
        )
    parts += _headline(summary, colors)
    parts.append("<h2>Results</h2>")
    if kind == "runs":
        parts.append(_runs_table_html(rows, colors))
    else:
        parts.append(_table_html(summary, rows, names, sides, colors))
    for plot in plots:
        data = base64.b64encode(plot.path.read_bytes()).decode("ascii")
        parts.append(
            f'<figure id="{e(plot.name)}"><h2>{e(plot.title)}</h2>'
            f'<img alt="{e(plot.title)}" src="data:image/png;base64,{data}">'
            f"<figcaption>{e(plot.caption)}</figcaption></figure>"
        )
        if plot.name == "casualties":
            parts.append(_casualty_table_html(casualties, colors))
    parts.append("<h2>How to read this</h2>")
    parts.append(f'<p class="note">{e(_method_note(kind))}</p>')
    parts.append("</body></html>")
    return "\n".join(parts) + "\n"


def _heading(summary, rows) -> tuple[str, str | None]:
    """The page's title and the scenario's name it is about (None for a batch)."""
    kind = summary.get("kind", "run")
    if kind == "runs":
        return f"Batch of {len(rows)} scenario{'s' if len(rows) != 1 else ''}", None
    title = {
        "run": "Battle results",
        "sweep": "Sweep",
        "compare": "Comparison",
        "balance": "Balance search",
    }[kind]
    head = rows[0].summary if rows else summary
    return title, summary.get("scenario") or head.get("scenario", "")


def _meta_line(summary, rows) -> str:
    kind = summary.get("kind", "run")
    bits = []
    if kind == "runs":
        sources = [r.summary.get("source", "") for r in rows]
        folder = os.path.commonpath(sources) if sources and all(sources) else ""
        if folder and not folder.endswith((".yaml", ".yml")):
            bits.append(f"from {_iso(folder)}")
        systems = sorted({r.summary.get("system", "") for r in rows} - {""})
        if systems:
            bits.append("rule systems " + ", ".join(systems))
        bits.append(
            "each scenario under its own seed"
            if summary.get("seed") is None
            else f"seed {summary['seed']}"
        )
    elif summary.get("source"):
        bits.append(f"{_iso(summary['source'])} ({summary.get('system', '')})")
    if kind != "runs" and summary.get("seed") is not None:
        bits.append(f"seed {summary['seed']}")
    total = summary.get("battles_completed")
    per = "scenario" if kind == "runs" else "variant"
    if kind == "compare":
        bits.append(f"{total:,} battles each for A and B, run in pairs on the same seeds")
    elif kind != "run" and rows:
        counts = {r.summary["battles_completed"] for r in rows}
        if len(counts) == 1:
            bits.append(f"{counts.pop():,} battles per {per}, {total:,} in all")
        else:
            bits.append(f"{min(counts):,} to {max(counts):,} battles per {per}, {total:,} in all")
    else:
        bits.append(f"{total:,} battles")
    precision = summary.get("precision")
    if precision:
        state = "reached" if precision["reached"] else "not reached"
        bits.append(f"precision ±{precision['target']:g} {state}")
    return "; ".join(bits)


def _swatch(color: str) -> str:
    return f'<span class="swatch" style="background:{color}"></span>'


def _rate_cell(stats: dict | None, rate_key: str = "win_rate") -> str:
    if stats is None or stats.get(rate_key) is None:
        return "<td>–</td>"
    low, high = stats["ci95"]
    return f"<td>{stats[rate_key]:.1%} <small>({low:.1%}–{high:.1%})</small></td>"


def _headline(summary, colors) -> list[str]:
    e = html.escape
    kind = summary.get("kind", "run")
    if kind == "run" and summary.get("battles_completed"):
        bits = [
            f"{_swatch(colors[s])}<b>{_n(s)}</b> win {st['win_rate']:.1%} "
            f"<small>({st['ci95'][0]:.1%}–{st['ci95'][1]:.1%})</small>"
            for s, st in ((s, summary["sides"][s]) for s in colors if s in summary["sides"])
            if st["win_rate"] is not None
        ]
        d = summary["draws"]
        bits.append(
            f"{_swatch(DRAW_COLOR)}<b>draws</b> {d['rate']:.1%} "
            f"<small>({d['ci95'][0]:.1%}–{d['ci95'][1]:.1%})</small>"
        )
        return ["<p>" + "; ".join(bits) + ".</p>"]
    if kind == "balance" and summary.get("best"):
        best, aim = summary["best"], _aim(summary)
        rate = best.get("rate", best["win_rate"])
        if aim.op == "=":
            verdict = "holds" if best["target_in_interval"] else "does not hold"
            verdict = f"whose interval {verdict} the aim"
        else:
            verdict = "which keeps to the bound" if best.get("meets") else "which does not"
            verdict += " (no value did)" if not best.get("meets") else ""
        text = (
            f"<p><b>Aim: {e(_aim_text(aim))}.</b> The search chose "
            f"{_n(summary['vary']['name'])} = {_n(best['value'])}: {e(aim.phrase)} "
            f"{rate:.1%} (95% interval {best['ci95'][0]:.1%} – {best['ci95'][1]:.1%}), "
            f"{verdict}."
        )
        if aim.rate != "win" and best.get("win_rate") is not None and summary.get("side"):
            text += f" At that value {_n(summary['side'])} win {best['win_rate']:.1%}."
        target = summary["target"]
        across = [
            n
            for n in summary["neighbours"]
            if (n.get("rate", n["win_rate"]) - target) * (rate - target) < 0
        ]
        if aim.op == "=" and across and not best["target_in_interval"]:
            text += f" The aim lies between {_n(best['value'])} and {_n(across[0]['value'])}."
        return [text + "</p>"]
    if kind == "compare":
        out = ["<ul>"]
        for key in ("a", "b"):
            one = summary[key]
            what = f"{_n(one['scenario'])} ({_n(one['source'])})"
            if one.get("changes"):
                what += f" with {_n(one['changes'])}"
            out.append(f"<li><b>{key.upper()}:</b> {what}</li>")
        out.append("</ul>")
        out.append(
            "<div class='scroll'><table><tr><th class='label'>side</th><th>A</th><th>B</th>"
            "<th>B − A</th><th>95% interval</th><th>p</th><th class='label'>verdict</th></tr>"
        )
        for d in summary["differences"]:
            if d["difference"] is None:
                continue
            verdict = "significant" if d["significant"] else "not significant (could be noise)"
            color = DRAW_COLOR if d["side"] == "draws" else colors.get(d["side"], NEUTRAL)
            out.append(
                f"<tr><td class='label'>{_swatch(color)}{_n(d['side'])}</td>"
                f"<td>{_pct(d['a'])}</td><td>{_pct(d['b'])}</td>"
                f"<td>{d['difference'] * 100:+.1f} pts</td>"
                f"<td>{d['ci95'][0] * 100:+.1f} to {d['ci95'][1] * 100:+.1f}</td>"
                f"<td>{_p(d['p_value'])}</td><td class='label'>{verdict}</td></tr>"
            )
        out.append("</table></div>")
        return out
    return []


def _table_html(summary, rows, names, sides, colors) -> str:
    e = html.escape
    kind = summary.get("kind", "run")
    best = (summary.get("best") or {}).get("variant") if kind == "balance" else None
    labels = names or ["scenario"]
    head = "".join(f"<th class='label'>{_n(n)}</th>" for n in labels)
    head += "<th>battles</th>"
    head += "".join(f"<th>{_swatch(colors[s])}{_n(s)} wins</th>" for s in sides)
    head += f"<th>{_swatch(DRAW_COLOR)}draws</th><th>turns (mean)</th>"
    aim = _aim(summary) if kind == "balance" else None
    if aim is not None and aim.rate != "win":
        head += f"<th>{e(aim.phrase)} (the aim)</th>"
    ordered = sorted(rows, key=lambda r: not r.baseline) if kind == "sweep" else rows
    body = []
    for r in ordered:
        s = r.summary
        cells = ""
        for k, n in enumerate(labels):
            text = _n(_value(r.values.get(n)) if names else r.label)
            if r.baseline and k == 0:
                text += f" <span class='tag'>{AS_WRITTEN}</span>"
            cells += f"<td class='label'>{text}</td>"
        cells += f"<td>{s['battles_completed']:,}</td>"
        for side in sides:
            cells += _rate_cell(s["sides"].get(side))
        cells += _rate_cell(s["draws"], "rate")
        mean = s["turns"]["mean"]
        cells += f"<td>{'–' if mean is None else f'{mean:.1f}'}</td>"
        if aim is not None and aim.rate != "win":
            rate, interval = aim.of(s)
            cells += _rate_cell(None if rate is None else {"rate": rate, "ci95": interval}, "rate")
        mark = ""
        if best is not None and s.get("variant") == best:
            mark = " class='best'"
        elif r.baseline:
            mark = " class='baseline'"
        body.append(f"<tr{mark}>{cells}</tr>")
    note = ""
    if kind == "sweep" and any(r.baseline for r in rows):
        note = (
            f"<p class='meta'>The row marked <span class='tag'>{AS_WRITTEN}</span> is the "
            "scenario file unchanged, on the same battle seeds"
            + (
                "; it is also one of the grid's rows."
                if not _off_grid(summary)
                else "; it is not one of the grid's rows"
                + (
                    f" (a field it sets differently for different members reads {AS_WRITTEN})."
                    if any(r.baseline and any(map(_missing, r.values.values())) for r in rows)
                    else "."
                )
            )
            + "</p>"
        )
    return f"<div class='scroll'><table><tr>{head}</tr>{''.join(body)}</table></div>{note}"


def _runs_table_html(rows, colors) -> str:
    """A batch: one row per scenario and side, so the table is as wide as one scenario's."""
    e = html.escape
    head = (
        "<tr><th class='label'>scenario</th><th class='label'>system</th><th>battles</th>"
        "<th class='label'>side</th><th>wins</th><th>draws</th><th>turns (mean)</th></tr>"
    )
    body = []
    for r in rows:
        s = r.summary
        sides = _row_sides(r)
        span = f" rowspan='{len(sides)}'"
        mean = s["turns"]["mean"]
        for k, side in enumerate(sides):
            cells = ""
            if k == 0:
                cells += (
                    f"<td class='label'{span}>{_n(r.label)}</td>"
                    f"<td class='label nowrap'{span}>{e(s.get('system', ''))}</td>"
                    f"<td{span}>{s['battles_completed']:,}</td>"
                )
            cells += f"<td class='label'>{_swatch(colors[side])}{_n(side)}</td>"
            cells += _rate_cell(s["sides"].get(side))
            if k == 0:
                cells += _rate_cell(s["draws"], "rate").replace("<td>", f"<td{span}>", 1)
                cells += f"<td{span}>{'–' if mean is None else f'{mean:.1f}'}</td>"
            body.append(f"<tr{' class=first' if k == 0 else ''}>{cells}</tr>")
    return f"<div class='scroll'><table>{head}{''.join(body)}</table></div>"


def _casualty_table_html(casualties, colors) -> str:
    e = html.escape
    head = (
        "<tr><th class='label'>combatant</th><th class='label'>side</th>"
        "<th>ends down</th><th>ends dead</th></tr>"
    )
    body = []
    # a group's row, then each copy's indented under it (issue 11: group and every copy)
    rows = [
        r for c in casualties for r in [(c, False)] + [(k, True) for k in c.get("copy_entries", ())]
    ]
    for c, copy in rows:
        who = f"anyone of {_n(c['side'])}" if c.get("level") == "side" else _n(c["who"])
        if c.get("copies"):
            who += e(f" (any of {c['copies']})")
        indent = " style='padding-left:1.6em'" if copy else ""
        body.append(
            f"<tr><td class='label'{indent}>{who}</td>"
            f"<td class='label'>{_swatch(colors.get(c['side'], NEUTRAL))}{_n(c['side'])}</td>"
            + _rate_cell({"rate": c["down_rate"], "ci95": c["down_ci95"]}, "rate")
            + _rate_cell({"rate": c["dead_rate"], "ci95": c["dead_ci95"]}, "rate")
            + "</tr>"
        )
    return (
        f"<div class='scroll'><table>{head}{''.join(body)}</table></div>"
        "<p class='meta'>The share of battles each ended down (out of the fight) and dead, "
        "with 95% intervals; a group's copies are listed one by one under it.</p>"
    )


def _method_note(kind: str) -> str:
    text = (
        "Win rates are shown with 95% Wilson score intervals: intervals computed this way hold "
        "the true win rate (the one infinitely many battles would give) in 95 runs out of 100. "
        "A narrow interval needs many battles: its width shrinks with the square root of their "
        "number. "
    )
    if kind in ("sweep", "balance", "compare"):
        text += (
            "Every variant ran the same battle seeds (common random numbers): battle i of each "
            "variant starts from the same dice, so the differences between variants come from "
            "the change itself much more than from luck. "
        )
    if kind == "runs":
        text += "Each scenario ran under its own seed; its rows are independent of the others'. "
    if kind == "compare":
        text += (
            "The difference B − A is judged pair by pair: Newcombe's interval for paired "
            "proportions, and McNemar's exact test for the p-value. "
        )
    text += "Draws are battles that reached the turn limit or ended with nobody standing."
    return text


def _pct(x) -> str:
    return "–" if x is None else f"{x:.1%}"


def _p(p: float) -> str:
    return "&lt; 0.0001" if p < 0.0001 else f"{p:.4f}"
