"""Properties of whole battles, for random small scenarios (hypothesis).

The scenarios are drawn from a small inline catalogue (firearms with and without autofire,
flechette, melee weapons, Stun weapons, three kinds of grenade, two armors) with random
attributes, skills, positions, cover, environment, rules options and tactics, on both the d6
game and its D8 variant. Every battle runs traced on a ``CheckedBattle``, which checks the
fighters' state at every trace event, i.e. after every roll, wound, move and decision, not
only at the end:

* monitors stay within 0-10 boxes, overflow and Karma never go negative;
* pools stay within 0 and their size, ammunition within 0 and the weapon's load, armor within
  0 and its rating;
* a fighter out of the fight never decides or attacks; the turn never passes the limit.

And of the results: every battle ends by the turn limit with a consistent end reason and
winner; the same (scenario, seed, index) is the same battle, also from a scenario rebuilt from
the same data; battle ``i`` is the same whether run alone or after other battles.
"""

from __future__ import annotations

import copy
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from combatsim.engine.battle import Battle, run_battle
from combatsim.engine.records import MUTUAL, TURN_LIMIT, VICTORY
from combatsim.rng import battle_rng
from combatsim.scenario import build_scenario
from tests.helpers import examples

WEAPONS = {
    "pistol": {"kind": "firearm", "damage": "4M2", "ranges": [5, 20, 40, 60], "ammo": 6},
    "smg": {
        "kind": "firearm",
        "damage": "6M2",
        "ranges": [10, 40, 80, 150],
        "ammo": 8,
        "autofire": True,
        "recoil_compensation": 1,
    },
    "machine_pistol": {  # short reach: sweeps must stop at extreme range (a fixed crash)
        "kind": "firearm",
        "damage": "4M2",
        "ranges": [3, 6, 9, 12],
        "ammo": 10,
        "autofire": True,
    },
    "shotgun": {
        "kind": "firearm",
        "damage": "5S2",
        "ranges": [10, 20, 50, 100],
        "ammo": 2,
        "ammo_type": "flechette",
        "smartgun": True,
    },
    "rifle": {"kind": "firearm", "damage": "7S3", "ranges": [50, 150, 350, 550], "ammo": 3},
    "taser": {
        "kind": "firearm",
        "damage": "8S1",
        "ranges": [2, 3, 4, 6],
        "ammo": 1,
        "stun": True,
    },
    "club": {"kind": "melee", "damage": "STR+1M2"},
    "knife": {"kind": "melee", "damage": "STRL1"},
    "baton": {"kind": "melee", "damage": "5S2", "stun": True},
    "frag": {
        "kind": "grenade",
        "damage": "8S2",
        "ranges": [5, 10, 20, 40],
        "ammo": 2,
        "blast_falloff": 2,
    },
    "concussion": {
        "kind": "grenade",
        "damage": "6M1",
        "ranges": [5, 10, 20, 40],
        "ammo": 1,
        "blast_falloff": 1,
        "aerodynamic": True,
        "stun": True,
    },
    "launcher": {
        "kind": "grenade",
        "damage": "10D2",
        "ranges": [20, 40, 80, 150],
        "ammo": 1,
        "blast_falloff": 3,
        "launcher": True,
    },
}
ARMOR = {"vest": {"ballistic": 2, "impact": 1}, "jacket": {"ballistic": 4, "impact": 3}}

small = st.integers(1, 6)
coord = st.floats(-15, 15, allow_nan=False).map(lambda x: round(x, 1))


@st.composite
def members(draw, side: str, count: int):
    out = []
    for i in range(count):
        out.append(
            {
                "name": f"{side}{i}",
                "attributes": {
                    "body": draw(small),
                    "quickness": draw(small),
                    "strength": draw(small),
                    "reaction": draw(st.integers(1, 10)),
                },
                "skills": {
                    "firearms": draw(st.integers(0, 6)),
                    "armed_combat": draw(st.integers(0, 4)),
                    "unarmed_combat": draw(st.integers(0, 4)),
                    "throwing": draw(st.integers(0, 4)),
                },
                "initiative_dice": draw(st.integers(1, 3)),
                "vision": draw(st.sampled_from(["normal", "low_light", "thermographic"])),
                "smartlink": draw(st.booleans()),
                "karma": draw(st.integers(0, 6)),
                "weapons": draw(
                    st.lists(st.sampled_from(sorted(WEAPONS)), max_size=3, unique=True)
                ),
                "armor": draw(st.sampled_from([None, "vest", "jacket"])),
                "position": [draw(coord), draw(coord)],
                "cover": draw(st.sampled_from(["none", "none", "partial", "full", "hidden"])),
                "tactics": draw(tactics()),
            }
        )
    return out


