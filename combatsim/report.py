"""``combatsim report DIR``: a run's or a sweep's results as PNG plots and one HTML page.

Reads ``DIR/summary.json`` (written by ``run``, ``sweep``, ``compare`` or ``balance``) and
writes ``DIR/plots/*.png`` and ``DIR/report.html``, which embeds the same images, so the page
is one self-contained file to open, mail or archive. Plots, as the results allow:

* ``win_rate.png``: win rate against the varied value with its 95% interval (a band for
  numbers, error bars for names); several scenarios or a comparison side by side;
* ``heatmap.png``: for two varied fields (weapon x armor), one side's win rate per cell;
* ``difference.png``: for a comparison, B - A per side with its paired interval;
* ``standing.png``: the share of each side's fighters still standing after each turn;
* ``turns.png``: the distribution of battle length;
* ``damage.png``: the distribution of damage taken per combatant, by side.

matplotlib draws off-screen (the Agg backend); nothing here needs a display.
"""

from __future__ import annotations

import base64
import html
import json
import math
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .errors import UsageError
from .output import SUMMARY_JSON

REPORT_HTML = "report.html"
PLOTS_DIR = "plots"
PLOT_NAMES = ("win_rate", "heatmap", "difference", "standing", "turns", "damage", "tornado")
MAX_PANELS = 16
COLORS = ["#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#8c564b", "#e377c2"]
DRAW_COLOR = "#7f7f7f"


@dataclass
class Row:
    """One variant of the results: its label, its varied values and its summary."""

    label: str
    values: dict[str, Any]
    summary: dict[str, Any]

    @property
    def panel_title(self) -> str:
        return "\n".join(_short(part, 38) for part in self.label.split(", "))


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
        rows = [
            Row(", ".join(f"{k}={s['values'][k]}" for k in names), s["values"], s)
            for s in summary["variants"]
        ]
        return summary, rows, names
    raise UsageError("DIR", str(folder), "the results of run, sweep, compare or balance")


def _explain_summary(folder: Path) -> dict[str, Any] | None:
    path = folder / SUMMARY_JSON
    if not path.exists():
        return None
    summary = json.loads(path.read_text(encoding="utf-8"))
    return summary if summary.get("kind") == "explain" else None


def render_report(folder: str | os.PathLike, side: str | None = None) -> list[Path]:
    """Write ``plots/*.png`` and ``report.html`` into ``folder``; return their paths.

    ``side``: the side whose win rate the heatmap and the lines per second value show
    (default: the first side).
    """
    import matplotlib

    matplotlib.use("Agg", force=True)
    folder = Path(folder)
    explained = _explain_summary(folder)
    if explained is not None:  # combatsim explain: its own page (report_explain.py)
        from .report_explain import render_explain_report

        return render_explain_report(folder, explained)
    summary, rows, names = load_results(folder)
    sides = _sides(rows)
    if side is not None and side not in sides:
        raise UsageError("--side", side, "one of " + ", ".join(sides))
    focus = side or (summary.get("side") if summary.get("kind") == "balance" else None) or sides[0]
    plots_dir = folder / PLOTS_DIR
    plots_dir.mkdir(parents=True, exist_ok=True)
    finished = [r for r in rows if r.summary["battles_completed"]]
    plots: list[Plot] = []
    if finished:
        plots.append(_win_rate_plot(summary, finished, names, sides, focus, plots_dir))
        if summary.get("kind") == "sweep" and len(names) == 2:
            plots.append(_heatmap(finished, names, focus, plots_dir))
        if summary.get("kind") == "compare":
            plots.append(_difference_plot(summary, plots_dir))
        standing = _standing_plot(finished, sides, plots_dir)
        if standing is not None:
            plots.append(standing)
        plots.append(_turns_plot(finished, plots_dir))
        damage = _damage_plot(finished, sides, plots_dir)
        if damage is not None:
            plots.append(damage)
    page = folder / REPORT_HTML
    temp = page.with_name(f".{page.name}.{os.getpid()}.tmp")
    temp.write_text(_html(summary, rows, names, sides, plots), encoding="utf-8")
    os.replace(temp, page)
    return [p.path for p in plots] + [page]


