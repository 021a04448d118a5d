"""Shadowrun: 2097 (docs/rules-sr2097.md) as a rule system: ``sr2097``.

The rules come from the dice layer (``combatsim.dice.sr2097``): the success check with
Advantage, Disadvantage, doubles and Edge (rulings 13-14), the MoS damage dice, Nd6 + ST
damage with burst and Edge dice, PT/DR armor (ruling 15). A few one-line cases are restated
on the hot path, each marked where it stands and pinned by scripted tests that also ask the
dice layer: a 2d10 or 3d10 check without a double, the MoS damage dice and the armor. This
module adds what ruling 16 leaves to the scenario, each a ``rules.options`` setting:

* **Attack TN**: the range band's TN (short 15, medium 20, long 25, extreme 30; melee 15)
  + the defender's Dodge (Dodge ranks less the armor's penalty, and in melee the better of that
  and Melee ranks) while the defender can act + condition modifiers. Conditions give TN
  modifiers, Advantage or Disadvantage: cover, visibility (which a vision or night-vision
  goggles *remove*, "Removing Advantage/Disadvantage"), a moving attacker, a running
  target, a gun fired in melee, smartgun with smartlink, a scope at long range, a critical
  injury.
* **Skill bonus** (seed step 4): skill ranks + the two governing attributes
  (``skill_attributes``: Firearms = Agility + Perception, Heavy Weapons = Strength +
  Perception, Melee = Agility + Strength).
* **Initiative**: Reflexes + initiative dice d6 (+2d6 for the turn with Edge, "Edge" 2);
  actions at the result and every ``action_step`` (10) lower while above 0, at most
  ``max_actions``.
* **Health and injury**: ``health`` hit points (default 10 + 5 x Body). Damage after armor
  adds up; the injury step is set by the total: grazed above 0, moderate from 25% of health,
  serious 50%, critical 75%, down (out of the fight: dying, or unconscious when Stun did it)
  100%, dead when physical damage reaches 150%. Stun never kills.
* **Edge** ("Edge"; spent by the fighter's ``tactics.rules``): Advantage or removing
  Disadvantage on an attack check; +2d6 initiative for a turn; +2d6 damage; lessen an injury
  one step (the hit is cut to the top of the step below the one it would reach); Edge Burn
  (current and maximum Edge each lose 1) turns a killing blow into down. A killing blow is
  not an injury step: only Edge Burn prevents death ("Edge Burn").
* **Burst**: a burst weapon fires ``burst_rounds`` rounds as one attack with +1d6 (seed
  "Variable damage rolls", the guard's SMG).
* **Armor** heavier than light lowers Dodge and speed ("Damage mitigation"); a hit
  stopped by PT may degrade it (``armor_degradation_pt``/``_dr``, off by default).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from functools import lru_cache
from typing import TYPE_CHECKING, Any

from mypy_extensions import mypyc_attr

from ...dice import sr2097 as dice
from ..base import (
    Autofire,
    ExactHooks,
    Explainable,
    ExtraColumns,
    RuleSystem,
    SpecCache,
    StartingConditions,
)
from ..situation import band_of, labelled, signed
from ..start import EDGE_SPENT, StartProblem
from . import levers as sr2097_levers
from . import models
from .models import CRITICAL, DOWN, FISTS, GRAZED, INJURY_NAMES, MODERATE, SERIOUS, UNHURT

if TYPE_CHECKING:
    from collections.abc import Callable, Mapping, Sequence

    from ..base import Battle, C, Combatant
    from ..levers import Lever
    from ..start import Start

BANDS = ("short", "medium", "long", "extreme")
EDGE_USES = ("attack", "damage", "initiative", "lessen")


@lru_cache(maxsize=4096)
def hit_chance(margin: int, mode: str, edge: bool = False) -> float:
    """P(success) of a check with bonus - TN = ``margin`` (exact, from the dice layer)."""
    return float(dice.success_chance(margin, 0, mode, edge))


@lru_cache(maxsize=4096)
def edge_odds(margin: int, mode: str, bought: str) -> tuple[float, float]:
    """``hit_chance`` of a check as it stands and with Edge buying ``bought``: what the
    ``low_odds`` Edge policy weighs (one cached call per check that could spend Edge)."""
    return hit_chance(margin, mode), hit_chance(margin, bought, True)


def injury_thresholds(health: int, levels: tuple[float, ...]) -> tuple[int, ...]:
    """Damage totals at which moderate, serious, critical and down begin (ruling 16)."""
    return tuple(max(1, math.ceil(share * health - 1e-9)) for share in levels)


def injury_step(total: int, thresholds: tuple[int, ...]) -> int:
    """The injury step of a damage total: 0 unhurt, 1 grazed, ... 5 down."""
    if total <= 0:
        return UNHURT
    step = GRAZED
    for t in thresholds:
        if total >= t:
            step += 1
    return step


def step_floor(step: int, thresholds: tuple[int, ...]) -> int:
    """The least damage total at injury ``step`` (grazed: 1)."""
    return 1 if step == GRAZED else thresholds[step - 2]


def injury_name(st: State) -> str:
    """The injury step's name, or "dead" (the record's ``injury``)."""
    return "dead" if st.physical >= st.dead_at else INJURY_NAMES[st.step]


def _chooser(choose: Callable[[Any], Any], exact: Callable[[int], Any]) -> Callable[[int], Any]:
    """A taker of ``k`` faces that chooses among ``exact(k)``'s options (``exact_dice``)."""
    return lambda k: choose(_exact_options(exact, k))


@lru_cache(maxsize=64)
def _exact_options(exact: Callable[[int], Any], k: int) -> tuple:
    from ...dice.paths import options_of

    return options_of(exact(k))


def action_scores(result: int, step: int, most: int) -> list[int]:
    """Initiative scores acted at: the result, then every ``step`` lower while above 0."""
    return list(range(result, 0, -step)[:most])


