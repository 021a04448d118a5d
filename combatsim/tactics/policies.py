"""The built-in tactics: turn a fighter's ``Tactics`` and the battle's state into a plan.

A plan says what one action does (fire, autofire, melee, throw, reload, run, walk, hold) and
why, in words the trace prints. Policies read the battle; they never roll dice or change
state, so the same situation always gives the same plan (``random`` targets use the
battle's own generator).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any, Generic

from ..rules.base import Autofire, C, grenade_rules
from ..rules.situation import blast_distance, whole_meters

if TYPE_CHECKING:
    from ..rules.base import BattleView

Point = tuple[float, float]
_dist = math.dist
BLAST_SLACK = 1e-6  # meters: a margin past a blast's radius, far above floating point's error
# meters: less of the turn's walk left than this is none (what floating point leaves of a walk
# spent to the end), so no action walks it, reports it or counts it as moving
MIN_WALK = 1e-6


def walk_left(me: Any) -> float:
    """Meters of the turn's walk the fighter has left: 0 below ``MIN_WALK``."""
    left = me.walk - me.moved_this_turn
    return left if left >= MIN_WALK else 0.0


class Plan(Generic[C]):
    """What one action does. ``reason`` is the trace's words for it: built only when the
    battle is traced (an empty string otherwise)."""

    __slots__ = ("kind", "reason", "target", "weapon", "shots", "dest", "aim", "sweep")

    def __init__(
        self,
        kind: str,  # fire, melee, grenade, reload, run, flee, walk, hold, none
        reason: str = "",
        target: C | None = None,
        weapon: Any = None,
        shots: int = 1,
        dest: Point | None = None,  # where to walk (with the action) or run (as the action)
        aim: Point | None = None,
        sweep: tuple[tuple[C, int], ...] = (),  # further (target, rounds) of an autofire sweep
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


def plan_action(battle: BattleView[C], me: C) -> Plan[C]:
    """Decide one action. The distances to the standing enemies come from the battle
    (``enemies_in_view``, measured again only after someone moved or left) and are handed to
    every step that needs them, which only read them."""
    tactics = me.tactics
    here = me.position
    tracing = battle.tracing
    seen = battle.enemies_in_view(me)
    nearest = seen.nearest
    if nearest is None:
        return Plan("none", "no enemy left standing" if tracing else "")
    enemies, dist = seen.enemies, seen.meters
    walk = walk_left(me)

    if tactics.fall_back and (flee := _fall_back(battle, me, nearest, enemies)) is not None:
        return flee

    firearm = me.firearm
    if firearm is None:
        return _close_in(battle, me, enemies, dist, nearest, walk)
    melee = me.melee
    if melee is not None and seen.in_reach:  # an enemy in reach of a blade or club: use it
        return _melee_in_reach(battle, me, enemies, dist)
    if me.running and battle.system.running_stops_shooting:  # nor throw: Weapon Modifiers
        if me.ammo[me.firearm_index] < firearm.ammo:
            return Plan("reload", "ran this turn and cannot shoot: reloads", weapon=firearm)
        return Plan("none", "ran this turn: cannot shoot until the next turn")
    if (  # thrown from here, without a walk
        me.grenades
        and tactics.grenades != "never"
        and (grenade := _grenade_plan(battle, me, enemies, dist)) is not None
    ):
        return grenade

    # Where the fighter will fire from: take_cover walks toward the nearest free cover point
    # within cover_within, over as many walks as it takes; the other movements walk only
    # relative to the target (below).
    dest = None
    if tactics.movement == "take_cover" and me.cover != "full" and walk > 0:
        dest = _to_cover(battle, me, walk)
        if dest is not None:
            dist, nearest = battle.measured_from(me, dest)
    reach = me.firearm_range
    # advance and keep_range walk toward their target before they fire: what they can reach
    # is what is within the gun's range after that walk (``_approach`` ends within range of
    # a target as far as reach + walk)
    approach = dest is None and walk > 0 and tactics.movement in ("advance", "keep_range")
    choose_within = reach + walk if approach else reach
    target = (
        nearest  # the usual case, without a call
        if tactics.target == "nearest" and dist[nearest.index] <= choose_within
        else choose_target(battle, me, enemies, dist, nearest, choose_within)
    )
    d = dist[target.index]
    why_target = _why(battle, me, target) if tracing else ""
    if approach:
        dest, d = _approach(me, target, walk, d)

    ammo = me.ammo[me.firearm_index]
    if ammo < tactics.reload_below:
        return Plan(
            "reload",
            f"{ammo} rounds left in the {me.weapon_label(firearm)}" if tracing else "",
            weapon=firearm,
            dest=dest,
        )
    if d <= reach:
        shots = shots_now(me.burst, ammo)
        at = here if dest is None else dest  # where it fires from: after the walk
        system = battle.system
        sweeps = _autofires(system) and system.autofire_sweeps(me)  # type: ignore[attr-defined]
        sweep = _sweep(battle, at, target, enemies, shots, firearm) if sweeps else ()
        reason = _fire_reason(here, dest, shots, sweep, why_target) if tracing else ""
        return Plan("fire", reason, target, firearm, shots, dest, None, sweep)
    return _out_of_reach(battle, me, target, d, dest, why_target)


_AUTOFIRES: dict[type, bool] = {}  # rule system class -> has the ``Autofire`` capability


def _autofires(system: Any) -> bool:
    """Has ``system`` the ``Autofire`` capability? Asked by type, once: ``isinstance`` against
    an abstract class costs several times a dictionary's lookup, once per shot planned."""
    kind = type(system)
    found = _AUTOFIRES.get(kind)
    if found is None:
        found = _AUTOFIRES[kind] = isinstance(system, Autofire)
    return found


def _fall_back(battle: BattleView[C], me: C, nearest: C, enemies: list[C]) -> Plan[C] | None:
    """``fall_back``: badly hurt, the fighter runs away from every standing enemy (when it may
    run with this action): to the point of its run farthest from the nearest of them
    (``_retreat``)."""
    if me.ran_this_turn or not battle.system.may_run(me):
        return None
    harm = battle.system.harm(me)
    if harm < me.tactics.fall_back_at:
        return None
    retreat = _retreat(battle, me, nearest, enemies)
    if retreat is None:
        return None  # cornered: every run leads nearer an enemy, so it fights on
    dest, cover = retreat
    reason = ""
    if battle.tracing:
        away = nearest.name if len(enemies) == 1 else f"{len(enemies)} enemies"
        reason = f"badly hurt ({harm:.0%}): falls back from {away}" + (
            f", to {cover} cover" if cover else ""
        )
    return Plan("flee", reason, dest=dest)


RETREAT_BEARINGS = 16  # directions of a run a fighter falling back weighs, besides straight away
COVER_GAIN = 0.5  # meters farther from every enemy a fall back to a cover point must get


def _retreat(
    battle: BattleView[C], me: C, nearest: C, enemies: list[C]
) -> tuple[Point, str] | None:
    """Where a fighter falling back runs, and the cover there ("" for none): of the points
    its run reaches (straight away from the nearest enemy, and ``RETREAT_BEARINGS`` others
    around it), the one farthest from the nearest enemy there: between two enemies it runs
    off their line, not back and forth along it. A free cover point within its run is taken
    instead when it leaves the fighter at least ``COVER_GAIN`` m farther from every enemy
    than it stands now. None when every run ends nearer an enemy than it stands."""
    here, run = me.position, me.run
    away = _away(here, nearest.position, run)
    if len(enemies) == 1:  # straight away is the farthest point from one enemy
        return away, ""

    def safety(at: Point) -> float:
        return min(_dist(at, e.position) for e in enemies)

    best, best_safety = away, safety(away)
    for k in range(RETREAT_BEARINGS + 1):
        if k == RETREAT_BEARINGS:
            at = here  # when every run leads nearer an enemy
        else:
            angle = 2 * math.pi * k / RETREAT_BEARINGS
            at = (here[0] + run * math.cos(angle), here[1] + run * math.sin(angle))
        s = safety(at)
        if s > best_safety:
            best, best_safety = at, s
    now = safety(here)
    if best == here:
        return None
    cover_best, cover_safety, cover = None, now + COVER_GAIN, ""
    for point in battle.environment.cover_points:
        at = point.position
        if _dist(here, at) > run or any(
            f is not me and f.can_act and _dist(f.position, at) < 0.5 for f in battle.fighters
        ):
            continue
        s = safety(at)
        if s >= cover_safety:
            cover_best, cover_safety, cover = (at[0], at[1]), s, point.cover
    return (best, "") if cover_best is None else (cover_best, cover)


def _melee_in_reach(
    battle: BattleView[C], me: C, enemies: list[C], dist: dict[int, float]
) -> Plan[C]:
    """An enemy stands in reach of the fighter's blade or club: it attacks in melee."""
    reach = battle.melee_range
    near = [e for e in enemies if dist[e.index] <= reach]
    target = near[0] if len(near) == 1 else choose_target(battle, me, near, dist, reach=reach)
    why = f"in reach of {_why(battle, me, target)}" if battle.tracing else ""
    return Plan("melee", why, target, me.melee)


def _fire_reason(
    here: Point, dest: Point | None, shots: int, sweep: Sequence[tuple[C, int]], why_target: str
) -> str:
    """The trace's reason for a ``fire`` plan."""
    mode = f"autofire x{shots}" if shots > 1 else "single shot"
    moved = f", after walking {_dist(here, dest):.1f} m" if dest is not None else ""
    if sweep:
        mode += " sweeping " + ", ".join(v.name for v, _ in sweep)
    return f"{mode} at {why_target}{moved}"


def _out_of_reach(
    battle: BattleView[C], me: C, target: C, d: float, dest: Point | None, why_target: str
) -> Plan[C]:
    """No enemy within the gun's reach from where the fighter will stand (``choose_target``
    prefers one that is): ``hold`` and ``take_cover`` wait with a held action (after walking
    toward cover, if it is on its way, even with no walk left this turn); ``advance`` and
    ``keep_range`` close in, and so does ``take_cover`` when no free cover is left within
    ``cover_within``."""
    tracing = battle.tracing
    movement = me.tactics.movement
    reach = me.firearm_range
    to_cover = (  # on its way to a free cover point (asked here: rarely needed)
        movement == "take_cover"
        and me.cover == "none"
        and (dest is not None or battle.free_cover_point(me, me.tactics.cover_within) is not None)
    )
    if movement == "hold" or (movement == "take_cover" and (me.cover != "none" or to_cover)):
        lull = _lull_reload(battle, me, dest)
        if lull is not None:
            return lull
        reason = ""
        if tracing:
            where = " in cover" if me.cover != "none" else ""
            if dest is not None:
                where = f" after walking {_dist(me.position, dest):.1f} m toward cover"
            elif to_cover:
                where = " on its way to cover (no walk left this turn)"
            at = me.position if dest is None else dest
            enemies = battle.enemies_in_view(me).enemies
            if any(_dist(at, e.position) <= reach for e in enemies):  # target_in_reach: false
                reason = f"{why_target} is out of range: holds fire{where} (target_in_reach: false)"
            else:
                reason = f"no enemy within {reach:g} m: holds fire{where} until one comes in range"
        # target_in_reach: false holds for its chosen target, out of range now (``_hold``)
        held_for = None if me.tactics.target_in_reach else target
        return Plan("hold", reason, held_for, me.firearm, dest=dest)
    why = ""
    if movement == "take_cover" and tracing:
        why = f"no free cover within {me.tactics.cover_within:g} m: "
    if not me.ran_this_turn and battle.system.may_run(me):
        return Plan(
            "run",
            f"{why}{why_target} is out of range: runs closer" if tracing else "",
            dest=_toward(me.position, target.position, min(me.run, d - 0.8 * reach)),
        )
    return Plan(
        "walk",
        f"{why}{why_target} is out of range: walks closer" if tracing else "",
        dest=_toward(me.position, target.position, walk_left(me)),
    )


def _lull_reload(battle: BattleView[C], me: C, dest: Point | None) -> Plan[C] | None:
    """``reload_in_lull``: a fighter about to hold fire reloads a magazine that is not full
    when no standing enemy can come within its gun's reach this turn (each is farther from
    where it will stand than the reach and the enemy's run): the held action could not fire,
    so the reload costs nothing. None otherwise."""
    firearm = me.firearm
    ammo = me.ammo[me.firearm_index]
    if not me.tactics.reload_in_lull or ammo >= firearm.ammo:
        return None
    at = me.position if dest is None else dest
    reach = me.firearm_range
    for e in battle.enemies_in_view(me).enemies:
        if _dist(at, e.position) <= reach + e.run:
            return None
    reason = ""
    if battle.tracing:
        reason = (
            f"no enemy can come within {reach:g} m this turn: reloads the "
            f"{me.weapon_label(firearm)} ({ammo} rounds left)"
        )
        if dest is not None:
            reason += f", after walking {_dist(me.position, dest):.1f} m toward cover"
    return Plan("reload", reason, weapon=firearm, dest=dest)


def _to_cover(battle: BattleView[C], me: C, walk: float) -> Point | None:
    """Where a ``take_cover`` fighter not in full cover walks with this action: toward the
    nearest free cover point within ``cover_within`` when out of cover; from partial cover,
    to full cover a walk away (``cover_step_up``); None to stay."""
    if me.cover == "none":
        cover = battle.free_cover_point(me, me.tactics.cover_within)
        return _toward(me.position, cover.position, walk) if cover is not None else None
    if me.cover == "partial" and me.tactics.cover_step_up:
        return _step_up(battle, me, walk)
    return None


def _step_up(battle: BattleView[C], me: C, walk: float) -> Point | None:
    """``cover_step_up``: from partial cover, where a ``take_cover`` fighter walks to a free
    full cover point within ``cover_within`` and its walk left, when the way is out of every
    standing enemy's reach (its gun's range, or melee range plus its run); None to stay."""
    tactics = me.tactics
    within = tactics.cover_within if tactics.cover_within < walk else walk
    point = battle.free_cover_point(me, within, "full")
    if point is None:
        return None
    here, there = me.position, point.position
    for e in battle.enemies_in_view(me).enemies:
        reach = e.firearm_range if e.firearm is not None else battle.melee_range + e.run
        if _to_segment(e.position, here, there) <= reach:
            return None
    return there


def _to_segment(p: Point, a: Point, b: Point) -> float:
    """Meters from ``p`` to the nearest point of the segment a-b."""
    dx, dy = b[0] - a[0], b[1] - a[1]
    length2 = dx * dx + dy * dy
    t = 0.0 if length2 == 0 else ((p[0] - a[0]) * dx + (p[1] - a[1]) * dy) / length2
    t = 0.0 if t < 0.0 else 1.0 if t > 1.0 else t
    return _dist(p, (a[0] + t * dx, a[1] + t * dy))


def _close_in(
    battle: BattleView[C],
    me: C,
    enemies: list[C],
    dist: dict[int, float],
    nearest: C,
    walk_left: float,
) -> Plan[C]:
    """A fighter without a firearm fights in melee (unarmed when it has no melee weapon),
    walking into reach when it can, else running at its target. Running does not stop a
    melee attack: only shooting and throwing (the classic rules' Weapon Modifiers)."""
    tracing = battle.tracing
    reach = battle.melee_range
    if me.tactics.target == "nearest" and dist[nearest.index] <= reach + walk_left:
        target = nearest
    else:
        target = choose_target(battle, me, enemies, dist, nearest)
    d = dist[target.index]
    why_target = _why(battle, me, target) if tracing else ""
    melee = me.melee
    if d <= reach:
        return Plan("melee", f"in reach of {why_target}" if tracing else "", target, melee)
    if me.grenades and me.tactics.grenades != "never" and not me.running:
        grenade = _grenade_plan(battle, me, enemies, dist, target)
        if grenade is not None:
            return grenade
    if walk_left <= 0.0 and me.ran_this_turn:
        return Plan("none", f"ran this turn: {why_target} is out of reach" if tracing else "")
    if d - walk_left <= reach:
        return Plan(
            "melee",
            f"walks {d - reach + 0.01:.1f} m into reach of {why_target}" if tracing else "",
            target,
            melee,
            dest=_toward(me.position, target.position, d - reach + 0.01),
        )
    if not me.ran_this_turn and battle.system.may_run(me):
        return Plan(
            "run",
            f"runs at {why_target}" if tracing else "",
            dest=_toward(me.position, target.position, min(me.run, d - reach + 0.01)),
        )
    return Plan(
        "walk",
        f"walks toward {why_target}" if tracing else "",
        dest=_toward(me.position, target.position, walk_left),
    )


def burst_size(tactics: Any, firearm: Any, most: int) -> int:
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


def _sweep(
    battle: BattleView[C], at: Point, target: C, enemies: list[C], shots: int, weapon: Any
) -> tuple[tuple[C, int], ...]:
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
    battle: BattleView[C],
    me: C,
    enemies: list[C],
    dist: dict[int, float] | None = None,
    nearest: C | None = None,
    reach: float | None = None,
) -> C:
    """The enemy the fighter's ``target`` policy picks; ``dist``: meters to each enemy by
    index from where the fighter will attack, ``nearest``: the first of the nearest (both
    worked out here when not given), ``reach``: how far it can attack (``_reach`` when not
    given).

    Every policy chooses among the enemies within the fighter's reach (its gun's extreme
    range; without a gun, melee range plus what it can still walk) and looks at the others
    only when none is in reach (``target_in_reach: false``: always at all of them). ``focus``
    keeps the side's target until it falls; a member that cannot reach it picks its own
    nearest target this action and leaves the side's focus as it is."""
    if dist is None:
        dist = {e.index: _dist(me.position, e.position) for e in enemies}
    if nearest is None:
        nearest = min(enemies, key=lambda e: dist[e.index])
    tactics = me.tactics
    policy = tactics.target
    if policy == "nearest":
        return nearest  # the nearest is in reach whenever any is
    if reach is None:
        reach = _reach(battle, me)
    focus = battle.focus.get(me.side) if policy == "focus" else None
    if focus is not None and focus in enemies and dist[focus.index] <= reach:
        return focus  # the usual case of focus: the side's target, standing and in reach
    if policy == "focus":
        return _focus(battle, me, enemies, dist, nearest, reach, focus)
    # weakest and most_dangerous: the highest score, then the nearest, then the first
    score = battle.system.harm if policy == "weakest" else battle.system.threat
    pool = enemies
    if tactics.target_in_reach:
        pool = battle.within_reach(enemies, dist, reach) or enemies
    if policy == "random":
        return pool[battle.roll.below(len(pool))]
    return _highest(pool, score, dist)  # type: ignore[return-value]


