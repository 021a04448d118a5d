"""Classic Shadowrun dice pools: the d6 game (seed 002) and its D8 variant (seed 000).

Rulings 2 (Rule of One), 3 (Rule of Six) and 12 (D8 variant). Three kinds of test, kept apart:
worked examples with given faces; exact math against an independent brute-force enumeration of
die chains and pool faces (plus hypothesis properties of ``resolve``); samplers against the exact
distributions with ``assert_fits``. Each sampler check also proves its own power: the same sample
must reject the distribution a named rule mistake would produce (``_assert_rejects``).
"""

import pickle
from collections.abc import Callable, Sequence
from fractions import Fraction
from itertools import islice, product
from math import prod

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from combatsim.dice.exact import Dist
from combatsim.dice.shadowrun import (
    D6,
    D8,
    D8_CAPPED,
    PoolDice,
    PoolResult,
    exact_outcomes,
    exact_successes,
    initiative_exact,
    p_die,
    p_fumble,
    pool_dice,
    resolve,
    roll,
    roll_chains,
    roll_count,
    sample,
)
from combatsim.errors import UsageError
from tests.stats import ALPHA, assert_fits, chi_square_p

ALL_DICE = [D6, D8, D8_CAPPED]

# The rules restated independently of the module (seed 002; seed 000; rulings 2, 3, 12):
# faces, the Rule of One/Zero face, the re-rolled face, the TN floor, the TN cap, and whether
# the top face is re-rolled only toward a TN above it (Rule of Seven) or always (Rule of Six).
RULES = {
    "D6": (range(1, 7), 1, 6, 2, None, False),
    "D8": (range(0, 8), 0, 7, 1, None, True),
    "D8_CAPPED": (range(0, 8), 0, 7, 1, 21, True),
}
NAMES = {id(D6): "D6", id(D8): "D8", id(D8_CAPPED): "D8_CAPPED"}


def rules(dice: PoolDice):
    return RULES[NAMES[id(dice)]]


def brute_target(dice: PoolDice, tn: int) -> int | None:
    """The TN the dice face, or ``None`` when the test is impossible (independent restatement)."""
    _, _, _, floor, cap, _ = rules(dice)
    return None if cap is not None and tn > cap else max(tn, floor)


def scripted(faces: Sequence[int]) -> Callable[[int], list[int]]:
    """A ``draw(k)`` that hands out the given faces in order and fails if asked for more."""
    it = iter(faces)

    def draw(k: int) -> list[int]:
        out = list(islice(it, k))
        assert len(out) == k, "asked for more faces than the script has"
        return out

    draw.left = lambda: list(it)
    return draw


# ================================================================================================
# Worked examples with given faces
# ================================================================================================


def test_chuck_chuck_rolls_two_successes_at_tn_5():
    """Seed 002: Firearms 4 at TN 5 rolls 1, 3, 5, 6: the 5 and the 6 meet or beat it."""
    assert resolve([1, 3, 5, 6], 5) == PoolResult(2, False, (1, 3, 5, 6))


def test_six_six_four_totals_16_and_succeeds_at_tn_16_but_not_17():
    """Seed 002 Rule of Six: "a die that rolls 6, 6 and then 4 is a result of 16"."""
    at_16 = resolve([[6, 6, 4]], 16)
    assert at_16.totals == (16,)
    assert at_16.successes == 1
    assert resolve([[6, 6, 4]], 17).successes == 0


def test_d6_rerolled_one_adds_one():
    """Ruling 3: only the first roll's 1 is an automatic failure; 6 then 1 is a 7."""
    assert resolve([[6, 1]], 7) == PoolResult(1, False, (7,))
    assert resolve([[6, 1]], 8).successes == 0


def test_d6_six_may_be_rerolled_even_when_the_tn_did_not_need_it():
    """Seed 002: every 6 is re-rolled; the total still only has to reach the TN."""
    assert resolve([[6, 6, 4], 2, 4], 4) == PoolResult(2, False, (16, 2, 4))