Condition = tuple[str, int, bool, bool]  # name, TN modifier, Advantage, Disadvantage


def condition(why: str, effect: models.Effect) -> Condition:
    """A condition's effect on an attack check, as the checks read it."""
    return why, effect.tn, effect.advantage, effect.disadvantage


@dataclass(slots=True)
class PendingDisadvantage:
    """Disadvantage a failed check left for a later one ("Magnitude of Success/Failure",
    ruling 23): ``scope`` is ``dice.RELATED`` (the next check of the same ``kind``) or
    ``dice.ANY`` (the next check of any kind). Never changed once made (``pending_after``
    shares one per kind and MoS); not a frozen dataclass only because frozen ones build
    slower."""

    scope: str
    kind: str
    tier: str
    mos: int

    def __str__(self) -> str:
        return f"{self.tier} on the last {self.kind} check (MoS {self.mos:+d})"


@dataclass(frozen=True, slots=True)
class Profile:
    """What a combatant's checks read from its sheet, armor and Edge policy, derived once per
    scenario (``Shadowrun2097.profile``): the spec is immutable, and walking
    ``spec.sheet.attributes...`` on every roll was a good part of a battle's cost."""

    health: int
    thresholds: tuple[int, ...]  # damage totals where moderate, serious, critical, down begin
    dead_at: int  # physical damage that kills
    injured_from: float  # damage total from which checks have Disadvantage (inf: never)
    edge: int  # Edge at the start of a battle (0 with the option off)
    pt: int
    dr: int
    reflexes: int
    initiative_dice: int
    strength: int
    smartlink: bool
    dodge: int  # Dodge ranks less the armor's penalty, never below 0
    parry: int  # Melee ranks (a parry, ruling 16 setting ``melee_parry``)
    bonuses: dict  # skill -> skill bonus (seed step 4)
    walk: float
    run: float
    policy: models.Tactics  # when it spends Edge
    sights: dict  # visibility -> (why it is removed, None) or (None, condition)


@dataclass(slots=True, init=False)
class State:
    """A combatant's mutable state in one battle (its constants are in ``profile``). Made
    from the profile by a plain ``__init__``: nine per battle, and the generated one (keyword
    defaults, a default factory) cost twice as much."""

    profile: Profile
    health: int
    thresholds: tuple[int, ...]
    dead_at: int
    physical: int
    stun: int
    edge: int
    edge_max: int
    burned: int
    spent: dict  # Edge points spent per use (EDGE_USES)
    pt: int
    dr: int
    checks: int
    successes: int
    doubles: int
    stopped: int  # hits the armor's PT stopped
    pending: PendingDisadvantage | None  # ruling 23
    failure_disadvantages: int  # checks rolled with a pending Disadvantage
    d10: Callable | None  # the battle's d10 and d6 takers, fetched at the first roll
    d6: Callable | None

    def __init__(self, p: Profile) -> None:
        self.profile = p
        self.health = p.health
        self.thresholds = p.thresholds
        self.dead_at = p.dead_at
        self.physical = self.stun = self.burned = 0
        self.edge = self.edge_max = p.edge
        self.spent = dict.fromkeys(EDGE_USES, 0)
        self.pt = p.pt
        self.dr = p.dr
        self.checks = self.successes = self.doubles = self.stopped = 0
        self.pending: Any = None  # a bad failure's Disadvantage still to come (``pending_after``)
        self.failure_disadvantages = 0
        self.d10: Callable[[int], list[int]] | None = None
        self.d6: Callable[[int], list[int]] | None = None

    @property
    def total(self) -> int:
        return self.physical + self.stun

    @property
    def step(self) -> int:
        return injury_step(self.physical + self.stun, self.thresholds)


