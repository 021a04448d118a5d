"""Rules a review against RULINGS.md found missing or misread, pinned on scripted dice."""

from combatsim.engine.battle import Battle
from tests.engine.helpers import (
    ScriptedRoller,
    duel,
    events,
    fighter,
    member,
    rolls,
    run_scripted,
    sitting_target,
)


def brawl(**options):
    """As test_sr_rules.brawl: a club fighter (Armed 2 + Defense 2 = 4 dice, club Power 5,
    M2) 1 m from a target (Unarmed 1 + Defense 1 = 2 dice, Body 2) that never attacks."""
    brawler = member("Brawler", reaction=5, strength=4, armed_combat=2, weapons=["club"])
    target = sitting_target(body=2, unarmed_combat=1, position=(1, 0))
    return duel(brawler, target, options=options)


# initiative 1, 1; Brawler 4, 4, 4, 4 (4 successes); Target 2, 2 (none); Target's Body 2, 2
NET_FOUR = [1, 1, 4, 4, 4, 4, 2, 2, 2, 2]


def test_melee_staging_counts_net_successes_beyond_the_first_by_default():
    """Ruling 9 with ruling 6's count: net 4, 3 beyond the first, club staging 2: +1, M -> S."""
    _, result, _ = run_scripted(brawl(), NET_FOUR)
    assert events(result, "stage", "Target")[0].data["level"] == "S"


def test_melee_staging_all_net_counts_every_net_success():
    """Option ``melee_staging: all_net``: net 4 // staging 2 = +2, M -> D."""
    _, result, _ = run_scripted(brawl(melee_staging="all_net"), NET_FOUR)
    assert events(result, "stage", "Target")[0].data["level"] == "D"


def test_a_wounded_defender_resists_at_power_plus_its_wound_modifier():
    """Ruling 7 puts the wound modifier on every TN: a target already carrying 3 Stun boxes
    (+2) rolls Body against the club's Power 5 + 2 = 7."""
    sc = brawl()
    battle = Battle(sc, rng=None, index=0, trace=True, roller=ScriptedRoller(NET_FOUR))
    fighter(battle, "Target").state.stun = 3
    result = battle.run()
    (body,) = rolls(result, "Body", "Target")
    assert body.data["tn"] == 7


def test_a_fighter_who_ran_cannot_shoot_for_the_rest_of_the_turn():
    """Seed 002: 'Attacker Running: Cannot Shoot'. The shooter (Reaction 10 + 1 = 11: acts at
    11 and 4) is out of its SMG's 150 m and runs 24 m at 11; at 4 the target is in range, but
    it has run this turn, so it does not fire."""
    shooter = member(
        "Shooter", reaction=10, quickness=6, weapons=["smg"], tactics={"movement": "advance"}
    )
    sc = duel(shooter, sitting_target(position=(170, 0)))
    _, result, _ = run_scripted(sc, [1, 1])
    kinds = [e.data["plan"] for e in events(result, "decide", "Shooter")]
    assert kinds[0] == "run" and "fire" not in kinds
    assert not rolls(result, "Firearms")
