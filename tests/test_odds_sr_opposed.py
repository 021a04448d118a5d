"""``combatsim odds sr --against / --dodge / --karma``: classic Shadowrun's opposed tests and
Instant Karma from the command line, as JSON, tables and pictures; bad input exits 2."""

import json

import pytest

from combatsim.cli import main

PNG = b"\x89PNG\r\n\x1a\n"


def run_json(capsys, *argv):
    assert main(["odds", "sr", *argv, "--json"]) == 0
    return json.loads(capsys.readouterr().out)


def test_melee_json_has_both_sides_who_wins_and_the_margin(capsys):
    """Two dice against one at TN 4 (coins): margin A - D + 1 is Binomial(3, 1/2)."""
    out = run_json(capsys, "--dice", "2", "--tn", "4", "--against", "1")
    assert out["test"] == "melee"
    assert out["attacker"]["successes"] == pytest.approx([1 / 4, 1 / 2, 1 / 4])
    assert out["defender"]["successes"] == pytest.approx([1 / 2, 1 / 2])
    assert out["defender"]["tn"] == 4  # --against-tn defaults to --tn
    assert out["exact"] == {"attacker_wins": "1/2", "tie": "3/8", "defender_wins": "1/8"}
    assert out["margin"] == pytest.approx({"-1": 1 / 8, "0": 3 / 8, "1": 3 / 8, "2": 1 / 8})
    assert out["winner_net"]["attacker"] == pytest.approx([0, 3 / 8, 1 / 8])
    assert out["winner_net"]["defender"] == pytest.approx([0, 1 / 8])


def test_melee_against_tn_and_the_d8(capsys):
    """One D8 die at TN 4 (4/8) against one at TN 8 (7 then 1-7: 7/64)."""
    out = run_json(
        capsys, "--dice", "1", "--tn", "4", "--against", "1", "--against-tn", "8", "--d8"
    )
    assert out["system"] == "shadowrun-d8"
    assert out["p_attacker_wins"] == pytest.approx(1 / 2 * 57 / 64)
    assert out["p_defender_wins"] == pytest.approx(1 / 2 * 7 / 64)


def test_dodge_json_clean_miss_hit_and_net(capsys):
    """One attack die at TN 4 against two dodge dice at TN 4: no success 1/2; one success
    dodged by two dodge successes 1/8; a hit with net 1 (no dodge success) 1/8, net 0 1/4."""
    out = run_json(capsys, "--dice", "1", "--tn", "4", "--dodge", "2", "--dodge-tn", "4")
    assert out["test"] == "dodge"
    assert out["exact"] == {"no_success": "1/2", "clean_miss": "1/8", "hit": "3/8"}
    assert out["net_on_hit"] == pytest.approx([1 / 4, 1 / 8])
    assert out["joint_on_hit"] == [[1, 0, pytest.approx(1 / 8)], [1, 1, pytest.approx(1 / 4)]]


def test_karma_reroll_json(capsys):
    out = run_json(capsys, "--dice", "4", "--tn", "5", "--karma", "reroll")
    assert out["p_fumble_exact"] == "1/6561"
    assert out["p_karma_spent_exact"] == "16/81"
    assert out["successes"][0] == pytest.approx((16 / 81) ** 2)
    assert out["successes_without_karma"][0] == pytest.approx(16 / 81)
    assert out["p_fumble_without_karma"] == pytest.approx(6**-4)
    off = run_json(
        capsys, "--dice", "4", "--tn", "5", "--karma", "reroll", "--karma-reroll-fumbles", "off"
    )
    assert off["p_fumble"] == 0 and off["successes"] == pytest.approx(out["successes"])


def test_karma_negate_json(capsys):
    out = run_json(capsys, "--dice", "2", "--tn", "6", "--karma", "negate", "--d8")
    assert out["p_fumble"] == 0
    assert out["p_karma_spent"] == pytest.approx(1 / 64)
    assert out["successes"] == pytest.approx(out["successes_without_karma"])


