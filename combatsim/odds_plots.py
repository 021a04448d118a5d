"""Pictures of exact odds: ``combatsim odds ... --plot FILE.png`` and ``--grid --plot``.

A distribution is drawn three ways side by side: the chance of exactly each outcome, of at
least it and of at most it (successes of a pool, the margin of a 2097 check, the degree of a
4D8 roll, the tier of a Lost Souls roll). A grid is a heatmap of the chance of success with
the percentages written in the cells. Everything comes from the exact distributions of
``combatsim.dice`` through ``combatsim.odds``; nothing here samples.
"""

from __future__ import annotations

import os
import re
from itertools import accumulate
from pathlib import Path
from typing import TYPE_CHECKING

from .errors import UsageError
from .folder import write_atomic
from .names import plots_text_as_written
from .odds import Grid

if TYPE_CHECKING:  # matplotlib is imported where a picture is drawn, not at start-up
    from types import ModuleType

    from matplotlib.figure import Figure
    from matplotlib.ticker import PercentFormatter

COLORS = ["#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#8c564b", "#e377c2"]
ANNOTATE_CELLS = 400  # write the percentage in each cell of grids up to this size


def cumulative(pmf: list[float]) -> tuple[list[float], list[float]]:
    """P(at least each outcome) and P(at most each outcome), outcomes in order."""
    at_most = list(accumulate(pmf))
    at_least = list(accumulate(reversed(pmf)))[::-1]
    return [min(1.0, x) for x in at_least], [min(1.0, x) for x in at_most]


@plots_text_as_written
def plot_distribution(
    title: str,
    outcome: str,
    values: list,
    series: dict[str, list[float]],
    path: str | os.PathLike,
    note: str | None = None,
) -> Path:
    """Exactly / at least / at most, one panel each; several series as lines. ``note``: where
    the odds' table comes from (Lost Souls: an invented approximation), under the title."""
    plt, percent = _pyplot()
    fig, axes = plt.subplots(1, 3, figsize=(13, 4.2), layout="constrained", sharey=True)
    numeric = all(isinstance(v, int) for v in values)
    if numeric:  # a number line: a value no roll gives (a 2097 margin of -10) has chance 0
        values, series = _every_number(values, series)
    xs = list(values) if numeric else list(range(len(values)))
    many = len(series) > 1
    if len(series) > len(COLORS):  # an ordered family (columns): a sequential colour map
        cmap = plt.get_cmap("viridis")
        colors = [cmap(k / (len(series) - 1)) for k in range(len(series))]
    else:
        colors = COLORS
    for k, (name, pmf) in enumerate(series.items()):
        at_least, at_most = cumulative(pmf)
        color = colors[k]
        for ax, ys in zip(axes, (pmf, at_least, at_most), strict=True):
            if many:
                ax.plot(xs, ys, marker="o", ms=3, color=color, label=name)
            else:
                ax.bar(xs, ys, color=color, width=0.8)
    for ax, view in zip(axes, ("exactly", "at least", "at most"), strict=True):
        ax.set_title(f"P({view} x)", fontsize=10)
        ax.grid(alpha=0.3, axis="y")
        ax.yaxis.set_major_formatter(percent)
        ax.set_ylim(0, 1.02)
        _outcome_axis(ax, values, numeric)
        ax.set_xlabel(outcome)
    if many:
        axes[0].legend(fontsize=7, ncol=2)
    fig.suptitle(_titled(title, note, 150))
    return _save(fig, path)


def _every_number(values: list[int], series: dict[str, list[float]]):
    """Every whole number from the lowest outcome to the highest, with chance 0 where no roll
    lands, so the bars stand at their values and "at least"/"at most" read across the gaps."""
    full = list(range(min(values), max(values) + 1))
    filled = {}
    for name, pmf in series.items():
        chance = dict(zip(values, pmf, strict=True))
        filled[name] = [chance.get(v, 0.0) for v in full]
    return full, filled


