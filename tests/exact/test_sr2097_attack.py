"""Exact odds of one Shadowrun: 2097 attack (``combatsim odds attack``) against the battles.

Three kinds of test:

* **The shortcut is exact.** ``Shadowrun2097.exact_dice`` has a check's d10 chosen as sorted
  multisets and the d6 as one face list per sum; on small attacks that is the same ``Dist`` as
  walking every ordered face (``EnumeratingRoller`` alone), and ``check_outcome`` reads no
  order of the faces at all.
* **Against sampling.** For three pairs of shipped scenarios, the exact ``Dist`` of the
  attack's ``Outcome`` against the outcome of the *first attack of sampled battles*: the
  scenario cut to the duel of the two (everyone holding), the system's ``ranged_attack``
  wrapped to record the first call and stop the battle. A battle whose first attack is not
  the attacker's on the target before anyone moved is left out: that is decided by dice drawn
  before the attack's (initiative), which are independent of them, so the rest are a fair
  sample. Chi-square with rare outcomes pooled into one cell (expected count >= 5); false
  failure budget ``ALPHA`` = 1e-4 per test (the seeds are fixed, so a test either always
  passes or always fails; the budget is the chance that a right rule fails on the seed
  chosen). A deliberately wrong rule on the exact side (armor ignored, the MoS damage dice
  left out) is rejected by the same test.
* **A worked example** whose answer is worked out by hand from the dice layer.
"""

from __future__ import annotations

import dataclasses
from collections import Counter
from fractions import Fraction
from pathlib import Path
from typing import Any

import pytest
from scipy.stats import chi2

from combatsim.dice import sr2097 as dice
from combatsim.dice.exact import Dist
from combatsim.engine.battle import Battle
from combatsim.exact.attack import Outcome, attack_odds
from combatsim.rng import battle_rng
from combatsim.scenario import load_scenario
from combatsim.scenario.model import Scenario, SideSpec
from tests import helpers

ROOT = Path(__file__).resolve().parents[2]
ALPHA = 1e-4  # false-failure budget of each chi-square test
BATTLES = 16_000  # sampled battles per pair; about half open with the attack asked about
SEED = 20_970_001

PAIRS = [  # (scenario, attacker, target): what each exercises
    # 3d10 with Advantage (smartlink and scope; goggles remove the dusk's Disadvantage), the
    # MoS dice, +2d6 Edge damage always, PT15/DR20, the target lessening a dropping injury
    ("sr2097-sniper-duel.yaml", "Nightjar", "Kestrel"),
    # a burst (+1d6) with a smartlink through thermographic optics; the ganger's Edge lessens
    ("sr2097-heavy-armor.yaml", "Trooper 1", "Ganger 1"),
    # a burst against heavy armor PT35/DR60 (stopped unless Edge's +2d6 lifts it), Edge spent
    # on Advantage when the odds are low and on damage below the PT, armor degradation on
    ("sr2097-heavy-armor.yaml", "Gunner 1", "Trooper 1"),
]


# --- the duel, sampled ----------------------------------------------------------------------------


def duel(file: str, attacker: str, target: str) -> Scenario:
    """The shipped scenario with only ``attacker`` and ``target`` left, both holding their
    ground: the first action of a battle is then an attack of one on the other, from where
    they stand. Everything else (positions, light, cover, sheets, Edge) is the scenario's."""
    scenario = load_scenario(ROOT / "scenarios" / file)
    keep = (attacker, target)
    sides = tuple(
        SideSpec(
            side.name,
            tuple(
                dataclasses.replace(f, tactics=f.tactics.model_copy(update={"movement": "hold"}))
                for f in side.fighters
                if f.name in keep
            ),
        )
        for side in scenario.sides
    )
    return dataclasses.replace(scenario, sides=sides)


class _FirstAttack(Exception):
    """Stops a sampled battle at its first attack, with that attack's ``Outcome`` (None: the
    first attack was not the one asked about, or someone had moved)."""


def outcome_of(system: Any, attacker: Any, target: Any) -> Outcome:
    """What ``combatsim.exact.attack.one_attack`` reads after the attack, read the same way."""
    return Outcome.of(system, attacker, target)


