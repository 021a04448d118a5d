"""Shadowrun: 2097 (docs/rules-sr2097.md): the 2d10 success check, d6 damage, PT/DR armor and Edge.

* Success check ("Success checks", steps 1-6): 2d10 (faces 1-10) + skill bonus against a
  target number (TN); success if the total reaches the TN; MoS = total - TN (ruling 14).
* Advantage / Disadvantage ("Determine Advantage and Disadvantage", "Advantage/
  Disadvantage"; ruling 13): roll 3d10 and remove one. With Advantage the player removes the
  die that leaves the best MoS, with Disadvantage the GM removes the one that leaves the worst,
  both counting the doubles rule; usually that is the lowest (highest) die, but keeping a double
  can be better (worse). Sources do not stack; both at once is neither; an effect that *removes*
  Disadvantage (night-vision goggles) is not the same as granting Advantage (``check_mode``).
* Doubles ("Rolling Double"; ruling 14): a kept double adds 5 to MoS on a success and
  subtracts 5 on a failure. Without Edge a double therefore never changes success or failure.
* Edge ("Using Edge with Advantage/Disadvantage", "Edge" item 1; ruling 13): one point buys
  Advantage (if the check does not already have it) or removes Disadvantage, not both. On such a
  check any kept double adds 5 even on a failure, which can turn it into a success.
* Margin tiers ("Magnitude of Success/Failure"): 10+ complete, 5-9 significant, 0-4
  marginal success; -1..-5 marginal, -6..-10 significant, below -10 complete failure. An attack
  adds 1d6 damage on MoS 5-9 and 2d6 on 10+ (ruling 14). A significant failure leaves
  Disadvantage on the next related check, a complete failure on the next check of any kind
  (ruling 23: ``failure_disadvantage``; the rule system carries it from check to check).
* Damage ("Variable damage rolls", Edge item 3): Nd6 + ST, plus the MoS dice, +1d6 for a
  burst and +2d6 for Edge.
* Armor ("Damage mitigation"; ruling 15): damage below PT is stopped; otherwise the armor
  soaks floor(damage x DR / 100): 16 against PT 15/DR 30 leaves 12.
  ``armor_outcome`` names what a hit does against it (miss, stopped, through);
  ``exact_hit_outcome`` and ``exact_attack_outcome`` give that exactly (``combatsim odds 2097
  --damage``).

Here MoS always means the margin *after* the doubles adjustment, and a check succeeds exactly
when that MoS is at least 0 (the Edge double "adds 5 to the total").

Every rule lives in the pure resolvers (``resolve_check``, ``resolve_damage``, ``apply_armor``);
the exact distributions enumerate through the same keep rule, the ``roll_*`` functions feed them
faces from the engine's ``draw(sides, k)``, and the vectorised samplers are checked against the
exact distributions in the tests. ``check_outcome`` is ``resolve_check`` cut to the two numbers
a battle goes on with (MoS and a kept double), for the battle's hot path; the tests compare the
two on every face. ``exact_check_faces`` and ``exact_damage_faces`` are the faces an exact
answer (``combatsim odds attack``) chooses among: a check's d10 as sorted multisets, d6 by sum.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from fractions import Fraction
from functools import lru_cache
from typing import TYPE_CHECKING

from ..errors import UsageError
from .exact import Dist

if TYPE_CHECKING:
    import numpy as np

NORMAL = "normal"
ADVANTAGE = "advantage"
DISADVANTAGE = "disadvantage"
MODES = (NORMAL, ADVANTAGE, DISADVANTAGE)

EDGE_GAIN_ADVANTAGE = "gain_advantage"
EDGE_REMOVE_DISADVANTAGE = "remove_disadvantage"
EDGE_USES = (EDGE_GAIN_ADVANTAGE, EDGE_REMOVE_DISADVANTAGE)

COMPLETE_FAILURE = "complete failure"
SIGNIFICANT_FAILURE = "significant failure"
MARGINAL_FAILURE = "marginal failure"
MARGINAL_SUCCESS = "marginal success"
SIGNIFICANT_SUCCESS = "significant success"
COMPLETE_SUCCESS = "complete success"
TIERS = (
    COMPLETE_FAILURE,
    SIGNIFICANT_FAILURE,
    MARGINAL_FAILURE,
    MARGINAL_SUCCESS,
    SIGNIFICANT_SUCCESS,
    COMPLETE_SUCCESS,
)

REMOVED_LOWEST = "lowest"
REMOVED_HIGHEST = "highest"
REMOVED_KEEPS_DOUBLE = "keeps double"  # the doubles rule made another die go: a double kept
REMOVED_BREAKS_DOUBLE = "breaks double"  # ... or a double broken up

DOUBLE_BONUS = 5  # "Rolling Double": +5 / -5 to MoS
BURST_DICE = 1  # "Variable damage rolls", guard example
EDGE_DAMAGE_DICE = 2  # "Edge", 3. Boost damage

_D10 = range(1, 11)


# --- Advantage / Disadvantage / Edge --------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class CheckMode:
    """How a check is rolled: ``mode`` (normal, advantage, disadvantage) and if Edge was spent."""

    mode: str
    edge: bool = False


def check_mode(
    advantage: bool = False,
    disadvantage: bool = False,
    *,
    removes_advantage: bool = False,
    removes_disadvantage: bool = False,
    edge: str | None = None,
) -> CheckMode:
    """Combine the flags of a check into how it is rolled ("Multiple sources", "Removing").

    ``advantage`` / ``disadvantage``: any source at all (they do not stack). ``removes_*``:
    an effect that cancels that flag (night-vision goggles remove Disadvantage in low light);
    this is not granting the opposite flag, so Advantage from another source then survives.
    ``edge``: ``"gain_advantage"`` (only if the check does not already have Advantage) or
    ``"remove_disadvantage"`` (only if it has Disadvantage), never both ("Using Edge").
    Removal effects act on the conditions first; Edge is spent on what is left. Then both
    flags at once is neither.
    """
    has_adv = bool(advantage) and not removes_advantage
    has_dis = bool(disadvantage) and not removes_disadvantage
    if edge is not None:
        if edge == EDGE_GAIN_ADVANTAGE:
            if has_adv:
                raise UsageError("edge", edge, "gain_advantage only on a check without Advantage")
            has_adv = True
        elif edge == EDGE_REMOVE_DISADVANTAGE:
            if not has_dis:
                raise UsageError(
                    "edge", edge, "remove_disadvantage only on a check with Disadvantage"
                )
            has_dis = False
        else:
            raise UsageError("edge", edge, "None, 'gain_advantage' or 'remove_disadvantage'")
    if has_adv and not has_dis:
        mode = ADVANTAGE
    elif has_dis and not has_adv:
        mode = DISADVANTAGE
    else:
        mode = NORMAL
    return CheckMode(mode, edge is not None)


def _check_mode_args(mode: str, edge: bool) -> None:
    if mode not in MODES:
        raise UsageError("mode", mode, "'normal', 'advantage' or 'disadvantage'")
    if edge and mode == DISADVANTAGE:
        # Edge either buys Advantage or removes Disadvantage, so an Edge check never keeps it.
        raise UsageError("edge", edge, "False on a Disadvantage check (Edge removes Disadvantage)")


# --- margin of success ----------------------------------------------------------------------------


def mos_tier(mos: int) -> str:
    """The rules' "Magnitude of Success/Failure" tier of a MoS (after doubles)."""
    if mos >= 10:
        return COMPLETE_SUCCESS
    if mos >= 5:
        return SIGNIFICANT_SUCCESS
    if mos >= 0:
        return MARGINAL_SUCCESS
    if mos >= -5:
        return MARGINAL_FAILURE
    if mos >= -10:
        return SIGNIFICANT_FAILURE
    return COMPLETE_FAILURE


