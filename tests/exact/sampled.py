"""The outcome of one attack as sampled battles give it: the first attack of each battle.

``first_attacks`` runs real battles (``run_battle``, each its own stream) with the rule
system's attack watched: the first attack of the battle is recorded as an ``Outcome``, as the
exact answer describes one, and the battle stops there. A battle whose first attack is by
someone else is skipped: which fighter acts first is decided by initiative draws made before
any attack die, so keeping only the battles the attacker opens leaves its attack dice as fresh
as in any battle.
"""

from __future__ import annotations

import contextlib
from collections import Counter
from pathlib import Path

from combatsim.engine.battle import run_battle
from combatsim.exact.attack import Outcome
from combatsim.scenario import load_scenario


class _Stop(Exception):
    """Ends a battle once its first attack is recorded."""


def first_attacks(scenario, attacker: str, battles: int, seed: int = 1) -> Counter:
    """``Counter`` of ``Outcome`` over the battles ``attacker`` opens with an attack."""
    system = scenario.system
    seen: Counter = Counter()

    def watched(attack):
        def run(battle, a, t, *args, **kwargs):
            attack(battle, a, t, *args, **kwargs)
            if a.name == attacker:
                seen[Outcome.of(system, a, t)] += 1
            raise _Stop

        return run

    system.ranged_attack = watched(type(system).ranged_attack.__get__(system))
    system.melee_attack = watched(type(system).melee_attack.__get__(system))
    try:
        for index in range(battles):
            with contextlib.suppress(_Stop):
                run_battle(scenario, seed, index)
    finally:
        del system.ranged_attack, system.melee_attack
    return seen


def scenario_file(tmp_path: Path, text: str):
    path = tmp_path / "duel.yaml"
    path.write_text(text)
    return load_scenario(path)
