"""The figures of a sweep (and a balance search's value axis): win rate against the varied value,
one panel per value of a second field, and the heatmap of two varied fields.
"""

from __future__ import annotations

import math

from ..names import isolated as _iso
from .figures import (
    DRAW_COLOR,
    MAX_PANELS,
    NEUTRAL,
    Plot,
    make_panels,
    percent_axis,
    save_plot,
    unique,
    wrap,
    wrap_label,
)
from .results import AS_WRITTEN, Row, aim_of, aim_text, off_grid, sides_of, value_text


def lines_plot(summary, rows, names, colors, folder) -> Plot:
    """A sweep or a balance search: rates against the first varied value, one panel per value
    of a second varied field, every side and the draws in each."""
    import matplotlib.pyplot as plt
    from matplotlib.ticker import MaxNLocator

    first = names[0]
    grid = [r for r in rows if not (r.baseline and off_grid(summary))]
    extra = [r for r in rows if r.baseline and off_grid(summary)]
    groups = panel_groups(grid, names)
    sides = sides_of(rows)
    if len(groups) == 1:
        fig, ax = plt.subplots(figsize=(9, 4.8), layout="constrained")
        axes = [ax]
    else:
        fig, axes = make_panels(len(groups), height=lambda _: 2.8, sharex=True, sharey=True)
    xs_all, numeric = value_axis(grid, first)
    for ax, (title, members) in zip(axes, groups, strict=False):
        xs = [xs_all[grid.index(r)] for r in members]
        _rate_lines(ax, xs, members, sides, colors, numeric)
        if not numeric:
            category_axis(ax, grid, first)
        elif all(float(x).is_integer() for x in xs_all):  # a count or a rating: no 2.25 ticks
            ax.xaxis.set_major_locator(MaxNLocator(integer=True))
        _mark_as_written(ax, xs, members)
        if title is not None:
            ax.set_title(wrap(title, 40), fontsize=9)
        ax.set_ylim(-0.02, 1.04)
        ax.yaxis.set_major_formatter(percent_axis())
        ax.grid(alpha=0.3)
        if summary.get("kind") == "balance" and aim_of(summary).rate == "win":
            mark_aim(ax, summary, xs, members, first)
    if extra and numeric and len(groups) == 1:
        _star_off_grid(axes[0], extra[0], first, sides, colors)
    label = wrap(first, 60)
    if len(groups) == 1:
        axes[0].set_xlabel(label)
        axes[0].set_ylabel("share of battles")
    else:
        fig.supxlabel(label, fontsize=10)
        fig.supylabel("share of battles", fontsize=10)
    handles, labels = axes[0].get_legend_handles_labels()
    fig.legend(handles, labels, loc="outside right upper", fontsize=9)
    what = "balance search" if summary.get("kind") == "balance" else "sweep"
    fig.suptitle(wrap(f"Who wins across the {what}: {summary['scenario']}", 90), fontsize=11)
    caption = _lines_caption(summary, grid, extra, names, numeric and len(groups) == 1)
    return save_plot(fig, folder, "win_rate", "Who wins", caption)


def panel_groups(grid: list[Row], names) -> list[tuple[str | None, list[Row]]]:
    """The panels of a sweep's lines: one, or one per value of a second varied field."""
    if len(names) != 2:
        return [(None, grid)]
    groups: list[tuple[str | None, list[Row]]] = [
        (f"{names[1]} = {value_text(v)}", [r for r in grid if r.values[names[1]] == v])
        for v in unique(r.values[names[1]] for r in grid)
    ]
    return groups[:MAX_PANELS]


def _rate_lines(ax, xs, members, sides, colors, numeric: bool) -> None:
    """Every side's win rate and the draws (shown even at 0%: a reader should not have to
    wonder where they went); names on the axis are dodged so whiskers do not overlap."""
    count = len(sides) + 1
    for k, side in enumerate(sides):
        shifted = xs if numeric else dodge(xs, k, count)
        draw_series(ax, shifted, members, side, colors[side], side, numeric)
    shifted = xs if numeric else dodge(xs, count - 1, count)
    draw_series(ax, shifted, members, None, DRAW_COLOR, "draws", numeric)


def _mark_as_written(ax, xs, members) -> None:
    """A dotted line at the value the scenario file itself gives."""
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


def _star_off_grid(ax, row: Row, first, sides, colors) -> None:
    """The scenario as written, when its value is not one of the grid's: a star per side."""
    x = row.values[first]
    if x is None or x != x:  # no value, or NaN
        return
    for side in sides:
        stats = row.summary["sides"].get(side)
        if stats and stats["win_rate"] is not None:
            ax.plot([x], [stats["win_rate"]], "*", ms=13, color=colors[side], mec="black")


