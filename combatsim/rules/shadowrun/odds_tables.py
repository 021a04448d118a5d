"""Exact odds of a classic Shadowrun dice pool, d6 or D8, as tables (``combatsim odds sr``)."""

from __future__ import annotations

from ...dice import shadowrun as sr
from ...errors import check_range
from ...odds import Grid, Table, check_grid


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


def sr_grid(
    dice: list[int], tns: list[int], need: int = 1, d8: bool = False, tn_cap: bool = False
) -> tuple[dict, Table, Grid]:
    """P(at least ``need`` successes) for every pool size and TN (``exact_successes``)."""
    check_grid("--dice", dice)
    check_grid("--tn", tns)
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
