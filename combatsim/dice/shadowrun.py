"""Classic Shadowrun dice pools: the d6 game and its D8 variant.

One mechanism serves both. A pool of N dice is rolled against a target number (TN); each die
that reaches the TN is a success.

* d6 ("Rule of One", "Rule of Six"; rulings 2-3): faces 1-6. A TN below 2 counts as
  2, so a first roll of 1 never succeeds. A 6 is rolled again and added while it keeps showing
  6 (6, 6, 4 = 16); a re-rolled 1 adds 1. All dice showing 1 on their first roll is a fumble.
* d8 ("Rule of Zero", "Rule of Seven"; ruling 12): faces 0-7 (an 8 reads as 0). A TN
  below 1 counts as 1, so a 0 never succeeds. Only when the TN is above 7 is a 7 rolled again
  and added, and again only while the total is still below the TN; a follow-up 0 adds nothing.
  All zeros is a disaster (a fumble). House rule ``tn_cap``: a TN above 21 is impossible.

Because the re-roll only matters to reach a TN above the top face, "does this die succeed"
is the same recursion for both: succeed on the first roll if it reaches the TN, else, if it
shows the top face and the TN is above it, roll again against the remaining TN.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import TYPE_CHECKING, SupportsInt

from ..errors import UsageError
from .exact import Dist

if TYPE_CHECKING:
    import numpy as np

D6_MAX_TN_CAP = None  # the d6 game has no TN ceiling


@dataclass(frozen=True)
class PoolDice:
    """Which dice a pool uses: faces ``low..top``, the TN floor, and an optional TN ceiling."""

    name: str
    low: int  # the Rule of One / Rule of Zero face
    top: int  # the face that is rolled again (Rule of Six / Seven)
    tn_floor: int
    tn_cap: int | None = None  # TNs above this are impossible (D8 house rule)

    def __reduce__(self) -> tuple[type, tuple]:
        """Pickled by its fields: compiled (setup.py), pickle would set them again through
        the frozen ``__setattr__``, which refuses."""
        return (PoolDice, (self.name, self.low, self.top, self.tn_floor, self.tn_cap))

    @property
    def sides(self) -> int:
        return self.top - self.low + 1

    @property
    def rule_of_seven(self) -> bool:
        """True when the top face is rolled again only toward a TN above it (ruling 12).

        Decided by value, not identity: a pickled copy of ``D6`` in a worker process is not
        ``D6`` but must still follow the Rule of Six.
        """
        return self.name == "d8"

    def effective_tn(self, tn: int) -> int | None:
        """The TN the dice are rolled against, or ``None`` when the test is impossible."""
        if self.tn_cap is not None and tn > self.tn_cap:
            return None
        return max(tn, self.tn_floor)


D6: PoolDice = PoolDice("d6", low=1, top=6, tn_floor=2)
D8 = PoolDice("d8", low=0, top=7, tn_floor=1)
D8_CAPPED = PoolDice("d8", low=0, top=7, tn_floor=1, tn_cap=21)


def pool_dice(name: str, tn_cap: bool = False) -> PoolDice:
    """Look up the dice by name (``"d6"`` or ``"d8"``); ``tn_cap`` turns on the D8 house rule."""
    if name == "d6":
        return D6
    if name == "d8":
        return D8_CAPPED if tn_cap else D8
    raise UsageError("dice", name, "'d6' or 'd8'")


@dataclass(frozen=True)
class PoolResult:
    """The outcome of one test: successes, whether it fumbled, and each die's total."""

    successes: int
    fumble: bool
    totals: tuple[int, ...] = ()

    def __reduce__(self) -> tuple[type, tuple]:
        return (PoolResult, (self.successes, self.fumble, self.totals))


# --- pure resolution from given faces ---------------------------------------------------------


def resolve(rolls: Sequence[int | Sequence[int]], tn: int, dice: PoolDice = D6) -> PoolResult:
    """Resolve a test from the faces shown; each die is one face or its chain of re-rolls.

    ``resolve([1, 3, 5, 6], 5)`` is Chuck-Chuck's two successes (the rules' example);
    ``resolve([[6, 6, 4]], 16)`` is one success with a total of 16.
    """
    chains = [(r,) if isinstance(r, int) else tuple(r) for r in rolls]
    target = dice.effective_tn(tn)
    for chain in chains:
        _check_chain(chain, dice, target)
    return count(chains, target, dice)