def _lines_caption(summary, grid, extra, names, stars: bool) -> str:
    caption = (
        "Each side's win rate and the draws against the varied value, with 95% Wilson "
        "intervals (bands for numbers, whiskers for names). Every variant ran the same battle "
        "seeds, so differences between neighbouring values come from the change, not luck."
    )
    if len(names) == 2 and len(panel_groups(grid, names)) > 1:
        caption += f" One panel per {_iso(names[1])}."
    if any(r.baseline for r in grid):
        caption += f" The dotted line marks the scenario {AS_WRITTEN}."
    elif extra:
        caption += f" The scenario {AS_WRITTEN} is not one of the grid's values" + (
            ": its win rates are the stars." if stars else "; see the table."
        )
    if summary.get("kind") == "balance":
        aim = aim_of(summary)
        caption += " Only the values the search ran are shown."
        if aim.rate == "win":
            caption += (
                f" The dashed line is the aim, {aim_text(aim)}; the circled value is the one "
                "the search chose."
            )
    return caption


def mark_aim(ax, summary, xs, members, first) -> None:
    """The aim's line (dashed) and the chosen value (circled) on an axis of rates."""
    ax.axhline(summary["target"], color="black", lw=1, ls="--", label="aim")
    best = summary.get("best")
    if best is not None:
        x = position_of(xs, members, best["value"], first)
        rate = best.get("rate", best["win_rate"])
        ax.plot([x], [rate], "o", ms=14, mfc="none", mec="black", mew=1.5)


def draw_series(ax, xs, rows, side, color, label, numeric: bool) -> None:
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


def value_axis(rows, name) -> tuple[list, bool]:
    values = [r.values[name] for r in rows]
    numeric = all(isinstance(v, int | float) and not isinstance(v, bool) for v in values)
    if numeric:
        return values, True
    order = unique(values)
    return [order.index(v) for v in values], False


def dodge(xs, k: int, count: int) -> list[float]:
    """Series ``k`` of ``count`` sharing category positions, shifted so none hides another."""
    width = min(0.6, 0.15 * count)
    step = width / max(count - 1, 1)
    return [x - width / 2 + k * step if count > 1 else x for x in xs]


def category_axis(ax, rows, name) -> None:
    labels = unique(r.values[name] for r in rows)
    ax.set_xticks(range(len(labels)))
    ax.set_xticklabels(
        [wrap_label(value_text(v), 14) for v in labels],
        rotation=30 if len(labels) > 5 else 0,
        ha="right" if len(labels) > 5 else "center",
    )
    ax.set_xlim(-0.6, len(labels) - 0.4)


def position_of(xs, rows, value, name):
    for x, r in zip(xs, rows, strict=True):
        if r.values[name] == value:
            return x
    return value


def heatmap_cells(summary, rows, names, focus):
    """The heatmap's rows and columns, each cell's rate and text, and the framed cell (the
    scenario as written, when its values are a grid cell: the same test as the lines' dotted
    line, from ``summary.json``'s ``baseline.in_grid``)."""
    import numpy as np

    first, second = names
    grid_rows = [r for r in rows if not (r.baseline and off_grid(summary))]
    ys = unique(r.values[first] for r in grid_rows)
    xs = unique(r.values[second] for r in grid_rows)
    grid = np.full((len(ys), len(xs)), np.nan)
    text = [[""] * len(xs) for _ in ys]
    marked = None
    draws_any = any(r.summary["draws"]["count"] for r in grid_rows)
    for r in grid_rows:
        stats = r.summary["sides"].get(focus)
        if stats is None or stats["win_rate"] is None:
            continue
        i, j = ys.index(r.values[first]), xs.index(r.values[second])
        if r.baseline:
            marked = (i, j)
        if text[i][j]:  # the baseline repeating a grid cell's values: the grid row wins
            continue
        grid[i, j] = stats["win_rate"]
        half = max(stats["win_rate"] - stats["ci95"][0], stats["ci95"][1] - stats["win_rate"])
        text[i][j] = f"{stats['win_rate']:.0%}\n±{half * 100:.0f}"
        if draws_any:
            text[i][j] += f"\ndraws {r.summary['draws']['rate']:.0%}"
    return ys, xs, grid, text, marked, draws_any


def heatmap(summary, rows, names, focus, folder) -> Plot:
    import matplotlib.pyplot as plt
    from matplotlib.patches import Rectangle

    first, second = names
    ys, xs, grid, text, marked, draws_any = heatmap_cells(summary, rows, names, focus)
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
    ax.set_xticklabels([wrap_label(value_text(x), 14) for x in xs], rotation=20, ha="right")
    ax.set_yticks(range(len(ys)))
    ax.set_yticklabels([wrap_label(value_text(y), 18) for y in ys])
    ax.set_xlabel(wrap(second, 40))
    ax.set_ylabel(wrap(first, 30))
    fig.colorbar(image, ax=ax, format=percent_axis(), label=wrap(f"{focus} win rate", 30))
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
    return save_plot(fig, folder, "heatmap", f"{_iso(first)} x {_iso(second)}", caption)
