"""``dice.paths.explore``: every path of a program's choices once, weighted exactly."""

from __future__ import annotations

from fractions import Fraction

import pytest

from combatsim.dice.exact import Dist
from combatsim.dice.paths import TooManyPaths, explore, options_of
from combatsim.engine.exact import EnumeratingRoller

D6 = options_of(Dist.uniform(range(1, 7)))


def test_two_dice_summed_is_the_convolution():
    assert explore(lambda choose: choose(D6) + choose(D6)) == Dist.dice_sum(2, 6)


def test_a_branch_that_draws_more_only_on_one_path():
    """Roll a d6; on a 6 roll again and add (one re-roll): the paths differ in length."""

    def run(choose):
        first = choose(D6)
        return first + choose(D6) if first == 6 else first

    expected = Dist(
        [(k, Fraction(1, 6)) for k in range(1, 6)] + [(6 + k, Fraction(1, 36)) for k in range(1, 7)]
    )
    assert explore(run) == expected


def test_uneven_options_weigh_their_paths():
    coin = ((True, Fraction(1, 3)), (False, Fraction(2, 3)))
    got = explore(lambda choose: sum(choose(coin) for _ in range(3)))
    assert got == Dist.binomial(3, Fraction(1, 3))


def test_a_program_without_choices_is_one_certain_path():
    assert explore(lambda choose: "done") == Dist.point("done")


def test_more_paths_than_the_limit_is_refused_in_words():
    with pytest.raises(TooManyPaths, match="more than 100 ways"):
        explore(lambda choose: tuple(choose(D6) for _ in range(3)), limit=100)


def test_the_enumerating_roller_draws_every_face_of_every_die():
    def run(choose):
        return tuple(sorted(EnumeratingRoller(choose).d(4, 2)))

    got = explore(run)
    assert len(got) == 10 and got[(1, 2)] == Fraction(2, 16) and got[(3, 3)] == Fraction(1, 16)


def test_paths_that_meet_take_the_future_explored_first():
    """Three coin flips summed, meeting after each flip on the running total: the same
    distribution as walking all eight paths, in fewer runs."""
    coin = ((0, Fraction(1, 2)), (1, Fraction(1, 2)))
    runs = {"merged": 0, "walked": 0}

    def flips(meeting: bool):
        def run(choose):
            runs["merged" if meeting else "walked"] += 1
            total = 0
            for flip in range(3):
                if meeting and flip:
                    choose.meet((flip, total))
                total += choose(coin)
            return total

        return run

    merged, walked = explore(flips(True)), explore(flips(False))
    assert merged == walked == Dist.binomial(3, Fraction(1, 2))
    assert runs["walked"] == 8 and runs["merged"] < 8


def test_meeting_keeps_uneven_weights_exact():
    """A loaded die thrown until two sixes or four throws, meeting on (throws, sixes)."""
    die = ((6, Fraction(1, 3)), (1, Fraction(2, 3)))

    def run(choose, meeting=True):
        sixes = throws = 0
        while throws < 4 and sixes < 2:
            if meeting and throws:
                choose.meet((throws, sixes))
            sixes += choose(die) == 6
            throws += 1
        return (throws, sixes)

    assert explore(run) == explore(lambda choose: run(choose, False))
