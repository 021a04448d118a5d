"""Classic Shadowrun in the battle engine: worked examples with given faces.

The pure helpers of ``combatsim.rules.shadowrun.system`` are checked against the seed's tables
(seed 002) and the rulings (docs/rules-sr-classic.md). Everything else runs a real ``Battle`` on a
``ScriptedRoller``: the faces are given in the order the battle draws them (see
``tests/engine/helpers.py``), the script must be used up exactly (a rule that rolls one die too
many or too few fails), and the checks read the trace, the records and the fighters' final
state, so the engine's wiring (initiative, time, tactics, pools, damage, victory) is tested
with the rule.

Scripts are written ``[initiative faces..., then each test's faces]`` with the expected
outcome in a comment. Shooters stand 20 m from a target that never moves (short range for the
rifle, TN 4 - 1 "target standing still" = 3) unless a test says otherwise.
"""

from __future__ import annotations

import itertools
import math
from fractions import Fraction

import pytest
from scipy import stats

from combatsim.dice.shadowrun import D6, D8, exact_karma_reroll, exact_outcomes
from combatsim.engine.battle import Battle, run_battle
from combatsim.engine.records import TURN_LIMIT, VICTORY
from combatsim.rules.levers import field_bounds
from combatsim.rules.shadowrun.models import Attributes, Skills
from combatsim.rules.shadowrun.system import (
    _dodge_table,
    action_scores,
    blast_power,
    dodge_dice,
    extra_actions,
    stage,
    wound_modifier,
)
from combatsim.rules.situation import blast_distance
from tests.engine.helpers import (
    WEAPONS,
    ScriptedRoller,
    ScriptExhausted,
    duel,
    dump,
    events,
    fighter,
    member,
    rolls,
    run_scripted,
    scenario,
    sitting_target,
)

# ================================================================================================
# Pure helpers
# ================================================================================================


@pytest.mark.parametrize(
    "result, actions",
    [(-3, 0), (0, 0), (1, 1), (10, 1), (11, 2), (16, 2), (17, 3), (22, 3), (23, 4), (40, 4)],
)
def test_extra_action_table(result, actions):
    """Seed 002 Extra Action Table: 1-10 one action, 11-16 two, 17-22 three, 23+ four."""
    assert extra_actions(result) == actions


@pytest.mark.parametrize(
    "result, scores",
    [
        (23, [23, 16, 9, 2]),  # ruling 1's example
        (30, [30, 23, 16, 9]),  # four actions at most, even when more would fit
        (22, [22, 15, 8]),
        (17, [17, 10, 3]),
        (16, [16, 9]),
        (11, [11, 4]),
        (10, [10]),
        (1, [1]),
        (0, []),
    ],
)
def test_minus7_actions_fall_7_apart_as_many_as_the_table_gives(result, scores):
    assert action_scores(result) == scores
    assert action_scores(result, "minus7") == scores


@pytest.mark.parametrize(
    "result, scores",
    [(23, [23, 13, 3]), (20, [20, 10]), (11, [11, 1]), (10, [10]), (1, [1]), (0, []), (-2, [])],
)
def test_minus10_option_acts_every_10_while_above_0(result, scores):
    assert action_scores(result, "minus10") == scores


@pytest.mark.parametrize(
    "boxes, modifier", [(0, 0), (1, 1), (2, 1), (3, 2), (5, 2), (6, 3), (9, 3), (10, 3)]
)
def test_wound_modifier_table(boxes, modifier):
    """Ruling 7: 1-2 boxes +1, 3-5 +2, 6-9 +3."""
    assert wound_modifier(boxes) == modifier


