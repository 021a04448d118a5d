"""One battle as a discrete-event simulation (simpy), following the Combat Turn Sequence.

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
remaining actions. Held (conditional) actions wait for a move that concerns them or the end
of the turn, each on its own event (``holds.py``, ruling 30); grenades in flight are
processes of their own.

The engine owns time, positions, movement and victory, and hands the tactics and the rule
system the battle they decide and resolve in (``combatsim.rules.base.BattleView``); every rule
number comes from the scenario's rule system. It does no I/O: it returns a ``BattleResult`` of
plain records. This module is the battle: time, actions, damage and victory. Who stands where
and who is near whom is the battle's ``Field`` (``field.py``), which it tells of every move and
fall and which answers the proximity questions of the ``BattleView``; a fighter's state is
``fighter.py``.
"""

from __future__ import annotations

import math
from collections.abc import Generator, Mapping
from typing import Any, cast

import numpy as np
import simpy
from mypy_extensions import mypyc_attr
from simpy.events import NORMAL, Event

from ..rng import battle_rng
from ..rules.base import (
    ExtraColumns,
    RuleSystem,
    grenade_rules,
    max_autofire,
    start_rules,
    wound_penalty,
)
from ..rules.situation import (
    EnemiesInView,
    Scatter,
    Situation,
    blast_distance,
    landing_point,
)
from ..rules.start import Start
from ..scenario.model import Scenario
from ..tactics.policies import (
    MIN_WALK,
    Plan,
    burst_size,
    choose_target,
    plan_action,
    shots_now,
    walk_left,
)
from .field import Field, cover_at, within_reach
from .fighter import Fighter, Point, leave_grenades
from .holds import Holds
from .records import MUTUAL, TURN_LIMIT, VICTORY, BattleResult, TraceEvent
from .roll import Roller
from .simpy_parts import Alarm, At, advance, release, run_until, started

