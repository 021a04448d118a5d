"""Scenario and catalogue models of Shadowrun: 2097.

The rules give the check (2d10 + skill bonus against a TN), damage (Nd6 + ST), armor (PT/DR)
and Edge exactly; ruling 16 leaves attack TNs, the defender's Dodge, initiative, health and
injury to the scenario. Every such choice is a field of ``Options`` (``rules.options``) with a
documented default; docs/rules-sr2097.md lists them.
"""

from __future__ import annotations

import re
from functools import cached_property
from typing import Annotated, Literal

from pydantic import BaseModel, Field, field_validator, model_validator

from ...bounds import MAX_AMOUNT, MAX_SHARE_FACTOR, STRICT, Distance, Range

Attribute = Literal["body", "agility", "reflexes", "strength", "perception"]
Skill = Literal["firearms", "heavy_weapons", "melee"]
Sight = Literal["low_light", "thermographic", "night_vision_goggles"]
Weight = Literal["light", "medium", "heavy"]
Share100 = Annotated[float, Field(gt=0, le=MAX_SHARE_FACTOR)]  # a share of health

# Injury steps (the book's "Edge", 4. Reduce Injury Severity names grazing, moderate, serious,
# critical and life-threatening injuries; ruling 16 leaves the thresholds to us).
UNHURT, GRAZED, MODERATE, SERIOUS, CRITICAL, DOWN = range(6)
INJURY_NAMES = ("unhurt", "grazed", "moderate", "serious", "critical", "down")

# The book's "Variable damage rolls": Nd6 + ST; a melee weapon adds the wielder's Strength ("ST"), a
# ranged weapon its own (a number).
MAX_DICE = 100  # d6 of one damage roll (the book's weapons roll up to about 6)
_DAMAGE = re.compile(r"^\s*(?P<dice>\d+)\s*d6\s*(?:\+\s*(?P<st>ST|\d+))?\s*$", re.I)


class Strict(BaseModel):
    model_config = STRICT


# --- rules.options --------------------------------------------------------------------------------


class Effect(Strict):
    """What a condition does to an attack check: a TN modifier, Advantage, Disadvantage.

    The rules' "Multiple sources of Advantage/Disadvantage": sources do not stack and Advantage with
    Disadvantage is neither; TN modifiers add up.
    """

    tn: int = Field(0, ge=-20, le=30)
    advantage: bool = False
    disadvantage: bool = False


class SightEffect(Effect):
    """A visibility condition; ``removed_by`` lists the vision or gear that cancels it.

    The rules' "Removing Advantage/Disadvantage": night-vision goggles *remove* the Disadvantage of
    low light; that is not Advantage, so Advantage from elsewhere then survives. A removed
    condition also loses its TN modifier.
    """

    removed_by: tuple[Sight, ...] = ()


class RangeTN(Strict):
    """Base attack TN by the weapon's range band (the book's "Difficulty levels": 15 easy, 20
    moderate, 25 challenging, 30 difficult)."""

    short: int = Field(15, ge=0, le=60)
    medium: int = Field(20, ge=0, le=60)
    long: int = Field(25, ge=0, le=60)
    extreme: int = Field(30, ge=0, le=60)

    def band(self, index: int) -> int:
        return (self.short, self.medium, self.long, self.extreme)[index]


class CoverEffects(Strict):
    partial: Effect = Effect(disadvantage=True)
    full: Effect = Effect(tn=5, disadvantage=True)
    hidden: Effect = Effect(tn=10, disadvantage=True)  # the shooter fires blind


class VisibilityEffects(Strict):
    """By the scenario's ``environment.visibility``."""

    normal: SightEffect = SightEffect()
    reduced_light: SightEffect = SightEffect(
        disadvantage=True, removed_by=("low_light", "thermographic", "night_vision_goggles")
    )
    full_darkness: SightEffect = SightEffect(
        tn=5, disadvantage=True, removed_by=("thermographic", "night_vision_goggles")
    )
    mist: SightEffect = SightEffect(disadvantage=True, removed_by=("thermographic",))
    smoke: SightEffect = SightEffect(tn=5, disadvantage=True, removed_by=("thermographic",))
    glare: SightEffect = SightEffect(disadvantage=True)


class ArmorClassTable(Strict):
    light: float = Field(0, ge=0, le=100)
    medium: float = Field(0, ge=0, le=100)
    heavy: float = Field(0, ge=0, le=100)

    def of(self, weight: str) -> float:
        return getattr(self, weight)


class SkillAttributes(Strict):
    """The two governing attributes of each combat skill (the book's "Add the Skill Bonus")."""

    firearms: tuple[Attribute, Attribute] = ("agility", "perception")
    heavy_weapons: tuple[Attribute, Attribute] = ("strength", "perception")
    melee: tuple[Attribute, Attribute] = ("agility", "strength")