@st.composite
def tactics(draw):
    out = {
        "target": draw(
            st.sampled_from(["nearest", "weakest", "most_dangerous", "focus", "random"])
        ),
        "fire_mode": draw(st.sampled_from(["single", "autofire"])),
        "dodge": draw(st.sampled_from(["none", "match", "half", "all"])),
        "movement": draw(st.sampled_from(["hold", "advance", "keep_range", "take_cover"])),
        "preferred_range": draw(st.sampled_from([0, 2, 5, 10, 20])),
        "fall_back": draw(st.booleans()),
        "fall_back_at": draw(st.sampled_from([0.2, 0.5, 1.0])),
        "sweep": draw(st.booleans()),
        "grenades": draw(st.sampled_from(["never", "clustered", "always"])),
        "grenade_min_targets": draw(st.integers(1, 2)),
        "karma": draw(st.sampled_from(["never", "survive", "attack", "both"])),
        "reload_below": draw(st.integers(1, 3)),
    }
    if draw(st.booleans()):
        out["autofire_rounds"] = draw(st.integers(2, 5))
    return out


@st.composite
def scenarios(draw):
    system = draw(st.sampled_from(["sr-classic", "sr-d8"]))
    options = {
        "fumble_effect": draw(st.sampled_from(["lose_action", "none"])),
        "initiative_passes": draw(st.sampled_from(["minus7", "minus10"])),
        "wound_modifiers": draw(st.booleans()),
        "instant_karma": draw(st.booleans()),
        "grenade_flight": draw(st.sampled_from([0, 0, 5])),
    }
    if system == "sr-d8":
        options["tn_cap"] = draw(st.booleans())
        options["initiative_rule_of_seven"] = draw(st.booleans())
    n_sides = draw(st.sampled_from([2, 2, 2, 3]))
    sides = []
    for s in range(n_sides):
        name = "ABC"[s]
        sides.append({"name": name, "members": draw(members(name, draw(st.integers(1, 3))))})
    return {
        "name": "random",
        "rules": {"system": system, "options": options},
        "weapons": WEAPONS,
        "armor": ARMOR,
        "environment": {
            "visibility": draw(
                st.sampled_from(["normal", "full_darkness", "glare", "mist", "smoke"])
            ),
            "ground": draw(st.sampled_from(["normal", "difficult"])),
            "melee_range": draw(st.sampled_from([1.0, 2.0, 3.0])),
            "escape_distance": draw(st.sampled_from([10.0, 40.0])),
            "cover_points": [
                {
                    "position": [draw(coord), draw(coord)],
                    "cover": draw(st.sampled_from(["partial", "full"])),
                }
                for _ in range(draw(st.integers(0, 2)))
            ],
        },
        "sides": sides,
        "turn_limit": draw(st.integers(1, 10)),
    }


def build(data):
    data = copy.deepcopy(data)
    for side in data["sides"]:  # reload_below above a magazine is refused: keep it within
        for m in side["members"]:
            guns = [WEAPONS[w] for w in m.get("weapons", []) if WEAPONS[w]["kind"] == "firearm"]
            wanted = {**side.get("tactics", {}), **m.get("tactics", {})}.get("reload_below", 1)
            if guns and wanted > guns[0]["ammo"]:
                m.setdefault("tactics", {})["reload_below"] = guns[0]["ammo"]
    return build_scenario(data, "<hypothesis>", Path("."))


class CheckedBattle(Battle):
    """A battle that checks every fighter's state at every trace event."""

    def trace(self, kind, text, actor=None, **data):
        super().trace(kind, text, actor, **data)
        assert 0 <= self.turn <= self.scenario.turn_limit
        if kind in ("decide", "attack") and actor is not None:
            assert actor.can_act, f"{actor.name} is out of the fight but {kind}s: {text}"
        for f in self.fighters:
            # A wound is traced before the engine updates the victim's can_act.
            check_fighter(self, f, settled=not (kind == "damage" and f is actor))


