"""Whole battles against exact math: how long a lone shooter takes to put a target down.

One shooter (single shots, ammunition it never runs out of, Reaction 3 + 1D6: always one action
a turn, so the Extra Action Table never gives a second) against a target that never moves,
attacks or (except in one case) dodges. The engine runs the full battle: initiative, simpy
time, tactics, the attack test, the resistance test, staging, the monitor and victory. The
kill time (the turn the target goes down, or the turn limit if it survives), with the target's
final status and armor, then has an exact law: a Markov chain over what the target carries
from turn to turn (boxes filled, armor left, Dodge Pool dice left, a fumble's lost action),
built here from the dice layer's exact test distributions and the rulings restated
independently of the engine's code (ruling 5 ranged attacks, 6 staging, 7 the monitor, 2
fumbles, 4 pools, 1 initiative).

Each case then does two things on the same sample of battles: it must fit the exact law
(``assert_fits``, the suite's ALPHA), and it must *reject* the law that each named rule mistake
would give, which proves the sample size is enough to catch that mistake (``CASES``; the
chain takes each mistake as a switch). At ``BATTLES`` battles per case every listed mistake
either has a chi-square non-centrality of at least 140 against the true law (most are in the
thousands; the 1e-4 critical values are 30 to 60 for these bin counts) or gives no mass to
outcomes that the true law gives 5% or more (armor left after stripping, say), which
``chi_square_p`` rejects outright.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from fractions import Fraction

import pytest

from combatsim.dice.exact import Dist
from combatsim.dice.shadowrun import exact_outcomes, exact_successes
from combatsim.engine.battle import run_battle
from combatsim.engine.records import TURN_LIMIT, VICTORY
from tests.engine.helpers import events, member, rolls, scenario, sitting_target
from tests.stats import ALPHA, assert_fits, chi_square_p

pytestmark = pytest.mark.slow  # statistical: kill-time distributions of whole battles

BATTLES = 5000
LEVELS = "LMSD"
DISTANCE = 20.0  # short range for a [50, 150, 350, 550] m weapon
# Seed 002 Target Number Table (short range 4) and Weapon Modifiers (target standing still -1):
# the target never moves, so every attack is at TN 3. Asserted from a traced battle below.
TN = 4 - 1


def wound_modifier(boxes: int) -> int:
    """Ruling 7, restated: 1-2 boxes 1, 3-5 boxes 2, 6 or more 3."""
    return 0 if boxes <= 0 else 1 if boxes <= 2 else 2 if boxes <= 5 else 3


@dataclass(frozen=True)
class Case:
    """The scenario's numbers, and the rules as switches (defaults: the rulings)."""

    firearms: int
    level: str  # the weapon's damage code: power, level, staging
    power: int
    staging: int
    body: int
    armor: int = 0  # the target's ballistic armor
    quickness: int = 1  # the target's Dodge Pool
    dodge: str = "none"  # the target's dodge tactic: none or all
    fumble_effect: str = "none"
    shooter_reaction: int = 3
    target_reaction: int = 1
    turn_limit: int = 8
    # --- the rules, as switches a mistake would flip ---
    tn: int = TN
    boxes: tuple[int, int, int, int] = (1, 3, 6, 10)  # ruling 6: L M S D
    stage_beyond_first: bool = True  # ruling 6: successes beyond the first stage up
    dead_past_body: bool = True  # ruling 7: overflow > Body is dead (not >=)
    strip_above: int = 4  # ruling 6: a level index above D (3) strips armor
    armor_counts: bool = True  # ruling 5: armor adds automatic successes
    lost_actions: int = 1  # ruling 2: a fumble costs the next action (one)
    refill: str = "action"  # ruling 4: pools refill at the start of the owner's action
    initiative_wounds: bool = True  # ruling 7: wounds lower the initiative result
    resist_wounds: bool = True  # ruling 7: wounds raise every TN, the Body and Dodge tests' too

    @property
    def damage(self) -> str:
        return f"{self.power}{self.level}{self.staging}"