@mypyc_attr(allow_interpreted_subclasses=True)
class Shadowrun2097(
    Autofire,
    StartingConditions,
    Explainable[models.Sheet, models.Armor],
    ExtraColumns,
    ExactHooks,
    RuleSystem[models.Options, models.Sheet, models.Armor],
):
    """``sr2097``: 2097's success checks, d6 damage, PT/DR armor and Edge.

    The hot path (``initiative``, ``ranged_attack`` -> ``attack_check`` -> ``hit`` ->
    ``injure``) reads each fighter's ``Profile`` and tables derived from the options at
    construction; trace text is built only when the battle is traced.
    """

    name = "sr2097"
    damage_unit = "health points"
    running_takes_turn = True  # ruling 16's movement: a run is the turn's only action
    # State fields kept only for ``record`` that the source check of exact answers
    # (``exact.state.for_the_record``) cannot see as such: ``spent`` is added to through a
    # subscript, and a ``Start`` has a field of that name the rules read
    exact_record_only = ("spent",)
    # What the rules read of a record in a fighter's state: an exact answer tells two apart by
    # these alone (a pending Disadvantage's tier and MoS only name it in a trace)
    exact_record_fields = (("PendingDisadvantage", ("scope", "kind")),)
    running_stops_shooting = True  # as in the classic rules: the engine's ruling for every system
    Options = models.Options
    Sheet = models.Sheet
    Weapon = models.Weapon
    Armor = models.Armor
    Tactics = models.Tactics

    def __init__(self, options: models.Options):
        super().__init__(options)
        o = options
        self._edge = o.edge
        self._dodge = o.dodge
        self._failure_disadvantage = o.failure_disadvantage
        self._action_step, self._max_actions = o.action_step, o.max_actions
        self._scores: dict[int, list[int]] = {}  # initiative result -> action_scores (shared)
        r = o.range_tn
        self._range_tns = (r.short, r.medium, r.long, r.extreme)
        # Conditions as (name, TN modifier, Advantage, Disadvantage), read on every check.
        self._cover = {
            name: condition(f"{name} cover", getattr(o.cover, name))
            for name in models.CoverEffects.model_fields
        }
        self._running = condition("target running", o.target_running)
        self._moving = condition("attacker moving", o.attacker_moving)
        self._in_reach = condition("enemy in reach", o.attacker_in_melee)
        self._smartlink = condition("smartlink", o.smartlink)
        self._scope = condition("scope", o.scope)
        self._profiles = SpecCache()  # spec -> its Profile
        # armor that a stopped hit wears down (option, off by default): asked per stopped hit
        self._degrades = bool(o.armor_degradation_pt or o.armor_degradation_dr)

    # --- state ----------------------------------------------------------------------------
    def unread(self, spec: Any) -> frozenset[str]:
        """Edge with the option ``edge`` off: the profile (the only reader) then starts
        everyone at 0 Edge."""
        return frozenset() if self.options.edge else frozenset({"edge"})

    def levers(self, sheet: models.Sheet, armors: Mapping[str, models.Armor]) -> list[Lever]:
        """Attributes, skills, initiative dice, Edge, armor grades (``levers.py``)."""
        return sr2097_levers.levers(sheet, armors)

    def health(self, sheet: models.Sheet) -> int:
        o = self.options
        if sheet.health is not None:
            return sheet.health
        return max(1, o.health_base + o.health_per_body * sheet.attributes.body)

    def profile(self, spec: Any) -> Profile:
        """The fighter's ``Profile``, derived at its first battle and kept for the next."""
        return self._profiles.get(spec, self._derive)

    def _derive(self, spec: Any) -> Profile:
        sheet, armor, o = spec.sheet, spec.armor, self.options
        health = self.health(sheet)
        thresholds = injury_thresholds(health, o.injury_levels)
        injured_from = {  # option injury_disadvantage: from this step on
            "never": math.inf,
            "serious": step_floor(SERIOUS, thresholds),
            "critical": step_floor(CRITICAL, thresholds),
        }
        penalty, weight = 0, "light"
        if armor is not None:
            weight = armor.weight
            penalty = (
                armor.dodge_penalty
                if armor.dodge_penalty is not None
                else int(o.armor_dodge_penalty.of(weight))
            )
        speed = o.armor_speed.of(weight)  # "Damage mitigation": heavier armor slows
        attrs = sheet.attributes
        return Profile(
            health=health,
            thresholds=thresholds,
            dead_at=max(thresholds[-1] + 1, math.ceil(o.dead_at * health - 1e-9)),
            injured_from=injured_from[o.injury_disadvantage],
            edge=sheet.edge if o.edge else 0,
            pt=armor.pt if armor else 0,
            dr=armor.dr if armor else 0,
            reflexes=attrs.reflexes,
            initiative_dice=sheet.initiative_dice,
            strength=attrs.strength,
            smartlink=sheet.smartlink,
            dodge=max(0, sheet.skills.dodge - penalty),
            parry=sheet.skills.melee,
            bonuses={
                skill: self.skill_bonus(sheet, skill)[0]
                for skill in models.SkillAttributes.model_fields
            },
            walk=o.walk * speed,
            run=o.run * speed,
            policy=spec.rule_tactics or _DEFAULT_TACTICS,
            sights={},
        )

    def new_state(self, fighter: C) -> State:
        return State(self._profiles.get(fighter.spec, self._derive))  # self.profile, inline

    def skill_bonus(self, sheet: models.Sheet, skill: str) -> tuple[int, str]:
        """Seed step 4: skill ranks + the two governing attributes; and how it was made."""
        a, b = getattr(self.options.skill_attributes, skill)
        ranks = getattr(sheet.skills, skill)
        attrs = sheet.attributes
        bonus = ranks + getattr(attrs, a) + getattr(attrs, b)
        return bonus, f"{skill} {ranks} + {a} {getattr(attrs, a)} + {b} {getattr(attrs, b)}"

    # --- Edge -----------------------------------------------------------------------------
    def _spend(self, battle: Battle[C], fighter: C, use: str, why: str) -> None:
        """Spend one Edge point on ``use``; ``why`` is read only when tracing (else "")."""
        st: State = fighter.state
        st.edge -= 1
        st.spent[use] += 1
        if battle.tracing:
            battle.trace(
                "edge",
                f"{fighter.name} spends 1 Edge: {why} (Edge {st.edge + 1} -> {st.edge})",
                actor=fighter,
                use=use,
                edge=st.edge,
            )

    # --- initiative -----------------------------------------------------------------------
    def initiative(self, battle: Battle[C], fighter: C) -> list[int]:
        """Ruling 16: Reflexes + initiative dice; Edge adds 2d6 for this turn ("Edge" 2)."""
        st: State = fighter.state
        p = st.profile
        d6 = st.d6
        if d6 is None:
            d6 = st.d6 = battle.roll.taker(1, 6)
        n = p.initiative_dice
        faces = d6(n) if n else []
        result = p.reflexes + sum(faces)
        extra = None
        policy = p.policy
        when = policy.initiative  # never, first_turn or always
        if (
            when != "never"
            and (when == "always" or battle.turn == 1)
            and self._edge
            and st.edge > policy.reserve
        ):
            self._spend(battle, fighter, "initiative", "+2d6 initiative this turn")
            extra = d6(dice.EDGE_DAMAGE_DICE)
            result += sum(extra)
        scores = self._scores.get(result)
        if scores is None:
            scores = self._scores[result] = action_scores(
                result, self._action_step, self._max_actions
            )
        if battle.tracing:
            edge = f" + Edge {extra}" if extra else ""
            battle.trace(
                "initiative",
                f"{fighter.name}: Reflexes {p.reflexes} + {faces}{edge} = "
                f"{result} -> acts at {', '.join(map(str, scores))}",
                actor=fighter,
                result=result,
                scores=scores,
            )
        return scores

    def initiative_tiebreak(self, fighter: C) -> int:
        return fighter.state.profile.reflexes

    # --- exact answers --------------------------------------------------------------------
    def exact_dice(self, fighter: C, choose: Callable[[Any], Any]) -> None:
        """The fighter's d10 and d6 (the state's takers, which every check, damage roll and
        initiative of this system draws through) choose among what their readers can tell
        apart, with the dice layer's exact probabilities, rather than among ordered faces:

        * the d10 of a check as a sorted multiset (``dice.exact_check_faces``: 55 for 2d10,
          220 for 3d10, not 100 and 1,000). Every reader is order-free: ``attack_check``'s
          inline cases read the sum, whether faces are alike, the lowest or highest die;
          ``dice.check_outcome`` (and ``resolve_check``, which only a trace calls) keeps the
          best (worst) MoS of the three removals, and the pair it keeps is fixed by the faces'
          values (the usual die is removed unless another removal is strictly better, and
          removals of equal faces keep equal pairs), so the double it reports is too;
        * the d6 as one face list per sum (``dice.exact_damage_faces``: 51 choices for 10d6,
          not 60 million): ``hit`` and ``initiative`` read only ``sum(faces)``.

        Only a trace prints the faces themselves, and an exact answer is not traced. The
        battle's hot path is untouched: a normal battle fetches the roller's takers at the
        first roll, as before. ``tests/exact/test_sr2097_attack.py`` holds the choices to
        the face-by-face enumeration."""
        st: State = fighter.state
        st.d10 = _chooser(choose, dice.exact_check_faces)
        st.d6 = _chooser(choose, dice.exact_damage_faces)

    def condition(self, fighter: C) -> str:
        """The injury step (or dead) and the damage of the health: "serious: 17/30 damage
        (3 Stun)", or "unhurt"."""
        st: State = fighter.state
        if not st.total:
            return injury_name(st)
        stun = f" ({st.stun} Stun)" if st.stun else ""
        return f"{injury_name(st)}: {st.total}/{st.health} damage{stun}"

    # --- status ---------------------------------------------------------------------------
    def can_act(self, fighter: C) -> bool:
        st: State = fighter.state
        # down (step DOWN) from the last threshold on
        return st.physical < st.dead_at and st.physical + st.stun < st.thresholds[-1]

    def status(self, fighter: C) -> str:
        st: State = fighter.state
        if st.physical >= st.dead_at:
            return "dead"
        if st.step >= DOWN:
            return "dying" if st.physical >= st.thresholds[-1] else "unconscious"
        return "wounded" if st.total else "unhurt"

    def movement(self, fighter: C) -> tuple[float, float]:
        """Walk and run meters, slowed by armor heavier than light ("Damage mitigation").
        Read from the spec's profile: the engine may ask before the fighter has a state."""
        p = self.profile(fighter.spec)
        return p.walk, p.run

    def threat(self, fighter: C) -> float:
        sheet = fighter.spec.sheet
        bonuses = self.profile(fighter.spec).bonuses
        best = 0.0
        for w in (*fighter.spec.weapons, FISTS):  # bare hands too: an unarmed troll is a threat
            st = sheet.attributes.strength if w.code.strength is None else w.code.strength
            mean = 3.5 * (w.code.dice + (1 if w.burst else 0)) + st
            best = max(best, bonuses[w.skill_name] * mean)
        return best

    def harm(self, fighter: C) -> float:
        st: State = fighter.state
        share = (st.physical + st.stun) / st.thresholds[-1]
        return share if share < 1.0 else 1.0

    # --- starting conditions (ruling 27) ---------------------------------------------------
    # wounds: Physical damage points; stun: Stun damage points; the spent pool: Edge
    start_keys = ("wounds", "stun", EDGE_SPENT)
    # Ruling 27: a long rest regains 1 Edge point; defeating a boss restores 1 to each survivor
    long_rest_regain = 1
    boss_regain = 1

    def check_start(self, spec: Any, start: Start) -> list[StartProblem]:
        """Ruling 16's health: Physical damage short of death (``dead_at``), Stun up to the
        health; no more Edge spent than the sheet's."""
        p, edge = self.profile(spec), spec.sheet.edge
        out = []
        if start.wounds >= p.dead_at:
            alive = f"at most {p.dead_at - 1}: {p.dead_at} Physical damage is dead"
            out.append(StartProblem("wounds", start.wounds, alive))
        if start.stun > p.health:
            out.append(StartProblem("stun", start.stun, f"at most the health, {p.health}"))
        if start.spent > edge:
            out.append(StartProblem(EDGE_SPENT, start.spent, f"at most the sheet's Edge, {edge}"))
        return out

    def down_at(self, spec: Any, start: Start) -> bool:
        """Down from the last injury threshold on, Physical and Stun together (``can_act``)."""
        return start.dead or start.wounds + start.stun >= self.profile(spec).thresholds[-1]

    def down_wounds(self, spec: Any) -> int:
        """The last threshold in Physical damage: dying."""
        return self.profile(spec).thresholds[-1]

    def apply_start(self, fighter: Combatant, start: Start) -> None:
        """The damage taken (the dead at ``dead_at``) and the Edge already spent."""
        st: State = fighter.state
        st.physical = st.dead_at if start.dead else start.wounds
        st.stun = start.stun
        st.edge = st.edge - start.spent if st.edge > start.spent else 0

    def carried(self, fighter: Combatant) -> tuple[int, int, int]:
        """The spent Edge as the profile's less what is left (an Edge Burn's point with it;
        nothing with the option ``edge`` off, when no battle has Edge)."""
        st: State = fighter.state
        return st.physical, st.stun, st.profile.edge - st.edge

    def record(self, fighter: C) -> dict:
        st: State = fighter.state
        spent = st.spent
        return {
            "health": st.health,
            "physical": st.physical,
            "stun": st.stun,
            "injury": injury_name(st),
            "edge_left": st.edge,
            "edge_max": st.edge_max,
            "edge_attack": spent["attack"],
            "edge_damage": spent["damage"],
            "edge_initiative": spent["initiative"],
            "edge_lessen": spent["lessen"],
            "edge_burned": st.burned,
            "failure_disadvantages": st.failure_disadvantages,
            "checks": st.checks,
            "check_successes": st.successes,
            "doubles": st.doubles,
            "hits_stopped": st.stopped,
            "armor_pt": st.pt,
            "armor_dr": st.dr,
        }

    def max_autofire(self, fighter: Combatant, weapon: Any) -> int:
        return self.options.burst_rounds if weapon.burst else 1

    # --- attack checks --------------------------------------------------------------------
    def conditions(
        self, battle: Battle[C], attacker: C, effects: list[Condition]
    ) -> tuple[int, bool, bool, str | None]:
        """Add the attacker's visibility and injury to ``effects`` (``condition`` tuples in a
        list the caller made for this check) and sum them up: (TN modifier, any Advantage, any
        Disadvantage, why the visibility's condition was removed or None); ``explain`` names
        them for the trace."""
        st: State = attacker.state
        p = st.profile
        visibility = battle.environment.visibility
        known = p.sights.get(visibility)
        if known is None:  # once per visibility: the sheet does not change
            known = p.sights[visibility] = self._sight(visibility, attacker.spec.sheet)
        gone, seen = known
        if seen is not None:
            effects.append(seen)
        if st.physical + st.stun >= p.injured_from:  # option injury_disadvantage
            effects.append(_INJURY_DISADVANTAGE[st.step])
        mod, adv, dis = 0, False, False
        for _, modifier, advantage, disadvantage in effects:
            mod += modifier
            adv |= advantage
            dis |= disadvantage
        return mod, adv, dis, gone

    def _sight(self, visibility: str, sheet: models.Sheet) -> tuple[str | None, Condition | None]:
        """The visibility's condition for this fighter: ``(why it is removed, None)`` when its
        vision or goggles remove it, else ``(None, condition)``."""
        sight = getattr(self.options.visibility, visibility)
        if sight.removed_by and sheet.sights() & set(sight.removed_by):
            by = sorted(sheet.sights() & set(sight.removed_by))[0]
            return f"{visibility.replace('_', ' ')} (removed by {by.replace('_', ' ')})", None
        return None, condition(visibility.replace("_", " "), sight)

    def attack_check(
        self,
        battle: Battle[C],
        attacker: C,
        skill: str,
        tn: int,
        adv: bool,
        dis: bool,
        what: str,
        why: Explained | None,
        kind: str = "attack",
    ) -> int:
        """The rules' "Success checks": mode from the conditions (``adv``/``dis``), Edge by policy,
        2d10/3d10 + bonus; the MoS after doubles (a hit at 0 or more). ``why``: the conditions
        named (``explain``), only when traced. ``kind``: which checks are related for ruling
        23 (a pending Disadvantage joins the conditions and is spent; a failure may leave one)."""
        st: State = attacker.state
        p = st.profile
        pending = st.pending
        # a pending Disadvantage applies to any check (ANY) or one of its own kind (RELATED)
        if pending is not None and (pending.scope == _ANY or pending.kind == kind):
            dis = True  # after a bad failure (ruling 23): it joins the conditions, spent
            if why is not None:
                why[1].append(pending)
            st.pending = None
            st.failure_disadvantages += 1
        bonus = p.bonuses[skill]
        # "Multiple sources": sources do not stack, both at once is neither
        mode = _MODE[adv][dis]
        use = None
        policy = p.policy
        may_spend = self._edge and st.edge > policy.reserve and policy.attack != "never"
        if may_spend and (dis or not adv):
            # "Using Edge": remove Disadvantage if there is some, else gain Advantage
            bought = _ADVANTAGE if adv or not dis else _NORMAL
            p_now, p_edge = edge_odds(bonus - tn, mode, bought)
            attack = policy.attack
            if (
                attack == "always"
                or (attack == "disadvantaged" and dis)
                or (
                    attack == "low_odds"
                    and p_now < policy.attack_below
                    and p_edge - p_now >= policy.attack_gain
                )
            ):
                use, mode = self._buy_edge(battle, attacker, dis, what, (p_now, p_edge)), bought
        d10 = st.d10
        if d10 is None:
            d10 = st.d10 = battle.roll.taker(1, 10)
        edge = use is not None
        if mode == _NORMAL:
            faces = d10(2)
            a, b = faces
            if a != b:  # dice.check_outcome inline (most 2d10 checks): no double, MoS = total - TN
                mos, double = a + b + bonus - tn, False
            else:
                mos, double = dice.check_outcome(faces, bonus - tn, mode, edge)
        else:
            faces = d10(3)
            a, b, c = faces
            if a != b and b != c and a != c:  # inline too: no double, so the usual die goes
                drop = min(a, b, c) if mode == _ADVANTAGE else max(a, b, c)
                mos, double = a + b + c - drop + bonus - tn, False
            else:
                mos, double = dice.check_outcome(faces, bonus - tn, mode, edge)
        # ruling 23: a bad enough failure may leave a Disadvantage pending
        left = None
        if mos < _PENDING_BELOW and self._failure_disadvantage:
            left = pending_after(kind, mos)
            if left is not None:
                st.pending = left
        st.checks += 1
        if mos >= 0:
            st.successes += 1
        if double:
            st.doubles += 1
        if why is not None:
            self._trace_check(battle, attacker, skill, faces, bonus, tn, mode, use, what, why, left)
        return mos

    def _buy_edge(
        self, battle: Battle[C], attacker: C, dis: bool, what: str, odds: tuple[float, float]
    ) -> str:
        """Spend Edge on a check ("Using Edge"; the policy chose to): the option used,
        removing Disadvantage when there is some, else gaining Advantage. ``odds``: P(hit)
        without and with it, for the trace."""
        option = dice.EDGE_REMOVE_DISADVANTAGE if dis else dice.EDGE_GAIN_ADVANTAGE
        why = ""
        if battle.tracing:
            p_now, p_edge = odds
            why = (
                f"{option.replace('_', ' ')} on the {what} check "
                f"(P(hit) {p_now:.0%} -> {p_edge:.0%})"
            )
        self._spend(battle, attacker, "attack", why)
        return option

    def _trace_check(
        self,
        battle: Battle[C],
        attacker: C,
        skill: str,
        faces: list[int],
        bonus: int,
        tn: int,
        mode: str,
        use: str | None,
        what: str,
        why: Explained,
        pending: PendingDisadvantage | None,
    ) -> None:
        """The traced check's line: the dice, the bonus and where it comes from, the mode and
        why, and the Disadvantage the check's failure left ``pending`` (ruling 23), if any."""
        result = dice.resolve_check(faces, bonus, tn, mode, use is not None)
        _, how = self.skill_bonus(attacker.spec.sheet, skill)
        battle.trace(
            "roll",
            f"{what} check: {describe_check(result)}; bonus {bonus} ({how}); "
            + describe_mode(why[0], why[1], why[2], use)
            + (describe_pending(pending) if pending is not None else ""),
            actor=attacker,
            dice=list(result.dice),
            kept=list(result.kept),
            removed=result.removed,
            removed_reason=result.removed_reason,
            bonus=bonus,
            tn=tn,
            mos=result.mos,
            success=result.success,
            mode=result.mode,
            edge=result.edge,
        )

    # --- ranged combat --------------------------------------------------------------------
    def ranged_attack(
        self,
        battle: Battle[C],
        attacker: C,
        target: C,
        weapon: Any,
        shots: int,
        sweep: Sequence[tuple[C, int]] = (),
    ) -> None:
        """One attack check per action; a burst (``shots`` > 1) is one check with +1d6.

        TN (ruling 16): the range band's TN + the target's Dodge while it can act +
        conditions. 2097 has no sweeping fire: a burst is one attack on ``target``, and
        the further targets of a ``sweep`` tactic are ignored (their rounds are spent with
        the burst).
        """
        s = battle.situation(attacker, target)
        distance = s.distance
        band = band_of(weapon.ranges, distance)  # ``range_band(distance, ranges, 3)``, inline:
        band = band if band < 3 else 3  # beyond extreme (a hair, after a walk) is extreme
        tn = self._range_tns[band]
        dodge = target.state.profile.dodge if self._dodge and target.can_act else 0
        tn += dodge
        st: State = attacker.state
        p = st.profile
        # the situation as 2097's conditions (each a TN modifier, Advantage or Disadvantage)
        effects: list[Condition] = []
        if target.cover != "none":
            effects.append(self._cover[target.cover])
        if target.running:
            effects.append(self._running)
        moved = attacker.moved_this_action > 0
        if moved:
            effects.append(self._moving)
        if s.engaged:
            effects.append(self._in_reach)
        if weapon.smartgun and p.smartlink:
            effects.append(self._smartlink)
        if weapon.scope and band >= 2 and not moved:
            effects.append(self._scope)
        mod, adv, dis, gone = self.conditions(battle, attacker, effects)
        tn += mod
        skill = weapon.skill_name
        burst = shots > 1
        why = None
        what = skill
        if battle.tracing:
            why = explain(effects, gone)
            notes = [f"{BANDS[band]} range {distance:.1f} m: {self._range_tns[band]}"]
            if dodge:
                notes.append(f"{target.name}'s Dodge {dodge:+d}")
            mode = f"burst of {shots}" if burst else "single shot"
            battle.trace(
                "attack",
                f"{attacker.name} fires {attacker.weapon_label(weapon)} at {target.name} "
                f"({mode}); TN {tn} = " + ", ".join(notes + why[3]),
                actor=attacker,
                tn=tn,
                shots=shots,
                target=target.name,
                weapon=attacker.weapon_label(weapon),
            )
            what = skill.replace("_", " ").title()
        attacker.shots += 1
        mos = self.attack_check(battle, attacker, skill, tn, adv, dis, what, why)
        if mos >= 0:
            _checked(battle, mos)
            self.hit(battle, attacker, target, weapon, mos, burst)

    # --- damage ---------------------------------------------------------------------------
    def hit(
        self,
        battle: Battle[C],
        attacker: C,
        target: C,
        weapon: Any,
        mos: int,
        burst: bool,
    ) -> None:
        """The rules' "Variable damage rolls" (Nd6 + ST, + the MoS dice, +1d6 for a burst, +2d6 for
        Edge) and "Damage mitigation" (PT/DR, ``dice.apply_armor``)."""
        attacker.hits += 1
        ast = attacker.state
        p = ast.profile
        code = weapon.code
        strength = code.strength
        if strength is None:  # melee: the wielder's Strength
            strength = p.strength
        # dice.mos_damage_dice inline (ruling 14): +1d6 on MoS 5-9, +2d6 on 10 or more
        mos_dice = 0 if mos < 5 else 1 if mos < 10 else 2
        n = code.dice + mos_dice + (dice.BURST_DICE if burst else 0)
        st: State = target.state
        edge = False
        policy = p.policy
        if policy.damage != "never" and self._edge and ast.edge > policy.reserve:
            expected = 3.5 * n + strength
            if policy.damage == "always" or expected < st.pt:  # vs_armor: below PT
                edge = True
                n += dice.EDGE_DAMAGE_DICE
                self._buy_damage_edge(battle, attacker, expected, st.pt)
        d6 = ast.d6
        if d6 is None:
            d6 = ast.d6 = battle.roll.taker(1, 6)
        faces = d6(n)
        total = sum(faces) + strength
        # dice.apply_armor inline (ruling 15): below PT stopped, else DR% (rounded down) soaked
        dealt = 0 if total < st.pt else total - total * st.dr // 100
        if battle.tracing:
            dice_from = (code.dice, mos_dice, burst, edge)
            _trace_damage(battle, attacker, target, weapon, dice_from, faces, strength, dealt)
        if dealt == 0:  # the armor stopped the whole hit (below PT); it may degrade (options)
            st.stopped += 1
            if self._degrades:
                self._degrade(battle, target)
            return
        self.injure(battle, attacker, target, dealt, weapon.stun)

    def _buy_damage_edge(self, battle: Battle[C], attacker: C, expected: float, pt: int) -> None:
        """Spend Edge for +2d6 damage ("Using Edge"; the policy chose to: ``always``, or
        ``vs_armor`` with the ``expected`` damage below the target's PT)."""
        why = ""
        if battle.tracing:
            why = "+2d6 damage"
            if attacker.state.profile.policy.damage == "vs_armor":
                why += f" (expected {expected:g} below PT {pt})"
        self._spend(battle, attacker, "damage", why)

    def _degrade(self, battle: Battle[C], target: C) -> None:
        """A hit the armor stopped wears it down (``armor_degradation_pt``/``_dr``)."""
        st: State = target.state
        o = self.options
        st.pt = max(0, st.pt - o.armor_degradation_pt)
        st.dr = max(0, st.dr - o.armor_degradation_dr)
        if battle.tracing:
            battle.trace(
                "armor",
                f"{target.name}'s armor degrades to PT {st.pt}/DR {st.dr}",
                actor=target,
            )

    def injure(
        self, battle: Battle[C], attacker: C | None, target: C, damage: int, stun: bool
    ) -> None:
        """Ruling 16 health and injury, with Edge to lessen an injury or burn to survive."""
        st: State = target.state
        policy = st.profile.policy
        tracing = battle.tracing
        note = ""
        if not stun and st.physical + damage >= st.dead_at:
            # A killing blow: only Edge Burn prevents death ("Edge Burn").
            if (
                policy.burn
                and self._edge
                and (st.edge >= 1 or (not self.options.burn_needs_edge and st.edge_max >= 1))
            ):
                damage = st.dead_at - 1 - st.physical
                st.edge = max(0, st.edge - 1)
                st.edge_max -= 1
                st.burned += 1
                note = "; Edge Burn: survives the killing blow"
                if tracing:
                    battle.trace(
                        "edge",
                        f"{target.name} burns Edge to survive a killing blow "
                        f"(Edge {st.edge}, maximum {st.edge_max})",
                        actor=target,
                        use="burn",
                    )
        elif policy.lessen != "never" and self._edge and st.edge > 0:
            total = st.physical + st.stun + damage
            # "would_drop" lessens only a hit that takes the fighter down (the last threshold)
            if policy.lessen == "always" or total >= st.thresholds[-1]:
                before = injury_step(total - damage, st.thresholds)
                after = injury_step(total, st.thresholds)
                # a grazing blow is the lightest injury ("Edge" 4)
                if after > before and after >= MODERATE:
                    cut = total - (step_floor(after, st.thresholds) - 1)
                    self._spend(
                        battle,
                        target,
                        "lessen",
                        f"lessen the injury {INJURY_NAMES[after]} -> {INJURY_NAMES[after - 1]} "
                        f"({damage} damage -> {damage - cut})"
                        if tracing
                        else "",
                    )
                    damage -= cut
        if stun:
            st.stun += damage
        else:
            st.physical += damage
        if damage > 0:
            what = ""
            if tracing:
                injury = injury_name(st)
                what = (
                    f"hit of {damage}{' Stun' if stun else ''} damage: {st.total}/{st.health}, "
                    f"{injury}{note}"
                )
            battle.damage_dealt(attacker, target, damage, what)
        elif tracing:
            injury = injury_name(st)
            battle.trace(
                "injury",
                f"{target.name} takes no damage: {st.total}/{st.health}, {injury}{note}",
                actor=target,
            )

    # --- melee ----------------------------------------------------------------------------
    def melee_attack(
        self,
        battle: Battle[C],
        attacker: C,
        target: C,
        weapon: Any,
        interception: bool = False,
    ) -> None:
        """Ruling 16: Melee check against melee TN + the defender's Dodge (or Melee ranks when
        that is better: a parry); damage Nd6 + the wielder's Strength. An interception (a
        mover passing within reach) is the same attack made out of turn."""
        o = self.options
        weapon = weapon if weapon is not None else FISTS
        tn = o.melee_tn
        notes = [f"melee {tn}"]
        if target.can_act:
            tp = target.state.profile
            defence = tp.dodge if o.dodge else 0
            parry = tp.parry if o.melee_parry else 0
            if parry > defence:
                notes.append(f"{target.name}'s parry (Melee) {parry:+d}")
                tn += parry
            elif defence:
                notes.append(f"{target.name}'s Dodge {defence:+d}")
                tn += defence
        effects: list[Condition] = []
        mod, adv, dis, gone = self.conditions(battle, attacker, effects)
        tn += mod
        why = None
        if battle.tracing:
            why = explain(effects, gone)
            verb = "intercepts" if interception else "attacks"
            name = "bare hands" if weapon is FISTS else attacker.weapon_label(weapon)
            battle.trace(
                "attack",
                f"{attacker.name} {verb} {target.name} in melee with {name}; TN {tn} = "
                + ", ".join(notes + why[3]),
                actor=attacker,
                tn=tn,
                target=target.name,
                weapon=name,
                melee=True,
            )
        attacker.shots += 1
        mos = self.attack_check(battle, attacker, "melee", tn, adv, dis, "Melee", why)
        if mos >= 0:
            _checked(battle, mos)
            self.hit(battle, attacker, target, weapon, mos, burst=False)