# --- plots ------------------------------------------------------------------------------------


def _win_rate_plot(summary, rows, names, sides, focus, folder) -> Plot:
    import matplotlib.pyplot as plt

    kind = summary.get("kind", "run")
    fig, ax = plt.subplots(figsize=(8, 4.6))
    caption = (
        "Win rate of each side with its 95% Wilson interval. Every variant ran the same battle "
        "seeds, so differences between neighbouring values come from the change, not from luck."
    )
    if kind in ("sweep", "balance") and len(names) == 1:
        xs, numeric = _axis(rows, names[0])
        draws = any(r.summary["draws"]["count"] for r in rows)
        count = len(sides) + draws
        for k, side in enumerate(sides):
            shifted = xs if numeric else _dodge(xs, k, count)
            _series(ax, shifted, rows, side, COLORS[k % len(COLORS)], side, numeric)
        if draws:
            shifted = xs if numeric else _dodge(xs, count - 1, count)
            _series(ax, shifted, rows, None, DRAW_COLOR, "draws", numeric)
        if not numeric:
            _categories(ax, rows, names[0])
        ax.set_xlabel(names[0])
        if kind == "balance":
            ax.axhline(summary["target"], color="black", lw=1, ls="--", label="target")
            best = summary.get("best")
            if best is not None:
                x = _position(xs, rows, best["value"], names[0])
                ax.plot([x], [best["win_rate"]], "o", ms=14, mfc="none", mec="black", mew=1.5)
            caption += (
                f" The dashed line is the target {summary['target']:.0%} for {summary['side']};"
                " the circled value is the closest. Only the values the search ran are shown."
            )
    elif kind == "sweep" and len(names) == 2:
        first, second = names
        xs, numeric = _axis(rows, first)
        seconds = _unique(r.values[second] for r in rows)
        for k, value in enumerate(seconds):
            subset = [r for r in rows if r.values[second] == value]
            sub_x = [xs[rows.index(r)] for r in subset]
            if not numeric:
                sub_x = _dodge(sub_x, k, len(seconds))
            _series(ax, sub_x, subset, focus, COLORS[k % len(COLORS)], f"{second}={value}", numeric)
        if not numeric:
            _categories(ax, rows, first)
        ax.set_xlabel(first)
        caption = (
            f"Win rate of {focus} against {first}, one line per {second}, with 95% Wilson "
            "intervals. Every variant ran the same battle seeds (common random numbers)."
        )
    else:
        positions = list(range(len(rows)))
        width = 0.8 / (len(sides) + 1)
        for k, side in enumerate(sides):
            offset = [p + (k - (len(sides) - 1) / 2) * width for p in positions]
            _series(ax, offset, rows, side, COLORS[k % len(COLORS)], side, False)
        ax.set_xticks(positions)
        if kind == "compare":
            ax.set_xticklabels([r.values["variant"] for r in rows])
        else:
            ax.set_xticklabels([_short(r.label, 28) for r in rows], rotation=20, ha="right")
        ax.set_xlim(-0.6, len(rows) - 0.4)
        if kind == "compare":
            caption = (
                "Win rate of each side in A and in B with 95% Wilson intervals; A and B ran "
                "the same battle seeds side by side (see the difference plot)."
            )
    ax.set_ylabel("win rate")
    ax.set_ylim(-0.02, 1.02)
    ax.yaxis.set_major_formatter(_percent())
    ax.grid(alpha=0.3)
    ax.legend(loc="best", fontsize=9)
    two_fields = kind == "sweep" and len(names) == 2
    ax.set_title(
        f"{focus} win rate with 95% interval" if two_fields else "Win rate with 95% interval"
    )
    if two_fields:
        ax.set_ylabel(f"{focus} win rate")
    return _save(fig, folder, "win_rate", "Win rate", caption)