TIES = 1 << 20  # initiative tie-breaks are random draws from 0 .. TIES - 1


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
        # its initiative_penalty, unless wounds never move initiative under it
        self.wound_penalty = wound_penalty(system)
        self.environment = scenario.environment
        self.melee_range = scenario.environment.melee_range
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
        # fighters waiting with a held action, as wide as the longest reach one may hold
        self.holds = Holds(max((f.firearm_range for f in fighters), default=0.0))
        self.decided: Event = self.env.event()
        self.over = False
        self.fallen = True  # someone left the fight since the last victory check
        # who stands where and who is near whom (its ``layout`` counts the moves and the
        # departures from the fight)
        self.field = Field(self.environment, self.sides, fighters)

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
        self.field.renew(self.fighters[index], f)
        self.fighters[index] = f
        return f

    def _begin_as(self, f: Fighter, start: Start) -> None:
        """``f`` as ``start`` says (ruling 27): its state by the rule system, its magazines
        and grenades; a fighter that then cannot act starts out of the fight, as if knocked
        out before the first turn (``knocked_out_turn`` 0)."""
        system = self.system
        if start.wounds or start.stun or start.spent or start.dead:
            rules = start_rules(system)  # the loader takes these only from a system with them
            assert rules is not None, f"{system.name} has no starting conditions"
            rules.apply_start(f, start)
        if start.rounds is not None:
            f.ammo = list(start.rounds)
        if start.grenades is not None:
            leave_grenades(f, start.grenades)
        if not system.can_act(f):
            f.can_act = False
            f.knocked_out_turn = 0
            self.out_at_start = True

    # --- queries used by rules and tactics (those about positions: the field's) ---------------
    @property
    def layout(self) -> int:
        """The field's ``layout``: it changes whenever someone moves or leaves the fight."""
        return self.field.layout

    @layout.setter
    def layout(self, value: int) -> None:
        self.field.layout = value

    def distance(self, a: Fighter, b: Fighter) -> float:
        return math.dist(a.position, b.position)

    def is_standing(self, f: Fighter) -> bool:
        return f.can_act

    def standing_enemies(self, me: Fighter) -> list[Fighter]:
        return self.field.standing_enemies(me)

    def enemies_in_view(self, me: Fighter) -> EnemiesInView:
        return self.field.enemies_in_view(me)

    def situation(
        self, attacker: Fighter, target: Fighter | None, at: Point | None = None
    ) -> Situation:
        return self.field.situation(attacker, target, at)

    def opponents_in_melee(self, me: Fighter) -> int:
        return self.field.opponents_in_melee(me)

    def measured_from(self, me: Fighter, at: Point) -> tuple[dict[int, float], Fighter | None]:
        return self.field.measured_from(me, at)

    def within_reach(
        self, enemies: list[Fighter], meters: Mapping[int, float], reach: float
    ) -> list[Fighter]:
        return within_reach(enemies, meters, reach)

    def free_cover_point(self, me: Fighter, within: float, kind: str | None = None) -> Any:
        return self.field.free_cover_point(me, within, kind)

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
        self.field.clear()
        self.focus.clear()
        self.holds.take_all()
        self.system.end_battle(self)

    def _turns(self) -> Generator[Event, Any, None]:
        """The Combat Turn Sequence, repeated until one side is left or the turn limit."""
        system, env, fighters = self.system, self.env, self.fighters
        initiative, tiebreak = system.initiative, system.initiative_tiebreak
        penalty = self.wound_penalty
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
            if self.holds.count:  # held actions not triggered this turn are wasted now
                self._wake_holders(self.holds.take_all(), "turn end")
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
            scores = f.scores
            for k in range(len(scores)):
                base = scores[k]
                f.next_score = scores[k + 1] if k + 1 < len(scores) else 0
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
        """A conditional action (the Combat Turn Sequence's step 3): wait until a move that
        concerns it brings an enemy into range (ruling 30), or waste the action when the
        holder's next action comes due (ruling 28) or the turn ends: one action per initiative
        score."""
        weapon = plan.weapon
        env = self.env
        score = self.score or 0
        while not self.over:
            f.wake = wake = env.event()
            self.holds.add(f, weapon.max_range, plan.target, score)
            lapse = self._lapses_at(f, ends)
            try:
                if lapse < ends:  # its next action comes first
                    yield env.any_of((wake, At(env, max(lapse - env.now, 0.0), f.priority)))
                else:
                    yield wake
            except simpy.Interrupt:
                self._drop_holder(f)
                continue
            if not wake.triggered:  # its next action came due, unless wounds moved it on
                self._drop_holder(f)
                if not f.can_act or self.over:
                    return None
                if env.now < self._lapses_at(f, ends):
                    continue
                self.score = round(ends - env.now)  # the score of its next action
                if self.tracing:
                    why = "its next action is due"
                    self.trace("action", f"{f.name}'s held action lapses: {why}", actor=f)
                return None
            if not f.can_act:  # taken out while holding: the action is simply gone
                return None
            if self.over or self.env.now >= ends:
                if self.tracing:
                    self.trace("action", f"{f.name}'s held action is wasted", actor=f)
                return None
            seen = self.field.enemies_in_view(f)
            target = self._held_target(f, plan, seen, weapon.max_range)
            if target is not None:
                # the weapon held is the fighter's firearm (``plan_action``): its burst
                shots = shots_now(f.burst, f.ammo[f.weapon_index[id(weapon)]])
                why = ""
                if self.tracing:  # the held action's own decision ("decide" stays one an action)
                    why = f"held action triggered: {target.name} came within range"
                    self.trace("held", f"{f.name}: fire - {why}", actor=f)
                return Plan("fire", why, target=target, weapon=weapon, shots=shots)
        return None

    def _held_target(
        self, f: Fighter, plan: Plan[Fighter], seen: EnemiesInView, reach: float
    ) -> Fighter | None:
        """Whom a held action fires at now, if at anyone: with ``target_in_reach`` (the plan
        names no target) the tactics' choice among the enemies within ``reach``; else the
        target it holds for (chosen again among all of them if it fell), once that one is
        within reach. A hold for a sniper out of range fired at whoever stood in range when
        anyone moved."""
        held_for = plan.target
        if held_for is None:
            in_range = self._in_range(seen, reach)
            return choose_target(self, f, in_range, seen.meters) if in_range else None
        if not held_for.can_act:
            if seen.nearest is None:
                return None
            held_for = plan.target = choose_target(self, f, seen.enemies, seen.meters)
        return held_for if seen.meters[held_for.index] <= reach else None

    def _lapses_at(self, f: Fighter, ends: float) -> float:
        """When a held action of ``f`` lapses (ruling 28): when its next action this turn
        comes due, as wounds have moved it; ``ends`` when it has none."""
        later = f.next_score
        if later <= 0:
            return ends
        score = later - f.shift
        top = self.system.initiative_top
        if score >= top:
            score = top
        return ends - score if score >= 1 else ends

    @staticmethod
    def _in_range(seen: EnemiesInView, reach: float) -> list[Fighter]:
        """The enemies ``seen`` within ``reach`` (by their meters), in order: none when the
        nearest is farther (no measure of all of them then); in a big fight numpy finds them."""
        nearest = seen.nearest
        if nearest is None or seen.meters[nearest.index] > reach:
            return []
        return within_reach(seen.enemies, seen.meters, reach)

    @staticmethod
    def _wake_holders(holders: list[Fighter], cause: str) -> None:
        """Wake ``holders``, in the order given (ruling 30's, from ``Holds``)."""
        for h in holders:
            # a holder waits on the wake ``_hold`` gave it before it joined ``holds``
            h.wake.succeed(cause)  # type: ignore[union-attr]

    def _drop_holder(self, f: Fighter) -> None:
        self.holds.remove(f)

    def _execute(self, f: Fighter, plan: Plan[Fighter]) -> None:
        """Carry out ``plan``. What a plan holds goes with its kind (``Plan``): a run or flee
        has its ``dest``, a fire or melee its ``target``, a grenade its ``aim``; the checker
        is told so where each is named (``type: ignore``), once, not at run time."""
        kind = plan.kind
        system = self.system
        target: Fighter
        if kind in ("run", "flee"):
            self._run(f, plan)
        elif plan.dest is not None:
            self._walk(f, plan.dest)
        if not f.can_act or self.over:  # taken out on the way (interception)
            self.check_victory()
            return
        if (kind == "fire" or kind == "grenade") and f.cover == "hidden":
            self._reveal(f)
        attacks = f.attacks
        if kind == "fire":
            target = plan.target  # type: ignore[assignment]
            weapon = plan.weapon
            index = f.firearm_index if weapon is f.firearm else f.weapon_index[id(weapon)]
            ammo = f.ammo
            shots = plan.shots
            if ammo[index] < shots:
                shots = ammo[index]
            ammo[index] -= shots
            key = (target.index, index, shots)
            attacks[key] = attacks.get(key, 0) + 1
            if plan.sweep and shots == plan.shots:
                for victim, rounds in plan.sweep:  # one attack on each target swept
                    key = (victim.index, index, rounds)
                    attacks[key] = attacks.get(key, 0) + 1
                system.ranged_attack(self, f, target, weapon, shots, plan.sweep)
            else:
                system.ranged_attack(self, f, target, weapon, shots)
        elif kind == "melee":
            target = plan.target  # type: ignore[assignment]
            if self.distance(f, target) <= self.melee_range:
                # -1: unarmed (no melee weapon on the sheet)
                key = (target.index, f.weapon_index.get(id(plan.weapon), -1), 1)
                attacks[key] = attacks.get(key, 0) + 1
                system.melee_attack(self, f, target, plan.weapon)
        elif kind == "reload":
            self._reload(f, plan.weapon)
        elif kind == "grenade":
            index = f.weapon_index[id(plan.weapon)]
            f.ammo[index] -= 1
            key = (-1 if plan.target is None else plan.target.index, index, 1)
            attacks[key] = attacks.get(key, 0) + 1
            grenades = grenade_rules(system)
            aim: Point = plan.aim  # type: ignore[assignment]
            at = self.land(f, aim, grenades.throw_grenade(self, f, plan.weapon, aim))
            self.env.process(self._grenade(f, plan.weapon, at))
        if self.fallen:
            self.check_victory()

    def _run(self, f: Fighter, plan: Plan[Fighter]) -> None:
        """A run, or a flight (``flee``), which gives up the cover point the fighter was
        walking to and may take it out of the fight (``_check_escape``)."""
        flee = plan.kind == "flee"
        if flee:
            self.field.release_claim(f)
        f.ran_this_turn = f.running = True
        self.move(f, plan.dest, f.run)  # type: ignore[arg-type]  # a run has its ``dest``
        if flee and f.can_act:
            self._check_escape(f)

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
        self.move(f, dest, walk_left(f))

    def _grenade(self, thrower: Fighter, weapon: Any, at: Point) -> Generator[Event, Any, None]:
        """A grenade in flight bursts ``grenade_flight`` initiative points later (0: at once)."""
        delay = grenade_rules(self.system).grenade_flight(weapon)
        yield self.env.timeout(delay)
        if self.over:
            return
        if self.tracing:
            self.trace(
                "grenade",
                f"the grenade bursts at ({at[0]:.1f}, {at[1]:.1f})",
                actor=thrower,
                bursts=at,
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
            text = f"{scatter.text}({at[0]:.1f}, {at[1]:.1f})"
            self.trace("grenade", text, actor=thrower, aim=aim, lands=at)
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
        within one meter (``INTERCEPT_DISTANCE``, the field's ``passed_by``) may intercept
        (Interception). Fighters holding an action that the move concerns are
        woken to see whether it came into range (ruling 30: no event for the others)."""
        start = f.position
        length = math.dist(start, dest)
        if length <= 1e-9 or budget < MIN_WALK:  # (a rounding leftover is no walk)
            return
        t = min(1.0, budget / length)
        end = (start[0] + (dest[0] - start[0]) * t, start[1] + (dest[1] - start[1]) * t)
        moved = length * t
        field = self.field
        f.position = end
        before = field.layout
        field.moved(f)
        f.moved_this_turn += moved
        f.moved_this_action += moved
        f.cover = field.cover_at(end)
        if f.cover_claim >= 0:
            field.left_claim(f, start)
        if self.tracing:
            self.trace(
                "move",
                f"{f.name} {'runs' if f.running else 'walks'} {moved:.1f} m to "
                f"({end[0]:.1f}, {end[1]:.1f})"
                + (f", into {f.cover} cover" if f.cover != "none" else ""),
                actor=f,
                to=end,
            )
        for t, _, enemy in field.passed_by(f, start, end, moved, before):
            if not f.can_act or not enemy.can_act:
                continue
            self.system.melee_attack(self, enemy, f, enemy.melee, interception=True)
            if not f.can_act:  # stopped where it passed the interceptor: it lies there
                at = start[0] + (end[0] - start[0]) * t, start[1] + (end[1] - start[1]) * t
                f.position = at
                f.cover = field.cover_at(at)
                field.moved(f)
                if self.tracing:
                    where = f"({at[0]:.1f}, {at[1]:.1f})"
                    self.trace(
                        "move", f"{f.name} falls where it was stopped, at {where}", actor=f, to=at
                    )
        if self.holds.count:
            woken = self.holds.woken_by(f)
            if woken:
                self._wake_holders(woken, "moved")

    def _check_escape(self, f: Fighter) -> None:
        """A fighter falling back beyond ``escape_distance`` of every standing enemy has fled."""
        limit = self.environment.escape_distance
        if all(self.distance(f, e) > limit for e in self.field.standing_enemies(f)):
            f.fled = True
            f.can_act = False
            self.fallen = True
            self.field.roster_changed(f)
            f.knocked_out_turn = self.record_turn()
            if self.tracing:
                self.trace("status", f"{f.name} has fled the fight", actor=f, fled=True)
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
            self.field.roster_changed(target)
        if was_acting and not acting:
            target.knocked_out_turn = self.record_turn()
            self.fallen = True
        elif acting and target.scores and self.wound_penalty is not None:
            # wounds move initiative only here: the fighter's shift is kept for its waits
            target.shift = shift = self.wound_penalty(target) - target.penalty_at_roll
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
        standing = self.field.sides_standing()
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
        system = self.system
        status = system.status
        record = system.record if isinstance(system, ExtraColumns) else None
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
                    **(record(f) if record is not None else {}),
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
        rules, status = start_rules(self.system), self.system.status
        out = {}
        for f in self.fighters:
            wounds, stun, spent = rules.carried(f) if rules is not None else (0, 0, 0)
            rounds = None if tuple(f.ammo) == f.full_loads else tuple(f.ammo)
            grenades = sum(f.ammo[i] for i, _ in f.grenades) if f.grenades else None
            out[f.name] = Start(wounds, stun, spent, rounds, grenades, status(f) == "dead")
        return out


_PREPARED: dict[int, tuple[Scenario, list[tuple]]] = {}
PREPARED_FIGHTERS = 4000  # fighters of the scenarios kept prepared (two of the largest)


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
        autofire = max_autofire(scenario.system, fighter, firearm) if firearm else 1
        burst = burst_size(fighter.tactics, firearm, autofire)
        # placed on a cover point: it has that point's cover from the start
        cover = spec.cover if spec.cover != "none" else cover_at(points, spec.position)
        parts.append((spec, static, walk, run, burst, cover))
    # A long sweep makes many scenarios: keep the newest few, and few fighters' worth, so that
    # variants built one at a time (``explain``'s) are not all kept alive here.
    kept_fighters = sum(len(parts) for _, parts in _PREPARED.values())
    if len(_PREPARED) >= 64 or kept_fighters + len(parts) > PREPARED_FIGHTERS:
        _PREPARED.clear()
    _PREPARED[id(scenario)] = (scenario, parts)
    return parts


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