def _outcome_axis(ax, values: list, numeric: bool) -> None:
    """A number line with whole-number ticks matplotlib spaces to stay readable, or every
    name (tilted) for outcomes that are names."""
    if numeric:
        from matplotlib.ticker import MaxNLocator

        ax.xaxis.set_major_locator(MaxNLocator(nbins=10, integer=True))
        ax.set_xlim(min(values) - 0.7, max(values) + 0.7)
    else:
        ax.set_xticks(range(len(values)), [str(v) for v in values], rotation=45, ha="right")


@plots_text_as_written
def plot_grid(grid: Grid, path: str | os.PathLike, note: str | None = None) -> Path:
    """The grid as a heatmap of P(success), percentages in the cells; ``note`` as above."""
    plt, _ = _pyplot()
    width = max(5.0, 0.55 * len(grid.columns) + 2.5)
    height = max(3.5, 0.4 * len(grid.rows) + 1.8)
    fig, ax = plt.subplots(figsize=(width, height), layout="constrained")
    image = ax.imshow(grid.p, cmap="viridis", vmin=0, vmax=1, aspect="auto", origin="lower")
    ax.set_xticks(range(len(grid.columns)), [str(c) for c in grid.columns])
    ax.set_yticks(range(len(grid.rows)), [str(r) for r in grid.rows])
    ax.set_xlabel(grid.column_name)
    ax.set_ylabel(grid.row_name)
    if len(grid.rows) * len(grid.columns) <= ANNOTATE_CELLS:
        for i, row in enumerate(grid.p):
            for j, p in enumerate(row):
                ax.text(
                    j,
                    i,
                    _cell(p),
                    ha="center",
                    va="center",
                    fontsize=7,
                    color="black" if p > 0.6 else "white",
                )
    bar = fig.colorbar(image, ax=ax)
    bar.set_label("P(success)")
    ax.set_title(_titled(grid.title, note, int(width * 11)), fontsize=10)
    return _save(fig, path)


def _titled(title: str, note: str | None, width: int) -> str:
    """The title, then the table's note up to the sentence that says how it was made (the
    rest tells how to replace it: the CLI's text, not the picture's), wrapped."""
    if not note:
        return title
    import textwrap

    sentences = re.split(r"(?<=\.)\s+", " ".join(note.split()))
    shown = " ".join(sentences[:2])
    return title + "\n" + textwrap.fill(f"Table: {shown}", width)


def _cell(p: float) -> str:
    """A percentage that never rounds a possible outcome to 0% or a failure to 100%."""
    if 0 < p < 0.005:
        return "<1%"
    if 0.995 <= p < 1:
        return ">99%"
    return f"{p:.0%}"


def _pyplot() -> tuple[ModuleType, PercentFormatter]:
    import matplotlib

    matplotlib.use("Agg", force=True)
    import matplotlib.pyplot as plt
    from matplotlib.ticker import PercentFormatter

    return plt, PercentFormatter(1.0, decimals=0)


# Metadata that would make the same picture differ from run to run (a version, a date).
PLAIN = {
    "png": {"Software": None},
    "pdf": {"Creator": None, "Producer": None, "CreationDate": None},
    "svg": {"Date": None},
}


def _save(fig: Figure, path: str | os.PathLike) -> Path:
    """Write the picture in the format its suffix names, whole or not at all, as every result
    file is (``combatsim.folder.write_atomic``: a new temporary file beside it, renamed over
    it). A file that cannot be written (no such folder possible, no permission, a read-only or
    full disk) is one ``--plot`` error, however far the writing got."""
    import matplotlib.pyplot as plt

    path = Path(path)
    kind = path.suffix.lower().lstrip(".")
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        write_atomic(
            path,
            lambda out: fig.savefig(out, format=kind, dpi=110, metadata=PLAIN.get(kind)),
            binary=True,
        )
    except OSError as err:
        why = err.strerror or str(err)
        raise UsageError("--plot", str(path), f"a file that can be written ({why})") from None
    finally:
        plt.close(fig)
    return path
