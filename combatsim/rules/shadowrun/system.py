"""Classic Shadowrun as a rule system, and its D8 variant (docs/rules-sr-classic.md).

Every number a fight needs: initiative and the Extra Action Table, target numbers from range,
the Weapon Modifiers and Visibility tables, attack and resistance tests, the Dodge and Defense
Pools, staging, armor, condition monitors and Instant Karma. Each rule cites the rules' section
or the ruling (numbered as in docs/rules-sr-classic.md) it implements.
"""

from __future__ import annotations

import functools
import math
from typing import TYPE_CHECKING, Any

from mypy_extensions import mypyc_attr

from ...dice import shadowrun as dice
from ..base import (
    Autofire,
    ExactHooks,
    Explainable,
    ExtraColumns,
    Grenades,
    RuleSystem,
    SpecCache,
    StartingConditions,
    WoundPenalties,
)
from ..levers import field_bounds
from ..situation import Scatter, Situation, band_of, labelled, range_band, signed, weapon_name
from ..start import KARMA_SPENT, StartProblem
from . import levers as sr_levers
from . import models
from .models import BOXES, LEVELS, RUN_MULTIPLIER, DamageCode

if TYPE_CHECKING:
    from collections.abc import Callable, Mapping, Sequence

    from ..base import Battle, C, Combatant
    from ..levers import Lever
    from ..start import Start

MONITOR_BOXES = 10  # ruling 7: Physical and Stun, 10 boxes each
RANGE_TN = (4, 5, 7, 9)  # Target Number Table: short, medium, long, extreme
MELEE_TN = 4  # Melee Combat; Target Number Table "Hand-To-Hand"
INTERCEPT_TN, INTERCEPT_TN_MOVED = 5, 6  # Interception
COVER_TN = {
    "none": 0,
    "partial": 2,
    "full": 4,
    "hidden": 8,
}  # Weapon Modifiers; hidden = Blind Fire
VISIBILITY_TN = {  # Visibility Table: condition -> (normal, low-light, thermographic)
    "normal": (0, 0, 0),
    "full_darkness": (4, 2, 0),
    "glare": (2, 4, 4),
    "mist": (2, 2, 0),
    "reduced_light": (2, 0, 0),
    "smoke": (4, 4, 2),
}
VISION_INDEX = {"normal": 0, "low_light": 1, "thermographic": 2}
DEVIATION_DICE = {"plain": 2, "aerodynamic": 3, "launcher": 4}  # ruling 10
DEVIATION_PER_SUCCESS = {"plain": 3, "aerodynamic": 5, "launcher": 5}
LEVEL_INDEX = {level: i for i, level in enumerate(LEVELS)}
UNARMED = DamageCode(power=0, strength_based=True, level="M", staging=1)  # seed: (Str)M1 Stun


def extra_actions(result: int) -> int:
    """The Extra Action Table (ruling 1): 1-10 one action, 11-16 two, 17-22 three, 23+ four."""
    if result < 1:
        return 0
    return 1 if result <= 10 else 2 if result <= 16 else 3 if result <= 22 else 4


def action_scores(result: int, passes: str = "minus7") -> list[int]:
    """The initiative scores a fighter acts at this turn (ruling 1).

    ``minus7`` (the rules): the first action at the result, each further one 7 lower, as many
    as the Extra Action Table gives (23 acts at 23, 16, 9, 2). ``minus10`` (published SR2/SR3):
    one action per pass, 10 lower each time, while the score is above 0.
    """
    if passes == "minus10":
        return list(range(result, 0, -10))
    return [result - 7 * k for k in range(extra_actions(result))]


def wound_modifier(boxes: int) -> int:
    """Ruling 7: 1-2 boxes +1, 3-5 boxes +2, 6 or more +3 (per monitor; the two add up)."""
    return 0 if boxes <= 0 else 1 if boxes <= 2 else 2 if boxes <= 5 else 3


# ``wound_modifier`` of 0..10 boxes, read by index where wounds land (once per hit)
WOUND_MODIFIER = tuple(wound_modifier(boxes) for boxes in range(MONITOR_BOXES + 1))


def blast_power(power: int, falloff: float, distance: float, rule: str = "full_meters") -> int:
    """A grenade's Power at ``distance`` meters from the burst (ruling 10; 0 or less: unhurt).

    Ruling 25 (the default, ``full_meters``): the Power falls by ``falloff`` for each *full*
    meter, ``power - falloff x floor(distance)``. ``exact``: ``power - falloff x distance``,
    rounded up. Power 12, falloff 2 at 1.5 m: 10 by full meters, 9 exactly. A fractional
    result (a falloff of 1.5, say) is rounded up. ``distance`` is measured by
    ``blast_distance``, so a whole number of meters is exactly that number here.
    """
    if rule == "full_meters":
        return math.ceil(power - falloff * math.floor(distance))
    return math.ceil(power - falloff * distance)


def stage(level: str, up: int, down: int) -> tuple[str | None, int]:
    """Ruling 6: move the wound ``up`` and ``down`` levels; below L is no damage.

    Returns the final level (None for no damage) and how many levels it was staged above D
    (each removes one point of the target's armor of the attack's kind).
    """
    index = LEVEL_INDEX[level] + up - down
    if index < 0:
        return None, 0
    if index > 3:
        return LEVELS[3], index - 3
    return LEVELS[index], 0


