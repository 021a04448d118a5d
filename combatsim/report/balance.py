"""The figure of a balance search aimed at a rate other than a win: that rate against the value."""

from __future__ import annotations

import math

from .figures import DRAW_COLOR, NEUTRAL, Plot, percent_axis, save_plot, wrap
from .results import aim_of, aim_text
from .sweep import category_axis, mark_aim, value_axis


def aim_plot(summary, rows, names, colors, folder) -> Plot:
    """A balance search aimed at a rate other than a win rate (``runners down <= 0.3``): that
    rate against the searched values, the aim and the chosen value."""
    import matplotlib.pyplot as plt

    aim = aim_of(summary)
    first = names[0]
    xs, numeric = value_axis(rows, first)
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
        category_axis(ax, rows, first)
    mark_aim(ax, summary, xs, rows, first)
    ax.set_ylim(-0.02, 1.04)
    ax.yaxis.set_major_formatter(percent_axis())
    ax.grid(alpha=0.3)
    ax.set_xlabel(wrap(first, 60))
    ax.set_ylabel("share of battles")
    fig.legend(*ax.get_legend_handles_labels(), loc="outside right upper", fontsize=9)
    ax.set_title(wrap(f"The aim: {aim_text(aim)}", 80), fontsize=11)
    what = {
        "down": "ended down (out of the fight or fled)",
        "dead": "ended dead",
        "draw": "were drawn",
    }
    subject = "the battle" if aim.rate == "draw" else aim.who
    if side == aim.who and aim.rate in ("down", "dead"):
        subject = f"anyone of {aim.who}"
    caption = (
        f"The share of battles in which {subject} {what.get(aim.rate, aim.rate)}"
        ", against the searched values, with its 95% Wilson interval. The dashed line is the "
        "aim; the circled value is the one the search chose."
    )
    return save_plot(fig, folder, "aim", "The aim", caption)
