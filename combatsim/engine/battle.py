"""One battle as a discrete-event simulation (simpy), following seed 002's Combat Turn Sequence.

Time inside a combat turn runs down the initiative scale: an action at score ``s`` happens
``top - s`` time units after the turn starts (``top``: the rule system's ``initiative_top``),
so higher scores act first. Ties go to the higher Reaction, then to a random draw (ruling 1),
by the event's priority.

Every fighter is one simpy process for the whole battle. At the start of each turn the turn
process rolls initiative and sets off each fighter's ``Alarm`` at its first action score; the
fighter then waits for its further scores in turn. A wound that moves a fighter's remaining
actions down (initiative penalty) is seen when its waiting action comes due: it waits again,
longer (it is interrupted only in the rare case that its next action moves *earlier*). A
fighter taken out of the fight finds it cannot act when its action comes due, and loses its
remaining actions. Held (conditional) actions wait for a movement or the end of the turn,
each on its own event that is triggered only while someone holds; grenades in flight are
processes of their own.

The engine owns time, positions, movement and victory, and hands the tactics and the rule
system the battle they decide and resolve in (``combatsim.rules.base.BattleView``); every rule
number comes from the scenario's rule system. It does no I/O: it returns a ``BattleResult`` of
plain records.
"""

from __future__ import annotations

import bisect
import heapq
import math
from collections.abc import Generator, Iterable, Mapping
from types import FunctionType
from typing import Any, cast

import numpy as np
import simpy
from mypy_extensions import mypyc_attr
from simpy.events import NORMAL, Event

from ..rng import battle_rng
from ..rules.base import RuleSystem, grenade_rules
from ..rules.situation import (
    NOT_SEEN,
    EnemiesInView,
    Scatter,
    Situation,
    blast_distance,
    landing_point,
)
from ..rules.start import Start
from ..scenario.model import Scenario
from ..tactics.policies import (
    Plan,
    burst_size,
    choose_target,
    plan_action,
    shots_now,
    within_reach,
)
from .fighter import Fighter, Point, leave_grenades
from .records import MUTUAL, TURN_LIMIT, VICTORY, BattleResult, TraceEvent
from .roll import Roller
from .simpy_parts import Alarm, At, advance, release, run_until, started

TIES = 1 << 20  # initiative tie-breaks are random draws from 0 .. TIES - 1
_distance = math.dist
# A fighter's first ``EnemiesInView`` or ``Situation`` of a battle, its fields set at once by
# the caller: ``__init__`` would set them twice (a battle makes one of each per fighter)
_blank = object.__new__
INTERCEPT_DISTANCE = 1.0  # seed 002 Interception: movement within one meter past an opponent