def test_d8_seven_then_zero_fails_tn_8():
    """Seed 000: "his follow up roll might be a 0"; a follow-up 0 adds nothing (ruling 12)."""
    assert resolve([[7, 0]], 8, D8) == PoolResult(0, False, (7,))
    assert resolve([[7, 1]], 8, D8).successes == 1


def test_d8_rule_of_seven_stops_once_the_total_reaches_the_tn():
    assert resolve([[7, 7]], 14, D8) == PoolResult(1, False, (14,))
    assert resolve([[7, 7, 0]], 15, D8).successes == 0
    assert resolve([[7, 7, 1]], 15, D8).successes == 1


def test_all_ones_is_a_fumble_on_the_d6():
    assert resolve([1, 1, 1], 4) == PoolResult(0, True, (1, 1, 1))
    assert resolve([1], 2).fumble


def test_all_zeros_is_a_disaster_on_the_d8():
    assert resolve([0, 0], 3, D8) == PoolResult(0, True, (0, 0))
    assert resolve([0, 0, 0], 30, D8_CAPPED).fumble  # even on an impossible test


def test_a_single_one_among_successes_is_not_a_fumble():
    assert resolve([1, 5, 6], 5) == PoolResult(2, False, (1, 5, 6))
    assert not resolve([1, 1, 2], 6).fumble  # all dice failed, but not all ones
    assert not resolve([0, 3], 5, D8).fumble


def test_no_dice_is_no_success_and_no_fumble():
    assert resolve([], 4) == PoolResult(0, False, ())


@pytest.mark.parametrize("tn", [1, 0, -3])
def test_d6_tn_below_2_counts_as_2_and_a_one_still_fails(tn):
    """Ruling 2: a TN below 2 counts as 2, so a first roll of 1 fails at TN 1 or below."""
    assert D6.effective_tn(tn) == 2
    assert resolve([1, 2, 3], tn) == PoolResult(2, False, (1, 2, 3))
    assert resolve([1], tn).successes == 0


@pytest.mark.parametrize("dice", [D8, D8_CAPPED])
@pytest.mark.parametrize("tn", [0, -1, -6])
def test_d8_tn_below_1_counts_as_1_and_a_zero_still_fails(dice, tn):
    """Seed 000 Target Numbers: no TN below 1; Rule of Zero: a 0 always fails."""
    assert dice.effective_tn(tn) == 1
    assert resolve([0, 1, 7], tn, dice).successes == 2


def test_d8_house_rule_cap_makes_tn_22_impossible_but_not_21():
    """Seed 000 optional house rule: no TN above 21 (ruling 12)."""
    assert pool_dice("d8", tn_cap=True) is D8_CAPPED
    assert resolve([[7, 7, 7, 1]], 22, D8).successes == 1
    assert D8_CAPPED.effective_tn(22) is None
    assert resolve([7, 6, 5], 22, D8_CAPPED).successes == 0
    assert p_die(22, D8) > 0 and p_die(22, D8_CAPPED) == 0
    assert p_die(21, D8_CAPPED) == p_die(21, D8) > 0
    assert resolve([[7, 7, 7]], 21, D8_CAPPED).successes == 1


@pytest.mark.parametrize(
    "rolls, tn, dice",
    [
        ([[3, 4]], 5, D6),  # a re-roll after a face that is not a 6
        ([[6, 2, 5]], 9, D6),  # 2 is not re-rolled
        ([[7, 3]], 7, D8),  # Rule of Seven only when the TN is above 7
        ([[7, 3]], 5, D8),
        ([[7, 3]], 0, D8),
        ([[7, 7, 2]], 14, D8),  # the total already reached the TN
        ([[7, 1]], 7, D8_CAPPED),
        ([[7, 7]], 22, D8_CAPPED),  # the capped test is impossible: nothing to roll toward
        ([[6, 3]], 9, D8),  # a re-roll after a non-top face on the d8
        ([7], 5, D6),  # faces out of range
        ([0], 5, D6),
        ([8], 5, D8),  # an 8 must already read as 0
        ([-1], 5, D8),
        ([[]], 5, D6),
    ],
)
def test_resolve_refuses_illegal_chains(rolls, tn, dice):
    with pytest.raises(ValueError):
        resolve(rolls, tn, dice)


