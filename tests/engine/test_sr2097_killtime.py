"""A whole ``sr2097`` fight checked against exact math: the kill-time distribution.

One shooter against a target that never acts (it holds a gun that reaches no one): the
number of turns until the target goes down depends only on the dice, so it can be computed
exactly from the dice layer (``combatsim.dice.sr2097``: the check with its doubles and
Advantage, the MoS dice, Nd6 + ST, burst and Edge dice, PT/DR armor) and ruling 16's
settings (TN = range TN + Dodge; down at 100% of health; initiative). The chain runs over the
damage taken so far, the Edge left and whether a failed check left Disadvantage for the next
one (ruling 23), one attack at a time; an attack's outcome is a ``Dist`` of (damage dealt,
Edge spent, Disadvantage left). Battles run on the real engine with fixed seeds, and
``assert_fits`` (chi-square, ALPHA = 1e-4, the suite's false-failure budget) compares the
turn the target went down, or "limit" when it was still standing at the turn limit.

The same samples must *reject* the kill-time laws of plausible mistakes (the defender's Dodge
or the armor's Dodge penalty left out of the TN, the MoS damage dice left out, DR rounded up,
the failure Disadvantage of ruling 23 left out or never spent, doubles ignored under
Advantage, Advantage left out, a burst without its extra die, Edge damage dice left out):
5,000 battles in case 1 and 3,000 in case 2 (a few seconds each) reject every one of those at
p < 1e-8, ALPHA x 1e-4, so the fit is a real check (case 1's closest, DR rounded up, at
1e-12 to 1e-18 over three seeds tried). (Ignoring doubles on a plain 2d10 check only moves
MoS tiers and would need twice the battles, so it is checked under Advantage, in case 2;
ruling 23 barely moves case 2, whose Advantage bursts seldom fail by 6 or more, so case 1
carries it.)
"""

from __future__ import annotations

from collections.abc import Callable
from fractions import Fraction
from functools import cache
from math import ceil
from pathlib import Path

import pytest

from combatsim.dice import sr2097 as dice
from combatsim.dice.exact import Dist
from combatsim.engine import run_battle
from combatsim.scenario import build_scenario
from tests.stats import ALPHA, assert_fits, chi_square_p

pytestmark = pytest.mark.slow  # statistical: kill-time distributions of whole battles

LIMIT = "limit"


def scenario(shooter: dict, target: dict, weapon: dict, armor: dict, turn_limit: int):
    data = {
        "name": "kill time",
        "rules": {"system": "sr2097"},
        "weapons": {
            "gun": weapon,
            "toy": {"kind": "firearm", "damage": "1d6", "ranges": [0.1] * 4, "ammo": 1},
        },
        "armor": {"suit": armor},
        "sides": [
            {"name": "A", "members": [{"name": "Shooter", "position": [0, 0], **shooter}]},
            {"name": "B", "members": [{"name": "Target", "position": [30, 0], **target}]},
        ],
        "turn_limit": turn_limit,
    }
    return build_scenario(data, "<kill time>", Path("."))


def simulated_kill_turns(sc, seed: int, battles: int) -> list:
    out = []
    for i in range(battles):
        r = run_battle(sc, seed, i)
        out.append(r.turns if r.winner == "A" else LIMIT)
    return out


def tally(samples) -> dict:
    counts: dict = {}
    for s in samples:
        counts[s] = counts.get(s, 0) + 1
    return counts


# (Edge left, Disadvantage pending) -> Dist of (damage dealt, Edge spent, Disadvantage left)
AttackLaw = Callable[[int, bool], Dist]


def exact_kill_turns(
    attack: AttackLaw, health: int, edge: int, per_turn: int, turn_limit: int
) -> Dist:
    """Turn in which the damage taken first reaches ``health`` (down), or "limit"."""
    alive: dict[tuple[int, int, bool], Fraction] = {(0, edge, False): Fraction(1)}
    out: dict = {}
    for k in range(1, per_turn * turn_limit + 1):
        nxt: dict[tuple[int, int, bool], Fraction] = {}
        for (taken, left, pending), p in alive.items():
            for (dealt, spent, later), q in attack(left, pending).items():
                if taken + dealt >= health:
                    turn = ceil(k / per_turn)
                    out[turn] = out.get(turn, 0) + p * q
                else:
                    key = (taken + dealt, left - spent, later)
                    nxt[key] = nxt.get(key, 0) + p * q
        alive = nxt
    out[LIMIT] = sum(alive.values(), Fraction(0))
    return Dist(out)