class SRState:
    """A combatant's mutable state in one battle, and the sheet values its tests read, flat.

    Derived once at battle start so a test reads attributes, not a walk through the spec.
    The wound modifier (ruling 7) is kept in ``penalty`` and updated whenever ``physical``
    or ``stun`` changes, so the many TNs that add it read one attribute.
    """

    __slots__ = (
        "_physical",
        "_stun",
        "penalty",
        "wound_modifiers",
        "overflow",
        "dodge",
        "defense",
        "karma",
        "karma_spent",
        "ballistic",
        "impact",
        "fumbles",
        "dodge_spent",
        "karma_rerolled",
        "dodge_pool",
        "defense_pool",
        "body",
        "reaction",
        "firearms",
        "melee_skill",
        "vision",
        "vision_tn",
        "smart",
        "initiative_dice",
        "karma_policy",
        "dodge_spend",
        "sweeps",
        "threat",
        "take",
        "count",
    )

    def __init__(
        self,
        wound_modifiers: bool = True,
        dodge_pool: int = 0,
        defense_pool: int = 0,
        karma: int = 0,
        ballistic: int = 0,
        impact: int = 0,
        body: int = 0,
        reaction: int = 0,
        firearms: int = 0,
        melee_skill: int = 0,
        vision: str = "normal",
        smart: int = 0,
        initiative_dice: int = 1,
        karma_policy: str = "never",
        dodge_spend: tuple[tuple[int, ...], ...] | None = None,
        sweeps: bool = False,
        threat: float = 0.0,
    ):
        """Positional (``new_state`` passes ``_state_values``' tuple), all but the first
        from the sheet; ``dodge_spend`` is the Dodge policy's ``_dodge_table`` ("match" if
        None)."""
        self._physical = self._stun = self.penalty = 0
        self.wound_modifiers = wound_modifiers
        self.overflow = self.karma_spent = self.fumbles = self.dodge_spent = 0
        self.karma_rerolled = False
        self.dodge, self.defense, self.karma = dodge_pool, defense_pool, karma
        self.dodge_pool, self.defense_pool = dodge_pool, defense_pool
        self.ballistic, self.impact = ballistic, impact
        self.body, self.reaction = body, reaction
        self.firearms, self.melee_skill = firearms, melee_skill
        self.vision, self.karma_policy = vision, karma_policy
        # [Dodge Pool left][attack successes] -> Dodge dice spent
        self.dodge_spend = dodge_spend or _dodge_table("match")
        self.sweeps = sweeps  # ruling 8's sweeping autofire, as the tactics ask
        self.threat = threat  # ``threat``: how dangerous the sheet's best weapon makes it
        self.vision_tn: int | None = None  # the Visibility Table's TN, looked up at first use
        self.smart, self.initiative_dice = smart, initiative_dice
        # the battle's draw of the pool dice, kept at the first test, and the test counter
        # bound to it (dice.counter)
        self.take: Callable[[int], list[int]] | None = None
        self.count: Callable[[int, int], tuple[int, bool]] | None = None

    @property
    def physical(self) -> int:
        """Physical boxes filled, 0-10."""
        return self._physical

    @physical.setter
    def physical(self, boxes: int) -> None:
        self.set_boxes(boxes, self._stun)

    @property
    def stun(self) -> int:
        """Stun boxes filled, 0-10."""
        return self._stun

    @stun.setter
    def stun(self, boxes: int) -> None:
        self.set_boxes(self._physical, boxes)

    def set_boxes(self, physical: int, stun: int) -> None:
        """Both monitors at once, and the wound penalty with them: ruling 7's wound
        modifier, Stun and Physical added (0 with the option off)."""
        self._physical, self._stun = physical, stun
        if self.wound_modifiers:
            self.penalty = WOUND_MODIFIER[physical] + WOUND_MODIFIER[stun]


