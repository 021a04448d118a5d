"""The 4D8 roll-under system (seed 004; rulings 20-21).

Three kinds of test, kept apart: worked examples with given faces; exact math (sums to 1,
independent formulas, exhaustive agreement of the two resolvers) with hypothesis properties;
samplers against the exact distributions with ``assert_fits``.
"""

from fractions import Fraction
from itertools import product

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from combatsim.dice import fourd8
from combatsim.dice.exact import Dist
from combatsim.dice.fourd8 import (
    ASPECTS,
    KINDS,
    chance,
    exact_degree,
    exact_kind,
    exact_outcomes,
    p_success,
    resolve,
    resolve_many,
    roll,
    sample,
)
from combatsim.errors import UsageError
from tests.stats import assert_fits

ALL_FACES = list(product(range(1, 9), repeat=4))
faces_st = st.tuples(*[st.integers(1, 8)] * 4)
over32_st = st.sampled_from(fourd8.OVER32)


# --- worked examples: chance of success ---------------------------------------------------------


def test_chance_is_ease_plus_ability_bonuses():
    assert chance(25) == 25
    assert chance(25, (3, -1)) == 27
    assert chance(30, [2, 4]) == 36  # the chance may exceed 32; the ease may not


def test_missing_required_ability_costs_eight():
    assert chance(25, required_missing=True) == 17
    assert chance(20, (2,), required_missing=True) == 14


def test_ease_has_no_lowest_value():
    assert chance(-4) == -4


@pytest.mark.parametrize("bad", [33, 40])
def test_ease_above_32_is_refused(bad):
    with pytest.raises(UsageError, match="ease"):
        chance(bad)


def test_bonuses_must_be_a_sequence_of_integers():
    with pytest.raises(UsageError, match="bonuses"):
        chance(20, 3)
    with pytest.raises(UsageError, match="bonuses"):
        chance(20, (1.5,))


# --- worked examples: the seed's rolls (ruling 20) -------------------------------------------


def test_seed_triple_5_5_5_3_has_degree_13():
    r = resolve((5, 5, 5, 3), 20)
    assert (r.success, r.degree, r.kind) == (True, 13, "triple")
    assert r.aspects == ("physical", "mental", "social")
    assert r.lesser == "magical"


def test_seed_two_pairs_4_4_2_2_has_degree_17():
    r = resolve((4, 4, 2, 2), 20)
    assert (r.success, r.degree, r.kind) == (True, 17, "two_pairs")
    assert r.aspects == ASPECTS
    assert r.groups == (("physical", "mental"), ("social", "magical"))


def test_seed_pair_6_6_3_1_has_degree_15_with_lesser_effect_from_the_3():
    r = resolve((6, 6, 3, 1), 20)
    assert (r.success, r.degree, r.kind) == (True, 15, "pair")
    assert r.aspects == ("physical", "mental")
    assert r.lesser == "social"


def test_seed_2_5_6_8_totals_21_with_degree_8():
    r = resolve((2, 5, 6, 8), 21)  # the total equals the chance: a success
    assert (r.total, r.success, r.degree, r.kind) == (21, True, 8, "none")
    assert r.aspects == ("magical",)


def test_total_one_over_the_chance_fails_with_degree_0():
    r = resolve((2, 5, 6, 8), 20)
    assert (r.total, r.success, r.degree) == (21, False, 0)
    assert r.kind == "none"  # the faces are still described on a failure


def test_snake_eyes_has_degree_1():
    r = resolve((1, 1, 1, 1), 20)
    assert (r.total, r.success, r.degree, r.kind) == (4, True, 1, "snake_eyes")
    assert r.aspects == ASPECTS


def test_snake_eyes_below_chance_4_fails_but_is_recorded():
    r = resolve((1, 1, 1, 1), 3)
    assert (r.success, r.degree, r.kind) == (False, 0, "snake_eyes")


def test_four_fives_is_a_lucky_break_of_20():
    r = resolve((5, 5, 5, 5), 20)
    assert (r.success, r.degree, r.kind) == (True, 20, "four_alike")


def test_four_eights_at_chance_32_succeeds_with_degree_32():
    r = resolve((8, 8, 8, 8), 32)
    assert (r.mode, r.success, r.degree, r.kind) == ("normal", True, 32, "four_alike")