RELATED = "related"  # ruling 23: Disadvantage on the next check of the same kind
ANY = "any"  # ruling 23: Disadvantage on the next check of any kind


def failure_disadvantage(tier: str) -> str | None:
    """What Disadvantage a check's MoS tier leaves for a later check ("Magnitude of
    Success/Failure", ruling 23): a significant failure on the next *related* check, a complete
    failure on the next check of any kind, otherwise none."""
    if tier == SIGNIFICANT_FAILURE:
        return RELATED
    if tier == COMPLETE_FAILURE:
        return ANY
    return None


def mos_damage_dice(mos: int) -> int:
    """Extra d6 an attack adds for its MoS: 1 on 5-9, 2 on 10 or more (ruling 14)."""
    return 2 if mos >= 10 else 1 if mos >= 5 else 0


def _margin(a: int, b: int, d: int, edge: bool) -> int:
    """MoS of keeping ``a, b`` when ``d = bonus - TN`` ("Rolling Double"; rulings 13-14)."""
    raw = a + b + d
    if a != b:
        return raw
    if edge or raw >= 0:
        return raw + DOUBLE_BONUS
    return raw - DOUBLE_BONUS


def _choose(x: int, y: int, z: int, d: int, edge: bool, advantage: bool) -> tuple[int, int]:
    """Which of three dice is removed, and the MoS left (ruling 13).

    The usual die (lowest for Advantage, highest for Disadvantage) is removed unless removing
    another leaves a strictly better (worse) MoS; that is only ever possible by keeping a double.
    """
    if advantage:
        usual = 0 if x <= y and x <= z else 1 if y <= z else 2
    else:
        usual = 0 if x >= y and x >= z else 1 if y >= z else 2
    margins = (_margin(y, z, d, edge), _margin(x, z, d, edge), _margin(x, y, d, edge))
    best_i, best = usual, margins[usual]
    for i in (0, 1, 2):
        m = margins[i]
        if (m > best) if advantage else (m < best):
            best_i, best = i, m
    return best_i, best


