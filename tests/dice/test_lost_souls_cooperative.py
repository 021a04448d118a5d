"""Lost Souls cooperative roll (seed 001 "Cooperative Rolls"; rulings 17 and 19): the lead's tier
after an assistant's die, exactly; worked by hand on the shipped table, and against sampling.

False-failure budget: each sampling test is one ``assert_fits`` at ``ALPHA = 1e-4`` with a fixed
seed (see tests/stats.py); this file adds 3, so a correct build with fresh seeds would fail one
with probability below 3e-4.
"""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest

from combatsim.dice import lost_souls as ls
from combatsim.dice.exact import Dist
from combatsim.errors import UsageError
from tests.stats import assert_fits, chi_square_p


def success(dist: Dist) -> Fraction:
    return dist.prob(lambda t: t.success)


# --- worked examples by hand (shipped table, column 6: Passable from 51, Good from 76,
# Mediocre from 20) ----------------------------------------------------------------------------


def test_assistant_in_column_6_gives_a_bonus_die_a_quarter_of_the_time():
    # Good or better: rolls 76-100, 25 of 100; Inferior or worse: 1-19, 19 of 100.
    assert ls.exact_cooperative_dice(6) == Dist(
        {1: Fraction(25, 100), 0: Fraction(56, 100), -1: Fraction(19, 100)}
    )


def test_lead_in_column_6_helped_by_column_6_succeeds_103_times_in_200():
    # Every ones face leaves 5 of its 10 rolls at 51 or more, so one bonus die gives
    # 1 - (1/2)^2 = 3/4 and one penalty die (1/2)^2 = 1/4 (rules-lost-souls.md's 50/75/25).
    assert success(ls.exact_tier(6, 1)) == Fraction(3, 4)
    assert success(ls.exact_tier(6, -1)) == Fraction(1, 4)
    helped = ls.exact_assisted_tier(6, 0, 6)
    p = Fraction(25, 100) * Fraction(3, 4) + Fraction(56, 100) / 2 + Fraction(19, 100) / 4
    assert p == Fraction(103, 200)
    assert success(helped) == p


def test_the_assistants_die_joins_the_leads_dice_before_the_cap_of_5():
    die = ls.exact_cooperative_dice(6)
    top = ls.exact_assisted_tier(6, 5, 6)
    for tier in ls.default_table().tiers:  # +5 with a bonus die stays +5; a penalty die: +4
        want = (die[1] + die[0]) * ls.exact_tier(6, 5)[tier] + die[-1] * ls.exact_tier(6, 4)[tier]
        assert top[tier] == want
    assert ls.cap_net_dice(6) == 5 and ls.cap_net_dice(-7) == -5 and ls.cap_net_dice(3) == 3


def test_an_assistant_in_column_1_with_five_penalty_dice_by_hand():
    # The worst of 6 tens dice with the ones die. Inferior or worse is 1-45: ones 1-5 leave 5
    # of 10 rolls there, ones 6-9 and 0 leave 4 (00 is 100). Good or better is 91 up: one roll
    # in ten for every ones face (91-99, or 100), so all six dice must show it.
    penalty = Fraction(1, 2) * (1 - Fraction(1, 2) ** 6) + Fraction(1, 2) * (
        1 - Fraction(3, 5) ** 6
    )
    bonus = Fraction(1, 10) ** 6
    die = ls.exact_cooperative_dice(1, -5)
    assert die == Dist({1: bonus, -1: penalty, 0: 1 - bonus - penalty})
    helped = ls.exact_assisted_tier(3, 0, 1, -5)
    assert helped == die.bind(lambda d: ls.exact_tier(3, d))


def test_assisted_tier_sums_to_one_and_the_battles_choice_of_help_agrees_with_it():
    """The battle's ``when_helpful`` helps when P(bonus die) > P(penalty die): exactly when the
    assisted roll is better than the unassisted one (the tiers only rise with more dice)."""
    for helper in ls.default_table().column_labels:
        helped = ls.exact_assisted_tier(6, 0, helper)
        die = ls.exact_cooperative_dice(helper)
        assert helped.total() == 1
        better = success(helped) > success(ls.exact_tier(6, 0))
        assert better == (die[1] > die[-1])


@pytest.mark.parametrize(
    ("kwargs", "argument"),
    [
        ({"column": 11}, "column"),
        ({"assist_column": 0}, "column"),
        ({"net": 6}, "net"),
        ({"assist_net": -6}, "net"),
    ],
)
def test_bad_arguments_are_refused(kwargs, argument):
    call = {"column": 6, "net": 0, "assist_column": 6, "assist_net": 0, **kwargs}
    with pytest.raises(UsageError) as problem:
        ls.exact_assisted_tier(**call)
    assert problem.value.argument == argument


# --- sampling ------------------------------------------------------------------------------------


def _joint(column, net, helper, helper_net) -> Dist[tuple[int, int]]:
    """(assistant's die, lead's rank) exactly, from the functions under test."""
    die = ls.exact_cooperative_dice(helper, helper_net)
    return die.bind(
        lambda d: ls.exact_tier(column, ls.cap_net_dice(net + d)).map(lambda t: (d, t.rank))
    )


@pytest.mark.parametrize(
    ("seed", "column", "net", "helper", "helper_net"),
    [(1901, 6, 0, 4, 0), (1902, 3, -2, 9, 1), (1903, 8, 5, 2, -1)],
)
def test_sampled_assisted_roll_fits_exact(seed, column, net, helper, helper_net):
    # 60,000 rolls: the assistant's die moves the lead's success by 5 to 25 points.
    rng = np.random.default_rng(seed)
    die, ranks = ls.sample_assisted(rng, column, net, helper, helper_net, 60_000)
    pairs = list(zip(die.tolist(), ranks.tolist(), strict=True))
    assert_fits(pairs, _joint(column, net, helper, helper_net))
    lead = ls.exact_assisted_tier(column, net, helper, helper_net).map(lambda t: t.rank)
    assert_fits(ranks.tolist(), lead)


def test_sampled_assisted_roll_rejects_a_penalty_die_that_is_ignored():
    rng = np.random.default_rng(1904)
    _, ranks = ls.sample_assisted(rng, 6, 0, 4, 0, 60_000)
    die = ls.exact_cooperative_dice(4).map(lambda d: max(d, 0))  # the wrong rule
    wrong = die.bind(lambda d: ls.exact_tier(6, d)).map(lambda t: t.rank)
    counts: dict[int, int] = {}
    for r in ranks.tolist():
        counts[r] = counts.get(r, 0) + 1
    assert chi_square_p(counts, wrong) < 1e-6