def _highest(enemies: Sequence[C], score: Callable[[C], float], dist: dict[int, float]) -> C | None:
    """Of the ``enemies``, the one of the highest ``score``, then the nearest (``dist``), then
    the first: what ``max(pool, key=lambda e: (score(e), -dist[e.index]))`` picks, without a
    tuple per enemy."""
    best = None
    best_score = best_d = 0.0
    for e in enemies:
        d = dist[e.index]
        s = score(e)
        if best is None or s > best_score or (s == best_score and d < best_d):
            best, best_score, best_d = e, s, d
    return best


def _focus(
    battle: BattleView[C],
    me: C,
    enemies: list[C],
    dist: dict[int, float],
    nearest: C,
    reach: float,
    focus: C | None,
) -> C:
    """``focus``: the side's target until it falls; a member that cannot reach it takes its
    own nearest this action. Its pool is the enemies in reach when any is, else all of them;
    either way the first of its nearest is ``nearest`` (the nearest is in reach whenever any
    is), so the pool itself is never listed (with hundreds of enemies, that was most of a
    focus-firing action)."""
    if focus is None or not battle.is_standing(focus):  # none yet, or it fell
        focus = nearest
        battle.focus[me.side] = focus
    in_pool = focus in enemies and (
        not me.tactics.target_in_reach
        or dist[focus.index] <= reach
        or dist[nearest.index] > reach  # no one in reach: the pool is every enemy
    )
    return focus if in_pool else nearest  # out of my reach: my own, this action


