"""Target ``focus``: the whole side shoots one target until it falls.

The side's first member to choose picks its nearest enemy within reach as the side's target;
every member then shoots that target while it stands and is within the member's reach, and a
member that cannot reach it shoots its own nearest for that action, leaving the side's target
as it is. Only when the target falls does the side pick another. A1 (Reaction 5) acts before
A2 (Reaction 3) every turn; the enemies never act. Firearms 1, single shots, faces of 2: every
shot misses unless a test scripts a kill.
"""

from __future__ import annotations

from tests.engine.helpers import dump, fighter, scenario, sitting_target
from tests.tactics.helpers import PISTOL, gunner, run_scripted, shots_at


def focus_scenario(a2_weapon="needle", limit=3, extra=(), a1_firearms=1):
    a1 = gunner("A1", reaction=5, firearms=a1_firearms, weapons=["needle"])
    a2 = gunner("A2", reaction=3, position=(0, 100), weapons=[a2_weapon])
    for g in (a1, a2):
        g["tactics"]["target"] = "focus"
    # E1 is A1's nearest (50 m; 111.8 m from A2), E2 is A2's (60 m; 160 m from A1)
    enemies = [
        sitting_target("E1", body=1, position=(50, 0)),
        sitting_target("E2", position=(0, 160)),
        *extra,
    ]
    return scenario({"A": [a1, a2], "B": enemies}, weapons={"pistol": PISTOL}, turn_limit=limit)


def test_the_whole_side_shoots_the_first_members_target_every_action():
    """A2's nearest is E2, but the side's target is E1 (A1's nearest), within A2's reach."""
    _, result, _ = run_scripted(focus_scenario(), then=2)
    assert shots_at(result) == [(t, a, "E1") for t in (1, 2, 3) for a in ("A1", "A2")], dump(result)


def test_a_member_that_cannot_reach_the_target_shoots_its_own_and_keeps_the_sides():
    """A2's pistol reaches 90 m: E1 (111.8 m) is out of its reach, so it shoots E2, its own
    nearest; A1 keeps shooting E1 every turn. Regression: A2 reset the side's target to E2,
    and A1 switched to E2 from turn 2 on."""
    _, result, _ = run_scripted(focus_scenario("pistol"), then=2)
    assert shots_at(result, "A1") == [(t, "A1", "E1") for t in (1, 2, 3)], dump(result)
    assert shots_at(result, "A2") == [(t, "A2", "E2") for t in (1, 2, 3)], dump(result)


def test_when_the_target_falls_the_side_picks_another_and_holds_it():
    """A1 takes E1 down with its first shot (needle 4L1, six successes: L staged up 5 to D;
    Body 1 fails). A2 then picks the side's next target, its own nearest E2, and from turn 2
    A1 shoots E2 too, although E3 (70 m) is nearer to A1 than E2 (160 m)."""
    sc = focus_scenario(a1_firearms=6, extra=[sitting_target("E3", position=(0, -70))])
    # initiative: A1 5+1, A2 3+1, E1..E3 1+1; A1's six dice, E1's Body die
    battle, result, _ = run_scripted(sc, [1, 1, 1, 1, 1, 5, 5, 5, 5, 5, 5, 2], then=2)
    assert not fighter(battle, "E1").can_act, dump(result)
    assert shots_at(result) == [
        (1, "A1", "E1"),
        (1, "A2", "E2"),
        (2, "A1", "E2"),
        (2, "A2", "E2"),
        (3, "A1", "E2"),
        (3, "A2", "E2"),
    ], dump(result)