def count(chains: Sequence[tuple[int, ...]], target: int | None, dice: PoolDice = D6) -> PoolResult:
    """Count successes and the fumble of legal chains against an effective TN.

    The rule itself (the Rule of One and the Rule of Six; rulings 2, 3 and 12), shared by
    ``resolve``, which checks given faces first, and ``roll``, whose chains are legal by
    construction.
    """
    low = dice.low
    totals = tuple(sum(c) for c in chains)
    if target is None:
        successes = 0
    else:
        pairs = zip(chains, totals, strict=True)
        successes = sum(1 for c, t in pairs if c[0] != low and t >= target)
    fumble = bool(chains) and all(c[0] == low for c in chains)
    return PoolResult(successes, fumble, totals)


def roll(
    draw: Callable[[int], Sequence[int]], n: int, tn: int, dice: PoolDice = D6
) -> tuple[PoolResult, list[tuple[int, ...]]]:
    """Roll ``n`` dice with ``draw`` and resolve them: the battle engine's one call per test.

    Returns the result and the chains (for traces and Instant Karma re-rolls).
    """
    chains = roll_chains(draw, n, tn, dice)
    return count(chains, dice.effective_tn(tn), dice), chains


def roll_count(
    take: Callable[[int], Sequence[int]], n: int, tn: int, dice: PoolDice = D6
) -> tuple[int, bool]:
    """``(successes, fumble)`` of an ``n``-die test, drawing exactly what ``roll`` draws.

    The untraced battle's test: no chains are built, but every face ``roll_chains`` would draw
    is drawn, in the same order (the first faces of all dice, then each top face's re-rolls
    in die order), so a batch and the traced replay of the same battle see the same stream.
    A d6 showing 6 is still rolled again at a TN of 6 or less, where the total cannot change
    the result: the trace shows the player's whole roll, and the batch must keep in step.

    The re-rolls are drawn several at a time but never past what the chains need: every
    chain still rolling needs at least one more face, so asking for as many faces as there
    are open chains, and handing them out in die order, draws the same faces as one by one.
    """
    return counter(take, dice)(n, tn)


@functools.cache
def _tallies(dice: PoolDice) -> dict[int, tuple[tuple[int, ...], bool]]:
    """For each TN the first faces can reach (the TN floor and below count as the floor):
    the faces ``counter`` counts to find the successes, and whether they are the successes
    (True) or the failures; whichever list is shorter. TNs not listed take the general way."""
    top, floor = dice.top, dice.tn_floor
    by_target = {target: _tally(dice, target, top) for target in range(floor, top + 1)}
    return {tn: by_target[max(tn, floor)] for tn in range(floor - 30, top + 1)}


def _tally(dice: PoolDice, target: int, upto: int) -> tuple[tuple[int, ...], bool]:
    """The faces a counter counts against ``target``, the shorter list of the two: those
    from ``target`` to ``upto`` that succeed (True), or those below ``target`` that fail
    (False)."""
    if dice.top - target < target - dice.low:
        return tuple(range(target, upto + 1)), True
    return tuple(range(dice.low, target)), False


def counter(
    take: Callable[[int], Sequence[int]], dice: PoolDice = D6
) -> Callable[[int, int], tuple[int, bool]]:
    """``roll_count`` with the dice and the draw bound once: ``count(n, tn)``.

    A battle makes one per fighter and calls it for every test, so the rules of the dice
    (faces, TN floor and cap, Rule of Six or Seven) are looked up once, not on every roll.
    """
    top, low, floor, cap = dice.top, dice.low, dice.tn_floor, dice.tn_cap
    seven = dice.rule_of_seven
    if not seven and cap is None:
        return _six_counter(take, dice)
    tallies = _tallies(dice)

    def count(n: int, tn: int) -> tuple[int, bool]:
        faces = take(n)
        tally = tallies.get(tn)
        if tally is None:
            target = None if cap is not None and tn > cap else tn if tn > floor else floor
            if target is not None and target <= top:  # a TN far below the floor
                tally = tallies[target]
        if tally is not None:  # a TN the first faces can reach
            faces_counted, are_successes = tally
            counted = 0
            for face in faces_counted:
                counted += faces.count(face)
            successes = counted if are_successes else n - counted
            # a fumble (every die on the low face) has no success: counted only then
            fumble = not successes and n > 0 and faces.count(low) == n
            if not seven:  # the Rule of Six re-rolls, drawn all the same: a 6 keeps it open
                tops = faces.count(top)
                while tops:
                    tops = take(tops).count(top)
            return successes, fumble  # the Rule of Seven re-rolls only toward a TN above 7
        fumble = n > 0 and faces.count(low) == n
        tops = faces.count(top)
        if target is None:
            if not seven:
                while tops:
                    tops = take(tops).count(top)
            return 0, fumble
        return _climb(take, tops, target, dice), fumble

    return count


