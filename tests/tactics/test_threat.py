"""Threat (``most_dangerous``) counts what a fighter can do with its bare hands, not only the
weapons on its sheet, in every rule system: an unarmed troll is the most dangerous enemy."""

from __future__ import annotations

import pytest

from combatsim.engine.battle import Battle
from combatsim.rng import battle_rng
from combatsim.sweeps.fields import set_fields
from tests.engine.helpers import dump, member, scenario
from tests.tactics.helpers import decisions, gunner, run_scripted, shots_at

UNARMED = ["sides[0].members[0].weapons=[]"]


@pytest.mark.parametrize(
    "path",
    [
        "scenarios/sr-bar-brawl.yaml",
        "scenarios/sr2097-runners-vs-patrol.yaml",
        "scenarios/lost-souls-junkyard-dogs.yaml",
        "scenarios/4d8-temple-guardians.yaml",
    ],
)
def test_a_fighter_with_no_weapon_is_still_a_threat_in_every_system(path):
    """The first member stripped of its weapons scores its bare hands: above nothing, and no
    more than with its weapons (bare hands stay among what it can do). Regression: 0."""
    armed = Battle(set_fields(path, []).scenario, battle_rng(1, 0))
    bare = Battle(set_fields(path, UNARMED).scenario, battle_rng(1, 0))
    with_weapons = armed.system.threat(armed.fighters[0])
    without = bare.system.threat(bare.fighters[0])
    assert 0 < without <= with_weapons


def test_most_dangerous_shoots_the_unarmed_troll_before_a_gunman():
    """Classic Shadowrun: the troll (Strength 8, Unarmed Combat 5: 5 x (8 + 2 for M) = 50)
    and a ganger with a rifle and Firearms 2 (2 x (4 + 2) = 12), both within the smg's reach:
    the gunner shoots the troll. Regression: bare hands counted for nothing."""
    troll = member("Troll", strength=8, unarmed_combat=5, position=(140, 0))
    ganger = member(
        "Ganger", weapons=["toy", "rifle"], firearms=2, position=(30, 0), tactics={"dodge": "none"}
    )
    gun = gunner("Gunner", reaction=5, tactics={"target": "most_dangerous"})
    sc = scenario({"A": [gun], "B": [troll, ganger]})
    _, result, _ = run_scripted(sc, then=2)
    assert decisions(result, "Gunner")[0][2] == "single shot at Troll (most_dangerous)", dump(
        result
    )
    assert shots_at(result, "Gunner") == [(1, "Gunner", "Troll")]