def first_attacks(scenario: Scenario, attacker: str, target: str, battles: int) -> Counter:
    """The ``Outcome`` of the first attack of each sampled battle that opens with
    ``attacker`` firing at ``target`` in turn 1 before anyone moved."""
    system = scenario.system
    attack = type(system).ranged_attack
    start = [f.position for f in scenario.fighters]

    def record(battle: Battle, a: Any, t: Any, weapon: Any, shots: int, *sweep: Any) -> None:
        fresh = battle.turn == 1 and [f.position for f in battle.fighters] == start
        if not (fresh and a.name == attacker and t.name == target):
            raise _FirstAttack(None)
        attack(system, battle, a, t, weapon, shots, *sweep)
        raise _FirstAttack(outcome_of(system, a, t))

    counts: Counter = Counter()
    system.ranged_attack = record  # this scenario's own system instance, loaded for this only
    try:
        for i in range(battles):
            try:
                Battle(scenario, battle_rng(SEED, i), index=i).run()
            except _FirstAttack as first:
                if first.args[0] is not None:
                    counts[first.args[0]] += 1
    finally:
        del system.ranged_attack
    return counts


def chi_square_p(counts: Counter, exact: Dist) -> float:
    """P-value of ``counts`` under ``exact``: outcomes expected fewer than 5 times pooled into
    one cell (with the next rarest while the pool is short of 5); 0 for an outcome the exact
    answer calls impossible."""
    if set(counts) - set(exact):
        return 0.0
    n = sum(counts.values())
    cells: list[tuple[float, int]] = []  # (expected, observed)
    pool_e, pool_o = 0.0, 0
    for outcome, p in sorted(exact.items(), key=lambda item: item[1]):
        expected, observed = float(p) * n, counts.get(outcome, 0)
        if expected < 5 or 0 < pool_e < 5:
            pool_e, pool_o = pool_e + expected, pool_o + observed
        else:
            cells.append((expected, observed))
    if pool_e:
        cells.append((pool_e, pool_o))
    statistic = sum((o - e) ** 2 / e for e, o in cells)
    return float(chi2.sf(statistic, len(cells) - 1))


@pytest.fixture(scope="module", params=PAIRS, ids=lambda pair: f"{pair[1]}->{pair[2]}")
def pair(request) -> tuple[tuple[str, str, str], Counter]:
    file, attacker, target = request.param
    counts = first_attacks(duel(file, attacker, target), attacker, target, BATTLES)
    return request.param, counts


@pytest.mark.slow
def test_the_duel_asks_the_shipped_scenarios_question(pair):
    """Cutting the scenario to the duel (and holding) changes nothing about the attack."""
    (file, attacker, target), _ = pair
    shipped = attack_odds(load_scenario(ROOT / "scenarios" / file), attacker, target)
    cut = attack_odds(duel(file, attacker, target), attacker, target)
    assert (cut.weapon, cut.distance, cut.cover) == (
        shipped.weapon,
        shipped.distance,
        shipped.cover,
    )
    assert cut.outcomes == shipped.outcomes


@pytest.mark.slow
def test_exact_odds_agree_with_the_first_attack_of_sampled_battles(pair):
    (file, attacker, target), counts = pair
    assert sum(counts.values()) > BATTLES // 3  # most battles open with the attack asked about
    exact = attack_odds(duel(file, attacker, target), attacker, target).outcomes
    p = chi_square_p(counts, exact)
    assert p > ALPHA, f"{attacker} -> {target}: p = {p:.3g}\n{counts}\n{exact}"


def armor_ignored(system: Any) -> None:
    """Wrong: every fighter's armor is PT 0/DR 0 (armed with the exact dice, so on the exact
    side only)."""
    arm = system.exact_dice

    def exact_dice(fighter: Any, choose: Any) -> None:
        arm(fighter, choose)
        fighter.state.pt = fighter.state.dr = 0

    system.exact_dice = exact_dice


def no_mos_dice(system: Any) -> None:
    """Wrong: a hit rolls no MoS damage dice (its MoS capped below 5 on the way to ``hit``)."""
    hit = system.hit
    system.hit = lambda battle, a, t, weapon, mos, burst: hit(
        battle, a, t, weapon, min(mos, 4), burst
    )


