"""Exact odds of a Shadowrun: 2097 success check, and of damage through armor, as tables
(``combatsim odds 2097``)."""

from __future__ import annotations

from ...dice import sr2097
from ...dice.exact import Dist
from ...errors import check_range
from ...odds import Grid, Table, check_grid

MAX_MOS = 200  # far beyond any check's margin; only guards the command line


def mode_label(mode: str, edge: bool, use: str | None = None) -> str:
    """How the check is rolled, in words: ``advantage with Edge``, ``Disadvantage removed with
    Edge`` (rolled as a normal check whose kept double always adds 5)."""
    if use == sr2097.EDGE_REMOVE_DISADVANTAGE:
        removed = "Disadvantage removed with Edge"
        return removed if mode == sr2097.NORMAL else f"{mode}, {removed}"
    return mode + (" with Edge" if edge else "")


def sr2097_odds(
    bonus: int, tn: int, mode: str = "normal", edge: bool = False, use: str | None = None
) -> tuple[dict, Table]:
    """P(success) and the margin-of-success distribution of a 2d10 Success Check (ruling 14)."""
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
        "edge_use": use if edge else None,
        "p_success": float(p_ok),
        "p_success_exact": str(p_ok),
        "mos": {str(k): float(v) for k, v in mos.sorted_items()},
        "expected_mos": float(mos.mean()),
        "tiers": {t: float(tiers[t]) for t in sr2097.TIERS},
        "attack_extra_damage_dice": {str(k): float(v) for k, v in extra.sorted_items()},
    }
    table = Table(
        f"Shadowrun: 2097: 2d10 + {bonus} vs TN {tn} ({mode_label(mode, edge, use)})",
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
    bonuses: list[int],
    tns: list[int],
    mode: str = "normal",
    edge: bool = False,
    use: str | None = None,
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
    grid = Grid(
        f"Shadowrun: 2097: P(success) by skill bonus and TN ({mode_label(mode, edge, use)})",
        "bonus",
        "TN",
        bonuses,
        tns,
        p,
    )
    payload = grid.payload("sr2097", mode=mode, edge=edge, edge_use=use if edge else None)
    return payload, grid.table(), grid


def _check_armor_args(pt: int, dr: int) -> None:
    check_range("--pt", pt, 0, 1000)
    check_range("--dr", dr, 0, 100)


def sr2097_hit_damage(
    code: str,
    dice: int,
    strength: int,
    *,
    mos: int = 0,
    pt: int = 0,
    dr: int = 0,
    burst: bool = False,
    edge_damage: bool = False,
) -> tuple[dict, Table]:
    """The damage one hit with margin ``mos`` leaves through armor PT/DR (rulings 14-15)."""
    check_range("--mos", mos, 0, MAX_MOS)
    _check_armor_args(pt, dr)
    outcome = sr2097.exact_hit_outcome(
        dice, strength, mos=mos, burst=burst, edge_damage=edge_damage, pt=pt, dr=dr
    )
    extra = sr2097.mos_damage_dice(mos)
    what = f"a hit with margin {mos}" + (f", +{extra}d6" if extra else "")
    return _damage_odds(code, what, outcome, {"mos": mos}, pt, dr, burst, edge_damage)


def sr2097_attack_damage(
    code: str,
    dice: int,
    strength: int,
    check: tuple[int, int, str, bool, str | None],
    *,
    pt: int = 0,
    dr: int = 0,
    burst: bool = False,
    edge_damage: bool = False,
) -> tuple[dict, Table]:
    """The damage a whole attack leaves through armor: the check (a miss deals nothing; the
    margin adds 0-2 d6), the damage roll, then PT/DR."""
    bonus, tn, mode, edge, use = check
    check_range("--bonus", bonus, -50, 100)
    check_range("--tn", tn, -50, 200)
    _check_armor_args(pt, dr)
    outcome = sr2097.exact_attack_outcome(
        bonus,
        tn,
        dice,
        strength,
        mode=mode,
        edge=edge,
        burst=burst,
        edge_damage=edge_damage,
        pt=pt,
        dr=dr,
    )
    what = f"an attack: 2d10 + {bonus} vs TN {tn}, {mode_label(mode, edge, use)}"
    extra = {"bonus": bonus, "tn": tn, "mode": mode, "edge": edge, "edge_use": use}
    return _damage_odds(code, what, outcome, extra, pt, dr, burst, edge_damage)


def _damage_odds(
    code: str,
    what: str,
    outcome: Dist[tuple[str, int]],
    extra: dict,
    pt: int,
    dr: int,
    burst: bool,
    edge_damage: bool,
) -> tuple[dict, Table]:
    """The payload and table of a damage outcome ``(kind, dealt)``: what gets through, and how
    often the attack misses or the armor stops the whole hit."""
    dealt = outcome.map(lambda o: o[1])
    kinds = outcome.map(lambda o: o[0])
    mean = dealt.mean()
    payload = {
        "system": "sr2097",
        "damage": code,
        **extra,
        "pt": pt,
        "dr": dr,
        "burst": burst,
        "edge_damage": edge_damage,
        "dealt": {str(k): float(v) for k, v in dealt.sorted_items()},
        "outcomes": {k: float(kinds[k]) for k in sr2097.ARMOR_OUTCOMES},
        "p_stopped_exact": str(kinds[sr2097.STOPPED]),
        "expected_dealt": float(mean),
        "expected_dealt_exact": str(mean),
    }
    adds = "".join((" +1d6 burst" if burst else "", " +2d6 Edge" if edge_damage else ""))
    zero = "0 (miss or stopped)" if kinds[sr2097.MISS] else "0 (stopped)"
    notes = [
        f"stopped by the armor (nothing through): {float(kinds[sr2097.STOPPED]):.2%} "
        f"(exactly {kinds[sr2097.STOPPED]})",
        f"some damage through: {float(kinds[sr2097.THROUGH]):.2%}",
        f"expected damage through: {float(mean):.2f} (exactly {mean})",
    ]
    if kinds[sr2097.MISS] or "bonus" in extra:
        notes.insert(0, f"miss: {float(kinds[sr2097.MISS]):.2%} (exactly {kinds[sr2097.MISS]})")
    return payload, Table(
        f"Shadowrun: 2097: {code}{adds} through PT {pt} / DR {dr}% ({what})",
        ["damage through", "P"],
        [[zero if k == 0 else k, float(v)] for k, v in dealt.sorted_items()],
        notes,
    )
