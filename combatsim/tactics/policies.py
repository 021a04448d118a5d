"""The built-in tactics: turn a fighter's ``Tactics`` and the battle's state into a plan.

A plan says what one action does (fire, autofire, melee, throw, reload, run, walk, hold) and
why, in words the trace prints. Policies read the battle; they never roll dice or change
state, so the same situation always gives the same plan (``random`` targets use the battle's
own generator).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from ..engine.battle import Battle, Fighter

Point = tuple[float, float]


@dataclass
class Plan:
    kind: str  # fire, melee, grenade, reload, run, flee, walk, hold, none
    reason: str
    target: Fighter | None = None
    weapon: Any = None
    shots: int = 1
    dest: Point | None = None  # where to walk (with the action) or run (as the action)
    aim: Point | None = None
    sweep: tuple = ()  # further (target, rounds) of an autofire sweep


def plan_action(battle: Battle, me: Fighter) -> Plan:
    tactics = me.spec.tactics
    enemies = battle.standing_enemies(me)
    if not enemies:
        return Plan("none", "no enemy left standing")
    walk, run = battle.system.movement(me)
    walk_left = max(0.0, walk - me.moved_this_turn)
    nearest = min(enemies, key=lambda e: battle.distance(me, e))

    if (
        tactics.fall_back
        and battle.system.harm(me) >= tactics.fall_back_at
        and not me.ran_this_turn
    ):
        return Plan(
            "flee",
            f"badly hurt ({battle.system.harm(me):.0%}): falls back from {nearest.name}",
            dest=_away(me.position, nearest.position, run),
        )

    target = choose_target(battle, me, enemies)
    dist = battle.distance(me, target)
    why_target = f"{target.name} ({tactics.target})"

    firearm = next((w for w in me.spec.weapons if w.kind == "firearm"), None)
    melee = next((w for w in me.spec.weapons if w.kind == "melee"), None)
    reach = battle.environment.melee_range
    if melee is not None and dist <= reach:  # in reach with a blade or club: use it
        return Plan("melee", f"in reach of {why_target}", target=target, weapon=melee)
    if me.running:  # seed 002 Weapon Modifiers: an attacker running cannot shoot (or throw)
        if firearm is not None and me.ammo[me.spec.weapons.index(firearm)] < firearm.ammo:
            return Plan("reload", "ran this turn and cannot shoot: reloads", weapon=firearm)
        return Plan("none", "ran this turn: cannot shoot until the next turn")

    grenade = _grenade_plan(battle, me, enemies, target)
    if grenade is not None:
        return grenade
    if firearm is None:  # a melee fighter closes in
        if dist <= reach:
            return Plan("melee", f"in reach of {why_target}", target=target, weapon=melee)
        if dist - walk_left <= reach:
            return Plan(
                "melee",
                f"walks {dist - reach + 0.01:.1f} m into reach of {why_target}",
                target=target,
                weapon=melee,
                dest=_toward(me.position, target.position, dist - reach + 0.01),
            )
        if not me.ran_this_turn:
            return Plan(
                "run",
                f"runs at {why_target}",
                dest=_toward(me.position, target.position, min(run, dist - reach + 0.01)),
            )
        return Plan(
            "walk",
            f"walks toward {why_target}",
            dest=_toward(me.position, target.position, walk_left),
        )

    index = me.spec.weapons.index(firearm)
    if me.ammo[index] < tactics.reload_below:
        return Plan(
            "reload",
            f"{me.ammo[index]} rounds left in the {me.weapon_label(firearm)}",
            weapon=firearm,
            dest=_movement_dest(battle, me, target, walk_left),
        )

    dest = _movement_dest(battle, me, target, walk_left)
    where = dest if dest is not None else me.position
    dist_after = math.dist(where, target.position)
    if dist_after <= firearm.max_range:
        shots = _shots(battle, me, firearm, index)
        mode = f"autofire x{shots}" if shots > 1 else "single shot"
        moved = f", after walking {math.dist(me.position, where):.1f} m" if dest is not None else ""
        sweep = _sweep(battle, me, target, enemies, shots, firearm) if me.spec.tactics.sweep else ()
        if sweep:
            mode += " sweeping " + ", ".join(v.name for v, _ in sweep)
        return Plan(
            "fire",
            f"{mode} at {why_target}{moved}",
            target=target,
            weapon=firearm,
            shots=shots,
            dest=dest,
            sweep=sweep,
        )
    if tactics.movement == "hold":
        return Plan(
            "hold",
            f"holds fire until an enemy comes within {firearm.max_range:g} m",
            weapon=firearm,
        )
    if not me.ran_this_turn:
        return Plan(
            "run",
            f"out of range of {why_target}: runs closer",
            dest=_toward(me.position, target.position, min(run, dist - 0.8 * firearm.max_range)),
        )
    return Plan("walk", f"out of range of {why_target}: walks closer", dest=dest)


SWEEP_REACH = 3.0  # meters between neighbours an autofire sweep will walk across
SWEEP_TARGETS = 3


def _sweep(battle: Battle, me: Fighter, target: Fighter, enemies, shots: int, weapon) -> tuple:
    """Spread an autofire burst over up to 3 close enemies (ruling 8): each gets an even share
    of the rounds left after one is wasted per meter between neighbours; the first target
    keeps the remainder. Empty when no second enemy is close enough to get a round."""
    chain, wasted, last = [target], 0, target
    for _ in range(SWEEP_TARGETS - 1):
        near = [
            e
            for e in enemies
            if e not in chain
            and battle.distance(last, e) <= SWEEP_REACH
            and battle.distance(me, e) <= weapon.max_range  # never past the weapon's reach
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


def choose_target(battle: Battle, me: Fighter, enemies: list[Fighter]) -> Fighter:
    policy = me.spec.tactics.target
    if policy == "random":
        return enemies[battle.roll.below(len(enemies))]
    if policy == "weakest":
        return max(enemies, key=lambda e: (battle.system.harm(e), -battle.distance(me, e)))
    if policy == "most_dangerous":
        return max(enemies, key=lambda e: (battle.system.threat(e), -battle.distance(me, e)))
    if policy == "focus":
        current = battle.focus.get(me.side)
        if current is None or current not in enemies or battle.distance(me, current) > _reach(me):
            current = min(enemies, key=lambda e: battle.distance(me, e))
            battle.focus[me.side] = current
        return current
    return min(enemies, key=lambda e: battle.distance(me, e))


def _reach(me: Fighter) -> float:
    """How far the fighter's guns carry (unbounded for a fighter without one: it closes in)."""
    ranges = [w.max_range for w in me.spec.weapons if w.kind == "firearm"]
    return max(ranges) if ranges else math.inf


