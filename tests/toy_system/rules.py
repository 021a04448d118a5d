"""Coin flips: a rule system small enough to read in one sitting.

Every attack flips a coin: heads hits and takes one point of health; a fighter at 0 is out.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from pydantic import BaseModel, Field

from combatsim.bounds import STRICT
from combatsim.rules.base import RuleSystem


class Options(BaseModel):
    """``rules.options``: how many sides the coin has (one of them hits)."""

    model_config = STRICT
    coin_sides: int = Field(2, ge=2, le=20)


class Sheet(BaseModel):
    """A combatant: health, speed, walk; the weapons and armor it names."""

    model_config = STRICT
    health: int = Field(ge=1, le=100)
    speed: int = Field(0, ge=0, le=6, description="added to the d6 of initiative")
    move: float = Field(5.0, ge=0, le=100, description="meters walked with an action")
    weapons: tuple[str, ...] = ()
    armor: str | None = None


class Weapon(BaseModel):
    model_config = STRICT
    kind: Literal["firearm", "melee", "grenade"]
    max_range: float | None = Field(None, gt=0, le=1000)
    ammo: int | None = Field(None, ge=1, le=100)
    can_autofire: bool = False


class Armor(BaseModel):
    model_config = STRICT


@dataclass
class State:
    health: int


class CoinFlips(RuleSystem):
    name = "coin-flips"
    Options = Options
    Sheet = Sheet
    Weapon = Weapon
    Armor = Armor
    initiative_top = 12  # speed + 1d6
    initiative_penalties = False  # wounds never slow anyone

    def new_state(self, fighter):
        return State(fighter.spec.sheet.health)

    def initiative(self, battle, fighter):
        return [fighter.spec.sheet.speed + battle.roll.d(6, 1)[0]]

    def initiative_penalty(self, fighter):
        return 0

    def can_act(self, fighter):
        return fighter.state.health > 0

    def status(self, fighter):
        return "up" if fighter.state.health > 0 else "down"

    def movement(self, fighter):
        walk = fighter.spec.sheet.move
        return walk, 2 * walk

    def threat(self, fighter):
        return 1.0

    def harm(self, fighter):
        return 1 - fighter.state.health / fighter.spec.sheet.health

    def ranged_attack(self, battle, attacker, target, weapon, shots, sweep=()):
        self._flip(battle, attacker, target)

    def melee_attack(self, battle, attacker, target, weapon, interception=False):
        self._flip(battle, attacker, target)

    def _flip(self, battle, attacker, target):
        attacker.shots += 1
        if battle.roll.d(self.options.coin_sides, 1)[0] == 1:
            attacker.hits += 1
            target.state.health -= 1
            battle.damage_dealt(attacker, target, 1, "coin-flip hit" if battle.tracing else "")
