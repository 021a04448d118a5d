"""Scenario and catalogue models of classic Shadowrun and its D8 variant."""

from __future__ import annotations

import re
from functools import cached_property
from typing import ClassVar, Literal

from pydantic import BaseModel, Field, field_validator

from ...bounds import MAX_AMOUNT, MAX_DISTANCE, STRICT, Range

LEVELS = "LMSD"  # wound levels, ruling 6: L, M, S, D fill 1, 3, 6, 10 boxes
BOXES = {"L": 1, "M": 3, "S": 6, "D": 10}
RUN_MULTIPLIER = {"human": 4, "dwarf": 3, "elf": 4, "ork": 4, "troll": 3}  # Running Table

# The book's "Damage Codes": Power, Wound Category, Staging Number, e.g. 4M3. Melee weapons may
# give the power relative to Strength: STR+2 M (Strength plus 2, Moderate).
_CODE = re.compile(
    r"^\s*(?P<power>\d+|STR(?:\s*[+-]\s*\d+)?)\s*(?P<level>[LMSD])\s*(?P<staging>\d+)?\s*$", re.I
)
DEFAULT_STAGING = 2  # the staging number when a code gives none (the book shows 3 in 4M3)
MAX_POWER = 100  # a damage code's Power (the book's weapons reach about 20)
MAX_STAGING = 20


class Strict(BaseModel):
    model_config = STRICT


def _on_off(value: object) -> object:
    """YAML authors write ``on``/``off``; PyYAML already reads them as booleans, strings too."""
    if isinstance(value, str) and value.lower() in ("on", "off"):
        return value.lower() == "on"
    return value


class Options(Strict):
    """``rules.options`` of ``sr-classic`` (docs/rulings.md: each default is its ruling)."""

    initiative_passes: Literal["minus7", "minus10"] = "minus7"  # ruling 1
    fumble_effect: Literal["lose_action", "none"] = "lose_action"  # ruling 2
    wound_modifiers: bool = True  # ruling 7
    instant_karma: bool = False  # ruling 11
    # Ruling 9 stages melee damage by the winner's net successes; counting them as ruling 6
    # counts an attack's (beyond the first, the one "necessary to hit") is the default.
    melee_staging: Literal["beyond_first", "all_net"] = "beyond_first"
    grenade_flight: int = Field(
        0, ge=0, le=30, description="initiative points a grenade flies before bursting"
    )
    # Ruling 25: Power falls by the falloff for each *full* meter from the point of impact.
    blast_distance: Literal["full_meters", "exact"] = Field(
        "full_meters",
        description="full_meters: Power - falloff x floor(distance) (ruling 25); exact: "
        "Power - falloff x distance, rounded up",
    )
    # Ruling 26: a Karma re-roll is a roll like any other, so it can fumble.
    karma_reroll_fumbles: bool = Field(
        True,
        description="on: a test whose Instant Karma re-roll leaves every die on 1 (0 on the D8) "
        "is a fumble with its usual cost (ruling 26); off: a re-roll never fumbles",
    )

    # Ruling 29: the rest of a burst is not rolled once its target is out of the fight.
    burst_after_down: Literal["stop", "roll"] = Field(
        "stop",
        description="stop: the rest of an autofire burst is not rolled once its target is out "
        "of the fight (ruling 29); roll: every shot of the burst is rolled and resisted, so "
        "more hits can kill a target the first dropped",
    )

    _on_off = field_validator(
        "wound_modifiers", "instant_karma", "karma_reroll_fumbles", mode="before"
    )(_on_off)


class D8Options(Options):
    """``rules.options`` of ``sr-d8``: the classic options plus the D8 variant's house rules."""

    tn_cap: bool = False  # ruling 12: a TN above 21 is impossible
    initiative_rule_of_seven: bool = False  # ruling 12: one initiative die explodes

    _on_off8 = field_validator("tn_cap", "initiative_rule_of_seven", mode="before")(_on_off)


class Attributes(Strict):
    body: int = Field(ge=1, le=20)
    quickness: int = Field(ge=1, le=20)
    strength: int = Field(ge=1, le=20)
    reaction: int = Field(ge=1, le=30)


class Skills(Strict):
    firearms: int = Field(0, ge=0, le=20)
    armed_combat: int = Field(0, ge=0, le=20)
    unarmed_combat: int = Field(0, ge=0, le=20)
    throwing: int = Field(0, ge=0, le=20)


class Sheet(Strict):
    """A combatant. Pools follow the book's "Dice Pools": Dodge = Quickness; Defense = the better
    of Armed/Unarmed Combat, or Strength - 4 (at least 1) with neither."""

    race: Literal["human", "dwarf", "elf", "ork", "troll"] = "human"
    attributes: Attributes
    skills: Skills = Skills()
    initiative_dice: int = Field(1, ge=1, le=5)
    vision: Literal["normal", "low_light", "thermographic"] = "normal"
    smartlink: bool = False
    smart_goggles: bool = False
    karma: int = Field(0, ge=0, le=100, description="Instant Karma pool (ruling 11)")
    weapons: tuple[str, ...] = ()
    armor: str | None = None

    @property
    def dodge_pool(self) -> int:
        return self.attributes.quickness

    @property
    def defense_pool(self) -> int:
        best = max(self.skills.armed_combat, self.skills.unarmed_combat)
        return best if best > 0 else max(self.attributes.strength - 4, 1)


