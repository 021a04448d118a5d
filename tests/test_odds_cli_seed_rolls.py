"""``combatsim odds`` for the seed rolls of 2097, Lost Souls and 4D8 it could not answer before
(issue 20, deliverable 4): damage through armor, Edge spent only to remove Disadvantage, the
cooperative roll, combinations on successful rolls and the 4D8 aspect. Exact numbers worked by
hand; bad input is one line and exit 2."""

from __future__ import annotations

import json

import pytest

from combatsim.cli import main


def run_json(capsys, *argv):
    assert main(["odds", *argv, "--json"]) == 0
    return json.loads(capsys.readouterr().out)


def run_text(capsys, *argv):
    assert main(["odds", *argv]) == 0
    return capsys.readouterr().out


def refused(capsys, *argv) -> str:
    try:
        code = main(["odds", *argv])
    except SystemExit as stop:  # argparse's own errors
        code = stop.code
    err = capsys.readouterr().err.strip()
    assert code == 2, err
    assert len(err.splitlines()) == 1 and "Traceback" not in err
    return err


# --- 2097: Edge spent only to remove Disadvantage -----------------------------------------------


def test_2097_edge_remove_takes_away_disadvantage_and_keeps_the_edge_double(capsys):
    # d = -12: 45 of 100 rolls reach it; Edge's doubles 4-4 and 5-5 add two (47/100).
    out = run_json(
        capsys, "2097", "--bonus", "10", "--tn", "22", "--disadvantage", "--edge", "remove"
    )
    assert out["p_success_exact"] == "47/100"
    assert (out["mode"], out["edge"], out["edge_use"]) == ("normal", True, "remove_disadvantage")
    worse = run_json(capsys, "2097", "--bonus", "10", "--tn", "22", "--disadvantage")
    assert worse["p_success"] < 0.45
    text = run_text(
        capsys, "2097", "--bonus", "10", "--tn", "22", "--disadvantage", "--edge", "remove"
    )
    assert "Disadvantage removed with Edge" in text.splitlines()[0]


def test_2097_bare_edge_still_buys_advantage(capsys):
    bought = run_json(capsys, "2097", "--bonus", "10", "--tn", "22", "--edge")
    named = run_json(capsys, "2097", "--bonus", "10", "--tn", "22", "--edge", "advantage")
    assert bought == named
    assert (bought["mode"], bought["edge_use"]) == ("advantage", "gain_advantage")


def test_2097_edge_remove_with_advantage_from_another_source_keeps_advantage(capsys):
    out = run_json(
        capsys, "2097", "--bonus", "10", "--tn", "22", "--advantage", "--disadvantage", "--edge",
        "remove",
    )  # fmt: skip
    assert (out["mode"], out["edge"]) == ("advantage", True)


def test_2097_edge_remove_grid(capsys):
    out = run_json(
        capsys, "2097", "--grid", "--bonus", "10..11", "--tn", "22", "--disadvantage", "--edge",
        "remove",
    )  # fmt: skip
    assert out["p_success"][0] == [0.47]
    assert out["edge_use"] == "remove_disadvantage"


@pytest.mark.parametrize(
    ("argv", "says"),
    [
        (["--edge", "remove"], "--edge: got 'remove'"),
        (["--advantage", "--edge"], "--edge: got 'advantage'"),
        (["--edge", "twice"], "--edge"),
    ],
)
def test_2097_edge_that_has_nothing_to_do_is_refused(capsys, argv, says):
    assert says in refused(capsys, "2097", "--bonus", "10", "--tn", "22", *argv)


# --- 2097: damage through armor ------------------------------------------------------------------


