"""Exact odds of a Shadowrun: 2097 success check as tables (``combatsim odds 2097``)."""

from __future__ import annotations

from ...dice import sr2097
from ...errors import check_range
from ...odds import Grid, Table, check_grid


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


def sr2097_grid(
    bonuses: list[int], tns: list[int], mode: str = "normal", edge: bool = False
) -> tuple[dict, Table, Grid]:
    """P(success) of a 2d10 check for every skill bonus and TN (``sr2097.p_success``)."""
    check_grid("--bonus", bonuses)
    check_grid("--tn", tns)
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