@mypyc_attr(allow_interpreted_subclasses=True)
class Battle:
    """One run of a scenario: the ``BattleView`` the rule system and the tactics are handed."""

    def __init__(
        self,
        scenario: Scenario,
        rng: np.random.Generator,
        index: int = 0,
        trace: bool = False,
        roller: Roller | None = None,
        starts: Mapping[str, Start] | None = None,
    ):
        """``roller`` replaces the dice (tests script faces with it); by default the battle
        rolls from ``rng``. ``starts``: how fighters start, by name, over their specs'
        ``start`` (a chain of fights hands on what the last fight left)."""
        self.scenario = scenario
        self.system = system = scenario.system
        # the rule system's begin_action, unless it is the default that does nothing
        self.begin_action = (
            system.begin_action
            if type(system).begin_action is not RuleSystem.begin_action
            else None
        )
        self.environment = scenario.environment
        self.melee_range = scenario.environment.melee_range
        self.cover_points = [(p.position, p) for p in scenario.environment.cover_points]
        self.cover_claims: dict[int, Fighter] = {}  # cover point (index) -> who walks to it
        self.claims = 0  # counts the claims so far
        self.index = index
        self.roll = roller if roller is not None else Roller(rng)
        self.env = simpy.Environment()
        self.tracing = trace
        self.events: list[TraceEvent] = []
        self.fighters: list[Fighter] = []
        fighters = self.fighters
        new_state = self.system.new_state
        self.starts = starts
        self.out_at_start = False  # someone starts out of the fight (down or dead)
        for i, (spec, static, walk, run, burst, cover) in enumerate(_prepared(scenario)):
            f = Fighter(spec, i, static)
            f.state = new_state(f)
            f.walk, f.run, f.burst, f.cover = walk, run, burst, cover
            start = spec.start if starts is None else starts.get(spec.name, spec.start)
            if start is not None:
                self._begin_as(f, start)
            fighters.append(f)
        self.sides = [s.name for s in scenario.sides]
        self.survivor_columns = [(side, f"survivors_{side}") for side in self.sides]
        self.focus: dict[str, Fighter] = {}
        self.turn = 0
        self.score: int | None = None
        self.turn_start = 0.0
        self.holders: list[Fighter] = []  # fighters waiting with a held action
        self.decided: Event = self.env.event()
        self.over = False
        self.fallen = True  # someone left the fight since the last victory check
        self.layout = 0  # counts the moves and departures from the fight so far
        self.moves = 0  # counts the moves so far
        self.roster = 0  # counts the departures from (and returns to) the fight so far
        self.big = len(fighters) >= SHARED_LISTS  # lists a side's standing enemies once for all
        self.enemy_lists: dict[str, _Standing] = {}  # side -> ``_standing_enemies_of``
        # side -> its standing (allies, foes) (``_sides_of``, small fights)
        self.standing_sides: dict[str, tuple[list[Fighter], list[Fighter]]] = {}
        self.standing_roster = 0  # the ``roster`` the lists in ``standing_sides`` were made at
        # the standing fighters by cell (big fights): what an action looks at near it
        self.grid = _Grid(self.sides, fighters, self.cover_points) if self.big else None

    def renew(self, index: int) -> Fighter:
        """Fighter ``index`` afresh, as it starts the battle, in place of the one there: an
        exact answer runs one attack many times on one battle (``combatsim.exact``). The
        memos that may hold the old fighter are made stale (``layout``, ``roster``)."""
        spec, static, walk, run, burst, cover = _prepared(self.scenario)[index]
        f = Fighter(spec, index, static)
        f.state = self.system.new_state(f)
        f.walk, f.run, f.burst, f.cover = walk, run, burst, cover
        starts = self.starts
        start = spec.start if starts is None else starts.get(spec.name, spec.start)
        if start is not None:
            self._begin_as(f, start)
        if self.grid is not None:
            self.grid.take_out(self.fighters[index])
            self.grid.place(f)
            for enemies in self.enemy_lists.values():
                enemies.current = False
            self.enemy_lists.clear()
        self.fighters[index] = f
        self.layout += 1
        self.roster += 1
        return f

    def _begin_as(self, f: Fighter, start: Start) -> None:
        """``f`` as ``start`` says (ruling 27): its state by the rule system, its magazines
        and grenades; a fighter that then cannot act starts out of the fight, as if knocked
        out before the first turn (``knocked_out_turn`` 0)."""
        system = self.system
        if start.wounds or start.stun or start.spent or start.dead:
            system.apply_start(f, start)
        if start.rounds is not None:
            f.ammo = list(start.rounds)
        if start.grenades is not None:
            leave_grenades(f, start.grenades)
        if not system.can_act(f):
            f.can_act = False
            f.knocked_out_turn = 0
            self.out_at_start = True

    # --- queries used by rules and tactics ---------------------------------------------------
    def distance(self, a: Fighter, b: Fighter) -> float:
        return math.dist(a.position, b.position)

    def is_standing(self, f: Fighter) -> bool:
        return f.can_act

    def standing_enemies(self, me: Fighter) -> list[Fighter]:
        return list(self._sides_of(me.side)[1])  # a copy: the shared list stays as it is

    def enemies_in_view(self, me: Fighter) -> EnemiesInView:
        """The standing enemies of ``me`` (``EnemiesInView``): the meters to each by index,
        the nearest (the first of equals, None if none is left) and how many stand within
        melee range. Measured again only after someone moved or left the fight (the battle's
        ``layout``): the tactics ask on every action and ``opponents_in_melee`` on every ranged
        attack, so one measure serves both. In a big fight the nearest and the count stand
        until ``me`` moves or the grid cells they were found in change (``_Grid.footing``):
        an action pays for what moved near it, not for every move of the battle."""
        seen = me.enemies_seen
        layout = self.layout
        if seen.layout == layout:
            return seen
        grid = self.grid
        if grid is None:
            return self._enemies_measured(me)
        enemies = self._standing_enemies_of(me.side)
        here = me.position
        meters = _Meters(self, here, enemies)
        footing = me.seen_from
        reach = self.melee_range
        hint = seen.nearest
        if footing is not None:
            again = grid.again(me.side, footing, here, reach)
            if again is HOLDS:  # ``hint`` stands where it stood, as ``me`` does
                d = seen.meters.get(hint.index) if hint is not None else None
                return _remember(me, layout, enemies, meters, hint, seen.in_reach, d)
            if again is BEYOND:
                hint = None  # no one left as near as the hint was: the rings look farther
            elif again is not None:
                nearest, nearest_d, in_reach, me.seen_from = again
                return _remember(me, layout, enemies, meters, nearest, in_reach, nearest_d)
        far = False
        apart = -1.0  # not measured yet
        borrowed = hint is None
        if borrowed:  # its first look, or its nearest fell: a neighbour's nearest is near too
            apart = grid.apart(me.side, here)
            if apart <= RING_REACH:  # (else no enemy is near: no use looking around)
                hint = self._neighbours_nearest(me)
        if hint is not None:  # most often the nearest again, or one as near: one look around
            near = grid.measure(me.side, here, hint, reach)
            if near is FAR:
                far = not borrowed  # no use looking in the rings of cells around
            elif near is not None:
                nearest, nearest_d, in_reach, me.seen_from = near
                return _remember(me, layout, enemies, meters, nearest, in_reach, nearest_d)
        if apart < 0.0:
            apart = grid.apart(me.side, here)
        far = far or apart > RING_REACH  # no enemy in the cells around
        nearest, nearest_d = self._nearest_seen(here, enemies, hint, apart, far)
        if apart > reach:  # no enemy can stand in reach
            in_reach = 0
        else:
            in_reach = grid.count_within(me.side, here, reach)
            if in_reach is None:
                in_reach = _count_within(here, enemies, reach)
        radius = nearest_d if nearest_d > reach else reach
        me.seen_from = grid.footing(me.side, here, radius if nearest is not None else math.inf)
        return _remember(me, layout, enemies, meters, nearest, in_reach, nearest_d)

    def _neighbours_nearest(self, me: Fighter) -> Fighter | None:
        """The nearest enemy a fighter of ``me``'s side next to it in the roster last found
        (a side's members are listed as they stand, side by side): a bound for ``me``'s own
        look (``_Grid.measure``) that finds it in fewer cells than the rings."""
        fighters = self.fighters
        for k in (me.index - 1, me.index + 1):
            if 0 <= k < len(fighters):
                ally = fighters[k]
                if ally.side == me.side:
                    nearest = ally.enemies_seen.nearest
                    if nearest is not None and nearest.can_act:
                        return nearest
        return None

    def _nearest_seen(
        self, here: Point, enemies: _Standing, hint: Fighter | None, apart: float, far: bool
    ) -> tuple[Fighter | None, float]:
        """``enemies_in_view``'s nearest when one look around did not find it: in the rings
        of grid cells unless ``far`` (none is near), else beyond them (``hint``, if any,
        bounds that search: it may stand near)."""
        if not far:
            nearest, nearest_d = cast(_Grid, self.grid).nearest(enemies.side, here)
            if nearest is not None:
                return nearest, nearest_d
        return self._nearest_beyond(here, enemies, hint, apart)

    def _nearest_from(
        self, here: Point, enemies: _Standing, hint: Fighter | None = None
    ) -> tuple[Fighter | None, float]:
        """The first of the nearest of a side's standing ``enemies`` to ``here`` and its
        meters (math.dist): from the rings of grid cells when one is near (``hint``: who was
        the nearest before), else beyond them (``_nearest_beyond``)."""
        grid = self.grid
        if grid is None:
            return _nearest_of_all(here, enemies)
        nearest, nearest_d = grid.nearest(enemies.side, here, hint)
        if nearest is not None:
            return nearest, nearest_d
        return self._nearest_beyond(here, enemies, hint, grid.apart(enemies.side, here))

    def _nearest_beyond(
        self, here: Point, enemies: _Standing, hint: Fighter | None, apart: float
    ) -> tuple[Fighter | None, float]:
        """``_nearest_from`` when the rings found none: from the grid's coarser levels
        (``_Grid.nearest_anywhere``, bounded by ``hint``) while the enemies are within
        ``LEVELS_REACH`` (by ``hint``'s meters, else ``apart``: the least they can be), else
        from all of them with numpy: far off, the cells that may hold one as near are many
        (at 50 km, every cell within a kilometer or so of the nearest). So too when the
        levels give up (``LEVELS_WORK``), and for the next ``LEVELS_SKIPS`` looks: in a
        layout where they give up (two long lines 1.5 km apart), they mostly do."""
        grid = cast(_Grid, self.grid)
        about = math.dist(here, hint.position) if hint is not None else apart
        if about <= LEVELS_REACH:
            if grid.levels_skipped > 0:  # the levels gave up lately: a pass, a few times
                grid.levels_skipped -= 1
            else:
                found = grid.nearest_anywhere(enemies.side, here, hint)
                if found is not None:
                    return found
                grid.levels_skipped = LEVELS_SKIPS
        return _nearest_of_all(here, enemies)

    def _enemies_measured(self, me: Fighter) -> EnemiesInView:
        """``enemies_in_view`` in one pass over the side's standing foes (``_sides_of``):
        faster in a small fight."""
        here, dist = me.position, math.dist
        reach = self.melee_range
        sides = self.standing_sides.get(me.side) if self.standing_roster == self.roster else None
        enemies = (sides if sides is not None else self._sides_of(me.side))[1]
        meters = {}
        nearest, nearest_d = None, math.inf
        in_reach = 0
        for f in enemies:
            d = meters[f.index] = dist(here, f.position)
            if d < nearest_d:
                nearest, nearest_d = f, d
            if d <= reach:
                in_reach += 1
        seen = me.enemies_seen
        if seen is NOT_SEEN:  # its first measure this battle: its own, every field set below
            seen = me.enemies_seen = _blank(EnemiesInView)
        # in place (``_remember``, inline: this is the small fights' path)
        seen.layout = self.layout
        seen.enemies = enemies
        seen.meters = meters
        seen.nearest = nearest
        seen.in_reach = in_reach
        return seen

    def _sides_of(self, side: str) -> tuple[list[Fighter], list[Fighter]]:
        """The standing fighters of ``side`` and those of the other sides, in fighter order:
        one pair of lists serves the side's fighters, their memos in a small fight and
        ``standing_enemies`` (never changed in place: made again once someone left or rejoined
        the fight, the battle's ``roster``)."""
        if self.standing_roster != self.roster:
            self.standing_sides.clear()
            self.standing_roster = self.roster
        lists = self.standing_sides.get(side)
        if lists is None:
            allies: list[Fighter] = []
            foes: list[Fighter] = []
            for f in self.fighters:
                if f.can_act:
                    (allies if f.side == side else foes).append(f)
            lists = self.standing_sides[side] = (allies, foes)
        return lists

    def _standing_enemies_of(self, side: str) -> _Standing:
        """The standing enemies of a side, in fighter order (``_Standing``): one list serves
        all the side's fighters (with 2,000 fighters, each finding its own was most of a
        turn), kept in place as fighters leave or rejoin the fight (``_roster_changed``)."""
        enemies = self.enemy_lists.get(side)
        if enemies is None:
            members = (f for f in self.fighters if f.can_act and f.side != side)
            enemies = _Standing(members, side, self.fighters)
            self.enemy_lists[side] = enemies
        return enemies

    def _roster_changed(self, f: Fighter) -> None:
        """``f`` left (or rejoined) the fight: the grid and the shared enemy lists (big
        fights) follow."""
        self.grid.place(f)  # type: ignore[union-attr]
        for side, enemies in self.enemy_lists.items():
            if side == f.side:
                continue
            enemies.kept = None  # its arrays are made again when next needed
            if f.can_act:
                bisect.insort(enemies, f, key=_index)
            else:
                enemies.remove(f)

    def _moved(self, f: Fighter) -> None:
        """Keep the shared enemy lists' positions of ``f`` and the grid (big fights) up to
        date."""
        at = f.position
        index = f.index
        for enemies in self.enemy_lists.values():
            kept = enemies.kept
            if kept is not None:
                slot = kept[2].get(index)
                if slot is not None:
                    kept[1][slot] = at
                    kept[3][slot] = complex(at[0], at[1])
        self.grid.place(f)  # type: ignore[union-attr]

    def situation(
        self, attacker: Fighter, target: Fighter | None, at: Point | None = None
    ) -> Situation:
        """What the engine measures of ``attacker``'s attack on ``target`` (or on the point
        ``at`` on the ground, with ``target`` None), once for every rule system: the distance
        and how many enemies stand in the attacker's melee reach (``Situation``, the
        attacker's own, filled in place). The rest of the situation the engine keeps on the
        fighters: the attacker's ``moved_this_action``, the target's ``cover``, ``running``
        and ``moved_this_turn``."""
        s = attacker.situation
        if s is None:  # its first attack this battle: its own, every field set below
            s = attacker.situation = _blank(Situation)
        # an attack on the ground (no ``target``) always names its point ``at``
        s.distance = _distance(attacker.position, target.position if target is not None else at)  # type: ignore[arg-type]
        seen = attacker.enemies_seen
        if seen.layout != self.layout:
            seen = self.enemies_in_view(attacker)
        s.engaged = seen.in_reach
        return s

    def opponents_in_melee(self, me: Fighter) -> int:
        """Standing enemies within melee range (``enemies_in_view``)."""
        seen = me.enemies_seen
        if seen.layout != self.layout:
            seen = self.enemies_in_view(me)
        return seen.in_reach

    def free_cover_point(self, me: Fighter, within: float) -> Any:
        """The nearest cover point within ``within`` meters that no one else able to act
        stands at or is walking to, which ``me`` then claims: a side's fighters spread over
        the cover instead of all making for the same point. The fallen and the fled hold no
        cover. Looked for again only after someone moved, left the fight or claimed a point
        (a fighter out of cover asks every action)."""
        seen = me.cover_seen
        if seen[0] == self.layout and seen[1] == self.claims and seen[2] == within:
            return seen[3]
        here, dist = me.position, math.dist
        best, best_k, best_d = None, -1, math.inf
        claimed = self.cover_claims
        points = self.cover_points
        grid = self.grid
        for k in range(len(points)) if grid is None else grid.cover_near(here, within + 1e-9):
            at, point = points[k]
            d = dist(here, at)
            if d > within + 1e-9 or d >= best_d:
                continue
            holder = claimed.get(k)
            on_its_way = holder is not None and holder.can_act and holder.cover == "none"
            if on_its_way and holder is not me:
                continue  # someone still on its way there
            if grid is not None:
                if not grid.occupied(k, me):
                    best, best_k, best_d = point, k, d
                continue
            for o in self.fighters:
                if o is not me and o.can_act and dist(o.position, at) < 0.5:
                    break
            else:
                best, best_k, best_d = point, k, d
        if best is not None and claimed.get(best_k) is not me:
            if me.cover_claim >= 0 and claimed.get(me.cover_claim) is me:
                del claimed[me.cover_claim]
            claimed[best_k] = me
            me.cover_claim = best_k
            self.claims += 1
        me.cover_seen = (self.layout, self.claims, within, best)
        return best

    # --- trace -------------------------------------------------------------------------------
    def trace(self, kind: str, text: str, actor: Fighter | None = None, **data: Any) -> None:
        """Record one trace line. Callers build ``text`` only when ``self.tracing`` is on."""
        if self.tracing:
            self.events.append(
                TraceEvent(self.turn, self.score, actor.name if actor else None, kind, text, data)
            )

    # --- running -----------------------------------------------------------------------------
    def run(self) -> BattleResult:
        if self.out_at_start:  # a side with nobody standing at the start loses at once
            self.check_victory()
            if self.over:
                self.system.end_battle(self)
                return self._result(cast(str, self.decided.value))
        for f in self.fighters:  # each waits for its first turn's alarm at once (``started``)
            f.process = started(self.env, self._fighter(f))
        turns = self.env.process(self._turns())
        run_until(self.env, self.decided)
        # ``decided`` succeeds only with an end reason (TURN_LIMIT, VICTORY or MUTUAL)
        result = self._result(cast(str, self.decided.value))
        self._tear_down(turns)
        return result

    def _tear_down(self, turns: simpy.Process) -> None:
        """Break the reference cycles a finished battle leaves (processes still waiting, the
        events that would call them back, the fighters' memos, and what the rule system's
        states hold of one another: ``end_battle``), so that reference counting
        frees it at once: a batch then leaves the cyclic garbage collector little to do
        (about 3% of a battle's time, measured). Only an optimisation; simpy's side of it is
        ``simpy_parts.release``."""
        release(self.env, (turns, *(f.process for f in self.fighters)))
        for f in self.fighters:
            f.process = f.alarm = None
            f.enemies_seen = NOT_SEEN
            f.situation = None
        self.enemy_lists.clear()
        self.focus.clear()
        self.cover_claims.clear()
        self.holders.clear()
        self.system.end_battle(self)

    def _turns(self) -> Generator[Event, Any, None]:
        """Seed 002 Combat Turn Sequence, repeated until one side is left or the turn limit."""
        system, env, fighters = self.system, self.env, self.fighters
        initiative, tiebreak = system.initiative, system.initiative_tiebreak
        penalty = system.initiative_penalty if system.initiative_penalties else None
        draw_ties = self.roll.taker(0, TIES - 1)
        top = system.initiative_top  # scores run from top down to 1 within a turn
        for turn in range(1, self.scenario.turn_limit + 1):
            self.turn, self.score, self.turn_start = turn, None, env.now
            # After anything else due at the same moment (a grenade landing as the turn ends
            # bursts in this turn), before the next turn starts.
            turn_end = At(env, top, NORMAL + 1)
            acting = []
            for f in fighters:
                f.ran_this_turn = f.running = False
                f.moved_this_turn = 0.0
                f.actions_this_turn = 0
                if f.can_act:  # initiative, in the fighters' order
                    acting.append(f)
                    f.scores = initiative(self, f)
                else:
                    f.scores = ()
            # one tie-break draw per fighter, in order (the same numbers as one at a time);
            # higher tiebreak first, then the lower draw: one integer key, as the draws are
            # below TIES; the position in ``acting`` settles what the draws leave equal
            ties = draw_ties(len(acting))
            keys = [tie - tiebreak(f) * TIES for f, tie in zip(acting, ties, strict=True)]
            ends = self.turn_start + top
            priority = NORMAL + 1  # by rank
            for i in sorted(range(len(acting)), key=keys.__getitem__):
                f = acting[i]
                f.penalty_at_roll = penalty(f) if penalty is not None else 0
                f.shift = 0
                f.turn_ends_at = ends
                f.priority = priority
                scores = f.scores
                if scores:  # wake the fighter at its first action
                    f.waiting_shift = 0
                    first = scores[0]
                    # every fighter's process made its alarm before the first turn began
                    f.alarm.set(  # type: ignore[union-attr]
                        top - first if first < top else 0, priority
                    )
                priority += 1
            yield turn_end
            if self.holders:  # held actions not triggered this turn are wasted now
                self._wake_holders("turn end")
                yield env.timeout(0)  # let them give up before the next turn starts
        if not self.over:
            self.over = True
            self.decided.succeed(TURN_LIMIT)

    def _fighter(self, f: Fighter) -> Generator[Event, Any, None]:
        """The fighter's one process: it waits for the turn process to wake it at its first
        action (``Alarm``), acts at each of its scores, then waits for the next turn.

        One generator, not one per turn called with ``yield from``: every wake of a fighter
        would pass through both frames (about 2% of a battle, measured)."""
        env = self.env
        system_run_takes_turn = self.system.running_takes_turn
        top = self.system.initiative_top
        alarm = f.alarm = Alarm(env)
        while True:
            due: bool | None = None
            while due is None:
                try:
                    yield alarm
                    due = True  # the first action's time, as timed at the turn's start
                except simpy.Interrupt:
                    # its first action moved earlier: time it again (None: no turn under way
                    # for this fighter yet)
                    due = False if alarm.triggered else None
            ends = f.turn_ends_at
            for base in f.scores:
                # ``score`` below 1 when the wait ends: nothing more this turn (out of the
                # fight, the battle over, or wounds pushed the action below 1)
                if due:  # woken at the turn's start timing (wound shift 0)
                    due = False
                    acting = f.can_act and not self.over
                    score = (base if base < top else top) if acting else 0
                    retime = acting and f.shift != 0
                else:
                    retime = True
                while retime:
                    shift = f.shift
                    score = base - shift if base - shift < top else top
                    if score < 1:
                        self._fell_below(f, base, shift)
                        break
                    f.waiting_shift = shift
                    delay = max(ends - score - env.now, 0.0)
                    # no event when nothing else comes first (``advance``): no wound can
                    # then move this action while it waits
                    if not advance(env, delay, f.priority):
                        try:
                            yield At(env, delay, f.priority)
                        except simpy.Interrupt:
                            continue  # the action moved earlier: time it again
                    acting = f.can_act and not self.over
                    score = score if acting else 0
                    # wounds moved the action down while it waited: wait again, for the new
                    # score
                    retime = acting and f.shift != shift
                if score < 1:
                    break
                self.score = score
                plan = self._start_action(f)
                if plan is not None and plan.kind == "hold":
                    plan = yield from self._walk_and_hold(f, plan, ends)
                if plan is None:  # lost, wasted, or out of the fight: at the turn's end, or not
                    if env.now >= ends or not f.can_act or self.over:
                        break
                    continue
                self._execute(f, plan)
                if system_run_takes_turn and (plan.kind == "run" or plan.kind == "flee"):
                    self._ran(f)
                    break
            alarm = f.alarm = alarm.again()

    def _fell_below(self, f: Fighter, base: int, shift: int) -> None:
        """Wounds pushed the action at ``base`` below 1: it is lost (the trace says so)."""
        if shift and self.tracing:
            self.trace("lost", f"{f.name}'s action at {base} falls below 1 (wounds): lost", actor=f)

    def _ran(self, f: Fighter) -> None:
        """Running took the turn (``RuleSystem.running_takes_turn``)."""
        if self.tracing and f.can_act:
            self.trace("action", f"{f.name} ran: no more actions this turn", actor=f)

    def _start_action(self, f: Fighter) -> Plan[Fighter] | None:
        """The start of an action: what refreshes refreshes (the system's ``begin_action``), a
        lost action passes with nothing done (None); else it is counted and the tactics plan
        it."""
        begin_action = self.begin_action
        if begin_action is not None:
            begin_action(self, f)
        if f.lose_next_action:
            self._lose_action(f)
            return None
        f.actions += 1
        f.actions_this_turn += 1
        f.moved_this_action = 0.0
        plan = plan_action(self, f)
        if self.tracing:
            self.trace("decide", f"{f.name}: {plan.kind} - {plan.reason}", actor=f, plan=plan.kind)
        return plan

    def _lose_action(self, f: Fighter) -> None:
        """An action lost (to a fumble, or as the rule system says) passes with nothing done."""
        why = f.lose_next_action if isinstance(f.lose_next_action, str) else "fumble"
        f.lose_next_action = False
        if self.tracing:
            self.trace("action", f"{f.name} loses this action ({why})", actor=f)

    def _walk_and_hold(
        self, f: Fighter, plan: Plan[Fighter], ends: float
    ) -> Generator[Event, Any, Plan[Fighter] | None]:
        """A held action (``_hold``), after a walk when the fighter is on its way to cover."""
        if plan.dest is not None:
            self._walk(f, plan.dest)
            if not f.can_act or self.over:
                self.check_victory()
                return None
        return (yield from self._hold(f, plan, ends))

    def _hold(
        self, f: Fighter, plan: Plan[Fighter], ends: float
    ) -> Generator[Event, Any, Plan[Fighter] | None]:
        """A conditional action (seed 002 step 3): wait until an enemy moves into range, or
        waste the action at the end of the turn."""
        weapon = plan.weapon
        while not self.over:
            f.wake = self.env.event()
            self.holders.append(f)
            try:
                yield f.wake
            except simpy.Interrupt:
                self._drop_holder(f)
                continue
            if not f.can_act:  # taken out while holding: the action is simply gone
                return None
            if self.over or self.env.now >= ends:
                if self.tracing:
                    self.trace("action", f"{f.name}'s held action is wasted", actor=f)
                return None
            seen = self.enemies_in_view(f)
            in_range = self._in_range(seen, weapon.max_range)
            if in_range:
                target = choose_target(self, f, in_range, seen.meters)
                # the weapon held is the fighter's firearm (``plan_action``): its burst
                shots = shots_now(f.burst, f.ammo[f.weapon_index[id(weapon)]])
                why = ""
                if self.tracing:  # the held action's own decision ("decide" stays one an action)
                    why = f"held action triggered: {target.name} came within range"
                    self.trace("held", f"{f.name}: fire - {why}", actor=f)
                return Plan("fire", why, target=target, weapon=weapon, shots=shots)
        return None

    @staticmethod
    def _in_range(seen: EnemiesInView, reach: float) -> list[Fighter]:
        """The enemies ``seen`` within ``reach`` (by their meters), in order: none when the
        nearest is farther (a holder with no enemy near is woken by every move of the battle,
        and must not measure all of them each time); in a big fight numpy finds them."""
        nearest = seen.nearest
        if nearest is None or seen.meters[nearest.index] > reach:
            return []
        return within_reach(seen.enemies, seen.meters, reach)

    def _wake_holders(self, cause: str) -> None:
        holders, self.holders = self.holders, []
        for h in holders:
            # a holder waits on the wake ``_hold`` gave it before it joined ``holders``
            h.wake.succeed(cause)  # type: ignore[union-attr]

    def _drop_holder(self, f: Fighter) -> None:
        if f in self.holders:
            self.holders.remove(f)

    def _execute(self, f: Fighter, plan: Plan[Fighter]) -> None:
        """Carry out ``plan``. What a plan holds goes with its kind (``Plan``): a run or flee
        has its ``dest``, a fire or melee its ``target``, a grenade its ``aim``; the checker
        is told so on those lines (``type: ignore``), not at run time."""
        kind = plan.kind
        system = self.system
        if kind in ("run", "flee"):
            f.ran_this_turn = f.running = True
            self.move(f, plan.dest, f.run)  # type: ignore[arg-type]
            if kind == "flee" and f.can_act:
                self._check_escape(f)
        elif plan.dest is not None:
            self._walk(f, plan.dest)
        if not f.can_act or self.over:  # taken out on the way (interception)
            self.check_victory()
            return
        if (kind == "fire" or kind == "grenade") and f.cover == "hidden":
            self._reveal(f)
        attacks = f.attacks
        if kind == "fire":
            weapon = plan.weapon
            index = f.firearm_index if weapon is f.firearm else f.weapon_index[id(weapon)]
            ammo = f.ammo
            shots = plan.shots
            if ammo[index] < shots:
                shots = ammo[index]
            ammo[index] -= shots
            key = (plan.target.index, index, shots)  # type: ignore[union-attr]
            attacks[key] = attacks.get(key, 0) + 1
            if plan.sweep and shots == plan.shots:
                for victim, rounds in plan.sweep:  # one attack on each target swept
                    key = (victim.index, index, rounds)
                    attacks[key] = attacks.get(key, 0) + 1
                system.ranged_attack(self, f, plan.target, plan.weapon, shots, plan.sweep)  # type: ignore[misc]
            else:
                system.ranged_attack(self, f, plan.target, plan.weapon, shots)  # type: ignore[misc]
        elif kind == "melee":
            if self.distance(f, plan.target) <= self.melee_range:  # type: ignore[arg-type]
                # -1: unarmed (no melee weapon on the sheet)
                key = (plan.target.index, f.weapon_index.get(id(plan.weapon), -1), 1)  # type: ignore[union-attr]
                attacks[key] = attacks.get(key, 0) + 1
                system.melee_attack(self, f, plan.target, plan.weapon)  # type: ignore[misc]
        elif kind == "reload":
            self._reload(f, plan.weapon)
        elif kind == "grenade":
            index = f.weapon_index[id(plan.weapon)]
            f.ammo[index] -= 1
            key = (-1 if plan.target is None else plan.target.index, index, 1)
            attacks[key] = attacks.get(key, 0) + 1
            grenades = grenade_rules(system)
            aim = plan.aim
            at = self.land(f, aim, grenades.throw_grenade(self, f, plan.weapon, aim))  # type: ignore[arg-type]
            self.env.process(self._grenade(f, plan.weapon, at))
        if self.fallen:
            self.check_victory()

    def _reveal(self, f: Fighter) -> None:
        """Firing gives a hidden position away: no more blind fire at it."""
        f.cover = "none"
        if self.tracing:
            self.trace("move", f"{f.name} gives away the hidden position", actor=f)

    def _reload(self, f: Fighter, weapon: Any) -> None:
        f.ammo[f.weapon_index[id(weapon)]] = weapon.ammo
        if self.tracing:
            self.trace("reload", f"{f.name} reloads the {f.weapon_label(weapon)}", actor=f)

    def _walk(self, f: Fighter, dest: Point) -> None:
        """Walk toward ``dest`` as far as what is left of the turn's walk allows."""
        walk_left = f.walk - f.moved_this_turn
        self.move(f, dest, walk_left if walk_left > 0.0 else 0.0)

    def _grenade(self, thrower: Fighter, weapon: Any, at: Point) -> Generator[Event, Any, None]:
        """A grenade in flight bursts ``grenade_flight`` initiative points later (0: at once)."""
        delay = grenade_rules(self.system).grenade_flight(weapon)
        yield self.env.timeout(delay)
        if self.over:
            return
        if self.tracing:
            self.trace(
                "grenade", f"the grenade bursts at ({at[0]:.1f}, {at[1]:.1f})", actor=thrower
            )
        self.blast(thrower, weapon, at)
        self.check_victory()

    def land(self, thrower: Fighter, aim: Point, scatter: Scatter) -> Point:
        """Where a grenade thrown at ``aim`` lands: ``scatter.meters`` off (the rule system's
        throw) in a uniform direction, drawn here for every system (none for a throw on
        target, unless the system always draws one)."""
        meters = scatter.meters
        angle = self.roll.angle() if meters or scatter.always_turn else 0.0
        at = landing_point(aim, meters, angle)
        if self.tracing:
            self.trace("grenade", f"{scatter.text}({at[0]:.1f}, {at[1]:.1f})", actor=thrower)
        return at

    def blast(self, thrower: Fighter, weapon: Any, at: Point) -> None:
        """A burst at ``at``: every fighter the blast reaches (``in_blast`` at the ruling 25
        distance), in the fighters' order, takes what the rule system says a blast does at
        that distance."""
        grenades = grenade_rules(self.system)
        in_blast, hurt = grenades.in_blast, grenades.grenade_blast
        for victim in self.fighters:
            distance = blast_distance(at, victim.position)
            if in_blast(weapon, distance):
                hurt(self, thrower, weapon, victim, distance)

    # --- movement ----------------------------------------------------------------------------
    def move(self, f: Fighter, dest: tuple[float, float], budget: float) -> None:
        """Walk or run toward ``dest`` as far as ``budget`` meters allow; opponents passed
        within one meter may intercept (seed 002 Interception). Fighters holding an action
        are woken to see whether the mover came into range (no event when none holds)."""
        start = f.position
        length = math.dist(start, dest)
        if length <= 1e-9 or budget <= 0:
            return
        t = min(1.0, budget / length)
        end = (start[0] + (dest[0] - start[0]) * t, start[1] + (dest[1] - start[1]) * t)
        moved = length * t
        f.position = end
        before = self.layout
        self.layout += 1
        big = self.big
        if big:
            self._moved(f)
        self.moves += 1
        f.moved_this_turn += moved
        f.moved_this_action += moved
        f.cover = self._cover_at(end)
        if self.tracing:
            self.trace(
                "move",
                f"{f.name} {'runs' if f.running else 'walks'} {moved:.1f} m to "
                f"({end[0]:.1f}, {end[1]:.1f})"
                + (f", into {f.cover} cover" if f.cover != "none" else ""),
                actor=f,
            )
        # (where along the way, opponent): interceptions happen in that order
        passed: list[tuple[float, int, Fighter]] = []
        for enemy in self._passers_by(f, start, end) if big else self._passed_by(f, moved, before):
            along = _passing_at(start, end, enemy.position, INTERCEPT_DISTANCE)
            if along is not None:
                passed.append((along, enemy.index, enemy))
        for t, _, enemy in sorted(passed):
            if not f.can_act or not enemy.can_act:
                continue
            self.system.melee_attack(self, enemy, f, enemy.melee, interception=True)
            if not f.can_act:  # stopped where it passed the interceptor: it lies there
                at = start[0] + (end[0] - start[0]) * t, start[1] + (end[1] - start[1]) * t
                f.position = at
                f.cover = self._cover_at(at)
                self.layout += 1
                if big:
                    self._moved(f)
                if self.tracing:
                    where = f"({at[0]:.1f}, {at[1]:.1f})"
                    self.trace("move", f"{f.name} falls where it was stopped, at {where}", actor=f)
        if self.holders:
            self._wake_holders("moved")

    def _cover_at(self, at: Point) -> str:
        """``_cover_at`` of the battle's cover points, from the grid's nearby ones in a big
        fight."""
        grid = self.grid
        if grid is None:
            return _cover_at(self.cover_points, at)
        points = self.cover_points
        for k in grid.cover_near(at, 0.5):
            position, point = points[k]
            if math.dist(at, position) < 0.5:
                return point.cover
        return "none"

    def _passed_by(self, f: Fighter, moved: float, before: int) -> list[Fighter]:
        """A small fight's ``_passers_by``: the standing enemies of ``f``, which has just
        moved ``moved`` meters, that might stand within ``INTERCEPT_DISTANCE`` of its way: no
        farther from either end of it than the way and a meter (and a little more for
        rounding). Read from ``f``'s memo as its plan left it, measured where the move began
        (the ``layout`` ``before`` it), without a measure; from a new one where it stopped
        when that memo was stale. The memos of ``f``'s allies current before the move stay
        current (nothing an ally measures moved); ``f``'s own is measured again when next
        read (an attack at range reads it at once, a blow in melee does not)."""
        seen = f.enemies_seen
        measured_before = seen.layout == before
        if f.can_act:
            layout = self.layout
            for ally in self._sides_of(f.side)[0]:
                kept = ally.enemies_seen
                if kept.layout == before and ally is not f:
                    kept.layout = layout
        if not measured_before:
            seen = self._enemies_measured(f)
        meters, nearest = seen.meters, seen.nearest
        within = moved + INTERCEPT_DISTANCE + 1e-6
        if nearest is None or meters[nearest.index] > within:
            return []  # the most often: not even the nearest is that near
        return [e for e in seen.enemies if meters[e.index] <= within]

    def _passers_by(self, f: Fighter, start: Point, end: Point) -> list[Fighter]:
        """The standing enemies of ``f`` that might stand within ``INTERCEPT_DISTANCE`` of
        its way from ``start`` to ``end``: those in the grid cells around the way, or (a long
        way) in the box around it, widened by a little more than that (``_passing_at``
        decides; ``move`` orders them)."""
        margin = INTERCEPT_DISTANCE + 1e-6
        middle = ((start[0] + end[0]) / 2, (start[1] + end[1]) / 2)
        half = max(abs(end[0] - start[0]), abs(end[1] - start[1])) / 2
        grid = cast(_Grid, self.grid)
        if grid.apart(f.side, middle) > 1.5 * half + margin:  # the way's box is far from all
            return []
        near = grid.near(grid.foes[f.side], middle, half + margin)
        if near is not None:
            return near
        enemies = self._standing_enemies_of(f.side)
        if not enemies:
            return []
        points = enemies.arrays()[3]
        x0, x1 = (start[0], end[0]) if start[0] <= end[0] else (end[0], start[0])
        y0, y1 = (start[1], end[1]) if start[1] <= end[1] else (end[1], start[1])
        xs, ys = points.real, points.imag
        box = (xs >= x0 - margin) & (xs <= x1 + margin) & (ys >= y0 - margin) & (ys <= y1 + margin)
        return [enemies[k] for k in np.flatnonzero(box).tolist()]

    def _check_escape(self, f: Fighter) -> None:
        """A fighter falling back beyond ``escape_distance`` of every standing enemy has fled."""
        limit = self.environment.escape_distance
        if all(self.distance(f, e) > limit for e in self.standing_enemies(f)):
            f.fled = True
            f.can_act = False
            self.fallen = True
            self.layout += 1
            self.roster += 1
            if self.grid is not None:
                self._roster_changed(f)
            f.knocked_out_turn = self.record_turn()
            if self.tracing:
                self.trace("status", f"{f.name} has fled the fight", actor=f)
            self.check_victory()

    def record_turn(self) -> int:
        """The turn number as the engine writes it into a record (the turn a fighter fell):
        a read that decides nothing, which exact answers (``exact/fight.py``) tell apart from
        the rules' reads by overriding this."""
        return self.turn

    # --- damage and victory ---------------------------------------------------------------------
    def damage_dealt(
        self, attacker: Fighter | None, target: Fighter, boxes: int, what: str
    ) -> None:
        """Called by the rule system after it changed ``target``'s state (``what`` is read
        only when tracing: callers pass "" otherwise)."""
        system = self.system
        target.damage_taken += boxes
        if attacker is not None and attacker.side != target.side:
            attacker.damage_dealt += boxes
        if self.tracing:
            status = system.status(target)
            self.trace(
                "damage",
                f"{target.name} takes a {what}: {status}",
                actor=target,
                boxes=boxes,
                status=status,
            )
        was_acting = target.can_act
        # a fighter that fled stays out of the fight, whatever a blast does to it after
        target.can_act = acting = system.can_act(target) and not target.fled
        if was_acting != acting:
            self.layout += 1
            self.roster += 1
            if self.grid is not None:
                self._roster_changed(target)
        if was_acting and not acting:
            target.knocked_out_turn = self.record_turn()
            self.fallen = True
        elif acting and target.scores and system.initiative_penalties:
            # wounds move initiative only here: the fighter's shift is kept for its waits
            target.shift = shift = system.initiative_penalty(target) - target.penalty_at_roll
            if shift < target.waiting_shift:  # its waiting action moved earlier: re-time it now
                self._interrupt(target)

    def _interrupt(self, f: Fighter) -> None:
        p = f.process
        if p is not None and p.is_alive and p is not self.env.active_process and p.target:
            p.interrupt("wounded")

    def check_victory(self) -> None:
        """Over when at most one side has fighters able to act (looked at only when someone
        has left the fight since the last look)."""
        if self.over or not self.fallen:
            return
        self.fallen = False
        grid = self.grid
        if grid is not None:  # a big fight's grid counts who stands, side by side
            standing = {side for side, n in grid.standing.items() if n}
        else:
            standing = {f.side for f in self.fighters if f.can_act}
        if len(standing) <= 1:
            self.over = True
            self.decided.succeed(VICTORY if standing else MUTUAL)

    # --- result ------------------------------------------------------------------------------
    def _result(self, end_reason: str) -> BattleResult:
        standing = {f.side for f in self.fighters if f.can_act}
        winner = next(iter(standing)) if end_reason == VICTORY else None
        row: dict[str, Any] = {
            "battle": self.index,
            "winner": winner if winner is not None else "draw",
            "end_reason": end_reason,
            "turns": self.turn,
        }
        survivors = dict.fromkeys(self.sides, 0)
        for f in self.fighters:
            if f.can_act:
                survivors[f.side] += 1
        for side, key in self.survivor_columns:
            row[key] = survivors[side]
        combatants = []
        status, record = self.system.status, self.system.record
        for f in self.fighters:
            combatants.append(
                {
                    "battle": self.index,
                    "name": f.name,
                    "side": f.side,
                    "status": "fled" if f.fled else status(f),
                    "standing": f.can_act,
                    "knocked_out_turn": f.knocked_out_turn,
                    "actions": f.actions,
                    "shots": f.shots,
                    "hits": f.hits,
                    "damage_dealt": f.damage_dealt,
                    "damage_taken": f.damage_taken,
                    **record(f),
                }
            )
        return BattleResult(
            self.index,
            winner,
            end_reason,
            self.turn,
            row,
            combatants,
            self.events if self.tracing else None,
            {(f.index, *key): n for f in self.fighters for key, n in f.attacks.items()},
            self._carried(),
        )

    def _carried(self) -> dict[str, Start]:
        """Each fighter's state now as a ``Start`` (``BattleResult.carried``): the rule
        system's ``carried``, the magazines (None when all are full), the grenades left
        (None when the sheet has none), dead or not. Under 1% of a battle's cost (measured on
        three shipped scenarios: 0.4-1.0%)."""
        carried, status = self.system.carried, self.system.status
        out = {}
        for f in self.fighters:
            wounds, stun, spent = carried(f)
            rounds = None if tuple(f.ammo) == f.full_loads else tuple(f.ammo)
            grenades = sum(f.ammo[i] for i, _ in f.grenades) if f.grenades else None
            out[f.name] = Start(wounds, stun, spent, rounds, grenades, status(f) == "dead")
        return out


