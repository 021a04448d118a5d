"""Lost Souls bonus/penalty percentile dice (seed 001; rulings 17-19) and the Action Results Table.

Kept apart: worked examples with given faces (no randomness), combat helpers, exact-math checks
(sums, brute-force enumeration, monotonicity), the table loader, and samplers against the exact
distributions with ``assert_fits``.
"""

from __future__ import annotations

import itertools
from collections import Counter
from fractions import Fraction
from importlib import resources

import numpy as np
import pytest
import yaml
from hypothesis import given
from hypothesis import strategies as st

from combatsim.dice import lost_souls as ls
from combatsim.dice.exact import Dist
from combatsim.errors import ScenarioError, UsageError
from combatsim.rules.lost_souls.table import load_table, parse_table
from tests.stats import assert_fits

TABLE = ls.default_table()
TIER_NAMES = (
    "Catastrophic",
    "Dismal",
    "Inferior",
    "Mediocre",
    "Poor",
    "Passable",
    "Fair",
    "Good",
    "Superior",
    "Awesome",
)
SHIPPED_TEXT = (resources.files("combatsim") / "data" / "action_results_table.yaml").read_text(
    encoding="utf-8"
)


def p_roll_100(n: int) -> Fraction:
    """P(the roll is 00 = 100) with net dice ``n``, derived apart from ``exact_roll``.

    The ones die must show 0 (1/10). Then a tens-place 0 is the best face: with bonus dice any
    of the ``n + 1`` dice showing 0 gives 100; with penalty dice all ``|n| + 1`` must show 0.
    """
    k = abs(n) + 1
    if n >= 0:
        return Fraction(1, 10) * (1 - Fraction(9, 10) ** k)
    return Fraction(1, 10) * Fraction(1, 10) ** k


def scripted_draw(faces):
    """A ``draw(sides, k)`` that hands out ``faces`` in order and records each call."""
    it = iter(faces)
    calls = []

    def draw(sides, k):
        calls.append((sides, k))
        return [next(it) for _ in range(k)]

    return draw, calls


# --- worked examples: given faces, no randomness ------------------------------------------------


def test_perkins_bonus_die_8_replaces_tens_6_giving_89():
    result = ls.resolve(6, 9, bonus=[8])
    assert result.value == 89
    assert result.tens_used == 8 and result.replaced


@pytest.mark.parametrize("bonus_face", [0, 1, 2, 3, 4, 5, 6])
def test_perkins_bonus_die_not_above_tens_keeps_69(bonus_face):
    result = ls.resolve(6, 9, bonus=[bonus_face])
    assert result.value == 69
    assert result.tens_used == 6 and not result.replaced


def test_mandy_penalty_die_0_turns_99_into_09():
    result = ls.resolve(9, 9, penalty=[0])
    assert result.value == 9
    assert result.tens_used == 0 and result.replaced


def test_mandy_example_goes_from_awesome_to_catastrophic_in_some_shipped_column():
    """Seed 001: the penalty die took 'an Awesome success' (99) to 'a Catastrophic failure' (09)."""
    matching = [
        c
        for c in TABLE.column_labels
        if TABLE.tier(99, c).name == "Awesome" and TABLE.tier(9, c).name == "Catastrophic"
    ]
    assert matching


def test_00_reads_as_100_the_best_roll():
    assert ls.read_percentile(0, 0) == 100
    assert ls.resolve(0, 0).value == 100
    assert ls.read_percentile(0, 5) == 5
    assert ls.read_percentile(9, 0) == 90
    assert ls.read_percentile(9, 9) == 99


@pytest.mark.parametrize("bonus_face", range(10))
def test_a_bonus_die_never_lowers_00(bonus_face):
    result = ls.resolve(0, 0, bonus=[bonus_face])
    assert result.value == 100 and not result.replaced


def test_five_high_bonus_dice_leave_00_at_100():
    assert ls.resolve(0, 0, bonus=[9, 9, 8, 7, 9]).value == 100


def test_a_bonus_0_raises_a_roll_with_ones_0_to_100():
    assert ls.resolve(9, 0, bonus=[0]).value == 100


