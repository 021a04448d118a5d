"""The 4D8 roll-under system (docs/rules-4d8.md; rulings 20-21).

* Chance of success ("Mechanics", "Abilities", "Necessary Abilities"): the referee's ease
  (at most 32, no lowest value) plus the ability bonuses that apply, less 8 when a required
  ability is missing.
* The roll ("Dice Roll"): four d8 (faces 1-8) read in order as the aspects physical,
  mental, social, magical (dice 1-4; ruling 20). The test succeeds when the total is at or
  under the chance.
* Degree of success ("Dice Roll", "Additional Rules for Special Dice Combinations";
  ruling 20): the highest die; four alike (a lucky break): their sum, but four 1s
  (snake-eyes): 1; three alike: 2 x triple + the fourth; two pairs: sum + 5; one pair: pair
  sum + the higher of the other two dice.
* Over 32 ("Over Thirty-Two"; ruling 21): when the chance is 33 or more the player picks
  ``"automatic"`` (no roll; the dice are laid down 8, 6, 5, 4: degree 8), ``"doubles"`` (fails
  only on a total of 32; degree and combinations as usual) or ``"bonus"``, the default (fails
  only on four 8s; chance - 32 is added to the highest die, so to the total and the degree;
  no combinations). Below 33 the choice is ignored and the roll is ``"normal"``.
* Snake-eyes (ruling 24): four 1s show ``"snake_eyes"`` on every roll that is rolled, the
  doubles and bonus rolls included; only the degree follows the roll's own rule (a bonus
  roll's four 1s are 1 + chance - 32, a doubles roll's are 1).

The degree is only meaningful on a success and is 0 on a failure (every success has a degree
of at least 1). The combination kind and its aspects describe the faces under the rules in
force and are recorded on a failure too (so a failed snake-eyes is visible for the rules'
"unfortunate effects"); the rules' special effects apply only when ``success`` is true.

Exactly: ``exact_outcomes`` (success, degree, kind), ``exact_aspects`` (which dice made the
combination), and ``on_success`` for either among the successful rolls only.

Ruling 22 (damage from the degree) belongs to the rule system, not to this module.
"""

from __future__ import annotations

import operator
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from fractions import Fraction
from functools import lru_cache
from itertools import product
from typing import TYPE_CHECKING

from ..errors import UsageError
from .exact import Dist

if TYPE_CHECKING:
    import numpy as np

SIDES = 8
N_DICE = 4
ASPECTS = ("physical", "mental", "social", "magical")  # dice 1-4, ruling 20
KINDS = ("none", "pair", "two_pairs", "triple", "four_alike", "snake_eyes")
OVER32 = ("automatic", "doubles", "bonus")
MODES = ("normal", *OVER32)
DEFAULT_OVER32 = "bonus"  # "Over Thirty-Two": "assumed to be making bonus rolls"
MAX_EASE = 32  # "Ease": "32 is the highest possible value of ease"
OVER32_THRESHOLD = 33
MISSING_ABILITY_PENALTY = 8  # "Necessary Abilities"
AUTOMATIC_FACES = (8, 6, 5, 4)  # "Over Thirty-Two": laid down in aspect order
TWO_PAIRS_BONUS = 5
FAIL_TOTAL_DOUBLES = 32  # a doubles roll "succeeds on anything but a 32"
SNAKE_EYES = (1,) * N_DICE  # "Dice Roll": four ones
ALL_EIGHTS = (SIDES,) * N_DICE  # the only failure of a bonus roll (ruling 21)


def chance(ease: int, bonuses: Iterable[int] = (), required_missing: bool = False) -> int:
    """Chance of success: ``ease`` + ``bonuses``, less 8 when a required ability is missing.

    The rules' "Abilities" and "Necessary Abilities". ``required_missing`` is true when the referee
    requires an ability and the character has neither a positive bonus in it nor has it as an
    occupation bonus skill; the caller decides that. The ease is at most 32 ("Ease"); the
    chance itself may exceed 32 and then the over-32 choice applies.
    """
    ease = _as_int("ease", ease, "an integer up to 32")
    if ease > MAX_EASE:
        raise UsageError("ease", ease, "an integer up to 32 (no lowest value)")
    if not isinstance(bonuses, Iterable):
        raise UsageError("bonuses", bonuses, "a sequence of integers")
    total = ease + sum(_as_int("bonuses", b, "a sequence of integers") for b in bonuses)
    return total - MISSING_ABILITY_PENALTY if required_missing else total


