"""The exact outcome of one attack in a scenario's situation, from the rules the battles run.

``attack_odds(scenario, attacker, target)`` builds the scenario's first battle as it stands
before anyone acts (positions, cover, light, wounds, pools, Karma and Edge), and runs the rule
system's own ``ranged_attack`` or ``melee_attack`` under ``paths.explore`` with dice that
choose (``EnumeratingRoller``, and the system's ``exact_dice`` for whole tests). Every way the
dice can fall is walked once, so a rule change changes these odds and the battles together;
the tactics' spending of pools (Dodge, Karma, Edge) is the system's own code too.

The situation is the start of the battle: the attacker has not moved this action, the target
has not moved this turn, no one has acted. ``--set`` changes it (a position, a wound, cover).
"""

from __future__ import annotations

from collections.abc import Hashable
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from ..dice.exact import Dist
from ..dice.paths import DEFAULT_LIMIT, Choose, explore
from ..engine.battle import Battle
from ..engine.exact import EnumeratingRoller
from ..engine.fighter import Fighter
from ..errors import Described, UsageError
from ..rules.base import ExactHooks, condition, max_autofire
from ..tactics.policies import shots_now
from .freeze import fighter_key


@dataclass(frozen=True, order=True)
class Outcome:
    """What one way of the dice left behind: did it hit, how much damage (the system's units:
    boxes, points), the target's condition and status afterwards, is it out of the fight, did
    the attacker fumble away its next action, and the damage the attacker took itself (a melee
    attack the defender wins hurts the attacker) and whether that took it down."""

    hit: bool
    damage: int
    condition: str
    status: str
    down: bool
    fumbled: bool
    attacker_damage: int = 0
    attacker_down: bool = False

    @classmethod
    def of(cls, system: Any, attacker: Fighter, target: Fighter) -> Outcome:
        """What an attack left behind, read off the two fighters after it (an exact path's
        and a sampled battle's alike)."""
        return cls(
            attacker.hits > 0,
            target.damage_taken,
            condition(system, target),
            system.status(target),
            not target.can_act,
            bool(attacker.lose_next_action),
            attacker.damage_taken,
            not attacker.can_act,
        )


@dataclass(frozen=True)
class Question:
    """One attack to answer: who, at whom, with which weapon (its index in the attacker's
    list) and how many shots."""

    scenario: Any
    attacker: int
    target: int
    weapon: int
    shots: int


class Rig:
    """The scenario's battle before anyone acts, with dice that choose, set up once: each path
    of an exact answer renews the fighters it touches (``Battle.renew``) and hands the dice the
    path's ``choose``."""

    def __init__(self, scenario: Any, meet: bool = True):
        """``meet``: let paths that reach the same state between shots meet (``dice.paths``);
        off only to check that it changes no answer."""
        self.roller = EnumeratingRoller(_first)
        self.battle = Battle(scenario, None, roller=self.roller)  # type: ignore[arg-type]
        self.touched: tuple[Fighter, ...] = ()
        if meet:
            self.roller.state_key = self.state_key

    def state_key(self) -> Hashable:
        """The state of the fighters the path renewed: all that differs between paths."""
        system = self.battle.system
        return tuple(fighter_key(f, system) for f in self.touched)

    def ready(self, choose: Choose, *indexes: int) -> list[Fighter]:
        """The fighters ``indexes`` fresh, their tests armed with ``choose``."""
        self.roller.choose = choose
        battle = self.battle
        system = battle.system
        exact_dice = system.exact_dice if isinstance(system, ExactHooks) else None
        fresh = [battle.renew(i) for i in indexes]
        for fighter in fresh:
            if exact_dice is not None:
                exact_dice(fighter, choose)
        self.touched = tuple(fresh)
        return fresh


def _first(options: Any) -> Any:
    return options[0][0]


@dataclass(frozen=True)
class AttackOdds:
    """The exact distribution of ``Outcome`` of one attack, and what it was asked of."""

    question: Question
    attacker: str
    target: str
    weapon: str
    distance: float
    cover: str
    outcomes: Dist[Outcome]

    def p(self, test: Any) -> Fraction:
        return self.outcomes.prob(test)

    def by(self, field: str) -> Dist[Any]:
        return self.outcomes.map(lambda o: getattr(o, field))


