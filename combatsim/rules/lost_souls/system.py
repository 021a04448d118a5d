"""Lost Souls bonus and penalty dice (seed 001) as a rule system: ``lost-souls``.

Every attack is a percentile roll read on the Action Results Table column of the attacker's
ability (ruling 18; the table is data, and ``rules.options.action_table`` swaps in the book's).
The circumstances of the attack become bonus and penalty dice as the scenario's
``rules.options.circumstances`` say; with a called shot's penalty dice, an assistant's die and
Karma-bought dice they cancel one for one and are capped at 5 either way (ruling 17). A success
tier hits for its damage points times the weapon's damage multiplier, +1 per called-shot die
(seed 001 "Combat"; ruling 19), less the target's armor. The dice themselves are
``combatsim.dice.lost_souls``; this module only decides which dice are rolled and what the
result does.

Designed here because the seed gives no combat layer (docs/rules-lost-souls.md): one
action per turn in order of Reflexes + 1d10; life points, down at 0 and dead at -life;
armor that stops points of every hit; cooperative attacks, resolved inside the lead's attack
when an ally whose tactics allow it stands near and still has this turn's action, which it
then spends (seed 001 "Cooperative Rolls"); grenades that land on the aim point on a success.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from ...dice import lost_souls as dice
from ...errors import ScenarioError
from ..base import RuleSystem, register
from ..points import PointPoolRules
from . import levers as ls_levers
from . import models
from .models import DEFAULT_ABILITY, SUCCESS_TIERS

if TYPE_CHECKING:
    from ..base import Battle, Fighter

RANGE_NAMES = ("short", "medium", "long")


@dataclass(slots=True)
class LSState:
    """A combatant's mutable state in one battle."""

    life: int
    max_life: int
    armor: int
    karma: int
    karma_spent: int = 0
    actions_left: int = 0  # this turn's actions not yet started nor promised to an ally
    assist_owed: str | None = None  # the lead this fighter's next action is spent helping
    assists: int = 0
    assisted: int = 0
    called_shot_dice: int = 0
    catastrophes: int = 0
    prev_target: object = None  # whom the previous action shot at (for aiming)
    this_target: object = None


class NetDice:
    """The net dice of one roll and why, as (dice, reason) pairs in the order they were added.

    A plain slotted class with the total worked out as the parts are added: every attack
    makes a few of these (one per added source), so they must be cheap to build. An
    untraced battle reads only the total: its ``circumstances`` come with no parts.
    """

    __slots__ = ("parts", "total")

    def __init__(self, parts: tuple[tuple[int, str], ...], total: int | None = None):
        self.parts = parts
        self.total = sum(d for d, _ in parts) if total is None else total

    def __eq__(self, other: object) -> bool:
        return isinstance(other, NetDice) and other.parts == self.parts

    def __hash__(self) -> int:
        return hash(self.parts)

    def __repr__(self) -> str:
        return f"NetDice({self.parts!r})"

    @property
    def net(self) -> int:
        """Ruling 17: cancelled one for one, at most 5 either way."""
        total, cap = self.total, dice.MAX_NET_DICE
        return cap if total > cap else -cap if total < -cap else total

    def plus(self, n: int, why: str) -> NetDice:
        return NetDice((*self.parts, (n, why)), self.total + n) if n else self

    def text(self) -> str:
        shown = ", ".join(f"{why} {d:+d}" for d, why in self.parts) or "no dice"
        capped = f" (capped at {self.net:+d})" if self.net != self.total else ""
        return f"{shown} -> net {self.total:+d}{capped}"


