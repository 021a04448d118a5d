"""The figures of a comparison: A beside B, and B - A with its paired interval."""

from __future__ import annotations

from .figures import DRAW_COLOR, NEUTRAL, Plot, draw_bar, rate_axis, save_plot, wrap_label
from .results import Row, outcome_rates, row_sides


def bars_compare(rows: list[Row], colors, folder) -> Plot:
    import matplotlib.pyplot as plt
    from matplotlib.patches import Patch

    a, b = rows
    names = [o[0] for o in outcome_rates(a.summary, row_sides(a))]
    fig, ax = plt.subplots(figsize=(8, 1.6 + 0.75 * len(names)), layout="constrained")
    for k, name in enumerate(names):
        color = DRAW_COLOR if name == "draws" else colors[name]
        for offset, row, style in ((-0.19, a, {"alpha": 0.45}), (0.19, b, {})):
            found = [o for o in outcome_rates(row.summary, row_sides(row)) if o[0] == name]
            if found:
                draw_bar(ax, k + offset, *found[0][1:], color, height=0.36, **style)
    ax.set_yticks(range(len(names)))
    ax.set_yticklabels([wrap_label(n) for n in names])
    ax.invert_yaxis()
    rate_axis(ax)
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
    return save_plot(fig, folder, "win_rate", "Who wins, A and B", caption)


def difference_plot(summary, colors, folder) -> Plot:
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
            wrap_label(d["side"]) + ("\nsignificant" if d["significant"] else "\ncould be noise")
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
    return save_plot(fig, folder, "difference", "Difference B - A", caption)
