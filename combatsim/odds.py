"""Exact odds tables for single rolls of every mechanic, as JSON-ready dicts.

The dice layer computes; this module only arranges its exact distributions into the tables
``combatsim odds`` prints. Probabilities become floats here (the exact Fractions stay in the
dice layer) because the consumers are people and JSON.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from .dice import fourd8, lost_souls, sr2097
from .dice import shadowrun as sr
from .errors import check_range


@dataclass
class Table:
    """A printable table: a title, header row, data rows and free-text lines under it."""

    title: str
    headers: list[str]
    rows: list[list[object]]
    notes: list[str] = field(default_factory=list)

    def render(self) -> str:
        cells = [[_fmt(c) for c in row] for row in [self.headers, *self.rows]]
        widths = [max(len(r[i]) for r in cells) for i in range(len(self.headers))]
        lines = [self.title, ""]
        for n, row in enumerate(cells):
            lines.append("  ".join(c.rjust(w) for c, w in zip(row, widths, strict=True)))
            if n == 0:
                lines.append("  ".join("-" * w for w in widths))
        return "\n".join(lines + ([""] + self.notes if self.notes else []))


def _fmt(value: object) -> str:
    if isinstance(value, float):
        return f"{value:.4%}" if value < 0.0001 and value > 0 else f"{value:.2%}"
    return str(value)


# --- classic Shadowrun ------------------------------------------------------------------------


def sr_odds(dice: int, tn: int, d8: bool = False, tn_cap: bool = False) -> tuple[dict, Table]:
    """P(k successes) for every k, P(at least one) and P(fumble) of an ``dice``-die test."""
    check_range("--dice", dice, 0, 100)
    check_range("--tn", tn, -50, 200)
    kind = sr.pool_dice("d8" if d8 else "d6", tn_cap=tn_cap)
    p_die = sr.p_die(tn, kind)
    dist = sr.exact_successes(dice, tn, kind)
    successes = [float(dist[k]) for k in range(dice + 1)]
    at_least = [float(sum((dist[j] for j in range(k, dice + 1)), start=0)) for k in range(dice + 1)]
    payload = {
        "system": f"shadowrun-{kind.name}",
        "dice": dice,
        "tn": tn,
        "effective_tn": kind.effective_tn(tn),
        "p_die": float(p_die),
        "p_die_exact": str(p_die),
        "successes": successes,
        "p_at_least": at_least,
        "p_at_least_one": at_least[1] if dice else 0.0,
        "expected_successes": float(dist.mean()),
        "p_fumble": float(sr.p_fumble(dice, kind)),
    }
    eff = payload["effective_tn"]
    title = (
        f"Shadowrun {kind.name}: {dice} dice vs TN {tn}"
        + (f" (rolled as {eff})" if eff not in (None, tn) else "")
        + (" (impossible: above the house-rule cap of 21)" if eff is None else "")
    )
    table = Table(
        title,
        ["successes", "P(exactly k)", "P(at least k)"],
        [[k, successes[k], at_least[k]] for k in range(dice + 1)],
        [
            f"per-die success chance: {float(p_die):.4%} (exactly {p_die})",
            f"P(fumble, all dice showing {kind.low}): {payload['p_fumble']:.6%}",
            f"expected successes: {payload['expected_successes']:.3f}",
        ],
    )
    return payload, table


def sr_compare(dice: int, tns: range = range(2, 21)) -> tuple[dict, Table]:
    """The d6 game against its D8 variant, TN by TN (seed 000 says 'almost the same')."""
    check_range("--dice", dice, 1, 100)
    rows, out = [], []
    for tn in tns:
        p6, p8 = sr.p_die(tn, sr.D6), sr.p_die(tn, sr.D8)
        any6 = 1 - (1 - p6) ** dice
        any8 = 1 - (1 - p8) ** dice
        out.append(
            {
                "tn": tn,
                "d6_p_die": float(p6),
                "d8_p_die": float(p8),
                "d6_p_at_least_one": float(any6),
                "d8_p_at_least_one": float(any8),
                "d6_expected": float(dice * p6),
                "d8_expected": float(dice * p8),
            }
        )
        rows.append(
            [tn, float(p6), float(p8), float(any6), float(any8), f"{float(any8 - any6):+.2%}"]
        )
    table = Table(
        f"Shadowrun d6 against D8, {dice} dice",
        ["TN", "d6 per die", "d8 per die", "d6 P(>=1)", "d8 P(>=1)", "d8 - d6"],
        rows,
    )
    return {"dice": dice, "rows": out}, table


# --- Shadowrun: 2097 ---------------------------------------------------------------------------


def sr2097_odds(
    bonus: int, tn: int, mode: str = "normal", edge: bool = False
) -> tuple[dict, Table]:
    """P(success) and the margin-of-success distribution of a 2d10 Success Check (seed 003)."""
    check_range("--bonus", bonus, -50, 100)
    check_range("--tn", tn, -50, 200)
    joint = sr2097.exact_check(bonus, tn, mode, edge)
    mos = joint.map(lambda outcome: outcome[1])
    p_ok = sr2097.p_success(bonus, tn, mode, edge)
    tiers = mos.map(sr2097.mos_tier)
    extra = mos.map(lambda m: sr2097.mos_damage_dice(m) if m >= 0 else 0)
    payload = {
        "system": "sr2097",
        "bonus": bonus,
        "tn": tn,
        "mode": mode,
        "edge": edge,
        "p_success": float(p_ok),
        "p_success_exact": str(p_ok),
        "mos": {str(k): float(v) for k, v in mos.sorted_items()},
        "expected_mos": float(mos.mean()),
        "tiers": {t: float(tiers[t]) for t in sr2097.TIERS},
        "attack_extra_damage_dice": {str(k): float(v) for k, v in extra.sorted_items()},
    }
    edge_note = " with Edge" if edge else ""
    table = Table(
        f"Shadowrun: 2097: 2d10 + {bonus} vs TN {tn} ({mode}{edge_note})",
        ["margin tier", "P"],
        [[t, float(tiers[t])] for t in sr2097.TIERS],
        [
            f"P(success): {float(p_ok):.2%} (exactly {p_ok})",
            f"expected margin of success: {float(mos.mean()):+.2f}",
            "attack damage dice from the margin: "
            + ", ".join(f"+{k}d6 {float(v):.2%}" for k, v in extra.sorted_items()),
        ],
    )
    return payload, table


# --- Lost Souls -------------------------------------------------------------------------------


def lost_souls_odds(net: int, column: int | str | None = None) -> tuple[dict, Table]:
    """The d% roll with ``net`` bonus (+) or penalty (-) dice, and its Action Results tiers."""
    table_data = lost_souls.default_table()
    roll = lost_souls.exact_roll(net)
    columns = (
        [table_data.column(column).label] if column is not None else list(table_data.column_labels)
    )
    tiers = {label: lost_souls.exact_tier(label, net, table=table_data) for label in columns}
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
        "p_success": {
            str(label): float(dist.prob(lambda t: t.success)) for label, dist in tiers.items()
        },
    }
    headers = ["tier", *[f"col {c}" for c in columns]]
    rows = [[t.name, *[float(tiers[c][t]) for c in columns]] for t in reversed(table_data.tiers)]
    rows.append(["(success)", *[payload["p_success"][str(c)] for c in columns]])
    kind = f"{net} bonus" if net > 0 else f"{-net} penalty" if net < 0 else "no bonus or penalty"
    return payload, Table(
        f"Lost Souls d% with {kind} dice",
        headers,
        rows,
        [
            f"expected roll: {payload['expected_roll']:.2f}; P(00 = 100): {payload['p_00']:.3%}",
            "table: " + " ".join(table_data.note.split())[:160],
        ],
    )


# --- 4D8 ----------------------------------------------------------------------------------------


def fourd8_odds(chance: int, over32: str = fourd8.DEFAULT_OVER32) -> tuple[dict, Table]:
    """P(success) and the degree-of-success distribution of a 4D8 roll-under (seed 004)."""
    check_range("--chance", chance, -100, 200)
    degree = fourd8.exact_degree(chance, over32)
    kinds = fourd8.exact_kind(chance, over32)
    p_ok = fourd8.p_success(chance, over32)
    payload = {
        "system": "4d8",
        "chance": chance,
        "over32": over32 if chance > 32 else None,
        "p_success": float(p_ok),
        "p_success_exact": str(p_ok),
        "degree": {str(k): float(v) for k, v in degree.sorted_items()},
        "expected_degree": float(degree.mean()),
        "combinations": {k: float(kinds[k]) for k in fourd8.KINDS},
    }
    return payload, Table(
        f"4D8 roll-under, chance {chance}" + (f" ({over32} roll)" if chance > 32 else ""),
        ["degree", "P"],
        [[k if k else "failure", float(v)] for k, v in degree.sorted_items()],
        [
            f"P(success): {float(p_ok):.2%} (exactly {p_ok})",
            f"expected degree (0 on failure): {payload['expected_degree']:.2f}",
            "combinations: " + ", ".join(f"{k} {float(kinds[k]):.2%}" for k in fourd8.KINDS),
        ],
    )


# --- grids: the chance of success over two ranges -------------------------------------------------

MAX_GRID = 60  # values along either side of a grid


@dataclass
class Grid:
    """P(success) for every pair of a row value and a column value (a table and a heatmap)."""

    title: str
    row_name: str
    column_name: str
    rows: list[object]
    columns: list[object]
    p: list[list[float]]  # p[i][j]: row i, column j

    def payload(self, system: str, **extra) -> dict:
        return {
            "system": system,
            **extra,
            "rows": {"name": self.row_name, "values": self.rows},
            "columns": {"name": self.column_name, "values": self.columns},
            "p_success": self.p,
        }

    def table(self) -> Table:
        return Table(
            self.title,
            [f"{self.row_name} \\ {self.column_name}", *map(str, self.columns)],
            [[r, *row] for r, row in zip(self.rows, self.p, strict=True)],
        )


def _check_grid(argument: str, values: list[int]) -> None:
    if not 1 <= len(values) <= MAX_GRID:
        from .errors import UsageError

        raise UsageError(argument, values, f"1 to {MAX_GRID} values, e.g. 2..12")


def sr_grid(
    dice: list[int], tns: list[int], need: int = 1, d8: bool = False, tn_cap: bool = False
) -> tuple[dict, Table, Grid]:
    """P(at least ``need`` successes) for every pool size and TN (``exact_successes``)."""
    _check_grid("--dice", dice)
    _check_grid("--tn", tns)
    check_range("--need", need, 1, 100)
    for n in dice:
        check_range("--dice", n, 0, 100)
    kind = sr.pool_dice("d8" if d8 else "d6", tn_cap=tn_cap)
    p = []
    for n in dice:
        row = []
        for tn in tns:
            check_range("--tn", tn, -50, 200)
            dist = sr.exact_successes(n, tn, kind)
            row.append(float(sum((dist[k] for k in range(need, n + 1)), start=0)))
        p.append(row)
    what = "a success" if need == 1 else f"{need} successes or more"
    grid = Grid(f"Shadowrun {kind.name}: P({what}) by pool and TN", "dice", "TN", dice, tns, p)
    return grid.payload(f"shadowrun-{kind.name}", need=need), grid.table(), grid


def sr2097_grid(
    bonuses: list[int], tns: list[int], mode: str = "normal", edge: bool = False
) -> tuple[dict, Table, Grid]:
    """P(success) of a 2d10 check for every skill bonus and TN (``sr2097.p_success``)."""
    _check_grid("--bonus", bonuses)
    _check_grid("--tn", tns)
    p = []
    for bonus in bonuses:
        check_range("--bonus", bonus, -50, 100)
        row = []
        for tn in tns:
            check_range("--tn", tn, -50, 200)
            row.append(float(sr2097.p_success(bonus, tn, mode, edge)))
        p.append(row)
    note = f"{mode}" + (" with Edge" if edge else "")
    grid = Grid(
        f"Shadowrun: 2097: P(success) by skill bonus and TN ({note})",
        "bonus",
        "TN",
        bonuses,
        tns,
        p,
    )
    return grid.payload("sr2097", mode=mode, edge=edge), grid.table(), grid


def lost_souls_grid(nets: list[int]) -> tuple[dict, Table, Grid]:
    """P(success) for every net bonus/penalty dice count and every table column."""
    _check_grid("--net", nets)
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
    return grid.payload("lost-souls"), grid.table(), grid


# --- distributions, for pictures ----------------------------------------------------------------


def distribution(payload: dict) -> tuple[str, list[object], dict[str, list[float]]]:
    """What ``odds ... --plot`` draws from an odds payload: the outcome's name, its values in
    order, and P(exactly each value) per series (one series; Lost Souls: one per column)."""
    system = payload["system"]
    if system.startswith("shadowrun"):
        return "successes", list(range(payload["dice"] + 1)), {"": payload["successes"]}
    if system == "sr2097":
        keys = sorted(payload["mos"], key=int)
        return (
            "margin of success (failure below 0)",
            [int(k) for k in keys],
            {"": [payload["mos"][k] for k in keys]},
        )
    if system == "4d8":
        keys = sorted(payload["degree"], key=int)
        return (
            "degree of success (0: failure)",
            [int(k) for k in keys],
            {"": [payload["degree"][k] for k in keys]},
        )
    if system == "lost-souls":
        tiers = [t.name for t in lost_souls.default_table().tiers]
        series = {f"column {c}": [d[t] for t in tiers] for c, d in payload["tiers"].items()}
        return "Action Results tier", tiers, series
    raise ValueError(system)