def test_a_pickled_d6_still_follows_the_rule_of_six():
    """A worker process sees a copy of ``D6``, not ``D6`` itself; the rule must not change."""
    copy = pickle.loads(pickle.dumps(D6))
    assert resolve([[6, 3]], 5, copy) == resolve([[6, 3]], 5)
    assert roll_chains(scripted([6, 6, 3]), 1, 5, copy) == [(6, 6, 3)]


def test_pool_dice_rejects_unknown_names():
    assert pool_dice("d6") is D6 and pool_dice("d8") is D8
    with pytest.raises(UsageError, match="dice"):
        pool_dice("d10")


@pytest.mark.parametrize(
    "call",
    [
        lambda: sample(np.random.default_rng(0), -1, 5, 10),
        lambda: exact_successes(-1, 5),
        lambda: exact_outcomes(-2, 5, D8),
        lambda: p_fumble(-1),
        lambda: roll_chains(scripted([]), -1, 5),
    ],
)
def test_negative_dice_are_a_usage_error_naming_n(call):
    with pytest.raises(UsageError, match=r"^n: got -\d; allowed: an integer from 0 up"):
        call()


def test_negative_initiative_dice_are_a_usage_error():
    with pytest.raises(UsageError, match="n_dice"):
        initiative_exact(5, -1)


def test_negative_sample_size_is_a_usage_error():
    with pytest.raises(UsageError, match="size"):
        sample(np.random.default_rng(0), 3, 5, -1)


# --- roll_chains with scripted faces --------------------------------------------------------------


def test_roll_chains_rerolls_every_d6_six_in_die_order():
    draw = scripted([6, 2, 6, 6, 3, 4])  # first rolls 6, 2, 6; then the re-rolls die by die
    assert roll_chains(draw, 3, 5) == [(6, 6, 3), (2,), (6, 4)]
    assert draw.left() == []


def test_roll_chains_rerolls_a_d8_seven_only_toward_a_tn_above_7():
    assert roll_chains(scripted([7, 7]), 2, 7, D8) == [(7,), (7,)]
    assert roll_chains(scripted([7, 3, 7]), 2, 8, D8) == [(7, 7), (3,)]  # 7 + 7 reached 8
    assert roll_chains(scripted([7, 7, 0, 1]), 2, 8, D8) == [(7, 0), (7, 1)]
    assert roll_chains(scripted([7, 7, 7, 0]), 1, 22, D8) == [(7, 7, 7, 0)]
    assert roll_chains(scripted([7]), 1, 22, D8_CAPPED) == [(7,)]  # impossible: no re-roll


def test_roll_chains_returns_plain_ints_from_a_numpy_draw():
    faces = np.array([6, 1, 5, 3], dtype=np.int8)
    draw = scripted(faces)
    chains = roll_chains(draw, 3, 9)
    assert chains == [(6, 3), (1,), (5,)]
    assert all(type(f) is int for c in chains for f in c)


# ================================================================================================
# Exact math
# ================================================================================================


def test_d6_tn_6_and_tn_7_are_equally_likely():
    """Seed 000's "statistical hang-up": a 7 needs a 6 then anything, as likely as a 6."""
    assert p_die(6) == p_die(7) == Fraction(1, 6)
    assert p_die(12) == p_die(13) == Fraction(1, 36)  # the same quirk one re-roll up


