"""Scenario and catalogue models of ``4d8`` (rulings 20-22).

The book resolves a task: ease + ability bonuses (within the character's energy, -8 without a
required ability) is the chance of success, 4d8 rolled under it, and a degree of success with
its combinations and aspects. It gives no combat rules (ruling 22). What a fight needs beyond
the roll (the ease of an attack by range and difficulty, the damage a degree deals, what the
aspect of a combination adds, health, armor, initiative, movement) is designed here and is a
documented scenario setting: ``rules.options`` (``Options``), the sheet, the catalogue's weapons
and armor, and the system's own tactics (``tactics: {rules: {...}}``, ``Tactics``).
"""

from __future__ import annotations

from functools import cached_property
from typing import Annotated, Any, ClassVar, Literal

from pydantic import BaseModel, Field, field_validator, model_validator

from ...bounds import MAX_AMOUNT, MAX_DISTANCE, MAX_SHARE_FACTOR, STRICT, Amount, Range
from ...dice.fourd8 import MAX_EASE

DEFAULT_ABILITIES = {"firearm": ("shooting",), "melee": ("melee",), "grenade": ("throwing",)}
COMBINATIONS = ("pair", "two_pairs", "triple", "four_alike")
# A modifier to the ease of a roll (the book's "Ease" runs 1-32; beyond +-64 nothing changes).
Ease = Annotated[int, Field(ge=-2 * MAX_EASE, le=2 * MAX_EASE)]
Bonus = Annotated[int, Field(ge=-MAX_EASE, le=MAX_EASE)]  # an ability bonus or weakness


class Strict(BaseModel):
    model_config = STRICT


class RangeEase(Strict):
    """Ease of hitting at each range band of the weapon (the book's "Ease": 1-32, 32 easiest)."""

    short: int = Field(20, ge=-MAX_EASE, le=MAX_EASE)
    medium: int = Field(17, ge=-MAX_EASE, le=MAX_EASE)
    long: int = Field(14, ge=-MAX_EASE, le=MAX_EASE)
    extreme: int = Field(10, ge=-MAX_EASE, le=MAX_EASE)


class CoverEase(Strict):
    partial: Ease = -4
    full: Ease = -8
    hidden: Ease = -12


class VisibilityEase(Strict):
    normal: Ease = 0
    reduced_light: Ease = -2
    mist: Ease = -2
    glare: Ease = -2
    smoke: Ease = -4
    full_darkness: Ease = -6


class Difficulty(Strict):
    """Modifiers to the ease of an attack (the referee's judgment in the book's "Ease")."""

    cover: CoverEase = CoverEase()
    visibility: VisibilityEase = VisibilityEase()
    aiming: Ease = Field(
        2,
        description="a ranged attack at the target the attacker shot at with its previous "
        "action, without moving in between",
    )
    wounded: Ease = Field(-2, description="the attacker has lost at least wounded_at of its health")
    target_running: Ease = -2
    attacker_moving: Ease = Field(-2, description="shooting after walking this action")
    engaged: Ease = Field(-4, description="shooting with an enemy in melee reach")


class Effect(Strict):
    """What an aspect adds to a hit: damage, armor ignored, the target's next action lost."""

    damage: Amount = 0
    pierce: Amount = 0
    stagger: bool = False


class AspectEffects(Strict):
    physical: Effect = Effect()
    mental: Effect = Effect()
    social: Effect = Effect()
    magical: Effect = Effect()


DEFAULT_EFFECTS: dict[str, dict[str, dict[str, Any]]] = {
    # The book's "Two Dice Being the Same": a noticeable benefit in the pair's aspect.
    "pair": {"physical": {"damage": 1}, "mental": {"pierce": 1}},
    # "Two pairs": a balanced success of both pairs' aspects; every die is in a pair.
    "two_pairs": {"physical": {"damage": 1}, "mental": {"pierce": 1}},
    # "Three Dice Being the Same": an extraordinary boost in the triplet's aspect.
    "triple": {
        "physical": {"damage": 2},
        "mental": {"pierce": 2},
        "social": {"stagger": True},
        "magical": {"damage": 1},
    },
    # Four alike: a significant advantage; all four aspects are in it.
    "four_alike": {
        "physical": {"damage": 2},
        "mental": {"pierce": 2},
        "social": {"stagger": True},
        "magical": {"damage": 1},
    },
}