@mypyc_attr(allow_interpreted_subclasses=True)
class ClassicShadowrun(
    WoundPenalties,
    Autofire,
    Grenades,
    StartingConditions,
    Explainable[models.Sheet, models.Armor],
    ExtraColumns,
    ExactHooks,
    RuleSystem[models.Options, models.Sheet, models.Armor],
):
    """``sr-classic``: the d6 game with rulings 1-11, 25 and 26."""

    name = "sr-classic"
    damage_unit = "boxes"
    Options = models.Options
    Sheet = models.Sheet
    Weapon = models.Weapon
    Armor = models.Armor
    Tactics = models.Tactics
    tactics_at_top = models.Tactics.AT_TOP
    running_stops_shooting = True  # Weapon Modifiers
    dice_kind: dice.PoolDice = dice.D6

    def __init__(self, options: models.Options):
        super().__init__(options)
        self.kind = self.pool_dice  # the options do not change: looked up once
        self._sheets = SpecCache()  # spec -> _state_values(spec)
        self._full_meters = options.blast_distance == "full_meters"  # ruling 25's rule
        self._burst_stops = options.burst_after_down == "stop"  # ruling 29's rule
        self._last_counter: tuple | None = None  # (take, its dice.counter): the last battle's
        # initiative result -> ``action_scores`` as a tuple: every fighter asks every turn
        self._scores: dict[int, tuple[int, ...]] = {}

    def __reduce__(self) -> tuple[type, tuple]:
        """Pickled (to worker processes) as its options, as 4D8's is: the rest is caches and
        the last battle's dice counter, a closure over that battle's dice (compiled,
        setup.py, the system has no ``__dict__`` to copy)."""
        return type(self), (self.options,)

    def levers(self, sheet: models.Sheet, armors: Mapping[str, models.Armor]) -> list[Lever]:
        """Attributes, skills, initiative dice, Karma, armor grades (``levers.py``)."""
        return sr_levers.levers(sheet, armors)

    def unread(self, spec: Any) -> frozenset[str]:
        """The Karma pool with Instant Karma off (``_state_values`` reads it only when on), and
        Throwing for a member with no thrown grenade (only ``throw_grenade`` and ``threat``
        read it, for the member's own grenades; a launcher fires with Firearms)."""
        return sr_levers.unread(spec, self.options.instant_karma)

    def autofire_sweeps(self, fighter: C) -> bool:
        """Ruling 8, when the fighter's tactics ask for it (``sweep``, kept by the state: the
        tactics ask at every shot they plan)."""
        return fighter.state.sweeps

    def grenade_flight(self, weapon: Any) -> float:
        """Option ``grenade_flight``: initiative points a grenade flies before it bursts."""
        return self.options.grenade_flight

    @property
    def pool_dice(self) -> dice.PoolDice:
        return self.dice_kind

    # --- state ----------------------------------------------------------------------------
    def new_state(self, fighter: C) -> SRState:
        values = self._sheets.get(fighter.spec, self._state_values)
        return SRState(self.options.wound_modifiers, *values)

    def _state_values(self, spec: Any) -> tuple:
        """What a fighter's tests read from its sheet, armor and tactics, in ``SRState``'s
        order: worked out once per combatant of a scenario and kept by ``new_state``, which
        every battle calls (positional: a keyword call costs more)."""
        sheet, armor, skills = spec.sheet, spec.armor, spec.sheet.skills
        tactics = spec.rule_tactics or models.DEFAULT_TACTICS
        return (
            sheet.dodge_pool,
            sheet.defense_pool,
            sheet.karma if self.options.instant_karma else 0,
            armor.ballistic if armor else 0,
            armor.impact if armor else 0,
            sheet.attributes.body,
            sheet.attributes.reaction,
            skills.firearms,
            max(skills.armed_combat, skills.unarmed_combat),
            sheet.vision,
            -2 if sheet.smartlink else -1 if sheet.smart_goggles else 0,
            sheet.initiative_dice,
            tactics.karma,
            _dodge_table(tactics.dodge),
            tactics.sweep,
            self._threat_of(spec),
        )

    def begin_action(self, battle: Battle[C], fighter: C) -> None:
        """Ruling 4 / "Dice Pools": pools refill at the start of each own action."""
        st: SRState = fighter.state
        st.dodge, st.defense = st.dodge_pool, st.defense_pool
        st.karma_rerolled = False  # the attack policy re-rolls at most once per action

    # --- initiative -----------------------------------------------------------------------
    # sr-d8's house rule ``initiative_rule_of_seven``: a top face on the first initiative die
    # rolls again and adds (``ShadowrunD8``); the d6 game has no such rule
    initiative_explodes: bool = False

    def initiative(self, battle: Battle[C], fighter: C) -> tuple[int, ...]:
        """Initiative Results: Reaction + the initiative dice, less wounds (ruling 7).

        The dice are summed as they fall: no Rule of Six on initiative, nor a
        Rule of Seven in sr-d8 (ruling 12) unless its house rule says so. Both roll the pool's
        own dice (d6, or the d8's 0-7), so one draw serves every variant."""
        st: SRState = fighter.state
        take = st.take or self._take(battle, fighter)
        faces = take(st.initiative_dice)
        if self.initiative_explodes:
            extra, top = faces[0], self.kind.top
            while extra == top:
                extra = take(1)[0]
                faces.append(extra)
        penalty = st.penalty
        result = st.reaction + sum(faces) - penalty
        scores = self._scores.get(result)
        if scores is None:
            passes = self.options.initiative_passes
            scores = self._scores[result] = tuple(action_scores(result, passes))
        if battle.tracing:
            wound = f" - {penalty} wounds" if penalty else ""
            battle.trace(
                "initiative",
                f"{fighter.name}: Reaction {st.reaction} + {faces}{wound} = {result}"
                f" -> acts at {', '.join(map(str, scores)) or 'no score (no action)'}",
                actor=fighter,
                result=result,
                scores=list(scores),
            )
        return scores

    def initiative_penalty(self, fighter: C) -> int:
        return fighter.state.penalty

    def initiative_tiebreak(self, fighter: C) -> int:
        """Ruling 1: among equal scores, the higher Reaction acts first."""
        return fighter.state.reaction

    def resist_tn(self, fighter: C, power: int) -> int:
        """A resistance test's TN: the Power, plus the resister's wound modifier (ruling 7
        puts it on every TN, the attacker's and the defender's alike)."""
        return power + fighter.state.penalty

    def tn_penalty(self, fighter: C) -> int:
        """Ruling 7: the wound modifier, Stun and Physical added (0 with the option off),
        kept up to date by the state as boxes fill."""
        return fighter.state.penalty

    # --- status ---------------------------------------------------------------------------
    def can_act(self, fighter: C) -> bool:
        st: SRState = fighter.state
        return st._physical < MONITOR_BOXES and st._stun < MONITOR_BOXES

    def status(self, fighter: C) -> str:
        """Ruling 7: dead past Body in Physical overflow; dying on a full Physical monitor;
        unconscious on a full Stun monitor."""
        st: SRState = fighter.state
        if st.overflow > fighter.spec.sheet.attributes.body:
            return "dead"
        physical, stun = st._physical, st._stun
        if physical >= MONITOR_BOXES:
            return "dying"
        if stun >= MONITOR_BOXES:
            return "unconscious"
        return "wounded" if physical or stun else "unhurt"

    def movement(self, fighter: C) -> tuple[float, float]:
        """Movement: walk Quickness meters; run Quickness x the racial modifier."""
        sheet = fighter.spec.sheet
        q = sheet.attributes.quickness
        return float(q), float(q * RUN_MULTIPLIER[sheet.race])

    def threat(self, fighter: C) -> float:
        """Read from the sheet alone: worked out once per combatant of the scenario and kept
        by the state (``most_dangerous`` asks it of every enemy in reach at every action)."""
        return fighter.state.threat

    def _threat_of(self, spec: Any) -> float:
        """Skill x (Power + 2 per damage level), doubled for autofire: the best of the sheet's
        weapons and of bare hands ((Str)M, by the better of Armed and Unarmed Combat, as a
        melee attack rolls): an unarmed troll is a threat."""
        sheet = spec.sheet
        skills = sheet.skills
        best = max(skills.armed_combat, skills.unarmed_combat) * (
            UNARMED.power_for(sheet.attributes.strength) + 2 * LEVELS.index(UNARMED.level)
        )
        for w in spec.weapons:
            power = w.code.power_for(sheet.attributes.strength)
            skill = self._skill_for(sheet, w)
            best = max(
                best, skill * (power + 2 * LEVELS.index(w.code.level)) * (2 if w.autofire else 1)
            )
        return best

    def harm(self, fighter: C) -> float:
        st: SRState = fighter.state
        physical, stun = st._physical, st._stun  # (``weakest`` asks of every enemy in reach)
        return (physical if physical > stun else stun) / MONITOR_BOXES

    def record(self, fighter: C) -> dict:
        st: SRState = fighter.state
        return {
            "physical_boxes": st._physical,
            "stun_boxes": st._stun,
            "overflow": st.overflow,
            "karma_spent": st.karma_spent,
            "fumbles": st.fumbles,
            "dodge_dice_spent": st.dodge_spent,
            "ballistic_left": st.ballistic,
            "impact_left": st.impact,
        }

    # --- starting conditions (ruling 27) ---------------------------------------------------
    # wounds: Physical boxes, then the boxes past the Physical monitor (overflow); stun: Stun
    # boxes; the spent pool: Instant Karma
    start_keys = ("wounds", "stun", KARMA_SPENT)

    def check_start(self, spec: Any, start: Start) -> list[StartProblem]:
        """Ruling 7's monitors: 10 Physical boxes and Body's past them (one more is dead),
        10 Stun boxes; no more Karma spent than the sheet's pool."""
        body, karma = spec.sheet.attributes.body, spec.sheet.karma
        out = []
        if start.wounds > MONITOR_BOXES + body:
            most = f"at most {MONITOR_BOXES + body}: the {MONITOR_BOXES} Physical boxes and Body"
            out.append(StartProblem("wounds", start.wounds, f"{most} ({body}) past them"))
        if start.stun > MONITOR_BOXES:
            out.append(StartProblem("stun", start.stun, f"at most {MONITOR_BOXES} Stun boxes"))
        if start.spent > karma:
            out.append(StartProblem(KARMA_SPENT, start.spent, f"at most the Karma pool, {karma}"))
        return out

    def down_at(self, spec: Any, start: Start) -> bool:
        """Down with either monitor full (dying, unconscious), or dead."""
        return start.dead or start.wounds >= MONITOR_BOXES or start.stun >= MONITOR_BOXES

    def down_wounds(self, spec: Any) -> int:
        """A full Physical monitor: dying."""
        return MONITOR_BOXES

    def apply_start(self, fighter: Combatant, start: Start) -> None:
        """The monitors filled as ``start`` says (the dead one box past Body in overflow) and
        its Karma already gone; ``karma_spent`` counts it, so ``carried`` hands it on."""
        st: SRState = fighter.state
        physical = start.wounds if start.wounds < MONITOR_BOXES else MONITOR_BOXES
        st.overflow = start.wounds - physical
        if start.dead:
            physical = MONITOR_BOXES
            st.overflow = fighter.spec.sheet.attributes.body + 1
        st.set_boxes(physical, start.stun if start.stun < MONITOR_BOXES else MONITOR_BOXES)
        st.karma = st.karma - start.spent if st.karma > start.spent else 0
        st.karma_spent = start.spent

    def carried(self, fighter: Combatant) -> tuple[int, int, int]:
        st: SRState = fighter.state
        return st._physical + st.overflow, st._stun, st.karma_spent

    def exact_dice(self, fighter: C, choose: Callable[[Any], Any]) -> None:
        """Every success test of the fighter takes its ``(successes, fumble)`` whole, from the
        dice layer's exact joint distribution (``dice.exact_outcomes``): the untraced tests
        all count through the state's ``count`` (``count``, ``ranged_attack``,
        ``resist_ranged``), so the Rule of Six's open-ended faces need no enumerating."""
        kind = self.kind

        def count(n: int, tn: int) -> tuple[int, bool]:
            return choose(_test_options(n, tn, kind))

        fighter.state.count = count

    def exact_key(self, fighter: C) -> tuple:
        """The monitors, the pools and Karma left, the armor left: all a later test reads
        (the rest of the state is the sheet's, or counters for combatants.csv)."""
        st: SRState = fighter.state
        return (
            st._physical,
            st._stun,
            st.overflow,
            st.dodge,
            st.defense,
            st.karma,
            st.karma_rerolled,
            st.ballistic,
            st.impact,
        )

    def condition(self, fighter: C) -> str:
        st: SRState = fighter.state
        dead = f", {st.overflow} past the monitor" if st.overflow else ""
        return f"{self.status(fighter)}: {st.physical} Physical, {st.stun} Stun{dead}"

    def max_autofire(self, fighter: Combatant, weapon: Any) -> int:
        """Ruling 8: up to the lower of Firearms + 1 and 7."""
        if not weapon.autofire:
            return 1
        return min(fighter.spec.sheet.skills.firearms + 1, 7)

    def blast_radius(self, weapon: Any) -> float:
        """The distance from the burst at which the blast's Power reaches 0 (nobody at or
        beyond it is hurt)."""
        reach = weapon.code.power / weapon.blast_falloff
        return math.ceil(reach) if self.options.blast_distance == "full_meters" else reach

    def in_blast(self, weapon: Any, distance: float) -> bool:
        """Hurt by the blast: a Power above 0 left at ``distance`` (``blast_power``), so the
        tactics count exactly whom ``grenade_blast`` reaches; at the edge, nobody.

        ``blast_power`` inline (the tactics ask this of every friend and enemy near every enemy
        they could aim at): its ``ceil(x) > 0`` is ``x > 0``."""
        fallen = weapon.blast_falloff * (math.floor(distance) if self._full_meters else distance)
        return weapon.code.power - fallen > 0

    # --- tests ----------------------------------------------------------------------------
    def test(
        self,
        battle: Battle[C],
        fighter: C | None,
        n: int,
        tn: int,
        what: str,
        karma: str | None = None,
    ) -> dice.PoolResult:
        """Roll a success test; Instant Karma (ruling 11) as the fighter's tactics allow."""
        if battle.tracing:
            return self._traced_test(battle, fighter, n, tn, what, karma)
        return dice.PoolResult(*self.count(battle, fighter, n, tn, what, karma))

    def count(
        self,
        battle: Battle[C],
        fighter: C | None,
        n: int,
        tn: int,
        what: str,
        karma: str | None = None,
    ) -> tuple[int, bool]:
        """``test`` as ``(successes, fumble)``: what the hot paths need.

        Untraced, the dice are counted without building chains (``dice.roll_count``, which
        draws exactly the faces the traced ``dice.roll`` draws), so a batch and the traced
        replay of a battle roll the same.
        """
        if battle.tracing:
            r = self._traced_test(battle, fighter, n, tn, what, karma)
            return r.successes, r.fumble
        st = fighter.state if fighter is not None else None
        roll = st.count if st is not None else None
        if roll is None:
            roll = self._counter(battle, fighter)
        successes, fumble = roll(n, tn)
        if st is not None and _spends_karma_on(st, karma, successes, fumble):
            kept = successes  # the dice that succeeded stay (none: this test had no success)
            again, again_fumble = roll(n - kept, tn)
            # ruling 26 (``dice.after_karma_reroll``, as the exact odds count it)
            successes, fumble = dice.after_karma_reroll(
                kept, again, again_fumble, self.options.karma_reroll_fumbles
            )
        if fumble and st is not None:
            st.fumbles += 1  # ruling 2: every fumble is recorded
        return successes, fumble

    def _counter(
        self, battle: Battle[C], fighter: C | None
    ) -> Callable[[int, int], tuple[int, bool]]:
        """The untraced test ``count(n, tn)`` on the battle's pool dice (``dice.counter``),
        made at the fighter's first test and kept by its state."""
        take = self._take(battle, fighter)
        last = self._last_counter  # every fighter of a battle draws from the same dice
        if last is not None and last[0] is take:
            roll = last[1]
        else:
            roll = dice.counter(take, self.kind)
            self._last_counter = (take, roll)
        if fighter is not None:
            fighter.state.count = roll
        return roll

    def _take(self, battle: Battle[C], fighter: C | None) -> Callable[[int], list[int]]:
        """The battle's draw of d6 (sr-classic) or d8 faces, kept by the fighter's state."""
        st = fighter.state if fighter is not None else None
        take = st.take if st is not None else None
        if take is None:
            take = battle.roll.taker(self.kind.low, self.kind.top)
            if st is not None:
                st.take = take
        return take

    def _traced_test(
        self,
        battle: Battle[C],
        fighter: C | None,
        n: int,
        tn: int,
        what: str,
        karma: str | None,
    ) -> dice.PoolResult:
        """``test`` with every die's chain of faces in the trace (the same draws)."""
        kind = self.pool_dice
        result, chains = dice.roll(battle.roll.chain_draw(kind), n, tn, kind)
        if fighter is not None and _spends_karma_on(
            fighter.state, karma, result.successes, result.fumble
        ):
            target = kind.effective_tn(tn)
            kept = [
                c for c in chains if target is not None and c[0] != kind.low and sum(c) >= target
            ]
            before = result
            again, rerolled = dice.roll(battle.roll.chain_draw(kind), n - len(kept), tn, kind)
            # Ruling 26: every die of the test on 1 after the re-roll is a fumble again;
            # off: a re-roll never fumbles (``dice.after_karma_reroll``, as ``count``)
            successes, fumble = dice.after_karma_reroll(
                len(kept), again.successes, again.fumble, self.options.karma_reroll_fumbles
            )
            totals = tuple(sum(c) for c in kept + rerolled)
            result = dice.PoolResult(successes, fumble, totals)
            battle.trace(
                "karma",
                f"{fighter.name} spends 1 Karma to re-roll failed dice "
                f"({before.successes} successes{', a fumble' if before.fumble else ''} "
                f"-> {result.successes}{', a fumble' if result.fumble else ''})",
                actor=fighter,
            )
            chains = kept + rerolled
        if result.fumble and fighter is not None:
            fighter.state.fumbles += 1  # ruling 2: every fumble is recorded
        target = kind.effective_tn(tn)
        rolled_as = "" if target == tn else f" (rolled as {target or 'impossible'})"
        battle.trace(
            "roll",
            f"{what}: {n} dice vs TN {tn}{rolled_as}: {_faces(chains)} -> {result.successes} "
            f"success{'es' if result.successes != 1 else ''}"
            + (" (FUMBLE)" if result.fumble else ""),
            actor=fighter,
            dice=[list(c) for c in chains],
            tn=tn,
            successes=result.successes,
            fumble=result.fumble,
        )
        return result

    def _note_fumble(self, battle: Battle[C], fighter: C, result: dice.PoolResult) -> None:
        """Ruling 2: a fumble is recorded; in combat it costs the attacker its next action."""
        self._fumbled(battle, fighter, result.fumble)

    def _fumbled(self, battle: Battle[C], fighter: C, fumble: bool) -> None:
        if fumble and self.options.fumble_effect == "lose_action":
            fighter.lose_next_action = True
            if battle.tracing:
                battle.trace(
                    "fumble", f"{fighter.name} fumbles and loses the next action", actor=fighter
                )

    # --- ranged combat -------------------------------------------------------------------
    def ranged_attack(
        self,
        battle: Battle[C],
        attacker: C,
        target: C,
        weapon: Any,
        shots: int,
        sweep: Sequence[tuple[C, int]] = (),
    ) -> None:
        """Ruling 5 and 8: each shot an attack test; each hit resisted separately.

        ``sweep``: further ``(target, shots)`` pairs an autofire burst walks across (the shots
        wasted between targets, 1 per meter, already left out); all shots take the whole
        burst's recoil. The TN (Fire Combat steps 1-2; ruling 5) is worked out once per target:
        range band, the Weapon Modifiers and Visibility tables, the wound modifier (ruling 7);
        the trace names each (``_trace_aim``)."""
        groups = (
            ((target, shots - sum(n for _, n in sweep) - _wasted(battle, target, sweep)), *sweep)
            if sweep
            else ((target, shots),)
        )
        gun = weapon.firing
        power = gun.power + 1 if shots > 1 else gun.power  # ruling 8: autofire adds 1 to Power
        st: SRState = attacker.state
        env = battle.environment
        # What the attacker brings to every target's TN. Ruling 8: recoil +1 per shot, less
        # recoil compensation and gyro, never below 0. Moving: +1, +2 on difficult ground.
        recoil = max(shots - gun.recoil_reduction, 0) if shots > 1 else 0
        moving = (2 if env.ground == "difficult" else 1) if attacker.moved_this_action > 0 else 0
        vis = st.vision_tn
        if vis is None:
            vis = self._vision_tn(battle, attacker)
        smart = st.smart if gun.smartgun else 0
        own = recoil + moving + vis + smart + st.penalty
        firearms = st.firearms
        tracing = battle.tracing
        # Untraced, no Karma to re-roll with: the attack tests count straight from the dice
        roll = None
        if not tracing and not (st.karma >= 1 and st.karma_policy in ("attack", "both")):
            roll = st.count or self._counter(battle, attacker)
        # shots so far; exact answers' meeting point; ruling 29: a burst stops at a downed target
        fired, meet, stops = 0, battle.roll.checkpoint, self._burst_stops
        for group, (victim, count) in enumerate(groups):
            s = battle.situation(attacker, victim)
            distance = s.distance
            # (the firing's four tops serve as ``band_of``'s: no shot goes past extreme)
            band = -1 if distance <= env.melee_range else band_of(gun.ranges, distance)
            # the target's cover; the target running +1, standing still -1; melee around
            motion = 1 if victim.running else -1 if victim.moved_this_turn == 0 else 0
            tn = (MELEE_TN if band < 0 else RANGE_TN[band]) + own
            tn += COVER_TN[victim.cover] + motion + s.engaged
            if tracing:
                values = (recoil, COVER_TN[victim.cover], motion, s.engaged, moving, vis, smart)
                _trace_aim(battle, attacker, victim, weapon, s, band, tn, (shots, count), values)
            # each shot an attack test (ruling 5), until the victim is out of the fight (29)
            for shot in range(count):
                if shot and stops and not victim.can_act:
                    break
                if meet is not None:  # the shots to come read this and the fighters' state
                    meet((group, victim.index, shot, fired, tn, power))
                fired += 1
                if roll is None:
                    successes, fumble = self.count(
                        battle, attacker, firearms, tn, "Firearms", "attack"
                    )
                else:
                    successes, fumble = roll(firearms, tn)
                    if fumble:
                        st.fumbles += 1  # ruling 2: every fumble is recorded
                if fumble:
                    self._fumbled(battle, attacker, fumble)
                if successes:
                    self.resist_ranged(battle, attacker, victim, gun, power, successes)
        attacker.shots += fired
        if sweep and battle.tracing:
            battle.trace(
                "attack",
                f"{_wasted(battle, target, sweep)} shots wasted sweeping between targets",
                actor=attacker,
            )

    def resist_ranged(
        self,
        battle: Battle[C],
        attacker: C,
        target: C,
        gun: models.Firing,
        power: int,
        attack_successes: int,
    ) -> None:
        """Ruling 5: Body + chosen Dodge Pool dice vs Power; armor adds automatic successes.

        Dodge successes alone above the attack's are a clean miss; otherwise all the defender's
        successes stage the wound down (ruling 6). ``gun`` is the weapon's ``firing``.
        """
        st: SRState = target.state
        tracing = battle.tracing
        # untraced, the Dodge and Body tests (no Karma) count straight from the fighter's dice
        roll = None if tracing else st.count or self._counter(battle, target)
        tn = power + st.penalty
        spend = st.dodge_spend[st.dodge][attack_successes] if target.can_act else 0
        dodge_successes = 0
        if spend:
            st.dodge -= spend
            st.dodge_spent += spend
            if roll is None:
                dodge_successes = self.count(battle, target, spend, tn, "Dodge Pool")[0]
            else:
                dodge_successes, fumble = roll(spend, tn)
                if fumble:
                    st.fumbles += 1  # ruling 2: every fumble is recorded
            # ``dice.dodges`` inline (once per hit), the rule the exact odds decide by
            if dodge_successes > attack_successes:
                if tracing:
                    battle.trace(
                        "miss",
                        f"clean miss: {dodge_successes} Dodge successes beat {attack_successes}",
                        actor=target,
                    )
                return
        attacker.hits += 1
        if roll is None:
            body = self.count(battle, target, st.body, tn, "Body")[0]
        else:
            body, fumble = roll(st.body, tn)
            if fumble:
                st.fumbles += 1
        armor = st.ballistic if gun.ballistic else st.impact
        if roll is not None and not (st.karma and st.karma_policy in ("survive", "both")):
            # ``apply_attack`` inline (once per hit, untraced, no Karma to buy successes with):
            # ruling 6, up a level per full Staging Number of the successes beyond the first,
            # down per full Staging Number of the defender's; each level above D strips a point
            # of the armor the attack meets
            staging = gun.staging
            index = gun.rank + (attack_successes - 1) // staging
            index -= (body + dodge_successes + armor) // staging
            if index > 3:
                if gun.ballistic:
                    st.ballistic = max(0, armor - index + 3)
                else:
                    st.impact = max(0, armor - index + 3)
                index = 3
            if index < 0:
                return
            self.wound(battle, attacker, target, LEVELS[index], gun.stun)
            return
        self.apply_attack(
            battle,
            attacker,
            target,
            gun.level,
            gun.staging,
            attack_successes,
            body + dodge_successes + armor,
            gun.armor_kind,
            f"{gun.armor_kind} armor {armor}" if tracing else "",
            gun.stun,
        )

    def apply_attack(
        self,
        battle: Battle[C],
        attacker: C | None,
        target: C,
        level: str,
        staging: int,
        attack_successes: int,
        defense_successes: int,
        armor_kind: str,
        armor_note: str,
        stun: bool = False,
        stage_up: bool = True,
        beyond_first: bool = True,
    ) -> None:
        """Ruling 6: stage the wound ``level`` up per full ``staging`` (Staging Number) of
        successes beyond the first (all of them with ``beyond_first`` off), down per full
        Staging Number of the defender's successes; levels above D strip armor."""
        counted = attack_successes - 1 if beyond_first and attack_successes else attack_successes
        up = counted // staging if stage_up else 0
        down, bought = defense_successes // staging, 0
        st: SRState = target.state
        if st.karma and st.karma_policy in ("survive", "both"):
            down, bought = self._karma_survive(
                battle, target, level, staging, up, down, defense_successes, stun
            )
        index = LEVEL_INDEX[level] + up - down  # ``stage``, inline: once per hit
        over = index - 3 if index > 3 else 0
        final = None if index < 0 else LEVELS[index - over]
        if battle.tracing:
            karma = f" + {bought} bought with Karma" if bought else ""
            battle.trace(
                "stage",
                f"{level} staged up {up}, down {down} "
                f"({defense_successes} defence successes incl. {armor_note}{karma}; "
                f"staging {staging})"
                f" -> {final or 'no damage'}",
                actor=target,
                level=final,
            )
        if over:
            left = max(0, getattr(st, armor_kind) - over)
            setattr(st, armor_kind, left)
            if battle.tracing:
                battle.trace(
                    "armor",
                    f"staged {over} past D: {target.name}'s {armor_kind} armor drops to {left}",
                    actor=target,
                )
        if final is not None:
            self.wound(battle, attacker, target, final, stun)

    def _karma_survive(
        self,
        battle: Battle[C],
        target: C,
        level: str,
        staging: int,
        up: int,
        down: int,
        defense_successes: int,
        stun: bool,
    ) -> tuple[int, int]:
        """Ruling 11: 2 Karma buy one success; spent when the wound would take the fighter out,
        and only when the Karma left buys enough successes to keep it in the fight (nothing is
        spent on a wound that drops the fighter anyway)."""
        st: SRState = target.state
        bought, staged_down = 0, down
        while True:
            final, _ = stage(level, up, staged_down)
            if final is None or not self._would_drop(target, final, stun):
                break
            bought += (staged_down + 1) * staging - (defense_successes + bought)
            staged_down += 1
        if not bought or st.karma < 2 * bought:
            return down, 0
        st.karma -= 2 * bought
        st.karma_spent += 2 * bought
        down = staged_down
        if battle.tracing:
            battle.trace(
                "karma",
                f"{target.name} spends {2 * bought} Karma for {bought} success(es)",
                actor=target,
            )
        return down, bought

    def _would_drop(self, target: C, level: str, stun: bool) -> bool:
        st: SRState = target.state
        boxes = BOXES[level]
        if stun:
            return st.stun + boxes >= MONITOR_BOXES
        return st.physical + boxes >= MONITOR_BOXES

    def wound(
        self, battle: Battle[C], attacker: C | None, target: C, level: str, stun: bool
    ) -> None:
        """Ruling 7: fill boxes; Stun overflow goes to Physical; Physical overflow to death."""
        st: SRState = target.state
        boxes = BOXES[level]
        physical, stun_boxes, overflow = st._physical, st._stun, st.overflow
        before = physical + stun_boxes + overflow
        if stun:
            total = stun_boxes + boxes
            stun_boxes = total if total < MONITOR_BOXES else MONITOR_BOXES
            boxes = total - stun_boxes  # the overflow, now Physical
        if boxes:
            total = physical + boxes
            physical = total if total < MONITOR_BOXES else MONITOR_BOXES
            overflow += total - physical
        st._physical, st._stun, st.overflow = physical, stun_boxes, overflow
        if st.wound_modifiers:  # ``set_boxes``, inline: once per wound
            st.penalty = WOUND_MODIFIER[physical] + WOUND_MODIFIER[stun_boxes]
        dealt = physical + stun_boxes + overflow - before
        what = f"{level} wound ({'Stun' if stun else 'Physical'})" if battle.tracing else ""
        battle.damage_dealt(attacker, target, dealt, what)

    # --- melee ------------------------------------------------------------------------------
    def melee_attack(
        self,
        battle: Battle[C],
        attacker: C,
        target: C,
        weapon: Any,
        interception: bool = False,
    ) -> None:
        """Ruling 9 / seed Melee Combat: an opposed test at TN 4; more successes deals damage.

        Both roll the better of Armed/Unarmed Combat plus the Defense Pool. The winner's net
        successes stage the damage up (those beyond the first, as ruling 6 counts an attack's,
        or all of them: option ``melee_staging``); the loser resists with Body and impact
        armor. Interception: the interceptor attacks at TN 5 (6 if it has moved this
        turn) and only it can deal damage.
        """
        a_tn = (
            (INTERCEPT_TN_MOVED if attacker.moved_this_turn else INTERCEPT_TN)
            if interception
            else MELEE_TN
        )
        ast, tst = attacker.state, target.state
        a_vis, d_vis = ast.vision_tn, tst.vision_tn
        if a_vis is None:
            a_vis = self._vision_tn(battle, attacker)
        if d_vis is None:
            d_vis = self._vision_tn(battle, target)
        a_tn += ast.penalty + a_vis
        d_tn = MELEE_TN + tst.penalty + d_vis
        tracing = battle.tracing
        if tracing:
            verb = "intercepts" if interception else "attacks"
            battle.trace(
                "attack",
                f"{attacker.name} {verb} {target.name} in melee with "
                f"{weapon_name(attacker, weapon)}",
                actor=attacker,
                target=target.name,
                weapon=weapon_name(attacker, weapon),
                melee=True,
            )
        attacker.shots += 1
        a, a_fumble = self._melee_roll(battle, attacker, a_tn, intercepting=interception)
        d = self._melee_roll(battle, target, d_tn)[0] if target.can_act else 0
        if a_fumble:
            self._fumbled(battle, attacker, a_fumble)
        if a == d or (interception and d > a):
            if tracing:
                battle.trace("miss", f"no damage ({a} against {d})", actor=attacker)
            return
        winner, loser = (attacker, target) if a > d else (target, attacker)
        net = a - d if a > d else d - a
        w_weapon = weapon if winner is attacker else winner.melee  # its first melee weapon
        code = w_weapon.code if w_weapon is not None else UNARMED
        stun = w_weapon.stun if w_weapon is not None else True  # ruling 9: unarmed is Stun
        power = code.power_for(winner.spec.sheet.attributes.strength)
        winner.hits += 1
        lst = loser.state
        body = self.count(battle, loser, lst.body, power + lst.penalty, "Body")[0]
        self.apply_attack(
            battle,
            winner,
            loser,
            code.level,
            code.staging,
            net,
            body + lst.impact,
            "impact",
            f"impact armor {lst.impact}" if tracing else "",
            stun,
            True,
            self.options.melee_staging == "beyond_first",
        )

    def _melee_roll(
        self, battle: Battle[C], fighter: C, tn: int, intercepting: bool = False
    ) -> tuple[int, bool]:
        """Ruling 9: the better of Armed/Unarmed Combat plus the Defense Pool, as
        ``(successes, fumble)``. An interceptor uses Armed Combat with a weapon ready, else
        Unarmed (Interception)."""
        st: SRState = fighter.state
        if intercepting:
            skills = fighter.spec.sheet.skills
            armed = fighter.melee is not None  # a melee weapon on the sheet
            skill = skills.armed_combat if armed else skills.unarmed_combat
        else:
            skill = st.melee_skill
        pool, st.defense = st.defense, 0
        if battle.tracing or (st.karma >= 1 and st.karma_policy in ("attack", "both")):
            what = f"melee ({skill} skill + {pool} Defense Pool)" if battle.tracing else ""
            return self.count(battle, fighter, skill + pool, tn, what, karma="attack")
        # untraced, no Karma to re-roll with: counted straight from the dice, as a shot is
        successes, fumble = (st.count or self._counter(battle, fighter))(skill + pool, tn)
        if fumble:
            st.fumbles += 1  # ruling 2: every fumble is recorded
        return successes, fumble

    def _vision_tn(self, battle: Battle[C], fighter: C) -> int:
        """``_visibility``, kept by the fighter's state at its first use (the light and smoke
        do not change during a battle)."""
        vis = fighter.state.vision_tn = self._visibility(battle, fighter)
        return vis

    def _visibility(self, battle: Battle[C], fighter: C) -> int:
        """The Visibility Table: the TN the battle's light and smoke add for this
        fighter's vision."""
        return VISIBILITY_TN[battle.environment.visibility][VISION_INDEX[fighter.state.vision]]

    # --- grenades ---------------------------------------------------------------------------
    def throw_grenade(
        self, battle: Battle[C], thrower: C, weapon: Any, aim: tuple[float, float]
    ) -> Scatter:
        """Ruling 10: deviation 2D6/3D6/4D6 m in a uniform direction (drawn whatever the
        deviation), less 3 or 5 m per success after the first, never below 0."""
        sheet = thrower.spec.sheet
        s = battle.situation(thrower, None, aim)
        tn = RANGE_TN[range_band(s.distance, weapon.ranges, 3)] + self.tn_penalty(thrower)
        tn += VISIBILITY_TN[battle.environment.visibility][VISION_INDEX[sheet.vision]]
        if thrower.moved_this_action > 0:
            tn += 2 if battle.environment.ground == "difficult" else 1
        skill = sheet.skills.firearms if weapon.launcher else sheet.skills.throwing
        thrower.shots += 1
        result = self.test(battle, thrower, skill, tn, "launch" if weapon.launcher else "throw")
        self._note_fumble(battle, thrower, result)
        kind = "launcher" if weapon.launcher else "aerodynamic" if weapon.aerodynamic else "plain"
        rolled = sum(battle.roll.faces(dice.D6, DEVIATION_DICE[kind]))
        deviation = max(0, rolled - DEVIATION_PER_SUCCESS[kind] * max(0, result.successes - 1))
        text = ""
        if battle.tracing:
            text = (
                f"{thrower.name} throws {weapon_name(thrower, weapon)} at "
                f"({aim[0]:.1f}, {aim[1]:.1f}), TN {tn}: deviates {rolled} - "
                f"{DEVIATION_PER_SUCCESS[kind]} x {max(0, result.successes - 1)} = {deviation} m, "
                "lands at "
            )
        return Scatter(deviation, True, text)

    def grenade_blast(
        self, battle: Battle[C], thrower: C, weapon: Any, victim: C, distance: float
    ) -> None:
        """Ruling 10: Power falls by the grenade's per-meter amount (per full meter, ruling 25,
        over the engine's ``blast_distance``); everyone inside resists with Body and impact
        armor (no attacker staging)."""
        if victim.spec.sheet is None or self.status(victim) == "dead":
            return
        code = weapon.code
        power = blast_power(code.power, weapon.blast_falloff, distance, self.options.blast_distance)
        if power <= 0:
            return
        if battle.tracing:
            battle.trace(
                "blast",
                f"{victim.name} is {distance:.1f} m from the blast: Power {power}",
                actor=victim,
            )
        body = self.count(
            battle, victim, victim.spec.sheet.attributes.body, self.resist_tn(victim, power), "Body"
        )[0]
        self.apply_attack(
            battle,
            thrower,
            victim,
            code.level,
            code.staging,
            0,
            body + victim.state.impact,
            "impact",
            f"impact armor {victim.state.impact}",
            weapon.stun,
            False,
        )

    @staticmethod
    def _skill_for(sheet: models.Sheet, weapon: Any) -> int:
        if weapon.kind == "melee":
            return max(sheet.skills.armed_combat, sheet.skills.unarmed_combat)
        if weapon.kind == "grenade":
            return sheet.skills.firearms if weapon.launcher else sheet.skills.throwing
        return sheet.skills.firearms