def _climb(take: Callable[[int], Sequence[int]], tops: int, target: int, dice: PoolDice) -> int:
    """How many of ``tops`` dice showing the top face reach a ``target`` above it: only a top
    face can succeed there, by the total of its chain of re-rolls (drawn die by die, as
    ``roll_chains`` draws them, a round of faces at a time)."""
    top, seven = dice.top, dice.rule_of_seven
    successes = 0
    totals = [top] * tops  # the open chains, in die order
    while totals:
        draws = take(len(totals))
        still = []
        j = 0  # the next draw to hand out
        for total in totals:
            while j < len(draws):
                face = draws[j]
                j += 1
                total += face
                if face != top or (seven and total >= target):
                    break  # this chain is done
            else:
                still.append(total)  # out of draws while still open
                continue
            if total >= target:
                successes += 1
        totals = still
    return successes


@functools.cache
def _six_plan(dice: PoolDice) -> tuple[tuple[tuple[int, ...], bool], ...]:
    """``_tallies`` for the Rule of Six counter, by TN from 0 to the top face: the faces
    besides the top one whose dice succeed (True), or the faces whose dice fail (False).
    A TN below the floor counts as the floor."""
    top = dice.top
    # the top faces are counted anyway (they are rolled again): left out of the successes
    return tuple(_tally(dice, max(target, dice.tn_floor), top - 1) for target in range(top + 1))


def _six_counter(
    take: Callable[[int], Sequence[int]], dice: PoolDice
) -> Callable[[int, int], tuple[int, bool]]:
    """``counter`` for dice re-rolled on every top face (the Rule of Six; ruling 3): the d6.

    Every top face is rolled again whatever the TN, so the re-rolls drawn are one batch per
    round: as many faces as the last round showed top faces. Above the top face, a die
    succeeds by the total of its chain; up to ``2 x top + 1`` the chain's first re-roll
    decides (a top face always reaches it, else the face must reach ``TN - top``). The chains
    take their faces die by die (``roll_chains``), so in the sequence of re-rolls a face is a
    chain's first re-roll exactly when the face before it was not a top face.
    """
    top, low, floor = dice.top, dice.low, dice.tn_floor
    plan = _six_plan(dice)
    decided = 2 * top + 1  # the highest TN a chain's first re-roll decides

    def count(n: int, tn: int) -> tuple[int, bool]:
        faces = take(n)
        tops = faces.count(top)
        if tn > top:
            if not tops:  # nothing reaches a TN above the top face; a fumble: all on the low face
                if n and faces[0] == low and faces.count(low) == n:
                    return 0, True
                return 0, False
            if tn > decided:  # a chain needs more than one re-roll to decide
                return _climb(take, tops, tn, dice), False
            need = tn - top  # what a chain's first re-roll must show
            if tops == 1:  # the usual: one die to roll again, and most often once
                face = take(1)[0]
                if face != top:
                    return (1, False) if face >= need else (0, False)
                successes, opens = 1, False
            else:
                successes, opens = 0, True  # whether the next re-roll is a chain's first
            while tops:
                draws = take(tops)
                tops = 0
                for face in draws:
                    if face == top:
                        tops += 1
                        if opens:
                            successes += 1
                        opens = False
                    else:
                        if opens and face >= need:
                            successes += 1
                        opens = True
            return successes, False
        others, are_successes = plan[tn if tn > floor else floor]
        counted = 0
        for face in others:
            counted += faces.count(face)
        successes = tops + counted if are_successes else n - counted
        # a fumble (every die on the low face) has no success: looked for only then
        fumble = not successes and n > 0 and faces[0] == low and faces.count(low) == n
        while tops:  # the re-rolls, drawn all the same (a top face keeps the die open)
            tops = take(tops).count(top)
        return successes, fumble

    return count


def _check_chain(chain: tuple[int, ...], dice: PoolDice, target: int | None) -> None:
    if not chain or any(not dice.low <= f <= dice.top for f in chain):
        raise ValueError(f"{dice.name} faces must be {dice.low}..{dice.top}, got {chain}")
    if any(f != dice.top for f in chain[:-1]):
        raise ValueError(f"only a {dice.top} is rolled again, got {chain}")
    # Rule of Seven: only for a TN above 7, and only while the total is below the TN.
    if (
        dice.rule_of_seven
        and len(chain) > 1
        and (target is None or target <= dice.top or sum(chain[:-1]) >= target)
    ):
        raise ValueError(f"Rule of Seven does not allow re-rolling here: {chain} vs TN {target}")