def test_2097_damage_of_a_hit_by_hand(capsys):
    # 1d6 against PT 4 / DR 50: 1-3 stopped; 4 leaves 2, 5 leaves 3, 6 leaves 3.
    out = run_json(capsys, "2097", "--damage", "1d6", "--pt", "4", "--dr", "50")
    assert out["dealt"] == pytest.approx({"0": 1 / 2, "2": 1 / 6, "3": 1 / 3})
    assert out["outcomes"] == pytest.approx({"miss": 0, "stopped": 1 / 2, "through": 1 / 2})
    assert out["p_stopped_exact"] == "1/2" and out["expected_dealt_exact"] == "4/3"


def test_2097_damage_margin_adds_dice(capsys):
    out = run_json(capsys, "2097", "--damage", "2d6+3", "--pt", "4", "--dr", "25", "--mos", "6")
    assert out["mos"] == 6 and out["expected_dealt_exact"] == "21/2"  # 3d6+3 less a quarter
    assert min(map(int, out["dealt"])) == 5  # 3 + 3 = 6, less floor(1.5) = 1


def test_2097_damage_of_a_whole_attack_counts_the_misses(capsys):
    # bonus 10 vs TN 30: only double 10s hit (MoS 5: +1d6), so 2d6 in 1 of 100 attacks.
    out = run_json(capsys, "2097", "--damage", "1d6", "--pt", "7", "--bonus", "10", "--tn", "30")
    assert out["outcomes"]["miss"] == pytest.approx(0.99)
    assert out["p_stopped_exact"] == "1/240"  # 1/100 x 15/36
    text = run_text(capsys, "2097", "--damage", "1d6", "--pt", "7", "--bonus", "10", "--tn", "30")
    assert "0 (miss or stopped)" in text and "miss: 99.00%" in text


def test_2097_damage_plot(capsys, tmp_path):
    path = tmp_path / "dmg.png"
    text = run_text(capsys, "2097", "--damage", "2d6+3", "--pt", "8", "--plot", str(path))
    assert path.stat().st_size > 0 and "plot:" in text


@pytest.mark.parametrize(
    ("argv", "says"),
    [
        (["--damage", "2x6"], "--damage: got '2x6'"),
        (["--damage", "2d6+ST"], "--damage"),
        (["--damage", "500d6"], "at most 100d6"),
        (["--damage", "2d6", "--dr", "120"], "--dr: got 120"),
        (["--damage", "2d6", "--pt", "-1"], "--pt"),
        (["--damage", "2d6", "--mos", "-3"], "--mos"),
        (["--damage", "2d6", "--mos", "3", "--bonus", "5", "--tn", "9"], "--mos"),
        (["--damage", "2d6", "--bonus", "5"], "--tn"),
        (["--damage", "2d6", "--advantage"], "--advantage"),
        (["--damage", "2d6", "--grid"], "--grid"),
        (["--bonus", "5", "--tn", "9", "--pt", "3"], "--pt: got '3'; allowed: nothing without"),
        (["--tn", "9"], "--bonus"),
    ],
)
def test_2097_bad_damage_arguments_are_one_line(capsys, argv, says):
    assert says in refused(capsys, "2097", *argv)


# --- Lost Souls: the cooperative roll ------------------------------------------------------------


def test_lost_souls_assisted_roll_by_hand(capsys):
    # Column 6 helped by column 6: bonus die 25/100, none 56/100, penalty 19/100; success
    # 3/4, 1/2, 1/4 with each: 103/200 (tests/dice/test_lost_souls_cooperative.py).
    out = run_json(capsys, "lost-souls", "--net", "0", "--column", "6", "--assist-column", "6")
    assisted = out["assisted"]
    assert assisted["assistant_die"] == pytest.approx({"+1": 0.25, "0": 0.56, "-1": 0.19})
    assert assisted["p_success_exact"] == "103/200"
    assert assisted["p_success_unassisted"] == pytest.approx(0.5)
    assert sum(assisted["tiers"].values()) == pytest.approx(1)
    text = run_text(capsys, "lost-souls", "--net", "0", "--column", "6", "--assist-column", "6")
    assert "unassisted" in text and "assistant's die: bonus 25.00%" in text


