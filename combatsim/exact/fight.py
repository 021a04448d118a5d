"""The exact odds of a whole fight that stands still: who wins within the turn limit, in fractions.

A Markov chain over the fighters' condition (``combatsim.exact.state``), walked one step at a
time: the start of a turn (everyone's initiative and the order of equal scores) or one action
(the next fighter in the turn's order starts it, the tactics plan it, the rule system resolves
it). Each step is run under ``paths.explore`` with dice that choose (``EnumeratingRoller`` and
the system's ``exact_dice``), from a battle put into the step's state, and what each way of the
dice leaves behind is the next state; equal states are merged, so the work grows with the
number of distinct conditions, not with the number of ways a battle can go.

The same rules, not a second copy: initiative is the system's ``initiative``, an action is the
engine's own ``_start_action`` (``begin_action``, a fumble's lost action, the tactics'
``plan_action``) and ``_execute`` (the system's ``ranged_attack``/``melee_attack``, reloads,
victory). Only the engine's timing of a turn is followed here instead of simpy's clock, as
``Battle._turns`` and ``Battle._fighter`` time it: actions run by score from the top (scores at
or above ``initiative_top`` at once), equal times by rank (``initiative_tiebreak``, then the
tie-break draws), a wound moves the fighter's remaining scores down by its new initiative
penalty and an action pushed below 1 is lost with the rest of that fighter's turn. The
tie-break draws (``TIES`` values each) are not enumerated: the chance of each order of equal
keys is counted exactly (``tie_orders``).

A plan that moves (a walk, a run, flight) or throws a grenade is refused (``NotExact``), as is
a fight past the limits on states and paths. So that a refusal comes in seconds, not after the
minute it takes to reach a limit, a fight is looked at before the walk: its system (Lost Souls
and 4D8 keep other fighters in a fighter's state, which no plain value holds), its grenades,
``PROBES`` sampled battles for movement, and a projection of the paths from the chain's first
turn (``Chain.check_size``). An action is walked once for every node that shares what it
reads (``Chain._act``), and where wounds never move initiative a turn is kept as the order
of its actions (``_in_order``). A held action (``hold``) waits for a movement that
never comes in a fight that stands still: it is wasted with the rest of the fighter's turn, as
the engine wastes it at the turn's end.
"""

from __future__ import annotations

import heapq
import math
import time
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction
from itertools import permutations, product
from typing import Any, NamedTuple

from simpy.events import NORMAL

from ..dice.exact import Dist
from ..dice.paths import Choose, TooManyPaths, explore
from ..engine.battle import TIES, Battle
from ..engine.exact import EnumeratingRoller
from ..engine.fighter import Fighter
from ..engine.records import MUTUAL, TURN_LIMIT, VICTORY
from ..rng import battle_rng
from ..rules.base import ExactHooks, wound_penalty
from .state import (
    LASTING,
    Condition,
    NotExact,
    Snapshot,
    for_the_record,
    record_fields,
    refuse,
    restore,
)

# Plans an exact fight can follow: they neither move anyone nor throw anything.
STILL = ("fire", "melee", "reload", "none")
MAX_STATES = 50_000  # distinct chain states (each a step of up to ``max_paths`` paths)
MAX_PATHS = 1_000_000  # paths walked in all (under a minute of rule code: a refusal comes soon)
MAX_TIED = 6  # fighters with equal tie-breaks whose orders are listed (6! = 720)
PROBES = 20  # sampled battles looked at for movement before the chain starts
PROJECTED = 5  # a fight projected past this many times the limit on paths is refused at once
# The projection's first turn start and first action may take this share of the limit on paths
# each, and the whole first turn of a fight of several (a few seconds at most): a fight whose
# first steps take more is too large anyway
FIRST_SHARE = {"turn": 200, "act": 20, "first turn": 40}
# Systems whose rule state the chain cannot hold, by name (docs/exact.md lists what it covers)
NOT_COVERED = {"lost-souls": "Lost Souls", "4d8": "4D8"}
CAN_ACT = LASTING.index("can_act")  # where a lasting condition's engine part says so
COVERED = "Classic Shadowrun (sr-classic, sr-d8) or Shadowrun: 2097 (sr2097)"


