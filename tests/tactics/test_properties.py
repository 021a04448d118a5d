"""Properties of the tactics over random small maps (hypothesis, classic Shadowrun).

Random positions, cover points, weapons of several reaches, movement and target policies; real
dice from a random seed. Every battle runs on a ``ReasonChecked`` battle, which checks at each
decision (a ``decide`` trace event) and each held action, in the state of that moment, that

* a fighter with a gun never holds fire while a standing enemy is within its gun's reach
  (unless its tactics say ``target_in_reach: false``, the option that chooses targets among
  all enemies), a take_cover fighter walking to cover checked where it stops to hold;
* every reason is true: "no enemy within X m" (X the gun's reach, and no standing enemy within
  it), "T ... is out of range" (T beyond the gun's reach), "no free cover within X m" (none is),
  "ran this turn" (it ran), "in reach of T" (T within melee range).

And a take_cover fighter among enemies that never attack (they hold toy guns), with a free
cover point to go to, is in cover within ceil(distance / walk) + 1 turns and stays there.
"""

from __future__ import annotations

import math
import re

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from combatsim.engine.battle import Battle
from combatsim.engine.records import TURN_LIMIT
from combatsim.rng import battle_rng
from tests.engine.helpers import member, scenario, sitting_target
from tests.helpers import examples

GUNS = {
    "pistol": {"kind": "firearm", "damage": "4M2", "ranges": [5, 20, 40, 60], "ammo": 6},
    "smg": {
        "kind": "firearm",
        "damage": "6M2",
        "ranges": [10, 40, 80, 150],
        "ammo": 8,
        "autofire": True,
    },
    "stubby": {"kind": "firearm", "damage": "5M2", "ranges": [2, 4, 6, 8], "ammo": 3},
    "bat": {"kind": "melee", "damage": "STR+1M2"},
}
POLICIES = ["nearest", "weakest", "most_dangerous", "focus", "random"]
MOVEMENTS = ["hold", "advance", "keep_range", "take_cover"]

coord = st.integers(-25, 25).map(float)
position = st.tuples(coord, coord)


@st.composite
def fighters(draw, side: str):
    out = []
    for i in range(draw(st.integers(1, 3))):
        if draw(st.integers(0, 3)) == 0:  # now and then one that never moves nor shoots
            skill = draw(st.integers(0, 4))  # (its threat: skill x its toy gun)
            out.append(sitting_target(f"{side}{i}", position=draw(position), firearms=skill))
            continue
        gun = draw(st.sampled_from([None, "pistol", "smg", "stubby", "stubby"]))
        weapons = [w for w in (gun, "bat" if draw(st.booleans()) else None) if w]
        tactics = {
            "movement": draw(st.sampled_from(MOVEMENTS)),
            "target": draw(st.sampled_from(POLICIES)),
            "preferred_range": draw(st.sampled_from([0, 5, 10, 30, 200])),
            "fire_mode": draw(st.sampled_from(["single", "autofire"])),
            "fall_back": draw(st.booleans()),
        }
        if draw(st.integers(0, 3)) == 0:  # now and then targets chosen among all enemies
            tactics["target_in_reach"] = False
        out.append(
            member(
                f"{side}{i}",
                quickness=draw(st.integers(1, 6)),
                reaction=draw(st.integers(1, 10)),
                firearms=draw(st.integers(1, 4)),
                armed_combat=draw(st.integers(0, 3)),
                unarmed_combat=draw(st.integers(0, 3)),
                position=draw(position),
                weapons=weapons,
                tactics=tactics,
            )
        )
    return out


def covers(draw, most=3):
    return [
        {"position": list(draw(position)), "cover": draw(st.sampled_from(["partial", "full"]))}
        for _ in range(draw(st.integers(0, most)))
    ]


@st.composite
def battles(draw):
    return scenario(
        {"A": draw(fighters("A")), "B": draw(fighters("B"))},
        weapons=GUNS,
        environment={"cover_points": covers(draw)},
        options={"fumble_effect": draw(st.sampled_from(["lose_action", "none"]))},
        turn_limit=draw(st.integers(1, 4)),
    )


def in_reach_first(f) -> bool:
    """Does the fighter choose its targets among the enemies in reach first (the default)?"""
    return getattr(f.tactics, "target_in_reach", True)