class CombinationEffects(Strict):
    """Effects of a hit's combination, per kind and per aspect of the dice that make it.

    The book's "Additional Rules for Special Dice Combinations": a combination gives a benefit in
    the aspects of its dice (dice 1-4: physical, mental, social, magical; ruling 20). An
    aspect's effect applies when its die is one of the combination's (a triple on dice 1-3 is
    physical, mental and social); several add up. A scenario's entry for a kind and aspect
    replaces that default entry whole (``{}`` switches it off); the others keep their defaults.
    """

    pair: AspectEffects
    two_pairs: AspectEffects
    triple: AspectEffects
    four_alike: AspectEffects

    @model_validator(mode="before")
    @classmethod
    def _over_defaults(cls, data: object) -> object:
        if not isinstance(data, dict):
            return data
        merged = {kind: dict(aspects) for kind, aspects in DEFAULT_EFFECTS.items()}
        for kind, aspects in data.items():
            if kind in merged and isinstance(aspects, dict):
                merged[kind].update(aspects)
            else:
                merged[kind] = aspects  # let validation report it
        return merged

    def effect(self, kind: str, aspects: tuple[str, ...]) -> Effect:
        """The summed effect of a combination ``kind`` made by dice of ``aspects``."""
        if kind not in COMBINATIONS:
            return Effect()
        table: AspectEffects = getattr(self, kind)
        parts = [getattr(table, a) for a in aspects]
        return Effect(
            damage=sum(p.damage for p in parts),
            pierce=sum(p.pierce for p in parts),
            stagger=any(p.stagger for p in parts),
        )


class Options(Strict):
    """``rules.options`` of ``4d8``; each default is the choice documented in
    docs/rules-4d8.md."""

    ease: RangeEase = RangeEase()
    melee_ease: int = Field(18, ge=-MAX_EASE, le=MAX_EASE, description="ease of a melee attack")
    difficulty: Difficulty = Difficulty()
    degree_damage: dict[Annotated[int, Field(ge=1, le=4 * MAX_EASE)], Amount] = Field(
        {1: 0, 5: 1, 9: 2, 13: 3, 17: 4, 21: 6},
        description="extra damage by degree of success: each key is the lowest degree of a "
        "band (default: the bands of the book's Interpretation table)",
    )
    effects: CombinationEffects = Field(
        default_factory=lambda: CombinationEffects.model_validate({})
    )
    special_effects: bool = Field(True, description="apply the combination effects at all")
    snake_eyes: Literal["none", "lose_action"] = Field(
        "lose_action", description="four 1s ('unfortunate effects', the book's 'Dice Roll')"
    )
    bonus_roll_snake_eyes: bool = Field(
        True,
        description="ruling 24: four 1s on an over-32 bonus roll are snake-eyes too (off: a "
        "bonus roll has no combinations at all, snake-eyes included)",
    )
    wounded_at: float = Field(
        0.5, gt=0, le=1, description="share of health lost from which 'wounded' applies"
    )
    dead_at: float = Field(
        1.0,
        ge=0,
        le=MAX_SHARE_FACTOR,
        description="down at 0 health; dead at -dead_at x the health (1.0: at -health)",
    )
    initiative_ability: str = Field(
        "coordination", description="initiative is 10 + this ability's bonus + 1d8"
    )
    initiative_base: int = Field(10, ge=0, le=80)
    unarmed_damage: int = Field(
        1, ge=0, le=MAX_AMOUNT, description="damage of bare hands before the degree"
    )

    @field_validator("degree_damage")
    @classmethod
    def _bands(cls, v: dict[int, int]) -> dict[int, int]:
        if 1 not in v or any(k < 1 for k in v):
            raise ValueError("bands keyed by their lowest degree, 1 and up, including 1")
        return dict(sorted(v.items()))


