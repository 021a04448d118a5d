"""Shadowrun: 2097 (seed 003) as a rule system: ``sr2097``.

The seed's rules come from the dice layer (``combatsim.dice.sr2097``) and are never restated
here: the success check with Advantage, Disadvantage, doubles and Edge (rulings 13-14), the
MoS damage dice, Nd6 + ST damage with burst and Edge dice, PT/DR armor (ruling 15). This
module adds what ruling 16 leaves to the scenario, each a ``rules.options`` setting:

* **Attack TN**: the range band's TN (short 15, medium 20, long 25, extreme 30; melee 15)
  + the defender's Dodge (Dodge ranks less the armor's penalty, and in melee the better of that
  and Melee ranks) while the defender can act + condition modifiers. Conditions give TN
  modifiers, Advantage or Disadvantage: cover, visibility (which a vision or night-vision
  goggles *remove*, seed "Removing Advantage/Disadvantage"), a moving attacker, a running
  target, a gun fired in melee, smartgun with smartlink, a scope at long range, a critical
  injury.
* **Skill bonus** (seed step 4): skill ranks + the two governing attributes
  (``skill_attributes``: Firearms = Agility + Perception, Heavy Weapons = Strength +
  Perception, Melee = Agility + Strength).
* **Initiative**: Reflexes + initiative dice d6 (+2d6 for the turn with Edge, seed "Edge" 2);
  actions at the result and every ``action_step`` (10) lower while above 0, at most
  ``max_actions``.
* **Health and injury**: ``health`` hit points (default 10 + 5 x Body). Damage after armor
  adds up; the injury step is set by the total: grazed above 0, moderate from 25% of health,
  serious 50%, critical 75%, down (out of the fight: dying, or unconscious when Stun did it)
  100%, dead when physical damage reaches 150%. Stun never kills.
* **Edge** (seed "Edge"; spent by the fighter's ``tactics.rules``): Advantage or removing
  Disadvantage on an attack check; +2d6 initiative for a turn; +2d6 damage; lessen an injury
  one step (the hit is cut to the top of the step below the one it would reach); Edge Burn
  (current and maximum Edge each lose 1) turns a killing blow into down. A killing blow is
  not an injury step: only Edge Burn prevents death (seed "Edge Burn").
* **Burst**: a burst weapon fires ``burst_rounds`` rounds as one attack with +1d6 (seed
  "Variable damage rolls", the guard's SMG).
* **Armor** heavier than light lowers Dodge and speed (seed "Damage mitigation"); a hit
  stopped by PT may degrade it (``armor_degradation_pt``/``_dr``, off by default).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from functools import lru_cache
from typing import TYPE_CHECKING

from ...dice import sr2097 as dice
from ..base import RuleSystem, register
from . import levers as sr2097_levers
from . import models
from .models import CRITICAL, DOWN, FISTS, GRAZED, INJURY_NAMES, MODERATE, SERIOUS, UNHURT

if TYPE_CHECKING:
    from ..base import Battle, Fighter

BANDS = ("short", "medium", "long", "extreme")
EDGE_USES = ("attack", "damage", "initiative", "lessen")


@lru_cache(maxsize=4096)
def hit_chance(margin: int, mode: str, edge: bool = False) -> float:
    """P(success) of a check with bonus - TN = ``margin`` (exact, from the dice layer)."""
    return float(dice.p_success(margin, 0, mode, edge))


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


def action_scores(result: int, step: int, most: int) -> list[int]:
    """Initiative scores acted at: the result, then every ``step`` lower while above 0."""
    return [s for s in range(result, 0, -step)][:most]


@dataclass(frozen=True, slots=True)
class PendingDisadvantage:
    """Disadvantage a failed check left for a later one (seed "Magnitude of Success/Failure",
    ruling 23): ``scope`` is ``dice.RELATED`` (the next check of the same ``kind``) or
    ``dice.ANY`` (the next check of any kind)."""

    scope: str
    kind: str
    tier: str
    mos: int

    def applies_to(self, kind: str) -> bool:
        return self.scope == dice.ANY or self.kind == kind

    def __str__(self) -> str:
        return f"{self.tier} on the last {self.kind} check (MoS {self.mos:+d})"


@dataclass(slots=True)
class State:
    """A combatant's mutable state in one battle."""

    health: int
    thresholds: tuple[int, ...]
    dead_at: int
    physical: int = 0
    stun: int = 0
    edge: int = 0
    edge_max: int = 0
    burned: int = 0
    spent: dict = field(default_factory=lambda: dict.fromkeys(EDGE_USES, 0))
    pt: int = 0
    dr: int = 0
    checks: int = 0
    successes: int = 0
    doubles: int = 0
    stopped: int = 0  # hits the armor's PT stopped
    pending: PendingDisadvantage | None = None  # ruling 23
    failure_disadvantages: int = 0  # checks rolled with a pending Disadvantage
    # Derived from the sheet once per battle, as the checks first ask for them:
    bonuses: dict = field(default_factory=dict)  # skill -> (bonus, how it is made up)
    dodge: int | None = None  # Dodge less the armor's penalty
    sight: tuple | None = None  # the battle's visibility for this fighter: (removed, effect)

    @property
    def total(self) -> int:
        return self.physical + self.stun

    @property
    def step(self) -> int:
        return injury_step(self.total, self.thresholds)