def _why(battle: BattleView[C], me: C, target: C) -> str:
    """The trace's words for the choice of ``target``: the policy, and for ``focus`` on
    another enemy than the side's, that the side's is out of reach."""
    policy = me.tactics.target
    if policy == "focus":
        focus = battle.focus.get(me.side)
        if focus is not None and focus is not target:
            return f"{target.name} (focus on {focus.name} is out of reach)"
    return f"{target.name} ({policy})"


def _reach(battle: BattleView[C], me: C) -> float:
    """How far the fighter can attack this action: its gun's extreme range, or without one,
    melee range plus the meters it may still walk."""
    if me.firearm is not None:
        return me.firearm_range
    return battle.melee_range + walk_left(me)


def _grenade_plan(
    battle: BattleView[C],
    me: C,
    enemies: list[C],
    dist: dict[int, float],
    target: C | None = None,
) -> Plan[C] | None:
    """A throw from where the fighter stands: ``always`` at its target (``choose_target``
    when not given), ``clustered`` at the enemy whose blast catches the most enemies and
    no friend."""
    policy = me.tactics.grenades
    tracing = battle.tracing
    grenades = grenade_rules(battle.system)
    in_blast = grenades.in_blast  # whom the blast itself would catch
    for i, w in me.grenades:
        if me.ammo[i] <= 0:
            continue
        if policy == "always":
            if target is None:
                target = choose_target(battle, me, enemies, dist)
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
        side = me.side  # a fighter still in the fight is not dead: no status to ask
        friends = [
            f for f in battle.fighters if f.side == side and (f.can_act or status(f) != "dead")
        ]
        best, best_count = None, 0
        caught = _Caught(in_blast, w, grenades.blast_radius(w))
        for e in enemies:
            aim = e.position
            if dist[e.index] > w.max_range or caught(aim, friends, 1):
                continue
            count = caught(aim, enemies, len(enemies))
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


