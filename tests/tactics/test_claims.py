"""Cover claims: a fighter walking to a cover point claims it, so its side spreads over the
cover; the claim goes when the claimant gives the point up (falls back, walks away from it,
leaves the fight), and the point is free for the others at once. Classic Shadowrun on
scripted faces: every face a 2 (Firearms 1: every shot misses, one action a turn).
"""

from __future__ import annotations

import math

from combatsim.engine.battle import Battle
from tests.engine.helpers import dump, fighter, scenario, sitting_target
from tests.tactics.helpers import decisions, gunner, run_scripted


class WoundedInTurnTwo(Battle):
    """Cov1 takes a Serious wound as its first action of turn 2 begins: badly hurt, it falls
    back (its harm 0.6 is past ``fall_back_at`` 0.5)."""

    def _start_action(self, f):
        if f.name == "Cov1" and self.turn == 2 and not f.damage_taken:
            self.system.wound(self, None, f, "S", False)
        return super()._start_action(f)


def claim_scenario(limit: int):
    """Cov1 (acts first) and Cov2 both take cover; the only cover point is 9 m off; the
    target stands within the smg's reach, so both fire every action."""
    cov1 = gunner("Cov1", reaction=5, tactics={"movement": "take_cover", "fall_back": True})
    cov2 = gunner("Cov2", position=(1, 0), tactics={"movement": "take_cover"})
    return scenario(
        {"A": [cov1, cov2], "B": [sitting_target(position=(100, 0))]},
        environment={
            "cover_points": [{"position": [0, 9], "cover": "partial"}],
            "escape_distance": 1000,
        },
        turn_limit=limit,
    )


def test_a_claimant_who_falls_back_frees_its_cover_point():
    """Turn 1: Cov1 walks toward the point and claims it; Cov2 fights where it stands. Turn
    2: Cov1, badly hurt, falls back; the point is free, and Cov2 walks to it and reaches it
    in turn 4. Regression: Cov1's claim outlived its flight and Cov2 fought in the open all
    battle."""
    battle, result, _ = run_scripted(claim_scenario(4), battle_type=WoundedInTurnTwo, then=2)
    kinds = [kind for _, kind, _ in decisions(result, "Cov1")]
    assert kinds[:2] == ["fire", "flee"], dump(result)
    cov2 = [(turn, reason) for turn, _, reason in decisions(result, "Cov2")]
    assert "after walking" not in cov2[0][1], cov2
    assert all("after walking" in reason for _, reason in cov2[1:]), dump(result)
    cov2 = fighter(battle, "Cov2")
    assert math.dist(cov2.position, (0, 9)) < 0.5 and cov2.cover == "partial", cov2.position