@mypyc_attr(allow_interpreted_subclasses=True)
class ShadowrunD8(ClassicShadowrun):
    """``sr-d8``: the D8 variant's eight-sided dice (ruling 12), with its house rules as options."""

    name = "sr-d8"
    Options = models.D8Options
    options: models.D8Options  # built from ``Options``: the house rules' fields too

    @property
    def pool_dice(self) -> dice.PoolDice:
        return dice.D8_CAPPED if self.options.tn_cap else dice.D8

    def __init__(self, options: models.D8Options):
        super().__init__(options)
        self.initiative_explodes = options.initiative_rule_of_seven


def _spends_karma_on(st: SRState, karma: str | None, successes: int, fumble: bool) -> bool:
    """Instant Karma on an attack's test (ruling 11): 1 point re-rolls every failed die, once
    an action, when the test failed outright and the fighter's policy spends on attacks. Spends
    the point when it says yes; both the counted and the traced test ask here."""
    if (
        karma != "attack"
        or st.karma < 1
        or not dice.karma_rerolls(successes, fumble)
        or st.karma_policy not in ("attack", "both")
        or st.karma_rerolled
    ):
        return False
    st.karma_rerolled = True
    st.karma -= 1
    st.karma_spent += 1
    return True


@functools.cache
def _test_options(n: int, tn: int, kind: dice.PoolDice) -> tuple[tuple[Any, Any], ...]:
    """A test's exact ``(successes, fumble)`` outcomes as ``choose`` options (``exact_dice``)."""
    from ...dice.paths import options_of

    return options_of(dice.exact_outcomes(max(n, 0), tn, kind))