@pytest.mark.slow
@pytest.mark.parametrize("mistake", [armor_ignored, no_mos_dice])
def test_a_wrong_rule_on_the_exact_side_is_rejected(pair, mistake):
    """The same sample and test tell each mistake from the rules, on every pair."""
    (file, attacker, target), counts = pair
    scenario = duel(file, attacker, target)
    mistake(scenario.system)
    wrong = attack_odds(scenario, attacker, target).outcomes
    assert chi_square_p(counts, wrong) < ALPHA


# --- the shortcut is exact ------------------------------------------------------------------------


@pytest.mark.parametrize("k", [2, 3])
def test_a_check_reads_no_order_of_its_faces(k):
    """``check_outcome`` (MoS and kept double) is the same for every ordering of the faces,
    in every mode, with and without Edge, over every margin a check can meet: what lets
    ``exact_dice`` choose sorted multisets. Their probabilities are the ordered faces'."""
    modes = [dice.NORMAL] if k == 2 else [dice.ADVANTAGE, dice.DISADVANTAGE]
    ordered = dice._ordered(k, 10)
    for mode in modes:
        for edge in (False, True) if mode != dice.DISADVANTAGE else (False,):
            for d in range(-32, 6):
                for faces in ordered:
                    assert dice.check_outcome(faces, d, mode, edge) == dice.check_outcome(
                        tuple(sorted(faces)), d, mode, edge
                    ), (faces, d, mode, edge)
    multisets = dice.exact_check_faces(k)
    assert multisets == Dist.uniform(ordered).map(lambda faces: tuple(sorted(faces)))


@pytest.mark.parametrize("k", range(0, 12))
def test_damage_faces_stand_for_their_sum(k):
    """One face list per sum, with the sum's probability: ``Nd6`` exactly, read as a sum."""
    faces = dice.exact_damage_faces(k)
    assert all(len(f) == k and all(1 <= x <= 6 for x in f) for f in faces)
    assert faces.map(sum) == Dist.dice_sum(k, 6)


WEAPONS: dict[str, dict[str, Any]] = {  # few d6, so that every ordered face can be walked
    "pistol": {"kind": "firearm", "damage": "1d6+8", "ranges": [5, 15, 30, 50], "ammo": 12},
    "smart_dart": {
        "kind": "firearm",
        "damage": "0d6+12",
        "ranges": [5, 15, 30, 50],
        "ammo": 12,
        "smartgun": True,
    },
    "light_pistol": {"kind": "firearm", "damage": "2d6+4", "ranges": [5, 15, 30, 50], "ammo": 12},
    "toy": {"kind": "firearm", "damage": "1d6", "ranges": [0.1, 0.1, 0.1, 0.1], "ammo": 1},
}
ARMOR: dict[str, dict[str, Any]] = {"jacket": {"pt": 15, "dr": 30}}


def small_duel(
    weapon: str,
    shooter: dict | None = None,
    target: dict | None = None,
    visibility: str = "normal",
    distance: float = 10.0,
) -> Scenario:
    """A shooter (attributes 4, Firearms 2) and a target in a jacket, ``distance`` apart."""
    attributes = {"body": 4, "agility": 4, "reflexes": 4, "strength": 4, "perception": 4}

    def member(name: str, position: tuple[float, float], extra: dict | None, **kw: Any) -> dict:
        extra = dict(extra or {})
        rules = extra.pop("rules", {})
        return {
            "name": name,
            "attributes": attributes,
            "position": list(position),
            "tactics": {"movement": "hold", "rules": rules},
            **kw,
            **extra,
        }

    return helpers.build(
        "sr2097",
        {
            "A": [member("Shooter", (0, 0), shooter, skills={"firearms": 2}, weapons=[weapon])],
            "B": [member("Target", (distance, 0), target, weapons=["toy"], armor="jacket")],
        },
        weapons=WEAPONS,
        armor=ARMOR,
        environment={"visibility": visibility},
    )