def test_karma_applies_to_the_attackers_pool_in_an_opposed_test(capsys):
    plain = run_json(capsys, "--dice", "2", "--tn", "5", "--dodge", "1", "--dodge-tn", "5")
    karma = run_json(
        capsys, "--dice", "2", "--tn", "5", "--dodge", "1", "--dodge-tn", "5", "--karma", "reroll"
    )
    assert karma["p_no_success"] == pytest.approx(plain["p_no_success"] ** 2)  # (4/9)^2
    assert karma["karma"] == "reroll"


def test_the_defender_may_reroll_with_karma_in_melee(capsys):
    """Two dice each at TN 4; the defender re-rolls no success (1/4 then 1/4 again): its
    successes 1/16, 5/8, 5/16, so the attacker wins 1/2 x 1/16 + 1/4 x 11/16 = 13/64."""
    out = run_json(
        capsys, "--dice", "2", "--tn", "4", "--against", "2", "--against-karma", "reroll"
    )
    assert out["exact"]["attacker_wins"] == "13/64"
    assert out["defender"]["successes"] == pytest.approx([1 / 16, 5 / 8, 5 / 16])
    assert out["defender"]["p_fumble"] == pytest.approx(1 / 4 * 1 / 36)  # ruling 26
    assert out["attacker"]["p_fumble"] == pytest.approx(1 / 36)


@pytest.mark.parametrize(
    "argv, words",
    [
        (["--against", "3"], "Attacker wins"),
        (["--dodge", "2", "--dodge-tn", "6"], "clean miss"),
        (["--karma", "reroll"], "ruling 26"),
    ],
)
def test_tables_render(capsys, argv, words):
    assert main(["odds", "sr", "--dice", "4", "--tn", "4", *argv]) == 0
    assert words.lower() in capsys.readouterr().out.lower()


@pytest.mark.parametrize(
    "argv",
    [
        ["--against", "5"],
        ["--dodge", "3", "--dodge-tn", "6"],
        ["--karma", "reroll"],
        ["--karma", "negate", "--d8"],
    ],
    ids=lambda a: " ".join(a),
)
def test_plot_draws_each_new_distribution(tmp_path, capsys, argv):
    target = tmp_path / "odds.png"
    assert main(["odds", "sr", "--dice", "6", "--tn", "4", *argv, "--plot", str(target)]) == 0
    assert target.read_bytes().startswith(PNG)
    assert f"plot: {target}" in capsys.readouterr().out


@pytest.mark.parametrize(
    "argv, names",
    [
        (["--against", "2", "--dodge", "2", "--dodge-tn", "4"], "--dodge"),
        (["--dodge", "2"], "--dodge-tn"),
        (["--dodge-tn", "2"], "--dodge"),
        (["--against-tn", "5"], "--against"),
        (["--karma", "negate", "--karma-reroll-fumbles", "off"], "--karma reroll"),
        (["--karma-reroll-fumbles", "on"], "--karma-reroll-fumbles"),
        (["--against-karma", "reroll"], "--against-karma"),
        (["--against", "2", "--against-karma", "buy"], "--against-karma"),
        (["--against", "-1"], "--against"),
        (["--against", "101"], "--against"),
        (["--against", "2", "--against-tn", "x"], "--against-tn"),
        (["--dodge", "200", "--dodge-tn", "4"], "--dodge"),
        (["--dodge", "2", "--dodge-tn", "999"], "--dodge-tn"),
        (["--karma", "buy"], "--karma"),
        (["--compare", "--against", "2"], "--compare"),
    ],
)
def test_bad_arguments_are_one_line_with_exit_2(capsys, argv, names):
    try:
        code = main(["odds", "sr", "--dice", "3", "--tn", "4", *argv])
    except SystemExit as stop:  # argparse's own errors
        code = stop.code
    err = capsys.readouterr().err.strip()
    assert code == 2
    assert names in err and len(err.splitlines()) == 1 and "Traceback" not in err


def test_grid_refuses_the_opposed_tests(capsys):
    code = main(["odds", "sr", "--grid", "--dice", "1..3", "--tn", "4", "--karma", "reroll"])
    err = capsys.readouterr().err.strip()
    assert code == 2 and "--grid" in err and len(err.splitlines()) == 1