def dodge_dice(policy: str, pool: int, attack_successes: int) -> int:
    """How many Dodge Pool dice a defender spends on one attack (tactics ``dodge``)."""
    if policy == "none":
        return 0
    if policy == "all":
        return pool
    if policy == "half":
        return (pool + 1) // 2
    return min(pool, 2 * attack_successes + 1)  # "match"


# The Dodge Pool is Quickness at most; an attack has no more successes than Firearms dice.
_MOST_QUICKNESS = field_bounds(models.Attributes, "quickness")[1]
_MOST_FIREARMS = field_bounds(models.Skills, "firearms")[1]
assert _MOST_QUICKNESS is not None and _MOST_FIREARMS is not None  # both fields are bounded
DODGE_TABLE_SIZE = 1 + int(max(_MOST_QUICKNESS, _MOST_FIREARMS))


@functools.cache
def _dodge_table(policy: str) -> tuple[tuple[int, ...], ...]:
    """``dodge_dice`` of a policy for every Dodge Pool and attack successes a sheet allows,
    kept by the fighter's state and read by index once per hit."""
    sizes = range(DODGE_TABLE_SIZE)
    return tuple(tuple(dodge_dice(policy, pool, hits) for hits in sizes) for pool in sizes)


def _wasted(battle: Battle[C], first: C, sweep: Sequence[tuple[C, int]]) -> int:
    """Ruling 8: one shot wasted per meter (begun) between consecutive targets of a sweep."""
    wasted, last = 0, first
    for victim, _ in sweep:
        wasted += math.ceil(battle.distance(last, victim))
        last = victim
    return wasted