def test_several_bonus_dice_compare_the_best_roll_not_the_highest_digit():
    # With the ones die on 0, a bonus 0 reads 100 and beats a bonus 9 (90).
    assert ls.resolve(3, 0, bonus=[9, 0]).value == 100
    # With any other ones face the 9 gives the best roll.
    assert ls.resolve(3, 5, bonus=[9, 0]).value == 95


@pytest.mark.parametrize(("penalty_face", "expected"), [(1, 10), (5, 50), (9, 90)])
def test_a_penalty_die_lowers_00(penalty_face, expected):
    result = ls.resolve(0, 0, penalty=[penalty_face])
    assert result.value == expected and result.replaced


def test_a_penalty_0_does_not_change_00():
    result = ls.resolve(0, 0, penalty=[0])
    assert result.value == 100 and not result.replaced


def test_several_penalty_dice_compare_the_worst_roll_not_the_lowest_digit():
    # With the ones die on 0, a penalty 0 reads 100; the worst roll is the 1 (10).
    assert ls.resolve(5, 0, penalty=[0, 1]).value == 10
    # With the ones die on 5, the 0 gives 05, the worst.
    assert ls.resolve(5, 5, penalty=[0, 1]).value == 5


def test_one_bonus_and_two_penalty_dice_roll_as_one_penalty_die():
    assert ls.net_dice(bonus=1, penalty=2) == -1
    draw, calls = scripted_draw([6, 9, 2])
    result = ls.roll(draw, bonus=1, penalty=2)
    assert calls == [(10, 3)]
    assert result.penalty == (2,) and result.bonus == ()
    assert result.value == 29


def test_roll_draws_tens_ones_then_the_extra_dice_and_reads_10_as_0():
    draw, calls = scripted_draw([10, 10, 3, 3])
    result = ls.roll(draw, net=-2)
    assert calls == [(10, 4)]
    assert (result.tens, result.ones, result.penalty) == (0, 0, (3, 3))
    assert result.value == 30


def test_roll_with_a_bonus_die_from_draw_matches_perkins():
    draw, _ = scripted_draw([6, 9, 8])
    assert ls.roll(draw, net=1).value == 89


def test_net_dice_cancel_before_the_cap():
    assert ls.net_dice(bonus=7, penalty=2) == 5
    assert ls.net_dice(2, bonus=1, penalty=4) == -1


@pytest.mark.parametrize(
    ("kwargs", "argument"),
    [
        ({"net": 6}, "net"),
        ({"net": -6}, "net"),
        ({"bonus": 6}, "bonus - penalty"),
        ({"penalty": 6}, "bonus - penalty"),
        ({"net": 3, "bonus": 3}, "net + bonus - penalty"),
    ],
)
def test_more_than_five_net_dice_is_refused_naming_the_argument_and_range(kwargs, argument):
    with pytest.raises(UsageError) as info:
        ls.net_dice(**kwargs)
    assert info.value.argument == argument
    assert "-5 to 5" in info.value.allowed


@pytest.mark.parametrize(
    "call",
    [
        lambda: ls.exact_roll(6),
        lambda: ls.exact_roll(penalty=6),
        lambda: ls.sample(np.random.default_rng(0), 6, 10),
        lambda: ls.roll(scripted_draw([1] * 8)[0], -6),
        lambda: ls.exact_tier(1, 6),
    ],
)
def test_every_entry_point_enforces_the_cap(call):
    with pytest.raises(UsageError):
        call()


def test_negative_bonus_or_penalty_counts_are_refused():
    with pytest.raises(UsageError) as info:
        ls.net_dice(bonus=-1)
    assert info.value.argument == "bonus"
    with pytest.raises(UsageError) as info:
        ls.net_dice(penalty=-1)
    assert info.value.argument == "penalty"


def test_resolve_refuses_both_kinds_six_dice_and_faces_outside_0_to_9():
    with pytest.raises(UsageError):
        ls.resolve(5, 5, bonus=[1], penalty=[2])
    with pytest.raises(UsageError):
        ls.resolve(5, 5, bonus=[1] * 6)
    with pytest.raises(UsageError):
        ls.resolve(10, 5)
    with pytest.raises(UsageError):
        ls.resolve(5, 5, penalty=[-1])


# --- combat helpers (ruling 19) -------------------------------------------------------------------


