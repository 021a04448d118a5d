"""Ruling 30: a held action is woken only by the moves that concern it (an enemy's move into
its reach, or its chosen target's), holders woken in initiative order, then the scenario's."""

from __future__ import annotations

from combatsim.engine.battle import Battle
from combatsim.engine.fighter import Fighter
from combatsim.engine.holds import Holds
from combatsim.rng import battle_rng
from tests.engine.helpers import member, scenario


def _fighter(index, side, position, can_act=True):
    """A real fighter (the compiled build checks the type) placed where the test says."""
    f = Fighter(SPEC, index)
    f.side, f.position, f.can_act = side, position, can_act
    return f


SPEC = scenario({"A": [member("Someone")], "B": [member("Other")]}).fighters[0]


def test_only_an_enemy_ending_within_reach_wakes_a_holder():
    holds = Holds(150.0)
    holder = _fighter(0, "A", (0.0, 0.0))
    holds.add(holder, 150.0, None, 10)
    assert holds.woken_by(_fighter(1, "A", (10.0, 0.0))) == []  # an ally
    assert holds.woken_by(_fighter(2, "B", (151.0, 0.0))) == []  # out of reach
    assert holds.woken_by(_fighter(3, "B", (140.0, 0.0), can_act=False)) == []  # fell there
    assert holds.woken_by(_fighter(4, "B", (0.0, -149.0))) == [holder]
    assert holds.count == 0 and holds.woken_by(_fighter(4, "B", (0.0, 1.0))) == []


def test_a_hold_for_one_target_waits_for_that_one_until_it_falls():
    holds = Holds(150.0)
    holder = _fighter(0, "A", (0.0, 0.0))
    target = _fighter(1, "B", (500.0, 0.0))
    holds.add(holder, 150.0, target, 10)
    assert holds.woken_by(_fighter(2, "B", (5.0, 0.0))) == []  # another enemy
    target.position = (100.0, 0.0)
    assert holds.woken_by(target) == [holder]
    holds.add(holder, 150.0, target, 10)
    target.can_act = False
    assert holds.woken_by(_fighter(2, "B", (5.0, 0.0))) == [holder]  # whoever comes, now


def test_holders_wake_by_score_then_in_the_scenarios_order():
    holds = Holds(20.0)
    holders = [_fighter(i, "A", (3.0 * i, 0.0)) for i in range(4)]
    for h, score in zip(holders, (4, 9, 4, 12), strict=True):
        holds.add(h, 30.0, None, score)  # a reach wider than the cells widens them
    woken = holds.woken_by(_fighter(9, "B", (5.0, 5.0)))
    assert [h.index for h in woken] == [3, 1, 0, 2]


class _Watched(Battle):
    """Counts the looks of woken holders (``_held_target``)."""

    looks = 0

    def _held_target(self, f, plan, seen, reach):
        type(self).looks += 1
        return super()._held_target(f, plan, seen, reach)


def test_moves_far_from_a_holder_do_not_wake_it():
    """A holder whose enemies are all far (1 km) is not woken by their runs nor by its allies'
    walks; before ruling 30 every move of the battle woke it to look again."""
    guns = {"weapons": ["smg"], "firearms": 4}
    sc = scenario(
        {
            "A": [
                member("Holder", reaction=6, tactics={"movement": "hold"}, **guns),
                member("Ally", position=(0, 5), tactics={"movement": "advance"}, **guns),
            ],
            "B": [
                member(
                    f"Runner {k}", position=(1000, 3 * k), tactics={"movement": "advance"}, **guns
                )
                for k in range(3)
            ],
        },
        turn_limit=2,
    )
    _Watched.looks = 0
    result = _Watched(sc, battle_rng(7, 0), index=0, trace=True).run()
    plans = [e.data.get("plan") for e in result.trace if e.kind == "decide"]
    assert "hold" in plans and plans.count("run") + plans.count("walk") >= 4
    assert _Watched.looks == 0
