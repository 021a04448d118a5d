"""A fighter's state in one battle: what the engine derives from its spec once per scenario
(``StaticParts``) and what changes as the battle runs (``Fighter``: position, cover, ammunition,
initiative and its waits, counters for the records, and the memos the field keeps on it).
The rule system's own state hangs off ``Fighter.state``."""

from __future__ import annotations

import math
from collections.abc import Sequence
from types import SimpleNamespace
from typing import Any, NamedTuple

import simpy
from simpy.events import NORMAL, Event

from ..rules.situation import NOT_SEEN, EnemiesInView, Situation
from ..scenario.model import FighterSpec
from .simpy_parts import Alarm

Point = tuple[float, float]  # meters east and north


class StaticParts(NamedTuple):
    """What the engine derives from a fighter's spec alone, once per scenario (``_prepared``):
    a ``Fighter`` copies it into its slots."""

    spec: FighterSpec
    name: str
    side: str
    tactics: SimpleNamespace  # the spec's ``Tactics`` as plain attributes
    weapons: Sequence[Any]
    weapon_names: dict[int, str]  # id(weapon) -> its name on the sheet
    weapon_index: dict[int, int]  # id(weapon) -> its place in ``weapons``
    firearm: Any  # the first firearm, or None
    firearm_index: int  # its place (-1: none)
    firearm_range: float  # its reach (0: none)
    melee: Any  # the first melee weapon, or None
    grenades: list[tuple[int, Any]]  # (place, grenade)
    reach: float  # the longest firearm's reach (infinite: none)
    full_loads: tuple[int, ...]  # rounds per load of each weapon (0: needs none)