# --- the check: pure resolution from given faces --------------------------------------------------


@dataclass(frozen=True, slots=True)
class CheckResult:
    """One success check.

    ``total`` is kept dice + bonus as read off the table; ``mos`` is after the doubles rule and
    ``success`` is ``mos >= 0``. ``removed_reason`` says why the third die went: ``"lowest"``
    (Advantage), ``"highest"`` (Disadvantage), or, when the doubles rule made another die go,
    ``"keeps double"`` or ``"breaks double"`` (what the kept pair is); ``None`` on a 2d10 check.
    """

    dice: tuple[int, ...]
    kept: tuple[int, int]
    removed: int | None
    removed_reason: str | None
    bonus: int
    tn: int
    total: int
    success: bool
    mos: int
    double: bool
    edge: bool
    mode: str
    tier: str
    extra_damage_dice: int


def resolve_check(
    faces: Sequence[int], bonus: int, tn: int, mode: str = NORMAL, edge: bool = False
) -> CheckResult:
    """Resolve a check from the d10 faces shown: 2 faces for a normal check, 3 otherwise.

    ``edge``: Edge was spent on this check (to gain Advantage or remove Disadvantage), so any
    kept double adds 5 even on a failure. ``resolve_check((4, 4), 10, 20, edge=True)`` turns a
    total of 18 into MoS +3, a success.
    """
    _check_mode_args(mode, edge)
    faces = tuple(faces)
    need = 2 if mode == NORMAL else 3
    if len(faces) != need or any(f not in _D10 for f in faces):
        raise UsageError("faces", faces, f"{need} d10 faces, each 1..10, for a {mode} check")
    d = bonus - tn
    if mode == NORMAL:
        kept, removed, reason = (faces[0], faces[1]), None, None
        mos = _margin(faces[0], faces[1], d, edge)
    else:
        x, y, z = faces
        advantage = mode == ADVANTAGE
        i, mos = _choose(x, y, z, d, edge, advantage)
        kept = (y, z) if i == 0 else (x, z) if i == 1 else (x, y)
        removed = faces[i]
        usual = min(faces) if advantage else max(faces)
        if removed == usual:
            reason = REMOVED_LOWEST if advantage else REMOVED_HIGHEST
        else:  # the doubles rule decided: say what it did to the kept pair
            reason = REMOVED_KEEPS_DOUBLE if kept[0] == kept[1] else REMOVED_BREAKS_DOUBLE
    return CheckResult(
        dice=faces,
        kept=kept,
        removed=removed,
        removed_reason=reason,
        bonus=bonus,
        tn=tn,
        total=kept[0] + kept[1] + bonus,
        success=mos >= 0,
        mos=mos,
        double=kept[0] == kept[1],
        edge=edge,
        mode=mode,
        tier=mos_tier(mos),
        extra_damage_dice=mos_damage_dice(mos),
    )


def roll_check(
    draw: Callable[[int, int], Sequence[int]],
    bonus: int,
    tn: int,
    mode: str = NORMAL,
    edge: bool = False,
) -> CheckResult:
    """Roll a check with faces from ``draw(10, k)`` (k = 2, or 3 with Advantage/Disadvantage)."""
    _check_mode_args(mode, edge)
    return _resolve_known(tuple(draw(10, 2 if mode == NORMAL else 3)), bonus, tn, mode, edge)