class Sheet(Strict):
    """A combatant. ``abilities`` are ability bonuses (the book's "Abilities"), negative for a
    weakness; ``energy`` limits the positive bonuses one task may use.

    ``abilities``, ``energy`` and ``health`` have no default: a member fights with numbers its
    archetype or its own entry writes, never with numbers nobody chose.
    """

    abilities: dict[str, Bonus] = Field(description="ability -> bonus (negative: a weakness)")
    occupation_skills: tuple[str, ...] = Field(
        (), description="the occupation's bonus skills: no -8 for lacking them"
    )
    energy: int = Field(ge=0, le=100, description="limit on the total bonuses of one task")
    health: int = Field(ge=1, le=1000, description="down at 0")
    move: float = Field(5.0, ge=0, le=100, description="meters walked with an action")
    run_multiplier: float = Field(3.0, ge=1, le=10)
    chance_modifier: int = Field(
        0, ge=-32, le=32, description="standing modifier to the chance of every roll it makes"
    )
    weapons: tuple[str, ...] = ()
    armor: str | None = None

    def bonus(self, ability: str) -> int:
        return self.abilities.get(ability, 0)


class Weapon(Strict):
    kind: Literal["firearm", "melee", "grenade"]
    damage: int = Field(ge=0, le=100, description="damage of a hit before the degree's bonus")
    abilities: tuple[str, ...] | None = Field(
        None, description="abilities whose bonuses apply (default by kind)"
    )
    requires: str | None = Field(None, description="required ability: -8 without it")
    ease_modifier: int = Field(0, ge=-16, le=16, description="a handy (+) or awkward (-) weapon")
    ranges: tuple[Range, Range, Range, Range] | None = Field(
        None, description="upper bounds in meters of short, medium, long and extreme range"
    )
    ammo: int | None = Field(None, ge=1, le=MAX_AMOUNT)
    pierce: int = Field(0, ge=0, le=MAX_AMOUNT, description="points of armor it ignores")
    blast_radius: float | None = Field(None, gt=0, le=MAX_DISTANCE)

    @model_validator(mode="after")
    def _check(self) -> Weapon:
        if self.kind != "melee" and self.ranges is None:
            raise ValueError(f"a {self.kind} needs ranges: [short, medium, long, extreme] meters")
        if self.ranges is not None and list(self.ranges) != sorted(self.ranges):
            raise ValueError("ranges must increase")
        if self.kind == "firearm" and self.ammo is None:
            raise ValueError("a firearm needs ammo (rounds per load)")
        if self.kind == "grenade" and self.blast_radius is None:
            raise ValueError("a grenade needs blast_radius (meters)")
        return self

    @property
    def skills(self) -> tuple[str, ...]:
        return self.abilities if self.abilities is not None else DEFAULT_ABILITIES[self.kind]

    @cached_property  # read by the tactics on every action: worked out once per weapon
    def max_range(self) -> float | None:
        return self.ranges[3] if self.ranges else None

    can_autofire: ClassVar[bool] = False  # a class constant: no call when the tactics ask


class Armor(Strict):
    rating: int = Field(ge=0, le=100, description="damage points stopped from every hit")


class Tactics(Strict):
    """``tactics: {rules: {...}}`` of ``4d8``."""

    over32: Literal["automatic", "doubles", "bonus", "best"] = Field(
        "bonus",
        description="the book's 'Over Thirty-Two' (ruling 21) when the chance is 33 or more: "
        "automatic, doubles, bonus (the book's default), or best: the one with the highest "
        "exact expected damage against this target",
    )
