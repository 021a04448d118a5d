"""Shadowrun: 2097 (seed 003; rulings 13-15): worked examples, exact math, samplers vs exact."""

from __future__ import annotations

from collections import Counter
from fractions import Fraction
from itertools import product

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from combatsim.dice import sr2097 as sr
from combatsim.dice.exact import Dist
from combatsim.errors import UsageError
from tests.stats import assert_fits, chi_square_p

ADV, DIS, NORMAL = sr.ADVANTAGE, sr.DISADVANTAGE, sr.NORMAL


def scripted(*rolls):
    """A ``draw(sides, k)`` that hands out the given faces and checks what was asked for."""
    queue = list(rolls)

    def draw(sides, k):
        want_sides, faces = queue.pop(0)
        assert (sides, k) == (want_sides, len(faces))
        return list(faces)

    draw.queue = queue
    return draw


def rng_draw(rng):
    return lambda sides, k: rng.integers(1, sides + 1, size=k).tolist()


# --- an independent reading of the rules, for brute-force enumeration -----------------------------


def oracle_mos(kept, bonus, tn, edge):
    """MoS of two kept d10 straight from the seed's text ("Rolling Double", "Using Edge")."""
    total = kept[0] + kept[1] + bonus
    mos = total - tn
    if kept[0] == kept[1]:
        if edge or total >= tn:
            mos += 5
        else:
            mos -= 5
    return mos


def oracle_check(faces, bonus, tn, mode, edge):
    """Ruling 13: the player keeps the best pair (Advantage), the GM the worst (Disadvantage)."""
    if mode == NORMAL:
        return oracle_mos(faces, bonus, tn, edge)
    options = [oracle_mos(faces[:i] + faces[i + 1 :], bonus, tn, edge) for i in range(3)]
    return max(options) if mode == ADV else min(options)


def brute_force_check(bonus, tn, mode, edge):
    k = 2 if mode == NORMAL else 3
    p = Fraction(1, 10**k)
    return Dist(
        ((m >= 0, m), p)
        for faces in product(range(1, 11), repeat=k)
        for m in [oracle_check(faces, bonus, tn, mode, edge)]
    )


MODE_EDGE = [(NORMAL, False), (ADV, False), (DIS, False), (NORMAL, True), (ADV, True)]
# Margins where doubles decide things: near the TN (d = -20 .. -10) and far on either side.
BONUS_TN = [(10, 20), (10, 25), (10, 27), (0, 12), (15, 30), (5, 30), (20, 15), (0, 40)]


# ==================================================================================================
# Worked examples with given faces
# ==================================================================================================


def test_double_on_a_success_adds_five_to_mos():
    r = sr.resolve_check((6, 6), 10, 20)
    assert (r.total, r.success, r.double, r.mos) == (22, True, True, 7)
    assert r.tier == sr.SIGNIFICANT_SUCCESS and r.extra_damage_dice == 1


def test_double_on_a_failure_subtracts_five_from_mos():
    r = sr.resolve_check((4, 4), 10, 20)
    assert (r.total, r.success, r.double, r.mos) == (18, False, True, -7)
    assert r.tier == sr.SIGNIFICANT_FAILURE


def test_plain_roll_has_mos_total_minus_tn():
    r = sr.resolve_check((4, 5), 10, 20)
    assert (r.total, r.success, r.double, r.mos) == (19, False, False, -1)
    assert r.tier == sr.MARGINAL_FAILURE


def test_edge_double_turns_a_failure_into_a_success():
    r = sr.resolve_check((4, 4), 10, 20, edge=True)
    assert (r.total, r.success, r.mos, r.edge) == (18, True, 3, True)
    assert r.tier == sr.MARGINAL_SUCCESS


def test_edge_double_reduces_a_failure_it_cannot_save():
    r = sr.resolve_check((2, 2), 10, 25, edge=True)
    assert (r.success, r.mos) == (False, -6)  # 14 - 25 + 5, not - 5


