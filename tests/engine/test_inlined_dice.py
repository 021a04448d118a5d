"""Every inlined dice path of the rule systems gives the dice layer's answer, on every face.

For speed, the rule systems' untraced paths do not call the dice layer's pure resolvers: the
Shadowrun test counts successes without building chains (``dice.counter``), the 2097 check
reads a roll with no double straight off its faces, the 2097 damage roll adds the MoS dice and
applies PT/DR in line, Lost Souls caps the net dice in line and reads the tier rank straight
from the faces (``dice.roll_rank``), and 4D8 looks a roll up in a table of faces and works out
a bonus roll itself. ``docs/development.md`` promises that these give exactly what the
resolvers give; here each is run through its rule system on scripted dice, for every face of
small pools, and compared with the resolver of ``combatsim/dice``:

* Shadowrun: every pool of 0-3 d6 at every TN 0..13 with every chain of up to two re-rolled
  sixes (what decides a TN up to 13), 4 d6 with one re-roll a die; 0-2 D8 dice at every TN
  0..23 and 3 at the TNs around each step of the Rule of Seven, with and without the TN cap;
  against ``dice.shadowrun.resolve``, and the test must draw exactly the faces the traced
  roll draws. The largest pools are marked slow.
* sr2097: every 2d10 and 3d10 in every mode, with and without Edge, over a span of TNs,
  against ``resolve_check`` (MoS, doubles, the Disadvantage a failure leaves); every damage
  total for every MoS tier, with and without a burst, against ``apply_armor`` under four
  armors.
* Lost Souls: every d% with up to two bonus or penalty dice in three columns, against
  ``resolve`` and the table; past the cap of 5, the dice drawn and the tier read.
* 4D8: every 4d8 at every chance of a normal roll, and in each over-32 mode, against
  ``resolve``.

The rule systems are being refactored; where a test must call a private method, the call is
in one adapter function below (``fourd8_test``), to re-point in one place.
"""

from __future__ import annotations

from itertools import product

import pytest

from combatsim.dice import fourd8 as d8
from combatsim.dice import lost_souls as ls
from combatsim.dice import shadowrun as sr
from combatsim.dice import sr2097 as s97
from combatsim.engine.battle import Battle
from tests.engine.helpers import member, scenario, sitting_target
from tests.helpers import ScriptedRoller, build, fighter

# --- Shadowrun: the success counter ------------------------------------------------------------


def die_chains(kind: sr.PoolDice, tn: int, longest: int) -> list[tuple[int, ...]]:
    """Every chain of faces one die can roll against ``tn`` with at most ``longest`` faces:
    a face the rules roll again (the dice layer's ``resolve`` accepts one more face after it)
    goes on, up to ``longest``; a chain cut off there while still rolling is left out."""
    out: list[tuple[int, ...]] = []

    def rolls_again(chain: tuple[int, ...]) -> bool:
        if chain[-1] != kind.top:
            return False
        try:
            sr.resolve([chain + (kind.low,)], tn, kind)
        except ValueError:
            return False
        return True

    def grow(prefix: tuple[int, ...]) -> None:
        for face in range(kind.low, kind.top + 1):
            chain = prefix + (face,)
            if not rolls_again(chain):
                out.append(chain)
            elif len(chain) < longest:
                grow(chain)

    grow(())
    return out


def stream(chains: tuple[tuple[int, ...], ...]) -> list[int]:
    """The faces a traced test draws for these chains: every die's first face, then each
    die's re-rolls in die order (``dice.shadowrun.roll_chains``)."""
    return [c[0] for c in chains] + [face for c in chains for face in c[1:]]


def assert_counter_is_resolve(system: str, kind: sr.PoolDice, n: int, tns, longest: int, **opt):
    """Through the rule system's ``count`` (untraced): every combination of chains of ``n``
    dice at each TN gives ``resolve``'s successes and fumble and draws every scripted face."""
    shooter = member("Shooter", firearms=2, weapons=["rifle"])
    sc = sr_scenario(shooter, system, opt)
    roller = ScriptedRoller(die=(kind.low, kind.top))
    battle = Battle(sc, rng=None, index=0, trace=False, roller=roller)
    f = fighter(battle, "Shooter")
    checked = 0
    for tn in tns:
        for chains in product(die_chains(kind, tn, longest), repeat=n):
            roller.load(stream(chains))
            want = sr.resolve(chains, tn, kind)
            got = sc.system.count(battle, f, n, tn, "test")
            assert got == (want.successes, want.fumble), (chains, tn)
            assert roller.left() == [], (chains, tn, roller.left())
            checked += 1
    assert checked