@register
class Shadowrun2097(RuleSystem):
    """``sr2097``: seed 003's success checks, d6 damage, PT/DR armor and Edge."""

    name = "sr2097"
    Options = models.Options
    Sheet = models.Sheet
    Weapon = models.Weapon
    Armor = models.Armor
    Tactics = models.Tactics

    # --- state ----------------------------------------------------------------------------
    def levers(self, sheet, armors):
        """Attributes, skills, initiative dice, Edge, armor grades (``levers.py``)."""
        return sr2097_levers.levers(sheet, armors)

    def health(self, sheet: models.Sheet) -> int:
        o = self.options
        if sheet.health is not None:
            return sheet.health
        return max(1, o.health_base + o.health_per_body * sheet.attributes.body)

    def new_state(self, fighter: Fighter) -> State:
        sheet, armor, o = fighter.spec.sheet, fighter.spec.armor, self.options
        health = self.health(sheet)
        thresholds = injury_thresholds(health, o.injury_levels)
        edge = sheet.edge if o.edge else 0
        return State(
            health=health,
            thresholds=thresholds,
            dead_at=max(thresholds[-1] + 1, math.ceil(o.dead_at * health - 1e-9)),
            edge=edge,
            edge_max=edge,
            pt=armor.pt if armor else 0,
            dr=armor.dr if armor else 0,
        )

    def skill_bonus(self, sheet: models.Sheet, skill: str) -> tuple[int, str]:
        """Seed step 4: skill ranks + the two governing attributes; and how it was made."""
        a, b = getattr(self.options.skill_attributes, skill)
        ranks = getattr(sheet.skills, skill)
        attrs = sheet.attributes
        bonus = ranks + getattr(attrs, a) + getattr(attrs, b)
        return bonus, f"{skill} {ranks} + {a} {getattr(attrs, a)} + {b} {getattr(attrs, b)}"

    def armor_weight(self, fighter: Fighter) -> str:
        armor = fighter.spec.armor
        return armor.weight if armor is not None else "light"

    def dodge(self, fighter: Fighter) -> int:
        """The defender's Dodge: Dodge ranks less the armor's penalty, never below 0 (worked
        out once per battle: sheet and armor do not change)."""
        st = fighter.state
        if st.dodge is None:
            st.dodge = self._dodge(fighter)
        return st.dodge

    def _dodge(self, fighter: Fighter) -> int:
        armor = fighter.spec.armor
        penalty = 0
        if armor is not None:
            penalty = (
                armor.dodge_penalty
                if armor.dodge_penalty is not None
                else int(self.options.armor_dodge_penalty.of(armor.weight))
            )
        return max(0, fighter.spec.sheet.skills.dodge - penalty)

    # --- Edge -----------------------------------------------------------------------------
    def _policy(self, fighter: Fighter) -> models.Tactics:
        return fighter.spec.rule_tactics or _DEFAULT_TACTICS

    def _can_spend(self, fighter: Fighter, offensive: bool) -> bool:
        st = fighter.state
        if not self.options.edge:
            return False
        reserve = self._policy(fighter).reserve if offensive else 0
        return st.edge > reserve

    def _spend(self, battle: Battle, fighter: Fighter, use: str, why: str) -> None:
        st = fighter.state
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
    def initiative(self, battle: Battle, fighter: Fighter) -> list[int]:
        """Ruling 16: Reflexes + initiative dice; Edge adds 2d6 for this turn (seed "Edge" 2)."""
        sheet, o = fighter.spec.sheet, self.options
        faces = battle.roll.d(6, sheet.initiative_dice) if sheet.initiative_dice else []
        policy = self._policy(fighter).initiative
        extra: list[int] = []
        if (
            policy == "always" or (policy == "first_turn" and battle.turn == 1)
        ) and self._can_spend(fighter, offensive=True):
            self._spend(battle, fighter, "initiative", "+2d6 initiative this turn")
            extra = battle.roll.d(6, dice.EDGE_DAMAGE_DICE)
        result = sheet.attributes.reflexes + sum(faces) + sum(extra)
        scores = action_scores(result, o.action_step, o.max_actions)
        if battle.tracing:
            edge = f" + Edge {extra}" if extra else ""
            battle.trace(
                "initiative",
                f"{fighter.name}: Reflexes {sheet.attributes.reflexes} + {faces}{edge} = "
                f"{result} -> acts at {', '.join(map(str, scores))}",
                actor=fighter,
                result=result,
                scores=scores,
            )
        return scores

    def initiative_penalty(self, fighter: Fighter) -> int:
        """Injuries do not slow initiative (ruling 16 setting: they bring Disadvantage)."""
        return 0

    def initiative_tiebreak(self, fighter: Fighter) -> int:
        return fighter.spec.sheet.attributes.reflexes

    # --- status ---------------------------------------------------------------------------
    def can_act(self, fighter: Fighter) -> bool:
        st = fighter.state
        return st.physical < st.dead_at and st.step < DOWN

    def status(self, fighter: Fighter) -> str:
        st = fighter.state
        if st.physical >= st.dead_at:
            return "dead"
        if st.step >= DOWN:
            return "dying" if st.physical >= st.thresholds[-1] else "unconscious"
        return "wounded" if st.total else "unhurt"

    def movement(self, fighter: Fighter) -> tuple[float, float]:
        """Walk and run meters, slowed by armor heavier than light (seed "Damage mitigation")."""
        factor = self.options.armor_speed.of(self.armor_weight(fighter))
        return self.options.walk * factor, self.options.run * factor

    def threat(self, fighter: Fighter) -> float:
        sheet = fighter.spec.sheet
        best = 0.0
        for w in fighter.spec.weapons:
            bonus, _ = self.skill_bonus(sheet, w.skill_name)
            st = sheet.attributes.strength if w.code.strength is None else w.code.strength
            mean = 3.5 * (w.code.dice + (1 if w.burst else 0)) + st
            best = max(best, bonus * mean)
        return best

    def harm(self, fighter: Fighter) -> float:
        st = fighter.state
        return min(1.0, st.total / st.thresholds[-1])

    def record(self, fighter: Fighter) -> dict:
        st = fighter.state
        return {
            "health": st.health,
            "physical": st.physical,
            "stun": st.stun,
            "injury": "dead" if st.physical >= st.dead_at else INJURY_NAMES[st.step],
            "edge_left": st.edge,
            "edge_max": st.edge_max,
            **{f"edge_{use}": st.spent[use] for use in EDGE_USES},
            "edge_burned": st.burned,
            "failure_disadvantages": st.failure_disadvantages,
            "checks": st.checks,
            "check_successes": st.successes,
            "doubles": st.doubles,
            "hits_stopped": st.stopped,
            "armor_pt": st.pt,
            "armor_dr": st.dr,
        }

    def max_autofire(self, fighter: Fighter, weapon) -> int:
        return self.options.burst_rounds if weapon.burst else 1

    # --- attack checks --------------------------------------------------------------------
    def conditions(
        self,
        battle: Battle,
        attacker: Fighter,
        effects: list[tuple[str, models.Effect]],
        explain: bool = True,
    ) -> tuple[list[str], list[str], list[str], int, list[str]]:
        """Add the attacker's visibility and injury to ``effects``; split them into
        (Advantage sources, Disadvantage sources, removed conditions, TN modifier, notes).
        The notes are left empty without ``explain`` (an untraced battle)."""
        o = self.options
        st = attacker.state
        known = st.sight
        if known is None:  # once per battle: the sheet and the visibility do not change
            known = st.sight = self._sight(battle, attacker)
        gone, seen = known
        removed: list[str] = [gone] if gone is not None else []
        if seen is not None:
            effects = [*effects, seen]
        step = st.step
        if (o.injury_disadvantage == "serious" and step >= SERIOUS) or (
            o.injury_disadvantage == "critical" and step >= CRITICAL
        ):
            effects = [*effects, (f"{INJURY_NAMES[step]} injury", _DISADVANTAGE)]
        adv, dis, tn, notes = [], [], 0, []
        for why, e in effects:
            if e.tn:
                tn += e.tn
                if explain:
                    notes.append(f"{why} {e.tn:+d}")
            if e.advantage:
                adv.append(why)
            if e.disadvantage:
                dis.append(why)
        return adv, dis, removed, tn, notes

    def _sight(self, battle: Battle, attacker: Fighter) -> tuple[str | None, tuple | None]:
        """The visibility's condition for this fighter: ``(why it is removed, None)`` when its
        vision or goggles remove it, else ``(None, (name, effect))``."""
        sheet = attacker.spec.sheet
        visibility = battle.environment.visibility
        sight = getattr(self.options.visibility, visibility)
        if sight.removed_by and sheet.sights() & set(sight.removed_by):
            by = sorted(sheet.sights() & set(sight.removed_by))[0]
            return f"{visibility.replace('_', ' ')} (removed by {by.replace('_', ' ')})", None
        return None, (visibility.replace("_", " "), sight)

    def attack_check(
        self,
        battle: Battle,
        attacker: Fighter,
        skill: str,
        tn: int,
        adv: list[str],
        dis: list[str],
        removed: list[str],
        what: str,
        kind: str = "attack",
    ) -> dice.CheckResult:
        """Seed "Success checks": mode from the conditions, Edge by policy, 2d10/3d10 + bonus.

        ``kind`` says which checks are related for ruling 23: a pending Disadvantage from a
        failed check joins the conditions (so Advantage cancels it and Edge may remove it) and
        is spent by this check; this check's own failure tier may leave a new one."""
        sheet = attacker.spec.sheet
        st = attacker.state
        pending = st.pending
        if pending is not None and pending.applies_to(kind):
            dis = [*dis, pending]
            st.pending = None
            st.failure_disadvantages += 1
        known = st.bonuses.get(skill)
        if known is None:  # once per skill and battle: the sheet does not change
            known = st.bonuses[skill] = self.skill_bonus(sheet, skill)
        bonus, how = known
        base = dice.check_mode(bool(adv), bool(dis))
        use = None
        policy = self._policy(attacker)
        if (dis or not adv) and policy.attack != "never" and self._can_spend(attacker, True):
            option = dice.EDGE_REMOVE_DISADVANTAGE if dis else dice.EDGE_GAIN_ADVANTAGE
            bought = dice.check_mode(bool(adv), bool(dis), edge=option)
            p = hit_chance(bonus - tn, base.mode)
            p_edge = hit_chance(bonus - tn, bought.mode, True)
            want = {
                "always": True,
                "disadvantaged": bool(dis),
                "low_odds": p < policy.attack_below and p_edge - p >= policy.attack_gain,
            }[policy.attack]
            if want:
                use = option
                self._spend(
                    battle,
                    attacker,
                    "attack",
                    f"{use.replace('_', ' ')} on the {what} check (P(hit) {p:.0%} -> {p_edge:.0%})",
                )
        mode = dice.check_mode(bool(adv), bool(dis), edge=use)
        result = dice.roll_check(battle.roll.d, bonus, tn, mode.mode, mode.edge)
        scope = None
        if self.options.failure_disadvantage:
            scope = dice.failure_disadvantage(result.tier)
        if scope is not None:
            st.pending = PendingDisadvantage(scope, kind, result.tier, result.mos)
        st.checks += 1
        st.successes += result.success
        st.doubles += result.double
        if battle.tracing:
            battle.trace(
                "roll",
                f"{what} check: {describe_check(result)}; bonus {bonus} ({how}); "
                + describe_mode(adv, dis, removed, use)
                + (describe_pending(st.pending) if scope is not None else ""),
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
        return result

    # --- ranged combat --------------------------------------------------------------------
    def ranged_tn(
        self, battle: Battle, attacker: Fighter, target: Fighter, weapon
    ) -> tuple[int, list[str], list[str], list[str], list[str]]:
        """Ruling 16: range band TN + Dodge + conditions. Returns TN, notes, adv, dis, removed."""
        o = self.options
        explain = battle.tracing
        distance = battle.distance(attacker, target)
        band = 3
        for i, top in enumerate(weapon.ranges):
            if distance <= top:
                band = i
                break
        tn = o.range_tn.band(band)
        notes = [f"{BANDS[band]} range {distance:.1f} m: {tn}"] if explain else []
        dodge = self.dodge(target) if o.dodge and target.can_act else 0
        if dodge:
            tn += dodge
            if explain:
                notes.append(f"{target.name}'s Dodge {dodge:+d}")
        effects: list[tuple[str, models.Effect]] = []
        if target.cover != "none":
            effects.append((f"{target.cover} cover", getattr(o.cover, target.cover)))
        if target.running:
            effects.append(("target running", o.target_running))
        if attacker.moved_this_action > 0:
            effects.append(("attacker moving", o.attacker_moving))
        if battle.opponents_in_melee(attacker):
            effects.append(("enemy in reach", o.attacker_in_melee))
        if weapon.smartgun and attacker.spec.sheet.smartlink:
            effects.append(("smartlink", o.smartlink))
        if weapon.scope and band >= 2 and attacker.moved_this_action == 0:
            effects.append(("scope", o.scope))
        adv, dis, removed, mod, more = self.conditions(battle, attacker, effects, explain)
        return tn + mod, notes + more, adv, dis, removed

    def ranged_attack(
        self, battle: Battle, attacker: Fighter, target: Fighter, weapon, shots: int, sweep=()
    ) -> None:
        """One attack check per action; a burst (``shots`` > 1) is one check with +1d6.

        Seed 003 has no sweeping fire: a burst is one attack on ``target``, and the further
        targets of a ``sweep`` tactic are ignored (their rounds are spent with the burst).
        """
        burst = shots > 1
        tn, notes, adv, dis, removed = self.ranged_tn(battle, attacker, target, weapon)
        if battle.tracing:
            mode = f"burst of {shots}" if burst else "single shot"
            battle.trace(
                "attack",
                f"{attacker.name} fires {attacker.weapon_label(weapon)} at {target.name} "
                f"({mode}); TN {tn} = " + ", ".join(notes),
                actor=attacker,
                tn=tn,
                shots=shots,
            )
        attacker.shots += 1
        check = self.attack_check(
            battle,
            attacker,
            weapon.skill_name,
            tn,
            adv,
            dis,
            removed,
            weapon.skill_name.replace("_", " ").title() if battle.tracing else weapon.skill_name,
        )
        if check.success:
            self.hit(battle, attacker, target, weapon, check, burst)

    # --- damage ---------------------------------------------------------------------------
    def hit(
        self, battle: Battle, attacker: Fighter, target: Fighter, weapon, check, burst: bool
    ) -> None:
        """Seed "Variable damage rolls" and "Damage mitigation" through the dice layer."""
        attacker.hits += 1
        code = weapon.code
        strength = code.strength
        if strength is None:  # melee: the wielder's Strength
            strength = attacker.spec.sheet.attributes.strength
        mos_dice = check.extra_damage_dice
        st = target.state
        edge = False
        policy = self._policy(attacker).damage
        if policy != "never" and self._can_spend(attacker, offensive=True):
            n = dice.damage_dice(code.dice, mos_dice, burst)
            expected = 3.5 * n + strength
            if policy == "always" or expected < st.pt:
                edge = True
                why = "+2d6 damage" + (
                    f" (expected {expected:g} below PT {st.pt})" if policy == "vs_armor" else ""
                )
                self._spend(battle, attacker, "damage", why)
        n = dice.damage_dice(code.dice, mos_dice, burst, edge)
        rolled = dice.resolve_damage(
            battle.roll.d(6, n), code.dice, strength, mos_dice, burst, edge
        )
        dealt = dice.apply_armor(rolled.total, st.pt, st.dr)
        if battle.tracing:
            parts = [f"{code.dice} weapon"]
            if mos_dice:
                parts.append(f"{mos_dice} MoS")
            if burst:
                parts.append(f"{dice.BURST_DICE} burst")
            if edge:
                parts.append(f"{dice.EDGE_DAMAGE_DICE} Edge")
            st_name = "Strength" if code.strength is None else "weapon ST"
            if st.pt == 0 and st.dr == 0:
                armor = "no armor"
            elif dealt == 0:
                armor = f"stopped by PT {st.pt} (DR {st.dr})"
            else:
                armor = f"PT {st.pt}/DR {st.dr} soaks {rolled.total - dealt} -> {dealt}"
            battle.trace(
                "damage_roll",
                f"damage {n}d6 ({' + '.join(parts)}) {list(rolled.faces)} + {st_name} "
                f"{strength} = {rolled.total}{' Stun' if weapon.stun else ''}; {armor}",
                actor=attacker,
                faces=list(rolled.faces),
                total=rolled.total,
                dealt=dealt,
                pt=st.pt,
                dr=st.dr,
            )
        if dealt == 0:
            st.stopped += 1
            o = self.options
            if o.armor_degradation_pt or o.armor_degradation_dr:
                st.pt = max(0, st.pt - o.armor_degradation_pt)
                st.dr = max(0, st.dr - o.armor_degradation_dr)
                if battle.tracing:
                    battle.trace(
                        "armor",
                        f"{target.name}'s armor degrades to PT {st.pt}/DR {st.dr}",
                        actor=target,
                    )
            return
        self.injure(battle, attacker, target, dealt, weapon.stun)

    def injure(
        self, battle: Battle, attacker: Fighter | None, target: Fighter, damage: int, stun: bool
    ) -> None:
        """Ruling 16 health and injury, with Edge to lessen an injury or burn to survive."""
        st = target.state
        policy = self._policy(target)
        before = st.step
        physical = st.physical + (0 if stun else damage)
        total = st.total + damage
        note = ""
        if not stun and physical >= st.dead_at:
            # A killing blow: only Edge Burn prevents death (seed "Edge Burn").
            if (
                policy.burn
                and self.options.edge
                and (st.edge >= 1 or (not self.options.burn_needs_edge and st.edge_max >= 1))
            ):
                damage = st.dead_at - 1 - st.physical
                st.edge = max(0, st.edge - 1)
                st.edge_max -= 1
                st.burned += 1
                note = "; Edge Burn: survives the killing blow"
                if battle.tracing:
                    battle.trace(
                        "edge",
                        f"{target.name} burns Edge to survive a killing blow "
                        f"(Edge {st.edge}, maximum {st.edge_max})",
                        actor=target,
                        use="burn",
                    )
        else:
            after = injury_step(total, st.thresholds)
            if (
                after > before
                and after >= MODERATE  # a grazing blow is the lightest injury (seed "Edge" 4)
                and (policy.lessen == "always" or (policy.lessen == "would_drop" and after >= DOWN))
                and self._can_spend(target, offensive=False)
            ):
                cut = total - (step_floor(after, st.thresholds) - 1)
                self._spend(
                    battle,
                    target,
                    "lessen",
                    f"lessen the injury {INJURY_NAMES[after]} -> {INJURY_NAMES[after - 1]} "
                    f"({damage} damage -> {damage - cut})",
                )
                damage -= cut
        if stun:
            st.stun += damage
        else:
            st.physical += damage
        injury = "dead" if st.physical >= st.dead_at else INJURY_NAMES[st.step]
        if damage > 0:
            what = (
                f"hit of {damage}{' Stun' if stun else ''} damage: {st.total}/{st.health}, "
                f"{injury}{note}"
                if battle.tracing
                else ""
            )
            battle.damage_dealt(attacker, target, damage, what)
        elif battle.tracing:
            battle.trace(
                "injury",
                f"{target.name} takes no damage: {st.total}/{st.health}, {injury}{note}",
                actor=target,
            )

    # --- melee ----------------------------------------------------------------------------
    def melee_attack(
        self, battle: Battle, attacker: Fighter, target: Fighter, weapon, interception: bool = False
    ) -> None:
        """Ruling 16: Melee check against melee TN + the defender's Dodge (or Melee ranks when
        that is better: a parry); damage Nd6 + the wielder's Strength. An interception (a
        mover passing within reach) is the same attack made out of turn."""
        o = self.options
        weapon = weapon if weapon is not None else FISTS
        tn = o.melee_tn
        notes = [f"melee {tn}"]
        if target.can_act:
            defence = self.dodge(target) if o.dodge else 0
            parry = target.spec.sheet.skills.melee if o.melee_parry else 0
            if parry > defence:
                notes.append(f"{target.name}'s parry (Melee) {parry:+d}")
                tn += parry
            elif defence:
                notes.append(f"{target.name}'s Dodge {defence:+d}")
                tn += defence
        adv, dis, removed, mod, more = self.conditions(battle, attacker, [])
        tn += mod
        if battle.tracing:
            verb = "intercepts" if interception else "attacks"
            name = "bare hands" if weapon is FISTS else attacker.weapon_label(weapon)
            battle.trace(
                "attack",
                f"{attacker.name} {verb} {target.name} in melee with {name}; TN {tn} = "
                + ", ".join(notes + more),
                actor=attacker,
                tn=tn,
            )
        attacker.shots += 1
        check = self.attack_check(battle, attacker, "melee", tn, adv, dis, removed, "Melee")
        if check.success:
            self.hit(battle, attacker, target, weapon, check, burst=False)

    # --- grenades: seed 003 gives no blast rules --------------------------------------------
    def throw_grenade(self, battle, thrower, weapon, aim):
        raise NotImplementedError("sr2097 has no grenades: seed 003 gives no blast rules")

    def grenade_blast(self, battle, thrower, weapon, at) -> None:
        raise NotImplementedError("sr2097 has no grenades: seed 003 gives no blast rules")

    def blast_radius(self, weapon) -> float:
        return 0.0


_DEFAULT_TACTICS = models.Tactics()
_DISADVANTAGE = models.Effect(disadvantage=True)


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
