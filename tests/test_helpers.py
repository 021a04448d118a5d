"""The shared scripted dice deal exactly what they are given (``tests/helpers.py``): every
worked example in the suite rests on them."""

from __future__ import annotations

import pytest

from tests.helpers import DrawScript, ScriptedRoller, ScriptExhausted


def test_a_scripted_roller_deals_its_die_in_order_through_every_way_of_asking(scripted):
    roller = scripted([3, 6, 1, 2, 5], die=(1, 6))
    assert roller.d(6, 2) == [3, 6]
    assert roller.taker(1, 6)(1) == [1]
    assert roller.faces(type("Kind", (), {"low": 1, "top": 6}), 2) == [2, 5]
    assert roller.dealt == [3, 6, 1, 2, 5] and roller.left() == []


def test_running_out_is_an_error_unless_a_then_face_is_set():
    with pytest.raises(ScriptExhausted, match="asked for 2 faces with 1 left"):
        ScriptedRoller([4]).d(6, 2)
    assert ScriptedRoller([4], then=2).d(6, 3) == [4, 2, 2]


def test_ties_angles_and_other_dice_are_kept_apart_from_the_script():
    roller = ScriptedRoller([7, 8], die=(1, 8), ties=[1], angles=[0.5])
    assert roller.below(3) == 1 and roller.below(3) == 0  # unscripted ties: scenario order
    assert roller.angle() == 0.5 and roller.angle() == 0.0
    with pytest.raises(AssertionError, match="unexpected draw"):
        roller.d(6, 1)
    assert roller.d(8, 2) == [7, 8]


def test_load_rescripts_the_same_roller():
    roller = ScriptedRoller([1, 2])
    take = roller.taker(1, 6)  # a rule system keeps its taker for the whole battle
    roller.load([6])
    assert take(1) == [6] and roller.left() == [] and roller.dealt == [6]


def test_a_draw_script_checks_each_draw_is_the_one_asked_for():
    roller = DrawScript((10, [4, 4]), (6, [1, 2, 3]))
    assert roller.d(10, 2) == [4, 4]
    with pytest.raises(AssertionError, match="asked 2d6"):
        roller.d(6, 2)
    assert DrawScript().below(5) == 0
