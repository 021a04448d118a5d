"""Coin flips: a rule system small enough to read in one sitting.

Every attack flips a coin: heads hits and takes one point of health; a fighter at 0 is out.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Literal

from pydantic import BaseModel, Field

from combatsim.bounds import STRICT
from combatsim.rules.base import Battle, Fighter, RuleSystem


class CoinOptions(BaseModel):
    """``rules.options``: how many sides the coin has (one of them hits)."""

    model_config = STRICT
    coin_sides: int = Field(2, ge=2, le=20)


class CoinSheet(BaseModel):
    """A combatant: health, speed, walk; the weapons and armor it names."""

    model_config = STRICT
    health: int = Field(ge=1, le=100)
    speed: int = Field(0, ge=0, le=6, description="added to the d6 of initiative")
    move: float = Field(5.0, ge=0, le=100, description="meters walked with an action")
    weapons: tuple[str, ...] = ()
    armor: str | None = None


class CoinWeapon(BaseModel):
    model_config = STRICT
    kind: Literal["firearm", "melee", "grenade"]
    max_range: float | None = Field(None, gt=0, le=1000)
    ammo: int | None = Field(None, ge=1, le=100)
    can_autofire: bool = False


class CoinArmor(BaseModel):
    model_config = STRICT


@dataclass
class State:
    health: int


class CoinFlips(RuleSystem):
    name = "coin-flips"
    Options = CoinOptions
    Sheet = CoinSheet
    Weapon = CoinWeapon
    Armor = CoinArmor
    initiative_top = 12  # speed + 1d6
    options: CoinOptions  # the scenario's rules.options, validated

    def new_state(self, fighter: Fighter) -> State:
        return State(fighter.spec.sheet.health)

    def initiative(self, battle: Battle, fighter: Fighter) -> list[int]:
        return [fighter.spec.sheet.speed + battle.roll.d(6, 1)[0]]

    def can_act(self, fighter: Fighter) -> bool:
        return fighter.state.health > 0

    def status(self, fighter: Fighter) -> str:
        return "up" if fighter.state.health > 0 else "down"

    def movement(self, fighter: Fighter) -> tuple[float, float]:
        walk = fighter.spec.sheet.move
        return walk, 2 * walk

    def threat(self, fighter: Fighter) -> float:
        return 1.0

    def harm(self, fighter: Fighter) -> float:
        return 1 - fighter.state.health / fighter.spec.sheet.health

    def ranged_attack(
        self,
        battle: Battle,
        attacker: Fighter,
        target: Fighter,
        weapon: Any,
        shots: int,
        sweep: Sequence[tuple[Fighter, int]] = (),
    ) -> None:
        self._flip(battle, attacker, target)

    def melee_attack(
        self,
        battle: Battle,
        attacker: Fighter,
        target: Fighter,
        weapon: Any,
        interception: bool = False,
    ) -> None:
        self._flip(battle, attacker, target)

    def _flip(self, battle: Battle, attacker: Fighter, target: Fighter) -> None:
        attacker.shots += 1
        if battle.roll.d(self.options.coin_sides, 1)[0] == 1:
            attacker.hits += 1
            target.state.health -= 1
            battle.damage_dealt(attacker, target, 1, "coin-flip hit" if battle.tracing else "")