# --- exact distributions -----------------------------------------------------------------------


def p_die(tn: int, dice: PoolDice = D6) -> Fraction:
    """Exact chance that one die succeeds against ``tn``."""
    target = dice.effective_tn(tn)
    if target is None:
        return Fraction(0)
    return _p_reach(target, dice, first=True)


def _p_reach(r: int, dice: PoolDice, first: bool) -> Fraction:
    """P(this roll, with its re-rolls, reaches ``r``); a first roll must also beat the low face."""
    lowest_ok = dice.low + 1 if first else dice.low
    faces_ok = max(0, dice.top - max(r, lowest_ok) + 1)
    p = Fraction(faces_ok, dice.sides)
    if r > dice.top:  # the top face was not enough: roll again for the rest
        p += Fraction(1, dice.sides) * _p_reach(r - dice.top, dice, first=False)
    return p


def p_fumble(n: int, dice: PoolDice = D6) -> Fraction:
    """Exact chance that all ``n`` dice show the low face (no dice cannot fumble)."""
    _check_n(n)
    return Fraction(1, dice.sides) ** n if n > 0 else Fraction(0)


def exact_successes(n: int, tn: int, dice: PoolDice = D6) -> Dist[int]:
    """Exact distribution of the number of successes of an ``n``-die test."""
    _check_n(n)
    return Dist.binomial(n, p_die(tn, dice))


def exact_outcomes(n: int, tn: int, dice: PoolDice = D6) -> Dist[tuple[int, bool]]:
    """Exact joint distribution of ``(successes, fumble)``.

    Each die is one of: low face (fails; all of these is a fumble), success, or other failure.
    A fumble therefore has 0 successes and probability ``p_fumble``; the rest is the binomial.
    """
    succ = exact_successes(n, tn, dice)
    fumble = p_fumble(n, dice)
    return Dist(
        [((k, False), p - (fumble if k == 0 else 0)) for k, p in succ.items()]
        + [((0, True), fumble)]
    )


# --- Instant Karma (rulings 11 and 26): the rule the battles and the exact odds share -------------


def karma_rerolls(successes: int, fumble: bool) -> bool:
    """Whether the ``attack`` Karma policy re-rolls a test (ruling 11): one with no success.

    A fumble always has no success; it is named so that the rule reads as the ruling does.
    """
    return successes == 0 or fumble


def after_karma_reroll(
    kept: int, again: int, again_fumble: bool, reroll_fumbles: bool = True
) -> tuple[int, bool]:
    """``(successes, fumble)`` of a test whose failed dice were re-rolled with Karma.

    ``kept`` successes stay; ``again`` and ``again_fumble`` are the re-rolled dice's. Ruling
    26: the test fumbles when every die of it shows the low face afterwards, which needs no
    kept die and a fumbled re-roll; option ``karma_reroll_fumbles: off`` (``reroll_fumbles``
    false) means a re-roll never fumbles.
    """
    return kept + again, again_fumble and not kept and reroll_fumbles


def exact_karma_reroll(
    n: int, tn: int, dice: PoolDice = D6, reroll_fumbles: bool = True
) -> Dist[tuple[int, bool]]:
    """Exact ``(successes, fumble)`` of an ``n``-die test re-rolled with one Karma point when
    ``karma_rerolls`` says so (the ``attack`` policy: once, on no success)."""

    def settle(outcome: tuple[int, bool]) -> Dist[tuple[int, bool]]:
        successes, fumble = outcome
        if not karma_rerolls(successes, fumble):
            return Dist.point(outcome)
        again = exact_outcomes(n - successes, tn, dice)
        return again.map(lambda o: after_karma_reroll(successes, o[0], o[1], reroll_fumbles))

    return exact_outcomes(n, tn, dice).bind(settle)


def exact_karma_negate(n: int, tn: int, dice: PoolDice = D6) -> Dist[tuple[int, bool]]:
    """Exact ``(successes, fumble)`` of a test whose fumble is undone with one Karma point
    (ruling 11): the successes are the roll's, and no outcome is a fumble."""
    return exact_outcomes(n, tn, dice).map(lambda o: (o[0], False))


# --- opposed tests: melee (ruling 9) and a ranged attack against the Dodge Pool (ruling 5) -------


