"""The engine and rule fixes of issue 24 that the tactics rest on, as behaviour.

Cover from cover points (a fighter placed on one has its cover; the fallen hold none), where a
runner knocked out by an interception lies and the order interceptions happen in, unarmed
fighters attacking after running, Shadowrun: 2097's run being the turn's only action, Instant
Karma's ``survive`` spending nothing on a wound that drops the fighter anyway, and
``reload_below`` above the magazine refused. Classic Shadowrun on scripted d6 faces unless
said otherwise (see ``tests/engine/helpers.py``).
"""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from combatsim.engine.battle import Battle
from combatsim.errors import ScenarioError
from combatsim.scenario import load_scenario
from tests.engine.helpers import WEAPONS, dump, events, fighter, member, scenario, sitting_target
from tests.engine.test_sr2097_system import build as build_2097
from tests.engine.test_sr2097_system import d6, fighter_entry, play, target_entry
from tests.tactics.helpers import after_each_turn, decisions, gunner, run_scripted

# ================================================================================================
# Cover from cover points
# ================================================================================================


@pytest.mark.parametrize("cover, tn, note", [("partial", 5, "partial cover +2"), ("full", 7, "+4")])
def test_a_fighter_placed_on_a_cover_point_has_its_cover_from_the_start(cover, tn, note):
    """The target stands on a cover point and its sheet says nothing of cover: it has the
    point's cover, and the first shot at it (short range 4, standing still -1) pays for it.
    Regression: it had none until it moved."""
    shooter = member("Shooter", reaction=5, firearms=1, weapons=["rifle"])
    sc = scenario(
        {"A": [shooter], "B": [sitting_target(position=(20, 0))]},
        environment={"cover_points": [{"position": [20.2, 0], "cover": cover}]},
    )
    _, result, roller = run_scripted(sc, [1, 1, 2])
    assert roller.left() == []
    (attack,) = events(result, "attack", "Shooter")
    assert attack.data["tn"] == tn and note in attack.text, attack.text
    assert fighter(Battle(sc, rng=None), "Target").cover == cover


def test_a_fallen_fighter_holds_no_cover_point():
    """E1 stands on the nearer cover point (partial, 4 m off), so in turn 1 the fighter heads
    for the other (full, 9 m off) and shoots E1 down on the way (six 6s re-rolled to 7 at TN 6,
    E1 being in partial cover: M staged up 2 to D; Body 1 fails). E1's point is free then, and
    nearer (5 m against 6): the fighter goes there and has its cover in turn 3, though E1's
    body lies on it. Regression: a fallen fighter kept its cover point taken."""

    def make(limit):
        cov = gunner("Cov", firearms=6, tactics={"movement": "take_cover"})
        enemies = [
            sitting_target("E1", body=1, position=(4, 0)),
            sitting_target("Far", position=(300, 0)),
        ]
        points = [{"position": [4, 0], "cover": "partial"}, {"position": [0, -9], "cover": "full"}]
        return scenario(
            {"A": [cov], "B": enemies}, environment={"cover_points": points}, turn_limit=limit
        )

    faces = [1, 1, 1] + [6] * 6 + [1] * 6 + [2]
    states = after_each_turn(make, 4, "Cov", faces=faces, then=2)
    assert states == [
        ((0, -3), "none"),
        ((2.4, -1.2), "none"),
        ((4, 0), "partial"),
        ((4, 0), "partial"),
    ]
    battle, result, _ = run_scripted(make(1), faces, then=2)
    assert not fighter(battle, "E1").can_act, dump(result)


# ================================================================================================
# Interception (seed 002): where the intercepted lie, in which order interceptors strike
# ================================================================================================


def runner_past(bouncers):
    """The runner (Quickness 5: runs 20 m) runs at the Boss, the more dangerous enemy, 20 m
    down the x axis, past the bouncers (Unarmed Combat 2: 4 dice with the Defense Pool), who
    stand beyond its reach this action (2 m + its 5 m walk)."""
    runner = member("Runner", reaction=5, quickness=5, body=2, tactics={"target": "most_dangerous"})
    bouncers = [sitting_target(n, unarmed_combat=2, position=p) for n, p in bouncers]
    boss = member(  # never acts (the toy gun comes first), but its rifle makes it a threat
        "Boss",
        weapons=["toy", "rifle"],
        firearms=6,
        position=(20, 0),
        tactics={"dodge": "none", "movement": "hold"},
    )
    return scenario({"A": [runner], "B": [*bouncers, boss]})


def test_a_runner_knocked_out_by_an_interception_lies_where_it_was_stopped():
    """The Bouncer's 4 successes against none stage (3)M1 Stun up to D: the runner is out
    where its path passed the Bouncer, (8, 0), not where its run would have ended (18.01, 0).
    Regression: it lay at the end of its run, 2 m from the Boss."""
    sc = runner_past([("Bouncer", (8, 0.5))])
    battle, result, roller = run_scripted(sc, [1, 1, 1, 5, 5, 5, 5, 2, 2, 2])
    assert roller.left() == []
    runner = fighter(battle, "Runner")
    assert not runner.can_act and runner.position == pytest.approx((8, 0)), dump(result)
    assert "Runner falls where it was stopped, at (8.0, 0.0)" in [
        e.text for e in events(result, "move", "Runner")
    ]