class Options(Strict):
    """``rules.options`` of ``sr2097``: every ruling-16 setting, with its default."""

    # Attack TNs (ruling 16): base by range band or melee, plus the defender's Dodge, plus
    # conditions (TN modifiers, Advantage, Disadvantage).
    range_tn: RangeTN = RangeTN()
    melee_tn: int = Field(15, ge=0, le=60)
    cover: CoverEffects = CoverEffects()
    visibility: VisibilityEffects = VisibilityEffects()
    attacker_moving: Effect = Effect(disadvantage=True)
    target_running: Effect = Effect(disadvantage=True)
    attacker_in_melee: Effect = Effect(disadvantage=True)  # firing with an enemy in reach
    smartlink: Effect = Effect(advantage=True)  # a smartgun fired by a smartlinked shooter
    scope: Effect = Effect(advantage=True)  # a scoped weapon at long/extreme range, not moving
    injury_disadvantage: Literal["never", "serious", "critical"] = Field(
        "critical", description="from this injury step on, the fighter's checks have Disadvantage"
    )
    # The defender's Dodge (ruling 16): added to the attacker's TN while the defender can act.
    dodge: bool = True
    melee_parry: bool = Field(True, description="in melee the better of Dodge and Melee ranks")
    armor_dodge_penalty: ArmorClassTable = ArmorClassTable(medium=2, heavy=4)
    armor_speed: ArmorClassTable = ArmorClassTable(light=1.0, medium=0.8, heavy=0.6)
    skill_attributes: SkillAttributes = SkillAttributes()
    # Initiative (ruling 16): Reflexes + initiative dice d6 (+2d6 with Edge); actions at the
    # result and every ``action_step`` lower while above 0, at most ``max_actions``.
    action_step: int = Field(10, ge=1, le=100)
    max_actions: int = Field(4, ge=1, le=10)
    # Health and injury (ruling 16).
    health_base: int = Field(10, ge=0, le=500)
    health_per_body: int = Field(5, ge=0, le=100)
    injury_levels: tuple[Share100, Share100, Share100, Share100] = Field(
        (0.25, 0.5, 0.75, 1.0),
        description="shares of health at which moderate, serious, critical and down begin",
    )
    dead_at: float = Field(
        1.5,
        gt=0,
        le=MAX_SHARE_FACTOR,
        description="physical damage, as a share of health, that kills",
    )
    # Armor (the book's "Damage mitigation": a stopped hit can degrade the armor).
    armor_degradation_pt: int = Field(0, ge=0, le=50, description="PT lost per stopped hit")
    armor_degradation_dr: int = Field(0, ge=0, le=100, description="DR lost per stopped hit")
    # Fire modes and movement.
    burst_rounds: int = Field(3, ge=2, le=20, description="rounds a burst fires")
    walk: Distance = Field(5.0, description="meters walked with an action")
    run: Distance = Field(15.0, description="meters run as the turn's only action")
    # Failure consequences (the book's "Magnitude of Success/Failure", ruling 23).
    failure_disadvantage: bool = Field(
        True,
        description="a significant failure gives Disadvantage on the next check of the same "
        "kind, a complete failure on the next check of any kind (ruling 23)",
    )
    # Edge (the book's "Edge").
    edge: bool = Field(True, description="off: nobody spends Edge")
    burn_needs_edge: bool = Field(True, description="Edge Burn needs a current Edge point")

    @field_validator(
        "dodge", "melee_parry", "edge", "burn_needs_edge", "failure_disadvantage", mode="before"
    )
    @classmethod
    def _on_off(cls, value: object) -> object:
        if isinstance(value, str) and value.lower() in ("on", "off"):
            return value.lower() == "on"
        return value

    @model_validator(mode="after")
    def _check_levels(self) -> Options:
        levels = self.injury_levels
        if not (0 < levels[0] < levels[1] < levels[2] < levels[3]):
            raise ValueError("injury_levels must be four increasing shares of health above 0")
        if self.dead_at <= levels[3]:
            raise ValueError("dead_at must be above the last injury level (down)")
        return self


# --- the combatant --------------------------------------------------------------------------------


class Attributes(Strict):
    body: int = Field(ge=1, le=20)
    agility: int = Field(ge=1, le=20)
    reflexes: int = Field(ge=1, le=30)
    strength: int = Field(ge=0, le=30)
    perception: int = Field(ge=1, le=20)


class Skills(Strict):
    firearms: int = Field(0, ge=0, le=20)
    heavy_weapons: int = Field(0, ge=0, le=20)
    melee: int = Field(0, ge=0, le=20)
    dodge: int = Field(0, ge=0, le=20)


class Sheet(Strict):
    """A Shadowrun: 2097 combatant.

    ``health``: hit points; unset, ``health_base + health_per_body x Body`` (options). ``edge``:
    its Edge (current and maximum at the start of the battle).
    """

    attributes: Attributes
    skills: Skills = Skills()
    initiative_dice: int = Field(1, ge=0, le=6)
    health: int | None = Field(None, ge=1, le=1000)
    edge: int = Field(0, ge=0, le=20)
    vision: Literal["normal", "low_light", "thermographic"] = "normal"
    night_vision_goggles: bool = False
    smartlink: bool = False
    weapons: tuple[str, ...] = ()
    armor: str | None = None

    def sights(self) -> frozenset[str]:
        """What this fighter sees with: its vision and its goggles."""
        out: set[str] = {self.vision}
        if self.night_vision_goggles:
            out.add("night_vision_goggles")
        return frozenset(out)