@lru_cache(maxsize=1 << 14)
def _resolve_known(
    faces: tuple[int, ...], bonus: int, tn: int, mode: str, edge: bool
) -> CheckResult:
    """``resolve_check``, remembered: a battle asks about the same few bonuses and TNs over
    and over (100 or 1,000 rolls each), and the result is immutable."""
    return resolve_check(faces, bonus, tn, mode, edge)


def check_outcome(faces: Sequence[int], d: int, mode: str, edge: bool) -> tuple[int, bool]:
    """``(mos, double)`` of ``resolve_check(faces, bonus, tn, mode, edge)`` with ``d = bonus -
    TN``: the two numbers a battle goes on with (``mos >= 0`` is success), without building
    the record or checking the faces (they come from the battle's own d10s).

    The same keep rule (``_choose``); with no two faces alike no double can be kept, so the
    usual die goes without scoring the pairs. The tests compare it with ``resolve_check`` on
    every face and a span of ``d``.
    """
    if mode == NORMAL:
        a, b = faces
        raw = a + b + d
        if a != b:
            return raw, False
        return (raw + DOUBLE_BONUS if edge or raw >= 0 else raw - DOUBLE_BONUS), True
    x, y, z = faces
    if x != y and y != z and x != z:
        drop = min(x, y, z) if mode == ADVANTAGE else max(x, y, z)
        return x + y + z - drop + d, False
    i, mos = _choose(x, y, z, d, edge, mode == ADVANTAGE)
    return mos, (y == z) if i == 0 else (x == z) if i == 1 else (x == y)


# --- damage and armor: pure resolution ------------------------------------------------------------


def damage_dice(base_dice: int, mos_dice: int = 0, burst: bool = False, edge: bool = False) -> int:
    """How many d6 a damage roll uses: base + MoS dice, +1 for a burst, +2 for Edge."""
    if base_dice < 0:
        raise UsageError("base_dice", base_dice, "an integer from 0 up")
    if not 0 <= mos_dice <= 2:
        raise UsageError("mos_dice", mos_dice, "an integer from 0 to 2")
    return base_dice + mos_dice + (BURST_DICE if burst else 0) + (EDGE_DAMAGE_DICE if edge else 0)


@dataclass(frozen=True, slots=True)
class DamageResult:
    """A damage roll: the d6 faces, the Strength added and the total."""

    faces: tuple[int, ...]
    strength: int
    total: int


def resolve_damage(
    faces: Sequence[int],
    base_dice: int,
    strength: int,
    mos_dice: int = 0,
    burst: bool = False,
    edge: bool = False,
) -> DamageResult:
    """Damage from the d6 faces shown: their sum + ST ("Variable damage rolls").

    The number of faces must match ``damage_dice(base_dice, mos_dice, burst, edge)``: the
    street samurai's 2d6+6 sword with MoS 10+ rolls 4 dice, the guard's SMG burst 3.
    """
    n = damage_dice(base_dice, mos_dice, burst, edge)
    _check_strength(strength)
    faces = tuple(faces)
    if len(faces) != n or any(f < 1 or f > 6 for f in faces):
        raise UsageError("faces", faces, f"{n} d6 faces, each 1..6")
    return DamageResult(faces, strength, sum(faces) + strength)


def _check_strength(strength: int) -> None:
    if strength < 0:
        raise UsageError("strength", strength, "an integer from 0 up")


def _check_armor(pt: int, dr: int) -> None:
    if pt < 0:
        raise UsageError("pt", pt, "an integer from 0 up")
    if not 0 <= dr <= 100:
        raise UsageError("dr", dr, "an integer from 0 to 100 (percent)")


def apply_armor(damage: int, pt: int, dr: int) -> int:
    """Damage left after armor (ruling 15): below PT stopped, else floor(damage * DR%) soaked."""
    _check_armor(pt, dr)
    if damage < pt:
        return 0
    return damage - damage * dr // 100


@dataclass(frozen=True, slots=True)
class AttackResult:
    """An attack: its check, its damage roll (``None`` on a miss) and the damage after armor."""

    check: CheckResult
    damage: DamageResult | None
    dealt: int