_DEFAULT_TACTICS = models.Tactics()
_INJURY_DISADVANTAGE = tuple((f"{name} injury", 0, False, True) for name in INJURY_NAMES)
_NORMAL, _ADVANTAGE, _DISADVANTAGE, _ANY = dice.NORMAL, dice.ADVANTAGE, dice.DISADVANTAGE, dice.ANY
_MODE = ((_NORMAL, _DISADVANTAGE), (_ADVANTAGE, _NORMAL))  # [any Advantage][any Disadvantage]
# Ruling 23 leaves a pending Disadvantage only below this MoS (a marginal failure leaves none):
# read off the dice layer once, so a check skips the tier lookup on most misses.
_PENDING_BELOW = min(
    m for m in range(-30, 0) if dice.failure_disadvantage(dice.mos_tier(m)) is None
)

Explained = tuple[list[str], list, list[str], list[str]]


def _checked(battle: Battle[C], mos: int) -> None:
    """An exact answer's meeting point (``dice.paths``): after a hit's check, ``hit`` reads
    of the MoS only the damage dice it adds, so the checks' many ways to hit alike meet here
    and the damage is walked once for them. Nothing in a sampled battle."""
    meet = battle.roll.checkpoint
    if meet is not None:
        meet(("hit", dice.mos_damage_dice(mos)))