def test_lost_souls_assistants_own_dice_count(capsys):
    base = ["lost-souls", "--net", "0", "--column", "6", "--assist-column", "4"]
    plain = run_json(capsys, *base)["assisted"]["p_success"]
    helped = run_json(capsys, *base, "--assist-net", "2")["assisted"]["p_success"]
    assert plain < 0.5 < helped  # column 4 alone hurts more often than it helps


def test_lost_souls_assisted_plot_draws_both(capsys, tmp_path):
    path = tmp_path / "coop.svg"
    run_text(
        capsys, "lost-souls", "--net", "1", "--column", "3", "--assist-column", "8", "--plot",
        str(path),
    )  # fmt: skip
    assert "unassisted" in path.read_text()


@pytest.mark.parametrize(
    ("argv", "says"),
    [
        (["--net", "0", "--assist-column", "4"], "--column: got nothing"),
        (["--net", "0", "--column", "6", "--assist-column", "11"], "--assist-column: got 11"),
        (["--net", "0", "--column", "6", "--assist-column", "x"], "--assist-column"),
        (
            ["--net", "0", "--column", "6", "--assist-column", "4", "--assist-net", "7"],
            "--assist-net",
        ),
        (["--net", "0", "--column", "6", "--assist-net", "1"], "--assist-net"),
        (["--grid", "--net", "0..1", "--assist-column", "3"], "--assist-column"),
    ],
)
def test_lost_souls_bad_assist_arguments_are_one_line(capsys, argv, says):
    assert says in refused(capsys, "lost-souls", *argv)


# --- 4D8: combinations on successful rolls only, and the aspects ----------------------------------


def test_4d8_combinations_on_success_are_labelled_apart_from_every_roll(capsys):
    # Chance 5: the successes are snake-eyes (1 roll) and a triple of 1s with a 2 (4 rolls).
    out = run_json(capsys, "4d8", "--chance", "5")
    assert out["combinations_on_success"]["triple"] == pytest.approx(4 / 5)
    assert out["combinations_on_success"]["snake_eyes"] == pytest.approx(1 / 5)
    assert out["combinations_with_success"]["triple"] == pytest.approx(4 / 4096)
    assert out["combinations"]["pair"] == pytest.approx(2016 / 4096)  # every roll, as before
    text = run_text(capsys, "4d8", "--chance", "5")
    assert "combinations over every roll, hit or miss:" in text
    assert "combinations on successful rolls only (share of the successes):" in text


def test_4d8_no_success_has_no_combinations_on_success(capsys):
    out = run_json(capsys, "4d8", "--chance", "3")
    assert out["combinations_on_success"] is None
    assert "no roll succeeds" in run_text(capsys, "4d8", "--chance", "3")


def test_4d8_aspects_table_and_json(capsys):
    # Chance 32: every roll succeeds; a pair on dice 1 and 2 in 336 of 4096 rolls.
    out = run_json(capsys, "4d8", "--chance", "32", "--aspects")
    row = next(r for r in out["aspects"] if r["aspects"] == ["physical", "mental"])
    assert row["kind"] == "pair" and row["p"] == pytest.approx(336 / 4096)
    assert row["p_on_success"] == pytest.approx(336 / 4096)
    assert sum(r["p"] for r in out["aspects"]) == pytest.approx(1)
    # A triple shows three of the four dice: 3 of its 4 sets hold a given die.
    assert out["aspect_in_combination"]["triple"]["social"] == pytest.approx(3 * 56 / 4096)
    text = run_text(capsys, "4d8", "--chance", "32", "--aspects")
    assert "pair: physical+mental" in text and "share of successes" in text


def test_4d8_aspects_plot(capsys, tmp_path):
    path = tmp_path / "aspects.svg"
    run_text(capsys, "4d8", "--chance", "24", "--aspects", "--plot", str(path))
    assert "share of successes" in path.read_text()
