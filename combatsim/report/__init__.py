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

For one scenario, the page also shows the exact odds of one attack for the attacks the
tactics made most often, beside the sampled casualty rates (``attacks``).

Readability rules every figure keeps: a side has one colour throughout the report (draws are
grey, anything not a side is a neutral dark grey); legends sit outside the data; labels and
titles are wrapped, never cut, and constrained layout keeps every text inside the figure
(``tests/test_report.py`` checks each one). matplotlib draws off-screen (Agg).

One module per kind of report: ``run`` (one scenario, or a batch of them), ``sweep``,
``balance``, ``compare``, and ``explain``, ``design`` and ``chain`` (each its own page);
``results`` reads the folder,
``figures`` holds what every figure shares and ``page`` writes the HTML. This module picks
the figures a folder's results call for.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from ..errors import UsageError, did_you_mean
from ..folder import fault, owns, write_atomic, writing
from ..names import plots_text_as_written
from ..output import SUMMARY_JSON
from .attacks import report_rows
from .balance import aim_plot
from .compare import bars_compare, difference_plot
from .figures import PLOT_NAMES, PLOTS_DIR, Plot, side_colors
from .page import page_html
from .results import aim_of, load_results, side_counts, sides_of
from .run import (
    bars_one,
    bars_panels,
    casualty_plot,
    damage_plot,
    load_casualties,
    standing_plot,
    turns_plot,
)
from .sweep import heatmap, lines_plot

REPORT_HTML = "report.html"


def _explain_summary(folder: Path, kind: str = "explain") -> dict[str, Any] | None:
    path = folder / SUMMARY_JSON
    if not path.exists():
        return None
    summary = json.loads(path.read_text(encoding="utf-8"))
    return summary if summary.get("kind") == kind else None


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


def _render(folder: Path, side: str | None) -> list[Path]:
    import matplotlib

    matplotlib.use("Agg", force=True)
    explained = _explain_summary(folder)
    if explained is not None:  # combatsim explain: its own page (report/explain.py)
        from .explain import render_explain_report

        return render_explain_report(folder, explained)
    designed = _explain_summary(folder, "design")
    if designed is not None:  # combatsim design: its own page (report/design.py)
        from .design import render_design_report

        return render_design_report(folder, designed)
    chained = _explain_summary(folder, "chain")
    if chained is not None:  # combatsim chain: its own page (report/chain.py)
        from .chain import render_chain_report

        return render_chain_report(folder, chained)
    summary, rows, names = load_results(folder)
    sides = sides_of(rows)
    if side is not None and side not in sides:
        raise UsageError("--side", side, "one of " + ", ".join(sides), did_you_mean(side, sides))
    focus = side or (summary.get("side") if summary.get("kind") == "balance" else None) or sides[0]
    colors = side_colors(sides, side_counts(rows))
    plots_dir = folder / PLOTS_DIR
    plots_dir.mkdir(parents=True, exist_ok=True)
    for stale in PLOT_NAMES:  # a plot this run does not draw must not linger from an older one
        if owns(plots_dir / f"{stale}.png"):
            (plots_dir / f"{stale}.png").unlink(missing_ok=True)
    finished = [r for r in rows if r.summary["battles_completed"]]
    single = summary.get("kind", "run") == "run"
    casualties = load_casualties(summary, folder) if single else None
    attacks = report_rows(summary, folder) if single and summary.get("source") else None
    plots: list[Plot] = []
    if finished:
        plots.append(win_rate_plot(summary, finished, names, colors, plots_dir))
        if summary.get("kind") == "balance" and aim_of(summary).rate != "win":
            plots.append(aim_plot(summary, finished, names, colors, plots_dir))
        if summary.get("kind") == "sweep" and len(names) == 2:
            plots.append(heatmap(summary, finished, names, focus, plots_dir))
        if summary.get("kind") == "compare":
            plots.append(difference_plot(summary, colors, plots_dir))
        if casualties:
            plots.append(casualty_plot(casualties, colors, plots_dir))
        for make in (standing_plot, turns_plot, damage_plot):
            plot = make(finished, colors, plots_dir)
            if plot is not None:
                plots.append(plot)
    page = folder / REPORT_HTML
    text = page_html(summary, rows, names, sides, plots, casualties, attacks)
    write_atomic(page, lambda f: f.write(text))
    return [p.path for p in plots] + [page]


def win_rate_plot(summary, rows, names, colors, folder) -> Plot:
    kind = summary.get("kind", "run")
    if kind == "run":
        return bars_one(rows[0], colors, folder)
    if kind == "runs":
        return bars_panels(rows, colors, folder)
    if kind == "compare":
        return bars_compare(rows, colors, folder)
    return lines_plot(summary, rows, names, colors, folder)