@lru_cache(maxsize=1024)
def pending_after(kind: str, mos: int) -> PendingDisadvantage | None:
    """Ruling 23: the Disadvantage a failure of ``mos`` on a ``kind`` check leaves pending for
    the next related check (or any), or None. One record per (kind, MoS), shared by every
    check that leaves it: a ``PendingDisadvantage`` is never changed once made, and making
    one (with the tier looked up twice) cost a fifth of a bad failure's check."""
    tier = dice.mos_tier(mos)
    scope = dice.failure_disadvantage(tier)
    return None if scope is None else PendingDisadvantage(scope, kind, tier, mos)


def _trace_damage(
    battle: Battle[C],
    attacker: C,
    target: C,
    weapon: Any,
    dice_from: tuple[int, int, bool, bool],
    faces: list[int],
    strength: int,
    dealt: int,
) -> None:
    """The traced damage roll (``hit``): where the dice come from (``dice_from``: the
    weapon's, the MoS's, a burst, Edge), the faces, Strength and what the armor did."""
    weapon_dice, mos_dice, burst, edge = dice_from
    st: State = target.state
    parts = [f"{weapon_dice} weapon"]
    if mos_dice:
        parts.append(f"{mos_dice} MoS")
    if burst:
        parts.append(f"{dice.BURST_DICE} burst")
    if edge:
        parts.append(f"{dice.EDGE_DAMAGE_DICE} Edge")
    total = sum(faces) + strength
    st_name = "Strength" if weapon.code.strength is None else "weapon ST"
    if st.pt == 0 and st.dr == 0:
        armor = "no armor"
    elif dealt == 0:
        armor = f"stopped by PT {st.pt} (DR {st.dr})"
    else:
        armor = f"PT {st.pt}/DR {st.dr} soaks {total - dealt} -> {dealt}"
    battle.trace(
        "damage_roll",
        f"damage {len(faces)}d6 ({' + '.join(parts)}) {list(faces)} + {st_name} "
        f"{strength} = {total}{' Stun' if weapon.stun else ''}; {armor}",
        actor=attacker,
        faces=list(faces),
        total=total,
        dealt=dealt,
        pt=st.pt,
        dr=st.dr,
    )