def test_d8_every_tn_step_from_1_to_25_lowers_the_odds():
    """Seed 000: "every negative modifier (increase to the target number) counts"."""
    odds = [p_die(tn, D8) for tn in range(1, 26)]
    assert all(a > b for a, b in zip(odds, odds[1:], strict=False))
    assert odds[0] == Fraction(7, 8)
    assert (p_die(7, D8), p_die(8, D8)) == (Fraction(1, 8), Fraction(7, 64))


def die_chains(dice: PoolDice, tn: int, depth: int):
    """Every chain of faces one die can show, cut at ``depth`` rolls, by brute force.

    Returns ``(target, [(chain, probability, finished)])``; a chain is unfinished when it was cut
    while the rules would still roll again. Independent of the module's recursion.
    """
    faces, _, top, _, _, seven = rules(dice)
    target = brute_target(dice, tn)
    out = []

    def grow(chain: tuple[int, ...], p: Fraction) -> None:
        for f in faces:
            c, q = chain + (f,), p / len(faces)
            again = f == top and (
                not seven or (target is not None and target > top and sum(c) < target)
            )
            if again and len(c) < depth:
                grow(c, q)
            else:
                out.append((c, q, not again))

    grow((), Fraction(1))
    return target, out


def brute_success(dice: PoolDice, chain: tuple[int, ...], target: int | None) -> bool:
    _, low, _, _, _, _ = rules(dice)
    return target is not None and chain[0] != low and sum(chain) >= target


@pytest.mark.parametrize("dice", ALL_DICE)
@pytest.mark.parametrize("depth", [1, 2, 3])
def test_p_die_lies_within_the_brute_force_bounds_of_chains_cut_short(dice, depth):
    """Chains cut at ``depth`` rolls leave an undecided tail; p_die must lie within it."""
    for tn in range(-2, 27):
        target, chains = die_chains(dice, tn, depth)
        assert sum(p for _, p, _ in chains) == 1
        decided = [(c, p) for c, p, done in chains if done or brute_success(dice, c, target)]
        lower = sum((p for c, p in decided if brute_success(dice, c, target)), Fraction(0))
        tail = 1 - sum(p for _, p in decided)
        assert tail <= Fraction(1, dice.sides**depth)
        assert lower <= p_die(tn, dice) <= lower + tail, (tn, depth)


@pytest.mark.parametrize("dice", ALL_DICE)
def test_p_die_equals_brute_force_over_all_chains(dice):
    """Five rolls decide every TN up to 30 on both dice: the bounds close to an equality."""
    for tn in range(-2, 31):
        target, chains = die_chains(dice, tn, depth=6)
        exact = sum((p for c, p, _ in chains if brute_success(dice, c, target)), Fraction(0))
        undecided = [c for c, _, done in chains if not done and not brute_success(dice, c, target)]
        assert not undecided
        assert p_die(tn, dice) == exact, tn


@pytest.mark.parametrize("dice", ALL_DICE)
def test_resolve_accepts_every_legal_chain_and_agrees_with_brute_force(dice):
    for tn in range(-1, 25):
        target, chains = die_chains(dice, tn, depth=5)
        for chain, _, _ in chains:
            got = resolve([chain], tn, dice)
            assert got.successes == brute_success(dice, chain, target), (chain, tn)
            assert got.totals == (sum(chain),)


def brute_pool_faces(dice: PoolDice, n: int, tn: int) -> Dist:
    """(successes, fumble) over every face combination of ``n`` dice, no re-rolls."""
    faces, low, _, floor, _, _ = rules(dice)
    target = max(tn, floor)
    combos = list(product(faces, repeat=n))
    return Dist(
        (
            (
                sum(f != low and f >= target for f in combo),
                n > 0 and all(f == low for f in combo),
            ),
            Fraction(1, len(combos)),
        )
        for combo in combos
    )