def test_advantage_keeps_a_double_instead_of_the_highest_die_when_the_margin_is_better():
    r = sr.resolve_check((8, 8, 10), 10, 20, ADV)
    # (8, 10) would be MoS 8; (8, 8) succeeds with 26 and the double makes it 6 + 5 = 11.
    assert r.kept == (8, 8) and r.removed == 10 and r.removed_reason == sr.REMOVED_KEEPS_DOUBLE
    assert (r.mos, r.double, r.tier, r.extra_damage_dice) == (11, True, sr.COMPLETE_SUCCESS, 2)


def test_disadvantage_breaks_up_a_double_that_would_succeed_and_says_so():
    r = sr.resolve_check((8, 10, 8), 10, 20, sr.DISADVANTAGE)
    # (8, 8) = 26 succeeds and the double makes it 6 + 5 = 11; (10, 8) = 28 is MoS 8: the GM
    # removes an 8, not the highest die. The label says the double was broken, not kept.
    assert r.removed == 8 and sorted(r.kept) == [8, 10] and not r.double
    assert (r.removed_reason, r.mos) == (sr.REMOVED_BREAKS_DOUBLE, 8)


def test_advantage_removes_the_lowest_when_the_double_would_fail():
    r = sr.resolve_check((8, 8, 10), 10, 27, ADV)
    # (8, 8) = 26 fails and costs 5 more; (8, 10) = 28 succeeds with MoS 1.
    assert r.kept == (8, 10) and r.removed == 8 and r.removed_reason == sr.REMOVED_LOWEST
    assert (r.mos, r.success, r.double) == (1, True, False)


def test_advantage_with_edge_keeps_a_double_that_turns_failure_into_success():
    r = sr.resolve_check((3, 3, 4), 10, 20, ADV, edge=True)
    # (3, 4) = 17 fails by 3; the Edge double (3, 3) = 16 is -4 + 5 = +1.
    assert r.kept == (3, 3) and r.removed_reason == sr.REMOVED_KEEPS_DOUBLE
    assert (r.mos, r.success) == (1, True)
    assert sr.resolve_check((3, 3, 4), 10, 20, ADV).mos == -3  # without Edge: lowest removed


def test_disadvantage_forces_a_double_when_that_fails_worse():
    r = sr.resolve_check((3, 7, 7), 10, 25, DIS)
    # (3, 7) = 20 fails by 5; the GM removes the 3: (7, 7) = 24 fails by 1, and the double -5.
    assert r.kept == (7, 7) and r.removed == 3 and r.removed_reason == sr.REMOVED_KEEPS_DOUBLE
    assert (r.mos, r.tier) == (-6, sr.SIGNIFICANT_FAILURE)


def test_disadvantage_removes_the_highest_when_a_double_would_succeed():
    r = sr.resolve_check((3, 7, 7), 10, 20, DIS)
    # (7, 7) = 24 would succeed with MoS 4 + 5; (3, 7) = 20 is MoS 0.
    assert r.kept == (3, 7) and r.removed == 7 and r.removed_reason == sr.REMOVED_HIGHEST
    assert (r.mos, r.success) == (0, True)


def test_advantage_and_disadvantage_normally_remove_lowest_and_highest():
    a = sr.resolve_check((2, 9, 5), 12, 20, ADV)
    d = sr.resolve_check((2, 9, 5), 12, 20, DIS)
    assert (a.kept, a.removed, a.removed_reason, a.mos) == ((9, 5), 2, sr.REMOVED_LOWEST, 6)
    assert (d.kept, d.removed, d.removed_reason, d.mos) == ((2, 5), 9, sr.REMOVED_HIGHEST, -1)