_PREPARED: dict[int, tuple[Scenario, list[tuple]]] = {}
CLOSE = 1e-9  # relative margin between numpy's squared distances and math.dist's, squared


def _compiled() -> bool:
    """Whether this module runs compiled (mypyc: its functions are no Python functions)."""
    return not isinstance(_compiled, FunctionType)


# fighters from which a battle keeps a grid (``_Grid``): fewer scan faster. Compiled, a look
# in the grid's cells costs less against a pass over every fighter: in bench_growth's
# battles the compiled grid was as fast as the pass at 32 fighters, faster at 48 (12.0 us an
# action against 14.1) and 64 (11.9 against 15.7); in the Python source, slower at 64.
SHARED_LISTS = 48 if _compiled() else 96
PREPARED_FIGHTERS = 4000  # fighters of the scenarios kept prepared (two of the largest)


# the compiled build (setup.py) keeps it a Python class: mypyc's native classes cannot
# subclass a builtin
@mypyc_attr(native_class=False)
class _Meters(dict):
    """``enemies_in_view``'s meters to each enemy by index in a big fight, measured (with
    math.dist, from ``here`` to where the enemies stand) as they are read: the nearest-target
    tactics read one or two. After a few reads it measures all the others at once. Made
    again at every change of the battle's layout: read it at once."""

    __slots__ = ("battle", "here", "enemies", "misses", "nearest")

    def __init__(self, battle: Battle, here: Point, enemies: _Standing):
        self.battle, self.here, self.enemies = battle, here, enemies
        self.misses = 0
        self.nearest: Fighter | None = None  # the nearest from ``here``, once known

    def within(self, enemies: list, reach: float) -> list | None:
        """``[e for e in enemies if self[e.index] <= reach]`` when ``enemies`` is the list
        these meters measure (else None): numpy finds the candidates, math.dist decides
        near ``reach``."""
        if enemies is not self.enemies:
            return None
        if not enemies:
            return []
        indexes, _, _, points = self.enemies.arrays()
        meters = _meters_to(points, self.here)
        low, high = reach * (1 - CLOSE), reach * (1 + CLOSE)
        return [
            enemies[k]
            for k in (meters <= high).nonzero()[0].tolist()
            if meters[k] < low or self[indexes[k]] <= reach
        ]

    def measured_from(self, at: Point) -> tuple[_Meters, Fighter | None]:
        """The meters from ``at`` instead (where a walk will take the fighter) and the first
        of the nearest enemies from there, as ``policies._measured_from`` finds them."""
        nearest, nearest_d = self.battle._nearest_from(at, self.enemies, self.nearest)
        meters = _Meters(self.battle, at, self.enemies)
        meters.nearest = nearest
        if nearest is not None:
            meters[nearest.index] = nearest_d
        return meters, nearest

    def __missing__(self, index: int) -> float:
        enemies = self.enemies
        fighters = enemies.fighters
        f = fighters[index] if 0 <= index < len(fighters) else None
        # ``f in enemies`` (``_Standing``), without the call while the list is current
        if f is None or not (
            (f.can_act and f.side != enemies.side) if enemies.current else f in enemies
        ):
            raise KeyError(index)
        self.misses = misses = self.misses + 1
        if misses > 8:
            here = self.here
            self.update((e.index, math.dist(here, e.position)) for e in enemies)
            return self[index]
        d = self[index] = math.dist(self.here, f.position)
        return d