class Node(NamedTuple):
    """A state of the chain: the start of a turn (``phase`` "turn") or a turn under way
    ("act"), every fighter's lasting condition (``Condition.key``), within a turn each
    fighter's ``Timing`` of the actions still to come, and each side's focus target (the
    fighter's index)."""

    phase: str
    fighters: tuple
    timing: tuple[Timing, ...]
    focus: tuple[tuple[str, int], ...]


# A fighter's part of a turn under way: its scores still to come (the next first), its rank
# among equal scores (``priority``), the wound penalty when it rolled, the shift wounds gave
# its scores since, and its actions so far this turn (``may_run`` reads them)
Timing = tuple[tuple[int, ...], int, int, int, int]
IDLE: Timing = ((), 0, 0, 0, 0)  # no action left this turn: nothing of its turn is read again


class Acted(NamedTuple):
    """What an action left that the turn's timing needs: the fighters' lasting conditions,
    the focus, each fighter's wound shift (None: wounds do not move initiative), the actor's
    actions this turn, and whether it held (wasting the rest of its turn)."""

    fighters: tuple
    focus: tuple[tuple[str, int], ...]
    shifts: tuple[int, ...] | None
    acted: int
    held: bool


class End(NamedTuple):
    """How a battle ended, the turn left out (a step is the same whatever the turn)."""

    reason: str
    winner: str | None
    fighters: tuple[tuple[bool, str], ...]  # (standing, status) of each fighter


@dataclass(frozen=True, order=True)
class Ending:
    """How a battle ends: the reason (victory, mutual, turn limit), the winning side (None:
    a draw), the turn, and each fighter's (standing, status) at the end."""

    reason: str
    winner: str | None
    turns: int
    fighters: tuple[tuple[bool, str], ...]


@dataclass(frozen=True)
class FightOdds:
    """The exact distribution of how the fight ends, and what it cost to work out."""

    scenario: Any
    endings: Dist[Ending]
    states: int  # distinct chain states stepped from
    paths: int  # ways of the dice walked in all
    seconds: float

    def win(self, side: str) -> Fraction:
        return self.endings.prob(lambda e: e.winner == side)

    def draw(self) -> Fraction:
        return self.endings.prob(lambda e: e.winner is None)

    def turns(self) -> Dist[int]:
        return self.endings.map(lambda e: e.turns)

    def down(self, index: int) -> Fraction:
        """The chance that fighter ``index`` ends the battle unable to act."""
        return self.endings.prob(lambda e: not e.fighters[index][0])


def fight_odds(
    scenario: Any,
    max_states: int = MAX_STATES,
    max_paths: int = MAX_PATHS,
    meet: bool = True,
    memo: bool = True,
) -> FightOdds:
    """The exact odds of ``scenario``'s battle (see the module's docstring); ``NotExact``
    when it cannot be followed exactly or needs more than ``max_states`` states or
    ``max_paths`` paths."""
    check_still(scenario)
    start = time.perf_counter()
    chain = Chain(scenario, max_paths, meet, memo)
    chain.check_size(max_states)
    endings = chain.walk(max_states)
    return FightOdds(scenario, endings, chain.stepped, chain.paths, time.perf_counter() - start)