@dataclass(frozen=True)
class FourD8Result:
    """One test: the faces, how it was rolled, success, degree and the combination it showed.

    ``mode`` is ``"normal"`` for a chance up to 32, else the over-32 choice. ``total`` is the
    sum of the faces plus, for a bonus roll, chance - 32. ``degree`` is 0 on a failure.
    ``aspects`` are the aspects of the dice that make the combination, in die order (all four
    for two pairs and four alike; for ``"none"`` the die that sets the degree: the highest,
    the first of them on a tie). ``lesser`` is the aspect of the higher remaining die of a pair
    (the rules' "lesser effect") or of the fourth die of a triple, else ``None``.
    """

    faces: tuple[int, ...]
    chance: int
    mode: str
    total: int
    success: bool
    degree: int
    kind: str
    aspects: tuple[str, ...]
    lesser: str | None = None

    @property
    def groups(self) -> tuple[tuple[str, ...], ...]:
        """The aspects grouped by face, higher face first: two pairs give two groups."""
        if self.kind != "two_pairs":
            return (self.aspects,)
        values = sorted(set(self.faces), reverse=True)
        return tuple(tuple(ASPECTS[i] for i, f in enumerate(self.faces) if f == v) for v in values)


# --- pure resolution from given faces ---------------------------------------------------------


def resolve(faces: Sequence[int] | None, chance: int, over32: str = DEFAULT_OVER32) -> FourD8Result:
    """Resolve a test from the four faces shown (physical, mental, social, magical).

    ``resolve((5, 5, 5, 3), 20)`` is the rules' own triple, degree 13. For an automatic success
    (chance 33+ and ``over32="automatic"``) no dice are rolled: ``faces`` is ignored (pass
    ``None``) and the result shows 8, 6, 5, 4.
    """
    chance = _as_int("chance", chance, "an integer")
    mode = _mode(chance, over32)
    checked = AUTOMATIC_FACES if mode == "automatic" else _check_faces(faces)
    return _resolve(checked, chance, mode)


def _resolve(faces: tuple[int, ...], chance: int, mode: str) -> FourD8Result:
    """``resolve`` for checked faces and the mode the chance gives (an automatic success
    shows ``AUTOMATIC_FACES`` whatever ``faces`` is)."""
    if mode == "automatic":  # ruling 21
        faces = AUTOMATIC_FACES
        aspects = (ASPECTS[0],)  # the 8 is laid down on the first die
        return FourD8Result(faces, chance, mode, sum(faces), True, max(faces), "none", aspects)
    if mode == "bonus":  # ruling 21: bonus added to the highest die; no lucky breaks
        bonus = chance - MAX_EASE
        top = max(faces)
        success = faces != ALL_EIGHTS
        degree = top + bonus if success else 0
        total = sum(faces) + bonus
        if faces == SNAKE_EYES:  # ruling 24: still snake-eyes, with the bonus roll's degree
            return FourD8Result(faces, chance, mode, total, success, degree, "snake_eyes", ASPECTS)
        aspects = (ASPECTS[faces.index(top)],)
        return FourD8Result(faces, chance, mode, total, success, degree, "none", aspects)
    total = sum(faces)
    success = total != FAIL_TOTAL_DOUBLES if mode == "doubles" else total <= chance
    degree, kind, dice, lesser = combination(faces)
    return FourD8Result(
        faces,
        chance,
        mode,
        total,
        success,
        degree if success else 0,
        kind,
        tuple(ASPECTS[i] for i in dice),
        None if lesser is None else ASPECTS[lesser],
    )