def roll_attack(
    draw: Callable[[int, int], Sequence[int]],
    bonus: int,
    tn: int,
    base_dice: int,
    strength: int,
    *,
    mode: str = NORMAL,
    edge: bool = False,
    burst: bool = False,
    edge_damage: bool = False,
    pt: int = 0,
    dr: int = 0,
) -> AttackResult:
    """Roll an attack check, then (on a hit) its damage with the MoS dice, then armor.

    ``edge``: Edge spent on the check; ``edge_damage``: Edge spent to boost damage (+2d6). A
    miss rolls no damage and deals 0.
    """
    damage_dice(base_dice, 0, burst, edge_damage)  # validate before any die is drawn
    _check_strength(strength)
    _check_armor(pt, dr)
    check = roll_check(draw, bonus, tn, mode, edge)
    if not check.success:
        return AttackResult(check, None, 0)
    n = damage_dice(base_dice, check.extra_damage_dice, burst, edge_damage)
    dmg = resolve_damage(
        draw(6, n), base_dice, strength, check.extra_damage_dice, burst, edge_damage
    )
    return AttackResult(check, dmg, apply_armor(dmg.total, pt, dr))


# --- exact distributions --------------------------------------------------------------------------


def exact_check(
    bonus: int, tn: int, mode: str = NORMAL, edge: bool = False
) -> Dist[tuple[bool, int]]:
    """Exact joint distribution of ``(success, mos)`` (MoS after doubles) of one check."""
    _check_mode_args(mode, edge)
    return _exact_check(bonus - tn, mode, bool(edge))


@lru_cache(maxsize=1024)
def _exact_check(d: int, mode: str, edge: bool) -> Dist[tuple[bool, int]]:
    pmf: dict[tuple[bool, int], Fraction] = {}
    rolls = 100 if mode == NORMAL else 1000
    for ways, m in _margins(d, mode, edge):
        pmf[(m >= 0, m)] = pmf.get((m >= 0, m), 0) + Fraction(ways, rolls)
    return Dist(pmf)


def _margins(d: int, mode: str, edge: bool) -> Iterator[tuple[int, int]]:
    """Every roll of a check with ``d = bonus - TN`` as ``(ways, MoS)``: the 100 ordered
    2d10 one way each, or the 220 multisets x <= y <= z of 3d10 with their number of
    orderings (6, 3 or 1) out of 1,000."""
    if mode == NORMAL:
        for a in _D10:
            for b in _D10:
                yield 1, _margin(a, b, d, edge)
        return
    advantage = mode == ADVANTAGE
    for x in _D10:
        for y in range(x, 11):
            for z in range(y, 11):
                yield (
                    (6 if x < y < z else 1 if x == z else 3),
                    _choose(x, y, z, d, edge, advantage)[1],
                )


def exact_mos(bonus: int, tn: int, mode: str = NORMAL, edge: bool = False) -> Dist[int]:
    """Exact distribution of the MoS (after doubles); success is ``mos >= 0``."""
    return exact_check(bonus, tn, mode, edge).map(lambda o: o[1])


def p_success(bonus: int, tn: int, mode: str = NORMAL, edge: bool = False) -> Fraction:
    """Exact chance that the check succeeds."""
    return exact_check(bonus, tn, mode, edge).prob(lambda o: o[0])


def success_chance(bonus: int, tn: int, mode: str = NORMAL, edge: bool = False) -> Fraction:
    """``p_success``, counted in integers: the rolls that succeed out of the 100 (2d10) or
    1,000 (3d10), from the same rolls (``_margins``) without the joint table of fractions
    ``exact_check`` builds, which costs ten times as much. A battle's Edge policy weighs its
    odds at margins it meets for the first time mid-run (``rules.sr2097.hit_chance``)."""
    _check_mode_args(mode, edge)
    ways = sum(w for w, m in _margins(bonus - tn, mode, bool(edge)) if m >= 0)
    return Fraction(ways, 100 if mode == NORMAL else 1000)