@pytest.mark.parametrize(
    ("tier", "dice"),
    [
        ("Catastrophic", -1),
        ("Dismal", -1),
        ("Inferior", -1),
        ("Mediocre", 0),
        ("Poor", 0),
        ("Passable", 0),
        ("Fair", 0),
        ("Good", 1),
        ("Superior", 1),
        ("Awesome", 1),
    ],
)
def test_assistant_good_or_better_gives_a_bonus_die_inferior_or_worse_a_penalty_die(tier, dice):
    assert ls.cooperative_dice(tier) == dice
    assert ls.cooperative_dice(TABLE.tier_named(tier)) == dice


def test_cooperative_dice_refuses_an_unknown_tier():
    with pytest.raises(UsageError):
        ls.cooperative_dice("Great")


@pytest.mark.parametrize(("karma", "dice"), [(0, 0), (2, 1), (4, 2), (6, 3)])
def test_two_karma_buy_one_bonus_die(karma, dice):
    assert ls.karma_bonus_dice(karma) == dice


@pytest.mark.parametrize("karma", [-2, 1, 3, 8])
def test_karma_beyond_three_dice_or_odd_spends_are_refused(karma):
    with pytest.raises(UsageError) as info:
        ls.karma_bonus_dice(karma)
    assert info.value.argument == "points_spent"


def test_each_called_shot_penalty_die_adds_1_to_the_damage_multiplier():
    assert ls.called_shot_multiplier(2, 0) == 2
    assert ls.called_shot_multiplier(2, 1) == 3
    assert ls.called_shot_multiplier(1, 5) == 6
    with pytest.raises(UsageError):
        ls.called_shot_multiplier(2, 6)


def test_the_five_upper_tiers_are_the_successes():
    assert [t.name for t in TABLE.tiers if ls.is_success(t)] == list(TIER_NAMES[5:])
    assert [n for n in TIER_NAMES if ls.is_success(n)] == list(TIER_NAMES[5:])


# --- properties of the resolver -----------------------------------------------------------------

faces = st.integers(0, 9)
extra_dice = st.lists(faces, max_size=5)


@given(faces, faces, extra_dice, st.booleans())
def test_the_ones_die_is_never_replaced_and_the_kept_die_gives_the_roll(tens, ones, dice, bonus):
    result = ls.resolve(tens, ones, dice if bonus else (), () if bonus else dice)
    assert 1 <= result.value <= 100
    assert result.value % 10 == ones
    assert result.tens_used in [tens, *dice]
    assert result.value == ls.read_percentile(result.tens_used, ones)


@given(faces, faces, extra_dice)
def test_bonus_dice_keep_the_best_possible_roll(tens, ones, dice):
    value = ls.resolve(tens, ones, bonus=dice).value
    assert value >= ls.read_percentile(tens, ones)
    assert all(value >= ls.read_percentile(d, ones) for d in dice)


@given(faces, faces, extra_dice)
def test_penalty_dice_keep_the_worst_possible_roll(tens, ones, dice):
    value = ls.resolve(tens, ones, penalty=dice).value
    assert value <= ls.read_percentile(tens, ones)
    assert all(value <= ls.read_percentile(d, ones) for d in dice)


# --- exact math ---------------------------------------------------------------------------------


@pytest.mark.parametrize("net", range(-5, 6))
def test_exact_roll_sums_to_1_over_rolls_1_to_100(net):
    dist = ls.exact_roll(net)
    assert dist.total() == 1
    assert set(dist) <= set(range(1, 101))


def test_exact_roll_with_no_extra_dice_is_uniform_over_1_to_100():
    assert ls.exact_roll(0) == Dist.uniform(range(1, 101))


@pytest.mark.parametrize("net", [-2, -1, 0, 1, 2])
def test_exact_roll_matches_brute_force_over_all_faces(net):
    k = abs(net)
    counts = Counter()
    for tens, ones, *dice in itertools.product(range(10), repeat=2 + k):
        result = ls.resolve(tens, ones, dice if net > 0 else (), dice if net < 0 else ())
        counts[result.value] += 1
    brute = Dist((v, Fraction(c, 10 ** (2 + k))) for v, c in counts.items())
    assert ls.exact_roll(net) == brute


def test_bonus_and_penalty_arguments_give_the_same_distribution_as_net():
    assert ls.exact_roll(bonus=1, penalty=3) == ls.exact_roll(-2)