def _series(ax, xs, rows, side, color, label, numeric: bool) -> None:
    rates, lows, highs = [], [], []
    for r in rows:
        stats = r.summary["draws"] if side is None else r.summary["sides"].get(side)
        if stats is None:
            rates.append(math.nan)
            lows.append(math.nan)
            highs.append(math.nan)
            continue
        rate = stats["rate"] if side is None else stats["win_rate"]
        rates.append(math.nan if rate is None else rate)
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
    ax.set_xticklabels([str(v) for v in labels], rotation=20 if len(labels) > 4 else 0)
    ax.set_xlim(-0.6, len(labels) - 0.4)


def _position(xs, rows, value, name):
    for x, r in zip(xs, rows, strict=True):
        if r.values[name] == value:
            return x
    return value


def _heatmap(rows, names, focus, folder) -> Plot:
    import matplotlib.pyplot as plt
    import numpy as np

    first, second = names
    ys, xs = _unique(r.values[first] for r in rows), _unique(r.values[second] for r in rows)
    grid = np.full((len(ys), len(xs)), np.nan)
    text = [[""] * len(xs) for _ in ys]
    for r in rows:
        stats = r.summary["sides"][focus]
        if stats["win_rate"] is None:
            continue
        i, j = ys.index(r.values[first]), xs.index(r.values[second])
        grid[i, j] = stats["win_rate"]
        half = max(stats["win_rate"] - stats["ci95"][0], stats["ci95"][1] - stats["win_rate"])
        text[i][j] = f"{stats['win_rate']:.0%}\n±{half * 100:.0f}"
    fig, ax = plt.subplots(figsize=(1.6 + 1.3 * len(xs), 1.2 + 0.75 * len(ys)))
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
                fontsize=9,
                color="white" if dark else "black",
            )
    ax.set_xticks(range(len(xs)))
    ax.set_xticklabels([str(x) for x in xs], rotation=20, ha="right")
    ax.set_yticks(range(len(ys)))
    ax.set_yticklabels([str(y) for y in ys])
    ax.set_xlabel(second)
    ax.set_ylabel(first)
    fig.colorbar(image, ax=ax, format=_percent(), label=f"{focus} win rate")
    ax.set_title(f"{focus} win rate: {first} x {second}")
    caption = (
        f"Win rate of {focus} for every {first} and {second}; below each rate, how far its 95% "
        "interval reaches (in percentage points). Blue: the side wins more often than not."
    )
    return _save(fig, folder, "heatmap", f"{first} x {second}", caption)


def _difference_plot(summary, folder) -> Plot:
    import matplotlib.pyplot as plt

    rows = summary["differences"]
    fig, ax = plt.subplots(figsize=(7, 1.2 + 0.6 * len(rows)))
    for k, d in enumerate(rows):
        if d["difference"] is None:
            continue
        color = "#d62728" if d["significant"] else "#7f7f7f"
        low, high = d["ci95"]
        ax.plot([low * 100, high * 100], [k, k], color=color, lw=3)
        ax.plot([d["difference"] * 100], [k], "o", color=color)
    ax.axvline(0, color="black", lw=1)
    ax.set_yticks(range(len(rows)))
    ax.set_yticklabels([d["side"] for d in rows])
    ax.invert_yaxis()
    ax.set_xlabel("B - A, percentage points")
    ax.grid(axis="x", alpha=0.3)
    ax.set_title("Difference in win rate, B - A, with 95% paired interval")
    caption = (
        "Each side's win rate in B minus A, with Newcombe's 95% interval for paired "
        "proportions (battle i of A and of B start from the same seed). Red: the interval "
        "excludes 0, a significant difference; grey: it could be noise."
    )
    return _save(fig, folder, "difference", "Difference B - A", caption)


def _panels(count: int):
    import matplotlib.pyplot as plt

    shown = min(count, MAX_PANELS)
    cols = min(4, shown)
    lines = math.ceil(shown / cols)
    fig, axes = plt.subplots(
        lines,
        cols,
        figsize=(3.3 * cols, 2.5 * lines + 0.6),
        sharex=True,
        sharey=True,
        squeeze=False,
    )
    flat = [ax for line in axes for ax in line]
    for ax in flat[shown:]:
        ax.set_visible(False)
    return fig, flat[:shown]


