"""The 4D8 roll-under system (docs/rules-4d8.md) as a rule system: ``4d8``.

An attack is one 4D8 test (``combatsim.dice.fourd8``): the ease of the attack by range band (or
melee) and difficulty, capped at 32 ("Ease"), plus the attacker's ability bonuses for
the weapon within its energy ("Abilities"), -8 without a required ability (
"Necessary Abilities"), is the chance of success. Over 32 the attacker's tactics choose an
automatic success, a doubles roll or a bonus roll (ruling 21). A success deals the weapon's
damage plus the bonus of its degree's band in ``rules.options.degree_damage`` (ruling 22), plus
what the combination's aspects add (``rules.options.effects``: a physical triple hits harder, a
mental one finds the gap in the armor, a social one staggers), less armor.

Designed here because the rules give no combat layer (docs/rules-4d8.md): one action per
turn at 10 + Co-ordination + 1d8; health, down at 0 and dead at -health; armor that stops points
of every hit; snake-eyes costs the roller its next action; grenades land on the aim point on a
success and as many meters off as the roll missed by on a failure.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import TYPE_CHECKING, Any

from mypy_extensions import mypyc_attr

from ...dice import fourd8 as dice
from ..base import (
    ExactHooks,
    Explainable,
    ExtraColumns,
    Grenades,
    RuleSystem,
    SpecCache,
    StartingConditions,
)
from ..points import PointPoolRules
from ..situation import (
    Scatter,
    band_of,
    band_tops,
    circumstance_labels,
    labelled,
    signed,
    weapon_name,
)
from . import levers as fourd8_levers
from . import models

if TYPE_CHECKING:
    from collections.abc import Callable, Mapping, Sequence

    from ..base import Battle, C
    from ..levers import Lever

RANGE_NAMES = ("short", "medium", "long", "extreme")
NO_EFFECT = (0, 0, False)  # (damage, pierce, stagger) a hit's combination adds


class Arms:
    """What a fighter's tests with one weapon (``None``: bare hands) need, worked out once per
    fighter spec: the sheet and the weapon do not change during a battle."""

    __slots__ = ("bonus", "used", "missing", "damage", "pierce", "ease", "ranges")

    def __init__(self, system: FourD8, sheet: models.Sheet, weapon: models.Weapon | None):
        used, missing = system._bonuses(sheet, weapon)
        self.used = tuple(used)  # (ability or reason, bonus used), for the trace
        self.missing = missing  # the required ability the sheet lacks
        # ease + this is the chance ("Abilities", "Necessary Abilities")
        self.bonus = dice.chance(0, [b for _, b in used], required_missing=missing is not None)
        self.damage = weapon.damage if weapon is not None else system.options.unarmed_damage
        self.pierce = weapon.pierce if weapon is not None else 0
        self.ease = weapon.ease_modifier if weapon is not None else 0
        # the range bands' tops (``band_of``): beyond long, extreme
        self.ranges = band_tops(weapon.ranges, 3) if weapon is not None else None


class Kit:
    """A fighter spec's constants for every battle: health, armor, its arms by ``id(weapon)``,
    its initiative, its over-32 policy and its threat."""

    __slots__ = (
        "health",
        "armor",
        "wounded_loss",
        "arms",
        "tiebreak",
        "initiative",
        "over32",
        "threat",
    )

    def __init__(self, system: FourD8, spec: Any):
        o, sheet = system.options, spec.sheet
        self.health = sheet.health
        self.armor = spec.armor.rating if spec.armor else 0
        self.wounded_loss = o.wounded_at * sheet.health  # health lost from which "wounded"
        self.arms = {id(w): Arms(system, sheet, w) for w in (*spec.weapons, None)}
        self.tiebreak = sheet.bonus(o.initiative_ability)
        self.initiative = o.initiative_base + self.tiebreak  # before the d8
        tactics = spec.rule_tactics
        self.over32 = tactics.over32 if tactics is not None else dice.DEFAULT_OVER32
        best = 0.0
        for w in (*spec.weapons, None):  # bare hands too: an unarmed brawler is a threat
            used, _ = system._bonuses(sheet, w)
            damage = w.damage if w is not None else o.unarmed_damage
            best = max(best, (10 + sum(b for _, b in used)) * max(1, damage))
        self.threat = best


class FourD8State:
    """A combatant's mutable state in one battle; its spec's constants in ``kit``, the ones
    read on every action also flat here."""

    __slots__ = (
        "kit",
        "health",
        "max_health",
        "armor",
        "wounded_loss",
        "wounded",
        "arms",
        "initiative",
        "tiebreak",
        "take",
        "lucky_breaks",
        "triples",
        "snake_eyes",
        "staggered_others",
        "without_required",
        "over32",
        "prev_target",
        "this_target",
    )

    def __init__(self, kit: Kit):
        self.kit = kit
        self.health = self.max_health = kit.health
        self.armor = kit.armor
        self.wounded_loss = kit.wounded_loss
        self.wounded = False  # lost wounded_loss or more: kept up to date by ``hurt``
        self.arms = kit.arms  # id(weapon) -> Arms
        self.initiative = kit.initiative
        self.tiebreak = kit.tiebreak
        # the battle's d8s (``battle.roll.taker(1, 8)``), once first asked for
        self.take: Callable[[int], list[int]] | None = None
        self.lucky_breaks = 0  # four alike on a success
        self.triples = 0
        self.snake_eyes = 0
        self.staggered_others = 0
        self.without_required = 0  # rolls taken at -8 for a missing required ability
        self.over32: dict[str, int] = {}  # over-32 choice -> times made
        self.prev_target: object = None  # whom the previous action shot at (for aiming)
        self.this_target: object = None


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


@mypyc_attr(allow_interpreted_subclasses=True)
class FourD8(
    PointPoolRules,
    Grenades,
    StartingConditions,
    Explainable[models.Sheet, models.Armor],
    ExtraColumns,
    ExactHooks,
    RuleSystem[models.Options, models.Sheet, models.Armor],
):
    """``4d8``: the roll-under 4D8 test with rulings 20-22.

    The hot path (``ranged_attack``: ``_ease``, ``_test``, ``hurt``) reads flat per-battle state and
    constants worked out once: per fighter spec (``Kit``), per system (the ease tables, the
    degree's damage by degree, every roll's combination and its effect by faces).

    No ``exact_dice``: an exact answer (``combatsim.exact``) walks an attack's four d8 face by
    face, which is one roll of 8^4 = 4,096 ways (a few hundredths of a second), and the rule
    code reads the faces themselves (their combination and its aspects' effect, a bonus roll's
    highest die), so nothing coarser than the faces could stand in for them.
    """

    pool = "health"
    name = "4d8"
    damage_unit = "health points"
    running_stops_shooting = True  # as in the classic rules: the engine's ruling for every system
    # starting conditions (ruling 27, ``PointPoolRules``): wounds are health points lost
    start_keys = ("wounds",)
    Options = models.Options
    Sheet = models.Sheet
    Weapon = models.Weapon
    Armor = models.Armor
    Tactics = models.Tactics

    def levers(self, sheet: models.Sheet, armors: Mapping[str, models.Armor]) -> list[Lever]:
        """Abilities, Energy, Health, armor by rating (``levers.py``)."""
        return fourd8_levers.levers(sheet, armors)

    def __init__(self, options: models.Options):
        super().__init__(options)
        o, diff = options, options.difficulty
        self._expected: dict[tuple, Fraction] = {}
        self._kits = SpecCache()  # spec -> its Kit
        self._range_ease = tuple(getattr(o.ease, name) for name in RANGE_NAMES)
        self._cover_ease = dict(diff.cover)
        self._visibility = {vis: (mod, vis.replace("_", " ")) for vis, mod in diff.visibility}
        self._visibility_ease = dict(diff.visibility)
        # the difficulty read on every attack, flat (``_ease``)
        self._wounded_ease, self._aiming_ease = diff.wounded, diff.aiming
        self._running_ease, self._moving_ease = diff.target_running, diff.attacker_moving
        self._engaged_ease, self._melee_ease = diff.engaged, o.melee_ease
        self._degree_damage = [self.degree_bonus(d) for d in range(4 * dice.MAX_EASE + 1)]
        self._faces: dict | None = None  # faces -> (total, degree, kind, effect): first battle

    def __reduce__(self) -> tuple[type, tuple]:
        """Ship the options, not the caches: a worker rebuilds them at its first battle.
        (Compiled, setup.py, the system has no ``__dict__`` to copy.)"""
        return type(self), (self.options,)

    def _faces_table(self) -> dict:
        """``dice.face_table`` with each roll's combination effect (``rules.options.effects``;
        ``NO_EFFECT`` without ``special_effects``) as ``(damage, pierce, stagger)``."""
        effects: dict[tuple, tuple[int, int, bool]] = {}
        table = {}
        for faces, (total, degree, kind, aspects) in dice.face_table().items():
            effect = NO_EFFECT
            if self.options.special_effects and kind in models.COMBINATIONS:
                known = effects.get((kind, aspects))
                if known is None:
                    e = self.options.effects.effect(kind, aspects)
                    known = effects[(kind, aspects)] = (e.damage, e.pierce, e.stagger)
                effect = known
            table[faces] = (total, degree, kind, effect)
        return table

    # --- state, initiative, status -----------------------------------------------------------
    def new_state(self, fighter: C) -> FourD8State:
        return FourD8State(self._kits.get(fighter.spec, self._new_kit))

    def _new_kit(self, spec: Any) -> Kit:
        """A spec's ``Kit``, and the faces table the first time one is made."""
        if self._faces is None:
            self._faces = self._faces_table()
        return Kit(self, spec)

    def initiative(self, battle: Battle[C], fighter: C) -> list[int]:
        """One action per turn at ``initiative_base`` + the initiative ability's bonus + 1d8."""
        st: FourD8State = fighter.state
        take = st.take
        if take is None:
            take = st.take = battle.roll.taker(1, dice.SIDES)
        die = take(1)[0]
        score = st.initiative + die
        if score < 1:
            score = 1
        if battle.tracing:
            battle.trace(
                "initiative",
                f"{fighter.name}: {self.options.initiative_base} + "
                f"{self.options.initiative_ability} {st.tiebreak:+d} + [{die}] = {score}",
                actor=fighter,
                result=score,
                scores=[score],
            )
        return [score]

    def initiative_tiebreak(self, fighter: C) -> int:
        return fighter.state.tiebreak

    def begin_action(self, battle: Battle[C], fighter: C) -> None:
        st: FourD8State = fighter.state
        st.prev_target, st.this_target = st.this_target, None

    def threat(self, fighter: C) -> float:
        return fighter.state.kit.threat

    def condition(self, fighter: C) -> str:
        """Status and health left, the ease its wounds cost and an action it will lose (a
        social combination's stagger): "wounded: 5/12 health, -2 ease for wounds, staggered"."""
        st: FourD8State = fighter.state
        text = f"{self.status(fighter)}: {st.health}/{st.max_health} health"
        if fighter.can_act:
            ease = self.options.difficulty.wounded
            if st.wounded and ease:
                text += f", {ease:+d} ease for wounds"
            lost = fighter.lose_next_action  # True or the reason ("staggered")
            if lost:
                text += f", {lost}" if lost is not True else ", loses the next action"
        return text

    def record(self, fighter: C) -> dict:
        st: FourD8State = fighter.state
        return {
            "health_left": st.health,
            "lucky_breaks": st.lucky_breaks,
            "triples": st.triples,
            "snake_eyes": st.snake_eyes,
            "staggered_others": st.staggered_others,
            "rolls_without_required": st.without_required,
            "over32_choices": ";".join(f"{k}:{v}" for k, v in sorted(st.over32.items()))
            if st.over32
            else "",
        }

    # --- the chance of success ("Mechanics", "Abilities", "Necessary Abilities") ---------
    def _bonuses(
        self, sheet: models.Sheet, weapon: models.Weapon | None
    ) -> tuple[list[tuple[str, int]], str | None]:
        """Bonuses used for ``weapon`` and the required ability the sheet lacks, if any.

        Positive bonuses together are capped at the sheet's energy ("Abilities");
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

    def _ease(
        self,
        battle: Battle[C],
        attacker: C,
        target: C | None,
        arms: Arms,
        ranged: bool,
        at: tuple[float, float] | None,
        notes: list[str] | None,
    ) -> int:
        """Ease by range (or melee) and difficulty, capped at 32 ("Ease"; ruling 21): the
        situation of the attack (``battle.situation``) as 4D8's modifiers, added up. Traced
        (``notes`` a list), each part that applies is named in the trace's order
        (``_ease_notes``): one path, whose text alone waits on the trace."""
        st: FourD8State = attacker.state
        visibility = battle.environment.visibility
        vis = self._visibility_ease[visibility]
        wounded = self._wounded_ease if st.wounded else 0
        if not ranged:
            ease = self._melee_ease + arms.ease + vis + wounded
            if notes is not None:
                values: tuple[int, ...] = (arms.ease, vis, wounded)
                self._ease_notes(notes, -1, self._melee_ease, values, "none", visibility, ease)
            return ease if ease <= dice.MAX_EASE else dice.MAX_EASE
        s = battle.situation(attacker, target, at)
        band = band_of(arms.ranges, s.distance)  # type: ignore[arg-type]  # a gun has ranges
        # the same situation Lost Souls' ``circumstances`` adds up inline: one shared method
        # cost a call per attack (+1.5% of a battle here, +2% there, measured); each modifier
        # a local (a tuple of them, summed, cost 2-4% of a battle): the trace gets the same ones
        cover = target.cover if target is not None else "none"
        moved = attacker.moved_this_action > 0
        aimed = target is not None and st.prev_target is target and not moved
        covered = self._cover_ease[cover] if cover != "none" else 0
        aiming = self._aiming_ease if aimed else 0
        running = self._running_ease if target is not None and target.running else 0
        moving = self._moving_ease if moved else 0
        engaged = self._engaged_ease if s.engaged else 0
        base = self._range_ease[band]
        ease = base + arms.ease + covered + aiming + running + moving + engaged + vis + wounded
        if notes is not None:
            values = (arms.ease, covered, aiming, running, moving, engaged, vis, wounded)
            self._ease_notes(notes, band, base, values, cover, visibility, ease)
        return ease if ease <= dice.MAX_EASE else dice.MAX_EASE  # "Ease": at most 32 (ruling 21)

    def _ease_notes(
        self,
        notes: list[str],
        band: int,
        base: int,
        values: tuple[int, ...],
        cover: str,
        visibility: str,
        ease: int,
    ) -> None:
        """The trace's words for ``_ease``'s parts: the range band's (or melee's) ease, then
        every modifier that is not 0 (``situation.labelled``), then the cap if it bit."""
        seen = self._visibility[visibility][1]
        if band >= 0:
            notes.append(f"{RANGE_NAMES[band]} range {base}")
            labels: tuple[str, ...] = ("weapon", *circumstance_labels(cover, seen))
        else:
            notes.append(f"melee {base}")
            labels = ("weapon", seen, "wounded")
        notes.extend(signed(labelled(values, labels)))
        if ease > dice.MAX_EASE:
            notes.append(f"capped at {dice.MAX_EASE}")

    # --- over 32 (ruling 21) ------------------------------------------------------------------
    def over32_choice(self, fighter: C, c: int, damage: int, armor: int) -> str:
        """The fighter's over-32 choice; ``best`` picks the highest exact expected damage."""
        policy = fighter.state.kit.over32
        if policy != "best" or c < dice.OVER32_THRESHOLD:
            return dice.DEFAULT_OVER32 if policy == "best" else policy
        return max(
            ("bonus", "doubles", "automatic"),  # ties go to the first: the rules' default
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
    def _test(
        self,
        battle: Battle[C],
        fighter: C,
        arms: Arms,
        chance: int,
        mode: str,
        what: str,
        notes: list[str] | None,
    ) -> tuple[bool, int, int, str, tuple[int, int, bool]]:
        """Roll one test (``mode``: ``"normal"`` or the over-32 choice); count what the sheet
        records; snake-eyes (option). Returns ``(success, total, degree, kind, effect)``, the
        effect the combination's ``(damage, pierce, stagger)`` (``rules.options.effects``).

        A normal or doubles roll is looked up by its faces (``dice.face_table``, with the
        effects: ``_faces_table``); a bonus roll and an automatic success follow
        ``dice.resolve``'s rules for them here, and the trace shows ``dice.resolve``'s result."""
        st: FourD8State = fighter.state
        if arms.missing:
            st.without_required += 1
        faces = None
        if mode == "automatic":  # ruling 21: nothing rolled, 8, 6, 5, 4 laid down
            success, total, degree, kind = True, sum(dice.AUTOMATIC_FACES), 8, "none"
            effect = NO_EFFECT
        else:
            take = st.take
            if take is None:
                take = st.take = battle.roll.taker(1, dice.SIDES)
            faces = tuple(take(dice.N_DICE))
            if mode == "bonus":  # ruling 21: chance - 32 on the highest die; only four 8s fail
                bonus = chance - dice.MAX_EASE
                success = faces != dice.ALL_EIGHTS
                total = sum(faces) + bonus
                degree = max(faces) + bonus if success else 0
                kind = "snake_eyes" if faces == dice.SNAKE_EYES else "none"
                effect = NO_EFFECT
            else:
                # made at the first initiative, before any attack
                total, degree, kind, effect = self._faces[faces]  # type: ignore[index]
                # a doubles roll "succeeds on anything but a 32"
                success = total <= chance if mode == "normal" else total != dice.FAIL_TOTAL_DOUBLES
                if not success:
                    degree = 0
        if mode != "normal":
            st.over32[mode] = st.over32.get(mode, 0) + 1
        if success:
            if kind == "four_alike":
                st.lucky_breaks += 1
            elif kind == "triple":
                st.triples += 1
        if notes is not None:
            c = Chance(chance - arms.bonus, tuple(notes), arms.used, arms.missing, chance)
            r = dice.resolve(faces, chance, dice.DEFAULT_OVER32 if mode == "normal" else mode)
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
                chance=chance,
                success=r.success,
                degree=r.degree,
                combination=r.kind,
            )
        # Ruling 24: four 1s are snake-eyes on every roll that is rolled (option for bonus rolls).
        if kind == "snake_eyes" and (mode != "bonus" or self.options.bonus_roll_snake_eyes):
            st.snake_eyes += 1
            if self.options.snake_eyes == "lose_action":
                fighter.lose_next_action = "snake-eyes"
                if battle.tracing:
                    battle.trace(
                        "snake_eyes",
                        f"snake-eyes: {fighter.name} loses the next action",
                        actor=fighter,
                    )
        return success, total, degree, kind, effect

    # --- attacks ------------------------------------------------------------------------------
    def ranged_attack(
        self,
        battle: Battle[C],
        attacker: C,
        target: C,
        weapon: models.Weapon | None,
        shots: int = 1,
        sweep: Sequence[tuple[C, int]] = (),
        *,
        ranged: bool = True,
        interception: bool = False,
    ) -> None:
        """One attack: chance, over-32 choice, test, and on a success the damage (ruling 22).

        Ranged, one roll whatever the rounds (a burst is one attack), and the target is
        remembered so that a follow-up shot at it can count as aimed. ``melee_attack`` calls
        it with ``ranged=False``."""
        tracing = battle.tracing
        notes: list[str] | None = [] if tracing else None
        if ranged:
            attacker.state.this_target = target
        arms = attacker.state.arms.get(id(weapon))
        if arms is None:  # a weapon not on the sheet
            arms = Arms(self, attacker.spec.sheet, weapon)
        chance = self._ease(battle, attacker, target, arms, ranged, None, notes) + arms.bonus
        damage = arms.damage
        armor = target.state.armor - arms.pierce
        if armor < 0:
            armor = 0
        mode = (
            "normal"
            if chance < dice.OVER32_THRESHOLD
            else self.over32_choice(attacker, chance, damage, armor)
        )
        if tracing:
            verb = "fires at" if ranged else "intercepts" if interception else "attacks"
            battle.trace(
                "attack",
                f"{attacker.name} {verb} {target.name} with {weapon_name(attacker, weapon)}",
                actor=attacker,
                target=target.name,
                weapon=weapon_name(attacker, weapon),
                melee=not ranged,
            )
        attacker.shots += 1
        success, total, degree, kind, effect = self._test(
            battle, attacker, arms, chance, mode, "attack", notes
        )
        if not success:
            if tracing:
                battle.trace("miss", f"a miss ({total} over {chance})", actor=attacker)
            return
        attacker.hits += 1
        extra, pierce, stagger = effect
        if pierce:
            armor = armor - pierce if armor > pierce else 0
        table = self._degree_damage
        band = table[degree] if degree < len(table) else self.degree_bonus(degree)
        how = ""  # the trace's words for the damage, only when tracing
        if tracing:
            how = f"{damage} + degree {band}"
            if extra:
                how += f" + {kind.replace('_', ' ')} {extra}"
        self.hurt(battle, attacker, target, damage + band + extra, armor, "hit", how)
        if stagger and target.can_act:
            target.lose_next_action = "staggered"
            attacker.state.staggered_others += 1
            if tracing:
                battle.trace(
                    "effect",
                    f"social {kind.replace('_', ' ')}: {target.name} is staggered and loses "
                    "the next action",
                    actor=target,
                )

    def _drained(self, state: FourD8State) -> None:
        """The wounded modifier follows health (kept here, read by every test)."""
        state.wounded = state.max_health - state.health >= state.wounded_loss

    # --- grenades -----------------------------------------------------------------------------
    def throw_grenade(
        self, battle: Battle[C], thrower: C, weapon: models.Weapon, aim: tuple[float, float]
    ) -> Scatter:
        """A success lands on the aim point; a failure as many meters off as the total
        exceeded the chance, in a random direction."""
        notes: list[str] | None = [] if battle.tracing else None
        arms = thrower.state.arms.get(id(weapon))
        if arms is None:  # a weapon not on the sheet
            arms = Arms(self, thrower.spec.sheet, weapon)
        chance = self._ease(battle, thrower, None, arms, True, aim, notes) + arms.bonus
        mode = (
            "normal"
            if chance < dice.OVER32_THRESHOLD
            else self.over32_choice(thrower, chance, weapon.damage, 0)
        )
        thrower.shots += 1
        success, total, *_ = self._test(battle, thrower, arms, chance, mode, "throw", notes)
        off = 0.0 if success else float(max(1, total - chance))
        text = ""
        if notes is not None:
            text = f"{thrower.name} throws {weapon_name(thrower, weapon)}: lands {off:g} m off, at "
        return Scatter(off, False, text)

    def blast_points(self, battle: Battle[C], weapon: models.Weapon) -> tuple[int, int, str]:
        """The grenade's damage, whatever the distance inside the blast."""
        return weapon.damage, weapon.pierce, f"{weapon.damage}"


def _combination_text(r: dice.FourD8Result) -> str:
    if r.kind == "none":
        return ""
    if r.kind == "two_pairs":
        groups = " and ".join("/".join(g) for g in r.groups)
        return f", two pairs ({groups})"
    return f", {r.kind.replace('_', ' ')} ({'/'.join(r.aspects)})"