class DamageCode(Strict):
    power: int  # absolute, or added to Strength when strength_based
    strength_based: bool
    level: Literal["L", "M", "S", "D"]
    staging: int

    @classmethod
    def parse(cls, text: str) -> DamageCode:
        m = _CODE.match(str(text))
        if not m:
            raise ValueError(f"a damage code like 6M, 4M3 or STR+2M; got {text!r}")
        power = m["power"].upper().replace(" ", "")
        strength_based = power.startswith("STR")
        value = int(power[3:] or 0) if strength_based else int(power)
        staging = int(m["staging"]) if m["staging"] else DEFAULT_STAGING
        if not 1 <= staging <= MAX_STAGING:
            raise ValueError(f"a staging number from 1 to {MAX_STAGING}; got {text!r}")
        if not -MAX_POWER <= value <= MAX_POWER:
            raise ValueError(f"a Power from 0 to {MAX_POWER} (STR-{MAX_POWER} to STR+{MAX_POWER})")
        return cls(
            power=value, strength_based=strength_based, level=m["level"].upper(), staging=staging
        )

    def power_for(self, strength: int) -> int:
        return self.power + (strength if self.strength_based else 0)


class Weapon(Strict):
    kind: Literal["firearm", "melee", "grenade"]
    damage: str
    stun: bool = False
    ranges: tuple[Range, Range, Range, Range] | None = Field(
        None, description="upper bounds in meters of short, medium, long and extreme range"
    )
    ammo: int | None = Field(
        None, ge=1, le=MAX_AMOUNT, description="rounds per load; grenades carried"
    )
    autofire: bool = False
    recoil_compensation: int = Field(0, ge=0, le=100)
    gyro: int = Field(0, ge=0, le=100)
    smartgun: bool = False
    ammo_type: Literal["normal", "flechette"] = "normal"
    aerodynamic: bool = False
    launcher: bool = False
    blast_falloff: float | None = Field(
        None, gt=0, le=MAX_DISTANCE, description="grenade Power lost per meter"
    )

    @field_validator("damage")
    @classmethod
    def _check_code(cls, v: str) -> str:
        DamageCode.parse(v)
        return v

    def model_post_init(self, __context: object) -> None:
        if self.kind in ("firearm", "grenade") and self.ranges is None:
            raise ValueError(
                f"a {self.kind} needs ranges: [short, medium, long, extreme] in meters"
            )
        if self.ranges is not None and list(self.ranges) != sorted(self.ranges):
            raise ValueError("ranges must increase: short <= medium <= long <= extreme")
        if self.kind == "firearm" and self.ammo is None:
            raise ValueError("a firearm needs ammo (rounds per load)")
        if self.kind == "grenade" and self.blast_falloff is None:
            raise ValueError("a grenade needs blast_falloff (Power lost per meter)")

    @cached_property
    def code(self) -> DamageCode:
        return DamageCode.parse(self.damage)

    # cached: the tactics ask every action (a property would be a Python call each time)
    @cached_property
    def max_range(self) -> float | None:
        return self.ranges[3] if self.ranges else None

    @cached_property
    def can_autofire(self) -> bool:
        return self.autofire

    @cached_property
    def armor_kind(self) -> str:
        """The book's "Armor": firearms use Ballistic unless flechette; the rest Impact."""
        return "ballistic" if self.kind == "firearm" and self.ammo_type == "normal" else "impact"

    @cached_property
    def firing(self) -> Firing:
        """What a shot reads from the weapon, worked out once (``Firing``)."""
        return Firing(self)


class Firing:
    """A firearm's numbers as the shot loop reads them, taken once per weapon: a slot is read
    several times faster than a pydantic field, and a shot reads a dozen of them."""

    __slots__ = (
        "ranges",
        "recoil_reduction",
        "smartgun",
        "power",
        "level",
        "rank",
        "staging",
        "stun",
        "armor_kind",
        "ballistic",
    )

    def __init__(self, weapon: Weapon):
        code = weapon.code
        self.ranges = weapon.ranges
        self.recoil_reduction = weapon.recoil_compensation + weapon.gyro  # ruling 8
        self.smartgun = weapon.smartgun
        self.power, self.level, self.staging = code.power, code.level, code.staging
        self.rank = LEVELS.index(code.level)  # the wound level's place in L, M, S, D
        self.stun = weapon.stun
        self.armor_kind = weapon.armor_kind
        self.ballistic = weapon.armor_kind == "ballistic"


class Armor(Strict):
    ballistic: int = Field(ge=0, le=20)
    impact: int = Field(ge=0, le=20)


class Tactics(Strict):
    """``tactics: {rules: {...}}`` of ``sr-classic`` and ``sr-d8``: how a combatant uses the
    Dodge Pool, Instant Karma and autofire sweeps. Older files write these keys at the top of
    ``tactics:`` (they were once every system's tactics); the loader reads them there too
    (``AT_TOP``), and a key under ``rules:`` wins over the same key at the top."""

    AT_TOP: ClassVar[tuple[str, ...]] = ("sweep", "dodge", "karma")

    sweep: bool = Field(
        False,
        description="autofire walks across enemies standing within 3 m of each other, one shot "
        "wasted per meter between them (ruling 8); the burst is split evenly",
    )
    dodge: Literal["none", "match", "half", "all"] = Field(
        "match",
        description="Dodge Pool dice against each ranged attack: none; match (2 per attack "
        "success + 1, enough for a fair chance of a clean miss); half the pool; all of it",
    )
    karma: Literal["never", "survive", "attack", "both"] = Field(
        "survive",
        description="Instant Karma (when the rules option is on): survive buys off wounds that "
        "would take the fighter out; attack re-rolls failed attack dice and negates fumbles",
    )


DEFAULT_TACTICS = Tactics()