def exact_margin(attack: Dist[int], defence: Dist[int]) -> Dist[int]:
    """Exact attacker's successes less the defender's, of two independent tests.

    Ruling 9: above 0 the attacker wins by that many net successes, below 0 the defender
    does, and 0 is a tie that harms no one.
    """
    return attack + defence.map(lambda k: -k)


def dodges(attack_successes: int, dodge_successes: int) -> bool:
    """Ruling 5: Dodge Pool successes alone above the attack's are a clean miss."""
    return dodge_successes > attack_successes


def exact_dodged_attack(
    attack: Dist[int], spend: int, tn: int, dice: PoolDice = D6
) -> Dist[tuple[int, int]]:
    """Exact ``(attack successes, dodge successes)`` of a ranged attack whose target rolls
    ``spend`` Dodge Pool dice at its ``tn`` (the weapon's Power and its wounds).

    Ruling 5: an attack with no success is a miss and is not dodged, so its outcome is
    ``(0, 0)``; otherwise the dodge dice are rolled, and ``dodges`` tells a clean miss.
    """
    dodge = exact_successes(spend, tn, dice)
    return attack.bind(lambda a: dodge.map(lambda d: (a, d)) if a else Dist.point((0, 0)))


# --- sampling ------------------------------------------------------------------------------------


def sample(
    rng: np.random.Generator, n: int, tn: int, size: int, dice: PoolDice = D6
) -> tuple[np.ndarray, np.ndarray]:
    """Roll ``size`` independent ``n``-die tests; returns ``(successes, fumble)`` arrays.

    Vectorised: one draw for all first rolls, then one draw per level of re-rolls for only the
    dice still climbing toward a TN above the top face.
    """
    import numpy as np  # only here: start-up (validate) needs no numpy

    _check_n(n)
    if size < 0:
        raise UsageError("size", size, "an integer from 0 up")
    faces = rng.integers(dice.low, dice.top + 1, size=(size, n), dtype=np.int8)
    fumble = (faces == dice.low).all(axis=1) if n else np.zeros(size, dtype=bool)
    target = dice.effective_tn(tn)
    if target is None:
        return np.zeros(size, dtype=np.int64), fumble
    if target <= dice.top:
        return np.count_nonzero(faces >= target, axis=1), fumble
    hit = faces == dice.top
    climbing = np.flatnonzero(hit)  # flat indices of dice still rolling toward the TN
    remaining = target - dice.top
    while climbing.size:
        roll = rng.integers(dice.low, dice.top + 1, size=climbing.size, dtype=np.int8)
        if remaining <= dice.top:
            hit.flat[climbing[roll < remaining]] = False
            break
        again = roll == dice.top
        hit.flat[climbing[~again]] = False
        climbing, remaining = climbing[again], remaining - dice.top
    return np.count_nonzero(hit, axis=1), fumble


def roll_chains(
    draw: Callable[[int], Sequence[SupportsInt]], n: int, tn: int, dice: PoolDice = D6
) -> list[tuple[int, ...]]:
    """Roll ``n`` dice as chains of faces from ``draw(k)`` (k faces), for traces and battles.

    A d6 keeps rolling while it shows 6 (the total is shown in a trace even when the TN does
    not need it); a d8 re-rolls a 7 only as ruling 12 allows.
    """
    _check_n(n)
    target = dice.effective_tn(tn)
    top = dice.top
    chains: list[tuple[int, ...]] = []
    for drawn in draw(n):
        face = int(drawn)  # plain ints in traces, whatever the draw returns (e.g. numpy)
        if face != top:
            chains.append((face,))
            continue
        chain = [face]
        while face == top and _may_reroll(chain, dice, target):
            face = int(draw(1)[0])
            chain.append(face)
        chains.append(tuple(chain))
    return chains


def _may_reroll(chain: list[int], dice: PoolDice, target: int | None) -> bool:
    if not dice.rule_of_seven:
        return True
    return target is not None and target > dice.top and sum(chain) < target


def initiative_exact(reaction: int, n_dice: int, dice: PoolDice = D6) -> Dist[int]:
    """Exact initiative result: Reaction plus the plain sum of the initiative dice (no re-rolls).

    "Initiative Results"; in the D8 variant the Rule of Seven does not apply to initiative.
    """
    _check_n(n_dice, "n_dice")
    return Dist.uniform(range(dice.low, dice.top + 1)) * n_dice + Dist.point(reaction)


def _check_n(n: int, argument: str = "n") -> None:
    if n < 0:
        raise UsageError(argument, n, "an integer from 0 up")