@pytest.mark.parametrize("n", [0, 1, 2, 3])
@pytest.mark.parametrize(
    "dice, tns", [(D6, range(2, 7)), (D8, range(1, 8)), (D8_CAPPED, range(1, 8))]
)
def test_exact_outcomes_match_enumeration_of_all_faces(dice, tns, n):
    """TNs up to the top face, where no re-roll can change a success."""
    for tn in tns:
        brute = brute_pool_faces(dice, n, tn)
        assert exact_outcomes(n, tn, dice) == brute, tn
        assert exact_successes(n, tn, dice) == brute.map(lambda o: o[0]), tn
        assert exact_outcomes(n, tn, dice).total() == 1


@pytest.mark.parametrize("n", [1, 2])
@pytest.mark.parametrize(
    "dice, tns", [(D6, range(7, 19)), (D8, range(8, 25)), (D8_CAPPED, range(18, 25))]
)
def test_exact_outcomes_match_resolve_over_all_chain_combinations(dice, tns, n):
    """Above the top face: every combination of per-die chains, each pool judged by resolve."""
    for tn in tns:
        _, chains = die_chains(dice, tn, depth=4)  # 4 rolls decide every TN here
        brute = Dist(
            (
                (lambda r: (r.successes, r.fumble))(resolve([c for c, _ in combo], tn, dice)),
                prod(p for _, p in combo),
            )
            for combo in product([(c, p) for c, p, _ in chains], repeat=n)
        )
        assert exact_outcomes(n, tn, dice) == brute, tn


@pytest.mark.parametrize("dice", ALL_DICE)
def test_exact_distributions_sum_to_one_on_0_to_n(dice):
    for n in range(0, 9):
        for tn in range(-2, 27):
            succ, out = exact_successes(n, tn, dice), exact_outcomes(n, tn, dice)
            assert succ.total() == 1 and out.total() == 1
            assert set(succ) <= set(range(n + 1))
            assert out.map(lambda o: o[0]) == succ
            assert all(k == 0 for k, fumble in out if fumble)


@pytest.mark.parametrize("dice, sides", [(D6, 6), (D8, 8), (D8_CAPPED, 8)])
def test_fumble_chance_is_one_over_sides_to_the_n(dice, sides):
    assert p_fumble(0, dice) == 0
    for n in range(1, 9):
        for tn in (1, 4, 9, 30):  # whatever the TN, even when the test is impossible
            expected = Fraction(1, sides) ** n
            assert p_fumble(n, dice) == expected
            assert exact_outcomes(n, tn, dice)[(0, True)] == expected


@st.composite
def legal_tests(draw):
    """A dice kind, a TN and chains that the rules allow (possibly stopping early on a top face)."""
    dice = draw(st.sampled_from(ALL_DICE))
    faces, _, top, _, _, seven = rules(dice)
    tn = draw(st.integers(-3, 40))
    target = brute_target(dice, tn)
    chains = []
    for _ in range(draw(st.integers(0, 10))):
        chain = [draw(st.sampled_from(faces))]
        while (
            chain[-1] == top
            and (not seven or (target is not None and target > top and sum(chain) < target))
            and draw(st.booleans())
        ):
            chain.append(draw(st.sampled_from(faces)))
        chains.append(chain)
    return dice, tn, chains


@given(legal_tests())
def test_successes_never_exceed_dice_rolled(case):
    dice, tn, chains = case
    result = resolve(chains, tn, dice)
    assert 0 <= result.successes <= len(chains)
    assert result.totals == tuple(sum(c) for c in chains)
    assert result.fumble == (bool(chains) and all(c[0] == dice.low for c in chains))
    if result.fumble:
        assert result.successes == 0


@given(
    st.lists(
        st.lists(st.just(6), max_size=4).flatmap(
            lambda sixes: st.integers(1, 5).map(lambda last: [*sixes, last])
        ),
        max_size=8,
    ),
    st.integers(-3, 30),
)
def test_d6_raising_the_tn_never_adds_successes(chains, tn):
    assert resolve(chains, tn + 1).successes <= resolve(chains, tn).successes


