"""The 4D8 roll-under system (seed 004) as a rule system: ``4d8``.

An attack is one 4D8 test (``combatsim.dice.fourd8``): the ease of the attack by range band (or
melee) and difficulty, capped at 32 (seed 004 "Ease"), plus the attacker's ability bonuses for
the weapon within its energy (seed 004 "Abilities"), -8 without a required ability (seed 004
"Necessary Abilities"), is the chance of success. Over 32 the attacker's tactics choose an
automatic success, a doubles roll or a bonus roll (ruling 21). A success deals the weapon's
damage plus the bonus of its degree's band in ``rules.options.degree_damage`` (ruling 22), plus
what the combination's aspects add (``rules.options.effects``: a physical triple hits harder, a
mental one finds the gap in the armor, a social one staggers), less armor.

Designed here because the seed gives no combat layer (docs/rules-4d8.md): one action per
turn at 10 + Co-ordination + 1d8; health, down at 0 and dead at -health; armor that stops points
of every hit; snake-eyes costs the roller its next action; grenades land on the aim point on a
success and as many meters off as the roll missed by on a failure.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from fractions import Fraction
from typing import TYPE_CHECKING

from ...dice import fourd8 as dice
from ..base import RuleSystem, register
from ..points import PointPoolRules
from . import levers as fourd8_levers
from . import models

if TYPE_CHECKING:
    from ..base import Battle, Fighter

RANGE_NAMES = ("short", "medium", "long", "extreme")


@dataclass(slots=True)
class FourD8State:
    """A combatant's mutable state in one battle."""

    health: int
    max_health: int
    armor: int
    lucky_breaks: int = 0  # four alike on a success
    triples: int = 0
    snake_eyes: int = 0
    staggered_others: int = 0
    without_required: int = 0  # rolls taken at -8 for a missing required ability
    over32: dict = field(default_factory=dict)  # over-32 choice -> times made
    prev_target: object = None  # whom the previous action shot at (for aiming)
    this_target: object = None
    bonuses: dict = field(default_factory=dict)  # id(weapon) -> (bonuses used, missing, sum)


@dataclass(frozen=True)
class Chance:
    """The chance of success of one test and how it was made up (for the trace)."""

    ease: int
    ease_notes: tuple[str, ...]
    bonuses: tuple[tuple[str, int], ...]  # (ability or reason, bonus used)
    missing: str | None  # the required ability the roller lacks
    chance: int

    def text(self) -> str:
        parts = [f"ease {self.ease} ({', '.join(self.ease_notes)})"]
        parts += [f"{why} {b:+d}" for why, b in self.bonuses if b]
        if self.missing:
            parts.append(f"no {self.missing} -{dice.MISSING_ABILITY_PENALTY}")
        return " ".join(parts[:1]) + "".join(f", {p}" for p in parts[1:]) + f" = {self.chance}"


