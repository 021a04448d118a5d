"""Shadowrun: 2097 damage through armor (rulings 14-15) and Edge spent only to remove
Disadvantage (ruling 13): worked examples by hand, exact against brute force and sampling.

False-failure budget: each sampling test is one ``assert_fits`` at ``ALPHA = 1e-4`` with a fixed
seed (see tests/stats.py); this file adds 4, so a correct build with fresh seeds would fail one
with probability below 4e-4.
"""

from __future__ import annotations

from fractions import Fraction
from itertools import product

import numpy as np
import pytest

from combatsim.dice import sr2097 as sr
from combatsim.dice.exact import Dist
from combatsim.errors import UsageError
from tests.stats import assert_fits, chi_square_p

MISS, STOPPED, THROUGH = sr.MISS, sr.STOPPED, sr.THROUGH


# --- worked examples by hand --------------------------------------------------------------------


def test_ruling_15_example_16_against_pt_15_dr_30_leaves_12():
    assert sr.exact_hit_outcome(0, 16, pt=15, dr=30) == Dist.point((THROUGH, 12))
    assert sr.armor_outcome(16, 15, 30) == (THROUGH, 12)
    assert sr.armor_outcome(14, 15, 30) == (STOPPED, 0)
    assert sr.armor_outcome(None, 15, 30) == (MISS, 0)


def test_1d6_against_pt_4_dr_50_by_hand():
    # 1-3 are below PT 4: stopped. 4 loses 2 (4 - 2), 5 loses floor(2.5) = 2 (3), 6 loses 3 (3).
    out = sr.exact_hit_outcome(1, 0, pt=4, dr=50)
    assert out == Dist(
        {(STOPPED, 0): Fraction(1, 2), (THROUGH, 2): Fraction(1, 6), (THROUGH, 3): Fraction(1, 3)}
    )
    assert out.map(lambda o: o[1]).mean() == Fraction(4, 3)


def test_dr_rounds_the_soaked_part_down_so_more_gets_through():
    # 7 at DR 25: 1.75 soaked, rounded down to 1, leaves 6 (rounding up would leave 5).
    assert sr.exact_hit_outcome(0, 7, dr=25) == Dist.point((THROUGH, 6))


def test_full_dr_stops_every_hit_even_at_or_above_pt():
    assert sr.exact_hit_outcome(2, 3, pt=0, dr=100) == Dist.point((STOPPED, 0))


@pytest.mark.parametrize(("mos", "dice"), [(0, 1), (4, 1), (5, 2), (9, 2), (10, 3), (25, 3)])
def test_the_hits_margin_adds_its_damage_dice(mos, dice):
    out = sr.exact_hit_outcome(1, 2, mos=mos)
    assert out.map(lambda o: o[1]) == Dist.dice_sum(dice, 6, 2)


def test_burst_and_edge_add_one_and_two_dice():
    out = sr.exact_hit_outcome(2, 0, burst=True, edge_damage=True)
    assert out.map(lambda o: o[1]) == Dist.dice_sum(5, 6)


def test_attack_at_bonus_10_tn_30_hits_only_on_double_10s_with_margin_5():
    # d = -20: only 10 + 10 reaches the TN, a kept double (+5): MoS 5, one more d6.
    out = sr.exact_attack_outcome(10, 30, 1, 0, pt=7)
    two_d6 = Dist.dice_sum(2, 6)
    assert out[(MISS, 0)] == Fraction(99, 100)
    assert out[(STOPPED, 0)] == Fraction(1, 100) * two_d6.prob(lambda s: s < 7)
    assert out[(STOPPED, 0)] == Fraction(15, 3600)
    for s in range(7, 13):
        assert out[(THROUGH, s)] == Fraction(1, 100) * two_d6[s]


def test_exact_attack_damage_is_the_outcome_without_its_kind():
    kwargs = {"mode": sr.ADVANTAGE, "burst": True, "pt": 15, "dr": 30}
    outcome = sr.exact_attack_outcome(14, 27, 3, 5, **kwargs)
    assert sr.exact_attack_damage(14, 27, 3, 5, **kwargs) == outcome.map(lambda o: o[1])
    assert outcome.total() == 1


def test_attack_outcome_matches_brute_force_over_faces_and_damage_dice():
    """Every 2d10 and every d6 of the damage roll, through ``resolve_check`` and ``apply_armor``."""
    bonus, tn, pt, dr = 8, 20, 9, 20
    pmf: dict[tuple[str, int], Fraction] = {}
    for faces in product(range(1, 11), repeat=2):
        check = sr.resolve_check(faces, bonus, tn)
        if not check.success:
            key, p = (MISS, 0), Fraction(1, 100)
            pmf[key] = pmf.get(key, Fraction(0)) + p
            continue
        n = sr.damage_dice(1, check.extra_damage_dice)
        for d6 in product(range(1, 7), repeat=n):
            rolled = sum(d6) + 2  # the weapon's 1d6+2, straight from ruling 15's words:
            dealt = 0 if rolled < pt else rolled - rolled * dr // 100
            key = (THROUGH, dealt) if dealt else (STOPPED, 0)
            pmf[key] = pmf.get(key, Fraction(0)) + Fraction(1, 100) / 6**n
    assert sr.exact_attack_outcome(bonus, tn, 1, 2, pt=pt, dr=dr) == Dist(pmf)


