"""Target ``most_dangerous``: the highest threat within reach; the highest of all when none is.

Threat is the rule system's (classic Shadowrun: skill x weapon). The enemies never act: each
holds a toy gun (its first firearm, reaching 0.1 m); a dangerous one also carries a rifle and
Firearms 6. The gunner fires single shots with Firearms 1 (smg: 150 m) and every face is a 2:
every shot misses, one action a turn.
"""

from __future__ import annotations

from tests.engine.helpers import dump, fighter, member, scenario, sitting_target
from tests.tactics.helpers import decisions, gunner, run_scripted, shots_at


def dangerous(name, position, firearms=6):
    """Never acts (the toy gun comes first), but its rifle and skill make it a threat."""
    return member(
        name,
        position=position,
        weapons=["toy", "rifle"],
        firearms=firearms,
        tactics={"dodge": "none", "movement": "hold"},
    )


def battle(enemies, movement="hold", limit=2, **tactics):
    gun = gunner("Gunner", tactics={"target": "most_dangerous", "movement": movement, **tactics})
    return run_scripted(scenario({"A": [gun], "B": enemies}, turn_limit=limit), then=2)


def battle_reason(result):
    return decisions(result, "Gunner")[0][2]


def test_it_shoots_the_most_dangerous_enemy_within_reach_not_the_nearest():
    enemies = [sitting_target("Near", position=(30, 0)), dangerous("Gun", (0, 140), firearms=3)]
    _, result, _ = battle(enemies)
    assert shots_at(result, "Gunner") == [(1, "Gunner", "Gun"), (2, "Gunner", "Gun")]
    assert battle_reason(result) == "single shot at Gun (most_dangerous)"


def test_a_more_dangerous_enemy_out_of_reach_is_passed_over_while_one_is_in_reach():
    """Ace (Firearms 6) is 200 m off; Gun (Firearms 3) stands within the smg's 150 m: the
    gunner shoots Gun. Regression: it picked Ace and held fire."""
    enemies = [
        dangerous("Ace", (200, 0)),
        dangerous("Gun", (0, 140), firearms=3),
        sitting_target("Near", position=(0, -20)),
    ]
    b, result, _ = battle(enemies)
    assert shots_at(result, "Gunner") == [(1, "Gunner", "Gun"), (2, "Gunner", "Gun")], dump(result)
    assert fighter(b, "Gunner").position == (0, 0)


def test_with_no_enemy_in_reach_it_goes_for_the_most_dangerous_of_all():
    enemies = [sitting_target("Near", position=(250, 0)), dangerous("Ace", (0, -300))]
    b, result, _ = battle(enemies, movement="advance", limit=1)
    assert decisions(result, "Gunner") == [
        (1, "run", "Ace (most_dangerous) is out of range: runs closer")
    ]
    assert fighter(b, "Gunner").position == (0, -12)


def test_target_in_reach_false_goes_for_the_most_dangerous_of_all():
    enemies = [dangerous("Ace", (200, 0)), sitting_target("Near", position=(0, -20))]
    b, result, _ = battle(enemies, movement="advance", limit=1, target_in_reach=False)
    ((_, kind, reason),) = decisions(result, "Gunner")
    assert (kind, reason) == ("run", "Ace (most_dangerous) is out of range: runs closer")
    assert fighter(b, "Gunner").position == (12, 0) and not shots_at(result)