@register
class LostSouls(PointPoolRules, RuleSystem):
    """``lost-souls``: seed 001's bonus and penalty dice with rulings 17-19."""

    pool = "life"
    name = "lost-souls"
    Options = models.Options
    Sheet = models.Sheet
    Weapon = models.Weapon
    Armor = models.Armor
    Tactics = models.Tactics

    def levers(self, sheet, armors):
        """Abilities by table column, Reflexes, Life, Karma, dice, armor (``levers.py``)."""
        labels = (self._table or dice.default_table()).column_labels
        return ls_levers.levers(sheet, armors, labels)

    def __init__(self, options: models.Options):
        super().__init__(options)
        self._table: dice.ActionTable | None = None
        self._coop: dict[tuple, float] = {}

    # --- the Action Results Table (ruling 18) ----------------------------------------------
    def check_scenario(self, scenario) -> None:
        """Load ``rules.options.action_table`` (relative to the scenario file) at load time and
        check every sheet's columns against it, so ``combatsim validate`` catches both."""
        self._table = self._load_table(scenario)

    def table(self, battle: Battle) -> dice.ActionTable:
        """The table in force (loaded by ``check_scenario``)."""
        if self._table is None:
            self._table = self._load_table(battle.scenario)
        return self._table

    def _load_table(self, scenario) -> dice.ActionTable:
        path = self.options.action_table
        if path is None:
            table = dice.default_table()
        else:
            full = Path(path)
            if not full.is_absolute():
                full = Path(scenario.source).parent / full
            try:
                table = dice.load_table(full)
            except ScenarioError as err:
                if err.path != "(file)":
                    raise  # inside the table: the loader adds the scenario's line
                raise ScenarioError(
                    scenario.source,
                    "rules.options.action_table",
                    path,
                    f"an Action Results Table file relative to the scenario (here: {err.found})",
                ) from None
        labels = table.column_labels
        for f in scenario.fighters:
            for ability, label in f.sheet.abilities.items():
                if label not in labels:
                    raise ScenarioError(
                        scenario.source,
                        f"{f.name}: abilities.{ability}",
                        label,
                        "a column of the Action Results Table: " + ", ".join(map(str, labels)),
                    )
        return table

    def column(self, table: dice.ActionTable, fighter: Fighter, weapon) -> int | str:
        """The attacker's column for ``weapon``: its ability's, or the weakest when it lacks it."""
        skill = weapon.skill if weapon is not None else DEFAULT_ABILITY["melee"]
        label = fighter.spec.sheet.abilities.get(skill)
        return table.columns[0].label if label is None else label

    # --- state, initiative, status -----------------------------------------------------------
    def new_state(self, fighter: Fighter) -> LSState:
        sheet, armor = fighter.spec.sheet, fighter.spec.armor
        return LSState(
            life=sheet.life,
            max_life=sheet.life,
            armor=armor.rating if armor else 0,
            karma=sheet.karma,
        )

    def initiative(self, battle: Battle, fighter: Fighter) -> list[int]:
        """One action per turn, at Reflexes + 1d10 (``initiative_die``)."""
        sheet, st = fighter.spec.sheet, fighter.state
        die = battle.roll.d(self.options.initiative_die, 1)[0]
        score = max(1, sheet.reflexes + die)
        st.actions_left = 1
        st.assist_owed = None
        if battle.tracing:
            battle.trace(
                "initiative",
                f"{fighter.name}: Reflexes {sheet.reflexes} + [{die}] = {score}",
                actor=fighter,
                result=score,
                scores=[score],
            )
        return [score]

    def initiative_penalty(self, fighter: Fighter) -> int:
        return 0  # wounds cost dice (circumstances.wounded), not initiative

    def initiative_tiebreak(self, fighter: Fighter) -> int:
        return fighter.spec.sheet.reflexes

    def begin_action(self, battle: Battle, fighter: Fighter) -> None:
        st = fighter.state
        st.prev_target, st.this_target = st.this_target, None
        if st.assist_owed is not None:  # the action was promised to an ally (ruling 19)
            fighter.lose_next_action = f"spent assisting {st.assist_owed}"
            if battle.tracing:
                battle.trace(
                    "assist",
                    f"{fighter.name}'s action went into helping {st.assist_owed}",
                    actor=fighter,
                )
            st.assist_owed = None
        else:
            st.actions_left = max(0, st.actions_left - 1)

    def threat(self, fighter: Fighter) -> float:
        """Column position (1 = weakest) times the weapon's multiplier, the best weapon's."""
        labels = (self._table or dice.default_table()).column_labels
        best = 0.0
        for w in fighter.spec.weapons:
            label = fighter.spec.sheet.abilities.get(w.skill)
            level = labels.index(label) + 1 if label in labels else 1
            best = max(best, level * w.multiplier)
        return best

    def record(self, fighter: Fighter) -> dict:
        st = fighter.state
        return {
            "life_left": st.life,
            "karma_spent": st.karma_spent,
            "assists_given": st.assists,
            "assisted_attacks": st.assisted,
            "called_shot_dice": st.called_shot_dice,
            "catastrophes": st.catastrophes,
        }

    # --- dice for one roll --------------------------------------------------------------------
    def circumstances(
        self,
        battle: Battle,
        attacker: Fighter,
        target: Fighter | None,
        weapon,
        ranged: bool,
        at: tuple[float, float] | None = None,
    ) -> NetDice:
        """Bonus and penalty dice from the situation, as ``rules.options.circumstances`` say.

        ``target`` None with a point ``at`` is a grenade thrown at the ground: no cover, no aim,
        no running target.
        """
        c = self.options.circumstances
        sheet, st = attacker.spec.sheet, attacker.state
        # Untraced, only the total is read: the (dice, reason) parts are kept only when tracing.
        tracing = battle.tracing
        parts: list[tuple[int, str]] | None = [] if tracing else None
        total = 0
        if ranged:
            if weapon is not None:
                where = target.position if target is not None else at
                band = self._band(math.dist(attacker.position, where), weapon)
                n = c.range[band]
                total += n
                if tracing:
                    parts.append((n, f"{RANGE_NAMES[band]} range"))
            if target is not None:
                if target.cover != "none":
                    n = getattr(c.cover, target.cover)
                    total += n
                    if tracing:
                        parts.append((n, f"{target.cover} cover"))
                if st.prev_target is target and attacker.moved_this_action == 0:
                    total += c.aiming
                    if tracing:
                        parts.append((c.aiming, "aiming"))
                if target.running:
                    total += c.target_running
                    if tracing:
                        parts.append((c.target_running, "target running"))
            if attacker.moved_this_action > 0:
                total += c.attacker_moving
                if tracing:
                    parts.append((c.attacker_moving, "attacker moving"))
            if battle.opponents_in_melee(attacker):
                total += c.engaged
                if tracing:
                    parts.append((c.engaged, "enemy in reach"))
        if not sheet.sees_in_dark:
            vis = battle.environment.visibility
            n = getattr(c.visibility, vis)
            total += n
            if tracing:
                parts.append((n, vis.replace("_", " ")))
        if st.max_life - st.life >= self.options.wounded_at * st.max_life:
            total += c.wounded
            if tracing:
                parts.append((c.wounded, "wounded"))
        if weapon is not None:
            total += weapon.quality
            if tracing:
                parts.append((weapon.quality, "gear"))
        total += sheet.extra_dice
        if not tracing:
            return NetDice((), total)
        parts.append((sheet.extra_dice, "standing dice"))
        return NetDice(tuple(p for p in parts if p[0]), total)

    @staticmethod
    def _band(distance: float, weapon) -> int:
        """0, 1, 2: short, medium, long (beyond long counts as long)."""
        for band, top in enumerate(weapon.ranges):
            if distance <= top:
                return band
        return 2

    def roll(self, battle: Battle, fighter: Fighter, column, d: NetDice, what: str) -> dice.Tier:
        """Roll d% with the net dice through the dice layer and read ``column``."""
        table = self.table(battle)
        if not battle.tracing:  # the same faces, no record of them
            return table.tier_of(dice.roll_value(battle.roll.taker(1, 10), d.net), column)
        result = dice.roll(battle.roll.d, d.net)
        tier = table.tier_of(result.value, column)
        extra = result.bonus or result.penalty
        kind = "bonus" if result.bonus else "penalty"
        shown = f" {kind} {list(extra)}" if extra else ""
        kept = " (replaced)" if result.replaced else ""
        battle.trace(
            "roll",
            f"{what}: column {column}, {d.text()}: tens {result.tens} ones {result.ones}"
            f"{shown} -> {result.value:02d}{kept} = {tier.name}",
            actor=fighter,
            roll=result.value,
            net=d.net,
            tier=tier.name,
            success=tier.success,
        )
        return tier

    # --- cooperative attacks (seed 001 "Cooperative Rolls"; ruling 19) ------------------------
    def find_assistant(
        self, battle: Battle, lead: Fighter, target: Fighter, ranged: bool
    ) -> tuple[Fighter, object, int | str, NetDice] | None:
        """The ally best placed to help ``lead``'s attack, with its weapon, column and dice.

        An ally can help when its tactics allow it, it can act, it still has this turn's action
        (nothing promised, nothing lost), stands within ``assist_distance`` of the lead and can
        reach the target with a weapon (a loaded firearm in range, or melee reach).
        """
        table = self.table(battle)
        best, best_value = None, -math.inf
        for ally in battle.fighters:
            tactics = ally.spec.rule_tactics
            st = ally.state
            if (
                ally is lead
                or ally.side != lead.side
                or not ally.can_act
                or tactics is None
                or tactics.assist == "never"
                or st.actions_left <= 0
                or st.assist_owed is not None
                or ally.lose_next_action
                or battle.distance(ally, lead) > self.options.assist_distance
            ):
                continue
            weapon = self._assist_weapon(battle, ally, target, ranged)
            if weapon is False:
                continue
            column = self.column(table, ally, weapon)
            d = self.circumstances(battle, ally, target, weapon, ranged)
            value = self._coop_value(table, column, d.net)
            if tactics.assist == "when_helpful" and value <= 0:
                continue
            if value > best_value:
                best, best_value = (ally, weapon, column, d), value
        return best

    def _assist_weapon(self, battle: Battle, ally: Fighter, target: Fighter, ranged: bool):
        """The weapon the ally helps with (None: bare hands), or False when it cannot help."""
        distance = battle.distance(ally, target)
        if ranged:
            for i, w in enumerate(ally.spec.weapons):
                if w.kind == "firearm" and ally.ammo[i] > 0 and distance <= w.max_range:
                    return w
            return False
        if distance > battle.environment.melee_range:
            return False
        return next((w for w in ally.spec.weapons if w.kind == "melee"), None)

    def _coop_value(self, table: dice.ActionTable, column, net: int) -> float:
        """P(Good or better) - P(Inferior or worse): the expected die an assistant gives."""
        key = (column, net)
        if key not in self._coop:
            dist = dice.exact_tier(column, net, table=table)
            value = dist.prob(lambda t: dice.cooperative_dice(t, table) == 1) - dist.prob(
                lambda t: dice.cooperative_dice(t, table) == -1
            )
            self._coop[key] = float(value)
        return self._coop[key]

    def assist(self, battle: Battle, lead: Fighter, target: Fighter, ranged: bool) -> int:
        """Let the best placed ally roll first; return the lead's extra die (+1, -1 or 0)."""
        found = self.find_assistant(battle, lead, target, ranged)
        if found is None:
            return 0
        ally, weapon, column, d = found
        st = ally.state
        st.actions_left -= 1
        st.assist_owed = lead.name
        st.assists += 1
        lead.state.assisted += 1
        if ranged and weapon is not None:  # covering fire costs a round
            ally.ammo[ally.spec.weapons.index(weapon)] -= 1
        if battle.tracing:
            battle.trace(
                "assist",
                f"{ally.name} helps {lead.name} against {target.name} "
                f"with {_weapon_name(ally, weapon)} (spends its next action)",
                actor=ally,
            )
        tier = self.roll(battle, ally, column, d, "assist")
        return dice.cooperative_dice(tier, self.table(battle))

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
        """One attack roll: circumstances, called shot, assistant, Karma; tier; damage."""
        table = self.table(battle)
        st = attacker.state
        tactics = attacker.spec.rule_tactics
        column = self.column(table, attacker, weapon)
        d = self.circumstances(battle, attacker, target, weapon, ranged)
        called = tactics.called_shot if tactics is not None else 0
        d = d.plus(-called, "called shot")
        if battle.tracing:
            verb = "fires at" if ranged else "intercepts" if interception else "attacks"
            battle.trace(
                "attack",
                f"{attacker.name} {verb} {target.name} with {_weapon_name(attacker, weapon)}"
                + (f" (called shot, {called} penalty dice)" if called else ""),
                actor=attacker,
            )
        if not interception:
            d = d.plus(self.assist(battle, attacker, target, ranged), "assistant")
        d = self._karma(battle, attacker, tactics, d)
        attacker.shots += 1
        st.called_shot_dice += called
        tier = self.roll(battle, attacker, column, d, "attack")
        if tier.rank == 0:
            st.catastrophes += 1
            if self.options.catastrophe == "lose_action":
                attacker.lose_next_action = "catastrophe"
                if battle.tracing:
                    battle.trace(
                        "catastrophe", f"{attacker.name} loses the next action", actor=attacker
                    )
        if not tier.success:
            if battle.tracing:
                battle.trace("miss", f"{tier.name}: a miss", actor=attacker)
            return
        attacker.hits += 1
        base = weapon.multiplier if weapon is not None else self.options.unarmed_multiplier
        multiplier = dice.called_shot_multiplier(base, called)
        points = self.options.hit_damage[tier.rank - (len(table.tiers) - SUCCESS_TIERS)]
        piercing = weapon.armor_piercing if weapon is not None else 0
        armor = max(0, target.state.armor - piercing)
        self.hurt(
            battle,
            attacker,
            target,
            points * multiplier,
            armor,
            f"{tier.name} hit" if battle.tracing else "",
            f"{points} x {multiplier}" if battle.tracing else "",
        )

    def _karma(self, battle: Battle, fighter: Fighter, tactics, d: NetDice) -> NetDice:
        """Seed 001 "Karma and Bonus Dice"; ruling 19: 2 Karma a bonus die, at most 3, as the
        fighter's tactics say; never more than would pass the cap of 5."""
        if tactics is None or tactics.karma == "never":
            return d
        if tactics.karma == "when_penalized" and d.total >= 0:
            return d
        st = fighter.state
        room = dice.MAX_NET_DICE - d.total
        n = min(tactics.karma_dice, st.karma // dice.KARMA_PER_BONUS_DIE, max(0, room))
        if n <= 0:
            return d
        points = n * dice.KARMA_PER_BONUS_DIE
        bought = dice.karma_bonus_dice(points)
        st.karma -= points
        st.karma_spent += points
        if battle.tracing:
            battle.trace(
                "karma",
                f"{fighter.name} spends {points} Karma for {bought} bonus "
                f"{'die' if bought == 1 else 'dice'} ({st.karma} left)",
                actor=fighter,
            )
        return d.plus(bought, "Karma")

    # --- grenades -----------------------------------------------------------------------------
    def throw_grenade(
        self, battle: Battle, thrower: Fighter, weapon, aim: tuple[float, float]
    ) -> tuple[float, float]:
        """A success lands on the aim point; a failure ``grenade_miss`` meters off per tier
        below the first success, in a random direction."""
        table = self.table(battle)
        column = self.column(table, thrower, weapon)
        d = self.circumstances(battle, thrower, None, weapon, ranged=True, at=aim)
        d = self._karma(battle, thrower, thrower.spec.rule_tactics, d)
        thrower.shots += 1
        tier = self.roll(battle, thrower, column, d, "throw")
        below = max(0, (len(table.tiers) - SUCCESS_TIERS) - tier.rank)
        off = self.options.grenade_miss * below
        angle = battle.roll.angle() if off else 0.0
        at = (aim[0] + off * math.cos(angle), aim[1] + off * math.sin(angle))
        if battle.tracing:
            battle.trace(
                "grenade",
                f"{thrower.name} throws {_weapon_name(thrower, weapon)}: {tier.name}, lands "
                f"{off:g} m off at ({at[0]:.1f}, {at[1]:.1f})",
                actor=thrower,
            )
        return at

    def grenade_blast(
        self, battle: Battle, thrower: Fighter, weapon, at: tuple[float, float]
    ) -> None:
        """Everyone within the blast radius takes multiplier x ``blast_points``, less armor."""
        points = weapon.multiplier * self.options.blast_points
        for victim in battle.fighters:
            if self.status(victim) == "dead":
                continue
            if math.dist(victim.position, at) > weapon.blast_radius:
                continue
            armor = max(0, victim.state.armor - weapon.armor_piercing)
            how = f"{weapon.multiplier} x {self.options.blast_points}"
            self.hurt(battle, thrower, victim, points, armor, "blast", how)


def _weapon_name(fighter: Fighter, weapon) -> str:
    return "bare hands" if weapon is None else fighter.weapon_label(weapon)