def kill_time(case: Case) -> Dist:
    """Exact law of ``(turns, target status, ballistic armor left)`` at the end of the battle.

    State at the start of a turn: (boxes, armor, Dodge Pool dice, actions still to lose). In a
    turn the shooter attacks once; the target's one action (if its initiative result, less its
    wound modifier, is at least 1) refills its Dodge Pool, before the attack if it scores higher
    (the shooter wins ties with the higher Reaction), else after it, and then only if the wound
    the attack dealt does not push that action below 1.
    """
    box = dict(zip(LEVELS, case.boxes, strict=True))
    attack = exact_outcomes(case.firearms, case.tn)

    def resist_tn(boxes: int) -> int:
        return case.power + (wound_modifier(boxes) if case.resist_wounds else 0)

    resist = {b: exact_successes(case.body, resist_tn(b)) for b in range(10)}
    dodge = {
        (n, b): exact_successes(n, resist_tn(b))
        for n in range(case.quickness + 1)
        for b in range(10)
    }

    def order(penalty: int) -> Dist:
        """("before",), ("after", target score) or ("none",): the target's action this turn."""
        out = []
        for d_target in range(1, 7):
            for d_shooter in range(1, 7):
                shooter = case.shooter_reaction + d_shooter
                target = case.target_reaction + d_target
                target -= penalty if case.initiative_wounds else 0
                if target < 1:
                    out.append((("none",), Fraction(1, 36)))
                elif target > shooter or (
                    target == shooter and case.target_reaction > case.shooter_reaction
                ):
                    out.append((("before",), Fraction(1, 36)))
                else:
                    out.append((("after", target), Fraction(1, 36)))
        return Dist(out)

    def turn(state):
        boxes, armor, pool, lose = state
        penalty = wound_modifier(boxes)

        def given_order(o):
            full = o[0] == "before" or case.refill == "turn"
            pool0 = case.quickness if full else pool

            def end_of_turn(boxes2, armor2, pool2, lose2, status=None):
                if status is not None:
                    return ("down", status, armor2)
                if o[0] == "after":
                    shift = wound_modifier(boxes2) - penalty if case.initiative_wounds else 0
                    if o[1] - shift >= 1:
                        pool2 = case.quickness
                return (boxes2, armor2, pool2, lose2)

            if lose:
                return Dist.point(end_of_turn(boxes, armor, pool0, lose - 1))

            def after_attack(outcome):
                hits, fumble = outcome
                lose2 = case.lost_actions if fumble and case.fumble_effect == "lose_action" else 0
                if hits == 0:
                    return Dist.point(end_of_turn(boxes, armor, pool0, lose2))
                spend = pool0 if case.dodge == "all" else 0

                def after_dodge(dodged):
                    if dodged > hits:  # ruling 5: a clean miss
                        return Dist.point(end_of_turn(boxes, armor, pool0 - spend, lose2))

                    def after_body(body):
                        up = (hits - 1 if case.stage_beyond_first else hits) // case.staging
                        defence = body + dodged + (armor if case.armor_counts else 0)
                        index = LEVELS.index(case.level) + up - defence // case.staging
                        if index < 0:
                            return end_of_turn(boxes, armor, pool0 - spend, lose2)
                        armor2 = max(0, armor - max(0, index - case.strip_above + 1))
                        filled = boxes + box[LEVELS[min(index, 3)]]
                        if filled >= 10:
                            over = filled - 10
                            dead = over > case.body if case.dead_past_body else over >= case.body
                            return end_of_turn(10, armor2, 0, 0, status="dead" if dead else "dying")
                        return end_of_turn(filled, armor2, pool0 - spend, lose2)

                    return resist[boxes].map(after_body)

                return dodge[spend, boxes].bind(after_dodge)

            return attack.bind(after_attack)

        return order(penalty).bind(given_order)

    alive = Dist.point((0, case.armor, case.quickness, 0))
    out: dict[tuple, Fraction] = {}
    for k in range(1, case.turn_limit + 1):
        survivors = []
        for state, p in alive.bind(turn).items():
            if state[0] == "down":
                key = (k, state[1], state[2])
                out[key] = out.get(key, Fraction(0)) + p
            else:
                survivors.append((state, p))
        alive = Dist(survivors)
    for (boxes, armor, _, _), p in alive.items():
        key = (case.turn_limit, "wounded" if boxes else "unhurt", armor)
        out[key] = out.get(key, Fraction(0)) + p
    return Dist(out)


def build(case: Case):
    shooter = member(
        "Shooter",
        reaction=case.shooter_reaction,
        firearms=case.firearms,
        weapons=["gun"],
        tactics={"fire_mode": "single", "dodge": "none", "movement": "hold"},
    )
    target = sitting_target(
        body=case.body,
        quickness=case.quickness,
        reaction=case.target_reaction,
        position=(DISTANCE, 0),
        armor="plate" if case.armor else None,
        tactics={"dodge": case.dodge},
    )
    return scenario(
        {"A": [shooter], "B": [target]},
        options={"fumble_effect": case.fumble_effect},
        turn_limit=case.turn_limit,
        weapons={
            "gun": {
                "kind": "firearm",
                "damage": case.damage,
                "ranges": [50, 150, 350, 550],
                "ammo": 1000,
            }
        },
        armor={"plate": {"ballistic": max(case.armor, 0), "impact": 0}},
    )


def outcome(result) -> tuple:
    """The battle's ``(turns, target status, ballistic armor left)``; checks the result agrees."""
    target = next(c for c in result.combatants if c["name"] == "Target")
    down = target["status"] in ("dying", "dead")
    assert result.winner == ("A" if down else None)
    assert result.end_reason == (VICTORY if down else TURN_LIMIT)
    return (result.turns, target["status"], target["ballistic_left"])


