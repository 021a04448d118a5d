"""A fighter that fled has left the fight for good: harm that reaches it afterwards (a
teammate's grenade bursting where it ran to) must not bring it back (hypothesis found a fled
fighter acting again after a blast: ``damage_dealt`` read ``can_act`` from the rules alone)."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from combatsim.engine.battle import Battle
from combatsim.scenario import load_scenario

ROOT = Path(__file__).resolve().parents[2]


def test_a_fled_fighter_hurt_afterwards_stays_out_of_the_fight():
    scenario = load_scenario(ROOT / "scenarios" / "sr-firefight-4v4.yaml")
    b = Battle(scenario, np.random.default_rng(1))
    runner = b.fighters[0]
    runner.position = (5_000.0, 5_000.0)  # beyond the escape distance of every enemy
    b._check_escape(runner)
    assert runner.fled and not runner.can_act
    assert b.system.can_act(runner)  # unhurt: the rules alone would let it act
    layout = b.layout
    b.damage_dealt(None, runner, 0, "")
    assert not runner.can_act
    assert b.layout == layout  # nothing changed: no memo is made stale