@pytest.mark.parametrize(
    ("mos", "tier", "dice", "later"),
    [
        (-16, sr.COMPLETE_FAILURE, 0, sr.ANY),
        (-11, sr.COMPLETE_FAILURE, 0, sr.ANY),
        (-10, sr.SIGNIFICANT_FAILURE, 0, sr.RELATED),
        (-6, sr.SIGNIFICANT_FAILURE, 0, sr.RELATED),
        (-5, sr.MARGINAL_FAILURE, 0, None),
        (-1, sr.MARGINAL_FAILURE, 0, None),
        (0, sr.MARGINAL_SUCCESS, 0, None),
        (4, sr.MARGINAL_SUCCESS, 0, None),
        (5, sr.SIGNIFICANT_SUCCESS, 1, None),
        (9, sr.SIGNIFICANT_SUCCESS, 1, None),
        (10, sr.COMPLETE_SUCCESS, 2, None),
        (17, sr.COMPLETE_SUCCESS, 2, None),
    ],
)
def test_mos_tiers_attack_dice_and_failure_disadvantage_follow_the_seed_table(
    mos, tier, dice, later
):
    """Seed "Magnitude of Success/Failure" and ruling 23: a significant failure leaves
    Disadvantage on the next related check, a complete failure on the next check of any kind."""
    assert sr.mos_tier(mos) == tier
    assert sr.mos_damage_dice(mos) == dice
    assert sr.failure_disadvantage(tier) == later


def test_a_double_on_a_failure_can_make_it_complete():
    """6 + 6 + 12 = 24 vs TN 31 is -7 (significant), and the double's -5 makes it -12."""
    r = sr.resolve_check((6, 6), 12, 31)
    assert (r.mos, r.tier) == (-12, sr.COMPLETE_FAILURE)
    assert sr.failure_disadvantage(r.tier) == sr.ANY


def test_street_samurai_sword_is_2d6_plus_6_and_4d6_plus_6_on_mos_10():
    assert sr.resolve_damage((3, 5), 2, 6).total == 14
    assert sr.damage_dice(2, mos_dice=sr.mos_damage_dice(10)) == 4
    assert sr.resolve_damage((3, 5, 2, 6), 2, 6, mos_dice=2).total == 22
    with pytest.raises(UsageError):
        sr.resolve_damage((3, 5), 2, 6, mos_dice=2)  # MoS 10+ needs 4 dice


def test_street_samurai_attack_with_mos_10_rolls_four_dice():
    draw = scripted((10, (9, 6)), (6, (3, 5, 2, 6)))
    a = sr.roll_attack(draw, 15, 20, 2, 6)
    assert (a.check.mos, a.check.tier) == (10, sr.COMPLETE_SUCCESS)
    assert a.damage.faces == (3, 5, 2, 6) and a.damage.total == 22 and a.dealt == 22
    assert draw.queue == []


def test_guard_smg_burst_is_3d6_plus_4():
    assert sr.damage_dice(2, burst=True) == 3
    assert sr.resolve_damage((1, 2, 3), 2, 4, burst=True).total == 10
    assert sr.exact_damage(2, 4, burst=True) == Dist.dice_sum(3, 6, 4)


def test_guard_burst_attack_stopped_by_light_armor():
    draw = scripted((10, (5, 3)), (6, (1, 2, 3)))
    a = sr.roll_attack(draw, 12, 20, 2, 4, burst=True, pt=15, dr=20)
    assert (a.check.mos, a.damage.total, a.dealt) == (0, 10, 0)


def test_miss_rolls_no_damage():
    draw = scripted((10, (1, 2)))
    a = sr.roll_attack(draw, 10, 20, 2, 6)
    assert (a.check.success, a.damage, a.dealt) == (False, None, 0)
    assert draw.queue == []


def test_edge_boosts_damage_by_2d6():
    assert sr.damage_dice(2, edge=True) == 4
    assert sr.resolve_damage((6, 6, 1, 1), 2, 6, edge=True).total == 20


def test_pistol_needs_11_on_2d6_to_reach_pt_15():
    penetrating = [s for s in range(2, 13) if sr.apply_armor(s + 4, 15, 30) > 0]
    assert penetrating == [11, 12]
    after = sr.exact_after_armor(sr.exact_damage(2, 4), 15, 30)
    assert after[0] == Fraction(33, 36)


def test_16_against_pt15_dr30_leaves_12():
    assert sr.apply_armor(16, 15, 30) == 12
    assert sr.apply_armor(15, 15, 30) == 11  # at PT it penetrates; floor(4.5) = 4 soaked
    assert sr.apply_armor(14, 15, 30) == 0  # below PT: stopped


