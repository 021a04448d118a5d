"""Target ``weakest``: the most hurt enemy within reach; the most hurt of all when none is.

Enemies start the battle wounded (a Physical wound dealt before it starts) and never act. The
gunner fires single shots with Firearms 1 (smg: 150 m) and every face is a 2: every shot
misses, one action a turn.
"""

from __future__ import annotations

import math

from tests.engine.helpers import dump, fighter, scenario, sitting_target
from tests.tactics.helpers import decisions, gunner, hurt, run_scripted, shots_at


def both(*hooks):
    def prepare(battle):
        for hook in hooks:
            hook(battle)

    return prepare


def weakest_battle(enemies, wounds, movement="hold", limit=2, **tactics):
    gun = gunner("Gunner", tactics={"target": "weakest", "movement": movement, **tactics})
    sc = scenario(
        {"A": [gun], "B": [sitting_target(n, position=p) for n, p in enemies]}, turn_limit=limit
    )
    return run_scripted(sc, prepare=both(*(hurt(n, lvl) for n, lvl in wounds)), then=2)


def test_it_shoots_the_most_hurt_enemy_within_reach_not_the_nearest():
    _, result, _ = weakest_battle([("Near", (50, 0)), ("Hurt", (120, 0))], [("Hurt", "M")])
    assert shots_at(result, "Gunner") == [(1, "Gunner", "Hurt"), (2, "Gunner", "Hurt")]
    assert decisions(result, "Gunner")[0][2] == "single shot at Hurt (weakest)"


def test_a_more_hurt_enemy_out_of_reach_is_passed_over_while_one_is_in_reach():
    """Worst (S) is 200 m off, past the smg's 150 m: the gunner shoots the most hurt of those
    within reach (Mid, M), not the unhurt nearest. Regression: it picked Worst and held fire."""
    enemies = [("Worst", (200, 0)), ("Mid", (0, 120)), ("Near", (0, -50))]
    battle, result, _ = weakest_battle(enemies, [("Worst", "S"), ("Mid", "M")])
    assert shots_at(result, "Gunner") == [(1, "Gunner", "Mid"), (2, "Gunner", "Mid")], dump(result)
    assert fighter(battle, "Gunner").position == (0, 0)


def test_with_no_enemy_in_reach_it_goes_for_the_most_hurt_of_all():
    """Advancing with both enemies out of reach, it runs (12 m) at the hurt one, the farther."""
    enemies = [("Near", (250, 0)), ("Hurt", (0, 300))]
    battle, result, _ = weakest_battle(enemies, [("Hurt", "L")], movement="advance", limit=1)
    ((_, kind, reason),) = decisions(result, "Gunner")
    assert (kind, reason) == ("run", "Hurt (weakest) is out of range: runs closer")
    assert fighter(battle, "Gunner").position == (0, 12)


def test_target_in_reach_false_keeps_the_old_meaning_and_says_so_truly():
    """With ``target_in_reach: false`` the most hurt of all is the target even out of reach: a
    holding gunner holds fire, and its reason says the target is out of range, not (falsely)
    that no enemy is within 150 m. Found writing these tests: the reason said the latter."""
    enemies = [("Worst", (200, 0)), ("Near", (0, -50))]
    battle, result, _ = weakest_battle(enemies, [("Worst", "S")], limit=1, target_in_reach=False)
    ((_, kind, reason),) = decisions(result, "Gunner")
    assert kind == "hold", dump(result)
    assert reason == "Worst (weakest) is out of range: holds fire (target_in_reach: false)"
    assert math.dist((0, 0), (0, -50)) <= 150
