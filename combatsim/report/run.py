"""The figures of one scenario or a batch of scenarios: win-rate bars, casualties, fighters
standing by turn, battle length and damage taken.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ..output import COMBATANTS_CSV
from .figures import (
    DRAW_COLOR,
    NEUTRAL,
    Plot,
    add_legend,
    draw_bar,
    make_panels,
    more_note,
    percent_axis,
    rate_axis,
    save_plot,
    unique,
    wrap,
    wrap_label,
)
from .results import Row, outcome_rates, row_sides


def bars_one(row: Row, colors, folder) -> Plot:
    import matplotlib.pyplot as plt

    outcomes = outcome_rates(row.summary, row_sides(row))
    fig, ax = plt.subplots(figsize=(8, 1.3 + 0.55 * len(outcomes)), layout="constrained")
    for k, (name, rate, low, high) in enumerate(outcomes):
        color = DRAW_COLOR if name == "draws" else colors[name]
        draw_bar(ax, k, rate, low, high, color)
    ax.set_yticks(range(len(outcomes)))
    ax.set_yticklabels([wrap_label(o[0]) for o in outcomes])
    ax.invert_yaxis()
    rate_axis(ax)
    ax.set_title(wrap(f"Who wins: {row.label}", 80), fontsize=11)
    caption = (
        "The share of battles each side won, and the share drawn (turn limit reached, or nobody "
        "left standing), each with its 95% Wilson interval (the black whisker)."
    )
    return save_plot(fig, folder, "win_rate", "Who wins", caption)


def bars_panels(rows: list[Row], colors, folder) -> Plot:
    """A batch of scenarios: one small panel of bars per scenario, side names on its axis."""
    fig, axes = make_panels(
        len(rows),
        height=lambda r: 0.9 + 0.32 * len(outcome_rates(r.summary, row_sides(r))),
        rows=rows,
        sharex=True,
    )
    for ax, row in zip(axes, rows, strict=False):
        outcomes = outcome_rates(row.summary, row_sides(row))
        for k, (name, rate, low, high) in enumerate(outcomes):
            draw_bar(ax, k, rate, low, high, DRAW_COLOR if name == "draws" else colors[name])
        ax.set_yticks(range(len(outcomes)))
        ax.set_yticklabels([wrap_label(o[0], 16) for o in outcomes], fontsize=8)
        ax.invert_yaxis()
        rate_axis(ax, label=False)
        ax.tick_params(axis="x", labelsize=8, labelbottom=True)
        ax.set_title(row.title(38), fontsize=8.5)
    fig.supxlabel("share of battles, with 95% interval", fontsize=9)
    fig.suptitle(f"Who wins, in each of the {len(rows)} scenarios", fontsize=11)
    caption = (
        "One panel per scenario: the share of battles each side won and the share drawn, each "
        "with its 95% Wilson interval (black whisker). A side keeps its colour in every plot of "
        "this report." + more_note(len(rows))
    )
    return save_plot(fig, folder, "win_rate", "Who wins", caption)


def load_casualties(summary, folder: Path) -> list[dict] | None:
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
        out.append(casualty_row(side, side, "side", per_battle, battles))
        for name, mine in rows.groupby("name", sort=False):
            out.append(casualty_row(side, name, "combatant", mine.set_index("battle"), battles))
    return out


def casualty_row(side: str, who: str, level: str, frame, battles: int) -> dict[str, Any]:
    from ..stats import wilson_interval

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


def who_label(c: dict) -> str:
    """How a casualty entry reads: a side's entry is "anyone of" it."""
    if c.get("level") == "side":
        return f"anyone of {c['side']}"
    copies = f", any of {c['copies']}" if c.get("copies") else ""
    return f"{c['who']}{copies} ({c['side']})"