# the compiled build (setup.py) keeps it a Python class: mypyc's native classes cannot
# subclass a builtin
@mypyc_attr(native_class=False)
class _Standing(list):
    """A side's standing enemies in fighter order (``Battle._standing_enemies_of``), kept
    in place. While it is the battle's current list (``current``) it answers ``in`` at once
    (``focus in enemies``, every action of a focus-firing side): a standing fighter of
    another side of the battle. ``arrays`` adds their indexes and positions for numpy."""

    __slots__ = ("side", "fighters", "current", "kept")

    def __init__(self, members: Iterable[Fighter], side: str, fighters: list[Fighter]):
        super().__init__(members)
        self.side = side
        self.fighters = fighters
        self.current = True  # the battle's list of the side's enemies (``_standing_enemies_of``)
        self.kept: tuple | None = None  # ``arrays``

    def __contains__(self, f: object) -> bool:
        if not self.current:
            return list.__contains__(self, f)
        if type(f) is not Fighter:
            return False
        fighters = self.fighters
        return (
            f.can_act and f.side != self.side and f.index < len(fighters) and fighters[f.index] is f
        )

    def arrays(self) -> tuple:
        """``(indexes, positions, index -> slot, positions as a numpy array of complex
        numbers: east + north j)`` of these fighters, made when first needed after the list
        changed; a move updates the positions in place (``Battle._moved``)."""
        kept = self.kept
        if kept is None:
            indexes = [f.index for f in self]
            positions = [f.position for f in self]
            slots = {i: k for k, i in enumerate(indexes)}
            where = np.array(positions, dtype=float).reshape(len(positions), 2)
            points = np.empty(len(positions), dtype=complex)
            points.real, points.imag = where[:, 0], where[:, 1]
            kept = self.kept = (indexes, positions, slots, points)
        return kept