def test_roll_check_draws_three_d10_with_advantage_and_two_without():
    draw = scripted((10, (8, 8, 10)), (10, (4, 4)))
    assert sr.roll_check(draw, 10, 20, ADV).mos == 11
    assert sr.roll_check(draw, 10, 20, NORMAL, edge=True).mos == 3
    assert draw.queue == []


# --- combining Advantage / Disadvantage / Edge ----------------------------------------------------


def test_both_advantage_and_disadvantage_is_neither():
    assert sr.check_mode(True, True) == sr.CheckMode(NORMAL, False)
    assert sr.check_mode(True, False).mode == ADV
    assert sr.check_mode(False, True).mode == DIS
    assert sr.check_mode().mode == NORMAL


def test_removing_disadvantage_lets_advantage_from_another_source_stand():
    # Night-vision goggles: removing Disadvantage is not granting Advantage.
    assert sr.check_mode(True, True, removes_disadvantage=True).mode == ADV
    assert sr.check_mode(False, True, removes_disadvantage=True).mode == NORMAL
    assert sr.check_mode(True, True, removes_advantage=True).mode == DIS


def test_edge_gains_advantage_or_removes_disadvantage_and_marks_the_check():
    assert sr.check_mode(edge=sr.EDGE_GAIN_ADVANTAGE) == sr.CheckMode(ADV, True)
    remove = sr.EDGE_REMOVE_DISADVANTAGE
    assert sr.check_mode(False, True, edge=remove) == sr.CheckMode(NORMAL, True)
    assert sr.check_mode(True, True, edge=remove) == sr.CheckMode(ADV, True)
    # Bought Advantage against Disadvantage cancels it: neither, but Edge was spent.
    assert sr.check_mode(False, True, edge=sr.EDGE_GAIN_ADVANTAGE) == sr.CheckMode(NORMAL, True)


def test_edge_cannot_buy_advantage_already_held_or_remove_absent_disadvantage():
    with pytest.raises(UsageError, match="edge"):
        sr.check_mode(True, False, edge=sr.EDGE_GAIN_ADVANTAGE)
    with pytest.raises(UsageError, match="edge"):
        sr.check_mode(True, False, edge=sr.EDGE_REMOVE_DISADVANTAGE)
    with pytest.raises(UsageError, match="edge"):
        sr.check_mode(edge="both")


def test_bad_arguments_raise_usage_error_naming_them():
    with pytest.raises(UsageError, match="faces"):
        sr.resolve_check((1, 2, 3), 10, 20)  # three dice on a normal check
    with pytest.raises(UsageError, match="faces"):
        sr.resolve_check((0, 11), 10, 20)
    with pytest.raises(UsageError, match="mode"):
        sr.resolve_check((1, 2), 10, 20, "lucky")
    with pytest.raises(UsageError, match="edge"):
        sr.resolve_check((1, 2, 3), 10, 20, DIS, edge=True)
    with pytest.raises(UsageError, match="pt"):
        sr.apply_armor(10, -1, 30)
    with pytest.raises(UsageError, match="dr"):
        sr.apply_armor(10, 15, 101)
    with pytest.raises(UsageError, match="base_dice"):
        sr.damage_dice(-1)
    with pytest.raises(UsageError, match="faces"):
        sr.resolve_damage((7, 1), 2, 6)


# ==================================================================================================
# Exact math
# ==================================================================================================


@pytest.mark.parametrize(("at_least", "percent"), [(5, 94), (10, 64), (15, 21)])
def test_seed_2d10_probabilities(at_least, percent):
    p = sr.p_success(0, at_least)
    assert round(100 * p) == percent
    assert p == sr.exact_kept_sum(NORMAL).at_least(at_least)


def test_seed_probability_of_rolling_20_is_1_percent():
    assert sr.exact_kept_sum(NORMAL)[20] == Fraction(1, 100)


def test_advantage_and_disadvantage_are_worth_about_2_5_ignoring_doubles():
    assert sr.mean_kept_sum(NORMAL) == 11
    assert sr.mean_kept_sum(ADV) - 11 == Fraction(2475, 1000)
    assert sr.mean_kept_sum(DIS) - 11 == Fraction(-2475, 1000)
    # ... and neither changes the extremes (seed: "do not affect the maximum or minimum").
    for mode in (ADV, DIS):
        assert min(sr.exact_kept_sum(mode)) == 2 and max(sr.exact_kept_sum(mode)) == 20