def attack_odds(
    scenario: Any,
    attacker: str,
    target: str,
    weapon: str | None = None,
    shots: int | None = None,
    limit: int = DEFAULT_LIMIT,
    meet: bool = True,
) -> AttackOdds:
    """The exact odds of ``attacker``'s attack on ``target`` (names of the scenario's
    combatants) with ``weapon`` (a name on its sheet; by default the firearm when the target is
    within its range, else the melee weapon when within reach) and ``shots``."""
    question = ask(scenario, attacker, target, weapon, shots)
    rig = Rig(scenario, meet)
    a, t = rig.ready(_first, question.attacker, question.target)
    s = rig.battle.situation(a, t)
    outcomes = explore(lambda choose: one_attack(rig, question, choose), limit)
    return AttackOdds(
        question,
        a.name,
        t.name,
        a.weapon_label(a.weapons[question.weapon]) if question.weapon >= 0 else "bare hands",
        s.distance,
        t.cover,
        outcomes,
    )


def one_attack(rig: Rig, question: Question, choose: Choose) -> Outcome:
    """One path of the attack: the battle's own start of an action, then the system's attack."""
    a, t = rig.ready(choose, question.attacker, question.target)
    battle = rig.battle
    system = battle.system
    weapon = a.weapons[question.weapon] if question.weapon >= 0 else None
    if battle.begin_action is not None:
        battle.begin_action(battle, a)
    a.actions = a.actions_this_turn = 1
    if weapon is None or weapon.kind == "melee":
        system.melee_attack(battle, a, t, weapon)
    else:
        system.ranged_attack(battle, a, t, weapon, question.shots)
    return Outcome.of(system, a, t)


def ask(
    scenario: Any, attacker: str, target: str, weapon: str | None, shots: int | None
) -> Question:
    """The question, checked: named combatants on opposing sides, a weapon the attacker
    carries that reaches the target, and a number of shots it can fire."""
    names = [f.name for f in scenario.fighters]
    a = _named(names, "--attacker", attacker)
    t = _named(names, "--target", target)
    specs = scenario.fighters
    if specs[a].side == specs[t].side:
        raise UsageError(
            "--target", target, f"a combatant not on the attacker's side ({specs[a].side})"
        )
    fighter = Rig(scenario).battle.fighters[a]
    w = _weapon(scenario, fighter, specs[t].position, weapon)
    chosen = fighter.weapons[w] if w >= 0 else None
    firearm = chosen is not None and chosen.kind == "firearm"
    most = max_autofire(scenario.system, fighter, chosen) if firearm else 1
    if shots is None:
        shots = shots_now(fighter.burst, fighter.ammo[w]) if chosen is fighter.firearm else 1
    if not 1 <= shots <= most:
        with_what = f"the {fighter.weapon_label(chosen)}" if chosen is not None else "bare hands"
        raise UsageError("--shots", shots, f"1 to {most} with {with_what}")
    return Question(scenario, a, t, w, shots)


def _named(names: list[str], argument: str, name: str) -> int:
    if name in names:
        return names.index(name)
    listed = ", ".join(names[:12]) + (", ..." if len(names) > 12 else "")
    raise UsageError(argument, name, f"a combatant of the scenario: {listed}")


def _weapon(scenario: Any, fighter: Fighter, at: tuple[float, float], name: str | None) -> int:
    """The index of the weapon asked for, or of the one the attack would use: the firearm when
    the target is in its range, else a melee weapon (-1: bare hands) when within reach."""
    import math

    labels = [fighter.weapon_label(w) for w in fighter.weapons]
    meters = math.dist(fighter.position, at)
    reach = scenario.environment.melee_range
    if name is not None:
        if name not in labels:
            raise UsageError("--weapon", name, f"a weapon {fighter.name} carries: {labels}")
        index = labels.index(name)
    elif fighter.firearm is not None and meters <= fighter.firearm_range:
        index = fighter.firearm_index
    elif meters <= reach:
        return fighter.weapon_index[id(fighter.melee)] if fighter.melee is not None else -1
    elif fighter.firearm is not None:
        index = fighter.firearm_index
    else:
        index = fighter.weapon_index[id(fighter.melee)] if fighter.melee is not None else -1
    weapon = fighter.weapons[index] if index >= 0 else None
    if weapon is not None and weapon.kind == "grenade":
        raise UsageError("--weapon", name, "a firearm or melee weapon (a grenade is not exact)")
    far = weapon.max_range if weapon is not None and weapon.kind == "firearm" else reach
    if meters > far:
        what = f"the {labels[index]}" if weapon is not None else "bare hands"
        raise UsageError(
            "--target",
            Described(f"{meters:.1f} m away"),
            f"a target within reach of {fighter.name}'s weapons ({what} reaches {far:g} m; "
            "move one with --set 'sides[S].members[M].position=[x, y]')",
        )
    return index
