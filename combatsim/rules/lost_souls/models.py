"""Scenario and catalogue models of ``lost-souls`` ("Rolling the Bones"; rulings 17-19).

The book is a task-resolution rule, not a combat system: it says how a percentile roll with
bonus and penalty dice is read on the Action Results Table, and that called shots, cooperative
rolls and Karma turn into dice. Everything a fight needs beyond that (which circumstance is
worth how many dice, how a result tier becomes damage, life points, armor, initiative,
movement) is designed here and is a documented scenario setting: ``rules.options`` for the
whole fight (``Options``), the combatant's sheet (``Sheet``), the catalogue's weapons and armor,
and the system's own tactics (``tactics: {rules: {...}}``, ``Tactics``).
"""

from __future__ import annotations

from functools import cached_property
from typing import Annotated, ClassVar, Literal, TypedDict

from pydantic import BaseModel, Field, field_validator, model_validator

from ...bounds import MAX_AMOUNT, MAX_DISTANCE, MAX_SHARE_FACTOR, STRICT, Distance, Range
from ...dice.lost_souls import MAX_KARMA_BONUS_DICE, MAX_NET_DICE

Dice = int  # net dice of one circumstance: bonus dice positive, penalty dice negative


class _Bounds(TypedDict):
    """Typed so a checker can match ``Field(**DICE)`` against ``Field``'s ``ge``/``le``."""

    ge: int
    le: int


DICE: _Bounds = {"ge": -MAX_NET_DICE, "le": MAX_NET_DICE}
BoundedDice = Annotated[int, Field(**DICE)]
SUCCESS_TIERS = 5  # ruling 18: the five upper tiers of the table are successes
Points = Annotated[int, Field(ge=0, le=MAX_AMOUNT)]  # damage points of a tier
DEFAULT_ABILITY = {"firearm": "firearms", "melee": "melee", "grenade": "throwing"}


class Strict(BaseModel):
    model_config = STRICT


class CoverDice(Strict):
    """Dice against a target in cover (the Narrator's call in the book; ours by default)."""

    partial: Dice = Field(-1, **DICE)
    full: Dice = Field(-2, **DICE)
    hidden: Dice = Field(-3, **DICE, description="blind fire at a target the attacker cannot see")


class VisibilityDice(Strict):
    """Dice for the battle's light and air ("a dark and stormy night", the book)."""

    normal: Dice = Field(0, **DICE)
    reduced_light: Dice = Field(-1, **DICE)
    mist: Dice = Field(-1, **DICE)
    glare: Dice = Field(-1, **DICE)
    smoke: Dice = Field(-2, **DICE)
    full_darkness: Dice = Field(-2, **DICE)


class Circumstances(Strict):
    """How many bonus (+) or penalty (-) dice each circumstance of an attack is worth.

    The book's "Bonus Dice and Penalty Dice": the Narrator decides which circumstance gives
    what; in a simulation the scenario does. All of them add up, then cancel one for one and
    are capped at 5 either way (ruling 17).
    """

    cover: CoverDice = CoverDice()
    visibility: VisibilityDice = VisibilityDice()
    range: tuple[BoundedDice, BoundedDice, BoundedDice] = Field(
        (1, 0, -1), description="short, medium and long range of the weapon"
    )
    aiming: Dice = Field(
        1,
        **DICE,
        description="a ranged attack at the target the attacker shot at with its previous "
        "action, without moving in between: it has drawn a bead",
    )
    wounded: Dice = Field(
        -1, **DICE, description="the attacker has lost at least options.wounded_at of its life"
    )
    target_running: Dice = Field(-1, **DICE)
    attacker_moving: Dice = Field(-1, **DICE, description="shooting after walking this action")
    engaged: Dice = Field(-1, **DICE, description="shooting with an enemy in melee reach")


class Options(Strict):
    """``rules.options`` of ``lost-souls``; each default is the choice documented in
    docs/rules-lost-souls.md."""

    action_table: str | None = Field(
        None,
        description="a replacement Action Results Table file (ruling 18), relative to the "
        "scenario; default: the shipped approximation combatsim/data/action_results_table.yaml",
    )
    circumstances: Circumstances = Circumstances()
    hit_damage: tuple[Points, Points, Points, Points, Points] = Field(
        (1, 2, 3, 4, 5),
        description="damage points of the five success tiers (worst first: Passable .. Awesome "
        "in the shipped table), multiplied by the weapon's damage multiplier",
    )
    unarmed_multiplier: int = Field(1, ge=1, le=50, description="damage multiplier of bare hands")
    wounded_at: float = Field(
        0.5, gt=0, le=1, description="share of life lost from which 'wounded' dice apply"
    )
    dead_at: float = Field(
        1.0,
        ge=0,
        le=MAX_SHARE_FACTOR,
        description="down at 0 life points; dead at -dead_at x the life points (1.0: at -life)",
    )
    catastrophe: Literal["none", "lose_action"] = Field(
        "none", description="a Catastrophic attack roll costs the attacker its next action"
    )
    assist_distance: Distance = Field(
        5.0, description="meters from the lead within which an ally may assist (ruling 19)"
    )
    initiative_die: int = Field(10, ge=1, le=100, description="initiative is Reflexes + 1dN")
    blast_points: int = Field(
        2, ge=0, le=MAX_AMOUNT, description="grenade blast damage per multiplier point"
    )
    grenade_miss: Distance = Field(
        2.0, description="meters a failed throw lands off the aim per tier below success"
    )

    @field_validator("hit_damage")
    @classmethod
    def _non_negative(cls, v: tuple[int, ...]) -> tuple[int, ...]:
        if any(d < 0 for d in v):
            raise ValueError("damage points of at least 0")
        return v