@pytest.mark.parametrize("net", range(-5, 5))
def test_one_more_net_bonus_die_gives_a_stochastically_higher_roll(net):
    lower, higher = ls.exact_roll(net), ls.exact_roll(net + 1)
    assert all(higher.at_least(x) >= lower.at_least(x) for x in range(1, 101))
    assert higher.mean() > lower.mean()


@pytest.mark.parametrize("net", range(-5, 6))
def test_exact_probability_of_00(net):
    assert ls.exact_roll(net)[100] == p_roll_100(net)


@pytest.mark.parametrize("column", range(1, 11))
def test_exact_tier_without_dice_is_each_tiers_share_of_the_100_rolls(column):
    thresholds = TABLE.column(column).thresholds
    dist = ls.exact_tier(column)
    assert dist.total() == 1
    for rank, low in enumerate(thresholds):
        if low is None:
            assert dist[TABLE.tiers[rank]] == 0
            continue
        higher = [t for t in thresholds[rank + 1 :] if t is not None]
        top = higher[0] if higher else 101
        assert dist[TABLE.tiers[rank]] == Fraction(top - low, 100)


@pytest.mark.parametrize("net", range(-5, 6))
def test_exact_tier_sums_to_1(net):
    assert ls.exact_tier(5, net).total() == 1


@pytest.mark.parametrize("column", range(1, 11))
def test_more_net_dice_make_success_more_likely_in_every_column(column):
    p = [ls.exact_tier(column, n).prob(lambda t: t.success) for n in range(-5, 6)]
    assert all(a < b for a, b in itertools.pairwise(p))


@pytest.mark.parametrize("net", [-5, 0, 5])
def test_higher_columns_give_stochastically_higher_tiers_and_more_success(net):
    dists = [ls.exact_tier(c, net).map(lambda t: t.rank) for c in TABLE.column_labels]
    for lower, higher in itertools.pairwise(dists):
        assert all(higher.at_least(r) >= lower.at_least(r) for r in range(10))
        assert higher.at_least(ls.FIRST_SUCCESS_RANK) > lower.at_least(ls.FIRST_SUCCESS_RANK)


# --- the Action Results Table ------------------------------------------------------------------


def test_shipped_table_loads_with_the_ruling_18_tiers_and_columns_1_to_10():
    table = load_table()
    assert tuple(t.name for t in table.tiers) == TIER_NAMES
    assert table.column_labels == tuple(range(1, 11))
    assert table == TABLE


def test_shipped_table_says_it_is_an_approximation_and_how_to_replace_it():
    assert "APPROXIMATION" in TABLE.note
    assert "load_table" in TABLE.note


@pytest.mark.parametrize("column", range(1, 11))
def test_00_is_awesome_in_every_column(column):
    assert TABLE.tier(100, column).name == "Awesome"


def test_01_is_catastrophic_in_the_low_columns_and_once_not_never_again():
    catastrophic = [TABLE.tier(1, c).name == "Catastrophic" for c in TABLE.column_labels]
    assert all(catastrophic[:5])
    assert catastrophic == sorted(catastrophic, reverse=True)


@pytest.mark.parametrize("column", range(1, 11))
def test_tiers_never_fall_as_the_roll_rises(column):
    ranks = [TABLE.tier(r, column).rank for r in range(1, 101)]
    assert ranks == sorted(ranks)


def test_vectorised_ranks_match_tier_lookup():
    rolls = np.arange(1, 101)
    for column in TABLE.column_labels:
        assert TABLE.ranks(rolls, column).tolist() == [TABLE.tier(r, column).rank for r in rolls]


def test_lookups_refuse_unknown_columns_and_rolls_outside_1_to_100():
    with pytest.raises(UsageError):
        TABLE.tier(50, 11)
    with pytest.raises(UsageError):
        TABLE.tier(50, True)
    with pytest.raises(UsageError):
        TABLE.tier(0, 1)
    with pytest.raises(UsageError):
        TABLE.tier(101, 1)
    with pytest.raises(UsageError):
        ls.exact_tier("4")