def _trace_aim(
    battle: Battle[C],
    attacker: C,
    target: C,
    weapon: Any,
    s: Situation,
    band: int,
    tn: int,
    rounds: tuple[int, int],
    values: tuple[int, ...],
) -> None:
    """The trace's account of a ranged TN (``ranged_attack``): the range band's TN, then one
    note per modifier that is not 0. ``rounds``: the burst's and this target's share;
    ``values``: recoil, cover, the target's motion, enemies in melee reach, the attacker
    moving, visibility, smartgun (wounds are the attacker's own)."""
    shots, count = rounds
    if band < 0:
        notes = [f"hand-to-hand range {s.distance:.1f} m: {MELEE_TN}"]
    else:
        name = ("short", "medium", "long", "extreme")[band]
        notes = [f"{name} range {s.distance:.1f} m: {RANGE_TN[band]}"]
    st, cover, motion, smart = attacker.state, target.cover, values[2], values[6]
    labels = (
        f"recoil ({shots} shots)",
        "blind fire" if cover == "hidden" else f"{cover} cover",
        "target running" if motion > 0 else "target standing still",
        "attacker in melee",
        "attacker moving",
        f"visibility ({battle.environment.visibility}, {st.vision} vision)",
        "smartgun" if smart == -2 else "smart goggles",
        "wounds",
    )
    notes += signed(labelled((*values, st.penalty), labels))
    mode = f"autofire, {count} of {shots} shots" if shots > 1 else "single shot"
    battle.trace(
        "attack",
        f"{attacker.name} fires {weapon_name(attacker, weapon)} at {target.name} "
        f"({mode}); TN {tn} = " + ", ".join(notes),
        actor=attacker,
        tn=tn,
        shots=count,
        target=target.name,
        weapon=weapon_name(attacker, weapon),
    )


def _faces(chains: Sequence[Sequence[int]]) -> str:
    return "[" + ", ".join("+".join(map(str, c)) for c in chains) + "]"