# --- catalogue entries ----------------------------------------------------------------------------


class Damage(Strict):
    dice: int
    strength: int | None  # None: the wielder's Strength (melee)

    @classmethod
    def parse(cls, text: str) -> Damage:
        m = _DAMAGE.match(str(text))
        if not m:
            raise ValueError(f"a damage roll like 2d6+4 or 2d6+ST; got {text!r}")
        st = (m["st"] or "0").upper()
        dice, strength = int(m["dice"]), None if st == "ST" else int(st)
        if dice > MAX_DICE or (strength is not None and strength > MAX_DICE * 6):
            raise ValueError(f"at most {MAX_DICE}d6+{MAX_DICE * 6}; got {text!r}")
        return cls(dice=dice, strength=strength)

    def __str__(self) -> str:
        return f"{self.dice}d6+{'ST' if self.strength is None else self.strength}"


class Weapon(Strict):
    """A weapon. ``damage``: ``Nd6+K`` for a ranged weapon (its own ST), ``Nd6+ST`` for melee
    (the wielder's Strength), the book's "Variable damage rolls"."""

    kind: Literal["firearm", "melee"]
    damage: str
    stun: bool = False
    skill: Skill | None = None  # unset: firearms for a firearm, melee for a melee weapon
    ranges: tuple[Range, Range, Range, Range] | None = Field(
        None, description="upper bounds in meters of short, medium, long and extreme range"
    )
    ammo: int | None = Field(None, ge=1, le=MAX_AMOUNT, description="rounds per load")
    burst: bool = False
    smartgun: bool = False
    scope: bool = False

    @field_validator("damage")
    @classmethod
    def _check_damage(cls, v: str) -> str:
        Damage.parse(v)
        return v

    def model_post_init(self, __context: object) -> None:
        code = Damage.parse(self.damage)
        if self.kind == "firearm":
            if self.ranges is None:
                raise ValueError("a firearm needs ranges: [short, medium, long, extreme] in meters")
            if list(self.ranges) != sorted(self.ranges):
                raise ValueError("ranges must increase: short <= medium <= long <= extreme")
            if self.ammo is None:
                raise ValueError("a firearm needs ammo (rounds per load)")
            if code.strength is None:
                raise ValueError("a ranged weapon adds its own ST (2d6+4), not the wielder's")
        elif code.strength is not None:
            raise ValueError("a melee weapon adds the wielder's Strength: write Nd6+ST")

    # Cached (the model is frozen): the tactics and the rules ask for these on every action.
    @cached_property
    def code(self) -> Damage:
        return Damage.parse(self.damage)

    @cached_property
    def skill_name(self) -> str:
        return self.skill or ("firearms" if self.kind == "firearm" else "melee")

    @cached_property
    def max_range(self) -> float | None:
        return self.ranges[3] if self.ranges else None

    @cached_property
    def can_autofire(self) -> bool:
        return self.burst


FISTS = Weapon(kind="melee", damage="1d6+ST", stun=True)  # the book: a punch is 1d6+ST Stun


class Armor(Strict):
    """PT/DR armor (the book's "Damage mitigation"); ``weight`` heavier than light slows the wearer
    and lowers Dodge (options ``armor_speed``, ``armor_dodge_penalty``, or ``dodge_penalty``)."""

    pt: int = Field(ge=0, le=200)
    dr: int = Field(ge=0, le=100)
    weight: Weight = "light"
    dodge_penalty: int | None = Field(None, ge=0, le=20)


class Tactics(Strict):
    """``tactics: {rules: {...}}``: when a combatant spends Edge (the book's "Edge", ruling 16).

    Offensive spending (attack, damage, initiative) keeps ``reserve`` points back for lessening
    injuries and Edge Burn, which ignore the reserve.
    """

    attack: Literal["never", "low_odds", "disadvantaged", "always"] = Field(
        "low_odds",
        description="gain Advantage or remove Disadvantage on an attack check: never; when the "
        "chance to hit is below attack_below and Edge raises it by attack_gain; only to remove "
        "Disadvantage; on every attack",
    )
    attack_below: float = Field(0.5, ge=0, le=1)
    attack_gain: float = Field(
        0.1, ge=0, le=1, description="low_odds: only when Edge raises the chance by this much"
    )
    damage: Literal["never", "vs_armor", "always"] = Field(
        "vs_armor",
        description="+2d6 damage on a hit: never; when the expected damage would not reach the "
        "target's PT; on every hit",
    )
    initiative: Literal["never", "first_turn", "always"] = "never"
    lessen: Literal["never", "would_drop", "always"] = Field(
        "would_drop",
        description="lessen an injury one step: never; when it would take the fighter down; "
        "whenever a hit raises the injury step",
    )
    burn: bool = Field(True, description="Edge Burn to survive a killing blow")
    reserve: int = Field(1, ge=0, le=20)