def _standing_plot(rows, sides, folder) -> Plot | None:
    usable = [r for r in rows if r.summary["distributions"]["standing"]]
    if not usable:
        return None
    fig, axes = _panels(len(usable))
    for ax, r in zip(axes, usable, strict=False):
        standing = r.summary["distributions"]["standing"]
        n = r.summary["battles_completed"]
        for k, side in enumerate(sides):
            if side not in standing:
                continue
            curve = standing[side]
            total = curve["fighters"] * n
            shares = [c / total if total else 0 for c in curve["by_turn"]]
            ax.plot(range(len(shares)), shares, color=COLORS[k % len(COLORS)], label=side)
        ax.set_title(r.panel_title, fontsize=8)
        ax.grid(alpha=0.3)
        ax.yaxis.set_major_formatter(_percent())
    axes[0].legend(fontsize=8)
    fig.supxlabel("turn")
    fig.supylabel("fighters standing")
    fig.suptitle("Share of each side still standing, by turn")
    caption = (
        "For each side, the share of its fighters still able to act at the end of each turn, "
        "over all battles (a finished battle counts with its final state)." + _more(len(usable))
    )
    return _save(fig, folder, "standing", "Still standing by turn", caption)


def _turns_plot(rows, folder) -> Plot:
    fig, axes = _panels(len(rows))
    for ax, r in zip(axes, rows, strict=False):
        counts = r.summary["distributions"]["turns"]
        n = sum(counts) or 1
        ax.bar(range(len(counts)), [c / n for c in counts], width=0.85, color="#1f77b4")
        mean = r.summary["turns"]["mean"]
        if mean is not None:
            ax.axvline(mean, color="black", lw=1, ls="--")
        ax.set_title(r.panel_title, fontsize=8)
        ax.grid(alpha=0.3, axis="y")
        ax.yaxis.set_major_formatter(_percent())
    fig.supxlabel("battle length, turns")
    fig.supylabel("share of battles")
    fig.suptitle("Distribution of battle length")
    caption = "Share of battles lasting each number of turns; the dashed line is the mean." + _more(
        len(rows)
    )
    return _save(fig, folder, "turns", "Battle length", caption)


def _damage_plot(rows, sides, folder) -> Plot | None:
    usable = [r for r in rows if r.summary["distributions"]["damage_taken"]]
    if not usable:
        return None
    fig, axes = _panels(len(usable))
    for ax, r in zip(axes, usable, strict=False):
        damage = r.summary["distributions"]["damage_taken"]
        for k, side in enumerate(sides):
            counts = damage.get(side)
            if not counts:
                continue
            total = sum(counts)
            xs = list(range(len(counts)))
            ax.step(
                xs,
                [c / total for c in counts],
                where="mid",
                color=COLORS[k % len(COLORS)],
                label=side,
            )
        ax.set_title(r.panel_title, fontsize=8)
        ax.grid(alpha=0.3)
        ax.yaxis.set_major_formatter(_percent())
    axes[0].legend(fontsize=8)
    fig.supxlabel("damage taken, boxes")
    fig.supylabel("share of combatants")
    fig.suptitle("Distribution of damage taken per combatant")
    caption = (
        "For each side, the share of its combatants that took each amount of damage in a "
        "battle (boxes of the condition monitors, as the rule system counts them)."
        + _more(len(usable))
    )
    return _save(fig, folder, "damage", "Damage taken", caption)


def _save(fig, folder: Path, name: str, title: str, caption: str) -> Plot:
    import matplotlib.pyplot as plt

    fig.tight_layout()
    path = folder / f"{name}.png"
    fig.savefig(path, dpi=110, metadata={"Software": None})
    plt.close(fig)
    return Plot(name, title, caption, path)


def _percent():
    from matplotlib.ticker import PercentFormatter

    return PercentFormatter(1.0, decimals=0)


def _more(count: int) -> str:
    if count <= MAX_PANELS:
        return ""
    return f" The first {MAX_PANELS} of {count} variants are shown."