@pytest.mark.parametrize(
    ("bonus", "tn", "about", "within"),
    [
        (15, 20, Fraction(95, 100), 0.015),
        (10, 20, Fraction(2, 3), 0.03),
        (15, 25, Fraction(2, 3), 0.03),
        (15, 30, Fraction(1, 5), 0.015),
    ],
)
def test_seed_difficulty_examples(bonus, tn, about, within):
    assert abs(float(sr.p_success(bonus, tn)) - float(about)) <= within


def test_advantage_and_edge_raise_the_professionals_chances():
    # Seed "Difficulty levels": Advantage, then Edge, improve the TN 30 professional.
    base = sr.p_success(15, 30)
    adv = sr.p_success(15, 30, ADV)
    edge = sr.p_success(15, 30, ADV, edge=True)
    assert base < adv < edge


@pytest.mark.parametrize(("mode", "edge"), MODE_EDGE)
def test_success_chance_counts_what_p_success_sums(mode, edge):
    """``success_chance`` (the integer count a battle's Edge policy reads) is ``p_success``
    (the exact joint table's sum), fraction for fraction, at every margin from always failing
    to always succeeding; so are their floats, which the policy compares."""
    for d in range(-35, 16):
        counted = sr.success_chance(d, 0, mode, edge)
        assert counted == sr.p_success(d, 0, mode, edge), d
        assert float(counted) == float(sr.p_success(20 + d, 20, mode, edge)), d
    assert sr.success_chance(-35, 0, mode, edge) == 0 and sr.success_chance(15, 0, mode, edge) == 1


def test_without_edge_doubles_never_change_success():
    for bonus, tn in BONUS_TN:
        assert sr.p_success(bonus, tn) == Dist.dice_sum(2, 10, bonus).at_least(tn)


@pytest.mark.parametrize(("mode", "edge"), MODE_EDGE)
@pytest.mark.parametrize(("bonus", "tn"), BONUS_TN)
def test_exact_check_matches_brute_force_over_all_outcomes(mode, edge, bonus, tn):
    exact = sr.exact_check(bonus, tn, mode, edge)
    assert exact.total() == 1
    assert all(success == (mos >= 0) for success, mos in exact)
    assert exact == brute_force_check(bonus, tn, mode, edge)


@pytest.mark.parametrize(("mode", "edge"), MODE_EDGE)
def test_resolver_agrees_with_the_rule_text_on_every_ordered_roll(mode, edge):
    k = 2 if mode == NORMAL else 3
    for bonus, tn in [(10, 20), (10, 25), (15, 30)]:
        for faces in product(range(1, 11), repeat=k):
            r = sr.resolve_check(faces, bonus, tn, mode, edge)
            assert r.mos == oracle_check(faces, bonus, tn, mode, edge), faces
            assert r.mos == oracle_mos(r.kept, bonus, tn, edge)
            assert Counter(r.kept) + Counter([] if r.removed is None else [r.removed]) == Counter(
                faces
            )


@pytest.mark.parametrize(("mode", "edge"), MODE_EDGE)
def test_check_outcome_is_the_resolvers_mos_and_double_on_every_ordered_roll(mode, edge):
    """The battle's fast path (``check_outcome``) against ``resolve_check``: every face and
    every ``bonus - TN`` from where no roll succeeds to where every roll does, so each
    doubles adjustment and each keep-a-double tie is met."""
    k = 2 if mode == NORMAL else 3
    for d in range(-22, 2):
        for faces in product(range(1, 11), repeat=k):
            r = sr.resolve_check(faces, d, 0, mode, edge)
            mos, double = sr.check_outcome(list(faces), d, mode, edge)
            assert (mos, double) == (r.mos, r.double), (faces, d)


def test_exact_damage_and_armor_sum_to_one_and_match_enumeration():
    dmg = sr.exact_damage(2, 4, mos_dice=1, burst=True)
    brute = Dist(
        (sr.apply_armor(sr.resolve_damage(f, 2, 4, 1, True).total, 15, 30), Fraction(1, 6**4))
        for f in product(range(1, 7), repeat=4)
    )
    after = sr.exact_after_armor(dmg, 15, 30)
    assert dmg.total() == 1 and after.total() == 1
    assert after == brute