@pytest.mark.parametrize(
    "level, up, down, expected",
    [
        # Seed 002 Damage Codes: Ghost's 5 successes with a 4M3 rifle are 4 beyond the first,
        # one full Staging Number: M -> S.
        ("M", (5 - 1) // 3, 0, ("S", 0)),
        ("M", 0, 1, ("L", 0)),
        ("M", 0, 2, (None, 0)),  # below L: no damage
        ("L", 0, 1, (None, 0)),
        ("S", 1, 0, ("D", 0)),
        ("M", 2, 0, ("D", 0)),
        ("M", 3, 0, ("D", 1)),  # one level above D: one point of armor
        ("L", 6, 1, ("D", 2)),
        ("D", 2, 2, ("D", 0)),  # up and down cancel before the cap
    ],
)
def test_stage(level, up, down, expected):
    assert stage(level, up, down) == expected


@pytest.mark.parametrize(
    "policy, pool, hits, spend",
    [
        ("none", 5, 3, 0),
        ("all", 5, 1, 5),
        ("half", 5, 1, 3),
        ("half", 4, 1, 2),
        ("match", 6, 1, 3),  # two per attack success plus one
        ("match", 6, 3, 6),  # but never more than the pool
        ("all", 0, 2, 0),
    ],
)
def test_dodge_dice_per_policy(policy, pool, hits, spend):
    assert dodge_dice(policy, pool, hits) == spend


@pytest.mark.parametrize("policy", ["none", "all", "half", "match"])
def test_the_dodge_table_reaches_the_largest_pool_and_attack_a_sheet_allows(policy):
    """A hit reads its Dodge dice from the table: every Dodge Pool (Quickness) and attack
    successes (Firearms dice) a valid sheet can have must be in it."""
    quickness = field_bounds(Attributes, "quickness")[1]
    firearms = field_bounds(Skills, "firearms")[1]
    table = _dodge_table(policy)
    for pool in range(quickness + 1):
        for hits in range(firearms + 1):
            assert table[pool][hits] == dodge_dice(policy, pool, hits)


# ================================================================================================
# Damage codes, staging and armor in a battle
# ================================================================================================


def ghost(firearms=5, **kw):
    return member("Ghost", reaction=5, firearms=firearms, weapons=["rifle"], **kw)


@pytest.mark.parametrize(
    "attack, body, body_faces, up, down, level, boxes",
    [
        # Ghost's example: 5 successes with 4M3 stage M up to S; Body 2 finds none at TN 4.
        ([3, 4, 5, 5, 3], 2, [2, 3], 1, 0, "S", 6),
        # 4 successes: 3 beyond the first, still one Staging Number.
        ([3, 3, 3, 3, 2], 2, [2, 3], 1, 0, "S", 6),
        # 3 successes: 2 beyond the first, not enough to stage.
        ([3, 3, 3, 2, 2], 2, [2, 3], 0, 0, "M", 3),
        # A 6 is re-rolled after the test's first faces (6 then 2 = 8 still hits TN 3).
        ([6, 4, 5, 5, 3, 2], 2, [2, 3], 1, 0, "S", 6),
        # Three Body successes (Power 4) are one Staging Number down: S back to M.
        ([3, 4, 5, 5, 3], 3, [4, 5, 4], 1, 1, "M", 3),
        # One success: the target's Body 6 at 4+ finds 6 successes, two levels down: nothing.
        ([3, 2, 2, 2, 2], 6, [4, 4, 4, 4, 4, 4], 0, 2, None, 0),
    ],
)
def test_ghosts_rifle_stages_per_full_staging_number(
    attack, body, body_faces, up, down, level, boxes
):
    sc = duel(ghost(), sitting_target(body=body, position=(20, 0)))
    battle, result, roller = run_scripted(sc, [1, 1, *attack, *body_faces])
    assert roller.left() == []
    (stage_event,) = events(result, "stage", "Target")
    assert f"M staged up {up}, down {down}" in stage_event.text, dump(result)
    assert stage_event.data["level"] == level
    (attack_event,) = events(result, "attack", "Ghost")
    assert attack_event.data["tn"] == 3
    (body_roll,) = rolls(result, "Body", "Target")
    assert body_roll.data["tn"] == 4  # the rifle's Power
    target = fighter(battle, "Target")
    assert target.state.physical == boxes and target.state.stun == 0
    assert result.combatants[1]["physical_boxes"] == boxes
    assert result.combatants[0]["hits"] == 1


def test_staging_above_deadly_strips_armor_of_the_attacks_kind():
    """Ruling 6: 6 successes with a 4L1 needle gun stage L up 5; ballistic armor 1 stages it
    down 1: L + 4 = one level above D, which removes a point of ballistic armor (not impact)."""
    shooter = member("Sniper", reaction=5, firearms=6, weapons=["needle"])
    sc = duel(shooter, sitting_target(body=1, armor="vest", position=(20, 0)))
    battle, result, roller = run_scripted(sc, [1, 1, 5, 5, 5, 5, 5, 5, 2])
    assert roller.left() == []
    (stage_event,) = events(result, "stage", "Target")
    assert "L staged up 5, down 1" in stage_event.text and stage_event.data["level"] == "D"
    target = result.combatants[1]
    assert (target["ballistic_left"], target["impact_left"]) == (0, 3)
    assert target["physical_boxes"] == 10 and target["status"] == "dying"
    assert (result.winner, result.end_reason, result.turns) == ("A", VICTORY, 1)


TASER = {"kind": "firearm", "damage": "6S2", "stun": True, "ranges": [50, 150, 350, 550], "ammo": 9}


def _two_shot_taser():
    """Reaction 10 + 1 = 11: two actions (11 and 4), each a taser hit at TN 3 that Body 1
    (one die at TN 6, then 9 with the first wound's +3) does not resist: S Stun twice, 6 + 6
    boxes: a full Stun monitor and 2 boxes of overflow into Physical (ruling 7)."""
    shooter = member("Zapper", reaction=10, firearms=1, weapons=["taser"])
    return scenario(
        {"A": [shooter], "B": [sitting_target(body=1, position=(20, 0))]},
        weapons={"taser": TASER},
    )


@pytest.mark.parametrize(
    "make, faces, physical, stun, ballistic",
    [
        # Ghost's example: S, 6 boxes
        (
            lambda: duel(ghost(), sitting_target(body=2, position=(20, 0))),
            [1, 1, 3, 4, 5, 5, 3, 2, 3],
            6,
            0,
            0,
        ),
        # staged one level past D: a point of ballistic armor goes
        (
            lambda: duel(
                member("Sniper", reaction=5, firearms=6, weapons=["needle"]),
                sitting_target(body=1, armor="vest", position=(20, 0)),
            ),
            [1, 1, 5, 5, 5, 5, 5, 5, 2],
            10,
            0,
            0,
        ),
        # Stun overflow into Physical
        (_two_shot_taser, [1, 1, 3, 2, 3, 2], 2, 10, 0),
    ],
)
def test_an_untraced_hit_stages_and_wounds_as_the_traced_one(
    make, faces, physical, stun, ballistic
):
    """An untraced battle stages a ranged hit and fills the boxes inline (``resist_ranged``),
    a traced one through ``apply_attack`` and ``wound``: the same faces give the same rows."""
    sc = make()
    _, traced, roller = run_scripted(sc, faces)
    assert roller.left() == [], dump(traced)
    plain_roller = ScriptedRoller(faces)
    plain = Battle(sc, rng=None, index=0, trace=False, roller=plain_roller).run()
    assert plain_roller.left() == [] and plain.trace is None
    assert (plain.battle, plain.combatants) == (traced.battle, traced.combatants)
    target = plain.combatants[1]
    assert (target["physical_boxes"], target["stun_boxes"]) == (physical, stun)
    assert target["ballistic_left"] == ballistic


def test_staging_exactly_to_deadly_keeps_the_armor():
    shooter = member("Sniper", reaction=5, firearms=6, weapons=["needle"])
    sc = duel(shooter, sitting_target(body=1, armor="vest", position=(20, 0)))
    _, result, roller = run_scripted(sc, [1, 1, 5, 5, 5, 5, 5, 2, 2])  # 5 hits: L + 4 - 1 = D
    assert roller.left() == []
    assert result.combatants[1]["ballistic_left"] == 1
    assert result.combatants[1]["physical_boxes"] == 10


# ================================================================================================
# Condition monitors (ruling 7)
# ================================================================================================


def fresh(body=3):
    """A battle that has not run: its fighters' states can be set and wounded directly."""
    sc = duel(ghost(), sitting_target(body=body, position=(20, 0)))
    battle = Battle(sc, rng=None, trace=True)
    return battle, battle.system, fighter(battle, "Target")


@pytest.mark.parametrize("level, boxes", [("L", 1), ("M", 3), ("S", 6), ("D", 10)])
@pytest.mark.parametrize("stun", [False, True])
def test_wound_levels_fill_1_3_6_10_boxes(level, boxes, stun):
    battle, system, target = fresh()
    system.wound(battle, None, target, level, stun)
    assert (target.state.stun, target.state.physical) == ((boxes, 0) if stun else (0, boxes))
    assert target.damage_taken == boxes


def test_stun_overflow_goes_to_physical():
    battle, system, target = fresh()
    target.state.stun = 8
    system.wound(battle, None, target, "M", stun=True)
    assert (target.state.stun, target.state.physical) == (10, 1)
    assert system.status(target) == "unconscious" and not target.can_act


def test_a_full_stun_monitor_is_unconscious_and_out():
    battle, system, target = fresh()
    target.state.stun = 7
    system.wound(battle, None, target, "M", stun=True)
    assert system.status(target) == "unconscious"
    assert not target.can_act and target.knocked_out_turn == battle.turn


@pytest.mark.parametrize(
    "body, physical, level, status, overflow",
    [
        (3, 7, "M", "dying", 0),  # exactly full: down and dying
        (3, 9, "M", "dying", 2),  # overflow 2, not past Body 3
        (3, 6, "D", "dead", 6),  # overflow 6 past Body 3
        (5, 5, "D", "dying", 5),  # overflow equal to Body is not past it
        (4, 9, "D", "dead", 9),
        (2, 3, "S", "wounded", 0),
    ],
)
def test_physical_overflow_past_body_is_dead(body, physical, level, status, overflow):
    battle, system, target = fresh(body)
    target.state.physical = physical
    system.wound(battle, None, target, level, stun=False)
    assert (system.status(target), target.state.overflow) == (status, overflow)
    assert target.state.physical == min(10, physical + {"L": 1, "M": 3, "S": 6, "D": 10}[level])
    assert target.can_act == (status == "wounded")


@pytest.mark.parametrize(
    "physical, stun, penalty", [(0, 0, 0), (1, 0, 1), (1, 3, 3), (6, 6, 6), (0, 5, 2), (9, 2, 4)]
)
def test_stun_and_physical_wound_modifiers_add_up(physical, stun, penalty):
    _, system, target = fresh()
    target.state.physical, target.state.stun = physical, stun
    assert system.tn_penalty(target) == penalty
    assert system.initiative_penalty(target) == penalty


def test_a_stun_wound_is_reported_as_stun():
    """Regression: the trace once called every Stun wound '(Physical)'."""
    battle, system, target = fresh()
    system.wound(battle, None, target, "M", stun=True)
    (damage,) = [e for e in battle.events if e.kind == "damage"]
    assert "M wound (Stun)" in damage.text


# ================================================================================================
# Wound modifiers in a battle (ruling 7)
# ================================================================================================


@pytest.mark.parametrize(
    "weapon, options, score",
    [
        ("rifle", {}, 4),  # M: 3 boxes, -2: the action at 6 moves to 4
        ("needle", {}, 5),  # L: 1 box, -1
        ("rifle", {"wound_modifiers": False}, 6),
    ],
)
def test_a_wound_moves_the_targets_pending_action_down(weapon, options, score):
    shooter = member("Shooter", reaction=5, firearms=1, weapons=[weapon])
    sc = duel(shooter, sitting_target(body=1, position=(20, 0)), options=options)
    # Shooter 5+1 = 6 and Target 1+5 = 6: the higher Reaction shoots first. One hit, Body fails.
    _, result, roller = run_scripted(sc, [1, 5, 3, 2])
    assert roller.left() == []
    (decide,) = events(result, "decide", "Target")
    assert decide.score == score, dump(result)


def test_an_action_pushed_below_1_by_wounds_is_lost():
    # Target 1+1 = 2; Ghost's 4 hits stage M to S: 6 boxes, -3, the action at 2 is gone.
    sc = duel(ghost(firearms=4), sitting_target(body=1, position=(20, 0)))
    _, result, roller = run_scripted(sc, [1, 1, 3, 3, 3, 3, 2])
    assert roller.left() == []
    assert not events(result, "decide", "Target")
    (lost,) = events(result, "lost", "Target")
    assert "action at 2 falls below 1" in lost.text


@pytest.mark.parametrize(
    "weapon, options, tn, note",
    [
        ("rifle", {}, 5, "wounds +2"),
        ("needle", {}, 4, "wounds +1"),
        ("rifle", {"wound_modifiers": False}, 3, None),
    ],
)
def test_a_wounded_shooter_takes_the_wound_modifier_on_its_tn(weapon, options, tn, note):
    first = member("First", reaction=5, firearms=1, weapons=[weapon], tactics={"dodge": "none"})
    second = member(
        "Second",
        reaction=4,
        body=1,
        firearms=1,
        weapons=["rifle"],
        position=(20, 0),
        tactics={"dodge": "none"},
    )
    sc = duel(first, second, options=options)
    # First (5+1 = 6) hits (3) and Second's Body fails (2); Second (4+1 = 5, less its wound
    # modifier) fires back and misses (2).
    _, result, roller = run_scripted(sc, [1, 1, 3, 2, 2])
    assert roller.left() == []
    (attack,) = events(result, "attack", "Second")
    assert attack.data["tn"] == tn, dump(result)
    assert (note in attack.text) if note else ("wounds" not in attack.text)


# ================================================================================================
# Initiative (ruling 1)
# ================================================================================================


@pytest.mark.parametrize(
    "reaction, face, passes, scores",
    [
        (17, 6, "minus7", [23, 16, 9, 2]),
        (17, 6, "minus10", [23, 13, 3]),
        (10, 1, "minus7", [11, 4]),
        (10, 1, "minus10", [11, 1]),
        (5, 5, "minus7", [10]),
    ],
)
def test_a_fighter_acts_at_each_of_its_action_scores(reaction, face, passes, scores):
    shooter = member("Shooter", reaction=reaction, firearms=1, weapons=["rifle"])
    sc = duel(shooter, options={"initiative_passes": passes})
    # Every shot misses (2 against TN 3); the target (1+1 = 2) holds.
    _, result, roller = run_scripted(sc, [face, 1] + [2] * len(scores))
    assert roller.left() == []
    (initiative,) = events(result, "initiative", "Shooter")
    assert initiative.data["scores"] == scores
    assert [e.score for e in events(result, "decide", "Shooter")] == scores
    assert result.combatants[0]["actions"] == len(scores)


def test_equal_scores_go_to_the_higher_reaction_whatever_the_scenario_order():
    slow = sitting_target("Slow", reaction=2, position=(0, 0))
    quick = sitting_target("Quick", reaction=5, position=(30, 0))
    sc = scenario({"A": [slow], "B": [quick]})
    _, result, roller = run_scripted(sc, [4, 1])  # both at 6
    assert roller.left() == []
    assert [e.actor for e in events(result, "decide")] == ["Quick", "Slow"]


@pytest.mark.parametrize("ties, first", [([7, 3], "Two"), ([3, 7], "One")])
def test_equal_scores_and_reactions_go_by_the_random_draw(ties, first):
    one = sitting_target("One", reaction=3, position=(0, 0))
    two = sitting_target("Two", reaction=3, position=(30, 0))
    sc = scenario({"A": [one], "B": [two]})
    _, result, _ = run_scripted(sc, [2, 2], ties=ties)
    assert events(result, "decide")[0].actor == first


def test_a_held_action_never_spills_into_the_next_turn():
    """Regression: a held action wasted at the end of the turn once let the fighter's later
    action scores of that turn run in the next turn, an extra action every turn."""
    holder = sitting_target("Holder", reaction=10, position=(0, 0))
    other = sitting_target("Other", reaction=1, position=(30, 0))
    sc = scenario({"A": [holder], "B": [other]}, turn_limit=2)
    # Turn 1: Holder 10+1 = 11 (acts at 11, 4), Other 2. Turn 2: Holder 10+5 = 15 (15, 8).
    _, result, roller = run_scripted(sc, [1, 1, 5, 1])
    assert roller.left() == []
    scores = {e.turn: e.data["scores"] for e in events(result, "initiative", "Holder")}
    for decide in events(result, "decide", "Holder"):
        assert decide.score in scores[decide.turn], dump(result)


def test_a_held_action_fires_when_an_enemy_comes_into_range():
    """Seed 002 step 3: the holder (smg, 150 m at most) waits; the runner, 160 m off, runs 20 m
    and comes within range; the holder fires at once: extreme range 9, target running +1.
    Regression: the first movement anywhere once wasted every held action."""
    holder = member(
        "Holder", reaction=5, firearms=1, weapons=["smg"], tactics={"fire_mode": "single"}
    )
    runner = member("Runner", quickness=5, position=(160, 0))
    _, result, roller = run_scripted(duel(holder, runner), [1, 1, 2])  # the shot misses
    assert roller.left() == []
    assert [e.data["plan"] for e in events(result, "decide", "Holder")] == ["hold"]
    (attack,) = events(result, "attack", "Holder")
    assert attack.score == 2  # the runner's score: the held action went off as it moved
    assert attack.data["tn"] == 10 and "target running +1" in attack.text, dump(result)


def test_a_held_autofire_action_fires_the_holders_burst():
    """A held action that goes off fires as an action would: the tactics' autofire rounds
    (3, below ruling 8's Firearms + 1 = 5), at most the rounds left in the smg, each an
    attack test (ruling 5)."""
    holder = member(
        "Holder",
        reaction=5,
        firearms=4,
        weapons=["smg"],
        tactics={"fire_mode": "autofire", "autofire_rounds": 3},
    )
    runner = member("Runner", quickness=5, position=(160, 0))
    battle, result, _ = run_scripted(duel(holder, runner), [1, 1], then=2)  # every shot misses
    assert [e.data["plan"] for e in events(result, "decide", "Holder")] == ["hold"]
    (attack,) = events(result, "attack", "Holder")
    assert attack.data["shots"] == 3, dump(result)
    assert len(rolls(result, "Firearms", "Holder")) == 3, dump(result)
    assert fighter(battle, "Holder").ammo == [30 - 3]


# ================================================================================================
# Autofire (ruling 8)
# ================================================================================================


@pytest.mark.parametrize(
    "firearms, weapon, tactics, shots, recoil",
    [
        (5, {}, {}, 6, 6),  # Firearms 5: six shots at +6
        (5, {"recoil_compensation": 2}, {}, 6, 4),
        (5, {"recoil_compensation": 1, "gyro": 2}, {}, 6, 3),
        (5, {"recoil_compensation": 8}, {}, 6, 0),  # never below 0
        (8, {}, {}, 7, 7),  # never more than 7
        (2, {}, {}, 3, 3),  # Firearms + 1
        (5, {"ammo": 4}, {}, 4, 4),  # the ammunition left
        (5, {}, {"autofire_rounds": 3}, 3, 3),
        (5, {}, {"fire_mode": "single"}, 1, 0),
    ],
)
def test_autofire_shots_and_recoil(firearms, weapon, tactics, shots, recoil):
    shooter = member("Gunner", reaction=5, firearms=firearms, weapons=["gun"], tactics=tactics)
    target = sitting_target(position=(5, 0))  # short range: TN 4 - 1 standing still
    sc = duel(shooter, target, weapons={"gun": {**WEAPONS["smg"], **weapon}})
    battle, result, roller = run_scripted(sc, [1, 1] + [2] * (shots * firearms))  # all miss
    assert roller.left() == []
    (attack,) = events(result, "attack", "Gunner")
    assert (attack.data["shots"], attack.data["tn"]) == (shots, 3 + recoil), dump(result)
    assert (f"recoil ({shots} shots) +{recoil}" in attack.text) == (recoil > 0)
    tests = rolls(result, "Firearms", "Gunner")
    assert [e.data["tn"] for e in tests] == [3 + recoil] * shots
    assert all(len(e.data["dice"]) == firearms for e in tests)
    assert fighter(battle, "Gunner").ammo == [(weapon.get("ammo", 30)) - shots]
    assert result.combatants[0]["shots"] == shots


@pytest.mark.parametrize(
    "mode, faces, body_tn", [("autofire", [5, 2, 2], 7), ("single", [5, 2], 6)]
)
def test_autofire_adds_1_to_power(mode, faces, body_tn):
    """The 6M2 gun's Power is the Body test's TN: 6 for a single shot, 7 in a burst."""
    shooter = member("Gunner", reaction=5, firearms=1, weapons=["smg"], tactics={"fire_mode": mode})
    sc = duel(shooter, sitting_target(body=1, position=(5, 0)))
    # The first shot hits (5), Body fails (2); in a burst the second shot misses (2).
    _, result, roller = run_scripted(sc, [1, 1, *faces])
    assert roller.left() == []
    (body,) = rolls(result, "Body", "Target")
    assert body.data["tn"] == body_tn


@pytest.mark.parametrize(
    "option, faces, status",
    [
        (None, [1, 1, 5, 2], "dying"),  # the rest of the burst is not rolled: dying, not dead
        ("stop", [1, 1, 5, 2], "dying"),
        ("roll", [1, 1, 5, 2, 5, 2], "dead"),  # the second shot hits the dying target
    ],
)
def test_the_rest_of_a_burst_at_a_downed_target_is_rolled_only_with_the_option(
    option, faces, status
):
    """Ruling 29: a two-round burst whose first shot (5 hits, Body 2 fails: M, 3 boxes) fills
    the 8-box Physical monitor stops there by default; with ``burst_after_down: roll`` the
    second round is rolled too, hits and overflows the monitor 3 past Body 1: dead."""
    shooter = member("Gunner", reaction=5, firearms=1, weapons=["smg"])
    shooter["tactics"] = {"fire_mode": "autofire"}
    options = None if option is None else {"burst_after_down": option}
    sc = duel(shooter, sitting_target(body=1, position=(5, 0)), options=options)

    def wounded(battle):
        fighter(battle, "Target").state.physical = 8

    battle, result, roller = run_scripted(sc, faces, prepare=wounded)
    assert roller.left() == [], dump(result)
    assert len(rolls(result, "Firearms", "Gunner")) == (2 if option == "roll" else 1)
    assert battle.system.status(fighter(battle, "Target")) == status


def test_a_sweep_wastes_a_round_per_meter_and_keeps_the_whole_bursts_recoil():
    """Ruling 8: six rounds swept across two targets 2 m apart: 2 wasted, 2 at each. Every
    round takes the recoil of all six: medium range 5, standing still -1, recoil +6."""
    gunner = member("Gunner", reaction=5, firearms=5, weapons=["smg"], tactics={"sweep": True})
    sc = scenario(
        {
            "A": [gunner],
            "B": [sitting_target("T1", position=(20, 0)), sitting_target("T2", position=(22, 0))],
        }
    )
    battle, result, roller = run_scripted(sc, [1, 1, 1] + [2] * 20)  # 4 shots of 5 dice miss
    assert roller.left() == []
    attacks = events(result, "attack", "Gunner")
    assert [(e.data.get("shots"), e.data.get("tn")) for e in attacks[:2]] == [(2, 10), (2, 10)]
    assert " at T1 " in attacks[0].text and " at T2 " in attacks[1].text
    assert "2 shots wasted" in attacks[2].text
    assert [e.data["tn"] for e in rolls(result, "Firearms")] == [10] * 4
    assert fighter(battle, "Gunner").ammo == [30 - 6]


def test_a_sweep_never_reaches_past_the_weapons_extreme_range():
    """Ruling 8 sweeping: Near is at 149 m, inside the smg's 150 m; Far, 2.5 m beyond it, is
    out of range and may not take a round of the burst."""
    gunner = member("Gunner", reaction=5, firearms=5, weapons=["smg"], tactics={"sweep": True})
    near = sitting_target("Near", position=(149, 0))
    far = sitting_target("Far", position=(151.5, 0))
    sc = scenario({"A": [gunner], "B": [near, far]})
    _, result, _ = run_scripted(sc, [1, 1, 1], then=2)  # every shot misses
    attacks = events(result, "attack", "Gunner")
    assert attacks and not any(" at Far " in e.text for e in attacks), dump(result)


def test_a_sweep_measures_its_reach_from_where_the_gunner_fires_after_walking():
    """Ruling 8 sweeping, with a walk in the same action: keeping its range, the gunner walks
    away from T and fires: its preferred 20 m is past the gun's 6 m, so it backs off to just
    inside them, (5.99, 0). V, 1 m from T, was 1 m from the gunner before the walk but is
    6.07 m from where it fires:
    out of range, so it takes no round (found by hypothesis: it used to be swept, and the
    attack past the extreme band raised IndexError)."""
    pistol = {"kind": "firearm", "damage": "4M2", "ranges": [1.5, 3, 4.5, 6], "ammo": 10}
    gunner = member(
        "Gunner",
        quickness=6,
        firearms=3,
        weapons=["mp"],
        tactics={
            "fire_mode": "autofire",
            "sweep": True,
            "movement": "keep_range",
            "preferred_range": 20,
        },
    )
    sc = scenario(
        {"A": [gunner], "B": [sitting_target("T"), sitting_target("V", position=(0, 1))]},
        weapons={"mp": {**pistol, "autofire": True}},
    )
    battle, result, _ = run_scripted(sc, [1, 1, 1], then=2)  # every shot misses
    attacks = events(result, "attack", "Gunner")
    assert fighter(battle, "Gunner").position == pytest.approx((5.99, 0.0)), dump(result)
    assert attacks and all(" at T " in e.text for e in attacks[:1]), dump(result)
    assert not any(" at V " in e.text for e in attacks), dump(result)


# ================================================================================================
# Dodge Pool and clean misses (rulings 4 and 5)
# ================================================================================================


def dodger(**kw):
    return sitting_target(quickness=3, position=(20, 0), tactics={"dodge": "all"}, **kw)


def test_more_dodge_successes_than_attack_successes_is_a_clean_miss():
    sc = duel(ghost(firearms=2), dodger(body=1))
    # 2 attack successes; Dodge 3 dice at the rifle's Power 4: 3 successes > 2: no Body test.
    battle, result, roller = run_scripted(sc, [1, 1, 3, 3, 4, 4, 5])
    assert roller.left() == []
    assert events(result, "miss", "Target") and not rolls(result, "Body")
    assert fighter(battle, "Target").state.physical == 0
    assert result.combatants[0]["hits"] == 0
    assert result.combatants[1]["dodge_dice_spent"] == 3


def test_equal_dodge_successes_are_no_clean_miss_but_stage_the_wound_down():
    sc = duel(ghost(firearms=2), dodger(body=1))
    # 2 attack successes; Dodge 2; Body 1: 3 defence successes, one Staging Number: M -> L.
    battle, result, roller = run_scripted(sc, [1, 1, 3, 3, 4, 4, 2, 4])
    assert roller.left() == []
    assert not events(result, "miss")
    (stage_event,) = events(result, "stage", "Target")
    assert "down 1 (3 defence successes" in stage_event.text
    assert fighter(battle, "Target").state.physical == 1
    assert result.combatants[0]["hits"] == 1


def test_dodge_dice_spent_return_only_at_the_defenders_own_action():
    """Ruling 4. The shooter acts at 11 and 4. A target acting at 6, between the shots, has
    its Dodge Pool back for the second shot; one acting at 2, after both, does not."""
    shooter = member("Shooter", reaction=10, firearms=1, weapons=["rifle"])
    target = sitting_target(body=1, quickness=2, position=(20, 0), tactics={"dodge": "all"})
    sc = duel(shooter, target)
    # Target at 6: each hit (3) is dodged clean away by 2 dodge successes (4, 4).
    _, between, roller = run_scripted(sc, [1, 5, 3, 4, 4, 3, 4, 4])
    assert roller.left() == []
    assert [len(e.data["dice"]) for e in rolls(between, "Dodge Pool")] == [2, 2]
    # Target at 2: the second hit meets an empty pool and goes to Body (2 fails).
    battle, after, roller = run_scripted(sc, [1, 1, 3, 4, 4, 3, 2])
    assert roller.left() == []
    assert [len(e.data["dice"]) for e in rolls(after, "Dodge Pool")] == [2]
    assert len(rolls(after, "Body")) == 1
    assert fighter(battle, "Target").state.physical == 3


def test_autofire_shots_share_one_dodge_pool():
    shooter = member("Gunner", reaction=5, firearms=2, weapons=["smg"])
    target = sitting_target(body=1, quickness=3, position=(5, 0), tactics={"dodge": "all"})
    sc = duel(shooter, target)
    # 3 shots at TN 3 + 3 = 6, Power 6 + 1 = 7.
    faces = [1, 1, 6, 2, 1]  # shot 1: 6 then 1 = 7 and a 2: one hit
    faces += [2, 2, 2, 2]  # all 3 Dodge dice fail; Body 1 fails: M, 3 boxes
    faces += [6, 2, 1]  # shot 2: one hit; the pool is empty: straight to Body
    faces += [2]  # Body fails: M, 6 boxes in all
    faces += [2, 2]  # shot 3 misses
    battle, result, roller = run_scripted(sc, faces)
    assert roller.left() == [], dump(result)
    assert [len(e.data["dice"]) for e in rolls(result, "Dodge Pool")] == [3]
    assert len(rolls(result, "Body")) == 2
    assert result.combatants[1]["dodge_dice_spent"] == 3
    target = fighter(battle, "Target")
    assert (target.state.physical, target.state.dodge) == (6, 0)


# ================================================================================================
# Fumbles (ruling 2)
# ================================================================================================


def test_a_fumble_costs_the_attacker_its_next_action():
    shooter = member("Shooter", reaction=10, firearms=2, weapons=["rifle"])  # 10+1: 11 and 4
    sc = duel(shooter, options={"fumble_effect": "lose_action"})
    _, result, roller = run_scripted(sc, [1, 1, 1, 1])  # both dice 1 at 11: a fumble
    assert roller.left() == []
    assert [e.score for e in events(result, "attack", "Shooter")] == [11]
    assert len(events(result, "fumble", "Shooter")) == 1
    (lost,) = events(result, "action", "Shooter")
    assert lost.score == 4 and "loses this action" in lost.text
    assert result.combatants[0]["fumbles"] == 1


def test_with_fumble_effect_none_a_fumble_is_only_recorded():
    shooter = member("Shooter", reaction=10, firearms=2, weapons=["rifle"])
    sc = duel(shooter, options={"fumble_effect": "none"})
    _, result, roller = run_scripted(sc, [1, 1, 1, 1, 2, 2])
    assert roller.left() == []
    assert [e.score for e in events(result, "attack", "Shooter")] == [11, 4]
    assert not events(result, "fumble")
    assert result.combatants[0]["fumbles"] == 1


def test_a_fumble_on_the_last_action_of_a_turn_costs_the_next_turns_first():
    shooter = member("Shooter", reaction=5, firearms=2, weapons=["rifle"])  # one action a turn
    sc = duel(shooter, options={"fumble_effect": "lose_action"}, turn_limit=3)
    faces = [1, 1, 1, 1]  # turn 1: a fumble
    faces += [1, 1]  # turn 2: initiative only, the action is lost
    faces += [1, 1, 2, 2]  # turn 3: shoots and misses
    _, result, roller = run_scripted(sc, faces)
    assert roller.left() == []
    assert [e.turn for e in events(result, "attack", "Shooter")] == [1, 3]
    assert result.end_reason == TURN_LIMIT and result.winner is None


# ================================================================================================
# Instant Karma re-rolls (rulings 11 and 26)
# ================================================================================================


def karma_shooter(options=None):
    """Reaction 10 + 1 = 11: actions at 11 and 4, two rifle dice at TN 3 each; 1 Karma point
    that the ``attack`` policy spends re-rolling a test with no success."""
    shooter = member(
        "Shooter", reaction=10, firearms=2, weapons=["rifle"], karma=1, tactics={"karma": "attack"}
    )
    return duel(shooter, options={"instant_karma": "on", **(options or {})})


@pytest.mark.parametrize("first", [[2, 2], [1, 1]])  # no success; a fumble (negated by Karma)
def test_a_karma_reroll_showing_all_ones_is_a_fumble_that_costs_the_next_action(first):
    """Ruling 26: the re-roll of both dice shows [1, 1], 0 successes: a fumble, and the
    attacker loses its action at 4 (ruling 2). The point spent does not negate it."""
    _, result, roller = run_scripted(karma_shooter(), [1, 1, *first, 1, 1])
    assert roller.left() == [], dump(result)
    (karma,) = events(result, "karma", "Shooter")
    assert karma.text.endswith("-> 0, a fumble)"), karma.text
    (attack_roll,) = rolls(result, "Firearms", "Shooter")
    assert attack_roll.data["dice"] == [[1], [1]] and attack_roll.data["fumble"]
    assert [e.score for e in events(result, "attack", "Shooter")] == [11]
    assert len(events(result, "fumble", "Shooter")) == 1
    (lost,) = events(result, "action", "Shooter")
    assert lost.score == 4 and "loses this action" in lost.text
    shooter = result.combatants[0]
    assert (shooter["fumbles"], shooter["karma_spent"]) == (1, 1)


@pytest.mark.parametrize("first", [[2, 2], [1, 1]])
def test_with_karma_reroll_fumbles_off_a_reroll_never_fumbles(first):
    """The option off keeps the earlier reading: the re-rolled [1, 1] is a plain miss, and the
    shooter fires again at 4 ([2, 2], a miss; no Karma left to re-roll it)."""
    sc = karma_shooter({"karma_reroll_fumbles": "off"})
    _, result, roller = run_scripted(sc, [1, 1, *first, 1, 1, 2, 2])
    assert roller.left() == [], dump(result)
    (karma,) = events(result, "karma", "Shooter")
    assert karma.text.endswith("-> 0)"), karma.text
    assert [e.score for e in events(result, "attack", "Shooter")] == [11, 4]
    assert not events(result, "fumble")
    assert (result.combatants[0]["fumbles"], result.combatants[0]["karma_spent"]) == (0, 1)


@pytest.mark.parametrize("option", ["on", "off"])
@pytest.mark.parametrize(
    "faces",
    [
        [1, 1, 2, 2, 1, 1],  # no success, re-rolled to [1, 1]
        [1, 1, 1, 1, 1, 1],  # a fumble, re-rolled to [1, 1]
        [1, 1, 1, 1, 1, 3],  # a fumble, re-rolled to one success: a hit
        [1, 1, 2, 1, 6, 1],  # re-rolled to a 6 (rolled again) and a 1: a hit
    ],
)
def test_an_untraced_karma_reroll_counts_as_the_traced_one(option, faces):
    """The untraced test (``count``) and the traced one (``_traced_test``) re-roll the same
    faces to the same successes, fumble and fumble cost, with the option on and off (every
    face after the script is a 2: the target's Body, the second action's attack)."""
    sc = karma_shooter({"karma_reroll_fumbles": option})
    _, traced, roller = run_scripted(sc, faces, then=2)
    plain_roller = ScriptedRoller(faces, then=2)
    plain = Battle(sc, rng=None, index=0, trace=False, roller=plain_roller).run()
    assert plain_roller.dealt == roller.dealt
    assert (plain.battle, plain.combatants) == (traced.battle, traced.combatants)


@pytest.mark.parametrize("tracing", [False, True])
@pytest.mark.parametrize("option", ["on", "off"])
@pytest.mark.parametrize(("system", "kind", "tn"), [("sr-classic", D6, 6), ("sr-d8", D8, 7)])
def test_the_exact_outcome_of_a_two_die_test_with_a_karma_reroll(system, kind, tn, option, tracing):
    """Every equally likely pair of first faces and pair of re-rolled faces through the rule
    system's own test: the outcome's exact law is the first roll's when it has a success, else
    the re-roll's (``exact_outcomes``). The fumble after a re-roll (ruling 26) is P(no success)
    x P(both on 1): 25/36 x 1/36 = 25/1296 on the d6 at TN 6, 49/64 x 1/64 = 49/4096 on the d8
    at TN 7; with the option off, none. At these TNs a re-rolled top face (a d6's 6) decides
    nothing, so every further face is dealt as ``low + 1``."""
    shooter = member("Shooter", firearms=2, weapons=["rifle"], karma=1, tactics={"karma": "attack"})
    sc = scenario(
        {"A": [shooter], "B": [sitting_target(position=(20, 0))]},
        options={"instant_karma": "on", "karma_reroll_fumbles": option},
        system=system,
    )
    faces = range(kind.low, kind.top + 1)
    counted = {}
    for dealt in itertools.product(faces, repeat=4):
        # the first pair, the Rule of Six's re-rolls of its top faces, then the Karma re-roll
        script = [*dealt[:2], *[kind.low + 1] * (dealt[:2].count(6) * (kind is D6)), *dealt[2:]]
        battle = Battle(
            sc,
            rng=None,
            trace=tracing,
            roller=ScriptedRoller(script, die=(kind.low, kind.top), then=kind.low + 1),
        )
        outcome = sc.system.count(battle, fighter(battle, "Shooter"), 2, tn, "test", "attack")
        counted[outcome] = counted.get(outcome, 0) + Fraction(1, kind.sides**4)
    first = exact_outcomes(2, tn, kind)
    missed = first[(0, False)] + first[(0, True)]
    law = {k: p for k, p in first.items() if k[0] > 0}
    for k, p in first.items():
        k = (k[0], k[1] and option == "on")
        law[k] = law.get(k, 0) + missed * p
    assert {k: p for k, p in counted.items() if p} == {k: p for k, p in law.items() if p}
    fumble = Fraction(25, 1296) if kind is D6 else Fraction(49, 4096)
    assert counted.get((0, True), 0) == (fumble if option == "on" else 0)
    # and ``combatsim odds sr --karma reroll`` answers from this law (the dice layer's)
    assert dict(exact_karma_reroll(2, tn, kind, option == "on")) == law


# ================================================================================================
# Melee (ruling 9)
# ================================================================================================


def brawl(brawler_armor=None, target_armor=None):
    """A club fighter (Armed Combat 2, Strength 4: club Power 5, M2) 1 m from a target with
    Unarmed Combat 1 that never attacks. Brawler rolls 2 + Defense Pool 2 = 4 dice, the target
    1 + 1 = 2 dice, both at TN 4."""
    brawler = member(
        "Brawler",
        reaction=5,
        strength=4,
        armed_combat=2,
        weapons=["club"],
        armor=brawler_armor,
    )
    target = sitting_target(body=2, unarmed_combat=1, armor=target_armor, position=(1, 0))
    return duel(brawler, target)


def test_a_melee_tie_deals_no_damage():
    battle, result, roller = run_scripted(brawl(), [1, 1, 4, 2, 2, 2, 5, 2])
    assert roller.left() == []
    (miss,) = events(result, "miss")
    assert "no damage (1 against 1)" in miss.text
    assert not rolls(result, "Body")
    assert fighter(battle, "Brawler").state.defense == 0  # spent until its next action


@pytest.mark.parametrize("armor, level, boxes", [(None, "S", 6), ("vest", "M", 3)])
def test_the_melee_winner_stages_up_and_the_loser_resists_with_body_and_impact(armor, level, boxes):
    """Net 3 beyond the first is 2, one Staging Number of the club: M -> S. The target's
    Body finds nothing at Power 5; the vest's impact 3 (not its ballistic 1) stages down 1."""
    battle, result, roller = run_scripted(brawl(target_armor=armor), [1, 1, 4, 4, 4, 2, 2, 2, 2, 2])
    assert roller.left() == []
    (body,) = rolls(result, "Body", "Target")
    assert body.data["tn"] == 5
    (stage_event,) = events(result, "stage", "Target")
    assert stage_event.data["level"] == level
    assert fighter(battle, "Target").state.physical == boxes


def test_a_defender_who_wins_deals_its_own_unarmed_stun_damage():
    """The target wins 2-0 bare-handed: (Strength 3)M1 Stun, 1 beyond the first stages M -> S.
    The brawler resists at TN 3 with Body 3 (1 success) and its jacket's impact 1: down 2: L."""
    battle, result, roller = run_scripted(
        brawl(brawler_armor="jacket"), [1, 1, 2, 2, 2, 2, 5, 5, 3, 2, 2]
    )
    assert roller.left() == []
    (body,) = rolls(result, "Body", "Brawler")
    assert body.data["tn"] == 3
    brawler = fighter(battle, "Brawler")
    assert (brawler.state.stun, brawler.state.physical) == (1, 0)
    assert fighter(battle, "Target").hits == 1


# ================================================================================================
# Grenades (ruling 10)
# ================================================================================================


def grenadier(weapon=None, throwing=3, firearms=1):
    thrower = member(
        "Grenadier",
        reaction=5,
        throwing=throwing,
        firearms=firearms,
        weapons=["nade"],
        tactics={"grenades": "always"},
    )
    # Aimed at the target 10 m off: medium range for [5, 10, 20, 40]: TN 5.
    target = sitting_target(body=3, position=(10, 0))
    return duel(thrower, target, weapons={"nade": {**WEAPONS["frag"], **(weapon or {})}})


@pytest.mark.parametrize(
    "weapon, test, deviation, text, angle, lands",
    [
        # 2D6 (5 + 6 = 11) less 3 m for each of the 2 successes after the first: 5 m.
        ({}, ("throw", [5, 5, 5]), [5, 6], "11 - 3 x 2 = 5 m", 0.0, (15.0, 0.0)),
        # No success: the whole 2D6.
        ({}, ("throw", [2, 2, 2]), [3, 4], "7 - 3 x 0 = 7 m", 0.0, (17.0, 0.0)),
        # One success is not an extra success.
        ({}, ("throw", [5, 2, 2]), [3, 4], "7 - 3 x 0 = 7 m", math.pi, (3.0, 0.0)),
        # Aerodynamic: 3D6 less 5 m per extra success.
        (
            {"aerodynamic": True},
            ("throw", [5, 5, 5]),
            [6, 5, 6],
            "17 - 5 x 2 = 7 m",
            0.0,
            (17.0, 0.0),
        ),
        # Launcher: 4D6 less 5 per extra success, never below 0; it uses Firearms (3 dice).
        (
            {"launcher": True},
            ("launch", [5, 5, 5]),
            [6, 5, 6, 6],
            "23 - 5 x 2 = 13 m",
            0.0,
            (23.0, 0.0),
        ),
        (
            {"launcher": True},
            ("launch", [5, 5, 5]),
            [1, 1, 1, 2],
            "5 - 5 x 2 = 0 m",
            0.0,
            (10.0, 0.0),
        ),
    ],
)
def test_grenade_deviation(weapon, test, deviation, text, angle, lands):
    skills = {"throwing": 1, "firearms": 3} if weapon.get("launcher") else {}
    sc = grenadier(weapon, **skills)
    landed = []

    class Recording(Battle):
        def land(self, *args):
            landed.append(super().land(*args))
            return landed[-1]

    kind, faces = test
    body = [2, 2, 2] if math.dist(lands, (10, 0)) < 3 else []  # the target caught in the blast
    faces = [1, 1, *faces, *deviation, *body]
    battle, result, roller = run_scripted(sc, faces, battle_type=Recording, angles=[angle])
    assert roller.left() == [], dump(result)
    (throw_roll,) = rolls(result, kind, "Grenadier")
    assert throw_roll.data["tn"] == 5 and len(throw_roll.data["dice"]) == 3
    (event,) = [e for e in events(result, "grenade", "Grenadier") if "throws" in e.text]
    assert f"deviates {text}" in event.text, dump(result)
    assert landed[0] == pytest.approx(lands)
    assert fighter(battle, "Grenadier").ammo == [1]


def test_grenade_power_falls_with_distance_from_the_burst():
    """6S2 losing 2 per meter: the target 1 m from the burst resists at Power 4, and the
    grenade does not stage up (no attack successes count)."""
    sc = grenadier({"aerodynamic": True})
    # 3 successes, 3D6 = 11 less 10: 1 m, straight up (+y): lands at (10, 1).
    battle, result, roller = run_scripted(
        sc, [1, 1, 5, 5, 5, 5, 3, 3, 2, 2, 2], angles=[math.pi / 2]
    )
    assert roller.left() == []
    (blast,) = events(result, "blast")
    assert blast.actor == "Target" and "Power 4" in blast.text
    (body,) = rolls(result, "Body", "Target")
    assert body.data["tn"] == 4
    (stage_event,) = events(result, "stage", "Target")
    assert "S staged up 0, down 0" in stage_event.text
    assert fighter(battle, "Target").state.physical == 6


@pytest.mark.parametrize(
    ("power", "falloff", "distance", "full_meters", "exact"),
    [
        (12, 2, 1.5, 10, 9),  # the example: per full meter vs continuous
        (12, 2, 0.0, 12, 12),
        (12, 2, 0.99, 12, 11),
        (12, 2, 5.5, 2, 1),
        (12, 2, 6.0, 0, 0),  # 6 full meters: nothing left
        (6, 3, 1.5, 3, 2),
        (10, 1.5, 2.2, 7, 7),  # 10 - 3 = 7 by full meters; ceil(10 - 3.3) = 7
        (10, 1.5, 1.0, 9, 9),  # 8.5 rounds up
    ],
)
def test_blast_power_falls_per_full_meter(power, falloff, distance, full_meters, exact):
    """Ruling 25: Power - falloff x floor(distance); ``exact`` is the continuous reading."""
    assert blast_power(power, falloff, distance) == full_meters
    assert blast_power(power, falloff, distance, "full_meters") == full_meters
    assert blast_power(power, falloff, distance, "exact") == exact


@pytest.mark.parametrize(("rule", "power"), [("full_meters", 3), ("exact", 2)])
def test_a_bystander_one_and_a_half_meters_from_the_burst(rule, power):
    """A 6S2 grenade losing 3 per meter lands on the target (3 successes: 3D6 = 3 less 10 is
    0 m); a bystander 1.5 m away resists Power 6 - 3 x 1 = 3 (ruling 25), or 2 exactly."""
    thrower = member(
        "Grenadier", reaction=5, throwing=3, weapons=["nade"], tactics={"grenades": "always"}
    )
    sc = scenario(
        {
            "A": [thrower],
            "B": [
                sitting_target(body=3, position=(10, 0)),
                sitting_target("Bystander", body=3, position=(10, 1.5)),
            ],
        },
        weapons={"nade": {**WEAPONS["frag"], "aerodynamic": True, "blast_falloff": 3}},
        options={"blast_distance": rule},
    )
    # Power 6 at 3 per meter: full meters reach 1.99 m (Power 3), nobody is hurt from 2 m on.
    assert sc.system.blast_radius(sc.sides[0].fighters[0].weapons[0]) == 2
    battle, result, _ = run_scripted(sc, [1, 1, 1, 5, 5, 5, 1, 1, 1], then=2)
    blasts = {e.actor: e.text for e in events(result, "blast")}
    assert "Power 6" in blasts["Target"]
    assert f"1.5 m from the blast: Power {power}" in blasts["Bystander"], dump(result)
    (body,) = rolls(result, "Body", "Bystander")
    assert body.data["tn"] == power


# A 12S2 grenade loses 2 Power per full meter: Power 12 - 2 x n at n full meters, nobody hurt
# from 6 m on. Thrown with one die (at most one success, never an extra one) it deviates the
# whole 2D6 m. The target stands on the aim point, where floating point errs most (``math.dist``
# of a 6 m deviation from (30, -5) falls short of 6 in about a third of all directions).
BLAST_12S2 = {"kind": "grenade", "damage": "12S2", "ranges": [5, 10, 20, 40], "ammo": 1}
AIM = (30.0, -5.0)


def aimed_blast(options=None):
    """A grenadier 20 m from a sitting target (long range, TN 7: one die, no extra success)."""
    thrower = member(
        "Grenadier",
        reaction=5,
        throwing=1,
        weapons=["nade"],
        position=(AIM[0] - 20, AIM[1]),
        tactics={"grenades": "always"},
    )
    return duel(
        thrower,
        sitting_target(body=3, position=AIM),
        weapons={"nade": {**BLAST_12S2, "blast_falloff": 2}},
        options=options,
    )


# every 15 degrees: the six and eight compass directions and the diagonals between them
DIRECTIONS = [k * 15 for k in range(24)]


@pytest.mark.parametrize("degrees", DIRECTIONS)
@pytest.mark.parametrize("deviation", range(1, 13))
@pytest.mark.parametrize("aim", [AIM, (10.0, 0.0), (3.0, 7.0), (-12.3, 4.7)])
def test_a_fighter_on_the_aim_point_is_exactly_the_deviation_from_the_burst(
    aim, deviation, degrees
):
    """Ruling 25: the burst lands ``deviation`` m off the aim (as ``throw_grenade`` places it),
    so the fighter standing on the aim point is that whole number of meters away."""
    angle = math.radians(degrees)
    burst = (aim[0] + deviation * math.cos(angle), aim[1] + deviation * math.sin(angle))
    assert blast_distance(burst, aim) == deviation
    assert blast_distance(aim, burst) == deviation


@pytest.mark.parametrize(
    ("a", "b", "meters"),
    [
        ((10, 0), (13, 4), 5.0),  # 3-4-5
        ((0.1, 0.2), (3.1, 4.2), 5.0),  # 3-4-5 off the grid: 5.000000000000001 by math.dist
        ((30, -5), (-6, 10), 39.0),  # 36-15-39
        ((10, 0), (10, 1.5), 1.5),  # not a whole number: as measured
        ((0, 0), (1, 1), math.sqrt(2)),
        ((0, 0), (0, 5.99), 5.99),
        ((0, 0), (0, 0), 0.0),
    ],
)
def test_blast_distance_counts_a_whole_number_of_meters_as_that_number(a, b, meters):
    assert blast_distance(a, b) == meters


@pytest.mark.parametrize("degrees", DIRECTIONS)
@pytest.mark.parametrize(
    ("faces", "power"), [([1, 1], 8), ([1, 2], 6), ([2, 2], 4), ([2, 3], 2), ([3, 3], None)]
)
@pytest.mark.parametrize("rule", ["full_meters", "exact"])
def test_the_target_on_the_aim_point_resists_power_less_falloff_per_whole_meter(
    rule, faces, power, degrees
):
    """2D6 = 2..6 m off in any direction: Power 12 - 2 x 2, ... 12 - 2 x 5 = 2 whatever
    floating point makes of the distance; at 6 m the target is at the blast's edge: unhurt."""
    sc = aimed_blast({"blast_distance": rule})
    body = [2, 2, 2] if power else []
    battle, result, roller = run_scripted(
        sc, [1, 1, 2, *faces, *body], angles=[math.radians(degrees)]
    )
    assert roller.left() == [], dump(result)
    (throw,) = [e for e in events(result, "grenade", "Grenadier") if "throws" in e.text]
    assert f"deviates {sum(faces)} - 3 x 0 = {sum(faces)} m" in throw.text
    blasts = events(result, "blast", "Target")
    if power is None:
        assert not blasts and not rolls(result, "Body"), dump(result)
        assert result.combatants[1]["status"] == "unhurt"
        return
    (blast,) = blasts
    assert f"is {sum(faces)}.0 m from the blast: Power {power}" in blast.text, dump(result)
    (body_roll,) = rolls(result, "Body", "Target")
    assert body_roll.data["tn"] == power


@pytest.mark.parametrize("rule", ["full_meters", "exact"])
def test_the_blast_edge_is_outside_for_the_tactics_as_for_the_blast(rule):
    """Whom the tactics count inside a blast is whom the blast hurts: a 12S2 losing 2 per
    meter reaches 5.99 m, not 6 (nor 6 m measured as 5.999999999999999)."""
    sc = aimed_blast({"blast_distance": rule})
    system, weapon = sc.system, sc.sides[0].fighters[0].weapons[0]
    assert system.in_blast(weapon, 5.99) and not system.in_blast(weapon, 6.0)
    angle = math.radians(225)
    short = (AIM[0] + 6 * math.cos(angle), AIM[1] + 6 * math.sin(angle))
    assert math.dist(short, AIM) < 6  # what floating point makes of it
    assert not system.in_blast(weapon, blast_distance(short, AIM))


@pytest.mark.parametrize("rule", ["full_meters", "exact"])
def test_whom_the_tactics_count_in_a_blast_is_whom_blast_power_hurts(rule):
    """``in_blast`` answers without ``blast_power`` (a threshold per grenade by full meters):
    over powers, falloffs and distances, on and off whole meters, it says what a Power above
    0 says, and nobody beyond ``blast_radius`` is caught (the tactics ask only those nearer)."""
    from combatsim.rules.shadowrun import models
    from combatsim.rules.shadowrun.system import ClassicShadowrun, blast_power

    system = ClassicShadowrun(models.Options(blast_distance=rule))
    for power, falloff in itertools.product((1, 5, 9, 12, 17), (0.3, 1, 1.5, 2, 3, 7)):
        weapon = models.Weapon(
            kind="grenade", damage=f"{power}S", ranges=[5, 10, 15, 20], blast_falloff=falloff
        )
        for step in range(0, 3000, 7):
            for distance in (step / 97, float(round(step / 97))):
                hurt = blast_power(power, falloff, distance, rule) > 0
                assert system.in_blast(weapon, distance) == hurt, (power, falloff, distance)
                assert not hurt or distance <= system.blast_radius(weapon)


def test_a_grenadier_standing_at_the_blast_edge_throws_at_its_target():
    """Tactics ``grenades: always`` throw when the thrower is outside the blast around its
    target: 6 m from it, a 12S2 losing 2 per meter leaves it unhurt."""
    thrower = member(
        "Grenadier", reaction=5, throwing=1, weapons=["nade"], tactics={"grenades": "always"}
    )
    sc = duel(
        thrower,
        sitting_target(body=3, position=(6 * math.cos(2), 6 * math.sin(2))),
        weapons={"nade": {**BLAST_12S2, "blast_falloff": 2}},
    )
    # it throws (one die, no success): 2D6 = 12 m off, along +x: nobody hurt
    _, result, roller = run_scripted(sc, [1, 1, 2, 6, 6])
    assert roller.left() == [], dump(result)
    assert [e.actor for e in events(result, "grenade")] == ["Grenadier", "Grenadier"]
    assert not events(result, "blast")


@pytest.mark.slow
def test_the_aimed_at_target_is_unhurt_as_often_as_the_deviation_rule_gives():
    """Sampled battles against the exact chance. The target stands on the aim point and a
    one-die throw deviates the whole 2D6 m (ruling 10): outside the 12S2 blast (Power 0 from 6
    full meters, ruling 25) with 2D6 >= 6, 26 of 36 rolls: 13/18; inside, Power 2 or more
    against Body 3 with no armor stages S down at most one level, so it is always hurt.

    A two-sided binomial test at alpha 1e-6 with fixed seeds (a false failure once in a
    million seeds). Measured by ``math.dist`` alone, a third of the 6 m throws would count 5
    full meters: 13/18 - 5/36 x 1/3 = 0.676, ten standard errors away at 10,000 battles.
    """
    sc = aimed_blast()
    n = 10_000
    unhurt = sum(run_battle(sc, 2025, i).combatants[1]["status"] == "unhurt" for i in range(n))
    p = stats.binomtest(unhurt, n, 13 / 18).pvalue
    assert p >= 1e-6, f"{unhurt} of {n} unhurt, expected {n * 13 / 18:.0f}: p = {p:.2g}"


# ================================================================================================
# Interception (seed 002)
# ================================================================================================


def intercept_scenario(bouncer_at=(5, 0.5), bouncer=None, runner_reaction=5, turn_limit=1):
    """The runner (Quickness 5: runs 20 m) runs at the Boss, the more dangerous enemy, 20 m
    down the x axis, and stops 1.99 m short, at (18.01, 0). The Bouncer (Unarmed Combat 2:
    4 dice with its Defense Pool) stands by the way; the runner defends with 1 die (Strength
    3 - 4, at least 1)."""
    runner = member(
        "Runner",
        reaction=runner_reaction,
        quickness=5,
        body=2,
        tactics={"target": "most_dangerous", "target_in_reach": False},  # past the Bouncer
    )
    bouncer = bouncer or sitting_target("Bouncer", unarmed_combat=2, position=bouncer_at)
    boss = member(  # never acts (the toy gun comes first); its rifle makes it the threat
        "Boss",
        weapons=["toy", "rifle"],
        firearms=6,
        position=(20, 0),
        tactics={"dodge": "none", "movement": "hold"},
    )
    return scenario({"A": [runner], "B": [bouncer, boss]}, turn_limit=turn_limit)


def test_a_runner_passing_within_1_m_is_intercepted_at_tn_5():
    # Runner 5+1 = 6 goes first. Bouncer 4 successes at TN 5, Runner none: net 4, unarmed
    # (3)M1 Stun staged up 3 to D; Body 2 fails at TN 3: 10 Stun, unconscious.
    battle, result, roller = run_scripted(intercept_scenario(), [1, 1, 1, 5, 5, 5, 5, 2, 2, 2])
    assert roller.left() == []
    (attack,) = events(result, "attack", "Bouncer")
    assert "intercepts Runner" in attack.text
    (roll,) = [e for e in events(result, "roll", "Bouncer")]
    assert roll.data["tn"] == 5 and len(roll.data["dice"]) == 4
    (defence,) = [e for e in events(result, "roll", "Runner") if e.text.startswith("melee")]
    assert defence.data["tn"] == 4 and len(defence.data["dice"]) == 1
    assert fighter(battle, "Runner").state.stun == 10
    assert (result.winner, result.end_reason, result.turns) == ("B", VICTORY, 1), dump(result)
    # The interception is not one of the Bouncer's actions.
    assert fighter(battle, "Bouncer").actions == len(events(result, "decide", "Bouncer"))


@pytest.mark.parametrize("bouncer_dice, runner_die", [([2, 2, 2, 2], 5), ([5, 2, 2, 2], 5)])
def test_an_intercepted_runner_who_wins_or_ties_deals_nothing(bouncer_dice, runner_die):
    battle, result, roller = run_scripted(
        intercept_scenario(), [1, 1, 1, *bouncer_dice, runner_die]
    )
    assert roller.left() == []
    assert events(result, "miss", "Bouncer") and not rolls(result, "Body")
    assert fighter(battle, "Bouncer").state.stun == fighter(battle, "Bouncer").state.physical == 0
    assert fighter(battle, "Runner").position == pytest.approx((18.01, 0))


@pytest.mark.parametrize(
    "bouncer_at, intercepted",
    [
        ((5, 1.0), True),  # exactly 1 m from the path
        ((5, 1.05), False),
        ((5, -0.3), True),
        ((18.5, 0.5), False),  # 0.7 m from where the runner stops, but not passed
        ((-1, 0.5), False),  # behind the runner's start
    ],
)
def test_interception_needs_the_path_to_pass_within_1_m(bouncer_at, intercepted):
    faces = [1, 1, 1] + ([2, 2, 2, 2, 2] if intercepted else [])  # a tie if intercepted
    _, result, roller = run_scripted(intercept_scenario(bouncer_at), faces)
    assert roller.left() == [], dump(result)
    assert bool(events(result, "attack", "Bouncer")) == intercepted


def test_an_interceptor_that_moved_this_turn_intercepts_at_tn_6():
    """The Bouncer, no weapon, acts first (5+1 = 6) and runs at the runner, stopping 1.99 m
    short; the runner (1+2 = 3) then runs at the Boss past the Bouncer."""
    bouncer = member("Bouncer", reaction=5, unarmed_combat=2, position=(5, 0.5))
    sc = intercept_scenario(bouncer=bouncer, runner_reaction=1)
    _, result, roller = run_scripted(sc, [2, 1, 1, 2, 2, 2, 2, 2])
    assert roller.left() == [], dump(result)
    kinds = [e.kind for e in events(result, actor="Bouncer") if e.kind != "initiative"]
    assert kinds[:3] == ["decide", "move", "attack"], dump(result)
    (roll,) = events(result, "roll", "Bouncer")
    assert roll.data["tn"] == 6


def test_knocking_out_the_last_enemy_by_interception_wins_the_battle():
    """As the first interception test, but the Bouncer and the Boss act first (and hold), so
    nobody acts after the interception that takes out side A's only fighter. Regression: no
    victory check followed such a knock-out, and the battle was scored a turn-limit draw."""
    battle, result, roller = run_scripted(
        intercept_scenario(runner_reaction=1), [1, 5, 5, 5, 5, 5, 5, 2, 2, 2]
    )
    assert roller.left() == []
    assert not fighter(battle, "Runner").can_act
    assert (result.winner, result.end_reason, result.turns) == ("B", VICTORY, 1), dump(result)


# ================================================================================================
# Target number modifiers (seed 002 Weapon Modifiers and Visibility tables)
# ================================================================================================


@pytest.mark.parametrize(
    "target_kw, environment, shooter_kw, tn, note",
    [
        ({"cover": "partial"}, {}, {}, 5, "partial cover +2"),
        ({"cover": "full"}, {}, {}, 7, "full cover +4"),
        ({}, {"visibility": "smoke"}, {}, 7, "visibility (smoke, normal vision) +4"),
        ({}, {"visibility": "smoke"}, {"vision": "thermographic"}, 5, "+2"),
        ({}, {"visibility": "full_darkness"}, {"vision": "low_light"}, 5, "+2"),
        ({"position": (60, 0)}, {}, {}, 4, "medium range 60.0 m: 5"),
        ({"position": (200, 0)}, {}, {}, 6, "long range 200.0 m: 7"),
        ({"position": (400, 0)}, {}, {}, 8, "extreme range 400.0 m: 9"),
    ],
)
def test_ranged_tn_modifiers(target_kw, environment, shooter_kw, tn, note):
    shooter = member("Shooter", reaction=5, firearms=1, weapons=["rifle"], **shooter_kw)
    target = sitting_target(**{"position": (20, 0), **target_kw})
    sc = duel(shooter, target, environment=environment)
    _, result, roller = run_scripted(sc, [1, 1, 2])
    assert roller.left() == []
    (attack,) = events(result, "attack", "Shooter")
    assert attack.data["tn"] == tn and note in attack.text, attack.text


def test_the_script_must_cover_every_face_the_battle_draws():
    """The scripted roller's own guard: a battle that needs more faces fails loudly."""
    with pytest.raises(ScriptExhausted):
        run_scripted(duel(ghost()), [1, 1, 3])