def check_still(scenario: Any) -> None:
    """Refuse up front, in a second, what the chain never follows: a system it does not
    cover, grenades the tactics would throw, a fighter that moves."""
    name = scenario.system.name
    if name in NOT_COVERED:
        raise refuse(
            f"a {NOT_COVERED[name]} fight",
            f"a {COVERED} fight (in {NOT_COVERED[name]} a fighter's aim depends on whom it shot"
            " at last, which --exact does not follow)",
        )
    for spec in scenario.fighters:
        throws = any(w.kind == "grenade" for w in spec.weapons)
        if throws and dict(spec.tactics).get("grenades", "never") != "never":
            raise refuse(
                f"{spec.name}'s grenades",
                "a fight without grenades (where one lands is not exact)",
            )
    mover = probe(scenario)
    if mover is not None:
        raise refuse(
            f"{mover}'s movement (it walks or runs in a sampled battle of this fight)",
            "a fight whose fighters only fire, reload or strike where they stand",
        )


class _Moved(Exception):
    """A sampled battle moved someone (its name)."""


class _Watched(Battle):
    """A sampled battle that stops at its first step of movement."""

    def move(self, f: Fighter, dest: tuple[float, float], budget: float) -> None:
        if budget > 0 and math.dist(f.position, dest) > 1e-9:
            raise _Moved(f.name)
        super().move(f, dest, budget)


def probe(scenario: Any) -> str | None:
    """The name of a fighter that walks or runs in one of ``PROBES`` sampled battles (None:
    none does). A fight that moves is refused in a second rather than after the chain's
    limits (which a walk's many ways to go reach only after minutes). Finding no walk proves
    nothing: a rarer walk is still refused when the chain meets it."""
    for index in range(PROBES):
        battle = _Watched(scenario, battle_rng(scenario.seed, index), index=index)
        try:
            battle.run()
        except _Moved as moved:
            return str(moved)
    return None


class _Decided:
    """The battle's ``decided`` event, as far as ``check_victory`` uses it (its value)."""

    __slots__ = ("value",)

    def __init__(self) -> None:
        self.value: str | None = None

    def succeed(self, value: str) -> None:
        self.value = value


class _Battle(Battle):
    """A battle that notices whether the rules read the turn number (``turn_read``): a step
    whose rules did not is the same in every turn, and is worked out once. The engine's own
    reads that only fill in records (the turn a fighter fell) go through ``record_turn``."""

    @property
    def turn(self) -> int:
        self.turn_read = True
        return self._turn

    @turn.setter
    def turn(self, value: int) -> None:
        self._turn = value

    def record_turn(self) -> int:
        return self._turn


