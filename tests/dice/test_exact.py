"""``Dist``: exact finite distributions in Fractions (combatsim/dice/exact.py).

Worked values first, then each constructor and combinator against brute-force enumeration,
then hypothesis properties (every distribution built here sums to exactly 1; ``n`` copies by
square-and-multiply equal ``n`` repeated additions).
"""

from collections import Counter
from fractions import Fraction
from functools import reduce
from itertools import product

import pytest
from hypothesis import given
from hypothesis import strategies as st

from combatsim.dice.exact import Dist
from combatsim.errors import UsageError

F = Fraction
D6 = Dist.uniform(range(1, 7))


def brute(outcomes) -> Dist:
    """The distribution of equally likely listed outcomes, by counting."""
    counts = Counter(outcomes)
    total = sum(counts.values())
    return Dist({k: F(c, total) for k, c in counts.items()})


# --- worked values --------------------------------------------------------------------------------


def test_two_d6_show_seven_one_time_in_six():
    two = Dist.dice_sum(2, 6)
    assert two[7] == F(1, 6)
    assert two[2] == two[12] == F(1, 36)
    assert two.mean() == 7


def test_probabilities_are_exact_fractions():
    assert all(type(p) is Fraction for p in D6.values())
    assert D6.total() == 1  # exactly, not approximately
    assert Dist({1: 0.5, 2: 0.5})[1] == F(1, 2)  # a float is taken at its exact value


def test_outcomes_with_zero_mass_are_dropped():
    d = Dist({1: F(1, 2), 2: F(0), 3: F(1, 2)})
    assert set(d) == {1, 3} and len(d) == 2


def test_membership_is_the_support_and_off_support_mass_is_zero():
    assert 3 in D6 and 7 not in D6
    assert 0 not in D6.keys()  # noqa: SIM118 -- the keys view must agree with the mapping
    assert D6[7] == 0
    assert 2 not in Dist({1: F(1), 2: F(0)})


def test_mass_given_twice_for_one_outcome_is_added():
    assert Dist([(1, F(1, 4)), (2, F(1, 2)), (1, F(1, 4))]) == Dist({1: F(1, 2), 2: F(1, 2)})


def test_dist_is_read_only():
    with pytest.raises(TypeError):
        D6[1] = F(1)  # type: ignore[index]
    with pytest.raises(AttributeError):
        D6.extra = 1  # type: ignore[attr-defined]


def test_equality_compares_the_whole_mapping():
    assert Dist.uniform([1, 2]) == Dist.bernoulli(F(1, 2)).map(lambda k: k + 1)
    assert Dist.uniform([1, 2]) != Dist.uniform([1, 2, 3])


def test_repr_lists_outcomes_and_fractions():
    assert repr(Dist.bernoulli(F(1, 4))) == "Dist({1: 1/4, 0: 3/4})"


# --- constructors against enumeration ------------------------------------------------------------


def test_uniform_counts_repeated_outcomes():
    assert Dist.uniform([1, 1, 2]) == Dist({1: F(2, 3), 2: F(1, 3)})


def test_point_and_bernoulli():
    assert Dist.point("x") == Dist({"x": F(1)})
    assert Dist.bernoulli(F(1, 3)) == Dist({1: F(1, 3), 0: F(2, 3)})
    assert Dist.bernoulli(F(1)) == Dist.point(1)


@pytest.mark.parametrize("n", range(0, 6))
@pytest.mark.parametrize("p", [F(0), F(1, 6), F(1, 2), F(5, 6), F(1)])
def test_binomial_matches_enumeration_of_trials(n, p):
    # Each trial: success with chance p = a/b, as a of b equally likely faces.
    a, b = p.numerator, p.denominator
    outcomes = [sum(face < a for face in faces) for faces in product(range(b), repeat=n)]
    assert Dist.binomial(n, p) == brute(outcomes)


@pytest.mark.parametrize("n, sides", [(0, 6), (1, 6), (2, 6), (3, 6), (2, 8), (3, 4)])
def test_dice_sum_matches_enumeration(n, sides):
    faces = range(1, sides + 1)
    assert Dist.dice_sum(n, sides) == brute(sum(c) for c in product(faces, repeat=n))
    assert Dist.dice_sum(n, sides, plus=3) == brute(sum(c) + 3 for c in product(faces, repeat=n))


# --- combinators ---------------------------------------------------------------------------------


def test_map_merges_outcomes_with_the_same_image():
    parity = D6.map(lambda k: k % 2)
    assert parity == Dist({0: F(1, 2), 1: F(1, 2)})


def test_bind_is_the_two_stage_experiment():
    """Roll a d6, then that many coins: enumerate every path with its weight."""
    staged = D6.bind(lambda k: Dist.binomial(k, F(1, 2)))
    paths = [
        (sum(coins), F(1, 6) * F(1, 2**k))
        for k in range(1, 7)
        for coins in product((0, 1), repeat=k)
    ]
    assert staged == Dist(paths)
    assert staged.total() == 1


def test_add_is_the_convolution_of_independent_variables():
    d4 = Dist.uniform(range(1, 5))
    assert D6 + d4 == brute(a + b for a, b in product(range(1, 7), range(1, 5)))


@pytest.mark.parametrize("n", range(0, 9))
def test_mul_equals_repeated_addition(n):
    repeated = reduce(lambda acc, _: acc + D6, range(n), Dist.point(0))
    assert D6 * n == repeated


def test_mul_by_a_negative_count_is_a_usage_error():
    with pytest.raises(UsageError, match="^n: "):
        D6 * -1
    with pytest.raises(UsageError):
        Dist.dice_sum(-2, 6)


# --- queries -------------------------------------------------------------------------------------


def test_queries():
    assert D6.prob(lambda k: k % 2 == 0) == F(1, 2)
    assert D6.at_least(5) == F(1, 3)
    assert D6.at_least(7) == 0
    assert D6.mean() == F(7, 2)
    assert Dist.uniform([3, 1, 2]).sorted_items() == [(1, F(1, 3)), (2, F(1, 3)), (3, F(1, 3))]
    assert Dist.bernoulli(F(1, 4)).to_floats() == {0: 0.75, 1: 0.25}
    assert list(Dist.bernoulli(F(1, 4)).to_floats()) == [0, 1]  # sorted by outcome


# --- properties ----------------------------------------------------------------------------------

small_dists = st.dictionaries(st.integers(-5, 5), st.integers(1, 10), min_size=1, max_size=5).map(
    lambda w: Dist({k: F(v, sum(w.values())) for k, v in w.items()})
)


@given(small_dists, small_dists, st.integers(0, 5))
def test_combinators_keep_total_mass_one(a, b, n):
    assert a.total() == 1
    assert (a + b).total() == 1
    assert (a * n).total() == 1
    assert a.map(abs).total() == 1
    assert a.bind(lambda k: b.map(lambda j: j * k)).total() == 1


@given(small_dists, small_dists)
def test_mean_of_a_sum_is_the_sum_of_means(a, b):
    assert (a + b).mean() == a.mean() + b.mean()


@given(small_dists, st.integers(0, 6))
def test_mul_by_squaring_equals_n_additions(a, n):
    assert a * n == reduce(lambda acc, _: acc + a, range(n), Dist.point(0))


@given(st.integers(0, 12), st.fractions(0, 1, max_denominator=12))
def test_binomial_sums_to_one_with_the_right_mean(n, p):
    dist = Dist.binomial(n, p)
    assert dist.total() == 1
    assert dist.mean() == n * p
    assert set(dist) <= set(range(n + 1))