def _shots(battle: Battle, me: Fighter, weapon, index: int) -> int:
    tactics = me.spec.tactics
    if tactics.fire_mode == "single" or not weapon.can_autofire:
        return 1
    most = battle.system.max_autofire(me, weapon)
    if tactics.autofire_rounds is not None:
        most = min(most, tactics.autofire_rounds)
    return max(1, min(most, me.ammo[index]))


def _grenade_plan(
    battle: Battle, me: Fighter, enemies: list[Fighter], target: Fighter
) -> Plan | None:
    policy = me.spec.tactics.grenades
    if policy == "never":
        return None
    for i, w in enumerate(me.spec.weapons):
        if w.kind != "grenade" or me.ammo[i] <= 0:
            continue
        radius = battle.system.blast_radius(w)
        if policy == "always":
            if battle.distance(me, target) <= w.max_range and battle.distance(me, target) > radius:
                return Plan(
                    "grenade",
                    f"throws at {target.name} (grenades: always)",
                    weapon=w,
                    aim=target.position,
                    target=target,
                )
            continue
        friends = [
            f for f in battle.fighters if f.side == me.side and battle.system.status(f) != "dead"
        ]
        best, best_count = None, 0
        for e in enemies:
            aim = e.position
            if math.dist(me.position, aim) > w.max_range:
                continue
            if any(math.dist(f.position, aim) <= radius for f in friends):
                continue
            count = sum(math.dist(x.position, aim) <= radius for x in enemies)
            if count > best_count:
                best, best_count = aim, count
        if best is not None and best_count >= me.spec.tactics.grenade_min_targets:
            return Plan(
                "grenade",
                f"{best_count} enemies inside the blast and no friend",
                weapon=w,
                aim=best,
            )
    return None


def _movement_dest(battle: Battle, me: Fighter, target: Fighter, walk_left: float) -> Point | None:
    tactics = me.spec.tactics
    if walk_left <= 0 or tactics.movement == "hold":
        return None
    dist = battle.distance(me, target)
    if tactics.movement == "take_cover":
        if me.cover != "none":  # already behind cover: stay there
            return None
        point = battle.free_cover_point(me, walk_left)
        return point.position if point is not None else None
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