def check_law(bonus: int, tn: int, mode: str, doubles: bool = True) -> Dist:
    """(success, MoS) of a check; ``doubles=False`` is the mistake of ignoring doubles."""
    law = dice.exact_check(bonus, tn, mode)
    if doubles:
        return law
    # Brute force without the doubles rule: keep the best (worst) pair by the raw sum.
    pmf: dict = {}
    faces = range(1, 11)
    if mode == dice.NORMAL:
        combos = [((a, b), Fraction(1, 100)) for a in faces for b in faces]
        for (a, b), p in combos:
            m = a + b + bonus - tn
            pmf[(m >= 0, m)] = pmf.get((m >= 0, m), 0) + p
    else:
        for a in faces:
            for b in faces:
                for c in faces:
                    s = sorted((a, b, c))
                    kept = s[1] + s[2] if mode == dice.ADVANTAGE else s[0] + s[1]
                    m = kept + bonus - tn
                    pmf[(m >= 0, m)] = pmf.get((m >= 0, m), 0) + Fraction(1, 1000)
    return Dist(pmf)


def attack_law(
    bonus: int,
    tn: int,
    base: int,
    strength: int,
    pt: int,
    dr: int,
    *,
    mode: str = dice.NORMAL,
    burst: bool = False,
    edge_damage: bool = False,
    mos_dice: bool = True,
    doubles: bool = True,
    dr_round_up: bool = False,
    burst_die: bool = True,
    edge_dice: bool = True,
    failure_disadvantage: bool = True,
    spent_by_the_check: bool = True,
) -> AttackLaw:
    """One attack's (dealt, Edge spent, Disadvantage left) from the dice layer; the keyword
    switches after ``edge_damage`` build the plausible mistakes the samples must reject.

    Ruling 23: a pending Disadvantage joins the conditions (against Advantage it cancels) and
    the check's own failure tier decides whether the next check has one."""
    plain = check_law(bonus, tn, mode, doubles)
    penalised = check_law(bonus, tn, dice.check_mode(mode == dice.ADVANTAGE, True).mode, doubles)

    def armor(x: int) -> int:
        if not dr_round_up:
            return dice.apply_armor(x, pt, dr)
        return 0 if x < pt else x - ceil(x * dr / 100)

    @cache
    def law(edge_left: int, pending: bool) -> Dist:
        spend = edge_damage and edge_left > 0

        def hit(outcome) -> Dist:
            success, mos = outcome
            later = failure_disadvantage and (
                dice.failure_disadvantage(dice.mos_tier(mos)) is not None
                or (pending and not spent_by_the_check)
            )
            if not success:
                return Dist.point((0, 0, later))
            extra = dice.mos_damage_dice(mos) if mos_dice else 0
            n = base + extra + (1 if burst and burst_die else 0) + (2 if spend and edge_dice else 0)
            return Dist.dice_sum(n, 6, strength).map(lambda x: (armor(x), int(spend), later))

        return (penalised if pending else plain).bind(hit)

    return law


# --- case 1: a heavy pistol against light armor, one action a turn ----------------------------

# Shooter: Firearms 5 + Agility 5 + Perception 4 = +14, Reflexes 4 + 1d6 (5-10): one action a
# turn. Heavy pistol 3d6+5 at 30 m: long range, TN 25, + the target's Dodge 2 = 27. Target:
# Body 4 (30 health, down at 30), light armor PT15/DR20. No Edge anywhere.
PISTOL = {"kind": "firearm", "damage": "3d6+5", "ranges": [5, 20, 40, 60], "ammo": 500}
LIGHT = {"pt": 15, "dr": 20}
SHOOTER_1 = {
    "attributes": {"body": 4, "agility": 5, "reflexes": 4, "strength": 3, "perception": 4},
    "skills": {"firearms": 5},
    "weapons": ["gun"],
    "tactics": {"movement": "hold"},
}
TARGET = {
    "attributes": {"body": 4, "agility": 4, "reflexes": 4, "strength": 3, "perception": 3},
    "skills": {"dodge": 2},
    "weapons": ["toy"],
    "armor": "suit",
    "tactics": {"movement": "hold"},
}
LIMIT_1 = 10
BATTLES_1 = 5000  # every mistake below is rejected at p < 1e-8 (module docstring)


def law_1(**mistake) -> AttackLaw:
    return attack_law(14, 27, 3, 5, 15, 20, **mistake)


@pytest.fixture(scope="module")
def samples_1():
    sc = scenario(SHOOTER_1, TARGET, PISTOL, LIGHT, LIMIT_1)
    return simulated_kill_turns(sc, seed=20970, battles=BATTLES_1)