def _index(f: Fighter) -> int:
    return f.index


def _nearest_of_all(here: Point, enemies: _Standing) -> tuple[Fighter | None, float]:
    """The first of the nearest of ``enemies`` to ``here`` and its meters (math.dist), in one
    pass over all of them: numpy's meters find the candidates, math.dist decides."""
    if not enemies:
        return None, math.inf
    _, positions, _, points = enemies.arrays()
    meters = _meters_to(points, here)
    low = meters[meters.argmin()] * (1 + CLOSE) + 1e-300
    nearest, nearest_d = None, math.inf
    for k in (meters <= low).nonzero()[0].tolist():
        d = math.dist(here, positions[k])
        if d < nearest_d:
            nearest, nearest_d = enemies[k], d
    return nearest, nearest_d


def _count_within(here: Point, enemies: _Standing, reach: float) -> int:
    """How many of ``enemies`` stand within ``reach`` of ``here`` (math.dist), found with
    numpy."""
    if not enemies:
        return 0
    _, positions, _, points = enemies.arrays()
    meters = _meters_to(points, here)
    low, high = reach * (1 - CLOSE), reach * (1 + CLOSE)
    count = int(np.count_nonzero(meters < low))
    for k in ((meters >= low) & (meters <= high)).nonzero()[0].tolist():
        if math.dist(here, positions[k]) <= reach:
            count += 1
    return count