def sr_scenario(shooter, system, options):
    """``shooter`` against a sitting target 20 m off, in ``system`` with ``options``."""
    target = sitting_target(position=(20, 0))
    return scenario({"A": [shooter], "B": [target]}, options=options, system=system)


@pytest.mark.parametrize("n", [0, 1, 2, pytest.param(3, marks=pytest.mark.slow)])
def test_the_d6_counter_is_resolve_on_every_chain(n):
    """Up to three faces a die (two re-rolled sixes): enough to decide every TN up to 13."""
    assert_counter_is_resolve("sr-classic", sr.D6, n, range(0, 14), longest=3)


@pytest.mark.slow
def test_the_d6_counter_is_resolve_on_four_dice():
    """Four dice, one re-roll each at most: every TN to 12, and 13 on what those decide."""
    assert_counter_is_resolve("sr-classic", sr.D6, 4, range(0, 14), longest=2)


@pytest.mark.parametrize("n", [0, 1, 2, pytest.param(3, marks=pytest.mark.slow)])
@pytest.mark.parametrize("cap", [False, True])
def test_the_d8_counter_is_resolve_on_every_chain(n, cap):
    """The Rule of Seven re-rolls only toward a TN above 7 and only while below it: four
    faces decide every TN to 23; with the cap (ruling 12), a TN above 21 is impossible."""
    tns = range(0, 24) if n < 3 else (0, 1, 2, 5, 7, 8, 9, 13, 14, 15, 21, 22, 23)
    assert_counter_is_resolve("sr-d8", sr.D8_CAPPED if cap else sr.D8, n, tns, 4, tn_cap=cap)


# --- sr2097: the success check and the damage roll -----------------------------------------------

SR2097_WEAPONS = {
    "pistol": {"kind": "firearm", "damage": "2d6+4", "ranges": [5, 15, 30, 50], "ammo": 99},
    "burster": {
        "kind": "firearm",
        "damage": "2d6+4",
        "ranges": [5, 15, 30, 50],
        "ammo": 99,
        "burst": True,
    },
    "toy": {"kind": "firearm", "damage": "1d6", "ranges": [0.1, 0.1, 0.1, 0.1], "ammo": 1},
}
SR2097_ARMOR = {
    "none": {"pt": 0, "dr": 0},
    "light": {"pt": 15, "dr": 20},
    "jacket": {"pt": 15, "dr": 30},
    "heavy": {"pt": 35, "dr": 60, "weight": "heavy"},
}


def sr2097_member(name, x, attack="never", **sheet):
    return {
        "name": name,
        "attributes": {"body": 4, "agility": 4, "reflexes": 4, "strength": 4, "perception": 4},
        "skills": {"firearms": 3},
        "initiative_dice": 0,
        "edge": 20,
        "position": [x, 0.0],
        "weapons": ["pistol", "burster"],
        "tactics": {"movement": "hold", "rules": {"attack": attack, "damage": "never"}},
        **sheet,
    }


def sr2097_battle(roller, shooter, target=None):
    target = target or sr2097_member("Target", 5, weapons=["toy"], edge=0)
    sc = build(
        "sr2097",
        {"A": [shooter], "B": [target]},
        weapons=SR2097_WEAPONS,
        armor=SR2097_ARMOR,
    )
    return sc, Battle(sc, rng=None, index=0, trace=False, roller=roller)


# (advantage, disadvantage, Edge policy) -> the mode and Edge the check is rolled with
CHECK_CASES = [
    (False, False, "never", s97.NORMAL, False),
    (True, False, "never", s97.ADVANTAGE, False),
    (False, True, "never", s97.DISADVANTAGE, False),
    (True, True, "never", s97.NORMAL, False),  # seed "Multiple sources": neither
    (False, False, "always", s97.ADVANTAGE, True),  # Edge gains Advantage
    (False, True, "always", s97.NORMAL, True),  # Edge removes Disadvantage
]