def test_exact_kill_time_agrees_with_sums_of_independent_attacks():
    """A check of the chain itself: without Edge and without ruling 23's carried Disadvantage
    the attacks are independent, so the target is down by turn k exactly when k attacks of
    ``exact_attack_damage`` (the dice layer's own mixture) add up to 30."""
    law = exact_kill_turns(law_1(failure_disadvantage=False), 30, 0, 1, LIMIT_1)
    assert sum(law.values()) == 1
    one = dice.exact_attack_damage(14, 27, 3, 5, pt=15, dr=20)
    assert max(one) == 28  # 3d6+5 + 2d6 = 35 at most, 28 after DR 20: never one-shot
    assert law[1] == 0
    by_turn = Fraction(0)
    for k in range(1, LIMIT_1 + 1):
        by_turn += law[k]
        assert by_turn == (one * k).at_least(30)
    assert 0 < law[LIMIT] < Fraction(1, 2)


def test_heavy_pistol_kill_time_fits_the_exact_distribution(samples_1):
    assert_fits(samples_1, exact_kill_turns(law_1(), 30, 0, 1, LIMIT_1))


@pytest.mark.parametrize(
    "wrong",
    [
        law_1(mos_dice=False),
        law_1(dr_round_up=True),
        attack_law(14, 25, 3, 5, 15, 20),
        law_1(failure_disadvantage=False),
        law_1(spent_by_the_check=False),
    ],
    ids=[
        "no MoS dice",
        "DR rounded up",
        "Dodge left out of the TN",
        "no failure Disadvantage (ruling 23)",
        "failure Disadvantage never spent",
    ],
)
def test_heavy_pistol_samples_reject_plausible_mistakes(samples_1, wrong):
    exact = exact_kill_turns(wrong, 30, 0, 1, LIMIT_1)
    assert chi_square_p(tally(samples_1), exact) < ALPHA * 1e-4


# --- case 2: smartlinked bursts with Edge on damage, two actions a turn --------------------------

# Shooter: Firearms 4 + Agility 4 + Perception 4 = +12, Reflexes 14 + 1d6 (15-20): actions at
# the result and 10 lower, two a turn. Smartgun SMG with a smartlink: Advantage. Bursts:
# 2d6+4 + 1d6. At 30 m: medium range, TN 20, + Dodge 3 less 2 for medium armor = 21. Edge 3,
# spent on +2d6 damage on every hit (reserve 0) until it runs out. Target: Body 5 (35
# health), medium armor PT25/DR40.
SMG = {
    "kind": "firearm",
    "damage": "2d6+4",
    "ranges": [10, 40, 80, 150],
    "ammo": 600,
    "burst": True,
    "smartgun": True,
}
MEDIUM = {"pt": 25, "dr": 40, "weight": "medium"}
SHOOTER_2 = {
    "attributes": {"body": 4, "agility": 4, "reflexes": 14, "strength": 3, "perception": 4},
    "skills": {"firearms": 4},
    "smartlink": True,
    "edge": 3,
    "weapons": ["gun"],
    "tactics": {"movement": "hold", "rules": {"attack": "never", "damage": "always", "reserve": 0}},
}
TARGET_2 = {
    **TARGET,
    "attributes": {**TARGET["attributes"], "body": 5},
    "skills": {"dodge": 3},
}
LIMIT_2 = 6
BATTLES_2 = 3000


def law_2(**mistake) -> AttackLaw:
    return attack_law(
        12, 21, 2, 4, 25, 40, mode=dice.ADVANTAGE, burst=True, edge_damage=True, **mistake
    )


@pytest.fixture(scope="module")
def samples_2():
    sc = scenario(SHOOTER_2, TARGET_2, SMG, MEDIUM, LIMIT_2)
    return simulated_kill_turns(sc, seed=20971, battles=BATTLES_2)


def test_burst_with_edge_kill_time_fits_the_exact_distribution(samples_2):
    exact = exact_kill_turns(law_2(), 35, 3, 2, LIMIT_2)
    assert sum(exact.values()) == 1
    assert_fits(samples_2, exact)


@pytest.mark.parametrize(
    "wrong",
    [
        law_2(burst_die=False),
        law_2(edge_dice=False),
        law_2(doubles=False),
        attack_law(12, 21, 2, 4, 25, 40, burst=True, edge_damage=True),
        attack_law(12, 23, 2, 4, 25, 40, mode=dice.ADVANTAGE, burst=True, edge_damage=True),
    ],
    ids=[
        "burst without its die",
        "no Edge dice",
        "doubles ignored",
        "Advantage left out",
        "medium armor's Dodge penalty left out",
    ],
)
def test_burst_samples_reject_plausible_mistakes(samples_2, wrong):
    exact = exact_kill_turns(wrong, 35, 3, 2, LIMIT_2)
    assert chi_square_p(tally(samples_2), exact) < ALPHA * 1e-4
