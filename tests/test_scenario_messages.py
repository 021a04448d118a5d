"""A scenario writer's mistakes get a message that says what to write instead: the keys allowed
at that place, a "did you mean" for a misspelling, the path tried for a missing file."""

from pathlib import Path

import pytest

from combatsim.cli import main
from combatsim.errors import ScenarioError, UsageError, did_you_mean
from combatsim.scenario import load_scenario

ROOT = Path(__file__).resolve().parents[1]
FIREFIGHT = (ROOT / "scenarios" / "sr-firefight-4v4.yaml").read_text(encoding="utf-8")
RAZOR = "{name: Razor, archetype: street_samurai, position: [0, 0]}"


def _error(tmp_path, old: str, new: str) -> str:
    assert old in FIREFIGHT
    path = tmp_path / "x.yaml"
    text = FIREFIGHT.replace(old, new).replace(
        "catalogues/sr-classic.yaml", str(ROOT / "scenarios/catalogues/sr-classic.yaml")
    )
    path.write_text(text, encoding="utf-8")
    with pytest.raises(ScenarioError) as info:
        load_scenario(path)
    return str(info.value)


def test_did_you_mean_picks_the_closest_or_nothing():
    assert did_you_mean("firarms", ["firearms", "throwing"]) == "did you mean 'firearms'?"
    assert did_you_mean("AK97", ["ak97"]) == "did you mean 'ak97'?"
    assert did_you_mean("laser", ["ak97", "katana"]) is None
    assert did_you_mean(3, ["ak97"]) is None


def test_a_misspelt_skill_lists_the_skills_not_the_member_keys(tmp_path):
    msg = _error(tmp_path, RAZOR, RAZOR[:-1] + ", skills: {firarms: 6}}")
    assert "x.yaml:29: sides[0].members[0].skills.firarms: found unknown key 'firarms'" in msg
    assert "(did you mean 'firearms'?)" in msg
    assert msg.endswith("allowed: the keys armed_combat, firearms, throwing, unarmed_combat")


def test_a_misspelt_member_key_suggests_the_right_one(tmp_path):
    msg = _error(tmp_path, "position: [0, 0]}", "positon: [0, 0]}")
    assert "found unknown key 'positon' (did you mean 'position'?)" in msg
    assert "position" in msg.split("allowed: ")[1]


def test_a_member_without_archetype_is_told_to_name_one(tmp_path):
    msg = _error(tmp_path, RAZOR, "{name: Razor, position: [0, 0]}")
    assert "sides[0].members[0]: a member without an archetype and without 'attributes'" in msg
    assert "allowed: archetype: NAME, where NAME is a known archetype: combat_mage" in msg


@pytest.mark.parametrize("position", ["0", "[1, 2, 3]", "[a, b]", "{x: 1}"])
def test_a_bad_position_asks_for_x_y_in_meters(tmp_path, position):
    msg = _error(tmp_path, RAZOR, RAZOR.replace("[0, 0]", position))
    assert "sides[0].members[0].position: found" in msg
    assert msg.endswith("allowed: [x, y] in meters, e.g. [0, 3]")


def test_a_missing_catalogue_names_the_path_tried_and_the_line(tmp_path):
    path = tmp_path / "x.yaml"
    path.write_text(FIREFIGHT.replace("sr-classic.yaml", "sr-clasic.yaml"), encoding="utf-8")
    (tmp_path / "catalogues").mkdir()
    (tmp_path / "catalogues" / "sr-classic.yaml").write_text("system: sr-classic\n")
    with pytest.raises(ScenarioError) as info:
        load_scenario(path)
    tried = tmp_path.resolve() / "catalogues" / "sr-clasic.yaml"
    assert str(info.value).startswith(
        f"{path}:15: catalogues[0]: catalogue file not found: {tried} (named at scenario line 15)"
        " (did you mean 'catalogues/sr-classic.yaml'?)"
    )


@pytest.mark.parametrize(
    "old, new, hint",
    [
        ("archetype: street_samurai", "archetype: street_samuri", "'street_samurai'"),
        ("system: sr-classic", "system: sr-clasic", "'sr-classic'"),
        ("dodge: match}", "dodge: matc}", "'match'"),
        ("visibility: normal", "visiblity: normal", "'visibility'"),
        ("autofire_rounds: 3}}", "autofire_rounds: 3}, weapons: [ak98]}", "'ak97'"),
    ],
)
def test_every_unknown_name_or_key_gets_a_did_you_mean(tmp_path, old, new, hint):
    assert f"(did you mean {hint}?)" in _error(tmp_path, old, new)


def test_an_unknown_armor_gets_a_did_you_mean(tmp_path):
    msg = _error(tmp_path, RAZOR, RAZOR[:-1] + ", armor: lined_cot}")
    assert "armor: found 'lined_cot' (did you mean 'lined_coat'?)" in msg


def test_an_unknown_side_gets_a_did_you_mean():
    from combatsim.sweeps import api

    with pytest.raises(UsageError) as info:
        api.balance(
            load_scenario(ROOT / "scenarios" / "sr-firefight-4v4.yaml"),
            ["sides[1].members[Guard].count=1..2"],
            side="runers",
            battles=2,
        )
    assert "(did you mean 'runners'?)" in str(info.value)


def test_an_unknown_item_name_in_a_field_path_gets_a_did_you_mean(capsys):
    scenario = str(ROOT / "scenarios" / "sr-firefight-4v4.yaml")
    code = main(["sweep", scenario, "--vary", "sides[runners].members[Grunnt].armor=leathers"])
    assert code == 2
    assert "has no item named 'Grunnt'; did you mean 'Grunt'?" in capsys.readouterr().err
