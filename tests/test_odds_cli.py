"""``combatsim odds``: every system answers with a table and with JSON; bad input exits 2."""

import json

import pytest

from combatsim.cli import main


def run_json(capsys, *argv):
    assert main(["odds", *argv, "--json"]) == 0
    return json.loads(capsys.readouterr().out)


def test_sr_json_has_per_die_chance_successes_and_fumble(capsys):
    out = run_json(capsys, "sr", "--dice", "4", "--tn", "7")
    assert out["p_die"] == pytest.approx(1 / 6)  # TN 7 is as hard as TN 6 (Rule of Six)
    assert len(out["successes"]) == 5
    assert sum(out["successes"]) == pytest.approx(1)
    assert out["p_fumble"] == pytest.approx(6**-4)


def test_sr_d8_json_uses_faces_zero_to_seven(capsys):
    out = run_json(capsys, "sr", "--dice", "1", "--tn", "8", "--d8")
    assert out["p_die"] == pytest.approx(1 / 8 * 7 / 8)
    assert out["p_fumble"] == pytest.approx(1 / 8)


def test_sr_compare_lists_tn_2_to_20(capsys):
    out = run_json(capsys, "sr", "--compare", "--dice", "3")
    assert [r["tn"] for r in out["rows"]] == list(range(2, 21))
    tn7 = out["rows"][5]
    assert tn7["d6_p_die"] == pytest.approx(1 / 6) and tn7["d8_p_die"] == pytest.approx(1 / 8)


def test_2097_json_reproduces_the_seed_professional(capsys):
    out = run_json(capsys, "2097", "--bonus", "15", "--tn", "20")
    assert out["p_success"] == pytest.approx(0.94)
    assert sum(out["mos"].values()) == pytest.approx(1)


@pytest.mark.parametrize("flag", ["--advantage", "--disadvantage", "--edge"])
def test_2097_modes_change_the_odds(capsys, flag):
    plain = run_json(capsys, "2097", "--bonus", "10", "--tn", "22")["p_success"]
    other = run_json(capsys, "2097", "--bonus", "10", "--tn", "22", flag)["p_success"]
    assert (other < plain) if flag == "--disadvantage" else (other > plain)


def test_lost_souls_json_roll_distribution(capsys):
    out = run_json(capsys, "lost-souls", "--net", "-2", "--column", "5")
    assert sum(out["roll"].values()) == pytest.approx(1)
    assert set(out["roll"]) == {str(v) for v in range(1, 101)}
    assert list(out["tiers"]) == ["5"]


def test_4d8_json_degree_and_success(capsys):
    out = run_json(capsys, "4d8", "--chance", "17")
    assert out["p_success"] == pytest.approx(469 / 1024)
    assert sum(out["degree"].values()) == pytest.approx(1)


def test_tables_render_without_json(capsys):
    for argv in (
        ["sr", "--dice", "3", "--tn", "5"],
        ["2097", "--bonus", "5", "--tn", "15"],
        ["lost-souls", "--net", "1"],
        ["4d8", "--chance", "40"],
    ):
        assert main(["odds", *argv]) == 0
        assert "P" in capsys.readouterr().out


@pytest.mark.parametrize(
    "argv, names",
    [
        (["sr", "--dice", "-1", "--tn", "5"], "--dice"),
        (["lost-souls", "--net", "6"], "net"),
        (["4d8", "--chance", "20", "--over32", "maybe"], "--over32"),
        (["sr", "--dice", "3"], "--tn"),
    ],
)
def test_bad_arguments_are_one_line_with_exit_2(capsys, argv, names):
    try:
        code = main(["odds", *argv])
    except SystemExit as stop:  # argparse's own errors
        code = stop.code
    err = capsys.readouterr().err.strip()
    assert code == 2
    assert names in err and len(err.splitlines()) == 1 and "Traceback" not in err


def test_unknown_system_is_refused(capsys):
    with pytest.raises(SystemExit) as stop:
        main(["odds", "gurps"])
    assert stop.value.code == 2
    assert "invalid choice" in capsys.readouterr().err