def test_pair_on_dice_2_and_4_is_mental_and_magical():
    r = resolve((1, 6, 3, 6), 20)
    assert (r.kind, r.degree) == ("pair", 15)
    assert r.aspects == ("mental", "magical")
    assert r.lesser == "social"


def test_pair_lesser_effect_is_the_higher_remaining_die_not_the_first():
    r = resolve((7, 2, 2, 4), 20)
    assert (r.kind, r.degree, r.aspects, r.lesser) == ("pair", 11, ("mental", "social"), "physical")


def test_pair_can_be_the_lower_dice_and_still_count_the_higher_other_die():
    r = resolve((2, 8, 2, 5), 20)
    assert (r.kind, r.degree, r.lesser) == ("pair", 12, "mental")


def test_triple_records_its_aspects_and_the_fourth_die():
    r = resolve((2, 7, 7, 7), 30)
    assert (r.kind, r.degree) == ("triple", 16)
    assert r.aspects == ("mental", "social", "magical")
    assert r.lesser == "physical"


def test_two_pairs_interleaved_are_grouped_higher_pair_first():
    r = resolve((3, 6, 6, 3), 20)
    assert (r.kind, r.degree) == ("two_pairs", 23)
    assert r.groups == (("mental", "social"), ("physical", "magical"))


def test_no_combination_takes_the_highest_die_aspect():
    r = resolve((7, 1, 3, 2), 20)
    assert (r.kind, r.degree, r.aspects, r.lesser) == ("none", 7, ("physical",), None)


# --- worked examples: over 32 (ruling 21) ------------------------------------------------------


def test_automatic_success_lays_down_8_6_5_4_for_degree_8():
    r = resolve(None, 35, "automatic")
    assert r.faces == (8, 6, 5, 4)
    assert (r.mode, r.total, r.success, r.degree, r.kind) == ("automatic", 23, True, 8, "none")
    assert r.aspects == ("physical",)


def test_doubles_roll_fails_only_on_a_total_of_32():
    assert resolve((8, 8, 8, 8), 40, "doubles").success is False
    assert resolve((8, 8, 8, 8), 40, "doubles").degree == 0
    r = resolve((8, 8, 8, 7), 33, "doubles")  # a total of 31 at chance 33
    assert (r.mode, r.success, r.degree, r.kind) == ("doubles", True, 23, "triple")


def test_doubles_roll_keeps_lucky_breaks_and_adds_no_bonus():
    assert resolve((3, 3, 3, 3), 50, "doubles").degree == 12
    assert resolve((1, 1, 1, 1), 50, "doubles").kind == "snake_eyes"
    assert resolve((1, 1, 1, 1), 50, "doubles").degree == 1
    assert resolve((2, 5, 6, 8), 50, "doubles").degree == 8
    assert resolve((4, 4, 2, 2), 50, "doubles").degree == 17


def test_bonus_roll_adds_the_excess_over_32_to_highest_die_and_total():
    r = resolve((2, 5, 6, 8), 36, "bonus")
    assert (r.mode, r.total, r.success, r.degree, r.kind) == ("bonus", 25, True, 12, "none")
    assert r.aspects == ("magical",)


def test_bonus_is_the_default_over_32():
    assert resolve((2, 5, 6, 8), 36) == resolve((2, 5, 6, 8), 36, "bonus")


def test_bonus_roll_has_no_lucky_breaks_or_combinations_but_keeps_snake_eyes():
    r = resolve((5, 5, 5, 3), 34)
    assert (r.success, r.degree, r.kind, r.lesser) == (True, 7, "none", None)
    r = resolve((1, 1, 1, 1), 34)  # snake-eyes (ruling 24), but the degree is 1 + 2
    assert (r.success, r.degree, r.kind) == (True, 3, "snake_eyes")
    assert r.aspects == fourd8.ASPECTS
    r = resolve((8, 8, 8, 7), 33)  # tied highest: the first of them
    assert (r.total, r.degree, r.aspects) == (32, 9, ("physical",))