def _unique(values) -> list:
    seen: dict = {}
    for v in values:
        seen.setdefault(v, None)
    return list(seen)


def _short(text: str, width: int) -> str:
    return text if len(text) <= width else text[: width - 1] + "…"


def _sides(rows: list[Row]) -> list[str]:
    """Side names in scenario order (``side_order``; older summaries: as stored)."""
    seen: dict[str, None] = {}
    for r in rows:
        seen.update(dict.fromkeys(r.summary.get("side_order") or r.summary["sides"]))
    return list(seen)


# --- the page ---------------------------------------------------------------------------------

STYLE = """
body { font-family: system-ui, -apple-system, "Segoe UI", sans-serif; margin: 2em auto;
       max-width: 1100px; padding: 0 1em; color: #222; line-height: 1.45; }
h1 { font-size: 1.6em; margin-bottom: 0.2em; }
h2 { font-size: 1.2em; margin-top: 2em; border-bottom: 1px solid #ddd; padding-bottom: 0.2em; }
.meta { color: #555; }
table { border-collapse: collapse; margin: 1em 0; font-size: 0.92em; }
th, td { padding: 0.3em 0.7em; border-bottom: 1px solid #e4e4e4; text-align: right; }
th { background: #f4f4f4; }
td.label, th.label { text-align: left; }
tr.best td { background: #fff6d6; }
figure { margin: 1.5em 0; }
figure img { max-width: 100%; border: 1px solid #eee; }
figcaption { color: #555; font-size: 0.92em; margin-top: 0.4em; }
.note { background: #f7f7f7; padding: 0.7em 1em; border-left: 3px solid #bbb; font-size: 0.92em; }
"""


def _html(summary, rows, names, sides, plots) -> str:
    e = html.escape
    kind = summary.get("kind", "run")
    title = {
        "run": "Battle results",
        "runs": "Batch of scenarios",
        "sweep": "Sweep",
        "compare": "Comparison",
        "balance": "Balance search",
    }[kind]
    head = rows[0].summary if rows else summary
    scenario = summary.get("scenario") or head.get("scenario", "")
    parts = [
        "<!DOCTYPE html>",
        '<html lang="en"><head><meta charset="utf-8">',
        f"<title>{e(title)}: {e(str(scenario))}</title>",
        f"<style>{STYLE}</style></head><body>",
        f"<h1>{e(title)}: {e(str(scenario))}</h1>",
        f'<p class="meta">{e(_meta_line(summary, rows))}</p>',
    ]
    if summary.get("interrupted"):
        parts.append(
            '<p class="note"><b>Interrupted:</b> these are the battles that finished; '
            "resume the run to complete it.</p>"
        )
    parts += _headline(summary)
    parts.append("<h2>Results</h2>")
    parts.append(_table_html(summary, rows, names, sides))
    for plot in plots:
        data = base64.b64encode(plot.path.read_bytes()).decode("ascii")
        parts.append(
            f'<figure id="{e(plot.name)}"><h2>{e(plot.title)}</h2>'
            f'<img alt="{e(plot.title)}" src="data:image/png;base64,{data}">'
            f"<figcaption>{e(plot.caption)}</figcaption></figure>"
        )
    parts.append("<h2>How to read this</h2>")
    parts.append(f'<p class="note">{e(_method_note(kind))}</p>')
    parts.append("</body></html>")
    return "\n".join(parts) + "\n"


def _meta_line(summary, rows) -> str:
    bits = []
    if summary.get("source"):
        bits.append(f"{summary['source']} ({summary.get('system', '')})")
    if summary.get("seed") is not None:
        bits.append(f"seed {summary['seed']}")
    total = summary.get("battles_completed")
    if summary.get("kind") == "compare":
        bits.append(f"{total:,} battles each for A and B, run in pairs on the same seeds")
    elif summary.get("kind", "run") != "run" and rows:
        counts = {r.summary["battles_completed"] for r in rows}
        if len(counts) == 1:
            bits.append(f"{counts.pop():,} battles per variant, {total:,} in all")
        else:
            bits.append(f"{min(counts):,} to {max(counts):,} battles per variant, {total:,} in all")
    else:
        bits.append(f"{total:,} battles")
    precision = summary.get("precision")
    if precision:
        state = "reached" if precision["reached"] else "not reached"
        bits.append(f"precision ±{precision['target']:g} {state}")
    return "; ".join(bits)