class _Caught:
    """How many fighters a blast of one grenade bursting at a point would catch: what the
    clustered policy asks of every friend and every enemy around every enemy it could aim at,
    at every action. Nobody farther from the burst than the grenade's ``blast_radius`` is
    caught (the ``Grenades`` contract), so only those nearer are asked ``in_blast`` at their
    ruling 25 ``blast_distance`` (which differs from ``math.dist`` by far less than
    ``BLAST_SLACK``)."""

    __slots__ = ("in_blast", "weapon", "reach")

    def __init__(self, in_blast: Callable[[Any, float], bool], weapon: Any, radius: float):
        self.in_blast, self.weapon, self.reach = in_blast, weapon, radius + BLAST_SLACK

    def __call__(self, aim: Point, fighters: list[C], enough: int) -> int:
        """How many of ``fighters`` the blast at ``aim`` catches, counted until ``enough``."""
        in_blast, weapon, reach = self.in_blast, self.weapon, self.reach
        caught = 0
        for f in fighters:
            d = _dist(aim, f.position)
            if d > reach:
                continue
            # ``blast_distance(aim, f.position)``, from the meters just measured
            if in_blast(weapon, whole_meters(d)):
                caught += 1
                if caught >= enough:
                    break
        return caught


def _approach(me: C, target: C, walk_left: float, dist: float) -> tuple[Point | None, float]:
    """Movement ``advance`` / ``keep_range``: walk toward ``preferred_range`` of the target
    (``dist`` meters away), or back off to it: ``(where to, meters to the target from
    there)``, ``(None, dist)`` to stay. A preferred range beyond the gun's reach counts as
    just inside it: backing off never takes the target out of range."""
    tactics = me.tactics
    preferred = tactics.preferred_range
    if preferred > me.firearm_range - 0.01:
        preferred = me.firearm_range - 0.01
    gap = dist - preferred
    if gap > 0.5 or (gap > 0.0 and dist > me.firearm_range):  # (a walk brings it in reach)
        dest = _toward(me.position, target.position, min(walk_left, gap))
    elif tactics.movement == "keep_range" and gap < -0.5:
        dest = _away(me.position, target.position, min(walk_left, -gap))
    else:
        return None, dist
    return dest, _dist(dest, target.position)


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