def _meters_to(points: np.ndarray, here: Point) -> np.ndarray:
    """numpy's meters from ``here`` to ``points`` (complex: east + north j): the hypot of
    the differences, within an ulp or two of math.dist's (``CLOSE`` covers that)."""
    return np.abs(points - complex(here[0], here[1]))


CELL = 16.0  # meters a side of a grid cell (big fights)
NEAR_CELLS = 25  # the most cells a grid query looks in (beyond: the caller looks at all)
RINGS = 2  # rings of cells around a point the nearest is looked for in (5 x 5 cells)
RING_REACH = 1.5 * (RINGS + 1) * CELL  # meters beyond every cell of the rings (and a hint's)
SLACK = 1e-6  # meters a grid query reaches beyond its radius (coordinates within 1e5 m)
FAR: tuple = ()  # ``_Grid.measure``'s answer when the enemies are too far for the grid
HOLDS: tuple = ((),)  # ``_Grid.again``'s answer when nothing changed in a footing's cells
NOWHERE = (math.inf, math.inf)  # where a fighter not standing is, in ``_Grid.trails``
TRAIL_LOOK = 8  # changes of a side a far fighter's measure looks through (``changed_beyond``)
BEYOND: tuple = ((), ())  # ``_Grid.again``'s when no enemy is left within a footing's radius


SHIFT = 1 << 16  # a cell's key: its column * SHIFT + its row (rows within +-2**15)


def _key(at: Point) -> int:
    """The key of the grid cell ``at`` is in."""
    return math.floor(at[0] / CELL) * SHIFT + math.floor(at[1] / CELL)


def _ring(r: int) -> list[int]:
    """The key offsets of the cells at Chebyshev distance ``r`` from a cell."""
    if r == 0:
        return [0]
    cells = [i * SHIFT + j for i in range(-r, r + 1) for j in (-r, r)]
    cells.extend(i * SHIFT + j for i in (-r, r) for j in range(-r + 1, r))
    return cells


RING_CELLS = [_ring(r) for r in range(RINGS + 1)]
FANOUT_BITS = 3  # a coarser level's cell is 2**3 x 2**3 cells of the level below
LEVELS = 5  # coarser levels above the cells: 128 m to 524,288 m a side (all of +-2**15 rows)
HALF_SHIFT = SHIFT >> 1
# meters within which the nearest enemy beyond the rings is looked for in the coarser levels
# (farther, a pass over all: see ``Battle._nearest_beyond``)
LEVELS_REACH = 2048.0
LEVELS_WORK = 32  # cells and fighters a look in the coarser levels may look at (else a pass)
LEVELS_SKIPS = 16  # looks that make a pass at once after the levels gave up


def _parent(key: int) -> int:
    """The key of the cell one level coarser that holds the cell ``key``."""
    column = (key + HALF_SHIFT) >> 16
    row = key - (column << 16)
    return (column >> FANOUT_BITS) * SHIFT + (row >> FANOUT_BITS)


def _cell_gap(key: int, size: float, here: Point) -> float:
    """Meters, less ``SLACK``, from ``here`` to the cell ``key`` of a level of cells of
    ``size`` meters: no one in it is nearer (math.dist)."""
    column = (key + HALF_SHIFT) >> 16
    row = key - (column << 16)
    x0, y0 = column * size, row * size
    x, y = here
    dx = x0 - x if x < x0 else (x - x0 - size if x > x0 + size else 0.0)
    dy = y0 - y if y < y0 else (y - y0 - size if y > y0 + size else 0.0)
    return math.hypot(dx, dy) - SLACK


Span = tuple[int, int, int, int]  # the columns x0..x1 and rows y0..y1 of a block of cells


