"""Movement ``take_cover``: walk to the nearest free cover point within ``cover_within`` (over as
many walks as it takes), then hold there.

A fighter told to take cover walks its walk toward the nearest cover point no one else able to
act stands at, each turn, so it is there within ceil(distance / walk) turns when nothing stops
it; it fires on the way whenever an enemy is within its gun's reach from where it will stand,
and once in cover it stays: it fires from there while an enemy is in reach and holds fire
(a held action) while none is. Only when no free cover point is left within ``cover_within``
does it close in as ``advance`` does. Every fighter here fires single shots with Firearms 1
(one die a shot) and every face is a 2 unless a test says otherwise, so each shot misses and
initiative is Reaction + 2: one action a turn.
"""

from __future__ import annotations

import math

import pytest

from tests.engine.helpers import dump, fighter, scenario, sitting_target
from tests.tactics.helpers import after_each_turn, decisions, gunner, run_scripted, shots_at


def cover_scenario(
    *, target_at=(200, 0), covers=((0, 10, "partial"),), quickness=3, allies=(), limit=1, **kw
):
    """``Cov`` (take_cover, smg: 150 m) at the origin; a sitting target; cover points."""
    cov = gunner("Cov", quickness=quickness, tactics={"movement": "take_cover"}, **kw)
    return scenario(
        {"A": [cov, *allies], "B": [sitting_target(position=target_at)]},
        environment={"cover_points": [{"position": [x, y], "cover": c} for x, y, c in covers]},
        turn_limit=limit,
    )


@pytest.mark.parametrize(
    "quickness, cover_at, turns",
    [(3, (0, 10), 4), (2, (0, 10), 5), (5, (0, 10), 2), (3, (-9, 0), 3), (4, (6, 8), 3)],
)
def test_it_walks_to_the_nearest_free_cover_over_many_walks_and_stays_there(
    quickness, cover_at, turns
):
    """No enemy within reach on the way (the target is 200 m off): each turn the fighter walks
    its whole walk toward the cover point, reaches it in exactly ceil(10 / walk) turns, and
    then stays in it, holding fire. Regression: it looked for cover only within one walk and,
    finding none, ran at the enemy."""
    far = (cover_at[0] * 3, cover_at[1] * 3, "full")  # a second point, farther: never chosen

    def make(limit):
        return cover_scenario(
            covers=(far, (*cover_at, "partial")), quickness=quickness, limit=limit
        )

    states = after_each_turn(make, turns + 2, "Cov", then=2)
    distance = math.dist((0, 0), cover_at)
    assert turns == math.ceil(distance / quickness)
    for turn, (position, cover) in enumerate(states, start=1):
        walked = min(distance, turn * quickness)
        expected = tuple(round(c * walked / distance, 2) for c in cover_at)
        assert position == pytest.approx(expected, abs=0.01), (turn, states)
        assert cover == ("partial" if turn >= turns else "none"), (turn, states)
    _, result, _ = run_scripted(make(turns + 2), then=2)
    for turn, kind, reason in decisions(result, "Cov"):
        assert kind == "hold", dump(result)
        assert reason.startswith("no enemy within 150 m: holds fire"), reason
        assert ("in cover" in reason) == (turn > turns), reason
        assert ("toward cover" in reason) == (turn <= turns), reason


def test_it_fires_from_where_it_will_stand_on_the_way_and_from_cover_once_there():
    """The target, 152 m off, is out of the smg's 150 m from where the fighter stands but
    within them after its first 3 m toward cover: it fires after walking, every turn, on the
    way and from the cover point it reaches in turn 4 (and leaves no more). Regression: it
    picked its target from where it stood, found it out of range and ran at it."""

    def make(limit):
        return cover_scenario(target_at=(0, 152), limit=limit)

    states = after_each_turn(make, 6, "Cov", then=2)
    assert [p for p, _ in states] == [(0, 3), (0, 6), (0, 9), (0, 10), (0, 10), (0, 10)]
    assert [c for _, c in states] == ["none"] * 3 + ["partial"] * 3
    _, result, _ = run_scripted(make(6), then=2)
    assert [kind for _, kind, _ in decisions(result, "Cov")] == ["fire"] * 6, dump(result)
    assert [turn for turn, _, _ in shots_at(result, "Cov")] == [1, 2, 3, 4, 5, 6]
    walked = [reason for _, _, reason in decisions(result, "Cov") if "after walking" in reason]
    assert len(walked) == 4, dump(result)


def test_in_cover_with_no_enemy_in_reach_it_holds_and_never_leaves():
    """Placed on a cover point with the only enemy out of reach, the fighter holds fire in
    cover every turn; it never runs at the enemy. Regression: it left cover to run at it."""
    sc = cover_scenario(covers=((0, 0, "full"),), limit=3)
    battle, result, _ = run_scripted(sc, then=2)
    cov = fighter(battle, "Cov")
    assert (cov.position, cov.cover) == ((0, 0), "full"), dump(result)
    assert decisions(result, "Cov") == [
        (t, "hold", "no enemy within 150 m: holds fire in cover until one comes in range")
        for t in (1, 2, 3)
    ]