@pytest.mark.parametrize(
    "kwargs",
    [{"mos": -1}, {"mos": True}, {"pt": -1}, {"dr": 101}, {"dr": -5}],
)
def test_bad_hit_arguments_are_refused(kwargs):
    with pytest.raises(UsageError):
        sr.exact_hit_outcome(2, 3, **kwargs)


# --- Edge spent only to remove Disadvantage (seed "Using Edge"; ruling 13) ----------------------


def test_edge_removing_disadvantage_rolls_2d10_with_the_edge_double():
    mode = sr.check_mode(disadvantage=True, edge=sr.EDGE_REMOVE_DISADVANTAGE)
    assert mode == sr.CheckMode(sr.NORMAL, True)
    # d = -12: 2d10 >= 12 in 45 of 100 rolls; with Edge the doubles 4-4 and 5-5 (8 + 5 = 13,
    # 10 + 5 = 15) succeed too: 47/100. Disadvantage left in place does worse.
    assert sr.p_success(10, 22, mode.mode, mode.edge) == Fraction(47, 100)
    assert sr.p_success(10, 22) == Fraction(45, 100)
    assert sr.p_success(10, 22, sr.DISADVANTAGE) < Fraction(45, 100)


def test_edge_removing_disadvantage_keeps_advantage_from_another_source():
    mode = sr.check_mode(True, True, edge=sr.EDGE_REMOVE_DISADVANTAGE)
    assert mode == sr.CheckMode(sr.ADVANTAGE, True)


# --- sampling ------------------------------------------------------------------------------------


def _kinds(hit: np.ndarray, dealt: np.ndarray) -> list[tuple[str, int]]:
    return [
        (MISS, 0) if not h else (THROUGH, int(d)) if d else (STOPPED, 0)
        for h, d in zip(hit.tolist(), dealt.tolist(), strict=True)
    ]


@pytest.mark.parametrize(
    ("seed", "mos", "kwargs"),
    [(2097_1, 0, {"pt": 8, "dr": 25}), (2097_2, 7, {"pt": 12, "dr": 40, "burst": True})],
)
def test_sampled_hit_damage_fits_exact(seed, mos, kwargs):
    # 60,000 hits: PT off by one moves 1/12 or more of the mass, rejected outright.
    rng = np.random.default_rng(seed)
    dealt = sr.sample_hit_damage(rng, 2, 3, 60_000, mos=mos, **kwargs)
    exact = sr.exact_hit_outcome(2, 3, mos=mos, **kwargs)
    assert_fits(_kinds(np.ones(len(dealt), dtype=bool), dealt), exact)


def test_sampled_attack_outcome_fits_exact_and_rejects_dr_rounded_up():
    rng = np.random.default_rng(2097_3)
    kwargs = {"mode": sr.ADVANTAGE, "edge": True, "pt": 10, "dr": 30}
    hit, dealt = sr.sample_attack_outcome(rng, 12, 22, 2, 4, 80_000, **kwargs)
    samples = _kinds(hit, dealt)
    assert_fits(samples, sr.exact_attack_outcome(12, 22, 2, 4, **kwargs))

    def soaked_rounded_up(outcome):  # a wrong reading of ruling 15
        kind, rolled = outcome
        if kind == MISS:
            return outcome
        if rolled < 10:
            return STOPPED, 0
        return THROUGH, rolled - (-(-rolled * 30 // 100))

    unarmored = sr.exact_attack_outcome(12, 22, 2, 4, mode=sr.ADVANTAGE, edge=True)
    wrong = unarmored.map(soaked_rounded_up)
    counts: dict[tuple[str, int], int] = {}
    for s in samples:
        counts[s] = counts.get(s, 0) + 1
    assert chi_square_p(counts, wrong) < 1e-6


def test_sampled_edge_removed_disadvantage_fits_exact():
    rng = np.random.default_rng(2097_4)
    mode = sr.check_mode(disadvantage=True, edge=sr.EDGE_REMOVE_DISADVANTAGE)
    success, mos = sr.sample_check(rng, 10, 22, 50_000, mode.mode, mode.edge)
    pairs = list(zip(success.tolist(), mos.tolist(), strict=True))
    assert_fits(pairs, sr.exact_check(10, 22, mode.mode, mode.edge))