@lru_cache(maxsize=SIDES**N_DICE)
def combination(faces: tuple[int, ...]) -> tuple[int, str, tuple[int, ...], int | None]:
    """Degree on a success, kind, the dice making it, and the lesser die (ruling 20), for
    four checked faces.

    Remembered for each of the 4,096 rolls: battles ask about the same rolls again and again.
    """
    by_count = sorted(Counter(faces).items(), key=lambda vc: (-vc[1], -vc[0]))
    value, count = by_count[0]

    def dice(v: int) -> tuple[int, ...]:
        return tuple(i for i, f in enumerate(faces) if f == v)

    if count == 4:
        if value == 1:  # snake-eyes: an exception to the lucky break
            return 1, "snake_eyes", dice(1), None
        return 4 * value, "four_alike", dice(value), None
    if count == 3:
        fourth = by_count[1][0]
        return 2 * value + fourth, "triple", dice(value), dice(fourth)[0]
    if count == 2 and by_count[1][1] == 2:
        return sum(faces) + TWO_PAIRS_BONUS, "two_pairs", tuple(range(N_DICE)), None
    if count == 2:
        higher_other = max(v for v, _ in by_count[1:])  # the other two differ: not two pairs
        return 2 * value + higher_other, "pair", dice(value), dice(higher_other)[0]
    top = max(faces)
    return top, "none", (faces.index(top),), None


@lru_cache(maxsize=1)
def face_table() -> dict[tuple[int, ...], tuple[int, int, str, tuple[str, ...]]]:
    """Every roll of a normal or doubles test: ``faces -> (total, degree, kind, aspects)``.

    What ``resolve`` reads from the faces whatever the chance (the degree as on a success):
    a battle looks each roll up here and only compares the total with the chance. Built once
    per process, for all 4,096 rolls at once (about 20 ms), when first asked for.
    """
    table = {}
    for faces in product(range(1, SIDES + 1), repeat=N_DICE):
        degree, kind, dice, _ = combination(faces)
        table[faces] = (sum(faces), degree, kind, tuple(ASPECTS[i] for i in dice))
    return table


def roll(
    draw: Callable[[int, int], Sequence[int]], chance: int, over32: str = DEFAULT_OVER32
) -> FourD8Result:
    """Roll a test with faces from ``draw(8, 4)`` (dice 1-4 in order) and resolve it.

    An automatic success rolls nothing, so ``draw`` is not called.
    """
    mode = _mode(_as_int("chance", chance, "an integer"), over32)
    if mode == "automatic":
        return _resolve(AUTOMATIC_FACES, chance, mode)
    return _resolve(tuple(draw(SIDES, N_DICE)), chance, mode)


# --- exact distributions -----------------------------------------------------------------------


def exact_outcomes(chance: int, over32: str = DEFAULT_OVER32) -> Dist[tuple[bool, int, str]]:
    """Exact joint distribution of ``(success, degree, kind)``, enumerating all 4096 rolls.

    Built from ``resolve``, so it is the resolver's rule exactly. Degree is 0 on a failure.
    """
    chance = _as_int("chance", chance, "an integer")
    mode = _mode(chance, over32)
    return _exact_outcomes(chance, mode)


@lru_cache(maxsize=256)
def _exact_outcomes(chance: int, mode: str) -> Dist[tuple[bool, int, str]]:
    return _exact_results(chance, mode).map(lambda r: r[:3])


Result = tuple[bool, int, str, tuple[str, ...]]  # success, degree, kind, aspects


@lru_cache(maxsize=256)
def _exact_results(chance: int, mode: str) -> Dist[Result]:
    """``(success, degree, kind, aspects)`` of ``resolve`` over all 4096 rolls (or the one
    automatic success)."""
    over32 = DEFAULT_OVER32 if mode == "normal" else mode
    if mode == "automatic":
        r = resolve(None, chance, over32)
        return Dist.point((r.success, r.degree, r.kind, r.aspects))
    counts: Counter[Result] = Counter()
    for faces in product(range(1, SIDES + 1), repeat=N_DICE):
        r = resolve(faces, chance, over32)
        counts[(r.success, r.degree, r.kind, r.aspects)] += 1
    n = SIDES**N_DICE
    return Dist((k, Fraction(c, n)) for k, c in counts.items())


def exact_aspects(
    chance: int, over32: str = DEFAULT_OVER32
) -> Dist[tuple[bool, str, tuple[str, ...]]]:
    """Exact joint distribution of ``(success, kind, aspects)``: which dice made the
    combination (ruling 20), as ``resolve`` records them (for ``"none"``: the highest die)."""
    chance = _as_int("chance", chance, "an integer")
    return _exact_results(chance, _mode(chance, over32)).map(lambda r: (r[0], r[2], r[3]))


