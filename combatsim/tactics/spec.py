"""How a combatant decides, as data: the ``tactics:`` block of a side or a member.

A side's tactics are the default for its members; a member's own ``tactics:`` keys override
them. Every policy is documented in docs/scenario-format.md, "Tactics".
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, Field

from ..bounds import MAX_AMOUNT, MAX_COMBATANTS, MAX_DISTANCE, STRICT

# Keys that were every system's tactics before they moved into the Shadowrun tactics model
# (``tactics.rules``). Files written then still carry them at the top of ``tactics:``: a system
# that lists the key in ``tactics_at_top`` reads it from there; any other ignores it, as it
# always did, so those files load unchanged.
FORMER_KEYS = ("sweep", "dodge", "karma")


class Tactics(BaseModel):
    model_config = STRICT

    target: Literal["nearest", "weakest", "most_dangerous", "focus", "random"] = Field(
        "nearest",
        description="nearest enemy; weakest (most hurt); most_dangerous (highest threat); "
        "focus (the whole side shoots the first member's target); random",
    )
    target_in_reach: bool = Field(
        True,
        description="choose the target among the enemies the fighter can reach (its gun's "
        "range; in melee, reach plus its walk) whenever one is; false: among all of them",
    )
    fire_mode: Literal["single", "autofire"] = Field(
        "autofire", description="autofire when the weapon can, else single shots"
    )
    autofire_rounds: int | None = Field(
        None,
        ge=2,
        le=MAX_AMOUNT,
        description="rounds per autofire action; unset: as many as the rules allow",
    )
    movement: Literal["hold", "advance", "keep_range", "take_cover"] = Field(
        "hold",
        description="hold position; advance to preferred_range (melee fighters close in); "
        "keep_range (advance or back off to preferred_range, never past the gun's reach); "
        "take_cover (walk to the nearest free cover point however far, then hold there)",
    )
    preferred_range: float = Field(10.0, ge=0, le=MAX_DISTANCE, description="meters")
    cover_within: float = Field(
        10.0,
        ge=0,
        le=MAX_DISTANCE,
        description="take_cover: how far (meters) a fighter goes for a free cover point, over "
        "as many walks as it takes",
    )
    cover_step_up: bool = Field(
        False,
        description="take_cover: from partial cover, walk to a free full cover point within "
        "cover_within and the walk left, when no enemy's reach covers the way",
    )
    fall_back: bool = Field(False, description="run away from every enemy when badly hurt")
    fall_back_at: float = Field(0.5, gt=0, le=1, description="harm share that counts as badly hurt")
    grenades: Literal["never", "clustered", "always"] = Field(
        "clustered",
        description="clustered: throw when at least grenade_min_targets enemies and no ally "
        "stand inside the blast around the aim point; always: at the target whenever in range",
    )
    grenade_min_targets: int = Field(2, ge=1, le=MAX_COMBATANTS)
    reload_below: int = Field(
        1, ge=1, le=MAX_AMOUNT, description="reload when fewer rounds than this are left"
    )
    reload_in_lull: bool = Field(
        True,
        description="reload a magazine not full instead of holding fire when no enemy can "
        "come within the gun's reach this turn (the held action could not fire)",
    )
    rules: dict[str, Any] = Field(
        default_factory=dict,
        description="policies of the scenario's rule system (e.g. when to spend Edge), "
        "validated by the system's own Tactics model",
    )
