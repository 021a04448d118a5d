"""Classic Shadowrun's exact opposed tests and Instant Karma (rulings 5, 9, 11 and 26).

Three kinds of test, as in test_shadowrun.py: the shared rule functions on every case; worked
examples computed by hand; and each exact function against tests sampled with the dice layer's
vectorised ``sample`` (fixed seeds), where the rule is restated in numpy here, independently of
the module. False-failure budget: five ``assert_fits`` checks at ``ALPHA = 1e-4`` (tests/stats.py),
so a correct build would fail one of them with fresh seeds with probability below 0.05%; each
check also proves its power by rejecting a named rule mistake on the same sample.
"""

from fractions import Fraction as F
from math import comb

import numpy as np
import pytest

from combatsim.dice.exact import Dist
from combatsim.dice.shadowrun import (
    D6,
    D8,
    after_karma_reroll,
    dodges,
    exact_dodged_attack,
    exact_karma_negate,
    exact_karma_reroll,
    exact_margin,
    exact_outcomes,
    exact_successes,
    karma_rerolls,
    sample,
)
from tests.stats import ALPHA, assert_fits, chi_square_p

SIZE = 200_000


def _counts(values) -> dict:
    out: dict = {}
    for v in values:
        out[v] = out.get(v, 0) + 1
    return out


def _rejected(values, wrong: Dist, mistake: str) -> None:
    p = chi_square_p(_counts(values), wrong)
    assert p < ALPHA, f"sample too small to catch {mistake!r} (p = {p:.3g})"


# --- the shared rule (the battles call these two functions) -----------------------------------


@pytest.mark.parametrize(
    ("successes", "fumble", "rerolled"), [(0, False, True), (0, True, True), (1, False, False)]
)
def test_karma_rerolls_a_test_with_no_success_and_only_that(successes, fumble, rerolled):
    assert karma_rerolls(successes, fumble) is rerolled


@pytest.mark.parametrize(
    ("kept", "again", "again_fumble", "option", "result"),
    [
        (0, 0, True, True, (0, True)),  # every die on 1 after the re-roll: a fumble (ruling 26)
        (0, 0, True, False, (0, False)),  # option off: a re-roll never fumbles
        (0, 2, False, True, (2, False)),
        (1, 0, True, True, (1, False)),  # a kept success is not on 1: no fumble
        (2, 1, False, True, (3, False)),
    ],
)
def test_after_karma_reroll_adds_kept_successes_and_fumbles_only_all_on_the_low_face(
    kept, again, again_fumble, option, result
):
    assert after_karma_reroll(kept, again, again_fumble, option) == result


def test_dodges_only_when_the_dodge_beats_the_attack():
    assert dodges(2, 3) and not dodges(2, 2) and not dodges(3, 2)


# --- worked examples by hand ---------------------------------------------------------------------


def test_karma_reroll_of_four_dice_at_tn_5_by_hand():
    """p = 1/3 a die. No success (2/3)^4 = 16/81 is re-rolled: no success stays at (16/81)^2,
    k >= 1 successes gains 16/81 x P(k), and the fumble is 16/81 x (1/6)^4 = 1/6561."""
    law = exact_karma_reroll(4, 5, D6)
    first = exact_successes(4, 5, D6)
    miss = F(16, 81)
    assert law[(0, False)] + law[(0, True)] == miss**2
    assert law[(0, True)] == F(1, 6561)
    for k in range(1, 5):
        assert law[(k, False)] == first[k] * (1 + miss)
    assert law.total() == 1


def test_karma_reroll_fumble_on_the_d8_and_with_the_option_off():
    """Two D8 dice at TN 7 (1/8 a die): no success 49/64, then both on 0: 49/64 x 1/64."""
    assert exact_karma_reroll(2, 7, D8)[(0, True)] == F(49, 4096)
    off = exact_karma_reroll(2, 7, D8, reroll_fumbles=False)
    assert off[(0, True)] == 0 and off[(0, False)] == F(49, 64) ** 2


def test_karma_negate_keeps_the_successes_and_drops_the_fumble():
    law = exact_karma_negate(3, 4, D6)
    assert law.prob(lambda o: o[1]) == 0
    assert law.map(lambda o: o[0]) == exact_successes(3, 4, D6)
    assert law[(0, False)] == F(1, 8)  # (1/2)^3, the fumble 1/216 among them


def test_margin_of_six_dice_against_five_at_tn_4_is_a_shifted_binomial():
    """At TN 4 a die is a coin: A - D + 5 = A + (5 - D) is Binomial(11, 1/2), so a tie is
    C(11, 5)/2048 = 462/2048, and the attacker wins exactly half the time."""
    margin = exact_margin(exact_successes(6, 4, D6), exact_successes(5, 4, D6))
    for m in range(-5, 7):
        assert margin[m] == F(comb(11, m + 5), 2048)
    assert margin[0] == F(462, 2048)
    assert margin.prob(lambda m: m > 0) == F(1, 2)