def casualty_plot(casualties: list[dict], colors, folder) -> Plot:
    import matplotlib.pyplot as plt
    from matplotlib.patches import Patch

    rows = casualties
    fig, ax = plt.subplots(figsize=(9, 1.6 + 0.42 * len(rows)), layout="constrained")
    for k, c in enumerate(rows):
        color = colors.get(c["side"], NEUTRAL)
        down_low, down_high = c["down_ci95"]
        draw_bar(ax, k, c["down_rate"], down_low, down_high, color, height=0.75, alpha=0.45)
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
    ax.set_yticklabels([wrap_label(who_label(c), 34) for c in rows], fontsize=9)
    ax.invert_yaxis()
    rate_axis(ax)
    ax.set_xlabel("share of battles, with 95% interval")
    handles = [
        Patch(facecolor=NEUTRAL, alpha=0.45, label="ends down\n(out of the fight\nor fled)"),
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
    return save_plot(fig, folder, "casualties", "Casualties", caption)


def same_sides(rows) -> bool:
    return len({tuple(row_sides(r)) for r in rows}) == 1


def standing_plot(rows, colors, folder) -> Plot | None:
    usable = [r for r in rows if r.summary["distributions"]["standing"]]
    if not usable:
        return None
    fig, axes = make_panels(len(usable), sharex=True, sharey=True)
    for ax, r in zip(axes, usable, strict=False):
        standing = r.summary["distributions"]["standing"]
        n = r.summary["battles_completed"]
        for side in row_sides(r):
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
        ax.yaxis.set_major_formatter(percent_axis())
    add_legend(fig, axes, not same_sides(usable))
    fig.supxlabel("turn", fontsize=10)
    fig.supylabel("fighters standing", fontsize=10)
    fig.suptitle("Share of each side still standing, by turn", fontsize=11)
    caption = (
        "For each side, the share of its fighters still able to act at the end of each turn, "
        "over all battles (a finished battle counts with its final state)." + more_note(len(usable))
    )
    return save_plot(fig, folder, "standing", "Still standing by turn", caption)


def turns_plot(rows, colors, folder) -> Plot:
    fig, axes = make_panels(len(rows), sharex=True, sharey=True)
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
        ax.yaxis.set_major_formatter(percent_axis())
    fig.supxlabel("battle length, turns", fontsize=10)
    fig.supylabel("share of battles", fontsize=10)
    fig.suptitle("Distribution of battle length", fontsize=11)
    caption = (
        "Share of battles lasting each number of turns; the dashed line is the mean."
        + more_note(len(rows))
    )
    return save_plot(fig, folder, "turns", "Battle length", caption)


def damage_unit(row: Row) -> str:
    """What the row's rule system counts damage in (boxes, health points, ...): a system the
    program cannot find (a plug-in not installed here) says "points"."""
    from ..rules.registry import system_class

    name = row.summary.get("system")
    cls = system_class(name) if isinstance(name, str) else None
    return cls.damage_unit if cls is not None else "points"


def damage_plot(rows, colors, folder) -> Plot | None:
    """Each side's damage taken per combatant; panels share their axis only when their rule
    systems count damage in the same unit (boxes 0-10 and health points 0-70 do not mix)."""
    usable = [r for r in rows if r.summary["distributions"]["damage_taken"]]
    if not usable:
        return None
    units = [damage_unit(r) for r in usable]
    one_unit = len(set(units)) == 1
    fig, axes = make_panels(len(usable), sharex=one_unit, sharey=True)
    for ax, r, unit in zip(axes, usable, units, strict=False):
        damage = r.summary["distributions"]["damage_taken"]
        for side in row_sides(r):
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
        if not one_unit:
            ax.set_xlabel(unit, fontsize=8.5)
        ax.grid(alpha=0.3)
        ax.yaxis.set_major_formatter(percent_axis())
    add_legend(fig, axes, not same_sides(usable))
    fig.supxlabel("damage taken in a battle" + (f", {units[0]}" if one_unit else ""), fontsize=10)
    fig.supylabel("share of combatants", fontsize=10)
    fig.suptitle("Distribution of damage taken per combatant", fontsize=11)
    systems = zip(units, (r.summary.get("system") for r in usable), strict=True)
    counted = ", ".join(unique(f"{unit} ({system})" for unit, system in systems))
    caption = (
        "For each side, the share of its combatants that took each amount of damage in a "
        f"battle, as the rule system counts it: {counted}."
        + ("" if one_unit else " Each panel has its own axis.")
        + more_note(len(usable))
    )
    return save_plot(fig, folder, "damage", "Damage taken", caption)