class ReasonChecked(Battle):
    """Checks each decision's reason, and each held action, against the battle's state."""

    def within(self, f, reach: float, at=None) -> list:
        at = f.position if at is None else at
        return [e for e in self.standing_enemies(f) if math.dist(at, e.position) <= reach]

    def by_name(self, name: str):
        return next(x for x in self.fighters if x.name == name)

    def trace(self, kind, text, actor=None, **data):
        super().trace(kind, text, actor, **data)
        if kind == "decide":
            self.check_decision(actor, data["plan"], text.split(" - ", 1)[1])

    def check_decision(self, f, plan: str, reason: str) -> None:
        where = f"{f.name} in turn {self.turn} at {f.position}: {plan} - {reason}"
        walking_to_cover = "toward cover" in reason
        # (a fighter walking to cover is checked where it stops to hold: ``_hold``)
        if plan == "hold" and f.firearm is not None and in_reach_first(f):
            assert walking_to_cover or not self.within(f, f.firearm_range), where
        m = re.match(r"no enemy within (\S+) m", reason)
        if m:
            assert float(m.group(1)) == float(f"{f.firearm_range:g}"), where
            if not walking_to_cover:
                assert not self.within(f, f.firearm_range), where
        m = re.search(r"(?:^|: )(\S+) \(\w+\) is out of range", reason)
        if m:
            target = self.by_name(m.group(1))
            assert math.dist(f.position, target.position) > f.firearm_range, where
        m = re.match(r"no free cover within (\S+) m", reason)
        if m:
            assert float(m.group(1)) == f.tactics.cover_within, where
            assert self.free_cover_point(f, f.tactics.cover_within) is None, where
        if reason.startswith("ran this turn"):
            assert f.ran_this_turn, where
        m = re.match(r"ran this turn: (\S+) \(\w+\) is out of reach", reason)
        if m:
            target = self.by_name(m.group(1))
            assert math.dist(f.position, target.position) > self.melee_range, where
        m = re.match(r"in reach of (\S+) \(", reason)
        if m:
            target = self.by_name(m.group(1))
            assert math.dist(f.position, target.position) <= self.melee_range, where

    def _hold(self, f, plan, ends):
        if f.can_act and in_reach_first(f):
            assert not self.within(f, plan.weapon.max_range), (
                f"{f.name} holds fire in turn {self.turn} at {f.position} with an enemy "
                f"within {plan.weapon.max_range} m"
            )
        return (yield from super()._hold(f, plan, ends))


SETTINGS = settings(
    max_examples=examples(60), deadline=None, suppress_health_check=[HealthCheck.too_slow]
)


@SETTINGS
@given(sc=battles(), seed=st.integers(0, 2**32 - 1))
def test_no_gun_holds_fire_with_an_enemy_in_reach_and_every_reason_is_true(sc, seed):
    ReasonChecked(sc, battle_rng(seed, 0), trace=True).run()


# --- take_cover reaches cover and stays ------------------------------------------------------


class TurnEnds(ReasonChecked):
    """Also keeps one fighter's (position, cover, standing) at the end of each turn."""

    def __init__(self, *a, watch: str = "Cov", **kw):
        super().__init__(*a, **kw)
        self.watched = self.by_name(watch)
        self.ends: list[tuple] = []

    def trace(self, kind, text, actor=None, **data):
        if len(self.ends) < self.turn - 1:  # the first event of a turn: the last one is over
            self.turn_ended()
        super().trace(kind, text, actor, **data)

    def turn_ended(self) -> None:
        f = self.watched
        self.ends.append((f.position, f.cover, f.can_act))


@st.composite
def cover_walks(draw):
    """``Cov`` (take_cover, a gun) and up to three enemies that never attack; cover points."""
    gun = draw(st.sampled_from(["pistol", "smg", "stubby"]))
    cov = member(
        "Cov",
        quickness=draw(st.integers(1, 6)),
        reaction=draw(st.integers(1, 12)),
        firearms=draw(st.integers(1, 4)),
        weapons=[gun],
        tactics={
            "movement": "take_cover",
            "target": draw(st.sampled_from(POLICIES)),
            "fire_mode": draw(st.sampled_from(["single", "autofire"])),
        },
    )
    enemies = [
        sitting_target(f"B{i}", position=draw(position)) for i in range(draw(st.integers(1, 3)))
    ]
    points = covers(draw, most=4)
    return scenario(
        {"A": [cov], "B": enemies},
        weapons=GUNS,
        environment={"cover_points": points},
        options={"fumble_effect": "none"},  # a lost action would be a lost walk
        turn_limit=draw(st.integers(1, 12)),
    )


@SETTINGS
@given(sc=cover_walks(), seed=st.integers(0, 2**32 - 1))
def test_take_cover_reaches_free_cover_within_its_walks_and_stays(sc, seed):
    battle = TurnEnds(sc, battle_rng(seed, 0), trace=True)
    cov = battle.by_name("Cov")
    start = battle.free_cover_point(cov, cov.tactics.cover_within)
    distance = math.dist(cov.position, start.position) if start is not None else None
    result = battle.run()
    if result.end_reason == TURN_LIMIT:
        battle.turn_ended()
    ends = battle.ends
    if start is None or any("intercepts Cov" in e.text for e in result.trace):
        return  # no cover to go to, or stopped on the way: nothing promised
    bound = math.ceil(distance / cov.walk - 1e-9) + 1
    settled = None
    for turn, (at, cover, standing) in enumerate(ends, start=1):
        if not standing:
            break
        if turn >= bound:
            assert cover != "none", (turn, bound, distance, cov.walk, ends)
        if settled is not None:
            assert at == settled and cover != "none", (turn, ends)  # stays in cover
        elif cover != "none":
            settled = at