SMALL = {  # name -> a small attack: how its check is rolled
    "2d10": lambda: small_duel("pistol"),
    "2d10 with Edge removing Disadvantage (doubles +5 on a failure)": lambda: small_duel(
        "pistol",
        shooter={"edge": 1, "rules": {"attack": "always", "reserve": 0}},
        visibility="reduced_light",
    ),
    "3d10 Advantage (smartlink), the target lessening its injury": lambda: small_duel(
        "smart_dart",
        shooter={"smartlink": True},
        target={"edge": 1, "health": 20, "rules": {"lessen": "always"}},
    ),
    "3d10 Disadvantage (dark)": lambda: small_duel("smart_dart", visibility="reduced_light"),
}


@pytest.mark.parametrize("name", SMALL)
def test_multisets_and_sums_give_what_every_ordered_face_gives(name, monkeypatch):
    """The same ``Dist`` of ``Outcome`` from ``exact_dice``'s choices as from every ordered
    d10 and d6 face (``exact_dice`` turned off: the ``EnumeratingRoller`` alone)."""
    scenario = SMALL[name]()
    paths = count_paths(monkeypatch)
    shortcut = attack_odds(scenario, "Shooter", "Target")
    monkeypatch.setattr(scenario.system, "exact_dice", lambda fighter, choose: None)
    faces = attack_odds(scenario, "Shooter", "Target")
    assert shortcut.outcomes == faces.outcomes
    assert len(shortcut.outcomes) > 3  # a question with several answers
    assert 3 * paths[0] < paths[1]  # and the shortcut walked far fewer paths


def count_paths(monkeypatch) -> list[int]:
    """The number of paths each ``attack_odds`` from now on walks, in order."""
    import combatsim.exact.attack as attack

    counts: list[int] = []
    explore = attack.explore

    def counting(run: Any, limit: int) -> Dist:
        counts.append(0)

        def counted(choose: Any) -> Any:
            counts[-1] += 1
            return run(choose)

        return explore(counted, limit)

    monkeypatch.setattr(attack, "explore", counting)
    return counts


# --- a worked example -----------------------------------------------------------------------------


def test_worked_example_a_long_pistol_shot_through_a_jacket():
    """Skill bonus 10 (Firearms 2 + Agility 4 + Perception 4) against the long range TN 25
    (20 m; the target has no Dodge): 2d10 must show 15 or more. 21 of the 100 pairs do (6 sum
    to 15, 5 to 16, ... 1 to 20); (7, 7) sums 14, a miss (MoS -1, -6 with the double). The
    doubles among the hits add 5: (8, 8) MoS +1 -> +6 and (9, 9) +3 -> +8 roll 1 MoS die,
    (10, 10) +5 -> +10 rolls 2; the 18 other hits (MoS 0 to 4) roll the pistol's 2d6+4
    alone. The jacket (PT 15/DR 30) stops a total below 15 and soaks 30% of the rest, rounded
    down: 16 leaves 12, and so does 17."""
    scenario = small_duel("light_pistol", distance=20)
    odds = attack_odds(scenario, "Shooter", "Target")
    assert odds.p(lambda o: not o.hit) == Fraction(79, 100)

    d6 = {n: Dist.dice_sum(n, 6, 4) for n in (2, 3, 4)}
    weights = {2: Fraction(18, 100), 3: Fraction(2, 100), 4: Fraction(1, 100)}

    def after_jacket(x: int) -> int:
        return 0 if x < 15 else x - x * 30 // 100

    # 12 damage: a total of 16 (16 - 4) or 17 (17 - 5)
    by_hand = sum(w * (d6[n][16] + d6[n][17]) for n, w in weights.items())
    assert d6[2][16] == Fraction(1, 36) and d6[2][17] == 0  # 2d6 = 12 only
    assert odds.p(lambda o: o.damage == 12) == by_hand
    assert odds.p(lambda o: o.hit and o.damage == 0) == sum(
        w * d6[n].prob(lambda x: x < 15) for n, w in weights.items()
    )
    # the whole damage law, miss or stopped as 0: the dice layer's own attack damage
    assert odds.by("damage") == dice.exact_attack_damage(10, 25, 2, 4, pt=15, dr=30)
    assert odds.by("damage") == Dist(
        [(0, Fraction(79, 100))]
        + [(after_jacket(x), w * p) for n, w in weights.items() for x, p in d6[n].items()]
    )
    moderate = odds.p(lambda o: o.condition == "moderate: 12/30 damage")
    assert moderate == by_hand  # 12 of 30 health: moderate from 8 (25%), serious from 15