class Sheet(Strict):
    """A combatant. ``abilities`` give each ability's Action Results Table column (its label:
    1-10 in the shipped table); a weapon's ability the sheet lacks is rolled on the table's
    first (weakest) column.

    ``abilities``, ``life`` and ``reflexes`` have no default: a member fights with numbers its
    archetype or its own entry writes, never with numbers nobody chose.
    """

    abilities: dict[str, int | str] = Field(description="ability -> Action Results Table column")
    life: int = Field(ge=1, le=1000, description="life points; down at 0")
    reflexes: int = Field(ge=0, le=50, description="initiative is reflexes + 1d10")
    move: float = Field(5.0, ge=0, le=100, description="meters walked with an action")
    run_multiplier: float = Field(3.0, ge=1, le=10, description="running covers move x this")
    karma: int = Field(0, ge=0, le=100, description="Karma points; 2 buy a bonus die (ruling 19)")
    extra_dice: Dice = Field(
        0,
        **DICE,
        description="standing bonus (+) or penalty (-) dice on every roll this combatant makes",
    )
    sees_in_dark: bool = Field(False, description="visibility dice do not apply to it")
    weapons: tuple[str, ...] = ()
    armor: str | None = None


class Weapon(Strict):
    kind: Literal["firearm", "melee", "grenade"]
    multiplier: int = Field(ge=1, le=50, description="the weapon's damage multiplier")
    ability: str | None = Field(
        None, description="the ability column it is rolled on (default by kind)"
    )
    ranges: tuple[Range, Range, Range] | None = Field(
        None, description="upper bounds in meters of short, medium and long range"
    )
    ammo: int | None = Field(
        None, ge=1, le=MAX_AMOUNT, description="rounds per load; grenades carried"
    )
    quality: Dice = Field(
        0, ge=-2, le=2, description="superior (+) or shoddy (-) gear: dice on every attack"
    )
    armor_piercing: int = Field(0, ge=0, le=MAX_AMOUNT, description="points of armor it ignores")
    blast_radius: float | None = Field(
        None, gt=0, le=MAX_DISTANCE, description="a grenade's blast, meters"
    )

    @model_validator(mode="after")
    def _check(self) -> Weapon:
        if self.kind != "melee" and self.ranges is None:
            raise ValueError(f"a {self.kind} needs ranges: [short, medium, long] in meters")
        if self.ranges is not None and list(self.ranges) != sorted(self.ranges):
            raise ValueError("ranges must increase: short <= medium <= long")
        if self.kind == "firearm" and self.ammo is None:
            raise ValueError("a firearm needs ammo (rounds per load)")
        if self.kind == "grenade" and self.blast_radius is None:
            raise ValueError("a grenade needs blast_radius (meters)")
        return self

    @property
    def skill(self) -> str:
        return self.ability or DEFAULT_ABILITY[self.kind]

    @cached_property  # the tactics ask on every action; the model is frozen
    def max_range(self) -> float | None:
        return self.ranges[2] if self.ranges else None

    # a burst is one attack roll; a class constant, not a property: the tactics ask every shot
    can_autofire: ClassVar[bool] = False


class Armor(Strict):
    rating: int = Field(ge=0, le=100, description="damage points stopped from every hit")


class Tactics(Strict):
    """``tactics: {rules: {...}}`` of ``lost-souls``: the choices the book leaves to a player."""

    called_shot: int = Field(
        0,
        ge=0,
        le=MAX_NET_DICE,
        description="penalty dice taken on every attack for +1 damage multiplier each "
        "(the book's 'Combat'; ruling 19)",
    )
    karma: Literal["never", "always", "when_penalized"] = Field(
        "never",
        description="when to buy bonus dice with Karma: on every attack, or only when the "
        "attack would otherwise roll penalty dice",
    )
    karma_dice: int = Field(
        1, ge=1, le=MAX_KARMA_BONUS_DICE, description="bonus dice bought per attack (2 Karma each)"
    )
    assist: Literal["never", "always", "when_helpful"] = Field(
        "never",
        description="spend this fighter's next action helping a nearby ally's attack "
        "(the book's 'Cooperative Rolls'); when_helpful: only if its chance of Good or better "
        "beats its chance of Inferior or worse",
    )