def on_success(dist: Dist[tuple]) -> Dist[tuple]:
    """The distribution of the rest of each outcome ``(success, ...)`` among the successes only
    (each divided by P(success)); refused when no roll succeeds."""
    p = dist.prob(lambda o: o[0])
    if p == 0:
        raise UsageError("chance", "no roll succeeds", "a chance some roll succeeds at (4 up)")
    return Dist((o[1:], q / p) for o, q in dist.items() if o[0])


def exact_kind_on_success(chance: int, over32: str = DEFAULT_OVER32) -> Dist[str]:
    """Exact distribution of the combination kind of a *successful* roll (the share of the
    successes each kind makes; only a success has the rules' special effects)."""
    return on_success(exact_outcomes(chance, over32)).map(lambda o: o[1])


def exact_aspects_on_success(
    chance: int, over32: str = DEFAULT_OVER32
) -> Dist[tuple[str, tuple[str, ...]]]:
    """Exact distribution of ``(kind, aspects)`` of a *successful* roll."""
    return on_success(exact_aspects(chance, over32)).map(lambda o: (o[0], o[1]))


def exact_degree(chance: int, over32: str = DEFAULT_OVER32) -> Dist[int]:
    """Exact distribution of the degree of success (0 = failure)."""
    return exact_outcomes(chance, over32).map(lambda o: o[1])


def exact_kind(chance: int, over32: str = DEFAULT_OVER32) -> Dist[str]:
    """Exact distribution of the combination kind shown (whether or not the test succeeded)."""
    return exact_outcomes(chance, over32).map(lambda o: o[2])


def p_success(chance: int, over32: str = DEFAULT_OVER32) -> Fraction:
    """Exact chance that the test succeeds."""
    return exact_outcomes(chance, over32).prob(lambda o: o[0])


# --- sampling ------------------------------------------------------------------------------------


@dataclass(frozen=True)
class FourD8Samples:
    """Many tests at once: arrays of length ``size`` (``faces`` is ``size`` x 4).

    ``kind`` holds indices into ``KINDS`` (``np.asarray(KINDS)[s.kind]`` gives the names).
    """

    faces: np.ndarray
    total: np.ndarray
    success: np.ndarray
    degree: np.ndarray
    kind: np.ndarray


def sample(
    rng: np.random.Generator, chance: int, size: int, over32: str = DEFAULT_OVER32
) -> FourD8Samples:
    """Roll ``size`` independent tests at ``chance`` (an automatic success draws nothing)."""
    import numpy as np  # only here: start-up (validate) needs no numpy

    chance = _as_int("chance", chance, "an integer")
    size = _as_int("size", size, "an integer from 0 up")
    if size < 0:
        raise UsageError("size", size, "an integer from 0 up")
    if _mode(chance, over32) == "automatic":
        faces = np.tile(np.array(AUTOMATIC_FACES, dtype=np.int64), (size, 1))
    else:
        faces = rng.integers(1, SIDES + 1, size=(size, N_DICE), dtype=np.int64)
    return resolve_many(faces, chance, over32)