class Fighter:
    """A combatant's mutable state in one battle; the immutable spec stays in ``spec``.

    What the tactics ask on every action (weapons by kind, walk and run) is derived once here.
    """

    # Slots: the hot loops read a dozen of these per action, and an instance dict of this
    # many keys no longer shares its keys (slower attribute access, measured).
    __slots__ = (
        "spec",
        "index",
        "name",
        "side",
        "tactics",
        "weapons",
        "position",
        "cover",
        "state",
        "ammo",
        "weapon_names",
        "weapon_index",
        "firearm",
        "firearm_index",
        "firearm_range",
        "burst",
        "full_loads",
        "melee",
        "grenades",
        "reach",
        "walk",
        "run",
        "process",
        "scores",
        "next_score",
        "priority",
        "penalty_at_roll",
        "shift",
        "waiting_shift",
        "turn_ends_at",
        "alarm",
        "wake",
        "hold_for",
        "hold_reach",
        "hold_score",
        "hold_cell",
        "can_act",
        "fled",
        "lose_next_action",
        "ran_this_turn",
        "running",
        "moved_this_turn",
        "moved_this_action",
        "actions",
        "actions_this_turn",
        "shots",
        "hits",
        "damage_dealt",
        "damage_taken",
        "knocked_out_turn",
        "cover_seen",
        "cover_claim",
        "enemies_seen",
        "seen_from",
        "situation",
        "attacks",
    )

    def __init__(self, spec: FighterSpec, index: int, static: StaticParts | None = None):
        """``static``: what ``static_parts(spec)`` returns, when the caller keeps it (a battle
        prepares it once per scenario, not once per battle)."""
        self.index = index
        (
            self.spec,
            self.name,
            self.side,
            self.tactics,
            self.weapons,
            self.weapon_names,
            self.weapon_index,
            self.firearm,
            self.firearm_index,
            self.firearm_range,
            self.melee,
            self.grenades,
            self.reach,
            self.full_loads,
        ) = static if static is not None else self.static_parts(spec)
        # shots the tactics fire per action with a full firearm, set by the battle from the
        # rule system's most autofire shots
        self.burst = 1
        self.position: tuple[float, float] = spec.position
        self.cover = spec.cover
        self.state: Any = None
        self.ammo = list(self.full_loads)
        self.walk = self.run = 0.0  # meters, set by the battle from the rule system
        self.process: simpy.Process | None = None
        self.scores: Sequence[int] = []  # this turn's initiative scores (empty: not acting)
        self.next_score = 0  # the score of its action after the current one (0: none)
        self.priority = NORMAL + 1
        self.penalty_at_roll = 0
        self.shift = 0  # how far wounds moved this turn's scores down since the roll
        self.waiting_shift = 0  # the shift the pending action was timed with
        self.turn_ends_at = 0.0  # simulated time the fighter's current turn ends
        self.alarm: Alarm | None = None  # what the fighter waits on between turns
        self.wake: Event | None = None  # the event a held action waits on
        # a held action's target (None: whoever comes), reach, initiative score and place in
        # the battle's ``Holds`` (None: not holding)
        self.hold_for: Fighter | None = None
        self.hold_reach = 0.0
        self.hold_score = 0
        self.hold_cell: tuple[str, int, int] | None = None
        self.can_act = True
        self.fled = False
        self.lose_next_action: bool | str = False  # or the reason, for the trace
        # per turn / per action
        self.ran_this_turn = False
        self.running = False
        self.moved_this_turn = 0.0
        self.moved_this_action = 0.0
        # counters for combatants.csv
        self.actions = 0
        self.actions_this_turn = 0
        self.shots = 0
        self.hits = 0
        self.damage_dealt = 0
        self.damage_taken = 0
        self.knocked_out_turn: int | None = None
        # (layout, claims, within, free_cover_point's answer)
        self.cover_seen: tuple = (-1, -1, 0.0, None)
        self.cover_claim = -1  # the cover point (index) it is walking to, if any
        # ``Field.enemies_in_view``'s memo
        self.enemies_seen: EnemiesInView = NOT_SEEN
        # what that memo stood on in a big fight (``field._Grid.footing``)
        self.seen_from: tuple | None = None
        self.situation: Situation | None = None  # ``Field.situation``'s, made at its first attack
        # (target, weapon, shots) -> attacks made (``Battle._execute``; a target -1: a point
        # aimed at; a weapon -1: bare hands)
        self.attacks: dict[tuple[int, int, int], int] = {}

    @staticmethod
    def static_parts(spec: FighterSpec) -> StaticParts:
        """What the tactics ask on every action (weapons by kind, reach), derived from the
        spec alone."""
        weapon_index = {id(w): i for i, w in enumerate(spec.weapons)}
        firearm = next((w for w in spec.weapons if w.kind == "firearm"), None)
        return StaticParts(
            spec=spec,
            name=spec.name,
            side=spec.side,
            # the tactics read a dozen of these per action: plain attributes read faster
            # than the validated model's
            tactics=SimpleNamespace(**dict(spec.tactics)),
            weapons=spec.weapons,
            weapon_names={id(w): n for w, n in zip(spec.weapons, spec.sheet.weapons, strict=True)},
            weapon_index=weapon_index,
            firearm=firearm,
            firearm_index=weapon_index[id(firearm)] if firearm else -1,
            firearm_range=firearm.max_range if firearm else 0.0,
            melee=next((w for w in spec.weapons if w.kind == "melee"), None),
            grenades=[(i, w) for i, w in enumerate(spec.weapons) if w.kind == "grenade"],
            reach=max((w.max_range for w in spec.weapons if w.kind == "firearm"), default=math.inf),
            full_loads=tuple(w.ammo if w.ammo is not None else 0 for w in spec.weapons),
        )

    def weapon_label(self, weapon: Any) -> str:
        return self.weapon_names.get(id(weapon), "weapon")


def leave_grenades(f: Fighter, left: int) -> None:
    """``left`` grenades in all in ``f``'s grenade slots: the last slots keep theirs, as the
    tactics throw from the first slot that has one."""
    slots: list[tuple[int, Any]] = f.grenades
    for place in range(len(slots) - 1, -1, -1):  # not reversed(): mypyc cannot compile it here
        i = slots[place][0]
        full = f.full_loads[i]
        f.ammo[i] = left if left < full else full
        left -= f.ammo[i]