@pytest.mark.parametrize(
    ("bonus", "tn", "mode", "edge", "kwargs"),
    [
        (10, 20, NORMAL, False, {}),
        (15, 20, ADV, False, {"burst": True, "pt": 15, "dr": 30}),
        (10, 25, ADV, True, {"edge_damage": True, "pt": 12, "dr": 20}),
        (15, 20, DIS, False, {"pt": 10, "dr": 50}),
    ],
)
def test_exact_attack_damage_matches_brute_force(bonus, tn, mode, edge, kwargs):
    k = 2 if mode == NORMAL else 3
    outcome = Counter()  # extra MoS dice of each hit, None for a miss, over all ordered rolls
    for faces in product(range(1, 11), repeat=k):
        r = sr.resolve_check(faces, bonus, tn, mode, edge)
        outcome[r.extra_damage_dice if r.success else None] += 1
    pt, dr = kwargs.get("pt", 0), kwargs.get("dr", 0)
    burst, edge_damage = kwargs.get("burst", False), kwargs.get("edge_damage", False)
    pmf = []
    for extra, count in outcome.items():
        if extra is None:
            pmf.append((0, Fraction(count, 10**k)))
            continue
        n = sr.damage_dice(2, extra, burst, edge_damage)
        for f in product(range(1, 7), repeat=n):
            total = sr.resolve_damage(f, 2, 6, extra, burst, edge_damage).total
            pmf.append((sr.apply_armor(total, pt, dr), Fraction(count, 10**k * 6**n)))
    exact = sr.exact_attack_damage(bonus, tn, 2, 6, mode=mode, edge=edge, **kwargs)
    assert exact.total() == 1
    assert exact == Dist(pmf)


# --- properties -----------------------------------------------------------------------------------

d10 = st.integers(1, 10)
bonuses = st.integers(-5, 30)
tns = st.integers(0, 45)


@given(st.tuples(d10, d10, d10), bonuses, tns, st.booleans())
def test_advantage_keeps_the_best_pair_and_disadvantage_the_worst(faces, bonus, tn, edge):
    pairs = [faces[:i] + faces[i + 1 :] for i in range(3)]
    pair_mos = [sr.resolve_check(p, bonus, tn, NORMAL, edge).mos for p in pairs]
    adv = sr.resolve_check(faces, bonus, tn, ADV, edge)
    assert adv.mos == max(pair_mos)
    assert adv.success == (adv.mos >= 0) and adv.tier == sr.mos_tier(adv.mos)
    if not edge:
        dis = sr.resolve_check(faces, bonus, tn, DIS)
        assert dis.mos == min(pair_mos)
        assert dis.mos <= adv.mos


@given(st.tuples(d10, d10), bonuses, tns)
def test_edge_never_lowers_the_margin_and_only_doubles_feel_it(faces, bonus, tn):
    plain = sr.resolve_check(faces, bonus, tn)
    edged = sr.resolve_check(faces, bonus, tn, edge=True)
    assert edged.mos >= plain.mos
    assert (edged.mos != plain.mos) == (plain.double and not plain.success)
    assert plain.success == (plain.total >= tn)  # without Edge a double never flips success


@given(st.integers(0, 200), st.integers(0, 60), st.integers(0, 100))
def test_armor_never_adds_damage_and_is_monotone_above_pt(damage, pt, dr):
    left = sr.apply_armor(damage, pt, dr)
    assert 0 <= left <= damage
    if damage >= pt:
        assert sr.apply_armor(damage + 1, pt, dr) >= left
        assert left == damage - (damage * dr) // 100


# ==================================================================================================
# Samplers vs exact (tests/stats.py: ALPHA = 1e-4 per check)
# ==================================================================================================

# 200,000 checks: a rule slip such as ignoring the keep-a-double choice, dropping the Edge bonus on
# failures or applying +5 to every double moves several percent of the mass between MoS values,
# a chi-square statistic in the thousands at this size (see the power test below).
N_CHECKS = 200_000