@register
class FourD8(PointPoolRules, RuleSystem):
    """``4d8``: seed 004's roll-under 4D8 test with rulings 20-22."""

    pool = "health"
    name = "4d8"
    Options = models.Options
    Sheet = models.Sheet
    Weapon = models.Weapon
    Armor = models.Armor
    Tactics = models.Tactics

    def levers(self, sheet, armors):
        """Abilities, Energy, Health, armor by rating (``levers.py``)."""
        return fourd8_levers.levers(sheet, armors)

    def __init__(self, options: models.Options):
        super().__init__(options)
        self._expected: dict[tuple, Fraction] = {}

    # --- state, initiative, status -----------------------------------------------------------
    def new_state(self, fighter: Fighter) -> FourD8State:
        sheet, armor = fighter.spec.sheet, fighter.spec.armor
        return FourD8State(
            health=sheet.health, max_health=sheet.health, armor=armor.rating if armor else 0
        )

    def initiative(self, battle: Battle, fighter: Fighter) -> list[int]:
        """One action per turn at ``initiative_base`` + the initiative ability's bonus + 1d8."""
        bonus = self.initiative_tiebreak(fighter)
        die = battle.roll.d(dice.SIDES, 1)[0]
        score = max(1, self.options.initiative_base + bonus + die)
        if battle.tracing:
            battle.trace(
                "initiative",
                f"{fighter.name}: {self.options.initiative_base} + "
                f"{self.options.initiative_ability} {bonus:+d} + [{die}] = {score}",
                actor=fighter,
                result=score,
                scores=[score],
            )
        return [score]

    def initiative_penalty(self, fighter: Fighter) -> int:
        return 0  # wounds make tasks harder (difficulty.wounded), not slower

    def initiative_tiebreak(self, fighter: Fighter) -> int:
        return fighter.spec.sheet.bonus(self.options.initiative_ability)

    def begin_action(self, battle: Battle, fighter: Fighter) -> None:
        st = fighter.state
        st.prev_target, st.this_target = st.this_target, None

    def threat(self, fighter: Fighter) -> float:
        sheet = fighter.spec.sheet
        best = 0.0
        for w in fighter.spec.weapons:
            bonus, _ = self._bonuses(sheet, w)
            best = max(best, (10 + sum(b for _, b in bonus)) * max(1, w.damage))
        return best

    def record(self, fighter: Fighter) -> dict:
        st = fighter.state
        return {
            "health_left": st.health,
            "lucky_breaks": st.lucky_breaks,
            "triples": st.triples,
            "snake_eyes": st.snake_eyes,
            "staggered_others": st.staggered_others,
            "rolls_without_required": st.without_required,
            "over32_choices": ";".join(f"{k}:{v}" for k, v in sorted(st.over32.items())),
        }

    # --- the chance of success (seed 004 "Mechanics", "Abilities", "Necessary Abilities") ----
    def _bonuses(self, sheet, weapon) -> tuple[list[tuple[str, int]], str | None]:
        """Bonuses used for ``weapon`` and the required ability the sheet lacks, if any.

        Positive bonuses together are capped at the sheet's energy (seed 004 "Abilities");
        weaknesses (negative bonuses) always count. A required ability is lacking unless the
        sheet has a positive bonus in it or it is an occupation bonus skill.
        """
        skills = weapon.skills if weapon is not None else models.DEFAULT_ABILITIES["melee"]
        used: list[tuple[str, int]] = []
        room = sheet.energy
        for skill in skills:
            b = sheet.bonus(skill)
            if b > 0:
                b = min(b, room)
                room -= b
            used.append((skill, b))
        if sheet.chance_modifier:
            used.append(("standing modifier", sheet.chance_modifier))
        required = weapon.requires if weapon is not None else None
        missing = (
            required
            if required and sheet.bonus(required) <= 0 and required not in sheet.occupation_skills
            else None
        )
        return used, missing

    def chance(
        self,
        battle: Battle,
        attacker: Fighter,
        target: Fighter | None,
        weapon,
        ranged: bool,
        at: tuple[float, float] | None = None,
    ) -> Chance:
        """Ease by range (or melee) and difficulty, capped at 32, plus bonuses (seed 004)."""
        o, diff = self.options, self.options.difficulty
        st = attacker.state
        notes: list[str] | None = [] if battle.tracing else None
        if ranged:
            where = target.position if target is not None else at
            distance = math.dist(attacker.position, where)
            band = 0
            for top in weapon.ranges:
                if distance <= top:
                    break
                band += 1
            band = min(band, 3)
            name = RANGE_NAMES[band]
            ease = getattr(o.ease, name)
            if notes is not None:
                notes.append(f"{name} range {ease}")
        else:
            ease = o.melee_ease
            if notes is not None:
                notes.append(f"melee {ease}")
        mods: list[tuple[int, str]] = []  # the modifiers that apply, for the trace
        if weapon is not None and weapon.ease_modifier:
            mods.append((weapon.ease_modifier, "weapon"))
        if ranged and target is not None:
            if target.cover != "none":
                mods.append((getattr(diff.cover, target.cover), f"{target.cover} cover"))
            if st.prev_target is target and attacker.moved_this_action == 0:
                mods.append((diff.aiming, "aiming"))
            if target.running:
                mods.append((diff.target_running, "target running"))
        if ranged:
            if attacker.moved_this_action > 0:
                mods.append((diff.attacker_moving, "attacker moving"))
            if battle.opponents_in_melee(attacker):
                mods.append((diff.engaged, "enemy in reach"))
        vis = battle.environment.visibility
        mods.append((getattr(diff.visibility, vis), vis))
        if st.max_health - st.health >= o.wounded_at * st.max_health:
            mods.append((diff.wounded, "wounded"))
        for mod, why in mods:
            if mod:
                ease += mod
                if notes is not None:
                    notes.append(f"{why.replace('_', ' ')} {mod:+d}")
        if ease > dice.MAX_EASE:  # seed 004 "Ease": 32 is the highest possible value
            if notes is not None:
                notes.append(f"capped at {dice.MAX_EASE}")
            ease = dice.MAX_EASE
        known = st.bonuses.get(id(weapon))
        if known is None:  # once per weapon and battle: the sheet does not change
            used, missing = self._bonuses(attacker.spec.sheet, weapon)
            total = dice.chance(0, [b for _, b in used], required_missing=missing is not None)
            known = st.bonuses[id(weapon)] = (tuple(used), missing, total)
        used, missing, bonus = known
        return Chance(ease, tuple(notes or ()), used, missing, ease + bonus)

    # --- over 32 (ruling 21) ------------------------------------------------------------------
    def over32_choice(self, fighter: Fighter, c: int, damage: int, armor: int) -> str:
        """The fighter's over-32 choice; ``best`` picks the highest exact expected damage."""
        tactics = fighter.spec.rule_tactics
        policy = tactics.over32 if tactics is not None else dice.DEFAULT_OVER32
        if policy != "best" or c < dice.OVER32_THRESHOLD:
            return dice.DEFAULT_OVER32 if policy == "best" else policy
        return max(
            ("bonus", "doubles", "automatic"),  # ties go to the first: the seed's default
            key=lambda mode: self.expected_damage(c, mode, damage, armor),
        )

    def expected_damage(self, c: int, mode: str, damage: int, armor: int) -> Fraction:
        """Exact expected damage of one attack (combination effects left out)."""
        key = (c, mode, damage, armor)
        if key not in self._expected:
            self._expected[key] = sum(
                (
                    p * max(0, damage + self.degree_bonus(degree) - armor)
                    for (success, degree, _), p in dice.exact_outcomes(c, mode).items()
                    if success
                ),
                Fraction(0),
            )
        return self._expected[key]

    def degree_bonus(self, degree: int) -> int:
        """Ruling 22: the extra damage of the band ``degree`` falls in (``degree_damage``)."""
        bonus = 0
        for low, extra in self.options.degree_damage.items():
            if degree >= low:
                bonus = extra
        return bonus

    # --- one test ------------------------------------------------------------------------------
    def test(
        self, battle: Battle, fighter: Fighter, c: Chance, mode: str, what: str
    ) -> dice.FourD8Result:
        """Roll through the dice layer; count what the sheet records; snake-eyes (option)."""
        st = fighter.state
        if c.missing:
            st.without_required += 1
        if c.chance >= dice.OVER32_THRESHOLD:
            st.over32[mode] = st.over32.get(mode, 0) + 1
        r = dice.roll(battle.roll.d, c.chance, mode)
        if r.success and r.kind == "four_alike":
            st.lucky_breaks += 1
        if r.success and r.kind == "triple":
            st.triples += 1
        if battle.tracing:
            shown = "laid down" if r.mode == "automatic" else "rolls"
            how = "" if r.mode == "normal" else f" ({r.mode} roll)"
            outcome = (
                f"success, degree {r.degree}" + _combination_text(r) if r.success else "failure"
            )
            battle.trace(
                "roll",
                f"{what}: chance {c.text()}{how}; {shown} {list(r.faces)} = {r.total} -> {outcome}",
                actor=fighter,
                faces=list(r.faces),
                chance=c.chance,
                success=r.success,
                degree=r.degree,
                combination=r.kind,
            )
        # Ruling 24: four 1s are snake-eyes on every roll that is rolled (option for bonus rolls).
        if r.kind == "snake_eyes" and (r.mode != "bonus" or self.options.bonus_roll_snake_eyes):
            st.snake_eyes += 1
            if self.options.snake_eyes == "lose_action":
                fighter.lose_next_action = "snake-eyes"
                if battle.tracing:
                    battle.trace(
                        "snake_eyes",
                        f"snake-eyes: {fighter.name} loses the next action",
                        actor=fighter,
                    )
        return r

    # --- attacks ------------------------------------------------------------------------------
    def _attack(
        self,
        battle: Battle,
        attacker: Fighter,
        target: Fighter,
        weapon,
        ranged: bool,
        interception: bool = False,
    ) -> None:
        c = self.chance(battle, attacker, target, weapon, ranged)
        damage = weapon.damage if weapon is not None else self.options.unarmed_damage
        pierce = weapon.pierce if weapon is not None else 0
        armor = max(0, target.state.armor - pierce)
        mode = self.over32_choice(attacker, c.chance, damage, armor)
        if battle.tracing:
            verb = "fires at" if ranged else "intercepts" if interception else "attacks"
            battle.trace(
                "attack",
                f"{attacker.name} {verb} {target.name} with {_weapon_name(attacker, weapon)}",
                actor=attacker,
            )
        attacker.shots += 1
        r = self.test(battle, attacker, c, mode, "attack")
        if not r.success:
            if battle.tracing:
                battle.trace("miss", f"a miss ({r.total} over {c.chance})", actor=attacker)
            return
        attacker.hits += 1
        effect = (
            self.options.effects.effect(r.kind, r.aspects)
            if self.options.special_effects
            else models.Effect()
        )
        armor = max(0, armor - effect.pierce)
        points = damage + self.degree_bonus(r.degree) + effect.damage
        how = ""  # the trace's words for the damage, only when tracing
        if battle.tracing:
            how = f"{damage} + degree {self.degree_bonus(r.degree)}"
            if effect.damage:
                how += f" + {r.kind.replace('_', ' ')} {effect.damage}"
        self.hurt(battle, attacker, target, points, armor, "hit", how)
        if effect.stagger and target.can_act:
            target.lose_next_action = "staggered"
            attacker.state.staggered_others += 1
            if battle.tracing:
                battle.trace(
                    "effect",
                    f"social {r.kind.replace('_', ' ')}: {target.name} is staggered and loses "
                    "the next action",
                    actor=target,
                )

    # --- grenades -----------------------------------------------------------------------------
    def throw_grenade(
        self, battle: Battle, thrower: Fighter, weapon, aim: tuple[float, float]
    ) -> tuple[float, float]:
        """A success lands on the aim point; a failure as many meters off as the total
        exceeded the chance, in a random direction."""
        c = self.chance(battle, thrower, None, weapon, ranged=True, at=aim)
        mode = self.over32_choice(thrower, c.chance, weapon.damage, 0)
        thrower.shots += 1
        r = self.test(battle, thrower, c, mode, "throw")
        off = 0.0 if r.success else float(max(1, r.total - c.chance))
        angle = battle.roll.angle() if off else 0.0
        at = (aim[0] + off * math.cos(angle), aim[1] + off * math.sin(angle))
        if battle.tracing:
            battle.trace(
                "grenade",
                f"{thrower.name} throws {_weapon_name(thrower, weapon)}: lands {off:g} m off, at "
                f"({at[0]:.1f}, {at[1]:.1f})",
                actor=thrower,
            )
        return at

    def grenade_blast(
        self, battle: Battle, thrower: Fighter, weapon, at: tuple[float, float]
    ) -> None:
        """Everyone within the blast radius takes the grenade's damage, less armor."""
        for victim in battle.fighters:
            if self.status(victim) == "dead":
                continue
            if math.dist(victim.position, at) > weapon.blast_radius:
                continue
            armor = max(0, victim.state.armor - weapon.pierce)
            self.hurt(battle, thrower, victim, weapon.damage, armor, "blast", f"{weapon.damage}")


def _combination_text(r: dice.FourD8Result) -> str:
    if r.kind == "none":
        return ""
    if r.kind == "two_pairs":
        groups = " and ".join("/".join(g) for g in r.groups)
        return f", two pairs ({groups})"
    return f", {r.kind.replace('_', ' ')} ({'/'.join(r.aspects)})"


def _weapon_name(fighter: Fighter, weapon) -> str:
    return "bare hands" if weapon is None else fighter.weapon_label(weapon)