def explain(effects: list[Condition], gone: str | None) -> Explained:
    """Name a check's conditions for the trace: (Advantage sources, Disadvantage sources,
    removed conditions, TN notes worded as every system's modifiers: ``situation.labelled``),
    in the order they were found."""
    adv = [why for why, _, advantage, _ in effects if advantage]
    dis = [why for why, _, _, disadvantage in effects if disadvantage]
    notes = signed(labelled([e[1] for e in effects], [e[0] for e in effects]))
    return adv, dis, [gone] if gone is not None else [], notes


def describe_check(r: dice.CheckResult) -> str:
    """``3d10 [7, 2, 9] removed 2 (lowest) -> 7+9 + 16 = 32 vs TN 23: MoS +9 (...)``."""
    if r.removed is None:
        faces = f"2d10 {list(r.dice)}"
    else:
        faces = f"3d10 {list(r.dice)} removed {r.removed} ({r.removed_reason})"
    text = f"{faces} -> {r.kept[0]}+{r.kept[1]} + {r.bonus} = {r.total} vs TN {r.tn}"
    raw = r.total - r.tn
    if r.double:
        adjust = r.mos - raw
        edge = " with Edge" if r.edge and raw < 0 else ""
        text += f" ({raw:+d}, double{edge} {adjust:+d})"
    hit = "hit" if r.success else "miss"
    return f"{text}: MoS {r.mos:+d} ({r.tier}, {hit})"


def describe_mode(adv: list, dis: list, removed: list[str], use: str | None) -> str:
    parts = []
    if adv:
        parts.append("Advantage: " + ", ".join(map(str, adv)))
    if dis:
        parts.append("Disadvantage: " + ", ".join(map(str, dis)))
    if removed:
        parts.append("removed: " + ", ".join(removed))
    if use:
        parts.append(f"Edge: {use.replace('_', ' ')}")
    return "; ".join(parts) if parts else "no Advantage or Disadvantage"


def describe_pending(p: PendingDisadvantage) -> str:
    """The trace's note when a failed check leaves Disadvantage behind (ruling 23)."""
    which = f"{p.kind} check" if p.scope == dice.RELATED else "check of any kind"
    return f"; {p.tier}: Disadvantage on the next {which} (ruling 23)"