def check_fighter(battle: Battle, f, settled: bool = True) -> None:
    st_, sheet = f.state, f.spec.sheet
    where = f"{f.name} in turn {battle.turn}: {st_}"
    assert 0 <= st_.physical <= 10 and 0 <= st_.stun <= 10, where
    assert st_.overflow >= 0 and (st_.overflow == 0 or st_.physical == 10), where
    assert 0 <= st_.dodge <= sheet.dodge_pool, where
    assert 0 <= st_.defense <= sheet.defense_pool, where
    assert 0 <= st_.karma <= sheet.karma and st_.karma_spent >= 0, where
    armor = f.spec.armor
    assert 0 <= st_.ballistic <= (armor.ballistic if armor else 0), where
    assert 0 <= st_.impact <= (armor.impact if armor else 0), where
    for ammo, weapon in zip(f.ammo, f.spec.weapons, strict=True):
        assert 0 <= ammo <= (weapon.ammo or 0), f"{f.name}: ammo {f.ammo}"
    if settled:  # out of the fight: down by the rules, or fled
        assert f.can_act == (battle.system.can_act(f) and not f.fled), where


def run_checked(sc, seed: int, index: int):
    battle = CheckedBattle(sc, battle_rng(seed, index), index=index, trace=True)
    result = battle.run()
    for f in battle.fighters:
        check_fighter(battle, f)
    return battle, result


SETTINGS = settings(
    max_examples=examples(60), deadline=None, suppress_health_check=[HealthCheck.too_slow]
)


@pytest.mark.slow  # fuzz: hypothesis-made whole battles
@SETTINGS
@given(data=scenarios(), seed=st.integers(0, 2**32 - 1), index=st.integers(0, 1000))
def test_every_battle_ends_within_the_turn_limit_with_state_in_bounds(data, seed, index):
    sc = build(data)
    battle, result = run_checked(sc, seed, index)
    assert 1 <= result.turns <= sc.turn_limit
    standing = {f.side for f in battle.fighters if f.can_act}
    assert result.end_reason in (VICTORY, TURN_LIMIT, MUTUAL)
    if result.end_reason == VICTORY:
        assert standing == {result.winner}
    elif result.end_reason == MUTUAL:
        assert standing == set() and result.winner is None
    else:
        assert result.turns == sc.turn_limit and result.winner is None
        assert len(standing) >= 2
    assert result.battle["winner"] == (result.winner or "draw")
    for side in sc.sides:
        survivors = sum(1 for f in battle.fighters if f.side == side.name and f.can_act)
        assert result.battle[f"survivors_{side.name}"] == survivors
    for row, f in zip(result.combatants, battle.fighters, strict=True):
        assert row["standing"] == f.can_act
        assert (row["knocked_out_turn"] is None) == f.can_act


@pytest.mark.slow  # fuzz: hypothesis-made whole battles
@SETTINGS
@given(data=scenarios(), seed=st.integers(0, 2**32 - 1), index=st.integers(0, 1000))
def test_the_same_seed_and_index_replay_the_same_battle(data, seed, index):
    sc = build(data)
    first = run_battle(sc, seed, index, trace=True)
    again = run_battle(sc, seed, index, trace=True)
    rebuilt = run_battle(build(data), seed, index, trace=True)
    for other in (again, rebuilt):
        assert other.battle == first.battle
        assert other.combatants == first.combatants
        assert other.trace == first.trace


@pytest.mark.slow  # fuzz: hypothesis-made whole battles
@SETTINGS
@given(data=scenarios(), seed=st.integers(0, 2**32 - 1), index=st.integers(0, 5))
def test_a_battle_is_the_same_alone_or_after_other_battles(data, seed, index):
    sc = build(data)
    alone = run_battle(build(data), seed, index, trace=True)
    for other in range(6):
        if other != index:
            run_battle(sc, seed, other)
    after = run_battle(sc, seed, index, trace=True)
    assert (after.battle, after.combatants, after.trace) == (
        alone.battle,
        alone.combatants,
        alone.trace,
    )
