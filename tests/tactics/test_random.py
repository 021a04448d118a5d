"""Target ``random``: an enemy drawn at random among those within reach; among all of them
when none is. The draw is the battle's own (scripted here as a tie-break draw, after each
turn's one initiative tie-break per fighter). The gunner fires single shots with Firearms 1
(smg: 150 m) and every face is a 2: every shot misses, one action a turn.
"""

from __future__ import annotations

import pytest

from combatsim.engine.battle import TIES, Battle
from tests.engine.helpers import ScriptedRoller, dump, fighter, scenario, sitting_target
from tests.tactics.helpers import decisions, gunner, shots_at


class DrawCounter(ScriptedRoller):
    """Also records how many enemies each random target draw chose among."""

    def __init__(self, *a, **kw):
        super().__init__(*a, **kw)
        self.choices: list[int] = []

    def _take(self, low, high, k):
        if low == 0 and high != TIES - 1:
            self.choices.append(high + 1)
        return super()._take(low, high, k)


def random_battle(enemies, draw: int, movement="hold", **tactics):
    gun = gunner("Gunner", tactics={"target": "random", "movement": movement, **tactics})
    sc = scenario({"A": [gun], "B": [sitting_target(n, position=p) for n, p in enemies]})
    roller = DrawCounter(then=2, ties=[0] * (1 + len(enemies)) + [draw])
    battle = Battle(sc, rng=None, trace=True, roller=roller)
    return battle, battle.run(), roller


# Far stands first, past the smg's 150 m: a draw among all enemies could pick it.
ENEMIES = [("Far", (200, 0)), ("B", (0, 100)), ("C", (0, -60))]


@pytest.mark.parametrize("draw, victim", [(0, "B"), (1, "C")])
def test_it_draws_among_the_enemies_within_reach_only(draw, victim):
    """Regression: the draw was among all three; a draw of 0 picked Far and held fire."""
    battle, result, roller = random_battle(ENEMIES, draw)
    assert roller.choices == [2], dump(result)
    assert shots_at(result, "Gunner") == [(1, "Gunner", victim)]
    assert decisions(result, "Gunner")[0][2] == f"single shot at {victim} (random)"


@pytest.mark.parametrize("draw, toward", [(0, (12, 0)), (1, (0, 12))])
def test_with_no_enemy_in_reach_it_draws_among_all_of_them(draw, toward):
    enemies = [("East", (300, 0)), ("North", (0, 300))]
    battle, result, roller = random_battle(enemies, draw, movement="advance")
    assert roller.choices == [2]
    assert fighter(battle, "Gunner").position == toward, dump(result)


def test_target_in_reach_false_draws_among_all_of_them():
    battle, result, roller = random_battle(ENEMIES, 0, target_in_reach=False)
    assert roller.choices == [3]
    ((_, kind, reason),) = decisions(result, "Gunner")
    assert kind == "hold" and reason.startswith("Far (random) is out of range"), dump(result)