def exact_kept_sum(mode: str = NORMAL) -> Dist[int]:
    """Exact sum of the kept 2d10 removing the lowest (Advantage) or highest (Disadvantage) die.

    This ignores doubles, as the rules' "roughly +2.5 / -2.5" does ("How Advantage and
    Disadvantage Affect Rolls"); the doubles-aware choice depends on the TN (``exact_check``).
    """
    _check_mode_args(mode, False)
    if mode == NORMAL:
        return Dist.dice_sum(2, 10)
    keep = (lambda t: t[1] + t[2]) if mode == ADVANTAGE else (lambda t: t[0] + t[1])
    triples = (tuple(sorted((x, y, z))) for x in _D10 for y in _D10 for z in _D10)
    return Dist.uniform(triples).map(keep)


def mean_kept_sum(mode: str = NORMAL) -> Fraction:
    """Mean of ``exact_kept_sum(mode)``: 11; 13.475 with Advantage; 8.525 with Disadvantage."""
    return exact_kept_sum(mode).mean()


def exact_damage(
    base_dice: int, strength: int, mos_dice: int = 0, burst: bool = False, edge: bool = False
) -> Dist[int]:
    """Exact distribution of a damage roll: ``damage_dice(...)`` d6 + ST."""
    _check_strength(strength)
    return Dist.dice_sum(damage_dice(base_dice, mos_dice, burst, edge), 6, strength)


def exact_after_armor(damage: Dist[int], pt: int, dr: int) -> Dist[int]:
    """Exact distribution of the damage left after armor PT/DR (ruling 15)."""
    _check_armor(pt, dr)
    return damage.map(lambda x: apply_armor(x, pt, dr))


def exact_attack_damage(
    bonus: int,
    tn: int,
    base_dice: int,
    strength: int,
    *,
    mode: str = NORMAL,
    edge: bool = False,
    burst: bool = False,
    edge_damage: bool = False,
    pt: int = 0,
    dr: int = 0,
) -> Dist[int]:
    """Exact distribution of the damage an attack deals (0 on a miss), after armor PT/DR.

    ``exact_attack_outcome`` without the kind of outcome. The defaults ``pt=0, dr=0`` are no
    armor, i.e. the damage rolled.
    """
    outcome = exact_attack_outcome(
        bonus,
        tn,
        base_dice,
        strength,
        mode=mode,
        edge=edge,
        burst=burst,
        edge_damage=edge_damage,
        pt=pt,
        dr=dr,
    )
    return outcome.map(lambda o: o[1])


# --- damage through armor: what a hit or an attack leaves (rulings 14-15) -------------------------

MISS = "miss"
STOPPED = "stopped"  # a hit the armor stopped whole: below PT (or DR 100%)
THROUGH = "through"  # a hit that left some damage
ARMOR_OUTCOMES = (MISS, STOPPED, THROUGH)


def armor_outcome(rolled: int | None, pt: int, dr: int) -> tuple[str, int]:
    """``(kind, dealt)`` of a damage roll against armor PT/DR; ``rolled`` None is a miss.

    The damage left is ``apply_armor``'s (ruling 15); a hit is ``STOPPED`` when nothing is left,
    which is when a battle counts it as stopped and the armor may degrade.
    """
    if rolled is None:
        return MISS, 0
    dealt = apply_armor(rolled, pt, dr)
    return (THROUGH if dealt else STOPPED), dealt


def exact_hit_outcome(
    base_dice: int,
    strength: int,
    *,
    mos: int = 0,
    burst: bool = False,
    edge_damage: bool = False,
    pt: int = 0,
    dr: int = 0,
) -> Dist[tuple[str, int]]:
    """Exact ``(kind, dealt)`` of one hit with margin ``mos`` (0 up) against armor PT/DR.

    The hit rolls ``Nd6 + ST`` plus the MoS dice (``mos_damage_dice``), +1d6 for a burst and
    +2d6 for Edge ("Variable damage rolls"); ``armor_outcome`` reads what gets through.
    """
    if isinstance(mos, bool) or not isinstance(mos, int) or mos < 0:
        raise UsageError("mos", mos, "an integer from 0 up (the margin of a hit)")
    return _hit_outcome(base_dice, strength, mos_damage_dice(mos), burst, edge_damage, pt, dr)


def _hit_outcome(
    base_dice: int, strength: int, mos_dice: int, burst: bool, edge_damage: bool, pt: int, dr: int
) -> Dist[tuple[str, int]]:
    _check_armor(pt, dr)
    rolled = exact_damage(base_dice, strength, mos_dice, burst, edge_damage)
    return rolled.map(lambda x: armor_outcome(x, pt, dr))


