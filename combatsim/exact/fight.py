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
two steps (``Chain.check_size``). A held action (``hold``) waits for a movement that
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
from .freeze import fighter_key
from .state import Condition, NotExact, Snapshot, record_only, refuse, restore

# Plans an exact fight can follow: they neither move anyone nor throw anything.
STILL = ("fire", "melee", "reload", "none")
MAX_STATES = 50_000  # distinct chain states (each a step of up to ``max_paths`` paths)
MAX_PATHS = 1_000_000  # paths walked in all (under a minute of rule code: a refusal comes soon)
MAX_TIED = 6  # fighters with equal tie-breaks whose orders are listed (6! = 720)
PROBES = 20  # sampled battles looked at for movement before the chain starts
PROJECTED = 5  # a fight projected past this many times the limit on paths is refused at once
# The projection's first turn start and first action may take this share of the limit on paths
# each (a few seconds at most): a fight whose first steps take more is too large anyway
FIRST_SHARE = {"turn": 200, "act": 20}
# Systems whose rule state the chain cannot hold, by name (docs/exact.md lists what it covers)
NOT_COVERED = {"lost-souls": "Lost Souls", "4d8": "4D8"}
COVERED = "Classic Shadowrun (sr-classic, sr-d8) or Shadowrun: 2097 (sr2097)"


class Node(NamedTuple):
    """A state of the chain: the start of a turn (``phase`` "turn") or a turn under way
    ("act", with each fighter's actions still to come in ``pending``), every fighter's
    condition and each side's focus target (the fighter's index)."""

    phase: str
    fighters: tuple
    pending: tuple[int, ...]
    focus: tuple[tuple[str, int], ...]


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
    scenario: Any, max_states: int = MAX_STATES, max_paths: int = MAX_PATHS, meet: bool = True
) -> FightOdds:
    """The exact odds of ``scenario``'s battle (see the module's docstring); ``NotExact``
    when it cannot be followed exactly or needs more than ``max_states`` states or
    ``max_paths`` paths."""
    conditions = check_still(scenario)
    start = time.perf_counter()
    chain = Chain(scenario, max_paths, meet)
    chain.check_size(conditions)
    endings = chain.walk(max_states)
    return FightOdds(scenario, endings, chain.stepped, chain.paths, time.perf_counter() - start)


def check_still(scenario: Any) -> int:
    """Refuse up front, in a second, what the chain never follows: a system it does not
    cover, grenades the tactics would throw, a fighter that moves. The number of conditions
    ``PROBES`` sampled battles pass through (``probe``), for ``Chain.check_size``."""
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
    mover, conditions = probe(scenario)
    if mover is not None:
        raise refuse(
            f"{mover}'s movement (it walks or runs in a sampled battle of this fight)",
            "a fight whose fighters only fire, reload or strike where they stand",
        )
    return conditions


class _Moved(Exception):
    """A sampled battle moved someone (its name)."""


class _Watched(Battle):
    """A sampled battle that stops at its first step of movement and notes the fighters'
    conditions (``seen``: their keys and who acts) at the start of every action."""

    seen: set[tuple[tuple, int]]
    conditions: list[Condition]

    def move(self, f: Fighter, dest: tuple[float, float], budget: float) -> None:
        if budget > 0 and math.dist(f.position, dest) > 1e-9:
            raise _Moved(f.name)
        super().move(f, dest, budget)

    def _start_action(self, f: Fighter) -> Any:
        keys = tuple(c.key(g, False) for c, g in zip(self.conditions, self.fighters, strict=True))
        self.seen.add((keys, f.index))
        return super()._start_action(f)


