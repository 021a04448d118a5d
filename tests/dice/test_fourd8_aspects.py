"""4D8 combinations on successful rolls only, and the aspect: which dice made the combination
(seed 004 "Dice Roll", "Additional Rules for Special Dice Combinations"; rulings 20, 21, 24).
Worked by hand, against ``resolve`` on every roll, and against sampling.

False-failure budget: each sampling test is one or two ``assert_fits`` at ``ALPHA = 1e-4`` with
a fixed seed (see tests/stats.py); this file adds 5, so a correct build with fresh seeds would
fail one with probability below 5e-4.
"""

from __future__ import annotations

from fractions import Fraction
from itertools import combinations, product

import numpy as np
import pytest

from combatsim.dice import fourd8 as f
from combatsim.dice.exact import Dist
from combatsim.errors import UsageError
from tests.stats import assert_fits, chi_square_p

ALL = f.ASPECTS
N = 4096


# --- worked examples by hand --------------------------------------------------------------------


def test_chance_32_every_roll_succeeds_and_the_aspects_are_counted_by_hand():
    aspects = f.exact_aspects(32)
    # A pair on dice 1 and 2: those two alike (8), the others different from it and each
    # other (7 x 6): 336 rolls; likewise for each of the 6 pairs of dice.
    for dice in combinations(range(4), 2):
        assert aspects[(True, "pair", tuple(ALL[i] for i in dice))] == Fraction(336, N)
    # A triple on three given dice: 8 x 7 = 56 rolls; each of 4 sets of three.
    for dice in combinations(range(4), 3):
        assert aspects[(True, "triple", tuple(ALL[i] for i in dice))] == Fraction(56, N)
    # Two pairs: 3 ways to pair the dice x 8 x 7 faces = 168, all four dice.
    assert aspects[(True, "two_pairs", ALL)] == Fraction(168, N)
    assert aspects[(True, "four_alike", ALL)] == Fraction(7, N)
    assert aspects[(True, "snake_eyes", ALL)] == Fraction(1, N)
    # No combination: 8 x 7 x 6 x 5 = 1680 rolls, the highest on each die a quarter of them.
    for a in ALL:
        assert aspects[(True, "none", (a,))] == Fraction(420, N)
    assert aspects.total() == 1


def test_at_chance_5_the_successes_are_snake_eyes_and_four_triples_of_ones():
    # Totals up to 5: 1-1-1-1 and the 2 on any one of the four dice (a triple of 1s).
    assert f.p_success(5) == Fraction(5, N)
    assert f.exact_kind_on_success(5) == Dist(
        {"snake_eyes": Fraction(1, 5), "triple": Fraction(4, 5)}
    )
    on = f.exact_aspects_on_success(5)
    assert on[("snake_eyes", ALL)] == Fraction(1, 5)
    for two_on in range(4):
        ones = tuple(a for i, a in enumerate(ALL) if i != two_on)
        assert on[("triple", ones)] == Fraction(1, 5)


def test_on_success_is_the_restriction_divided_by_the_chance_of_success():
    for chance in (9, 17, 26):
        p = f.p_success(chance)
        kinds = f.exact_outcomes(chance).map(lambda o: (o[0], o[2]))
        given = f.exact_kind_on_success(chance)
        assert given.total() == 1
        for kind in f.KINDS:
            assert given[kind] == kinds[(True, kind)] / p


def test_at_a_hard_chance_the_successes_are_small_dice():
    # At chance 12 a success needs small dice: a pair of 8s never succeeds.
    every, given = f.exact_kind(12), f.exact_kind_on_success(12)
    assert given["snake_eyes"] > every["snake_eyes"]
    assert f.exact_aspects(12).prob(lambda o: o[0] and o[1] == "four_alike") == Fraction(2, N)


def test_bonus_roll_aspect_is_the_highest_die_first_of_a_tie_and_snake_eyes_all_four():
    aspects = f.exact_aspects(36)  # bonus roll: no combinations
    assert {kind for _, kind, _ in aspects} == {"none", "snake_eyes"}
    assert aspects[(True, "snake_eyes", ALL)] == Fraction(1, N)
    # The highest die is the first die when it is at least every other: sum over its face v
    # of v^3 rolls (others up to v), less four 1s (snake-eyes) and four 8s (the failure).
    first = sum(v**3 for v in range(1, 9)) - 2
    assert aspects[(True, "none", ("physical",))] == Fraction(first, N)
    assert aspects[(False, "none", ("physical",))] == Fraction(1, N)


def test_automatic_success_shows_its_8_on_the_first_die():
    assert f.exact_aspects(40, "automatic") == Dist.point((True, "none", ("physical",)))


def test_exact_aspects_is_resolve_over_every_roll():
    for chance, over32 in ((18, "bonus"), (35, "doubles")):
        counts: dict = {}
        for faces in product(range(1, 9), repeat=4):
            r = f.resolve(faces, chance, over32)
            key = (r.success, r.kind, r.aspects)
            counts[key] = counts.get(key, 0) + 1
        assert f.exact_aspects(chance, over32) == Dist(
            (k, Fraction(c, N)) for k, c in counts.items()
        )


def test_no_success_to_condition_on_is_refused():
    with pytest.raises(UsageError):
        f.exact_kind_on_success(3)


@pytest.mark.parametrize(
    ("chance", "over32"),
    [(18, "bonus"), (30, "bonus"), (35, "bonus"), (35, "doubles"), (40, "automatic")],
)
def test_vectorised_aspects_agree_with_resolve_on_all_4096_rolls(chance, over32):
    faces = np.array(list(product(range(1, 9), repeat=4)))
    mask = f.combination_dice_many(faces, chance, over32)
    for row, used in zip(faces.tolist(), mask.tolist(), strict=True):
        shown = tuple(a for a, u in zip(ALL, used, strict=True) if u)
        assert shown == f.resolve(tuple(row), chance, over32).aspects


# --- sampling ------------------------------------------------------------------------------------


def _sampled(seed: int, chance: int, over32: str, size: int) -> list[tuple[bool, str, tuple]]:
    s = f.sample(np.random.default_rng(seed), chance, size, over32)
    mask = f.combination_dice_many(s.faces, chance, over32)
    kinds = np.asarray(f.KINDS)[s.kind]
    return [
        (bool(ok), str(kind), tuple(a for a, u in zip(ALL, used, strict=True) if u))
        for ok, kind, used in zip(s.success.tolist(), kinds.tolist(), mask.tolist(), strict=True)
    ]


@pytest.mark.slow
@pytest.mark.parametrize(
    ("seed", "chance", "over32"), [(2041, 18, "bonus"), (2042, 36, "bonus"), (2043, 35, "doubles")]
)
def test_sampled_aspects_fit_exact(seed, chance, over32):
    # 80,000 rolls: every (kind, aspects) outcome but four alike and snake-eyes expected 100+ times.
    assert_fits(_sampled(seed, chance, over32, 80_000), f.exact_aspects(chance, over32))


@pytest.mark.slow
def test_sampled_successes_fit_the_combinations_and_aspects_on_success_only():
    samples = [(k, a) for ok, k, a in _sampled(2044, 14, "bonus", 200_000) if ok]
    assert_fits([k for k, _ in samples], f.exact_kind_on_success(14))
    assert_fits(samples, f.exact_aspects_on_success(14))
    # The combinations over every roll are not those of the successes: rejected.
    counts: dict = {}
    for k, _ in samples:
        counts[k] = counts.get(k, 0) + 1
    assert chi_square_p(counts, f.exact_kind(14)) < 1e-6
