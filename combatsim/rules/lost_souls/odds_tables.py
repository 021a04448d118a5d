"""Exact odds of a Lost Souls d% roll and its Action Results tiers (``combatsim odds
lost-souls``)."""

from __future__ import annotations

import textwrap

from ...dice import lost_souls
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