@pytest.mark.parametrize("dice", ALL_DICE)
@pytest.mark.parametrize("n_dice", [0, 1, 2, 3])
def test_initiative_exact_sums_to_one_on_the_plain_dice_sum(dice, n_dice):
    """Initiative is Reaction plus the plain sum of the dice: no re-rolls (seeds 002, 000)."""
    faces, low, top, _, _, _ = rules(dice)
    reaction = 5
    dist = initiative_exact(reaction, n_dice, dice)
    assert dist.total() == 1
    assert set(dist) == set(range(reaction + n_dice * low, reaction + n_dice * top + 1))
    combos = list(product(faces, repeat=n_dice))
    assert dist == Dist((reaction + sum(c), Fraction(1, len(combos))) for c in combos)


def test_initiative_worked_values():
    assert initiative_exact(4, 1) == Dist.uniform(range(5, 11))
    assert initiative_exact(5, 2)[12] == Fraction(1, 6)  # 7 on 2d6
    assert initiative_exact(3, 0) == Dist.point(3)
    assert initiative_exact(6, 1, D8) == Dist.uniform(range(6, 14))


# ================================================================================================
# Samplers against the exact distributions (tests/stats.py, ALPHA = 1e-4)
# ================================================================================================


def _counts(values) -> dict:
    keys, counts = np.unique(np.asarray(values), return_counts=True)
    return dict(zip(keys.tolist(), counts.tolist(), strict=True))


def _assert_rejects(successes, n: int, mistakes: dict[str, Fraction]) -> None:
    """The sample must reject what each named mistake would give: proof the size is enough."""
    counts = _counts(successes)
    for mistake, p_wrong in mistakes.items():
        p = chi_square_p(counts, Dist.binomial(n, p_wrong))
        assert p < ALPHA, f"sample too small to catch {mistake!r}: p = {p:.3g}"


F = Fraction
# (dice, n, tn, size, {rule mistake: the per-die success chance it would give})
# 200,000 tests reject every listed mistake at p < 1e-30 (most at p = 0 in double precision);
# the one exception is the uncapped d8 at TN 22, where TN 21 and TN 23 differ by 1/4096 per die
# and take 600,000 tests to reach p ~ 1e-25 (200,000 would give only ~1e-6). _assert_rejects
# checks each claim on the very sample that is fitted, so a size cut too far fails the test.
SAMPLER_CASES = [
    # The seed's hang-up: TN 6 and 7 both 1/6. Catches a TN read off by one downward.
    (D6, 6, 6, 200_000, {"TN 5 (off by one)": F(2, 6), "faces 0-5 (rng.integers(0, 6))": 0}),
    # TN 7 needs the Rule of Six: 6 then anything.
    (
        D6,
        6,
        7,
        200_000,
        {
            "no Rule of Six": 0,
            "a re-rolled 1 fails, or TN 8 (6 then 2+)": F(5, 36),
            "re-roll needs 6+ like a fresh test (6 then 6)": F(1, 36),
        },
    ),
    # Two re-rolls deep; TN 12 and 13 share 1/36, TN 14 drops to 5/216: an off-by-one in the
    # remaining TN per level is the classic mistake here.
    (
        D6,
        6,
        13,
        200_000,
        {"re-rolled 1 fails, or TN 14": F(5, 216), "only one re-roll allowed": 0},
    ),
    (D6, 6, 14, 200_000, {"TN 13": F(6, 216), "TN 15": F(4, 216)}),
    # Three re-rolls: 6, 6, 6 then anything (1/216) vs 6, 6, 6 then 2+ (5/1296): 1/1296 per die
    # apart, still rejected at p ~ 1e-40 by 200,000 six-die tests.
    (
        D6,
        6,
        19,
        200_000,
        {"re-rolled 1 fails, or TN 20": F(5, 1296), "only two re-rolls allowed": 0},
    ),
    # The TN floor (ruling 2): TN 2 is 5/6; TN 1 is still 5/6 because a 1 never succeeds.
    (D6, 4, 2, 200_000, {"TN 3 (off by one)": F(4, 6)}),
    (D6, 4, 1, 200_000, {"no TN floor: a 1 succeeds at TN 1": F(1)}),
    (D6, 4, -2, 200_000, {"no TN floor": F(1)}),
    # D8: TN 7 is 1/8; faces read 1-8 instead of 0-7 would give 2/8.
    (D8, 6, 7, 200_000, {"8 not read as 0 (faces 1-8)": F(2, 8), "TN 8": F(7, 64)}),
    # TN 8: 7 then 1+ (7/64); the d6 hang-up (re-roll always succeeds) would give 8/64.
    (
        D8,
        6,
        8,
        200_000,
        {"follow-up 0 counts (hang-up back), or TN 7": F(8, 64), "TN 9": F(6, 64)},
    ),
    (D8, 6, 14, 200_000, {"TN 13": F(2, 64), "7, 7 not enough ('>' not '>=')": F(7, 512)}),
    (D8, 6, 15, 200_000, {"re-rolled 0 reads 8, or TN 14": F(8, 512), "TN 16": F(6, 512)}),
    # The house-rule cap (ruling 12): impossible at 22; uncapped, 7, 7, 7 then 1+ (7/4096),
    # which needs 600,000 tests to tell from TN 21 (8/4096).
    (D8_CAPPED, 6, 22, 200_000, {"cap ignored": F(7, 4096)}),
    (D8, 6, 22, 600_000, {"cap applied": 0, "TN 21": F(8, 4096), "TN 23": F(6, 4096)}),
]


