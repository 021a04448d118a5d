"""Exact odds of classic Shadowrun's opposed tests, as tables: a melee exchange (ruling 9,
``combatsim odds sr --against N``) and a ranged attack against Dodge Pool dice (ruling 5,
``--dodge N``). The tester's own pool may use Instant Karma (``odds_tables.tested``)."""

from __future__ import annotations

from fractions import Fraction

from ...dice import shadowrun as sr
from ...dice.exact import Dist
from ...errors import check_range
from ...odds import Table
from .odds_tables import fumble_of, successes_of, tested


def _kind(d8: bool, tn_cap: bool) -> sr.PoolDice:
    return sr.pool_dice("d8" if d8 else "d6", tn_cap=tn_cap)


def _side(dice: int, tn: int, kind: sr.PoolDice, outcomes: Dist[tuple[int, bool]]) -> dict:
    """One side's pool in the payload: its dice, TN, successes and fumble chance."""
    return {
        "dice": dice,
        "tn": tn,
        "effective_tn": kind.effective_tn(tn),
        "successes": successes_of(outcomes, dice),
        "expected_successes": float(_mean(outcomes)),
        "p_fumble": float(fumble_of(outcomes)),
    }


def _karma_note(karma: str | None) -> str:
    return f", Karma ({karma})" if karma else ""


def _mean(outcomes: Dist[tuple[int, bool]]) -> Fraction:
    return outcomes.map(lambda o: o[0]).mean()


def sr_melee(
    dice: int,
    tn: int,
    against: int,
    against_tn: int,
    d8: bool = False,
    tn_cap: bool = False,
    karma: str | None = None,
    reroll_fumbles: bool = True,
    against_karma: str | None = None,
) -> tuple[dict, Table]:
    """Ruling 9: both sides roll, more successes wins by the difference, a tie harms no one.
    Either side may use Instant Karma (the battles' ``attack`` policy re-rolls both)."""
    check_range("--dice", dice, 0, 100)
    check_range("--tn", tn, -50, 200)
    check_range("--against", against, 0, 100)
    check_range("--against-tn", against_tn, -50, 200)
    kind = _kind(d8, tn_cap)
    attack = tested(dice, tn, kind, karma, reroll_fumbles)
    defence = tested(against, against_tn, kind, against_karma, reroll_fumbles)
    margin = sr.exact_margin(attack.map(lambda o: o[0]), defence.map(lambda o: o[0]))
    wins, tie = margin.prob(lambda m: m > 0), margin[0]
    loses = 1 - wins - tie
    payload = {
        "system": f"shadowrun-{kind.name}",
        "test": "melee",
        "karma": karma,
        "against_karma": against_karma,
        "attacker": _side(dice, tn, kind, attack),
        "defender": _side(against, against_tn, kind, defence),
        "p_attacker_wins": float(wins),
        "p_tie": float(tie),
        "p_defender_wins": float(loses),
        "exact": {"attacker_wins": str(wins), "tie": str(tie), "defender_wins": str(loses)},
        "margin": {str(m): float(margin[m]) for m in range(-against, dice + 1)},
        "winner_net": {
            # P(that side wins by exactly k net successes), indexed by k (0: never a win)
            "attacker": [float(margin[k]) if k else 0.0 for k in range(dice + 1)],
            "defender": [float(margin[-k]) if k else 0.0 for k in range(against + 1)],
        },
    }
    rows: list[list[object]] = []
    at_least = Fraction(0)
    for m in range(dice, -against - 1, -1):
        who = "attacker wins" if m > 0 else "defender wins" if m < 0 else "tie: no damage"
        at_least += margin[m]
        rows.append([m, who, abs(m) if m else "", float(margin[m]), float(at_least)])
    table = Table(
        f"Shadowrun {kind.name} melee: {dice} dice vs TN {tn}{_karma_note(karma)} against "
        f"{against} dice vs TN {against_tn}{_karma_note(against_karma)}",
        ["margin", "outcome", "net successes", "P(exactly)", "P(margin at least)"],
        rows,
        [
            f"P(attacker wins): {float(wins):.4%}   P(tie): {float(tie):.4%}   "
            f"P(defender wins): {float(loses):.4%}",
            f"expected successes: attacker {float(_mean(attack)):.3f}, "
            f"defender {float(_mean(defence)):.3f}",
            "the winner's net successes stage its damage up (ruling 9); each side's in --json",
        ],
    )
    return payload, table


def sr_dodge(
    dice: int,
    tn: int,
    dodge: int,
    dodge_tn: int,
    d8: bool = False,
    tn_cap: bool = False,
    karma: str | None = None,
    reroll_fumbles: bool = True,
) -> tuple[dict, Table]:
    """Ruling 5: the attack's successes against ``dodge`` Dodge Pool dice at ``dodge_tn``."""
    check_range("--dice", dice, 0, 100)
    check_range("--tn", tn, -50, 200)
    check_range("--dodge", dodge, 0, 100)
    check_range("--dodge-tn", dodge_tn, -50, 200)
    kind = _kind(d8, tn_cap)
    attack = tested(dice, tn, kind, karma, reroll_fumbles)
    joint = sr.exact_dodged_attack(attack.map(lambda o: o[0]), dodge, dodge_tn, kind)
    no_success = joint[(0, 0)]
    dodged = joint.prob(lambda o: o[0] > 0 and sr.dodges(*o))
    hit = 1 - no_success - dodged
    on_hit = [Fraction(0)] * (dice + 1)  # P(a hit with k net successes)
    for (a, d), p in joint.items():
        if a and not sr.dodges(a, d):
            on_hit[a - d] += p
    payload = {
        "system": f"shadowrun-{kind.name}",
        "test": "dodge",
        "karma": karma,
        "attacker": _side(dice, tn, kind, attack),
        "dodge": {"dice": dodge, "tn": dodge_tn, "effective_tn": kind.effective_tn(dodge_tn)},
        "p_no_success": float(no_success),
        "p_clean_miss": float(dodged),
        "p_hit": float(hit),
        "exact": {"no_success": str(no_success), "clean_miss": str(dodged), "hit": str(hit)},
        "net_on_hit": [float(p) for p in on_hit],
        "joint_on_hit": [
            [a, d, float(p)] for (a, d), p in joint.sorted_items() if a and not sr.dodges(a, d)
        ],
    }
    outcomes = ["no success", "clean miss", *(f"hit, net {k}" for k in range(dice + 1))]
    chances = [no_success, dodged, *on_hit]
    table = Table(
        f"Shadowrun {kind.name}: {dice} attack dice vs TN {tn}{_karma_note(karma)}"
        + f", against {dodge} Dodge Pool dice vs TN {dodge_tn}",
        ["outcome", "P(exactly)", "P(this or better for the attacker)"],
        [
            [o, float(p), float(sum(chances[i:], Fraction(0)))]
            for i, (o, p) in enumerate(zip(outcomes, chances, strict=True))
        ],
        [
            f"P(hit): {float(hit):.4%}   P(clean miss, the dodge beats the attack): "
            f"{float(dodged):.4%}   P(no success): {float(no_success):.4%}",
            "net: the attack's successes less the dodge's; staging counts the attack's up and "
            "the dodge's (with Body and armor) down: joint_on_hit in --json",
            f"the defender spends {dodge} dice whatever the attack rolled (its tactics may not)",
        ],
    )
    return payload, table