@pytest.mark.parametrize(
    ("chance", "over32", "mode", "success", "degree"),
    [
        (4, "bonus", "normal", True, 1),  # the seed's snake-eyes, degree 1
        (3, "bonus", "normal", False, 0),  # a failed snake-eyes is still recorded
        (40, "doubles", "doubles", True, 1),  # doubles rolls keep the combinations
        (40, "bonus", "bonus", True, 9),  # ruling 24: degree 1 + (40 - 32)
    ],
)
def test_four_ones_are_snake_eyes_on_every_roll_that_is_rolled(
    chance, over32, mode, success, degree
):
    """Ruling 24: the unfortunate four 1s show on every roll; the degree is the roll's own."""
    r = resolve((1, 1, 1, 1), chance, over32)
    assert (r.mode, r.kind, r.success, r.degree) == (mode, "snake_eyes", success, degree)
    many = fourd8.resolve_many(np.array([[1, 1, 1, 1], [1, 1, 1, 2]]), chance, over32)
    assert [fourd8.KINDS[k] for k in many.kind][0] == "snake_eyes"
    assert fourd8.KINDS[many.kind[1]] != "snake_eyes"


def test_bonus_roll_fails_only_on_four_eights():
    r = resolve((8, 8, 8, 8), 40)
    assert (r.success, r.degree, r.total) == (False, 0, 40)


@pytest.mark.parametrize("over32", fourd8.OVER32)
@pytest.mark.parametrize("faces", [(8, 8, 8, 8), (2, 5, 6, 8), (5, 5, 5, 3), (1, 1, 1, 1)])
def test_over32_choice_is_ignored_at_32_and_below(over32, faces):
    for c in (20, 32):
        r = resolve(faces, c, over32)
        assert r.mode == "normal"
        assert r == resolve(faces, c, "bonus")


# --- worked examples: the roller and bad arguments ------------------------------------------


def test_roll_takes_four_d8_in_aspect_order_from_draw():
    calls = []

    def draw(sides, k):
        calls.append((sides, k))
        return [1, 6, 3, 6]

    r = roll(draw, 20)
    assert calls == [(8, 4)]
    assert r == resolve((1, 6, 3, 6), 20)


def test_roll_automatic_success_rolls_nothing():
    def draw(sides, k):
        raise AssertionError("an automatic success must not roll")

    assert roll(draw, 40, "automatic") == resolve(None, 40, "automatic")


def test_roll_below_33_rolls_even_when_automatic_was_chosen():
    r = roll(lambda sides, k: [8, 8, 8, 8], 30, "automatic")
    assert (r.mode, r.success) == ("normal", False)


@pytest.mark.parametrize("faces", [(0, 1, 2, 3), (1, 2, 3, 9), (1, 2, 3), (1, 2, 3, 4, 5), None])
def test_bad_faces_are_refused(faces):
    with pytest.raises(UsageError, match="faces"):
        resolve(faces, 20)


def test_unknown_over32_choice_is_refused_even_below_33():
    with pytest.raises(UsageError, match="over32"):
        resolve((1, 2, 3, 4), 20, "free")
    with pytest.raises(UsageError, match="over32"):
        sample(np.random.default_rng(0), 40, 10, "free")


def test_negative_sample_size_is_refused():
    with pytest.raises(UsageError, match="size"):
        sample(np.random.default_rng(0), 20, -1)


# --- exact math ---------------------------------------------------------------------------------

CHANCES = [-5, 0, 3, 4, 5, 17, 18, 21, 31, 32, 33, 36, 40, 60]


@pytest.mark.parametrize("over32", fourd8.OVER32)
@pytest.mark.parametrize("c", CHANCES)
def test_exact_distributions_sum_to_one(c, over32):
    assert exact_outcomes(c, over32).total() == 1
    assert exact_degree(c, over32).total() == 1
    assert exact_kind(c, over32).total() == 1


@pytest.mark.parametrize("over32", fourd8.OVER32)
@pytest.mark.parametrize("c", CHANCES)
def test_degree_is_zero_exactly_on_failure(c, over32):
    for success, degree, _ in exact_outcomes(c, over32):
        assert (degree == 0) == (not success)


@pytest.mark.parametrize("c", range(-2, 33))
def test_p_success_up_to_32_is_the_4d8_total_at_or_under_the_chance(c):
    assert p_success(c) == Dist.dice_sum(4, 8).prob(lambda t: t <= c)


def test_p_success_rises_with_the_chance_up_to_certainty_at_32():
    ps = [p_success(c) for c in range(0, 33)]
    assert ps[:4] == [0, 0, 0, 0]  # the lowest total is 4
    assert all(lo < hi for lo, hi in zip(ps[3:], ps[4:], strict=False))
    assert ps[32] == 1


def test_over_32_only_automatic_is_certain_doubles_and_bonus_fail_one_in_4096():
    for c in (33, 40, 60):
        assert p_success(c, "automatic") == 1
        assert p_success(c, "doubles") == Fraction(4095, 4096)
        assert p_success(c, "bonus") == Fraction(4095, 4096)