@pytest.mark.slow
@pytest.mark.parametrize(
    "index", range(len(SAMPLER_CASES)), ids=[f"{NAMES[id(c[0])]}-tn{c[2]}" for c in SAMPLER_CASES]
)
def test_sample_fits_exact_outcomes(index):
    dice, n, tn, size, mistakes = SAMPLER_CASES[index]
    rng = np.random.default_rng(20_260_000 + index)
    successes, fumble = sample(rng, n, tn, size, dice)
    assert successes.shape == fumble.shape == (size,)
    assert_fits(zip(successes.tolist(), fumble.tolist(), strict=True), exact_outcomes(n, tn, dice))
    _assert_rejects(successes, n, mistakes)


# Fumbles in small pools: (1/6)^n and (1/8)^n. 200,000 tests expect at least 390 fumbles (d8,
# three dice), enough to reject "all dice failed" or "any die showed the low face" by far.
@pytest.mark.slow
@pytest.mark.parametrize("dice, sides", [(D6, 6), (D8, 8)])
@pytest.mark.parametrize("n", [1, 2, 3])
def test_sample_fumble_frequency_is_one_over_sides_to_the_n(dice, sides, n):
    rng = np.random.default_rng(31_000 + 10 * sides + n)
    _, fumble = sample(rng, n, 4, 200_000, dice)
    fumble = fumble.astype(int)
    assert_fits(fumble.tolist(), Dist.bernoulli(p_fumble(n, dice)))
    counts = _counts(fumble)
    p_fail = 1 - p_die(4, dice)
    for mistake, p_wrong in {
        "fumble when all dice fail": p_fail**n,
        "fumble when any die shows the low face": 1 - (1 - F(1, sides)) ** n,
    }.items():
        if p_wrong != F(1, sides) ** n:  # one die: the two are the same event
            p = chi_square_p(counts, Dist.bernoulli(p_wrong))
            assert p < ALPHA, f"sample too small to catch {mistake!r}"


def test_sample_edge_cases():
    rng = np.random.default_rng(7)
    succ, fumble = sample(rng, 0, 5, 100)
    assert not succ.any() and not fumble.any()
    succ, fumble = sample(rng, 3, 5, 0)
    assert succ.shape == fumble.shape == (0,)


