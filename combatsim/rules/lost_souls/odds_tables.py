"""Exact odds of a Lost Souls d% roll and its Action Results tiers (``combatsim odds
lost-souls``)."""

from __future__ import annotations

import textwrap

from ...dice import lost_souls
from ...errors import UsageError
from ...odds import Grid, Table, check_grid


def lost_souls_odds(net: int, column: int | str | None = None) -> tuple[dict, Table]:
    """The d% roll with ``net`` bonus (+) or penalty (-) dice, and its Action Results tiers."""
    table_data = lost_souls.default_table()
    roll = lost_souls.exact_roll(net)
    columns = (
        [table_data.column(column).label] if column is not None else list(table_data.column_labels)
    )
    tiers = {label: lost_souls.exact_tier(label, net, table=table_data) for label in columns}
    success = {str(label): float(dist.prob(lambda t: t.success)) for label, dist in tiers.items()}
    payload = {
        "system": "lost-souls",
        "net": net,
        "roll": {str(k): float(v) for k, v in roll.sorted_items()},
        "expected_roll": float(roll.mean()),
        "p_00": float(roll[100]),
        "table_note": table_data.note,
        "tiers": {
            str(label): {t.name: float(dist[t]) for t in table_data.tiers}
            for label, dist in tiers.items()
        },
        "p_success": success,
    }
    headers = ["tier", *[f"col {c}" for c in columns]]
    rows = [[t.name, *[float(tiers[c][t]) for c in columns]] for t in reversed(table_data.tiers)]
    rows.append(["(success)", *[success[str(c)] for c in columns]])
    kind = f"{net} bonus" if net > 0 else f"{-net} penalty" if net < 0 else "no bonus or penalty"
    return payload, Table(
        f"Lost Souls d% with {kind} dice",
        headers,
        rows,
        [
            f"expected roll: {payload['expected_roll']:.2f}; P(00 = 100): {payload['p_00']:.3%}",
            *table_lines(table_data),
        ],
    )


def lost_souls_assisted(
    net: int, column: int | str, assist_column: int | str, assist_net: int = 0
) -> tuple[dict, Table]:
    """A cooperative roll (ruling 19): the lead's tiers in ``column`` with ``net`` dice, alone
    and after an assistant rolling in ``assist_column`` with ``assist_net`` dice gives its die."""
    table_data = lost_souls.default_table()
    lead = _label("--column", table_data, column)
    helper = _label("--assist-column", table_data, assist_column)
    lost_souls.net_dice(net)
    try:
        lost_souls.net_dice(assist_net)
    except UsageError:
        raise UsageError("--assist-net", assist_net, "an integer from -5 to 5") from None
    alone = lost_souls.exact_tier(lead, net, table=table_data)
    helped = lost_souls.exact_assisted_tier(lead, net, helper, assist_net, table=table_data)
    die = lost_souls.exact_cooperative_dice(helper, assist_net, table=table_data)
    p_alone = alone.prob(lambda t: t.success)
    p_helped = helped.prob(lambda t: t.success)
    payload = {
        "system": "lost-souls",
        "net": net,
        "table_note": table_data.note,
        "assisted": {
            "column": lead,
            "assist_column": helper,
            "assist_net": assist_net,
            "assistant_die": {f"{d:+d}" if d else "0": float(die[d]) for d in (1, 0, -1)},
            "unassisted_tiers": {t.name: float(alone[t]) for t in table_data.tiers},
            "tiers": {t.name: float(helped[t]) for t in table_data.tiers},
            "p_success_unassisted": float(p_alone),
            "p_success": float(p_helped),
            "p_success_exact": str(p_helped),
        },
    }
    rows = [[t.name, float(alone[t]), float(helped[t])] for t in reversed(table_data.tiers)]
    rows.append(["(success)", float(p_alone), float(p_helped)])
    return payload, Table(
        f"Lost Souls d% in column {lead} with {_dice_words(net)}, "
        f"assisted by column {helper} with {_dice_words(assist_net)}",
        ["tier", "unassisted", "assisted"],
        rows,
        [
            f"assistant's die: bonus {float(die[1]):.2%} (Good or better), none "
            f"{float(die[0]):.2%}, penalty {float(die[-1]):.2%} (Inferior or worse)",
            f"P(success): {float(p_alone):.2%} alone, {float(p_helped):.2%} assisted "
            f"(exactly {p_helped}; {float(p_helped - p_alone) * 100:+.2f} points)",
            "the assistant's die joins the lead's dice, then the cap of 5 either way applies",
            *table_lines(table_data),
        ],
    )


def _label(argument: str, table: lost_souls.ActionTable, column: int | str) -> int | str:
    try:
        return table.column(column).label
    except UsageError as problem:
        raise UsageError(argument, column, problem.allowed) from None


def _dice_words(net: int) -> str:
    if net > 0:
        return f"{net} bonus {'die' if net == 1 else 'dice'}"
    if net < 0:
        return f"{-net} penalty {'die' if net == -1 else 'dice'}"
    return "no bonus or penalty dice"


def table_lines(table: lost_souls.ActionTable) -> list[str]:
    """The table's note in full, wrapped for a terminal: the shipped table is invented, and a
    reader must not lose the sentence that says so and how to load the book's. The note's
    "this file" is the table's file, named here."""
    if not table.note:
        return []
    text = " ".join(table.note.split())
    if table.source:
        text = text.replace("this file", f"this file ({table.source})", 1)
    return textwrap.wrap("table: " + text, width=96, break_on_hyphens=False)


def lost_souls_grid(nets: list[int]) -> tuple[dict, Table, Grid]:
    """P(success) for every net bonus/penalty dice count and every table column."""
    check_grid("--net", nets)
    table_data = lost_souls.default_table()
    columns = list(table_data.column_labels)
    p = []
    for net in nets:
        p.append(
            [
                float(lost_souls.exact_tier(c, net, table=table_data).prob(lambda t: t.success))
                for c in columns
            ]
        )
    grid = Grid(
        "Lost Souls: P(success) by net dice and column", "net dice", "column", nets, columns, p
    )
    table = grid.table()
    table.notes += table_lines(table_data)
    payload = {**grid.payload("lost-souls"), "table_note": table_data.note}
    return payload, table, grid