def test_unskilled_at_an_easy_task_is_near_fifty_fifty():
    """Seed "Ease": ease 25-26 is about even for an unskilled character (-8: chance 17-18)."""
    assert p_success(chance(25, required_missing=True)) == Fraction(469, 1024)  # 45.8%
    assert p_success(chance(26, required_missing=True)) == Fraction(555, 1024)  # 54.2%


def test_the_face_table_reads_every_roll_as_resolve_does():
    """The battle's lookup (total, degree, kind, aspects by faces) is ``resolve``'s reading of
    each of the 4096 rolls: at chance 32 every normal roll succeeds, so the degree shows."""
    table = fourd8.face_table()
    assert len(table) == 4096
    for faces in ALL_FACES:
        r = resolve(faces, 32)
        assert table[faces] == (r.total, r.degree, r.kind, r.aspects), faces


def test_combination_kinds_match_hand_counts_of_the_4096_rolls():
    # four alike: 8 (one of them snake-eyes); triple: 8 values x 7 others x 4 positions;
    # two pairs: C(8,2) x C(4,2); one pair: 8 x C(7,2) x C(4,2) x 2; none: 8 x 7 x 6 x 5.
    counts = {"snake_eyes": 1, "four_alike": 7, "triple": 224, "two_pairs": 168}
    counts |= {"pair": 2016, "none": 1680}
    expected = Dist((k, Fraction(n, 4096)) for k, n in counts.items())
    for over32 in fourd8.OVER32:
        assert exact_kind(20, over32) == expected
        assert exact_kind(40, "doubles") == expected
    # A bonus roll has no combinations, but four 1s are still snake-eyes (ruling 24).
    assert exact_kind(40, "bonus") == Dist(
        {"none": Fraction(4095, 4096), "snake_eyes": Fraction(1, 4096)}
    )
    assert exact_kind(40, "automatic") == Dist.point("none")


def test_bonus_degree_is_the_highest_die_plus_excess_over_32():
    for c in (33, 36, 45):
        bonus = c - 32
        pmf = {m + bonus: Fraction(m**4 - (m - 1) ** 4, 4096) for m in range(1, 9)}
        pmf[8 + bonus] -= Fraction(1, 4096)  # four 8s fail
        pmf[0] = Fraction(1, 4096)
        assert exact_degree(c, "bonus") == Dist(pmf)


def test_doubles_degree_is_chance_32_with_four_eights_moved_to_failure():
    at32 = exact_degree(32)
    expected = Dist(list(at32.items()) + [(32, -Fraction(1, 4096)), (0, Fraction(1, 4096))])
    assert exact_degree(40, "doubles") == expected


def test_automatic_outcome_is_a_point_mass():
    assert exact_outcomes(33, "automatic") == Dist.point((True, 8, "none"))


def test_highest_degree_is_35_from_two_pairs_of_eights_and_sevens_not_four_eights():
    at32 = exact_degree(32)
    assert max(at32) == 35
    assert at32[35] == Fraction(6, 4096)  # C(4,2) arrangements of 8, 8, 7, 7
    assert resolve((8, 7, 8, 7), 32).degree == 35 > resolve((8, 8, 8, 8), 32).degree == 32


@pytest.mark.parametrize(
    ("c", "over32"),
    [(c, "bonus") for c in (-3, 3, 4, 17, 18, 21, 31, 32)]
    + [(c, o) for c in (33, 40) for o in fourd8.OVER32],
)
def test_vectorised_resolver_agrees_with_resolve_on_all_4096_rolls(c, over32):
    many = resolve_many(np.array(ALL_FACES), c, over32)
    for i, faces in enumerate(ALL_FACES):
        r = resolve(faces, c, over32)
        got = (many.total[i], bool(many.success[i]), many.degree[i], KINDS[many.kind[i]])
        assert got == (r.total, r.success, r.degree, r.kind), faces


# --- properties ---------------------------------------------------------------------------------


@given(faces=faces_st, c=st.integers(-5, 45), over32=over32_st)
def test_success_and_degree_follow_the_mode(faces, c, over32):
    r = resolve(faces, c, over32)
    if r.mode == "normal":
        assert r.success == (sum(faces) <= c)
    elif r.mode in ("doubles", "bonus"):
        assert r.success == (faces != (8, 8, 8, 8))
    assert (r.degree == 0) == (not r.success)
    if r.success and r.mode != "automatic":
        bonus = c - 32 if r.mode == "bonus" else 0
        assert r.degree >= max(faces) + bonus