def test_a_replacement_table_may_make_a_tier_impossible_in_a_column(tmp_path):
    """The book's tables can rule out Awesome in a column (seed 001 "Introduction")."""
    data = yaml.safe_load(SHIPPED_TEXT)
    data["columns"] = {"weak": [1, 20, 35, 50, 65, 80, 88, 94, 98, None]}
    path = tmp_path / "book.yaml"
    path.write_text(yaml.safe_dump(data), encoding="utf-8")
    table = load_table(path)
    assert table.tier(100, "weak").name == "Superior"
    assert ls.exact_tier("weak", 5, table=table)[table.tier_named("Awesome")] == 0


def write(tmp_path, text):
    path = tmp_path / "table.yaml"
    path.write_text(text, encoding="utf-8")
    return path


def line_of(text, fragment):
    return next(i for i, line in enumerate(text.splitlines(), start=1) if fragment in line)


def test_an_unknown_key_is_refused_naming_it(tmp_path):
    text = SHIPPED_TEXT.replace("\ncolumns:\n", "\ncolums:\n")
    path = write(tmp_path, text)
    with pytest.raises(ScenarioError) as info:
        load_table(path)
    err = info.value
    assert (err.file, err.path, err.found) == (str(path), "colums", "colums")
    assert "columns" in err.allowed
    assert err.line == line_of(text, "colums:")


def test_non_increasing_thresholds_are_refused_naming_the_entry(tmp_path):
    row = "  4:  [1,    10,  19,  28,"
    assert row in SHIPPED_TEXT
    text = SHIPPED_TEXT.replace(row, "  4:  [1,    10,  19,  19,")
    path = write(tmp_path, text)
    with pytest.raises(ScenarioError) as info:
        load_table(path)
    err = info.value
    assert (err.path, err.found) == ("columns.4[3]", 19)
    assert err.line == line_of(text, "  4:  [1,    10,  19,  19,")
    assert "columns.4[3]" in str(err) and str(path) in str(err)


def broken(mutate) -> ScenarioError:
    data = yaml.safe_load(SHIPPED_TEXT)
    mutate(data)
    with pytest.raises(ScenarioError) as info:
        parse_table(yaml.safe_dump(data, sort_keys=False), "broken.yaml")
    assert info.value.file == "broken.yaml"
    return info.value


def test_a_decreasing_threshold_is_refused():
    err = broken(lambda d: d["columns"][2].__setitem__(5, 30))
    assert err.path == "columns.2[5]"


def test_nine_tiers_are_refused():
    err = broken(lambda d: d["tiers"].pop())
    assert err.path == "tiers"


def test_a_table_without_a_good_success_tier_is_refused():
    err = broken(lambda d: d["tiers"].__setitem__(7, "Great"))
    assert err.path == "tiers" and "Good" in err.allowed


@pytest.mark.parametrize("value", [0, 101, 2.5, "x", True])
def test_a_threshold_outside_1_to_100_or_not_an_integer_is_refused(value):
    err = broken(lambda d: d["columns"][7].__setitem__(9, value))
    assert err.path == "columns.7[9]"


def test_a_column_whose_lowest_tier_does_not_start_at_1_is_refused():
    err = broken(lambda d: d["columns"][1].__setitem__(0, 2))
    assert err.path == "columns.1[0]"


def test_a_column_with_the_wrong_number_of_thresholds_is_refused():
    err = broken(lambda d: d["columns"][3].pop())
    assert err.path == "columns.3"


def test_a_missing_note_is_refused():
    err = broken(lambda d: d.pop("note"))
    assert err.path == "note"


def test_invalid_yaml_is_a_scenario_error_with_a_line():
    with pytest.raises(ScenarioError) as info:
        parse_table("tiers: [a, b\ncolumns: {", "bad.yaml")
    assert info.value.line is not None


def test_a_missing_table_file_is_an_error_naming_it(tmp_path):
    with pytest.raises(ScenarioError, match="nope.yaml: .file.: found no such file"):
        load_table(tmp_path / "nope.yaml")


@pytest.mark.slow  # fuzz: hypothesis-made tables
@given(
    st.sampled_from(range(1, 11)),
    st.integers(0, 9),
    st.one_of(st.none(), st.integers(-5, 110)),
)
def test_any_single_threshold_edit_either_loads_a_usable_table_or_is_refused(column, i, value):
    data = yaml.safe_load(SHIPPED_TEXT)
    data["columns"][column][i] = value
    try:
        table = parse_table(yaml.safe_dump(data, sort_keys=False), "edited.yaml")
    except ScenarioError as err:
        assert err.path.startswith(f"columns.{column}")
        return
    ranks = [table.tier(r, column).rank for r in range(1, 101)]
    assert ranks == sorted(ranks)
    assert ls.exact_tier(column, table=table).total() == 1


