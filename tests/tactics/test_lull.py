"""Two things a game master expects of a fighter in a lull (no enemy in reach): it reloads
a magazine that is not full when no enemy can come within its gun's reach this turn
(``reload_in_lull``, on by default: the held action could not fire, so the reload costs
nothing), and from partial cover it steps up to a free full cover point within its walk when
no enemy's reach covers the way (``cover_step_up``, off by default). Classic Shadowrun; every
face a 2 (Firearms 1: every shot misses, one action a turn).
"""

from __future__ import annotations

import pytest

from tests.engine.helpers import dump, fighter, member, scenario, sitting_target
from tests.tactics.helpers import decisions, gunner, run_scripted


def lull(enemy_at, **tactics):
    """The holder (smg: 150 m, 30 rounds) starts with 5 rounds left; one enemy that never
    attacks (a toy gun; Quickness 3: it runs 12 m)."""
    holder = gunner("Holder", reaction=5, tactics=tactics, start={"rounds": [5]})
    return scenario({"A": [holder], "B": [sitting_target(position=enemy_at)]})


def test_with_no_enemy_able_to_come_within_reach_it_reloads():
    """163 m off: the enemy's 12 m run leaves it out of the smg's 150 m this turn."""
    battle, result, _ = run_scripted(lull((163, 0)), then=2)
    assert decisions(result, "Holder") == [
        (1, "reload", "no enemy can come within 150 m this turn: reloads the smg (5 rounds left)")
    ], dump(result)
    assert fighter(battle, "Holder").ammo == [30]


@pytest.mark.parametrize(
    "enemy_at, tactics", [((161, 0), {}), ((163, 0), {"reload_in_lull": False})]
)
def test_it_holds_when_an_enemy_could_come_within_reach_or_when_told_not_to(enemy_at, tactics):
    """161 m off, a 12 m run brings the enemy within 150 m: the held action could fire, so
    the fighter holds (and its magazine stays as it is)."""
    battle, result, _ = run_scripted(lull(enemy_at, **tactics), then=2)
    assert [kind for _, kind, _ in decisions(result, "Holder")] == ["hold"], dump(result)
    assert fighter(battle, "Holder").ammo == [5]


def step_up(enemy, **tactics):
    """Cov stands on a partial cover point; a full one 2 m off (within its 3 m walk)."""
    cov = gunner("Cov", reaction=5, tactics={"movement": "take_cover", **tactics})
    points = [{"position": [0, 0], "cover": "partial"}, {"position": [0, 2], "cover": "full"}]
    return scenario({"A": [cov], "B": [enemy]}, environment={"cover_points": points})


def test_it_steps_up_to_full_cover_when_no_enemy_reach_covers_the_way():
    """The only enemy, 200 m off, has an smg (150 m): the way is out of its reach."""
    enemy = member("Enemy", weapons=["smg"], firearms=1, position=(200, 0))
    battle, result, _ = run_scripted(step_up(enemy, cover_step_up=True), then=2)
    cov = fighter(battle, "Cov")
    assert (cov.position, cov.cover) == ((0, 2), "full"), dump(result)
    ((_, kind, reason),) = decisions(result, "Cov")
    assert kind == "hold" and "after walking 2.0 m toward cover" in reason, reason


@pytest.mark.parametrize("weapon, tactics", [("rifle", {"cover_step_up": True}), ("smg", {})])
def test_it_stays_in_partial_cover_when_an_enemy_reaches_the_way_or_when_not_told(weapon, tactics):
    """With a rifle (550 m) the enemy 200 m off reaches the way: the fighter stays in its
    partial cover; without the option it stays too."""
    enemy = member("Enemy", weapons=[weapon], firearms=1, position=(200, 0))
    battle, result, _ = run_scripted(step_up(enemy, **tactics), then=2)
    cov = fighter(battle, "Cov")
    assert (cov.position, cov.cover) == ((0, 0), "partial"), dump(result)
