"""The built-in tactics: turn a fighter's ``Tactics`` and the battle's state into a plan.

A plan says what one action does (fire, autofire, melee, throw, reload, run, walk, hold) and
why, in words the trace prints. Policies read the battle; they never roll dice or change
state, so the same situation always gives the same plan (``random`` targets use the
battle's own generator).
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any

from ..rules.base import blast_distance

if TYPE_CHECKING:
    from ..rules.base import BattleView, Combatant

Point = tuple[float, float]
_dist = math.dist


class Plan:
    """What one action does. ``reason`` is the trace's words for it: built only when the
    battle is traced (an empty string otherwise)."""

    __slots__ = ("kind", "reason", "target", "weapon", "shots", "dest", "aim", "sweep")

    def __init__(
        self,
        kind: str,  # fire, melee, grenade, reload, run, flee, walk, hold, none
        reason: str = "",
        target: Combatant | None = None,
        weapon: Any = None,
        shots: int = 1,
        dest: Point | None = None,  # where to walk (with the action) or run (as the action)
        aim: Point | None = None,
        sweep: tuple = (),  # further (target, rounds) of an autofire sweep
    ):
        self.kind = kind
        self.reason = reason
        self.target = target
        self.weapon = weapon
        self.shots = shots
        self.dest = dest
        self.aim = aim
        self.sweep = sweep

    def __repr__(self) -> str:
        return f"Plan({self.kind!r}, {self.reason!r})"


def plan_action(battle: BattleView, me: Combatant) -> Plan:
    """Decide one action. The distances to the standing enemies come from the battle
    (``enemies_in_view``, measured again only after someone moved or left) and are handed to
    every step that needs them, which only read them."""
    tactics = me.tactics
    here = me.position
    tracing = battle.tracing
    _, enemies, dist, nearest, _ = battle.enemies_in_view(me)
    if nearest is None:
        return Plan("none", "no enemy left standing" if tracing else "")
    run = me.run
    walk_left = me.walk - me.moved_this_turn
    if walk_left < 0.0:
        walk_left = 0.0

    if tactics.fall_back and not me.ran_this_turn:
        harm = battle.system.harm(me)
        if harm >= tactics.fall_back_at:
            return Plan(
                "flee",
                f"badly hurt ({harm:.0%}): falls back from {nearest.name}" if tracing else "",
                dest=_away(here, nearest.position, run),
            )

    if tactics.target == "nearest":  # the usual policy, without a call
        target = nearest
    else:
        target = choose_target(battle, me, enemies, dist, nearest)
    d = dist[target.index]
    why_target = f"{target.name} ({tactics.target})" if tracing else ""

    firearm = me.firearm
    melee = me.melee
    reach = battle.melee_range
    if melee is not None and d <= reach:  # in reach with a blade or club: use it
        return Plan("melee", f"in reach of {why_target}" if tracing else "", target, melee)
    if me.running:  # seed 002 Weapon Modifiers: an attacker running cannot shoot (or throw)
        if firearm is not None and me.ammo[me.firearm_index] < firearm.ammo:
            return Plan("reload", "ran this turn and cannot shoot: reloads", weapon=firearm)
        return Plan("none", "ran this turn: cannot shoot until the next turn")

    if me.grenades and tactics.grenades != "never":
        grenade = _grenade_plan(battle, me, enemies, target, dist)
        if grenade is not None:
            return grenade
    if firearm is None:  # a melee fighter closes in
        if d <= reach:
            return Plan("melee", f"in reach of {why_target}" if tracing else "", target, melee)
        if d - walk_left <= reach:
            return Plan(
                "melee",
                f"walks {d - reach + 0.01:.1f} m into reach of {why_target}" if tracing else "",
                target,
                melee,
                dest=_toward(here, target.position, d - reach + 0.01),
            )
        if not me.ran_this_turn:
            return Plan(
                "run",
                f"runs at {why_target}" if tracing else "",
                dest=_toward(here, target.position, min(run, d - reach + 0.01)),
            )
        return Plan(
            "walk",
            f"walks toward {why_target}" if tracing else "",
            dest=_toward(here, target.position, walk_left),
        )

    index = me.firearm_index
    ammo = me.ammo[index]
    # Where to walk with this action (None: stay)
    movement = tactics.movement
    dest = None
    if walk_left > 0 and movement != "hold":
        if movement == "take_cover":
            if me.cover == "none":  # already behind cover: stay there
                point = battle.free_cover_point(me, walk_left)
                dest = point.position if point is not None else None
        else:
            dest = _approach(me, target, walk_left, d)
    if ammo < tactics.reload_below:
        return Plan(
            "reload",
            f"{ammo} rounds left in the {me.weapon_label(firearm)}" if tracing else "",
            weapon=firearm,
            dest=dest,
        )

    d_after = d if dest is None else _dist(dest, target.position)
    if d_after <= me.firearm_range:
        shots = shots_now(me.burst, ammo)
        at = here if dest is None else dest  # where it fires from: after the walk
        sweep = _sweep(battle, at, target, enemies, shots, firearm) if tactics.sweep else ()
        reason = ""
        if tracing:
            mode = f"autofire x{shots}" if shots > 1 else "single shot"
            moved = f", after walking {_dist(here, dest):.1f} m" if dest is not None else ""
            if sweep:
                mode += " sweeping " + ", ".join(v.name for v, _ in sweep)
            reason = f"{mode} at {why_target}{moved}"
        return Plan("fire", reason, target, firearm, shots, dest, None, sweep)
    if tactics.movement == "hold":
        return Plan(
            "hold",
            f"holds fire until an enemy comes within {firearm.max_range:g} m" if tracing else "",
            weapon=firearm,
        )
    if not me.ran_this_turn:
        return Plan(
            "run",
            f"out of range of {why_target}: runs closer" if tracing else "",
            dest=_toward(here, target.position, min(run, d - 0.8 * firearm.max_range)),
        )
    return Plan("walk", f"out of range of {why_target}: walks closer" if tracing else "", dest=dest)


def burst_size(tactics, firearm, most: int) -> int:
    """Shots per action with a full firearm: 1 for single shots (or a weapon that cannot
    autofire), else the rule system's most (``most``), or fewer if the tactics say
    ``autofire_rounds``. Fixed for a combatant: the battle works it out once (as
    ``Fighter.burst``); an action fires at most the rounds left, and at least one."""
    if firearm is None or tactics.fire_mode == "single" or not firearm.can_autofire:
        return 1
    if tactics.autofire_rounds is not None and tactics.autofire_rounds < most:
        most = tactics.autofire_rounds
    return most if most > 1 else 1


def shots_now(burst: int, ammo: int) -> int:
    """Shots this action: the combatant's ``burst`` (``burst_size``), at most the ``ammo``
    left, and at least one."""
    if burst <= ammo:
        return burst
    return ammo if ammo > 0 else 1


SWEEP_REACH = 3.0  # meters between neighbours an autofire sweep will walk across
SWEEP_TARGETS = 3


def _sweep(battle: BattleView, at: Point, target: Combatant, enemies, shots: int, weapon) -> tuple:
    """Spread an autofire burst fired from ``at`` over up to 3 close enemies (ruling 8): each
    gets an even share of the rounds left after one is wasted per meter between neighbours;
    the first target keeps the remainder. Empty when no second enemy is close enough to get a
    round. Every target is within the weapon's reach of ``at``, where the shooter stands once
    it has walked with this action (not where it plans from)."""
    chain, wasted, last = [target], 0, target
    for _ in range(SWEEP_TARGETS - 1):
        near = [
            e
            for e in enemies
            if e not in chain
            and battle.distance(last, e) <= SWEEP_REACH
            and _dist(at, e.position) <= weapon.max_range  # never past the weapon's reach
        ]
        if not near:
            break
        nxt = min(near, key=lambda e: battle.distance(last, e))
        cost = math.ceil(battle.distance(last, nxt))
        if (shots - wasted - cost) // (len(chain) + 1) < 1:
            break
        chain.append(nxt)
        wasted += cost
        last = nxt
    if len(chain) == 1:
        return ()
    share = (shots - wasted) // len(chain)
    return tuple((e, share) for e in chain[1:])


def choose_target(
    battle: BattleView,
    me: Combatant,
    enemies: list[Combatant],
    dist: dict[int, float] | None = None,
    nearest: Combatant | None = None,
) -> Combatant:
    """The enemy the fighter's ``target`` policy picks; ``dist``: meters to each enemy by
    index, ``nearest``: the first of the nearest (both worked out here when not given)."""
    if dist is None:
        dist = {e.index: _dist(me.position, e.position) for e in enemies}
    if nearest is None:
        nearest = min(enemies, key=lambda e: dist[e.index])
    policy = me.tactics.target
    if policy == "random":
        return enemies[battle.roll.below(len(enemies))]
    if policy == "weakest":
        harm = battle.system.harm
        return max(enemies, key=lambda e: (harm(e), -dist[e.index]))
    if policy == "most_dangerous":
        threat = battle.system.threat
        return max(enemies, key=lambda e: (threat(e), -dist[e.index]))
    if policy == "focus":
        current = battle.focus.get(me.side)
        if current is None or current.index not in dist or dist[current.index] > me.reach:
            current = nearest
            battle.focus[me.side] = current
        return current
    return nearest


def _grenade_plan(
    battle: BattleView,
    me: Combatant,
    enemies: list[Combatant],
    target: Combatant,
    dist: dict[int, float],
) -> Plan | None:
    policy = me.tactics.grenades
    tracing = battle.tracing
    in_blast = battle.system.in_blast  # whom the blast would catch, as the blast itself decides
    for i, w in me.grenades:
        if me.ammo[i] <= 0:
            continue
        if policy == "always":
            d = dist[target.index]
            if d <= w.max_range and not in_blast(w, blast_distance(target.position, me.position)):
                return Plan(
                    "grenade",
                    f"throws at {target.name} (grenades: always)" if tracing else "",
                    target,
                    w,
                    aim=target.position,
                )
            continue
        status = battle.system.status
        friends = [f for f in battle.fighters if f.side == me.side and status(f) != "dead"]
        best, best_count = None, 0
        for e in enemies:
            aim = e.position
            if dist[e.index] > w.max_range:
                continue
            if any(in_blast(w, blast_distance(aim, f.position)) for f in friends):
                continue
            count = sum(in_blast(w, blast_distance(aim, x.position)) for x in enemies)
            if count > best_count:
                best, best_count = aim, count
        if best is not None and best_count >= me.tactics.grenade_min_targets:
            return Plan(
                "grenade",
                f"{best_count} enemies inside the blast and no friend" if tracing else "",
                weapon=w,
                aim=best,
            )
    return None


def _approach(me: Combatant, target: Combatant, walk_left: float, dist: float) -> Point | None:
    """Movement ``advance`` / ``keep_range``: walk toward ``preferred_range`` of the target
    (``dist`` meters away), or back off to it; None: stay."""
    tactics = me.tactics
    gap = dist - tactics.preferred_range
    if gap > 0.5:
        return _toward(me.position, target.position, min(walk_left, gap))
    if tactics.movement == "keep_range" and gap < -0.5:
        return _away(me.position, target.position, min(walk_left, -gap))
    return None


def _toward(a: Point, b: Point, d: float) -> Point:
    length = math.dist(a, b)
    if length == 0 or d <= 0:
        return a
    t = min(1.0, d / length)
    return (a[0] + (b[0] - a[0]) * t, a[1] + (b[1] - a[1]) * t)


def _away(a: Point, b: Point, d: float) -> Point:
    length = math.dist(a, b)
    if length == 0:
        return (a[0] + d, a[1])
    return (a[0] + (a[0] - b[0]) / length * d, a[1] + (a[1] - b[1]) / length * d)