class Chain:
    """The chain of one scenario: its battle (dice that choose), the fighters' fresh states,
    each lasting condition's snapshot and each worked-out step and action."""

    def __init__(self, scenario: Any, max_paths: int, meet: bool = True, memo: bool = True):
        """``meet``: let the paths of one step that reach the same state between the shots of
        a burst meet (``dice.paths``); ``memo``: walk an action once for every node that
        shares what it reads, and keep only the order of a turn's actions where wounds do not
        move initiative. Either off only to check that it changes no answer."""
        self.scenario = scenario
        self.roller = EnumeratingRoller(_first)
        battle = self.battle = _Battle(scenario, None, roller=self.roller)  # type: ignore[arg-type]
        battle.turn_read = False
        self.system = system = battle.system
        skip, records = for_the_record(system), record_fields(system)
        self.conditions = conditions = [
            Condition(system.new_state(f), skip, records) for f in battle.fighters
        ]
        if meet:
            # all that the rest of an action reads: the fighters' conditions, a turn's too
            self.roller.state_key = lambda: tuple(
                c.key(f, True) for c, f in zip(conditions, battle.fighters, strict=True)
            )
        self.wounds = wound_penalty(system) is not None
        self.memo = memo
        self.saved: dict[tuple[int, tuple], Snapshot] = {}
        self.steps: dict[tuple[Node, int | None], Dist[Any]] = {}
        self.actions: dict[tuple[Any, int | None], Dist[Any]] = {}
        self.max_paths = max_paths
        self.paths = self.stepped = self.walked = 0
        self.first = Node("turn", self.lasting(), (), ())  # the battle as it starts

    def check_size(self, max_states: int) -> None:
        """Refuse within seconds a fight whose first turn shows it far past the limit on
        paths. Its first initiative and first action may take a 200th and a 20th of the limit
        (``FIRST_SHARE``), its whole first turn (of more than one) a 40th; then the walk is
        projected as the
        first turn's paths, times the states the second turn starts from, times the turns
        after the first, and refused above ``PROJECTED`` times ``max_paths``. An estimate,
        not a bound (a smaller fight still meets the limit where it is reached); the steps it
        walks are the walk's own, kept for it."""
        first = self.step(self.first, 1, self.max_paths // FIRST_SHARE["turn"])
        acting = next((n for n in first if isinstance(n, Node) and n.phase == "act"), None)
        if acting is not None:
            self.step(acting, 1, self.max_paths // FIRST_SHARE["act"])
        if self.scenario.turn_limit == 1:
            return  # the first turn is the fight: the walk's own limits hold it
        limit, budget = self.max_paths, self.max_paths // FIRST_SHARE["first turn"]
        self.max_paths = min(limit, self.paths + budget)
        try:
            starts = self._levels(max_states, through=1)[1]
        except NotExact:
            if self.paths < self.max_paths:
                raise  # not the budget: a plan it does not follow, too many states
            raise refuse(
                f"a fight whose first turn alone falls more than {budget:,} ways",
                "a smaller fight (fewer turns, dice or fighters) to answer exactly; sampled"
                " battles (run without --exact) answer any fight",
            ) from None
        finally:
            self.max_paths = limit
        self.stepped = 0
        one = self.paths
        estimate = one * max(starts, 1) * (self.scenario.turn_limit - 1)
        if estimate > PROJECTED * self.max_paths:
            raise refuse(
                f"a fight of some {estimate:,} ways for the dice to fall ({one:,} ways its"
                f" first turn falls, {starts:,} states the second starts from,"
                f" {self.scenario.turn_limit - 1} turns more), past the limit of"
                f" {self.max_paths:,}",
                "a smaller fight (fewer turns, dice or fighters) to answer exactly; sampled"
                " battles (run without --exact) answer any fight",
            )

    # --- states ---------------------------------------------------------------------------
    def lasting(self) -> tuple:
        """Every fighter's lasting condition now (its snapshot kept at its first sight)."""
        keys = []
        saved = self.saved
        for i, (c, f) in enumerate(zip(self.conditions, self.battle.fighters, strict=True)):
            key = c.key(f, False)
            if (i, key) not in saved:
                saved[(i, key)] = c.save(f, key, False)
            keys.append(key)
        return tuple(keys)

    def focus(self) -> tuple[tuple[str, int], ...]:
        return tuple(sorted((side, f.index) for side, f in self.battle.focus.items()))

    def ready(self, choose: Choose, node: Node) -> list[Fighter]:
        """The battle put into ``node``'s state, its dice choosing with ``choose``."""
        battle = self.battle
        self.roller.choose = choose
        system = self.system
        exact_dice = system.exact_dice if isinstance(system, ExactHooks) else None
        saved = self.saved
        for i, key in enumerate(node.fighters):
            f = battle.renew(i)
            restore(f, saved[(i, key)])
            if node.timing:
                scores, f.priority, f.penalty_at_roll, f.shift, f.actions_this_turn = node.timing[i]
                f.scores = list(scores)
                f.waiting_shift = f.shift
            if exact_dice is not None:
                exact_dice(f, choose)
        fighters = battle.fighters
        battle.focus = {side: fighters[i] for side, i in node.focus}
        battle.over = battle.fallen = False
        battle.decided = _Decided()  # type: ignore[assignment]
        return fighters

    def statuses(self) -> tuple[tuple[bool, str], ...]:
        status = self.system.status
        return tuple((f.can_act, "fled" if f.fled else status(f)) for f in self.battle.fighters)

    # --- the walk ---------------------------------------------------------------------------
    def walk(self, max_states: int) -> Dist[Ending]:
        """Step every state from the first turn's start to the end of the turn limit, level by
        level ((turn, step in it)), merging equal states within a level."""
        return self._levels(max_states)[0]

    def _levels(self, max_states: int, through: int | None = None) -> tuple[Dist[Ending], int]:
        """``walk``; or only its turns ``through`` this one, with the number of states the
        next turn starts from."""
        limit = self.scenario.turn_limit
        levels: dict[tuple[int, int], dict[Node, Fraction]] = {(1, 0): {self.first: Fraction(1)}}
        queue = [(1, 0)]
        endings: dict[Ending, Fraction] = defaultdict(Fraction)
        while queue:
            turn, step = level = heapq.heappop(queue)
            if through is not None and turn > through:
                return Dist(endings.items()), len(levels[level])
            for node, p in levels.pop(level).items():
                if node.phase == "turn" and turn > limit:
                    self.ready(_first, node)
                    endings[Ending(TURN_LIMIT, None, limit, self.statuses())] += p
                    continue
                self.stepped += 1
                if self.stepped > max_states:
                    raise refuse(
                        f"a fight of more than {max_states:,} states",
                        "a smaller fight (fewer turns, dice or fighters) to answer exactly",
                    )
                for outcome, q in self.step(node, turn).items():
                    if isinstance(outcome, End):
                        ending = Ending(outcome.reason, outcome.winner, turn, outcome.fighters)
                        endings[ending] += p * q
                        continue
                    after = (turn + 1, 0) if outcome.phase == "turn" else (turn, step + 1)
                    if after not in levels:
                        levels[after] = defaultdict(Fraction)
                        heapq.heappush(queue, after)
                    levels[after][outcome] += p * q
        return Dist(endings.items()), 0

    def step(self, node: Node, turn: int, limit: int | None = None) -> Dist[Any]:
        """The next states (or endings) from ``node`` in ``turn``: worked out once for every
        turn when its rules did not read the turn number; refused past ``limit`` paths for
        this step or the chain's ``max_paths`` in all."""
        known = self.steps.get((node, None))
        if known is None:
            known = self.steps.get((node, turn))
        if known is not None:
            return known
        if node.phase == "turn":
            run = lambda choose: self._start_turn(node, choose)  # noqa: E731
            dist, read = self._explore(run, turn, limit, "initiative")
        else:
            dist, read = self._act(node, turn, limit)
        self.steps[(node, turn if read else None)] = dist
        return dist

    def _explore(self, run: Any, turn: int, limit: int | None, what: str) -> tuple[Dist[Any], bool]:
        """``run`` walked once per way its dice fall in ``turn`` (``paths.explore``), and
        whether the rules read the turn number; refused past ``limit`` paths or the chain's
        ``max_paths`` in all."""
        battle = self.battle
        walked = 0

        def one(choose: Choose) -> Any:
            nonlocal walked
            walked += 1
            battle.turn = turn
            return run(choose)

        battle.turn_read = False
        left = self.max_paths - self.paths
        alone = limit is not None and limit < left
        try:
            dist = explore(one, max(limit if limit is not None and alone else left, 1))
        except TooManyPaths:
            said = f"a fight of more than {self.max_paths:,} ways for the dice to fall"
            if alone:
                said = f"a fight whose first {what} alone falls more than {limit:,} ways"
            raise refuse(
                said, "a smaller fight (fewer turns, dice or fighters) to answer exactly"
            ) from None
        finally:
            self.paths += walked
        return dist, battle.turn_read

    # --- a turn's start ---------------------------------------------------------------------
    def _start_turn(self, node: Node, choose: Choose) -> Node:
        """The Combat Turn Sequence's start, as ``Battle._turns`` does it: initiative of
        each fighter able to act, in the fighters' order, then the order of equal keys."""
        battle = self.battle
        system = self.system
        fighters = self.ready(choose, node)
        acting, rolls = [], []
        for f in fighters:
            if f.can_act:
                acting.append(f)
                rolls.append(system.initiative(battle, f))
        order = choose(tie_orders([system.initiative_tiebreak(f) for f in acting]))
        penalty = wound_penalty(system)
        timing = [IDLE] * len(fighters)
        for rank, i in enumerate(order):
            f = acting[i]
            at_roll = penalty(f) if penalty is not None else 0
            timing[f.index] = (tuple(rolls[i]), NORMAL + 1 + rank, at_roll, 0, 0)
        if self.memo and not self.wounds:
            timing = _in_order(timing, system.initiative_top)
        return Node("act", self.lasting(), tuple(t if t[0] else IDLE for t in timing), self.focus())

    # --- an action ------------------------------------------------------------------------
    def _act(self, node: Node, turn: int, limit: int | None) -> tuple[Dist[Any], bool]:
        """The turn's next action, as ``Battle._fighter`` times it (the next turn's start when
        no action is left), its outcomes (``_action``) walked once for every node that
        shares what the action reads: the fighters' lasting conditions, the focus, who acts
        and its actions this turn, and where wounds move initiative, each fighter's timing
        as the engine's ``damage_dealt`` reads it."""
        timing = list(node.timing)
        can_act = [k[1][CAN_ACT] for k in node.fighters]
        chosen = _next_action(can_act, timing, self.system.initiative_top)
        if chosen is None:
            return Dist({Node("turn", node.fighters, (), node.focus): Fraction(1)}.items()), False
        i, score = chosen
        where = Node("act", node.fighters, tuple(timing), node.focus)
        wounded = tuple((bool(t[0]), t[2], t[3]) for t in timing) if self.wounds else ()
        key = (node.fighters, node.focus, i, timing[i][4], wounded) if self.memo else where
        results, read = self.actions.get((key, None)), False
        if results is None:
            results = self.actions.get((key, turn))
            read = results is not None
        if results is None:
            run = lambda choose: self._action(where, i, score, choose)  # noqa: E731
            results, read = self._explore(run, turn, limit, "action")
            self.actions[(key, turn if read else None)] = results
        out: dict[Any, Fraction] = defaultdict(Fraction)
        for result, q in results.items():
            out[result if isinstance(result, End) else _after(timing, i, result)] += q
        return Dist(out.items()), read

    def _action(self, node: Node, i: int, score: int, choose: Choose) -> Acted | End:
        """Fighter ``i``'s action at ``score`` from ``node``: the engine's ``_start_action``
        and ``_execute``, one way of the dice."""
        fighters = self.ready(choose, node)
        f = fighters[i]
        battle = self.battle
        battle.score = score
        plan = battle._start_action(f)
        held = plan is not None and plan.kind == "hold" and plan.dest is None
        # a held action waits for someone to move, which nobody does here: it is wasted at
        # the turn's end, and the fighter's later actions this turn with it
        if plan is not None and not held:
            if plan.kind not in STILL or plan.dest is not None:
                moving = " (with a walk)" if plan.dest is not None else ""
                raise refuse(
                    f"{f.name}'s plan to {plan.kind}{moving}",
                    "a fight whose fighters only fire, reload or strike where they stand",
                )
            battle._execute(f, plan)
        if battle.over:
            reason = battle.decided.value
            standing = {g.side for g in fighters if g.can_act}
            winner = next(iter(standing)) if reason == VICTORY else None
            return End(reason or MUTUAL, winner, self.statuses())
        shifts = tuple(g.shift for g in fighters) if self.wounds else None
        return Acted(self.lasting(), self.focus(), shifts, f.actions_this_turn, held)


def _after(timing: list[Timing], i: int, acted: Acted) -> Node:
    """The node after fighter ``i``'s action: its score taken (all of them when it held), the
    wound shifts the action gave, and the timing of a fighter with nothing left dropped."""
    out = list(timing)
    scores, priority, at_roll, shift, _ = out[i]
    out[i] = IDLE if acted.held else (scores[1:], priority, at_roll, shift, acted.acted)
    if acted.shifts is not None:
        out = [(t[0], t[1], t[2], s, t[4]) for t, s in zip(out, acted.shifts, strict=True)]
    return Node("act", acted.fighters, tuple(t if t[0] else IDLE for t in out), acted.focus)


def _in_order(timing: list[Timing], top: int) -> list[Timing]:
    """A turn's timing where wounds never move initiative: the order of its actions is
    settled at its start, so the scores are renumbered n, n-1, ... 1 in that order (ranks
    then unneeded) and initiative rolls that give the same order meet. Nothing but the
    timing reads a score (a held action would, and is wasted in a fight that stands still)."""
    left = [list(t[0]) for t in timing]
    order = []
    while True:
        best: tuple[tuple[int, int], int] | None = None
        for i, t in enumerate(timing):
            if left[i]:
                when = (top - min(left[i][0], top), t[1])
                if best is None or when < best[0]:
                    best = (when, i)
        if best is None:
            break
        left[best[1]].pop(0)
        order.append(best[1])
    if len(order) >= top:
        return timing
    scores: list[list[int]] = [[] for _ in timing]
    for k, i in enumerate(order):
        scores[i].append(len(order) - k)
    return [(tuple(s), 0, 0, 0, 0) if s else IDLE for s in scores]


def _next_action(can_act: Sequence[bool], timing: list[Timing], top: int) -> tuple[int, int] | None:
    """The fighter whose action comes next and its score: the earliest time (``top`` less
    the score after wounds, at most ``top``), equal times by rank. A fighter out of the fight,
    or whose next score wounds pushed below 1, loses the rest of its turn (its timing idle)."""
    best: tuple[tuple[int, int], int, int] | None = None
    for i, (scores, priority, _, shift, _) in enumerate(timing):
        if not scores:
            continue
        score = min(scores[0] - shift, top)
        if not can_act[i] or score < 1:
            timing[i] = IDLE
            continue
        when = (top - score, priority)
        if best is None or when < best[0]:
            best = (when, i, score)
    return None if best is None else (best[1], best[2])


def tie_orders(
    tiebreaks: Sequence[int], ties: int = TIES
) -> tuple[tuple[tuple[int, ...], Fraction], ...]:
    """The orders of the fighters with these ``tiebreaks`` (listed in the fighters' order), as
    ``choose`` options: the higher tie-break first, and among equal ones the order of their
    tie-break draws (``ties`` values each: the engine's ``TIES``), equal draws in the
    fighters' order.

    For ``m`` fighters of equal tie-break, an order that puts a later fighter before an
    earlier one ``s`` times needs those draws strictly lower, and ``C(TIES - s + m - 1, m)``
    of the ``TIES ** m`` draws give it (non-decreasing draws with ``s`` strict steps)."""
    groups: dict[int, list[int]] = defaultdict(list)
    for i, t in enumerate(tiebreaks):
        groups[t].append(i)
    ordered = [groups[t] for t in sorted(groups, reverse=True)]
    if any(len(g) > MAX_TIED for g in ordered):
        raise refuse(
            f"more than {MAX_TIED} fighters of equal initiative tie-break",
            "a fight with fewer fighters to order exactly",
        )
    each = [_group_orders(g, ties) for g in ordered]
    options = []
    for parts in product(*each):
        order = tuple(i for part, _ in parts for i in part)
        p = Fraction(1)
        for _, q in parts:
            p *= q
        options.append((order, p))
    return tuple(options)


def _group_orders(members: list[int], ties: int) -> list[tuple[tuple[int, ...], Fraction]]:
    m = len(members)
    out = []
    for order in permutations(members):
        steps = sum(1 for a, b in zip(order, order[1:], strict=False) if a > b)
        out.append((order, Fraction(math.comb(ties - steps + m - 1, m), ties**m)))
    return out


def _first(options: Any) -> Any:
    return options[0][0]


__all__ = ["Ending", "FightOdds", "NotExact", "fight_odds", "tie_orders"]