def exact_attack_outcome(
    bonus: int,
    tn: int,
    base_dice: int,
    strength: int,
    *,
    mode: str = NORMAL,
    edge: bool = False,
    burst: bool = False,
    edge_damage: bool = False,
    pt: int = 0,
    dr: int = 0,
) -> Dist[tuple[str, int]]:
    """Exact ``(kind, dealt)`` of an attack: a miss, or a hit whose MoS tier adds 0, 1 or 2 d6
    (ruling 14), stopped by the armor or through it (``exact_hit_outcome``).

    ``edge``: Edge spent on the check; ``edge_damage``: Edge spent to boost damage (+2d6).
    """
    damage_dice(base_dice, 0, burst, edge_damage)
    _check_strength(strength)
    _check_armor(pt, dr)
    extra = exact_check(bonus, tn, mode, edge).map(
        lambda o: mos_damage_dice(o[1]) if o[0] else None
    )
    return extra.bind(
        lambda e: (
            Dist.point(armor_outcome(None, pt, dr))
            if e is None
            else _hit_outcome(base_dice, strength, e, burst, edge_damage, pt, dr)
        )
    )


# --- exact faces: what a battle's exact answer chooses among --------------------------------------


@lru_cache(maxsize=64)
def exact_check_faces(k: int) -> Dist[tuple[int, ...]]:
    """The ``k`` d10 of a check as sorted multisets, each with its multinomial probability
    (``k! / (repeats!...) / 10^k``): 55 for 2d10, 220 for 3d10 instead of 100 and 1,000
    ordered faces. A check reads no order: the sum, whether two faces are alike, the lowest
    or highest die, and the keep rule's best (worst) MoS over the three removals
    (``check_outcome``, ``_choose``), all the same for any ordering of the faces."""
    ways: dict[tuple[int, ...], int] = {}
    for faces in _ordered(k, 10):
        key = tuple(sorted(faces))
        ways[key] = ways.get(key, 0) + 1
    return Dist((faces, Fraction(n, 10**k)) for faces, n in ways.items())


@lru_cache(maxsize=64)
def exact_damage_faces(k: int) -> Dist[tuple[int, ...]]:
    """``k`` d6 as one face list per sum (the sorted faces nearest to even), each with the
    sum's probability: 5k + 1 choices instead of 6^k. Damage and initiative read only the sum
    of their d6 (``Dist.dice_sum``), so any faces of that sum stand for all of them."""
    return Dist.dice_sum(k, 6).map(lambda total: _faces_of_sum(k, total))


def _faces_of_sum(k: int, total: int) -> tuple[int, ...]:
    """``k`` d6 faces summing to ``total`` (k <= total <= 6k), as even as they go."""
    low, extra = divmod(total, k) if k else (0, 0)
    return (low,) * (k - extra) + (low + 1,) * extra


def _ordered(k: int, sides: int) -> list[tuple[int, ...]]:
    faces: list[tuple[int, ...]] = [()]
    for _ in range(k):
        faces = [f + (x,) for f in faces for x in range(1, sides + 1)]
    return faces


# --- sampling -------------------------------------------------------------------------------------


def _margins_array(a: np.ndarray, b: np.ndarray, d: int, edge: bool) -> np.ndarray:
    import numpy as np  # only here: start-up (validate) needs no numpy

    raw = a + b + d
    if edge:
        adjust = np.where(a == b, DOUBLE_BONUS, 0)
    else:
        adjust = np.where(a == b, np.where(raw >= 0, DOUBLE_BONUS, -DOUBLE_BONUS), 0)
    return raw + adjust


def sample_check(
    rng: np.random.Generator,
    bonus: int,
    tn: int,
    size: int,
    mode: str = NORMAL,
    edge: bool = False,
) -> tuple[np.ndarray, np.ndarray]:
    """Roll ``size`` independent checks; returns ``(success, mos)`` arrays (MoS after doubles).

    Vectorised: with Advantage/Disadvantage all three kept pairs are scored and the best
    (worst) MoS taken, which is the same choice as ``resolve_check``.
    """
    import numpy as np  # only here: start-up (validate) needs no numpy

    _check_mode_args(mode, edge)
    if size < 0:
        raise UsageError("size", size, "an integer from 0 up")
    d = bonus - tn
    if mode == NORMAL:
        faces = rng.integers(1, 11, size=(size, 2), dtype=np.int64)
        mos = _margins_array(faces[:, 0], faces[:, 1], d, edge)
    else:
        faces = rng.integers(1, 11, size=(size, 3), dtype=np.int64)
        x, y, z = faces[:, 0], faces[:, 1], faces[:, 2]
        options = np.stack(
            [
                _margins_array(y, z, d, edge),
                _margins_array(x, z, d, edge),
                _margins_array(x, y, d, edge),
            ],
            axis=1,
        )
        mos = options.max(axis=1) if mode == ADVANTAGE else options.min(axis=1)
    return mos >= 0, mos