def probe(scenario: Any) -> tuple[str | None, int]:
    """The name of a fighter that walks or runs in one of ``PROBES`` sampled battles (None:
    none does), and how many conditions those battles start an action in. A fight that moves
    is refused in a second rather than after the chain's limits (which a walk's many ways to
    go reach only after minutes). Finding no walk proves nothing: a rarer walk is still
    refused when the chain meets it."""
    seen: set[tuple[tuple, int]] = set()
    for index in range(PROBES):
        battle = _Watched(scenario, battle_rng(scenario.seed, index), index=index)
        skip = record_only(type(battle.system))
        battle.seen = seen
        battle.conditions = [Condition(battle.system.new_state(f), skip) for f in battle.fighters]
        try:
            battle.run()
        except _Moved as moved:
            return str(moved), len(seen)
    return None, len(seen)


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
    each state's snapshots and each worked-out step."""

    def __init__(self, scenario: Any, max_paths: int, meet: bool = True):
        """``meet``: let the paths of one step that reach the same state between the shots of
        a burst meet (``dice.paths``); off only to check that it changes no answer."""
        self.scenario = scenario
        self.roller = EnumeratingRoller(_first)
        battle = self.battle = _Battle(scenario, None, roller=self.roller)  # type: ignore[arg-type]
        battle.turn_read = False
        self.system = system = battle.system
        if meet:
            self.roller.state_key = lambda: tuple(fighter_key(f, system) for f in battle.fighters)
        skip = record_only(type(system))
        self.conditions = [Condition(system.new_state(f), skip) for f in battle.fighters]
        self.saved: dict[Node, tuple[Snapshot, ...]] = {}
        self.steps: dict[tuple[Node, int | None], Dist[Any]] = {}
        self.max_paths = max_paths
        self.paths = self.stepped = 0
        self.first = self._first_node()  # the battle as it starts, before any step moves it

    def check_size(self, conditions: int) -> None:
        """Refuse at once a fight whose first steps show it far past the limit on paths: the
        orders of the first turn's initiative, times the ways of the dice its first action
        takes, times the ``conditions`` sampled battles start an action in, above
        ``PROJECTED`` times ``max_paths``. An estimate, not a bound (a smaller fight still
        meets the limit where it is reached); the steps it takes are the walk's first."""
        first = self.step(self.first, 1, self.max_paths // FIRST_SHARE["turn"])
        acting = next((n for n in first if isinstance(n, Node) and n.phase == "act"), None)
        if acting is None:
            return
        before = self.paths
        self.step(acting, 1, self.max_paths // FIRST_SHARE["act"])
        one = self.paths - before
        estimate = len(first) * one * conditions
        if estimate > PROJECTED * self.max_paths:
            raise refuse(
                f"a fight of some {estimate:,} ways for the dice to fall ({len(first)} ways the"
                f" first turn's initiative falls, {one:,} ways one action goes, {conditions}"
                f" conditions in {PROBES} sampled battles), past the limit of"
                f" {self.max_paths:,}",
                "a smaller fight (fewer turns, dice or fighters) to answer exactly; sampled"
                " battles (run without --exact) answer any fight",
            )

    # --- states ---------------------------------------------------------------------------
    def node(self, phase: str, pending: tuple[int, ...]) -> Node:
        """The battle's state now, as a chain state (its snapshots kept at its first sight)."""
        in_turn = phase == "act"
        fighters = self.battle.fighters
        if in_turn:
            for f in fighters:
                _only_pending(f, pending[f.index])
        conditions = self.conditions
        keys = tuple(c.key(f, in_turn) for c, f in zip(conditions, fighters, strict=True))
        focus = tuple(sorted((side, f.index) for side, f in self.battle.focus.items()))
        node = Node(phase, keys, pending, focus)
        if node not in self.saved:
            self.saved[node] = tuple(
                c.save(f, k, in_turn) for c, f, k in zip(conditions, fighters, keys, strict=True)
            )
        return node

    def ready(self, choose: Choose, node: Node) -> list[Fighter]:
        """The battle put into ``node``'s state, its dice choosing with ``choose``."""
        battle = self.battle
        self.roller.choose = choose
        system = self.system
        exact_dice = system.exact_dice if isinstance(system, ExactHooks) else None
        for i, saved in enumerate(self.saved[node]):
            f = battle.renew(i)
            restore(f, saved)
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
        limit = self.scenario.turn_limit
        levels: dict[tuple[int, int], dict[Node, Fraction]] = {(1, 0): {self.first: Fraction(1)}}
        queue = [(1, 0)]
        endings: dict[Ending, Fraction] = defaultdict(Fraction)
        while queue:
            turn, step = level = heapq.heappop(queue)
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
        return Dist(endings.items())

    def _first_node(self) -> Node:
        """The battle as it starts (a placeholder node whose snapshots are the fresh ones)."""
        return self.node("turn", ())

    def step(self, node: Node, turn: int, limit: int | None = None) -> Dist[Any]:
        """The next states (or endings) from ``node`` in ``turn``: worked out once for every
        turn when its rules did not read the turn number; refused past ``limit`` paths for
        this step or the chain's ``max_paths`` in all."""
        known = self.steps.get((node, None))
        if known is None:
            known = self.steps.get((node, turn))
        if known is not None:
            return known
        battle = self.battle
        run = self._start_turn if node.phase == "turn" else self._act
        walked = 0

        def one(choose: Choose) -> Any:
            nonlocal walked
            walked += 1
            battle.turn = turn
            return run(node, choose)

        battle.turn_read = False
        left = self.max_paths - self.paths
        alone = limit is not None and limit < left
        try:
            dist = explore(one, max(limit if limit is not None and alone else left, 1))
        except TooManyPaths:
            what = f"a fight of more than {self.max_paths:,} ways for the dice to fall"
            if alone:
                first = "initiative" if node.phase == "turn" else "action"
                what = f"a fight whose first {first} alone falls more than {limit:,} ways"
            raise refuse(
                what, "a smaller fight (fewer turns, dice or fighters) to answer exactly"
            ) from None
        finally:
            self.paths += walked
        self.steps[(node, turn if battle.turn_read else None)] = dist
        return dist

    # --- one step ---------------------------------------------------------------------------
    def _start_turn(self, node: Node, choose: Choose) -> Node:
        """The Combat Turn Sequence's start, as ``Battle._turns`` does it: initiative of
        each fighter able to act, in the fighters' order, then the order of equal keys."""
        battle = self.battle
        system = self.system
        fighters = self.ready(choose, node)
        acting, rolls = [], []
        for f in fighters:
            f.ran_this_turn = f.running = False
            f.moved_this_turn = 0.0
            f.actions_this_turn = 0
            f.scores = []
            if f.can_act:
                acting.append(f)
                rolls.append(system.initiative(battle, f))
        order = choose(tie_orders([system.initiative_tiebreak(f) for f in acting]))
        penalty = wound_penalty(system)
        for rank, i in enumerate(order):
            f = acting[i]
            f.penalty_at_roll = penalty(f) if penalty is not None else 0
            f.shift = 0
            f.scores = rolls[i]
            f.priority = NORMAL + 1 + rank
        return self.node("act", tuple(len(f.scores) for f in fighters))

    def _act(self, node: Node, choose: Choose) -> Node | End:
        """The turn's next action, as ``Battle._fighter`` times it and the engine's
        ``_start_action`` and ``_execute`` carry it out; the next turn's start when no action
        is left."""
        fighters = self.ready(choose, node)
        pending = list(node.pending)
        chosen = _next_action(fighters, pending, self.system.initiative_top)
        if chosen is None:
            return self.node("turn", ())
        f, score = chosen
        pending[f.index] -= 1
        battle = self.battle
        battle.score = score
        plan = battle._start_action(f)
        if plan is not None and plan.kind == "hold" and plan.dest is None:
            # a held action waits for someone to move, which nobody does here: it is wasted
            # at the turn's end, and the fighter's later actions this turn with it
            pending[f.index] = 0
        elif plan is not None:
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
        return self.node("act", tuple(pending))


def _only_pending(f: Fighter, left: int) -> None:
    """Keep of ``f``'s turn only what its actions still to come depend on: their scores (not
    those it has acted at), and its rank and wound shift only while it has some left."""
    scores = f.scores
    f.scores = tuple(scores[len(scores) - left :]) if left else ()
    if not left:
        f.priority = f.penalty_at_roll = f.shift = 0


def _next_action(
    fighters: Sequence[Fighter], pending: list[int], top: int
) -> tuple[Fighter, int] | None:
    """The fighter whose action comes next and its score: the earliest time (``top`` less
    the score after wounds, at most ``top``), equal times by rank. A fighter out of the fight,
    or whose next score wounds pushed below 1, loses the rest of its turn (``pending`` 0)."""
    best: tuple[tuple[int, int], Fighter, int] | None = None
    for f in fighters:
        left = pending[f.index]
        if not left:
            continue
        base = f.scores[len(f.scores) - left]
        score = min(base - f.shift, top)
        if not f.can_act or score < 1:
            pending[f.index] = 0
            continue
        when = (top - score, f.priority)
        if best is None or when < best[0]:
            best = (when, f, score)
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