@pytest.mark.parametrize(("adv", "dis", "policy", "mode", "edge"), CHECK_CASES)
def test_the_2097_check_is_resolve_check_on_every_roll(adv, dis, policy, mode, edge):
    """``attack_check`` reads a roll with no double straight off the faces; against
    ``resolve_check`` on every ordered 2d10 or 3d10 and every bonus - TN from -25 to +5:
    the MoS, whether a double was kept, and the Disadvantage a bad failure leaves."""
    roller = ScriptedRoller(die=(1, 10))
    sc, battle = sr2097_battle(roller, sr2097_member("Shooter", 0, attack=policy))
    f = fighter(battle, "Shooter")
    st = f.state
    bonus = st.profile.bonuses["firearms"]
    k = 2 if mode == s97.NORMAL else 3
    for faces in product(range(1, 11), repeat=k):
        for d in range(-25, 6):
            roller.load(faces)
            st.edge, st.pending, doubles = 20, None, st.doubles
            mos = sc.system.attack_check(battle, f, "firearms", bonus - d, adv, dis, "x", None)
            want = s97.resolve_check(faces, bonus, bonus - d, mode, edge)
            assert roller.left() == [], (faces, d)
            assert (mos, st.doubles - doubles) == (want.mos, int(want.double)), (faces, d)
            assert st.edge == 20 - edge
            scope = s97.failure_disadvantage(want.tier)
            pending = st.pending and (st.pending.scope, st.pending.tier, st.pending.mos)
            assert pending == (scope and (scope, want.tier, want.mos)), (faces, d)


def totals(n: int):
    """For each total of ``n`` d6 (n..6n), one roll that shows it."""
    for total in range(n, 6 * n + 1):
        rest, faces = total - n, []
        for _ in range(n):
            face = min(6, 1 + rest)
            rest -= face - 1
            faces.append(face)
        yield faces


@pytest.mark.parametrize("armor", list(SR2097_ARMOR))
@pytest.mark.parametrize("burst", [False, True])
def test_the_2097_damage_roll_is_mos_dice_and_apply_armor(armor, burst):
    """``hit`` adds the MoS dice (``mos_damage_dice``) and applies PT/DR in line: for every
    MoS tier and every damage total, the dice it rolls are ``damage_dice`` and the damage
    dealt is ``apply_armor``'s."""
    roller = ScriptedRoller(die=(1, 6))
    target = sr2097_member("Target", 5, armor=armor, weapons=["toy"], edge=0)
    sc, battle = sr2097_battle(roller, sr2097_member("Shooter", 0), target)
    battle.tracing = True  # the damage line records what the untraced code worked out
    shooter, victim = fighter(battle, "Shooter"), fighter(battle, "Target")
    weapon = next(w for w in shooter.spec.weapons if w.burst == burst)
    code = weapon.code
    pt, dr = SR2097_ARMOR[armor]["pt"], SR2097_ARMOR[armor]["dr"]
    for mos in (0, 4, 5, 9, 10, 14):
        n = s97.damage_dice(code.dice, s97.mos_damage_dice(mos), burst)
        for faces in totals(n):
            roller.load(faces)
            battle.events.clear()
            sc.system.hit(battle, shooter, victim, weapon, mos, burst)
            assert roller.left() == [], (mos, faces)
            (line,) = [e for e in battle.events if e.kind == "damage_roll"]
            damage = sum(faces) + code.strength
            assert line.data["dealt"] == s97.apply_armor(damage, pt, dr), (mos, faces)


# --- Lost Souls: the net dice and the tier read from the faces -----------------------------------

LS_WEAPONS = {
    "pistol": {"kind": "firearm", "multiplier": 1, "ranges": [5, 30, 60], "ammo": 10000},
    "toy": {"kind": "firearm", "multiplier": 1, "ranges": [0.1, 0.1, 0.1], "ammo": 1},
}
LS_TABLE = ls.default_table()
LS_COLUMNS = (LS_TABLE.column_labels[0], LS_TABLE.column_labels[4], LS_TABLE.column_labels[-1])


