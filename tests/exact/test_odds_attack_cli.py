"""``combatsim odds attack`` as a user meets it: the table, the JSON, the picture, and one
line naming the argument for every mistake."""

from __future__ import annotations

import json
from fractions import Fraction

import pytest

from combatsim.cli import main

FIGHT = "scenarios/sr-firefight-4v4.yaml"
BRAWL = "scenarios/sr-bar-brawl.yaml"


def run(capsys, *args):
    code = main(["odds", "attack", *args])
    out = capsys.readouterr()
    return code, out.out, out.err


def test_the_table_names_the_attack_and_every_outcome(capsys):
    code, out, _ = run(capsys, FIGHT, "--attacker", "Razor", "--target", "Guard 1")
    assert code == 0
    assert out.startswith("Razor attacks Guard 1 with the ares_predator_smart (1 shot)")
    for row in ("miss", "hit, no damage", "damage 3", "target down", "target dead"):
        assert row in out


def test_json_has_floats_and_the_exact_fractions_that_sum_to_one(capsys):
    code, out, _ = run(
        capsys, FIGHT, "--attacker", "Grunt", "--target", "Guard 1", "--shots", "1", "--json"
    )
    payload = json.loads(out)
    assert code == 0 and payload["shots"] == 1 and payload["weapon"] == "ak97"
    exact = payload["exact"]
    assert sum(Fraction(p) for p in exact["damage"].values()) == 1
    assert sum(Fraction(p) for p in exact["condition"].values()) == 1
    assert Fraction(exact["p_miss"]) + Fraction(exact["p_hit"]) == 1
    assert payload["p_hit"] == pytest.approx(float(Fraction(exact["p_hit"])))


def test_set_moves_a_fighter_into_reach_for_a_melee_attack(capsys):
    code, out, _ = run(
        capsys,
        BRAWL,
        "--attacker",
        "Tiny",
        "--target",
        "Ork ganger 1",
        "--set",
        "sides[1].members[0].position=[1, 0]",
    )
    assert code == 0 and "with the club (melee)" in out and "attacker takes damage" in out


def test_plot_draws_the_damage(capsys, tmp_path):
    picture = tmp_path / "attack.png"
    code, _, _ = run(
        capsys, FIGHT, "--attacker", "Razor", "--target", "Guard 1", "--plot", str(picture)
    )
    assert code == 0 and picture.stat().st_size > 1000


@pytest.mark.parametrize(
    "args, says",
    [
        (("--attacker", "Nobody", "--target", "Guard 1"), "--attacker: got 'Nobody'"),
        (("--attacker", "Razor", "--target", "Grunt"), "not on the attacker's side"),
        (("--attacker", "Razor", "--target", "Guard 1", "--weapon", "bazooka"), "carries"),
        (("--attacker", "Razor", "--target", "Guard 1", "--weapon", "katana"), "reaches 2 m"),
        (("--attacker", "Grunt", "--target", "Guard 1", "--shots", "99"), "1 to 6"),
        (("--attacker", "Razor", "--target", "Guard 1", "--set", "nope=1"), "unknown key"),
    ],
)
def test_each_mistake_is_one_line_and_exit_2(capsys, args, says):
    code, out, err = run(capsys, FIGHT, *args)
    assert code == 2 and out == ""
    assert says in err and len(err.strip().splitlines()) == 1 and "Traceback" not in err


def test_a_grenade_is_refused_in_words(capsys):
    code, _, err = run(
        capsys,
        "scenarios/sr-grenade-ambush.yaml",
        "--attacker",
        "Boom",
        "--target",
        "Sergeant Ruiz",
        "--weapon",
        "offensive_grenade",
    )
    assert code == 2 and "a grenade is not exact" in err