@given(faces=faces_st, c=st.integers(-5, 32), data=st.data())
def test_degree_and_kind_do_not_depend_on_which_aspect_rolled_what(faces, c, data):
    perm = data.draw(st.permutations(range(4)))
    r = resolve(faces, c)
    p = resolve(tuple(faces[i] for i in perm), c)
    assert (p.success, p.degree, p.kind, p.total) == (r.success, r.degree, r.kind, r.total)


@given(faces=faces_st)
def test_recorded_aspects_are_the_dice_that_make_the_combination(faces):
    r = resolve(faces, 32)
    shown = {ASPECTS[i]: f for i, f in enumerate(faces)}
    values = [shown[a] for a in r.aspects]
    size = {"pair": 2, "triple": 3, "four_alike": 4, "snake_eyes": 4}.get(r.kind)
    if size is not None:
        assert len(values) == size and len(set(values)) == 1
        assert faces.count(values[0]) == size
    if r.kind in ("pair", "triple"):
        rest = [f for a, f in shown.items() if a not in r.aspects]
        assert r.lesser not in r.aspects and shown[r.lesser] == max(rest)
    else:
        assert r.lesser is None
    if r.kind == "two_pairs":
        assert r.aspects == ASPECTS
        (hi, lo) = r.groups
        assert shown[hi[0]] == shown[hi[1]] > shown[lo[0]] == shown[lo[1]]
    if r.kind == "none":
        assert values == [max(faces)]


# --- samplers against exact ---------------------------------------------------------------------
# 100,000 tests per check. The mistakes these guard against move a few percent of the mass or
# more (the success threshold off by one moves P(total = 18) = 8.4%; two pairs without the +5,
# 4.1%; a triple as 3 x triple, 5.5%; a pair counting the lower other die, about 40%; the
# over-32 bonus off by one shifts every degree): thousands of tests in bins expecting thousands,
# rejected by a wide margin at ALPHA = 1e-4. Rarer rules (four alike, snake-eyes, 1 in 4096)
# are pinned by the worked examples and the exact tests above, not here.
N = 100_000


@pytest.mark.slow
@pytest.mark.parametrize(
    ("c", "over32", "seed"),
    [(18, "bonus", 401), (32, "bonus", 402), (36, "bonus", 403), (40, "doubles", 404)],
)
def test_sampled_degree_fits_exact(c, over32, seed):
    s = sample(np.random.default_rng(seed), c, N, over32)
    assert_fits(s.degree, exact_degree(c, over32))


@pytest.mark.slow
def test_sampled_combination_kinds_fit_exact():
    s = sample(np.random.default_rng(405), 20, N)
    assert_fits(np.asarray(KINDS)[s.kind].tolist(), exact_kind(20))


@pytest.mark.slow
def test_sampled_joint_success_degree_kind_fits_exact():
    s = sample(np.random.default_rng(406), 21, N)
    kinds = np.asarray(KINDS)[s.kind].tolist()
    outcomes = zip(s.success.tolist(), s.degree.tolist(), kinds, strict=True)
    assert_fits(list(outcomes), exact_outcomes(21))


@pytest.mark.slow
def test_sampled_faces_are_uniform_per_aspect_and_totals_fit_4d8():
    s = sample(np.random.default_rng(407), 20, N)
    for i in range(4):
        assert_fits(s.faces[:, i], Dist.uniform(range(1, 9)))
    assert_fits(s.total, Dist.dice_sum(4, 8))


def test_sampled_automatic_success_is_always_degree_8():
    s = sample(np.random.default_rng(408), 40, 50, "automatic")
    assert s.success.all() and (s.degree == 8).all() and (s.total == 23).all()


@pytest.mark.slow
def test_roll_with_a_generator_draw_fits_exact():
    # 20,000 rolls through the engine's path: a draw with faces 0-7 or a sorted hand would move
    # far more than the 5% of mass this detects.
    rng = np.random.default_rng(409)

    def draw(sides, k):
        return rng.integers(1, sides + 1, size=k).tolist()

    results = [roll(draw, 18) for _ in range(20_000)]
    assert_fits([(r.success, r.degree, r.kind) for r in results], exact_outcomes(18))
