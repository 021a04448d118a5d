"""Exact odds of a classic Shadowrun dice pool, d6 or D8, as tables (``combatsim odds sr``)."""

from __future__ import annotations

from fractions import Fraction

from ...dice import shadowrun as sr
from ...dice.exact import Dist
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
    """The d6 game against its D8 variant, TN by TN ('almost the same', says the variant)."""
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


def tested(
    dice: int, tn: int, kind: sr.PoolDice, karma: str | None, reroll_fumbles: bool = True
) -> Dist[tuple[int, bool]]:
    """Exact ``(successes, fumble)`` of the tester's pool, with the Karma use asked for:
    ``reroll`` the failed dice of a test with no success (the ``attack`` policy), or
    ``negate`` a fumble (ruling 11)."""
    if karma == "reroll":
        return sr.exact_karma_reroll(dice, tn, kind, reroll_fumbles)
    if karma == "negate":
        return sr.exact_karma_negate(dice, tn, kind)
    return sr.exact_outcomes(dice, tn, kind)


def successes_of(outcomes: Dist[tuple[int, bool]], dice: int) -> list[float]:
    """P(exactly k successes) for k from 0 to ``dice``."""
    counted = outcomes.map(lambda o: o[0])
    return [float(counted[k]) for k in range(dice + 1)]


def fumble_of(outcomes: Dist[tuple[int, bool]]) -> Fraction:
    return outcomes.prob(lambda o: o[1])


def karma_spent(first: Dist[tuple[int, bool]], karma: str) -> Fraction:
    """P(the point is spent), from the first roll: on no success (``reroll``, as the battles
    decide it) or on a fumble (``negate``)."""
    if karma == "reroll":
        return first.prob(lambda o: sr.karma_rerolls(*o))
    return fumble_of(first)


def sr_karma(
    dice: int,
    tn: int,
    karma: str,
    d8: bool = False,
    tn_cap: bool = False,
    reroll_fumbles: bool = True,
) -> tuple[dict, Table]:
    """Successes and fumble of a test without Instant Karma and with it (rulings 11, 26)."""
    check_range("--dice", dice, 0, 100)
    check_range("--tn", tn, -50, 200)
    kind = sr.pool_dice("d8" if d8 else "d6", tn_cap=tn_cap)
    plain, spent = sr.exact_outcomes(dice, tn, kind), tested(dice, tn, kind, karma, reroll_fumbles)
    before, after = successes_of(plain, dice), successes_of(spent, dice)
    at_least = [sum(after[k:]) for k in range(dice + 1)]
    p_spent = karma_spent(plain, karma)
    payload = {
        "system": f"shadowrun-{kind.name}",
        "dice": dice,
        "tn": tn,
        "effective_tn": kind.effective_tn(tn),
        "karma": karma,
        "karma_reroll_fumbles": reroll_fumbles,
        "successes": after,
        "successes_without_karma": before,
        "p_at_least": at_least,
        "p_fumble": float(fumble_of(spent)),
        "p_fumble_exact": str(fumble_of(spent)),
        "p_fumble_without_karma": float(fumble_of(plain)),
        "p_karma_spent": float(p_spent),
        "p_karma_spent_exact": str(p_spent),
        "expected_successes": float(spent.map(lambda o: o[0]).mean()),
        "expected_successes_without_karma": float(plain.map(lambda o: o[0]).mean()),
    }
    use = (
        "re-rolling the failed dice of a test with no success"
        if karma == "reroll"
        else "undoing a fumble"
    )
    notes = [
        f"Karma: 1 point {use} (ruling 11), spent in {float(p_spent):.4%} of tests",
        f"P(fumble): {payload['p_fumble']:.6%} with Karma (exactly {fumble_of(spent)}), "
        f"{payload['p_fumble_without_karma']:.6%} without",
        f"expected successes: {payload['expected_successes']:.3f} with Karma, "
        f"{payload['expected_successes_without_karma']:.3f} without",
    ]
    if karma == "reroll":
        notes.append(
            f"a re-roll showing every die on {kind.low} is a fumble again (ruling 26)"
            if reroll_fumbles
            else "a re-roll never fumbles (karma_reroll_fumbles off)"
        )
    table = Table(
        f"Shadowrun {kind.name}: {dice} dice vs TN {tn}, Instant Karma ({karma})",
        ["successes", "P(exactly k), no Karma", "P(exactly k), Karma", "P(at least k), Karma"],
        [[k, before[k], after[k], at_least[k]] for k in range(dice + 1)],
        notes,
    )
    return payload, table
