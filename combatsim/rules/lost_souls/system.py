"""Lost Souls bonus and penalty dice (docs/rules-lost-souls.md) as a rule system: ``lost-souls``.

Every attack is a percentile roll read on the Action Results Table column of the attacker's
ability (ruling 18; the table is data, and ``rules.options.action_table`` swaps in the book's).
The circumstances of the attack become bonus and penalty dice as the scenario's
``rules.options.circumstances`` say; with a called shot's penalty dice, an assistant's die and
Karma-bought dice they cancel one for one and are capped at 5 either way (ruling 17). A success
tier hits for its damage points times the weapon's damage multiplier, +1 per called-shot die
("Combat"; ruling 19), less the target's armor. The dice themselves are
``combatsim.dice.lost_souls``; this module only decides which dice are rolled and what the
result does.

Designed here because the rules give no combat layer (docs/rules-lost-souls.md): one
action per turn in order of Reflexes + 1d10; life points, down at 0 and dead at -life;
armor that stops points of every hit; cooperative attacks, resolved inside the lead's attack
when an ally whose tactics allow it stands near and still has this turn's action, which it
then spends ("Cooperative Rolls"); grenades that land on the aim point on a success.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, fields
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal, cast

from mypy_extensions import mypyc_attr

from ...dice import lost_souls as dice
from ...errors import ScenarioError
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
    Situation,
    band_of,
    band_tops,
    circumstance_labels,
    labelled,
    weapon_name,
)
from ..start import KARMA_SPENT
from . import levers as ls_levers
from . import models
from .models import DEFAULT_ABILITY
from .table import load_table

if TYPE_CHECKING:
    from collections.abc import Mapping, Sequence

    from ..base import Battle, C
    from ..levers import Lever

RANGE_NAMES = ("short", "medium", "long")
# ``dice.roll_rank``'s shape: (the battle's d10 faces, capped net dice, the column's grid) -> rank
RollRank = Callable[[Callable[[int], list[int]], int, dice.FaceRanks], int]
MAX_NET = dice.MAX_NET_DICE
KARMA_PER_DIE = dice.KARMA_PER_BONUS_DIE
FIRST_SUCCESS = dice.FIRST_SUCCESS_RANK


def _by_fields(record: Any) -> tuple[type, tuple]:
    """How a frozen record below pickles and copies: made again from its fields. Compiled
    (setup.py), pickle would set them through the frozen ``__setattr__``, which refuses."""
    return type(record), tuple(getattr(record, f.name) for f in fields(record))


@dataclass(slots=True, frozen=True)
class Kit:
    """What an attack with one weapon (None: bare hands) needs, worked out once per combatant
    (``LostSouls._profile``) instead of on every roll. (Slotted: a slot reads several times
    faster than a NamedTuple field or a pydantic model's attribute.)"""

    column: int | str  # the Action Results Table column it is rolled on
    grid: dice.FaceRanks  # that column's tier ranks by faces (``dice.roll_rank``)
    fixed: int  # dice on every roll with it: gear (``quality``) + standing dice
    quality: int
    ranges: tuple[float, ...] | None  # band tops: short, medium, then beyond (band_tops)
    multiplier: int  # damage multiplier before a called shot
    piercing: int  # armor points it ignores

    def __reduce__(self) -> tuple[type, tuple]:
        return _by_fields(self)


@dataclass(slots=True, frozen=True)
class CircumstanceDice:
    """``rules.options.circumstances`` read on every roll, copied flat into slots."""

    range: tuple[int, int, int]
    aiming: int
    target_running: int
    attacker_moving: int
    engaged: int
    wounded: int

    def __reduce__(self) -> tuple[type, tuple]:
        return _by_fields(self)


@dataclass(slots=True, frozen=True)
class Profile:
    """What a combatant's rolls need that no battle changes, from its spec: built once per
    rule system and combatant, shared by its states in every battle (``LostSouls._profile``)."""

    reflexes: int
    sees_in_dark: bool
    standing: int  # the sheet's extra_dice
    wounded_life: int  # at or below this life the 'wounded' dice apply
    called_shot: int
    karma_always: bool  # tactics karma: always
    karma_penalized: bool  # tactics karma: when_penalized
    karma_dice: int
    assist: str
    kits: dict[int, Kit]  # by id(weapon); id(None) is bare hands
    threat: float  # LostSouls.threat, asked per enemy and action by a most_dangerous policy

    def __reduce__(self) -> tuple[type, tuple]:
        return _by_fields(self)


def _unarmed(k: int) -> list[int]:
    """An ``LSState``'s dice before ``LostSouls._arm`` gives it the battle's."""
    raise RuntimeError("a Lost Souls state rolled before its battle armed it")


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
    prev_target: Any = None  # whom the previous action shot at (for aiming)
    this_target: Any = None
    # set by LostSouls._arm when the battle first rolls:
    profile: Profile | None = None
    take10: Callable[[int], list[int]] = _unarmed  # the battle's d10 faces
    take_initiative: Callable[[int], list[int]] = _unarmed  # its initiative die's faces
    light: int = 0  # visibility dice on its rolls (none when it sees in the dark)
    helpers: list | None = None  # the allies whose tactics let them assist this fighter
    # an untraced roll's tier rank from its faces; ``exact_dice`` puts a choice of the rank here
    roll_rank: RollRank = dice.roll_rank


class NetDice:
    """The net dice of one roll and why, as (dice, reason) pairs in the order they were added.

    Built only when tracing, for the roll's line: an untraced battle keeps the running total
    of the dice alone.
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
        return _capped(self.total)

    def text(self) -> str:
        shown = ", ".join(f"{why} {d:+d}" for d, why in self.parts) or "no dice"
        capped = f" (capped at {self.net:+d})" if self.net != self.total else ""
        return f"{shown} -> net {self.total:+d}{capped}"


def _capped(total: int) -> int:
    """Ruling 17: the dice cancel one for one and are capped at 5 either way."""
    return dice.cap_net_dice(total)


@mypyc_attr(allow_interpreted_subclasses=True)
class LostSouls(
    PointPoolRules,
    Grenades,
    StartingConditions,
    Explainable[models.Sheet, models.Armor],
    ExtraColumns,
    ExactHooks,
    RuleSystem[models.Options, models.Sheet, models.Armor],
):
    """``lost-souls``: Lost Souls' bonus and penalty dice with rulings 17-19."""

    pool = "life"
    name = "lost-souls"
    damage_unit = "life points"
    running_stops_shooting = True  # as in the classic rules: the engine's ruling for every system
    # starting conditions (ruling 27, ``PointPoolRules``): wounds are life points lost; spent: Karma
    start_keys = ("wounds", KARMA_SPENT)
    Options = models.Options
    Sheet = models.Sheet
    Weapon = models.Weapon
    Armor = models.Armor
    Tactics = models.Tactics

    def levers(self, sheet: models.Sheet, armors: Mapping[str, models.Armor]) -> list[Lever]:
        """Abilities by table column, Reflexes, Life, Karma, dice, armor (``levers.py``)."""
        labels = (self._table or dice.default_table()).column_labels
        return ls_levers.levers(sheet, armors, labels)

    def __init__(self, options: models.Options):
        super().__init__(options)
        self._table: dice.ActionTable | None = None
        self._coop: dict[tuple, float] = {}
        self._profiles = SpecCache()  # spec -> its Profile
        # the options read on every roll, flat
        c = options.circumstances
        self._c = CircumstanceDice(
            c.range, c.aiming, c.target_running, c.attacker_moving, c.engaged, c.wounded
        )
        self._cover = {"none": 0, **c.cover.model_dump()}
        self._visibility = c.visibility.model_dump()
        self._hit_points = (0,) * FIRST_SUCCESS + tuple(options.hit_damage)  # by tier rank
        self._rank_choices: dict[tuple, tuple] = {}  # (net, grid) -> exact rank options

    # --- the Action Results Table (ruling 18) ----------------------------------------------
    def check_scenario(self, scenario: Any) -> None:
        """Load ``rules.options.action_table`` (relative to the scenario file) at load time and
        check every sheet's columns against it, so ``combatsim validate`` catches both."""
        self._table = self._load_table(scenario)

    def table(self, battle: Battle[C]) -> dice.ActionTable:
        """The table in force (loaded by ``check_scenario``)."""
        if self._table is None:
            self._table = self._load_table(battle.scenario)
        return self._table

    def _load_table(self, scenario: Any) -> dice.ActionTable:
        path = self.options.action_table
        if path is None:
            table = dice.default_table()
        else:
            full = Path(path)
            if not full.is_absolute():
                full = Path(scenario.source).parent / full
            try:
                table = load_table(full)
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

    def column(
        self, table: dice.ActionTable, fighter: C, weapon: models.Weapon | None
    ) -> int | str:
        """The attacker's column for ``weapon``: its ability's, or the weakest when it lacks it."""
        skill = weapon.skill if weapon is not None else DEFAULT_ABILITY["melee"]
        label = fighter.spec.sheet.abilities.get(skill)
        return table.columns[0].label if label is None else label

    # --- state, initiative, status -----------------------------------------------------------
    def new_state(self, fighter: C) -> LSState:
        sheet, armor = fighter.spec.sheet, fighter.spec.armor
        # life, max_life, armor, karma: by position (a keyword call costs as much again)
        return LSState(sheet.life, sheet.life, armor.rating if armor else 0, sheet.karma)

    def _arm(self, battle: Battle[C]) -> None:
        """What every combatant's rolls need in this battle, set on the first roll: its
        ``Profile``, the battle's dice, its visibility dice, and the allies that may assist it."""
        take10 = battle.roll.taker(1, 10)
        take_initiative = battle.roll.taker(1, self.options.initiative_die)
        light = self._visibility[battle.environment.visibility]
        fighters = battle.fighters
        for f in fighters:
            st: LSState = f.state
            st.profile = pf = self._profile(battle, f)
            st.take10, st.take_initiative = take10, take_initiative
            st.light = 0 if pf.sees_in_dark else light
        assisters = [f for f in fighters if f.state.profile.assist != "never"]
        for f in fighters:
            f.state.helpers = [a for a in assisters if a is not f and a.side == f.side]

    def _armed(self, battle: Battle[C], st: LSState) -> Profile:
        """``st``'s profile, arming every combatant of the battle first if this is its first
        roll."""
        pf = st.profile
        if pf is None:
            self._arm(battle)
            pf = cast(Profile, st.profile)
        return pf

    def _profile(self, battle: Battle[C], fighter: C) -> Profile:
        """The fighter's ``Profile``, made on its first battle (a spec is immutable)."""
        return self._profiles.get(fighter.spec, lambda spec: self._derive(battle, fighter))

    def _derive(self, battle: Battle[C], fighter: C) -> Profile:
        spec = fighter.spec
        table, sheet, tactics = self.table(battle), spec.sheet, spec.rule_tactics
        kits = {id(w): self._make_kit(table, fighter, w) for w in (*spec.weapons, None)}
        # wounded once life lost >= wounded_at x life: an integer loss of at least the ceiling
        karma = tactics.karma if tactics is not None else "never"
        profile = Profile(
            reflexes=sheet.reflexes,
            sees_in_dark=sheet.sees_in_dark,
            standing=sheet.extra_dice,
            wounded_life=self._wounded_life(sheet.life),
            called_shot=tactics.called_shot if tactics is not None else 0,
            karma_always=karma == "always",
            karma_penalized=karma == "when_penalized",
            karma_dice=tactics.karma_dice if tactics is not None else 0,
            assist=tactics.assist if tactics is not None else "never",
            kits=kits,
            threat=self._threat(fighter),
        )
        return profile

    def _kit(self, battle: Battle[C], fighter: C, weapon: models.Weapon | None) -> Kit:
        """The fighter's ``Kit`` for ``weapon`` in this battle."""
        st: LSState = fighter.state
        kit = self._armed(battle, st).kits.get(id(weapon))
        if kit is None:  # not one of its own weapons: worked out on the spot
            kit = self._make_kit(self.table(battle), fighter, weapon)
        return kit

    def _make_kit(self, table: dice.ActionTable, fighter: C, weapon: models.Weapon | None) -> Kit:
        column = self.column(table, fighter, weapon)
        grid, standing = table.face_ranks(column), fighter.spec.sheet.extra_dice
        if weapon is None:  # bare hands
            return Kit(column, grid, standing, 0, None, self.options.unarmed_multiplier, 0)
        return Kit(
            column,
            grid,
            standing + weapon.quality,
            weapon.quality,
            band_tops(weapon.ranges, 2),  # beyond long: long (``band_of``)
            weapon.multiplier,
            weapon.armor_piercing,
        )

    def initiative(self, battle: Battle[C], fighter: C) -> list[int]:
        """One action per turn, at Reflexes + 1d10 (``initiative_die``)."""
        st: LSState = fighter.state
        reflexes = self._armed(battle, st).reflexes
        die = st.take_initiative(1)[0]
        score = reflexes + die
        if score < 1:
            score = 1
        st.actions_left = 1
        st.assist_owed = None
        if battle.tracing:
            battle.trace(
                "initiative",
                f"{fighter.name}: Reflexes {reflexes} + [{die}] = {score}",
                actor=fighter,
                result=score,
                scores=[score],
            )
        return [score]

    def initiative_tiebreak(self, fighter: C) -> int:
        pf = fighter.state.profile  # set by initiative, which comes first
        return pf.reflexes if pf is not None else fighter.spec.sheet.reflexes

    def begin_action(self, battle: Battle[C], fighter: C) -> None:
        st: LSState = fighter.state
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
        elif st.actions_left > 0:
            st.actions_left -= 1

    def threat(self, fighter: C) -> float:
        """Column position (1 = weakest) times the weapon's multiplier, the best weapon's."""
        pf = fighter.state.profile
        return pf.threat if pf is not None else self._threat(fighter)

    def _threat(self, fighter: C) -> float:
        """The best of the sheet's weapons and of bare hands (the melee ability's column,
        ``unarmed_multiplier``): an unarmed brawler is a threat."""
        labels = (self._table or dice.default_table()).column_labels
        abilities = fighter.spec.sheet.abilities
        arms = [(w.skill, w.multiplier) for w in fighter.spec.weapons]
        arms.append((DEFAULT_ABILITY["melee"], self.options.unarmed_multiplier))
        best = 0.0
        for skill, multiplier in arms:
            label = abilities.get(skill)
            level = labels.index(label) + 1 if label in labels else 1
            best = max(best, level * multiplier)
        return best

    def record(self, fighter: C) -> dict:
        st: LSState = fighter.state
        return {
            "life_left": st.life,
            "karma_spent": st.karma_spent,
            "assists_given": st.assists,
            "assisted_attacks": st.assisted,
            "called_shot_dice": st.called_shot_dice,
            "catastrophes": st.catastrophes,
        }

    def _wounded_life(self, life: int) -> int:
        """At or below this life the 'wounded' dice apply: an integer loss of at least
        ``wounded_at`` x ``life``, so of its ceiling."""
        return life - math.ceil(self.options.wounded_at * life)

    def condition(self, fighter: C) -> str:
        """Status and life left, and the dice its wounds now cost: "wounded: 4/11 life, -1
        dice for wounds"."""
        st: LSState = fighter.state
        text = f"{self.status(fighter)}: {st.life}/{st.max_life} life"
        dice_for_wounds = self._c.wounded
        if fighter.can_act and dice_for_wounds and st.life <= self._wounded_life(st.max_life):
            text += f", {dice_for_wounds:+d} dice for wounds"
        return text

    # --- exact answers (combatsim.exact) ------------------------------------------------------
    def exact_dice(self, fighter: C, choose: Callable[[Any], Any]) -> None:
        """Every untraced roll of the fighter (its attacks, an assist, a throw) takes its tier
        rank whole from the dice layer's exact distribution (``dice.exact_tier`` of the kit's
        column with the capped net dice) instead of from 2 + |net| faces one by one (10^7
        paths with 5 dice). That is the same rule, not a copy: untraced, the rule code reads
        nothing of a roll but its rank (``roll_rank``); the faces only go into a trace, and an
        exact answer is not traced."""
        choices = self._rank_options

        def roll_rank(take: Callable[[int], list[int]], net: int, grid: dice.FaceRanks) -> int:
            options = choices(net, grid)
            if options is None:  # a grid not of the table in force: face by face, still exact
                return dice.roll_rank(take, net, grid)
            return choose(options)

        fighter.state.roll_rank = roll_rank

    def _rank_options(self, net: int, grid: dice.FaceRanks) -> tuple | None:
        """The exact tier ranks of a roll with ``net`` dice in the column whose face grid is
        ``grid``, as ``choose`` options (None when no column of the table has that grid)."""
        key = (net, grid)
        options = self._rank_choices.get(key)
        if options is None:
            from ...dice.paths import options_of

            table = self._table
            if table is None:
                return None
            columns = [c.label for c in table.columns if table.face_ranks(c.label) == grid]
            if not columns:
                return None
            ranks = dice.exact_tier(columns[0], net, table=table).map(lambda tier: tier.rank)
            options = self._rank_choices[key] = options_of(ranks)
        return options

    # --- dice for one roll --------------------------------------------------------------------
    def circumstances(
        self,
        battle: Battle[C],
        attacker: C,
        target: C | None,
        kit: Kit,
        ranged: bool,
        at: tuple[float, float] | None = None,
        parts: list[tuple[int, str]] | None = None,
    ) -> int:
        """Bonus (+) and penalty (-) dice from the situation, as ``rules.options.circumstances``
        say, with the weapon's gear and the sheet's standing dice: their sum, not yet capped.

        ``target`` None with a point ``at`` is a grenade thrown at the ground: no cover, no aim,
        no running target. When ``parts`` is a list (tracing) each source is appended to it as
        (dice, reason), in the order the trace shows them (``_labels``): range, cover, aiming,
        target running, attacker moving, enemy in reach (a ranged roll only), visibility,
        wounded. One path: only the words wait on the trace.
        """
        c = self._c
        st: LSState = attacker.state
        pf = cast(Profile, st.profile)  # armed by the roll's kit (``_kit``)
        light = st.light  # visibility, set for the battle (none: sees in the dark)
        wounded = c.wounded if st.life <= pf.wounded_life else 0
        if not ranged:
            if parts is not None:
                self._name_dice(battle, parts, kit, pf, None, "none", (light, wounded))
            return kit.fixed + light + wounded
        s = battle.situation(attacker, target, at)
        band = self._band(kit, s)
        # each die a local (the tuple ``_name_dice`` gets, summed, cost 3% of a battle)
        moved = attacker.moved_this_action > 0
        cover = target.cover if target is not None else "none"
        aimed = target is not None and st.prev_target is target and not moved
        ranging = c.range[band] if band >= 0 else 0
        covered = self._cover[cover]
        aiming = c.aiming if aimed else 0
        running = c.target_running if target is not None and target.running else 0
        moving = c.attacker_moving if moved else 0
        engaged = c.engaged if s.engaged else 0
        if parts is not None:
            values = (ranging, covered, aiming, running, moving, engaged, light, wounded)
            self._name_dice(battle, parts, kit, pf, band, cover, values)
        total = ranging + covered + aiming + running + moving + engaged + light + wounded
        return kit.fixed + total

    @staticmethod
    def _band(kit: Kit, s: Situation) -> int:
        """The range band of a ranged roll (-1: a weapon without ranges)."""
        return band_of(kit.ranges, s.distance) if kit.ranges is not None else -1

    def _name_dice(
        self,
        battle: Battle[C],
        parts: list[tuple[int, str]],
        kit: Kit,
        pf: Profile,
        band: int | None,
        cover: str,
        values: tuple[int, ...],
    ) -> None:
        """``circumstances``' dice for the trace: those not 0 with their names, in order, then
        the gear's and the standing dice (``band`` None: a melee roll)."""
        parts.extend(labelled(values, self._labels(battle, band, cover)))
        parts.append((kit.quality, "gear"))
        parts.append((pf.standing, "standing dice"))

    @staticmethod
    def _labels(battle: Battle[C], band: int | None, cover: str) -> tuple[str, ...]:
        """The trace's names of ``circumstances``' values, in their order (``band`` None: a
        melee attack's; -1: a weapon without ranges)."""
        seen = battle.environment.visibility.replace("_", " ")
        if band is None:
            return (seen, "wounded")
        band_name = f"{RANGE_NAMES[band]} range" if band >= 0 else "range"
        return (band_name, *circumstance_labels(cover, seen))

    def _roll(
        self,
        battle: Battle[C],
        fighter: C,
        kit: Kit,
        total: int,
        parts: list[tuple[int, str]] | None,
        what: str,
    ) -> int:
        """Roll d% with the dice (``total``, capped; ruling 17) and read the kit's column: the
        tier's rank. Traced (``parts`` a list), the faces and the dice go into the trace."""
        if parts is None:  # the same faces, no record of them
            st: LSState = fighter.state
            return st.roll_rank(st.take10, _capped(total), kit.grid)
        d = NetDice(tuple(p for p in parts if p[0]), total)
        column = kit.column
        result = dice.roll(battle.roll.d, d.net)
        tier = self.table(battle).tier_of(result.value, column)
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
        return tier.rank

    # --- cooperative attacks ("Cooperative Rolls"; ruling 19) ---------------------------------
    def find_assistant(
        self, battle: Battle[C], lead: C, target: C, ranged: bool
    ) -> tuple[C, object, Kit, int, list | None] | None:
        """The ally best placed to help ``lead``'s attack: with its weapon, kit, dice and (when
        tracing) their parts.

        An ally can help when its tactics allow it, it can act, it still has this turn's action
        (nothing promised, nothing lost), stands within ``assist_distance`` of the lead and can
        reach the target with a weapon (a loaded firearm in range, or melee reach).
        """
        table = self.table(battle)
        best, best_value = None, -math.inf
        for ally in lead.state.helpers:  # same side, tactics that allow it
            st: LSState = ally.state
            if (
                not ally.can_act
                or st.actions_left <= 0
                or st.assist_owed is not None
                or ally.lose_next_action
                or battle.distance(ally, lead) > self.options.assist_distance
            ):
                continue
            weapon = self._assist_weapon(battle, ally, target, ranged)
            if weapon is False:
                continue
            kit = self._kit(battle, ally, weapon)
            parts: list[tuple[int, str]] | None = [] if battle.tracing else None
            total = self.circumstances(battle, ally, target, kit, ranged, parts=parts)
            value = self._coop_value(table, kit.column, _capped(total))
            if cast(Profile, st.profile).assist == "when_helpful" and value <= 0:
                continue
            if value > best_value:
                best, best_value = (ally, weapon, kit, total, parts), value
        return best

    def _assist_weapon(
        self, battle: Battle[C], ally: C, target: C, ranged: bool
    ) -> models.Weapon | None | Literal[False]:
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

    def _coop_value(self, table: dice.ActionTable, column: int | str, net: int) -> float:
        """P(Good or better) - P(Inferior or worse): the expected die an assistant gives."""
        key = (column, net)
        if key not in self._coop:
            dist = dice.exact_tier(column, net, table=table)
            value = dist.prob(lambda t: dice.cooperative_dice(t, table) == 1) - dist.prob(
                lambda t: dice.cooperative_dice(t, table) == -1
            )
            self._coop[key] = float(value)
        return self._coop[key]

    def assist(
        self,
        battle: Battle[C],
        lead: C,
        target: C,
        ranged: bool,
        parts: list[tuple[int, str]] | None = None,
    ) -> int:
        """Let the best placed ally roll first; return the lead's extra die (+1, -1 or 0),
        added to the lead's ``parts`` (when tracing) as the assistant's."""
        found = self.find_assistant(battle, lead, target, ranged)
        if found is None:
            return 0
        ally, weapon, kit, total, ally_parts = found
        st: LSState = ally.state
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
                f"with {weapon_name(ally, weapon)} (spends its next action)",
                actor=ally,
            )
        rank = self._roll(battle, ally, kit, total, ally_parts, "assist")
        table = self.table(battle)
        die = dice.cooperative_dice(table.tiers[rank], table)
        if parts is not None and die:
            parts.append((die, "assistant"))
        return die

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
        """One attack roll: circumstances, called shot, assistant, Karma; tier; damage. Ranged,
        one roll whatever the rounds, and the target is remembered for an aimed follow-up;
        ``melee_attack`` calls it with ``ranged=False``. Untraced, the dice are a
        running total and the roll goes from the faces to the tier's rank (``roll_rank``)."""
        st: LSState = attacker.state
        if ranged:
            st.this_target = target
        pf = st.profile
        if pf is None:
            pf = self._armed(battle, st)
        kit = pf.kits.get(id(weapon)) or self._kit(battle, attacker, weapon)
        tracing = battle.tracing
        parts: list[tuple[int, str]] | None = [] if tracing else None
        total = self.circumstances(battle, attacker, target, kit, ranged, None, parts)
        called = pf.called_shot
        total -= called
        if parts is not None:  # tracing
            parts.append((-called, "called shot"))  # (none when 0: the roll drops 0 dice)
            verb = "fires at" if ranged else "intercepts" if interception else "attacks"
            battle.trace(
                "attack",
                f"{attacker.name} {verb} {target.name} with {weapon_name(attacker, weapon)}"
                + (f" (called shot, {called} penalty dice)" if called else ""),
                actor=attacker,
                target=target.name,
                weapon=weapon_name(attacker, weapon),
                melee=not ranged,
            )
        if not interception and st.helpers:
            total += self.assist(battle, attacker, target, ranged, parts)
        # Karma as the tactics say: always, or when the roll would have penalty dice
        if st.karma >= KARMA_PER_DIE and (pf.karma_always or pf.karma_penalized and total < 0):
            total = self._karma(battle, attacker, total, parts)
        attacker.shots += 1
        st.called_shot_dice += called
        if tracing:
            rank = self._roll(battle, attacker, kit, total, parts, "attack")
        else:  # _capped inline (ruling 17: at most 5 either way), then the faces' tier rank
            capped = MAX_NET if total > MAX_NET else -MAX_NET if total < -MAX_NET else total
            rank = st.roll_rank(st.take10, capped, kit.grid)
        if rank < FIRST_SUCCESS:
            if rank == 0:  # Catastrophic (ruling 18), which may cost the next action
                st.catastrophes += 1
                if self.options.catastrophe == "lose_action":
                    attacker.lose_next_action = "catastrophe"
                    if tracing:
                        text = f"{attacker.name} loses the next action"
                        battle.trace("catastrophe", text, actor=attacker)
            if tracing:
                text = f"{self.table(battle).tiers[rank].name}: a miss"
                battle.trace("miss", text, actor=attacker)
            return
        attacker.hits += 1
        # "Combat"; ruling 19: +1 multiplier per called-shot penalty die
        multiplier = kit.multiplier + called
        points = self._hit_points[rank]
        armor = target.state.armor - kit.piercing
        if armor < 0:
            armor = 0
        self.hurt(
            battle,
            attacker,
            target,
            points * multiplier,
            armor,
            f"{self.table(battle).tiers[rank].name} hit" if tracing else "",
            f"{points} x {multiplier}" if tracing else "",
        )

    def _karma(self, battle: Battle[C], fighter: C, total: int, parts: list | None) -> int:
        """The "Karma and Bonus Dice" rule; ruling 19: 2 Karma a bonus die, at most
        ``karma_dice``, as the fighter's tactics say; never more than would pass the cap of 5.
        Returns the dice with those bought; the caller has checked that the tactics buy for
        this roll and that 2 Karma are left."""
        st: LSState = fighter.state
        room = MAX_NET - total
        n = min(cast(Profile, st.profile).karma_dice, st.karma // KARMA_PER_DIE, room)
        if n <= 0:
            return total
        points = n * KARMA_PER_DIE  # one bonus die per 2 points (dice.karma_bonus_dice)
        st.karma -= points
        st.karma_spent += points
        if parts is not None:
            battle.trace(
                "karma",
                f"{fighter.name} spends {points} Karma for {n} bonus "
                f"{'die' if n == 1 else 'dice'} ({st.karma} left)",
                actor=fighter,
            )
            parts.append((n, "Karma"))
        return total + n

    # --- grenades -----------------------------------------------------------------------------
    def throw_grenade(
        self, battle: Battle[C], thrower: C, weapon: models.Weapon, aim: tuple[float, float]
    ) -> Scatter:
        """A success lands on the aim point; a failure ``grenade_miss`` meters off per tier
        below the first success, in a random direction."""
        kit = self._kit(battle, thrower, weapon)
        parts: list[tuple[int, str]] | None = [] if battle.tracing else None
        total = self.circumstances(battle, thrower, None, kit, True, aim, parts)
        st, pf = thrower.state, thrower.state.profile
        if st.karma >= KARMA_PER_DIE and (pf.karma_always or pf.karma_penalized and total < 0):
            total = self._karma(battle, thrower, total, parts)
        thrower.shots += 1
        rank = self._roll(battle, thrower, kit, total, parts, "throw")
        below = max(0, FIRST_SUCCESS - rank)
        off = self.options.grenade_miss * below
        text = ""
        if parts is not None:
            text = (
                f"{thrower.name} throws {weapon_name(thrower, weapon)}: "
                f"{self.table(battle).tiers[rank].name}, lands {off:g} m off at "
            )
        return Scatter(off, False, text)

    def blast_points(self, battle: Battle[C], weapon: models.Weapon) -> tuple[int, int, str]:
        """Multiplier x ``blast_points``, whatever the distance inside the blast."""
        points = weapon.multiplier * self.options.blast_points
        return points, weapon.armor_piercing, f"{weapon.multiplier} x {self.options.blast_points}"