class NumpyDraw:
    """A ``draw(k)`` served from blocks of a numpy generator, as a battle engine might do."""

    def __init__(self, rng: np.random.Generator, dice: PoolDice, block: int = 1 << 14):
        self.rng, self.dice, self.block = rng, dice, block
        self.buf, self.pos = np.empty(0, dtype=np.int64), 0

    def __call__(self, k: int) -> list[int]:
        if self.pos + k > self.buf.size:
            fresh = self.rng.integers(self.dice.low, self.dice.top + 1, size=self.block + k)
            self.buf, self.pos = np.concatenate([self.buf[self.pos :], fresh]), 0
        out = self.buf[self.pos : self.pos + k].tolist()
        self.pos += k
        return out


# roll_chains runs a Python loop per test, so 40,000 four-die tests (160,000 dice). They reject
# each listed mistake at p < 1e-30, except d8 TN 15 against 8/512 (1/512 per die apart): about
# 1e-7, still three orders of magnitude below ALPHA.
CHAIN_CASES = [
    (D6, 4, 7, {"a re-rolled 1 fails, or TN 8": F(5, 36), "no Rule of Six": 0}),
    (D6, 4, 13, {"a re-rolled 1 fails, or TN 14": F(5, 216)}),
    (D8, 4, 8, {"follow-up 0 counts, or TN 7": F(8, 64), "TN 9": F(6, 64)}),
    (D8, 4, 15, {"re-rolled 0 reads 8, or TN 14": F(8, 512)}),
]


@pytest.mark.slow
@pytest.mark.parametrize(
    "case", CHAIN_CASES, ids=[f"{NAMES[id(c[0])]}-n{c[1]}-tn{c[2]}" for c in CHAIN_CASES]
)
def test_roll_chains_with_a_numpy_draw_fits_exact_outcomes(case):
    dice, n, tn, mistakes = case
    draw = NumpyDraw(np.random.default_rng(41_000 + tn), dice)
    results = [resolve(roll_chains(draw, n, tn, dice), tn, dice) for _ in range(40_000)]
    assert_fits(((r.successes, r.fumble) for r in results), exact_outcomes(n, tn, dice))
    _assert_rejects([r.successes for r in results], n, mistakes)


# --- the untraced battle's count draws exactly what the traced roll draws ---------------------


def _stream(faces: Sequence[int]):
    """A ``take(k)`` over a fixed sequence that records how many faces were drawn."""
    state = {"pos": 0}

    def take(k: int) -> list[int]:
        out = list(faces[state["pos"] : state["pos"] + k])
        assert len(out) == k, "drew past the end of the sequence"
        state["pos"] += k
        return out

    return take, state


@pytest.mark.slow  # fuzz: pools to 8 dice; tests/engine/test_inlined_dice.py has every face
@given(
    st.sampled_from(["d6", "d8", "d8cap"]),
    st.integers(0, 8),
    st.integers(-40, 30),  # far below the TN floor too
    st.data(),
)
def test_roll_count_draws_and_counts_as_roll_does(which, n, tn, data):
    """``roll_count`` (no chains) gives the successes and fumble of ``roll`` and leaves the
    stream at the same place, for any faces: a batch stays in step with the traced replay."""
    dice = {"d6": D6, "d8": D8, "d8cap": pool_dice("d8", tn_cap=True)}[which]
    # Many top faces, so that long chains and TNs far above the top face are exercised.
    faces = (
        data.draw(
            st.lists(
                st.one_of(st.just(dice.top), st.integers(dice.low, dice.top)),
                min_size=200,
                max_size=200,
            )
        )
        + [dice.top - 1] * 10
    )  # every chain ends in the end
    take_a, a = _stream(faces)
    take_b, b = _stream(faces)
    expected, _ = roll(take_a, n, tn, dice)
    assert roll_count(take_b, n, tn, dice) == (expected.successes, expected.fumble)
    assert b["pos"] == a["pos"]
