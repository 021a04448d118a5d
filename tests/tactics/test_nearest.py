"""Target ``nearest`` (the default): the nearest enemy, measured from where the fighter will
attack from. The nearest is within reach whenever any enemy is. The gunner fires single shots
with Firearms 1 (smg: 150 m) and every face is a 2: every shot misses, one action a turn.
"""

from __future__ import annotations

from tests.engine.helpers import dump, fighter, member, scenario, sitting_target
from tests.tactics.helpers import decisions, gunner, run_scripted, shots_at


def test_it_shoots_the_nearest_enemy_every_action():
    enemies = [sitting_target(n, position=p) for n, p in [("A1", (90, 0)), ("A2", (0, -40))]]
    sc = scenario({"A": [gunner()], "B": enemies}, turn_limit=3)
    _, result, _ = run_scripted(sc, then=2)
    assert shots_at(result, "Gunner") == [(t, "Gunner", "A2") for t in (1, 2, 3)]
    assert decisions(result, "Gunner")[0][2] == "single shot at A2 (nearest)"


def test_with_no_enemy_in_reach_an_advancing_fighter_runs_at_the_nearest():
    enemies = [sitting_target(n, position=p) for n, p in [("A1", (400, 0)), ("A2", (0, -300))]]
    gun = gunner(tactics={"movement": "advance"})
    battle, result, _ = run_scripted(scenario({"A": [gun], "B": enemies}), then=2)
    assert decisions(result, "Gunner") == [(1, "run", "A2 (nearest) is out of range: runs closer")]
    assert fighter(battle, "Gunner").position == (0, -12)


def test_taking_cover_it_shoots_the_nearest_from_where_it_will_stand():
    """From the origin North (20 m) is nearer than South (24 m); 3 m toward the cover point at
    (0, -10), South is (21 m against 23): it shoots South after walking."""
    enemies = [
        sitting_target("North", position=(0, 20)),
        sitting_target("South", position=(0, -24)),
    ]
    gun = gunner(tactics={"movement": "take_cover"})
    sc = scenario(
        {"A": [gun], "B": enemies},
        environment={"cover_points": [{"position": [0, -10], "cover": "partial"}]},
    )
    battle, result, _ = run_scripted(sc, then=2)
    assert shots_at(result, "Gunner") == [(1, "Gunner", "South")], dump(result)
    assert fighter(battle, "Gunner").position == (0, -3)


def test_an_unarmed_fighter_closes_in_on_the_nearest_and_strikes_it():
    """No gun: it walks into melee reach (2 m) of the nearest when its walk (3 m) allows."""
    brawler = member("Brawler", unarmed_combat=1)
    enemies = [sitting_target("Far", position=(0, -4.5)), sitting_target("Near", position=(4, 0))]
    battle, result, _ = run_scripted(scenario({"A": [brawler], "B": enemies}), then=2)
    ((_, kind, reason),) = decisions(result, "Brawler")
    assert (kind, reason) == ("melee", "walks 2.0 m into reach of Near (nearest)"), dump(result)
    attacks = [e.text for e in result.trace if e.kind == "attack"]
    assert attacks == ["Brawler attacks Near in melee with bare hands"], dump(result)
    assert fighter(battle, "Brawler").position == (2.01, 0)