@pytest.mark.slow
@pytest.mark.parametrize(
    ("seed", "bonus", "tn", "mode", "edge"),
    [
        (3001, 10, 20, NORMAL, False),
        (3002, 10, 25, ADV, False),  # keep-a-double matters when 2a >= 15 and b < a + 5
        (3003, 10, 22, DIS, False),  # forcing a double matters just below the TN
        (3004, 10, 25, ADV, True),  # Edge doubles rescue failures
        (3005, 10, 22, NORMAL, True),
    ],
)
def test_sample_check_fits_exact(seed, bonus, tn, mode, edge):
    rng = np.random.default_rng(seed)
    success, mos = sr.sample_check(rng, bonus, tn, N_CHECKS, mode, edge)
    assert np.array_equal(success, mos >= 0)
    assert_fits(mos, sr.exact_mos(bonus, tn, mode, edge))


@pytest.mark.slow
def test_sample_size_rejects_advantage_that_ignores_the_keep_a_double_choice():
    """Power: the 'always remove the lowest' misreading is rejected far below ALPHA."""
    wrong = Dist(
        (oracle_mos(sorted(f)[1:], 10, 25, False), Fraction(1, 1000))
        for f in product(range(1, 11), repeat=3)
    )
    assert wrong != sr.exact_mos(10, 25, ADV)
    _, mos = sr.sample_check(np.random.default_rng(3002), 10, 25, N_CHECKS, ADV)
    counts = Counter(mos.tolist())
    assert chi_square_p(counts, wrong) < 1e-12


@pytest.mark.slow
def test_roll_check_with_generator_draw_fits_exact():
    rng = np.random.default_rng(3006)
    draw = rng_draw(rng)
    mos = [sr.roll_check(draw, 10, 25, ADV, edge=True).mos for _ in range(40_000)]
    assert_fits(mos, sr.exact_mos(10, 25, ADV, True))


@pytest.mark.slow
@pytest.mark.parametrize(
    ("seed", "base", "strength", "mos_dice", "burst", "edge"),
    [(3011, 2, 6, 0, False, False), (3012, 2, 4, 1, True, False), (3013, 3, 5, 2, False, True)],
)
def test_sample_damage_fits_exact(seed, base, strength, mos_dice, burst, edge):
    # 100,000 rolls: one die too many or too few shifts the mean by 3.5, rejected outright.
    rng = np.random.default_rng(seed)
    samples = sr.sample_damage(rng, base, strength, 100_000, mos_dice, burst, edge)
    assert_fits(samples, sr.exact_damage(base, strength, mos_dice, burst, edge))


@pytest.mark.slow
@pytest.mark.parametrize(
    ("seed", "bonus", "tn", "mode", "edge", "kwargs"),
    [
        (3021, 15, 20, NORMAL, False, {}),  # many hits with 1 or 2 MoS dice
        (3022, 15, 20, ADV, True, {"burst": True, "pt": 15, "dr": 30}),
        (3023, 10, 20, DIS, False, {"edge_damage": True, "pt": 12, "dr": 20}),
    ],
)
def test_sample_attack_damage_fits_exact(seed, bonus, tn, mode, edge, kwargs):
    # 200,000 attacks: a missing MoS die on the 5-9 tier moves ~20% of the hits by 3.5 points.
    rng = np.random.default_rng(seed)
    samples = sr.sample_attack_damage(rng, bonus, tn, 2, 6, 200_000, mode=mode, edge=edge, **kwargs)
    assert_fits(samples, sr.exact_attack_damage(bonus, tn, 2, 6, mode=mode, edge=edge, **kwargs))


@pytest.mark.slow
def test_roll_attack_with_generator_draw_fits_exact():
    rng = np.random.default_rng(3031)
    draw = rng_draw(rng)
    kwargs = {"mode": ADV, "burst": True, "pt": 15, "dr": 30}
    dealt = [sr.roll_attack(draw, 15, 20, 2, 6, **kwargs).dealt for _ in range(40_000)]
    assert_fits(dealt, sr.exact_attack_damage(15, 20, 2, 6, **kwargs))