def resolve_many(faces: np.ndarray, chance: int, over32: str = DEFAULT_OVER32) -> FourD8Samples:
    """Vectorised ``resolve`` over an ``(n, 4)`` array of faces; the sampler's engine.

    Works on each row's sorted faces a <= b <= c <= d, so it is a second, independent
    implementation of ruling 20 that the tests check against ``resolve`` on all 4096 rolls.
    An automatic success ignores the faces given.
    """
    import numpy as np  # only here: start-up (validate) needs no numpy

    chance = _as_int("chance", chance, "an integer")
    mode = _mode(chance, over32)
    faces = np.asarray(faces, dtype=np.int64)
    if faces.ndim != 2 or faces.shape[1] != N_DICE:
        raise UsageError("faces", faces.shape, "an array of shape (n, 4)")
    n = faces.shape[0]
    if mode == "automatic":
        faces = np.tile(np.array(AUTOMATIC_FACES, dtype=np.int64), (n, 1))
        return FourD8Samples(
            faces,
            faces.sum(axis=1),
            np.ones(n, dtype=bool),
            faces.max(axis=1),
            np.zeros(n, dtype=np.int8),
        )
    if n and (faces.min() < 1 or faces.max() > SIDES):
        raise UsageError("faces", "a face outside 1..8", "integers from 1 to 8")
    s = np.sort(faces, axis=1)
    a, b, c, d = s[:, 0], s[:, 1], s[:, 2], s[:, 3]
    total = s.sum(axis=1)
    if mode == "bonus":
        bonus = chance - MAX_EASE
        success = a != SIDES  # only four 8s fail
        degree = np.where(success, d + bonus, 0)
        snake = KINDS.index("snake_eyes") * (d == 1)  # ruling 24: four 1s (the highest is 1)
        return FourD8Samples(faces, total + bonus, success, degree, snake.astype(np.int8))
    ab, bc, cd = a == b, b == c, c == d
    conditions = [
        ab & bc & cd & (a == 1),  # snake-eyes
        ab & bc & cd,  # four alike
        ab & bc,  # triple a=b=c, fourth d
        bc & cd,  # triple b=c=d, fourth a
        ab & cd,  # two pairs
        ab,  # pair a=b, higher other d
        bc,  # pair b=c, higher other d
        cd,  # pair c=d, higher other b
    ]
    two_pairs = total + TWO_PAIRS_BONUS
    degrees = [1, 4 * a, 2 * a + d, 2 * d + a, two_pairs, 2 * a + d, 2 * b + d, 2 * d + b]
    codes = [KINDS.index(k) for k in ("snake_eyes", "four_alike")] + [KINDS.index("triple")] * 2
    codes += [KINDS.index("two_pairs")] + [KINDS.index("pair")] * 3
    raw_degree = np.select(conditions, degrees, default=d)
    kind = np.select(conditions, codes, default=KINDS.index("none")).astype(np.int8)
    success = total != FAIL_TOTAL_DOUBLES if mode == "doubles" else total <= chance
    return FourD8Samples(faces, total, success, np.where(success, raw_degree, 0), kind)


def combination_dice_many(
    faces: np.ndarray, chance: int, over32: str = DEFAULT_OVER32
) -> np.ndarray:
    """Vectorised aspects: an ``(n, 4)`` boolean array, true for the dice that make each row's
    combination (``FourD8Result.aspects``), the sampler's second reading of ruling 20.

    The dice whose face is shown most often, when that is two or more (two pairs: all four);
    else the highest die, the first of them on a tie. A bonus roll has no combinations (only
    snake-eyes, all four dice); an automatic success shows the 8 on the first die.
    """
    import numpy as np  # only here: start-up (validate) needs no numpy

    mode = _mode(_as_int("chance", chance, "an integer"), over32)
    faces = np.asarray(faces, dtype=np.int64)
    n = faces.shape[0]
    highest = np.arange(N_DICE) == np.argmax(faces, axis=1)[:, None]
    if mode == "automatic":
        return np.tile(np.arange(N_DICE) == 0, (n, 1))
    if mode == "bonus":  # snake-eyes (four 1s) is all four dice; otherwise the highest
        return highest | (faces == 1).all(axis=1, keepdims=True)
    alike = (faces[:, :, None] == faces[:, None, :]).sum(axis=2)  # dice showing each die's face
    most = alike.max(axis=1, keepdims=True)
    return np.where(most >= 2, alike == most, highest)


# --- argument checks -----------------------------------------------------------------------------


def _mode(chance: int, over32: str) -> str:
    if over32 not in OVER32:
        raise UsageError("over32", over32, "'automatic', 'doubles' or 'bonus'")
    return over32 if chance >= OVER32_THRESHOLD else "normal"


def _as_int(argument: str, value: object, allowed: str) -> int:
    if isinstance(value, bool):
        raise UsageError(argument, value, allowed)
    try:
        return operator.index(value)  # type: ignore[arg-type]  # any object: TypeError = not an int
    except TypeError:
        raise UsageError(argument, value, allowed) from None


def _check_faces(faces: Sequence[int] | None) -> tuple[int, ...]:
    allowed = "four integers from 1 to 8 (physical, mental, social, magical)"
    if faces is None:
        raise UsageError("faces", faces, allowed)
    try:
        out = tuple(operator.index(f) for f in faces)
    except TypeError:
        raise UsageError("faces", faces, allowed) from None
    if len(out) != N_DICE or any(not 1 <= f <= SIDES for f in out):
        raise UsageError("faces", faces, allowed)
    return out