# (case, {named rule mistake: the switches it flips}). Each sample must reject every mistake.
CASES = {
    # Plain shooting: Firearms 3 with a 5M2 gun at Body 3. Catches a TN off by one (forgetting
    # "target standing still"), staging counted from all successes, a wrong box count, and
    # "dead" at overflow equal to Body instead of past it.
    "plain": (
        Case(firearms=3, level="M", power=5, staging=2, body=3),
        {
            "TN 4: no 'target standing still'": {"tn": 4},
            "TN 2": {"tn": 2},
            "staging counts every success": {"stage_beyond_first": False},
            "M fills 2 boxes": {"boxes": (1, 2, 6, 10)},
            "S fills 5 boxes": {"boxes": (1, 3, 5, 10)},
            "dead at overflow >= Body": {"dead_past_body": False},
        },
    ),
    # Armor and staging above D: Firearms 6 with a 4L1 gun at Body 2 in ballistic 1. Catches
    # armor not counted, staging above D not stripping armor, and stripping already at D.
    "armored": (
        Case(firearms=6, level="L", power=4, staging=1, body=2, armor=1),
        {
            "armor adds no successes": {"armor_counts": False},
            "no stripping above D": {"strip_above": 99},
            "stripping at D already": {"strip_above": 3},
        },
    ),
    # Fumbles (ruling 2, fumble_effect lose_action): Firearms 2 fumbles 1 time in 36, each
    # costing the shooter its next action, i.e. next turn's. Catches fumbles costing nothing
    # and costing two actions.
    "fumble": (
        Case(
            firearms=2,
            level="M",
            power=5,
            staging=2,
            body=2,
            fumble_effect="lose_action",
            turn_limit=10,
        ),
        {
            "fumble costs nothing": {"fumble_effect": "none"},
            "fumble costs two actions": {"lost_actions": 2},
        },
    ),
    # Wounds and the Dodge Pool (rulings 4, 5, 7): the target spends its whole Dodge Pool on each
    # hit and gets it back only at the start of its own action. Its wounds lower its initiative
    # (and move an action still to come down, out of the turn when it falls below 1), so a hurt
    # target often has no action and faces the next shot without dodge dice. Catches pools
    # refilled every turn, and wounds that do not lower the initiative.
    "dodge and wounds": (
        Case(
            firearms=3,
            level="M",
            power=3,
            staging=3,
            body=3,
            quickness=3,
            dodge="all",
            shooter_reaction=1,
            target_reaction=3,
            turn_limit=10,
        ),
        {
            "pools refill every turn": {"refill": "turn"},
            "wounds do not lower initiative": {"initiative_wounds": False},
            "no Dodge Pool at all": {"dodge": "none"},
            "wounds do not raise the resistance TNs": {"resist_wounds": False},
        },
    ),
}


@pytest.mark.parametrize("name", CASES)
def test_exact_kill_time_sums_to_one(name):
    case, mistakes = CASES[name]
    assert kill_time(case).total() == 1
    for flips in mistakes.values():
        assert kill_time(replace(case, **flips)).total() == 1


def test_exact_chain_matches_a_hand_count():
    """Firearms 1 at TN 3 (4 faces of 6 hit), 6S2 against Body 1 (Body succeeds 1 in 6, never
    enough to stage an S down): each hit is 6 boxes, two hits overflow 2 > Body 1: dead."""
    case = Case(firearms=1, level="S", power=6, staging=2, body=1, turn_limit=2)
    hit = Fraction(2, 3)
    assert kill_time(case) == Dist(
        {
            (2, "dead", 0): hit * hit,
            (2, "wounded", 0): 2 * hit * (1 - hit),
            (2, "unhurt", 0): (1 - hit) ** 2,
        }
    )


@pytest.mark.parametrize("name", CASES)
def test_traced_battle_rolls_at_the_tns_the_chain_assumes(name):
    """The chain's TNs, read off a real battle: attack at short range 4, standing still -1;
    the Body and Dodge tests at the weapon's Power plus the target's wound modifier."""
    case, _ = CASES[name]
    result = run_battle(build(case), root_seed=5, index=0, trace=True)
    attacks = events(result, "attack", "Shooter")
    assert attacks, "the shooter never fired"
    for e in attacks:
        assert e.data["tn"] == TN and e.data["shots"] == 1
        assert "short range 20.0 m: 4" in e.text and "target standing still -1" in e.text
    firearms = rolls(result, "Firearms", "Shooter")
    assert len(firearms) == len(attacks)
    assert all(e.text.startswith(f"Firearms: {case.firearms} dice vs TN {TN}") for e in firearms)
    body = rolls(result, "Body", "Target")
    assert body and body[0].data["tn"] == case.power  # unhurt at the first hit
    resisted = body + rolls(result, "Dodge Pool", "Target")
    assert all(case.power <= e.data["tn"] <= case.power + 3 for e in resisted)
    assert not events(result, "move"), "nobody may move in this scenario"


@pytest.mark.parametrize("name", CASES)
def test_kill_time_fits_the_exact_chain_and_rejects_each_mistake(name):
    case, mistakes = CASES[name]
    sc = build(case)
    sample = [outcome(run_battle(sc, root_seed=2002, index=i)) for i in range(BATTLES)]
    exact = kill_time(case)
    assert_fits(sample, exact)
    counts: dict = {}
    for key in sample:
        counts[key] = counts.get(key, 0) + 1
    for mistake, flips in mistakes.items():
        p = chi_square_p(counts, kill_time(replace(case, **flips)))
        assert p < ALPHA, f"{BATTLES} battles are too few to catch {mistake!r}: p = {p:.3g}"