def test_in_cover_with_an_enemy_in_reach_it_fires_from_there():
    sc = cover_scenario(target_at=(100, 0), covers=((0, 0, "partial"),), limit=3)
    battle, result, _ = run_scripted(sc, then=2)
    assert fighter(battle, "Cov").position == (0, 0), dump(result)
    assert shots_at(result, "Cov") == [(t, "Cov", "Target") for t in (1, 2, 3)]


def test_a_cover_point_someone_stands_at_is_not_free():
    """The nearer point (5 m) is held by a standing ally: the fighter goes to the farther one
    (8 m) instead, in three turns."""
    ally = sitting_target("Pal", position=(0, 5))

    def make(limit):
        return cover_scenario(
            covers=((0, 5, "full"), (0, -8, "partial")), allies=[ally], limit=limit
        )

    states = after_each_turn(make, 4, "Cov", then=2)
    assert states == [
        ((0, -3), "none"),
        ((0, -6), "none"),
        ((0, -8), "partial"),
        ((0, -8), "partial"),
    ]


def test_with_no_free_cover_anywhere_it_closes_in_as_advance_does():
    """The only cover point is taken: the fighter runs at the enemy out of reach, and says so
    truly (no free cover is left, the target is out of range)."""
    ally = sitting_target("Pal", position=(0, 5))
    sc = cover_scenario(covers=((0, 5, "full"),), allies=[ally])
    battle, result, _ = run_scripted(sc, then=2)
    ((_, kind, reason),) = decisions(result, "Cov")
    assert kind == "run" and reason == (
        "no free cover within 10 m: Target (nearest) is out of range: runs closer"
    ), dump(result)
    assert battle.free_cover_point(fighter(battle, "Cov"), 10) is None
    assert fighter(battle, "Cov").position[0] > 0


def test_with_its_walk_spent_on_the_way_to_cover_it_holds_rather_than_run_off():
    """Two actions a turn (Reaction 10 + 6 = 16: at 16 and 9). At 16 the fighter walks its 3 m
    toward the cover point 30 m away and shoots the Near target down; at 9 it has no walk left
    and the other target is out of reach: it holds where it is, on its way to cover, and walks
    on the next turn. Found writing these tests: it said "no free cover left" (there was) and
    ran 12 m at the far target, away from cover."""

    def make(limit):
        # (reload_in_lull off: with one round spent and Far 300 m off it would reload)
        tactics = {"movement": "take_cover", "cover_within": 40, "reload_in_lull": False}
        cov = gunner("Cov", reaction=10, firearms=6, tactics=tactics)
        near = sitting_target("Near", body=1, position=(5, 0))
        return scenario(
            {"A": [cov], "B": [near, sitting_target("Far", position=(300, 0))]},
            environment={"cover_points": [{"position": [0, -30], "cover": "partial"}]},
            turn_limit=limit,
        )

    # initiative 6, 1, 1; six 5s at TN 4: 6 successes, M staged up 2 to D; Body 1 fails
    faces = [6, 1, 1, 5, 5, 5, 5, 5, 5, 2]
    states = after_each_turn(make, 2, "Cov", faces=faces, then=1)
    assert [p for p, _ in states] == [(0, -3), (0, -6)]
    battle, result, _ = run_scripted(make(1), faces, then=1)
    assert not fighter(battle, "Near").can_act, dump(result)
    (_, first, _), (_, second, why) = decisions(result, "Cov")
    assert (first, second) == ("fire", "hold"), dump(result)
    assert "no free cover" not in why and why.startswith("no enemy within 150 m"), why


@pytest.mark.parametrize("within, goes", [(10, False), (12, True)])
def test_it_goes_for_cover_only_within_cover_within(within, goes):
    """The only free cover is 11 m off (say, on the enemy's side): with the default 10 m the
    fighter fights where it stands; told cover_within 12 it walks there. Regression: a gunman
    whose side's cover was all taken walked 28 m toward the enemy's pillars."""
    cov = gunner("Cov", tactics={"movement": "take_cover", "cover_within": within})
    sc = scenario(
        {"A": [cov], "B": [sitting_target(position=(20, 0))]},
        environment={"cover_points": [{"position": [0, 11], "cover": "partial"}]},
    )
    battle, result, _ = run_scripted(sc, then=2)
    ((_, kind, reason),) = decisions(result, "Cov")
    assert kind == "fire", dump(result)
    assert ("after walking" in reason) == goes, reason
    assert (fighter(battle, "Cov").position != (0, 0)) == goes