def _headline(summary) -> list[str]:
    e = html.escape
    kind = summary.get("kind", "run")
    if kind == "balance" and summary.get("best"):
        best = summary["best"]
        holds = "holds" if best["target_in_interval"] else "does not hold"
        text = (
            f"<p><b>Closest to {summary['target']:.0%} for {e(summary['side'])}:</b> "
            f"{e(summary['vary']['name'])} = {e(str(best['value']))}, win rate "
            f"{best['win_rate']:.1%} (95% interval {best['ci95'][0]:.1%} – "
            f"{best['ci95'][1]:.1%}), which {holds} the target."
        )
        target = summary["target"]
        across = [
            n
            for n in summary["neighbours"]
            if (n["win_rate"] - target) * (best["win_rate"] - target) < 0
        ]
        if across and not best["target_in_interval"]:
            text += (
                f" The even point lies between {e(str(best['value']))} and "
                f"{e(str(across[0]['value']))}."
            )
        return [text + "</p>"]
    if kind == "compare":
        out = ["<ul>"]
        for key in ("a", "b"):
            one = summary[key]
            what = f"{one['scenario']} ({one['source']})"
            if one.get("changes"):
                what += f" with {one['changes']}"
            out.append(f"<li><b>{key.upper()}:</b> {e(what)}</li>")
        out.append("</ul>")
        out.append(
            "<table><tr><th class='label'>side</th><th>A</th><th>B</th><th>B − A</th>"
            "<th>95% interval</th><th>p</th><th class='label'>verdict</th></tr>"
        )
        for d in summary["differences"]:
            if d["difference"] is None:
                continue
            verdict = "significant" if d["significant"] else "not significant (could be noise)"
            out.append(
                f"<tr><td class='label'>{e(d['side'])}</td><td>{_pct(d['a'])}</td>"
                f"<td>{_pct(d['b'])}</td><td>{d['difference'] * 100:+.1f} pts</td>"
                f"<td>{d['ci95'][0] * 100:+.1f} to {d['ci95'][1] * 100:+.1f}</td>"
                f"<td>{_p(d['p_value'])}</td><td class='label'>{verdict}</td></tr>"
            )
        out.append("</table>")
        return out
    return []


def _table_html(summary, rows, names, sides) -> str:
    e = html.escape
    best = (summary.get("best") or {}).get("variant") if summary.get("kind") == "balance" else None
    labels = names or ["scenario"]
    head = "".join(f"<th class='label'>{e(n)}</th>" for n in labels)
    head += "<th>battles</th>" + "".join(f"<th>{e(s)} wins</th>" for s in sides)
    head += "<th>draws</th><th>turns (mean)</th>"
    body = []
    for r in rows:
        s = r.summary
        cells = "".join(
            f"<td class='label'>{e(str(r.values.get(n, r.label if not names else '')))}</td>"
            for n in labels
        )
        cells += f"<td>{s['battles_completed']:,}</td>"
        for side in sides:
            stats = s["sides"].get(side)
            if stats is None or stats["win_rate"] is None:
                cells += "<td>–</td>"
            else:
                cells += (
                    f"<td>{stats['win_rate']:.1%} <small>({stats['ci95'][0]:.1%}–"
                    f"{stats['ci95'][1]:.1%})</small></td>"
                )
        cells += f"<td>{_pct(s['draws']['rate'])}</td>"
        mean = s["turns"]["mean"]
        cells += f"<td>{'–' if mean is None else f'{mean:.1f}'}</td>"
        mark = " class='best'" if best is not None and s.get("variant") == best else ""
        body.append(f"<tr{mark}>{cells}</tr>")
    return f"<table><tr>{head}</tr>{''.join(body)}</table>"


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