def ls_battle(column, extra_dice, roller, trace=False, distance=10.0):
    members = {
        "A": [
            {
                "name": "Shooter",
                "position": [0.0, 0.0],
                "weapons": ["pistol"],
                "tactics": {"movement": "hold"},
                "abilities": {"firearms": column},
                "life": 10,
                "reflexes": 5,
                "extra_dice": extra_dice,
            }
        ],
        "B": [
            {
                "name": "Target",
                "position": [distance, 0.0],  # medium range (10 m): no range dice
                "weapons": ["toy"],
                "tactics": {"movement": "hold"},
                "abilities": {},
                "life": 1000,
                "reflexes": 5,
            }
        ],
    }
    sc = build("lost-souls", members, weapons=LS_WEAPONS, armor={})
    return sc, Battle(sc, rng=None, index=0, trace=trace, roller=roller)


def ls_expected(faces: tuple[int, ...], net: int, column) -> ls.Tier:
    """The dice layer's tier of a roll: faces 1..10 (a 10 reads 0), tens, ones, then the
    bonus (net > 0) or penalty dice."""
    tens, ones, *extra = (f % 10 for f in faces)
    roll = ls.resolve(tens, ones, extra if net > 0 else (), extra if net < 0 else ())
    return LS_TABLE.tier(roll.value, column)


def ls_attack(sc, battle, faces, roller):
    """One untraced attack on ``faces``: (catastrophe, hit, damage dealt)."""
    shooter, target = fighter(battle, "Shooter"), fighter(battle, "Target")
    st = shooter.state
    roller.load(faces)
    before = (st.catastrophes, shooter.hits)
    target.state.life = 1000
    shooter.lose_next_action = False
    sc.system.ranged_attack(battle, shooter, target, shooter.spec.weapons[0])
    assert roller.left() == [], faces
    return st.catastrophes - before[0], shooter.hits - before[1], 1000 - target.state.life


def ls_outcome(sc, tier: ls.Tier) -> tuple[int, int, int]:
    hit_damage = (0,) * ls.FIRST_SUCCESS_RANK + tuple(sc.system.options.hit_damage)
    return int(tier.rank == 0), int(tier.success), hit_damage[tier.rank] if tier.success else 0


@pytest.mark.parametrize("column", LS_COLUMNS)
@pytest.mark.parametrize("net", [-2, -1, 0, 1, 2])
def test_a_lost_souls_attack_reads_the_tier_resolve_gives_on_every_roll(net, column):
    """Untraced, an attack reads the tier's rank straight from the faces; on every d% with
    ``net`` bonus (penalty) dice it is the tier of ``resolve``'s roll: a catastrophe, a miss,
    or a hit for that tier's damage."""
    roller = ScriptedRoller(die=(1, 10))
    sc, battle = ls_battle(column, net, roller)
    for faces in product(range(1, 11), repeat=2 + abs(net)):
        tier = ls_expected(faces, net, column)
        assert ls_attack(sc, battle, faces, roller) == ls_outcome(sc, tier), faces


# the sheet's standing dice at most 5 either way, and a range band's die: 6 either way
PAST_THE_CAP = [(5, 3.0, 6), (-5, 40.0, -6)]  # (standing dice, distance, net before the cap)


@pytest.mark.parametrize(("standing", "distance", "total"), PAST_THE_CAP)
def test_a_lost_souls_attack_past_the_cap_rolls_five_extra_dice(standing, distance, total):
    """Ruling 17: at most 5 bonus or penalty dice, capped in line: 6 dice draw 2 + 5 faces
    and read them as ``resolve`` does (every tens, ones and extra face value, the extra dice
    alike or running up)."""
    net = 5 if total > 0 else -5
    column = LS_COLUMNS[1]
    roller = ScriptedRoller(die=(1, 10))
    sc, battle = ls_battle(column, standing, roller, distance=distance)
    for tens, ones, extra in product(range(1, 11), repeat=3):
        for dice in ((extra,) * 5, tuple((extra + i) % 10 + 1 for i in range(5))):
            faces = (tens, ones, *dice)
            tier = ls_expected(faces, net, column)
            assert ls_attack(sc, battle, faces, roller) == ls_outcome(sc, tier), faces