def test_margin_of_one_die_each_at_different_tns():
    """Attacker TN 4 (1/2), defender TN 6 (1/6): wins 1/2 x 5/6, loses 1/2 x 1/6."""
    margin = exact_margin(exact_successes(1, 4, D6), exact_successes(1, 6, D6))
    assert (margin[1], margin[0], margin[-1]) == (F(5, 12), F(1, 2), F(1, 12))


def test_a_dodged_attack_by_hand():
    """One attack die at TN 4 (1/2) against two dodge dice at TN 4: no success 1/2, not
    dodged; one success is dodged cleanly only by two dodge successes (1/4): 1/8."""
    joint = exact_dodged_attack(exact_successes(1, 4, D6), 2, 4, D6)
    assert joint[(0, 0)] == F(1, 2)
    assert joint.prob(lambda o: o[0] > 0 and dodges(*o)) == F(1, 8)
    assert joint[(1, 0)] == F(1, 8) and joint[(1, 1)] == F(1, 4)
    assert exact_dodged_attack(exact_successes(0, 4, D6), 3, 4, D6) == Dist.point((0, 0))
    # no dodge dice: every success hits
    assert exact_dodged_attack(exact_successes(2, 4, D6), 0, 4, D6)[(2, 0)] == F(1, 4)


# --- against sampling ---------------------------------------------------------------------------


def _sampled_karma(rng, n, tn, dice, reroll_fumbles):
    """Ruling 11 and 26 restated: a test with no success is rolled again whole (no die kept),
    and the re-roll's fumble stands when the option is on."""
    first, first_fumble = sample(rng, n, tn, SIZE, dice)
    again, again_fumble = sample(rng, n, tn, SIZE, dice)
    redo = first == 0
    successes = np.where(redo, again, first)
    fumble = np.where(redo, again_fumble & reroll_fumbles, first_fumble)
    return list(zip(successes.tolist(), fumble.tolist(), strict=True))


@pytest.mark.parametrize(
    ("dice", "n", "tn", "reroll_fumbles", "seed"),
    [(D6, 1, 5, True, 26_001), (D8, 2, 7, True, 26_002), (D6, 1, 5, False, 26_003)],
)
def test_karma_reroll_fits_sampled_rerolls(dice, n, tn, reroll_fumbles, seed):
    outcomes = _sampled_karma(np.random.default_rng(seed), n, tn, dice, reroll_fumbles)
    assert_fits(outcomes, exact_karma_reroll(n, tn, dice, reroll_fumbles))
    # the mistakes: the old reading (a re-roll never fumbles) with the option on, the new one
    # with it off; and no Karma at all
    wrong = exact_karma_reroll(n, tn, dice, not reroll_fumbles)
    _rejected(outcomes, wrong, "the other karma_reroll_fumbles")
    _rejected(outcomes, exact_outcomes(n, tn, dice), "no re-roll")


def test_margin_fits_sampled_opposed_tests():
    """Four dice at TN 5 against three at TN 4 (d6); the mistake: both at TN 4."""
    rng = np.random.default_rng(9_009)
    attack, _ = sample(rng, 4, 5, SIZE, D6)
    defence, _ = sample(rng, 3, 4, SIZE, D6)
    margins = (attack - defence).tolist()
    assert_fits(margins, exact_margin(exact_successes(4, 5, D6), exact_successes(3, 4, D6)))
    wrong = exact_margin(exact_successes(4, 4, D6), exact_successes(3, 4, D6))
    _rejected(margins, wrong, "the defender's TN used for both")


def test_dodged_attack_fits_sampled_dodges():
    """Three attack dice at TN 5 against two Dodge Pool dice at TN 4 on the D8; the dodge
    is not rolled when the attack has no success. The mistakes: a tie dodges cleanly, and the
    dodge rolled (and counted) against a miss as well."""
    rng = np.random.default_rng(5_005)
    attack, _ = sample(rng, 3, 5, SIZE, D8)
    dodge, _ = sample(rng, 2, 4, SIZE, D8)
    dodge = np.where(attack > 0, dodge, 0)
    pairs = list(zip(attack.tolist(), dodge.tolist(), strict=True))
    joint = exact_dodged_attack(exact_successes(3, 5, D8), 2, 4, D8)
    assert_fits(pairs, joint)
    clean = [int(a > 0 and d > a) for a, d in pairs]
    ties_dodge = joint.prob(lambda o: o[0] > 0 and o[1] >= o[0])
    _rejected(clean, Dist.bernoulli(ties_dodge), "a tie dodges cleanly")
    always = exact_successes(3, 5, D8).bind(
        lambda a: exact_successes(2, 4, D8).map(lambda d: (a, d))
    )
    _rejected(pairs, always, "the dodge rolled against a miss")