# --- samplers against the exact distributions ---------------------------------------------------

# 200,000 rolls per check. The mistakes guarded against move far more mass than chance can:
# comparing digits instead of rolls takes P(00) with five bonus dice from 4.7% to ~0 (about
# 9,400 rolls of 100 expected, none seen); one extra die too few moves it to 4.1%, about 1,200
# rolls (12 standard deviations) in that one bin.
N = 200_000


@pytest.mark.slow
@pytest.mark.parametrize(("net", "seed"), [(5, 1701), (-5, 1702), (0, 1703), (2, 1704), (-2, 1705)])
def test_sampled_rolls_fit_the_exact_distribution(net, seed):
    samples = ls.sample(np.random.default_rng(seed), net, N)
    assert samples.shape == (N,)
    assert_fits(samples, ls.exact_roll(net))


@pytest.mark.slow
@pytest.mark.parametrize(("net", "seed"), [(5, 2701), (0, 2702), (-1, 2703)])
def test_sampled_probability_of_00_fits(net, seed):
    """P(00): net 5 ~4.7%, net 0 1%, net -1 0.1% (a penalty die that could not lower 00 would
    make it 1%: 2,000 rolls of 100 instead of about 200)."""
    samples = ls.sample(np.random.default_rng(seed), net, N)
    assert_fits((samples == 100).astype(int), Dist.bernoulli(p_roll_100(net)))


def test_five_penalty_dice_almost_never_roll_00():
    """P(00) with five penalty dice is 10^-7: 0.02 expected in 200,000 rolls, and 3 or more has
    probability about 1.3e-6, below the suite's ALPHA. If penalty dice could not lower 00 it
    would show up about 2,000 times."""
    samples = ls.sample(np.random.default_rng(3701), -5, N)
    assert np.count_nonzero(samples == 100) <= 2


@pytest.mark.slow
def test_sampled_tiers_fit_the_exact_tier_distribution():
    rolls = ls.sample(np.random.default_rng(4701), 3, N)
    ranks = TABLE.ranks(rolls, 4)
    assert_fits(ranks, ls.exact_tier(4, 3).map(lambda t: t.rank))


@pytest.mark.slow
@pytest.mark.parametrize(("net", "seed"), [(2, 5701), (-3, 5702)])
def test_roll_with_a_generator_draw_fits_the_exact_distribution(net, seed):
    # 30,000 single rolls through the engine path: swapping bonus for penalty dice moves the mean
    # by 49 or more, and one die too few by 4.9 (-3 vs -2) or 8.3 (2 vs 1), against a standard
    # error of the mean of about 0.11.
    rng = np.random.default_rng(seed)

    def draw(sides, k):
        return rng.integers(1, sides + 1, size=k).tolist()

    values = [ls.roll(draw, net).value for _ in range(30_000)]
    assert_fits(values, ls.exact_roll(net))


@pytest.mark.parametrize("net", range(-5, 6))
def test_roll_rank_reads_the_same_faces_as_roll_and_gives_its_tier(net):
    """The battle's untraced roll: the same draws as ``roll`` and the rank of the tier its
    value reads in each column, over every face combination for up to two extra dice (a
    sample of them beyond)."""
    k = 2 + abs(net)
    if k <= 4:
        combos = list(itertools.product(range(1, 11), repeat=k))
    else:
        rng = np.random.default_rng(17 + net)
        combos = [tuple(row) for row in rng.integers(1, 11, size=(5_000, k)).tolist()]
    grids = {label: TABLE.face_ranks(label) for label in TABLE.column_labels}
    for faces in combos:
        asked: list[int] = []

        def take(n, faces=faces, asked=asked):
            asked.append(n)
            return list(faces[:n])

        def draw(sides, n, faces=faces):
            return faces[:n]

        value = ls.roll(draw, net).value
        for label, grid in grids.items():
            assert ls.roll_rank(take, net, grid) == TABLE.tier(value, label).rank
        assert asked == [k] * len(grids)