def test_the_lost_souls_battles_above_roll_the_net_dice_they_name():
    """The battles above get their net dice from the sheet's standing dice and the range
    band alone (no cover, daylight, no aiming): the traced roll says so."""
    cases = [(n, 10.0, n) for n in (-2, -1, 0, 1, 2)] + PAST_THE_CAP
    for standing, distance, total in cases:
        roller = ScriptedRoller([1] * 9, die=(1, 10))
        sc, battle = ls_battle(LS_COLUMNS[0], standing, roller, True, distance)
        shooter, target = fighter(battle, "Shooter"), fighter(battle, "Target")
        sc.system.ranged_attack(battle, shooter, target, shooter.spec.weapons[0])
        (roll,) = [e for e in battle.events if e.kind == "roll"]
        assert roll.data["net"] == max(-5, min(5, total))


# --- 4D8: the test looked up by its faces ---------------------------------------------------------

D8_WEAPONS = {
    "pistol": {"kind": "firearm", "damage": 3, "ranges": [8, 20, 40, 80], "ammo": 50},
    "toy": {"kind": "firearm", "damage": 0, "ranges": [0.1, 0.1, 0.1, 0.1], "ammo": 1},
}


def fourd8_test(system, battle, f, chance: int, mode: str) -> tuple[bool, int, int, str]:
    """The rule system's one test of ``f`` with its first weapon, untraced: ``(success,
    total, degree, combination)``. The only private call of this module (``FourD8._test``
    and the fighter's ``arms``): re-point it here when the system is refactored."""
    arms = f.state.arms[id(f.spec.weapons[0])]
    success, total, degree, kind, _ = system._test(battle, f, arms, chance, mode, "test", None)
    return success, total, degree, kind


def fourd8_battle(roller, **options):
    members = {
        "A": [
            {
                "name": "Shooter",
                "position": [0.0, 0.0],
                "weapons": ["pistol"],
                "tactics": {"movement": "hold"},
                "abilities": {"shooting": 4},
                "energy": 8,
                "health": 12,
            }
        ]
    }
    members["B"] = [{**members["A"][0], "name": "Target", "weapons": ["toy"], "abilities": {}}]
    sc = build("4d8", members, weapons=D8_WEAPONS, armor={}, options=options)
    return sc, Battle(sc, rng=None, index=0, trace=False, roller=roller)


MODE_CHANCES = [("normal", range(-1, d8.OVER32_THRESHOLD))] + [
    (mode, range(d8.OVER32_THRESHOLD, d8.OVER32_THRESHOLD + 8)) for mode in d8.OVER32
]


@pytest.mark.parametrize(("mode", "chances"), MODE_CHANCES, ids=[m for m, _ in MODE_CHANCES])
def test_the_4d8_test_is_resolve_on_every_roll(mode, chances):
    """A normal or doubles roll is looked up in the system's table of faces, a bonus roll
    and an automatic success worked out in line: on every 4d8 and every chance of the mode,
    ``resolve``'s success, total, degree and combination (an automatic success rolls none)."""
    roller = ScriptedRoller(die=(1, 8))
    sc, battle = fourd8_battle(roller, special_effects=True)
    f = fighter(battle, "Shooter")
    rolls = [None] if mode == "automatic" else list(product(range(1, 9), repeat=4))
    for chance in chances:
        for faces in rolls:
            roller.load(faces or ())
            got = fourd8_test(sc.system, battle, f, chance, mode)
            want = d8.resolve(faces, chance, d8.DEFAULT_OVER32 if mode == "normal" else mode)
            assert want.mode == mode
            assert roller.left() == [], (faces, chance)
            assert got == (want.success, want.total, want.degree, want.kind), (faces, chance)


def test_the_scripted_rollers_deal_what_the_tests_above_assume():
    """A guard on the harness: a traced Shadowrun test through the same roller reads the
    scripted faces (so the untraced comparisons above are on the faces they name)."""
    roller = ScriptedRoller([6, 3, 2, 6, 5], die=(1, 6))
    sc = sr_scenario(member("Shooter", firearms=2, weapons=["rifle"]), "sr-classic", {})
    battle = Battle(sc, rng=None, index=0, trace=True, roller=roller)
    result = sc.system.test(battle, fighter(battle, "Shooter"), 3, 9, "test")
    assert result == sr.resolve([(6, 6, 5), (3,), (2,)], 9)
    assert roller.left() == []
