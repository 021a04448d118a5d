"""What every figure of a report shares: the colours of the sides, panels, bars, axes, wrapped
labels, and how a figure is saved.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from pathlib import Path

from ..folder import write_atomic

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


@dataclass
class Plot:
    name: str
    title: str
    caption: str
    path: Path


def save_figure(fig, path: Path) -> Path:
    """A figure as PNG, written whole or not at all, never through a link."""
    return write_atomic(
        path, lambda f: fig.savefig(f, format="png", dpi=110, metadata={"Software": None}), True
    )


def side_colors(sides: list[str], counts: dict[str, int] | None = None) -> dict[str, str]:
    """One colour per side name, the same in every figure of a report. With ``counts`` (how
    many scenarios a name fights in), the commonest names get the first, strongest colours."""
    order = sorted(sides, key=lambda s: -(counts or {}).get(s, 1))  # stable: ties keep order
    colors = {side: PALETTE[k % len(PALETTE)] for k, side in enumerate(order)}
    return {side: colors[side] for side in sides}


def draw_bar(ax, y, rate, low, high, color, height=0.7, **kwargs) -> None:
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


def rate_axis(ax, label: bool = True) -> None:
    ax.set_xlim(0, 1.0)
    ax.xaxis.set_major_formatter(percent_axis())
    ax.grid(axis="x", alpha=0.3)
    ax.set_axisbelow(True)
    if label:
        ax.set_xlabel("share of battles, with 95% interval")


def make_panels(count: int, height=None, rows=None, sharex=False, sharey=False):
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


def add_legend(fig, axes, per_panel: bool) -> None:
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


def save_plot(fig, folder: Path, name: str, title: str, caption: str) -> Plot:
    import matplotlib.pyplot as plt

    path = folder / f"{name}.png"
    save_figure(fig, path)
    plt.close(fig)
    return Plot(name, title, caption, path)


def percent_axis():
    from matplotlib.ticker import PercentFormatter

    return PercentFormatter(1.0, decimals=0)


def more_note(count: int) -> str:
    if count <= MAX_PANELS:
        return ""
    return f" The first {MAX_PANELS} of {count} are shown."


def unique(values) -> list:
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


def wrap_label(text: str, width: int = 22) -> str:
    return wrap(text, width)