class _Grid:
    """A big fight's standing fighters by side and square cell of ``CELL`` meters, kept
    move by move and fall by fall (``place``), with a stamp per cell and side that changes
    whenever one of the side enters, leaves, moves or falls in it. Queries look only in the
    cells near a point (the nearest enemy, those in melee reach, who stands at a cover point
    or near a way), and a fighter's ``enemies_in_view`` stands while the stamps of the cells
    it was found in stay the same, or is looked for again in those cells only (``footing``,
    ``again``). A box around where each side stood (``apart``) tells when no enemy can be
    near at all. The cover points are listed by cell too. From a battle's first look beyond
    the rings, coarser levels of cells (``levels``) find the nearest however far, and each
    side's changes are logged (``trails``) for the memos of fighters far from everyone."""

    __slots__ = (
        "cells",
        "changes",
        "trails",
        "placed_at",
        "far_kept",
        "levels_skipped",
        "made",
        "standing",
        "placed",
        "foes",
        "foe_cells",
        "sides",
        "cover",
        "cover_points",
        "cover_found",
        "cover_cells",
        "extent",
        "levels",
    )

    def __init__(self, sides: list[str], fighters: list[Fighter], cover_points: list[tuple]):
        # side -> cell key -> [stamp, the side's standing fighters in the cell]: an entry,
        # once made, stays (a footing holds the entries themselves)
        self.cells: dict[str, dict[int, list]] = {s: {} for s in sides}
        self.changes = dict.fromkeys(sides, 0)  # every change of a side, anywhere
        # side -> every change of the side, anywhere, in order, four numbers each: where the
        # fighter stood before (x, y) and where it stands after (inf, inf when not standing)
        # (``changed_beyond``); numbers, not tuples, that the garbage collector never visits
        self.trails: dict[str, list[float]] = {s: [] for s in sides}
        # whether ``levels``, ``trails`` and ``placed_at`` are kept: from the first look
        # beyond the rings (``keep_far``); a fight that never looks so far never pays for them
        self.far_kept = False
        self.levels_skipped = 0  # looks beyond the rings left to make a pass at once
        self.made = 0  # counts the entries made so far
        self.standing = dict.fromkeys(sides, 0)  # side -> how many of it stand (are placed)
        # side -> [x0, x1, y0, y1]: a box around every place the side stood in (``apart``)
        self.extent = {s: [math.inf, -math.inf, math.inf, -math.inf] for s in sides}
        self.placed: list[int | None] = [None] * len(fighters)  # each fighter's cell key
        self.placed_at: list[Point] = [NOWHERE] * len(fighters)  # and where (if standing)
        # side -> per coarser level (``LEVELS``), cell key -> the keys of its cells one level
        # finer that hold one of the side's standing fighters: only such cells are listed
        self.levels: dict[str, list[dict[int, set[int]]]] = {
            s: [{} for _ in range(LEVELS)] for s in sides
        }
        self.sides = list(sides)
        self.foes = {s: [o for o in sides if o != s] for s in sides}
        self.foe_cells = {s: [self.cells[o] for o in self.foes[s]] for s in sides}
        self.cover_points = cover_points
        self.cover: dict[int, list[int]] = {}  # cell key -> the cover points in it
        self.cover_found: dict[Span, list[int]] = {}  # ``cover_near``'s answers
        # per cover point, the entries of every side's cells within half a meter of it
        self.cover_cells: list[list[list]] = []
        for k, (at, _) in enumerate(cover_points):
            self.cover.setdefault(_key(at), []).append(k)
            self.cover_cells.append(self._entries(self.sides, cast(Span, self.span(at, 0.5))))
        for f in fighters:
            self.place(f)

    def place(self, f: Fighter, standing: bool | None = None) -> None:
        """Put ``f`` in the cell it stands in (none when it cannot act, or ``standing`` is
        False), and stamp the cells it left and entered."""
        side, index = f.side, f.index
        old = self.placed[index]
        new = _key(f.position) if (f.can_act if standing is None else standing) else None
        cells = self.cells[side]
        far_kept = self.far_kept
        if old is not None:
            left = cells[old]
            left[0] += 1
            if new != old:
                left[1].remove(f)
                if far_kept and not left[1]:
                    self._emptied(side, old)
            if new is None:
                self.standing[side] -= 1
        elif new is not None:
            self.standing[side] += 1
        if new is not None:
            entry = cells.get(new)
            if entry is None:
                entry = cells[new] = [0, []]
                self.made += 1
            entry[0] += 1
            if new != old:
                entry[1].append(f)
                if far_kept and len(entry[1]) == 1:
                    self._filled(side, new)
            box = self.extent[side]
            x, y = f.position
            if not (box[0] <= x <= box[1] and box[2] <= y <= box[3]):
                box[:] = min(box[0], x), max(box[1], x), min(box[2], y), max(box[3], y)
        self.placed[index] = new
        self.changes[side] += 1
        if far_kept:
            before = self.placed_at[index]
            at = f.position if new is not None else NOWHERE
            self.trails[side] += (before[0], before[1], at[0], at[1])
            self.placed_at[index] = at

    def take_out(self, f: Fighter) -> None:
        self.place(f, standing=False)

    def keep_far(self) -> None:
        """Keep ``levels``, ``trails`` and ``placed_at`` from now on (made from the cells)."""
        if self.far_kept:
            return
        self.far_kept = True
        for side, cells in self.cells.items():
            for key, entry in cells.items():
                if entry[1]:
                    self._filled(side, key)
                for f in entry[1]:
                    self.placed_at[f.index] = f.position

    def _filled(self, side: str, key: int) -> None:
        """The cell ``key`` of ``side`` has its first fighter: list it in the coarser
        levels (each coarser cell newly holding one is listed in turn)."""
        child = key
        for children in self.levels[side]:
            parent = _parent(child)
            listed = children.get(parent)
            if listed is not None:
                listed.add(child)
                return
            children[parent] = {child}
            child = parent

    def _emptied(self, side: str, key: int) -> None:
        """The cell ``key`` of ``side`` has no fighter left: drop it from the coarser
        levels (and each coarser cell left empty in turn)."""
        child = key
        for children in self.levels[side]:
            parent = _parent(child)
            listed = children[parent]
            listed.discard(child)
            if listed:
                return
            del children[parent]
            child = parent

    def nearest_anywhere(
        self, side: str, here: Point, hint: Fighter | None = None, budget: int = -1
    ) -> tuple[Fighter | None, float] | None:
        """The first of the nearest standing enemies of ``side`` to ``here`` (math.dist,
        ties to the lower index), however far: from the cells of the coarser levels
        (``levels``), nearest first, each opened only while it may hold one as near as the
        best so far. For what is beyond the rings: a pass over every enemy cost more as the
        battle grew. ``hint``, an enemy that may be near, bounds it first. None when it
        would look at more than ``budget`` cells and fighters (then a pass costs less: many
        cells may hold one as near when the enemies are far compared with the cells;
        ``LEVELS_WORK`` unless given)."""
        if budget < 0:
            budget = LEVELS_WORK
        if hint is not None:
            bound = math.dist(here, hint.position)
            found = self._nearest_within(side, here, bound, budget)
            if found is None or found[0] is not None:
                return found
        return self._nearest_within(side, here, math.inf, budget)

    def _nearest_within(
        self, side: str, here: Point, bound: float, budget: int
    ) -> tuple[Fighter | None, float] | None:
        """``nearest_anywhere`` among the enemies within ``bound`` meters: the cells farther
        than the best so far (or ``bound``) are never opened (``_cell_gap``). None, inf when
        no enemy is that near; None past the ``budget``."""
        self.keep_far()
        dist = math.dist
        foes = self.foes[side]
        level = LEVELS
        size = CELL * (1 << (FANOUT_BITS * level))
        pending: list[tuple[float, int, int, int]] = []
        for s, foe in enumerate(foes):
            for key in self.levels[foe][level - 1]:
                gap = _cell_gap(key, size, here)
                if gap <= bound:
                    pending.append((gap, level, key, s))
        heapq.heapify(pending)
        best, best_d, best_i = None, bound, len(self.placed)  # (one at ``bound`` will do)
        while pending:
            gap, level, key, s = heapq.heappop(pending)
            if gap > best_d:
                break  # every cell left is farther than the best
            if level == 0:
                inside = self.cells[foes[s]][key][1]
                budget -= len(inside)
                for e in inside:
                    d = dist(here, e.position)
                    if d < best_d or (d == best_d and e.index < best_i):
                        best, best_d, best_i = e, d, e.index
                continue
            level -= 1
            size = CELL * (1 << (FANOUT_BITS * level))
            children = self.levels[foes[s]][level][key]
            budget -= len(children)
            if budget < 0:
                return None
            for child in children:
                gap = _cell_gap(child, size, here)
                if gap <= best_d:
                    heapq.heappush(pending, (gap, level, child, s))
        return (best, best_d) if best is not None else (None, math.inf)

    @staticmethod
    def span(at: Point, radius: float) -> Span | None:
        """The block of cells within ``radius`` (and ``SLACK``) of ``at`` in x and y; None
        when it is more than ``NEAR_CELLS`` cells."""
        r = radius + SLACK
        if r > CELL * NEAR_CELLS:
            return None
        x, y = at
        floor = math.floor
        x0, x1 = floor((x - r) / CELL), floor((x + r) / CELL)
        y0, y1 = floor((y - r) / CELL), floor((y + r) / CELL)
        if (x1 - x0 + 1) * (y1 - y0 + 1) > NEAR_CELLS:
            return None
        return x0, x1, y0, y1

    def apart(self, side: str, here: Point) -> float:
        """Meters, less ``SLACK``, from ``here`` to the box around every place the enemies of
        ``side`` stood in since the battle began (``extent``, 0 within it, infinite if none
        ever stood): no standing enemy is nearer. Sides far apart skip the cells near
        ``here``, all empty."""
        x, y = here
        low = math.inf
        for s in self.foes[side]:
            x0, x1, y0, y1 = self.extent[s]
            if x0 > x1:
                continue  # none of the side ever stood
            dx = x0 - x if x < x0 else (x - x1 if x > x1 else 0.0)
            dy = y0 - y if y < y0 else (y - y1 if y > y1 else 0.0)
            d = math.hypot(dx, dy)
            if d < low:
                low = d
        return low - SLACK

    def nearest(
        self, side: str, here: Point, hint: Fighter | None = None
    ) -> tuple[Fighter | None, float]:
        """The first of the nearest standing enemies of ``side`` to ``here`` (math.dist,
        ties to the lower index) when one is within ``RINGS`` rings of cells and nearer
        than any cell outside them; else ``(None, inf)``: the caller looks at all.

        ``hint``, a fighter that may be near, bounds the search first: every enemy within
        its meters is in the cells within them, so the nearest of those, if as near, is the
        nearest of all (a stale hint finds none, and the rings decide)."""
        if self.apart(side, here) > RING_REACH:  # no enemy in the cells looked in
            return None, math.inf
        dist = math.dist
        if hint is not None:
            bound = dist(here, hint.position)
            found = self.near(self.foes[side], here, bound)
            if found:
                best, best_d, best_i = None, math.inf, -1
                for e in found:
                    d = dist(here, e.position)
                    if d < best_d or (d == best_d and e.index < best_i):
                        best, best_d, best_i = e, d, e.index
                if best_d <= bound:
                    return best, best_d
        grids = [self.cells[s] for s in self.foes[side]]
        hx, hy = here
        cx, cy = math.floor(hx / CELL), math.floor(hy / CELL)
        key = cx * SHIFT + cy
        best, best_d, best_i = None, math.inf, -1
        for r, ring in enumerate(RING_CELLS):
            for offset in ring:
                for grid in grids:
                    entry = grid.get(key + offset)
                    if entry is not None:
                        for e in entry[1]:
                            d = dist(here, e.position)
                            if d < best_d or (d == best_d and e.index < best_i):
                                best, best_d, best_i = e, d, e.index
            if best is not None:
                margin = min(
                    hx - (cx - r) * CELL,
                    (cx + r + 1) * CELL - hx,
                    hy - (cy - r) * CELL,
                    (cy + r + 1) * CELL - hy,
                )
                if best_d < margin - SLACK:
                    return best, best_d
        return None, math.inf

    def measure(self, side: str, here: Point, hint: Fighter, reach: float) -> tuple | None:
        """``(nearest, its meters, in_reach, footing)`` of ``side``'s enemies from ``here``
        in one look at the cells within ``hint``'s meters (or ``reach``, if farther): the
        nearest (math.dist, ties to the lower index), how many stand within ``reach``, and the
        ``footing`` of both. None when no enemy stands as near as ``hint`` (it fell), ``FAR``
        when that is too many cells."""
        bound = math.dist(here, hint.position)
        radius = bound if bound > reach else reach
        span = self.span(here, radius)
        if span is None:
            return FAR
        entries = self._foe_entries(side, span)
        best, best_d, count = _nearest_in(entries, here, reach)
        if best_d > bound:
            return None
        return best, best_d, count, (here, entries, _stamps(entries), self.made, radius, None)

    def near(self, sides: list[str], at: Point, radius: float) -> list[Fighter] | None:
        """The standing fighters of ``sides`` in the cells within ``radius`` of ``at`` (a
        superset of those within it); None when that is too many cells."""
        span = self.span(at, radius)
        if span is None:
            return None
        x0, x1, y0, y1 = span
        found: list[Fighter] = []
        for s in sides:
            get = self.cells[s].get
            for i in range(x0, x1 + 1):
                column = i * SHIFT
                for key in range(column + y0, column + y1 + 1):
                    entry = get(key)
                    if entry is not None:
                        found.extend(entry[1])
        return found

    def count_within(self, side: str, here: Point, reach: float) -> int | None:
        """How many standing enemies of ``side`` stand within ``reach`` of ``here``
        (math.dist); None when that is too many cells to look in."""
        found = self.near(self.foes[side], here, reach)
        if found is None:
            return None
        dist = math.dist
        return sum(1 for e in found if dist(here, e.position) <= reach)

    def _entries(self, sides: list[str], span: Span) -> list[list]:
        """The entries of ``sides``' cells in ``span``, made (empty) where none was yet."""
        x0, x1, y0, y1 = span
        entries = []
        for s in sides:
            cells = self.cells[s]
            for i in range(x0, x1 + 1):
                column = i * SHIFT
                for key in range(column + y0, column + y1 + 1):
                    entry = cells.get(key)
                    if entry is None:
                        entry = cells[key] = [0, []]
                        self.made += 1
                    entries.append(entry)
        return entries

    def occupied(self, k: int, me: Fighter) -> bool:
        """Whether someone able to act other than ``me`` stands within half a meter of
        cover point ``k`` (in the cells around it: ``cover_cells``)."""
        dist = math.dist
        at = self.cover_points[k][0]
        for entry in self.cover_cells[k]:
            for e in entry[1]:
                if e is not me and dist(e.position, at) < 0.5:
                    return True
        return False

    def cover_near(self, at: Point, radius: float) -> list[int]:
        """The cover points (indexes, in order) in the cells within ``radius`` of ``at``:
        all of them when that is too many cells. Kept by block of cells: the points stay."""
        cover = self.cover
        if not cover:
            return []
        span = self.span(at, radius)
        if span is None:
            return list(range(len(self.cover_points)))
        found = self.cover_found.get(span)
        if found is None:
            x0, x1, y0, y1 = span
            found = []
            for i in range(x0, x1 + 1):
                column = i * SHIFT
                for key in range(column + y0, column + y1 + 1):
                    points = cover.get(key)
                    if points is not None:
                        found.extend(points)
            found.sort()
            self.cover_found[span] = found
        return found

    def footing(self, side: str, here: Point, radius: float) -> tuple:
        """What a measure from ``here`` of ``side``'s enemies within ``radius`` stands on:
        ``(here, the enemies' cell entries within radius, the sum of their stamps, made,
        radius, None)``; with too many cells, ``(here, None, all of the enemies' changes,
        made, radius, how long each enemy side's trail was)``: the trails' lengths when the
        radius is within ``LEVELS_REACH`` (``changed_beyond``), else None."""
        span = self.span(here, radius) if radius < math.inf else None
        if span is None:
            changes = sum(self.changes[s] for s in self.foes[side])
            seen = None
            if radius <= LEVELS_REACH:  # (beyond, every change is within reach or near it)
                self.keep_far()
                seen = [len(self.trails[s]) for s in self.foes[side]]  # (four numbers a change)
            return (here, None, changes, self.made, radius, seen)
        entries = self._foe_entries(side, span)
        return (here, entries, _stamps(entries), self.made, radius, None)

    def _foe_entries(self, side: str, span: Span) -> list[list]:
        """The entries of the cells of ``side``'s enemies in ``span`` (those made)."""
        x0, x1, y0, y1 = span
        entries = []
        for cells in self.foe_cells[side]:
            get = cells.get
            for i in range(x0, x1 + 1):
                column = i * SHIFT
                for key in range(column + y0, column + y1 + 1):
                    entry = get(key)
                    if entry is not None:
                        entries.append(entry)
        return entries

    def again(self, side: str, footing: tuple, here: Point, reach: float) -> tuple | None:
        """A measure on ``footing`` looked at again for a fighter of ``side`` at ``here``,
        without working out its cells: ``HOLDS`` when no enemy entered, left, moved or fell
        in them (stamps only grow: an equal sum is every stamp the same); else ``(nearest,
        its meters, in_reach, footing)`` from the enemies in them when that nearest stands
        within the footing's radius (every enemy as near is in its cells), ``BEYOND`` when
        none does; else None (look afresh). Only while the fighter has not moved and no cell
        entry was made (an enemy in a cell empty till then). A footing of too many cells
        holds while every change was beyond its radius (``changed_beyond``)."""
        if footing[0] != here:
            return None
        entries = footing[1]
        if entries is None and footing[5] is not None:
            return HOLDS if self.changed_beyond(side, footing[5], here, footing[4]) else None
        if footing[3] != self.made:
            return None
        if entries is None:
            same = sum(self.changes[s] for s in self.foes[side]) == footing[2]
            return HOLDS if same else None
        total = _stamps(entries)
        if total == footing[2]:
            return HOLDS
        radius = footing[4]
        best, best_d, count = _nearest_in(entries, here, reach)
        if best_d > radius:
            return BEYOND
        return best, best_d, count, (here, entries, total, self.made, radius, None)

    def changed_beyond(self, side: str, seen: list[int], here: Point, radius: float) -> bool:
        """Whether every change of ``side``'s enemies since their trails were ``seen`` long
        was farther than ``radius`` from ``here`` (math.dist), where the fighter stood before
        and after: nothing within the radius changed, so a measure of it holds (``seen`` is
        brought up to date). False after more than ``TRAIL_LOOK`` changes of a side: a look
        afresh costs less. A far fighter's measure stands on too many cells to watch their
        stamps, and every move in the battle used to make it measure again."""
        dist = math.dist
        for k, foe in enumerate(self.foes[side]):
            trail = self.trails[foe]
            end = len(trail)
            if end - seen[k] > 4 * TRAIL_LOOK:
                return False
            for i in range(seen[k], end, 2):  # where one stood before, then after
                if dist(here, (trail[i], trail[i + 1])) <= radius:
                    return False
        for k, foe in enumerate(self.foes[side]):
            seen[k] = len(self.trails[foe])
        return True