def test_interceptions_happen_in_the_order_the_path_passes_the_interceptors():
    """B1 comes first in the scenario but stands farther along the path than B2: B2 strikes
    first. Both miss and the runner reaches the end of its run (its one Defense Pool die
    spent on the first)."""
    sc = runner_past([("B1", (12, 0.5)), ("B2", (8, -0.5))])
    battle, result, roller = run_scripted(sc, [1, 1, 1, 1] + [2] * 9)
    assert roller.left() == []
    assert [e.actor for e in events(result, "attack")] == ["B2", "B1"], dump(result)
    assert fighter(battle, "Runner").position == pytest.approx((18.01, 0))


# ================================================================================================
# Unarmed fighters after running; Shadowrun: 2097 running
# ================================================================================================


def test_an_unarmed_fighter_attacks_after_running():
    """Reaction 10 + 6 = 16: actions at 16 and 9. 10 m off, the brawler runs into reach (the
    run stops at 1.99 m) with its first action and strikes with its second: running stops
    shooting and throwing only. Regression: it stood idle, "cannot shoot"."""
    brawler = member("Brawler", reaction=10, unarmed_combat=1)
    sc = scenario({"A": [brawler], "B": [sitting_target(position=(10, 0))]})
    battle, result, _ = run_scripted(sc, [6, 1], then=2)
    assert decisions(result, "Brawler") == [
        (1, "run", "runs at Target (nearest)"),
        (1, "melee", "in reach of Target (nearest)"),
    ], dump(result)
    (attack,) = events(result, "attack", "Brawler")
    assert attack.score == 9 and "Brawler attacks Target in melee" in attack.text


def test_in_sr2097_running_is_the_turns_only_action():
    """Reflexes 6 + 6 = 12: actions at 12 and 2. The target (200 m) is out of the pistol's
    50 m even after a walk: the fighter runs with its first action, and that is its turn.
    Regression: it acted again at 2 (and, having run, could not shoot)."""
    runner = fighter_entry(
        "Runner",
        attributes={"reflexes": 6},
        initiative_dice=1,
        weapons=["light_pistol"],
        skills={"firearms": 4},
        tactics={"movement": "advance"},
    )
    battle, result = play(build_2097(runner, target_entry(position=(200, 0))), d6(6))
    decides = [e for e in events(result, "decide", "Runner")]
    assert [e.data["plan"] for e in decides] == ["run"], dump(result)
    assert "Runner ran: no more actions this turn" in [e.text for e in events(result, "action")]
    assert fighter(battle, "Runner").position == (15, 0)  # the seed's default run


# ================================================================================================
# Instant Karma: survive (ruling 11)
# ================================================================================================


def karma_target(karma: int):
    """A target with 5 Physical boxes and ``karma`` Instant Karma (policy survive)."""
    sc = scenario(
        {"A": [gunner()], "B": [sitting_target(karma=karma, position=(20, 0))]},
        options={"instant_karma": True},
    )
    battle = Battle(sc, rng=None, trace=True)
    target = fighter(battle, "Target")
    target.state.physical = 5
    return battle, target


@pytest.mark.parametrize(
    "karma, spent, physical, standing",
    [
        # a D wound (staging 2, no defence successes) drops it; S (2 successes, 4 Karma) too:
        # only M (4 successes, 8 Karma) keeps it in the fight
        (4, 0, 10, False),  # cannot buy enough: spends nothing. Regression: spent 4, still fell
        (7, 0, 10, False),
        (8, 8, 8, True),
        (11, 8, 8, True),
    ],
)
def test_survive_karma_is_spent_only_when_it_keeps_the_fighter_in_the_fight(
    karma, spent, physical, standing
):
    battle, target = karma_target(karma)
    battle.system.apply_attack(battle, None, target, "D", 2, 1, 0, "ballistic", "", False)
    st = target.state
    assert (st.karma_spent, st.karma, st.physical) == (spent, karma - spent, physical)
    assert target.can_act == standing


# ================================================================================================
# reload_below
# ================================================================================================


def write_scenario(tmp_path: Path, member_tactics: dict, side_tactics: dict) -> Path:
    data = {
        "name": "reload",
        "rules": {"system": "sr-classic"},
        "weapons": {"smg": WEAPONS["smg"]},  # 30 rounds
        "sides": [
            {
                "name": "A",
                "tactics": side_tactics,
                "members": [member("Gunner", weapons=["smg"], tactics=member_tactics)],
            },
            {"name": "B", "members": [member("Other", position=[20, 0])]},
        ],
    }
    path = tmp_path / "reload.yaml"
    path.write_text(yaml.safe_dump(data, sort_keys=False))
    return path


@pytest.mark.parametrize(
    "member_tactics, side_tactics, where",
    [
        ({"reload_below": 31}, {}, "sides[0].members[0].tactics.reload_below"),
        ({}, {"reload_below": 40}, "sides[0].tactics.reload_below"),
    ],
)
def test_reload_below_above_the_magazine_is_refused_in_one_line(
    tmp_path, member_tactics, side_tactics, where
):
    """Regression: accepted, and the fighter reloaded after every action for ever."""
    path = write_scenario(tmp_path, member_tactics, side_tactics)
    with pytest.raises(ScenarioError) as caught:
        load_scenario(path)
    text = str(caught.value)
    assert "\n" not in text and where in text, text
    assert "at most 30" in text and "smg" in text, text
    assert text.startswith(f"{path}:"), text  # with the line number


def test_reload_below_equal_to_the_magazine_is_accepted(tmp_path):
    load_scenario(write_scenario(tmp_path, {"reload_below": 30}, {}))