def _armor_array(damage: np.ndarray, pt: int, dr: int) -> np.ndarray:
    import numpy as np  # only here: start-up (validate) needs no numpy

    return np.where(damage < pt, 0, damage - damage * dr // 100)


def sample_damage(
    rng: np.random.Generator,
    base_dice: int,
    strength: int,
    size: int,
    mos_dice: int = 0,
    burst: bool = False,
    edge: bool = False,
) -> np.ndarray:
    """Roll ``size`` independent damage rolls (``damage_dice(...)`` d6 + ST)."""
    import numpy as np  # only here: start-up (validate) needs no numpy

    n = damage_dice(base_dice, mos_dice, burst, edge)
    _check_strength(strength)
    if size < 0:
        raise UsageError("size", size, "an integer from 0 up")
    return rng.integers(1, 7, size=(size, n), dtype=np.int64).sum(axis=1) + strength


def sample_attack_damage(
    rng: np.random.Generator,
    bonus: int,
    tn: int,
    base_dice: int,
    strength: int,
    size: int,
    *,
    mode: str = NORMAL,
    edge: bool = False,
    burst: bool = False,
    edge_damage: bool = False,
    pt: int = 0,
    dr: int = 0,
) -> np.ndarray:
    """Roll ``size`` independent attacks; the damage each deals after armor (0 on a miss)."""
    return sample_attack_outcome(
        rng,
        bonus,
        tn,
        base_dice,
        strength,
        size,
        mode=mode,
        edge=edge,
        burst=burst,
        edge_damage=edge_damage,
        pt=pt,
        dr=dr,
    )[1]


def sample_attack_outcome(
    rng: np.random.Generator,
    bonus: int,
    tn: int,
    base_dice: int,
    strength: int,
    size: int,
    *,
    mode: str = NORMAL,
    edge: bool = False,
    burst: bool = False,
    edge_damage: bool = False,
    pt: int = 0,
    dr: int = 0,
) -> tuple[np.ndarray, np.ndarray]:
    """Roll ``size`` independent attacks; returns ``(hit, dealt)`` arrays (dealt after armor).

    Every attack gets enough d6 for the largest MoS bonus; the columns beyond its own count are
    masked off, so there is one draw for all damage dice.
    """
    import numpy as np  # only here: start-up (validate) needs no numpy

    fixed = damage_dice(base_dice, 0, burst, edge_damage)
    _check_strength(strength)
    _check_armor(pt, dr)
    success, mos = sample_check(rng, bonus, tn, size, mode, edge)
    n = fixed + np.where(mos >= 10, 2, np.where(mos >= 5, 1, 0))
    faces = rng.integers(1, 7, size=(size, fixed + 2), dtype=np.int64)
    used = np.arange(fixed + 2) < n[:, None]
    rolled = np.where(success, (faces * used).sum(axis=1) + strength, 0)
    return success, np.where(success, _armor_array(rolled, pt, dr), 0)


def sample_hit_damage(
    rng: np.random.Generator,
    base_dice: int,
    strength: int,
    size: int,
    *,
    mos: int = 0,
    burst: bool = False,
    edge_damage: bool = False,
    pt: int = 0,
    dr: int = 0,
) -> np.ndarray:
    """Roll ``size`` independent hits with margin ``mos``; the damage each leaves after armor."""
    if isinstance(mos, bool) or not isinstance(mos, int) or mos < 0:
        raise UsageError("mos", mos, "an integer from 0 up (the margin of a hit)")
    _check_armor(pt, dr)
    extra = 2 if mos >= 10 else 1 if mos >= 5 else 0  # ruling 14, restated for the check
    rolled = sample_damage(rng, base_dice, strength, size, extra, burst, edge_damage)
    return _armor_array(rolled, pt, dr)