def _stamps(entries: list[list]) -> int:
    """The sum of the stamps of cell ``entries`` (each only grows: an equal sum is every
    stamp the same)."""
    total = 0
    for entry in entries:
        total += entry[0]
    return total


def _nearest_in(entries: list[list], here: Point, reach: float) -> tuple[Any, float, int]:
    """The first of the nearest fighters (math.dist, ties to the lower index) of the cell
    ``entries``, its meters, and how many stand within ``reach`` of ``here``."""
    dist = math.dist
    best, best_d, best_i, count = None, math.inf, -1, 0
    for entry in entries:
        for e in entry[1]:
            d = dist(here, e.position)
            if d <= reach:
                count += 1
            if d < best_d or (d == best_d and e.index < best_i):
                best, best_d, best_i = e, d, e.index
    return best, best_d, count


def _remember(
    me: Fighter,
    layout: int,
    enemies: list[Fighter],
    meters: _Meters,
    nearest: Fighter | None,
    in_reach: int,
    nearest_d: float | None,
) -> EnemiesInView:
    """Keep what ``me`` sees in its own ``EnemiesInView``, made at its first measure, and
    the meters to its nearest when known (``nearest_d``): the tactics read them at once."""
    seen = me.enemies_seen
    if seen is NOT_SEEN:
        seen = me.enemies_seen = _blank(EnemiesInView)
    meters.nearest = nearest
    if nearest is not None and nearest_d is not None:
        meters[nearest.index] = nearest_d
    seen.layout = layout
    seen.enemies = enemies
    seen.meters = meters
    seen.nearest = nearest
    seen.in_reach = in_reach
    return seen


def _cover_at(points: list[tuple], at: tuple[float, float]) -> str:
    """The cover of the first of ``points`` ((position, CoverPoint) pairs) within half a
    meter of ``at``; "none" when there is none."""
    for position, point in points:
        if math.dist(at, position) < 0.5:
            return point.cover
    return "none"


def _prepared(scenario: Scenario) -> list[tuple]:
    """Per fighter of ``scenario``: its spec, ``Fighter.static_parts``, walk and run meters
    (the rule system's ``movement``), the shots per action (``burst_size`` of the rule
    system's ``max_autofire``) and its cover where it starts; worked out at its first battle
    and kept (a batch runs thousands)."""
    kept = _PREPARED.get(id(scenario))
    if kept is not None and kept[0] is scenario:
        return kept[1]
    parts = []
    points = [(p.position, p) for p in scenario.environment.cover_points]
    for i, spec in enumerate(scenario.fighters):
        static = Fighter.static_parts(spec)
        fighter = Fighter(spec, i, static)
        walk, run = scenario.system.movement(fighter)
        firearm = fighter.firearm
        autofire = scenario.system.max_autofire(fighter, firearm) if firearm else 1
        burst = burst_size(fighter.tactics, firearm, autofire)
        # placed on a cover point: it has that point's cover from the start
        cover = spec.cover if spec.cover != "none" else _cover_at(points, spec.position)
        parts.append((spec, static, walk, run, burst, cover))
    # A long sweep makes many scenarios: keep the newest few, and few fighters' worth, so that
    # variants built one at a time (``explain``'s) are not all kept alive here.
    kept_fighters = sum(len(parts) for _, parts in _PREPARED.values())
    if len(_PREPARED) >= 64 or kept_fighters + len(parts) > PREPARED_FIGHTERS:
        _PREPARED.clear()
    _PREPARED[id(scenario)] = (scenario, parts)
    return parts


def _passing_at(a: Point, b: Point, p: Point, radius: float) -> float | None:
    """Where along the segment a->b (0 to 1) it passes within ``radius`` of p, closest, other
    than where it ends; None when it does not."""
    ax, ay = a
    dx, dy = b[0] - ax, b[1] - ay
    length2 = dx * dx + dy * dy
    if length2 == 0:
        return None
    # where along the line it comes closest (``t`` outside 0-1: clamped to an end, none here)
    t = ((p[0] - ax) * dx + (p[1] - ay) * dy) / length2
    if t <= 0.0 or t >= 1.0:  # closest where the mover starts or stops: leaving or closing
        return None  # in, not passing by
    return t if math.dist((ax + t * dx, ay + t * dy), p) <= radius else None


def run_battle(
    scenario: Scenario,
    root_seed: int,
    index: int,
    trace: bool = False,
    starts: Mapping[str, Start] | None = None,
) -> BattleResult:
    """Battle ``index`` of the run seeded ``root_seed``: the same whatever else runs with it.
    ``starts``: fighters by name that start otherwise than their specs say (``Start``)."""
    return Battle(
        scenario, battle_rng(root_seed, index), index=index, trace=trace, starts=starts
    ).run()
