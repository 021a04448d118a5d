"""``combatsim validate`` checks catalogues as well as scenarios."""

import shutil
from pathlib import Path

import pytest

from combatsim.cli import main

ROOT = Path(__file__).resolve().parents[1]


def test_every_shipped_catalogue_validates(capsys):
    catalogues = sorted((ROOT / "scenarios" / "catalogues").glob("*.yaml"))
    assert main(["validate", *map(str, catalogues)]) == 0
    out = capsys.readouterr().out.splitlines()
    assert len(out) == len(catalogues) and all("(catalogue: " in line for line in out)


def test_a_bad_catalogue_entry_is_one_line_naming_the_field(tmp_path, capsys):
    bad = tmp_path / "cat.yaml"
    bad.write_text("system: sr-classic\nweapons:\n  x: {kind: firearm, damage: 9Q}\n")
    assert main(["validate", str(bad)]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "cat.yaml:3: weapons.x.damage" in err


def test_validate_takes_a_folder_as_run_does(capsys):
    """A folder stands for every YAML file under it: scenarios and their catalogues."""
    assert main(["validate", str(ROOT / "scenarios")]) == 0
    out = capsys.readouterr().out.splitlines()
    shipped = sorted((ROOT / "scenarios").rglob("*.yaml"))
    assert len(out) == len(shipped) and all(line.startswith("ok: ") for line in out)
    assert sum("(catalogue: " in line for line in out) == 4


def test_validate_reports_every_bad_file_in_a_folder(tmp_path, capsys):
    (tmp_path / "a.yaml").write_text("system: sr-classic\narmor:\n  x: {balistic: 1}\n")
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "b.yml").write_text("system: sr-clasic\n")
    assert main(["validate", str(tmp_path)]) == 2
    err = capsys.readouterr().err.splitlines()
    assert len(err) == 2
    assert "a.yaml:3: armor.x.balistic: found unknown key 'balistic'" in err[0]
    assert "(did you mean 'ballistic'?)" in err[0]
    assert "b.yml:1: system: found 'sr-clasic' (did you mean 'sr-classic'?)" in err[1]


def test_validate_refuses_a_folder_without_yaml(tmp_path, capsys):
    assert main(["validate", str(tmp_path)]) == 2
    assert "a folder with YAML files" in capsys.readouterr().err


def _errors(tmp_path, capsys, text: str, name: str = "s.yaml") -> list[str]:
    path = tmp_path / name
    path.write_text(text)
    assert main(["validate", str(path)]) == 2
    return capsys.readouterr().err.splitlines()


def test_an_unclosed_flow_list_says_where_it_was_opened(tmp_path, capsys):
    (err,) = _errors(tmp_path, capsys, "name: x\nsides: [{name: a, members: [{archetype: g}]}\n")
    assert (
        "s.yaml:3: (yaml syntax): a flow list '[' opened on line 2, column 8 is not closed" in err
    )
    assert "allowed: close the list with ']'" in err


def test_an_unclosed_flow_mapping_and_a_quote_say_what_to_do(tmp_path, capsys):
    (err,) = _errors(tmp_path, capsys, "a: {b: 1\nc: 2\n")
    assert "a flow mapping '{' opened on line 1, column 4 is not closed at line 2" in err
    assert "close the mapping with '}'" in err and "found found" not in err
    (err,) = _errors(tmp_path, capsys, 'name: "x\nsides: 3\n')
    assert "a quoted string opened on line 1, column 7 is not closed" in err


def test_a_misindented_key_names_both_lines(tmp_path, capsys):
    (err,) = _errors(tmp_path, capsys, "name: x\nsides:\n  - name: a\n   members: 3\n")
    assert "line 4, column 4 does not line up with the list whose first '-' is on line 3" in err
    (err,) = _errors(tmp_path, capsys, "name: x\n\tsides: 3\n")
    assert "s.yaml:2:" in err and "spaces for indentation" in err


SCENARIO_HEAD = f"""name: test
rules:
  system: sr-classic
catalogues: [{ROOT / "scenarios" / "catalogues" / "sr-classic.yaml"}]
sides:
"""


def test_every_mistake_of_a_file_is_reported_at_its_own_line(tmp_path, capsys):
    err = _errors(
        tmp_path,
        capsys,
        SCENARIO_HEAD
        + """  - name: a
    members:
      - archetype: gangr
      - archetype: ganger
        skils: {firearms: 3}
  - name: b
    members:
      - archetype: ganger
        position: [10, 0]
        weapons: [ak98]
        name: b1
""",
    )
    assert len(err) == 3 and all(x.startswith("combatsim: error: ") for x in err)
    assert "s.yaml:8: sides[0].members[0].archetype: found 'gangr'" in err[0]
    assert "(did you mean 'ganger'?)" in err[0]
    assert "s.yaml:10: sides[0].members[1].skils: found unknown key 'skils'" in err[1]
    assert "s.yaml:15: sides[1].members[0].weapons[0]: found 'ak98'" in err[2]


def test_every_mistake_in_the_shape_of_the_file_is_reported_at_once(tmp_path, capsys):
    err = _errors(
        tmp_path,
        capsys,
        SCENARIO_HEAD
        + """  - name: a
    members:
      - {archetype: ganger, cover: ful}
  - name: b
    members:
      - {archetype: ganger, position: [10]}
environment: {visibilty: smoke}
seed: -1
""",
    )
    assert [x.split(": ")[2].rsplit(":", 1)[1] for x in err] == ["8", "11", "11", "12", "13"]
    assert "sides[0].members[0].cover: found 'ful' (did you mean 'full'?)" in err[0]
    assert "sides[1].members[0].position" in err[1] and "[x, y] in meters" in err[1]
    # and with them what the rule system finds: both members are named after their archetype
    assert "sides[1].members[0].name: found 'ganger'; allowed: a name no other" in err[2]
    assert "environment.visibilty: found unknown key 'visibilty'" in err[3]
    assert "seed: found -1" in err[4]


def test_a_side_level_tactics_key_is_reported_where_the_side_writes_it(tmp_path, capsys):
    err = _errors(
        tmp_path,
        capsys,
        SCENARIO_HEAD
        + """  - name: a
    members:
      - archetype: ganger
  - name: b
    tactics:
      targetting: nearest
    members:
      - archetype: ganger
        position: [10, 0]
        name: b1
      - archetype: ganger
        position: [10, 3]
        name: b2
""",
    )
    # once, under the side, on the line of the key: not once per member, under the member
    assert len(err) == 1
    assert "s.yaml:11: sides[1].tactics.targetting: found unknown key 'targetting'" in err[0]


def test_a_scenario_error_is_still_its_first_mistake_in_one_line(tmp_path):
    from combatsim.errors import ScenarioErrors
    from combatsim.scenario import load_scenario

    path = tmp_path / "s.yaml"
    path.write_text(
        SCENARIO_HEAD + "  - {name: a, members: [{archetype: x1}, {archetype: x2}]}\n"
        "  - {name: b, members: [{archetype: ganger}]}\n"
    )
    with pytest.raises(ScenarioErrors) as caught:
        load_scenario(path)
    assert len(caught.value.errors) == 2 and "\n" not in str(caught.value)
    assert str(caught.value) == str(caught.value.errors[0]) and "'x1'" in str(caught.value)


def test_at_most_twenty_mistakes_are_shown_then_how_many_more(tmp_path, capsys):
    weapons = "".join(f"  w{i}: {{kind: firearm, damage: 9Q}}\n" for i in range(25))
    err = _errors(tmp_path, capsys, "system: sr-classic\nweapons:\n" + weapons, "cat.yaml")
    assert len(err) == 21
    assert "cat.yaml:3: weapons.w0.damage" in err[0] and "cat.yaml:22: weapons.w19" in err[19]
    assert err[20].endswith("... and 5 more errors not shown")


def test_a_side_level_rule_tactic_is_reported_under_the_side_once(tmp_path, capsys):
    catalogue = ROOT / "scenarios" / "catalogues" / "sr2097.yaml"
    err = _errors(
        tmp_path,
        capsys,
        f"""name: test
rules: {{system: sr2097}}
catalogues: [{catalogue}]
sides:
  - name: a
    tactics:
      rules:
        attack: sometimes
    members:
      - {{archetype: ganger, name: a1}}
      - {{archetype: ganger, name: a2, position: [0, 3]}}
  - name: b
    members: [{{archetype: ganger, position: [10, 0]}}]
""",
    )
    assert len(err) == 1 and "s.yaml:8: sides[0].tactics.rules.attack: found 'sometimes'" in err[0]


# Ten mistakes at every depth of a scenario file, each with the line it is written on.
TEN_MISTAKES = """\
name: Ten mistakes
rules:
  system: sr-classic
  options:
    fumble_efect: lose_action
catalogues: [sr-classic]
environment:
  visibility: foggy
archetypes:
  thug:
    attributes: {body: 3, quickness: 3, strength: 3, reaction: 3}
    hp: 9
sides:
  - name: Runners
    colour: red
    tactics: {targetting: nearest}
    members:
      - name: Ace
        archetype: gangr
      - name: Bo
        archetype: ganger
        count: 101
      - name: Cy
        archetype: ganger
        skils: {firearms: 4}
        weapons: [ak98]
  - name: Guards
    members:
      - {name: Dee, archetype: ganger, position: [10, 0]}
turn_limit: 0
"""
TEN_FOUND = [
    (5, "rules.options.fumble_efect: found unknown key 'fumble_efect'"),
    (8, "environment.visibility: found 'foggy'"),
    (12, "archetypes.thug.hp: found unknown key 'hp'"),
    (15, "sides[0].colour: found unknown key 'colour'"),
    (16, "sides[0].tactics.targetting: found unknown key 'targetting'"),
    (19, "sides[0].members[0].archetype: found 'gangr' (did you mean 'ganger'?)"),
    (22, "sides[0].members[1].count: found 101"),
    (25, "sides[0].members[2].skils: found unknown key 'skils' (did you mean 'skills'?)"),
    (26, "sides[0].members[2].weapons[0]: found 'ak98' (did you mean 'ak97'?)"),
    (30, "turn_limit: found 0"),
]


def test_ten_mistakes_at_every_depth_are_all_reported_each_at_its_line(tmp_path, capsys):
    """The file's top level and shape, the rules options, a catalogue entry, a side, its
    tactics, a member's keys and the names it gives: one round of validate shows every
    mistake (a member's unknown key does not hide its misspelt weapon, nor a wrong
    turn_limit what the rule system finds)."""
    err = _errors(tmp_path, capsys, TEN_MISTAKES)
    assert len(err) == len(TEN_FOUND) == 10
    for line, (number, message) in zip(err, TEN_FOUND, strict=True):
        assert f"s.yaml:{number}: {message}" in line and line.count("\n") == 0


def test_one_mistake_left_is_one_plain_line(tmp_path, capsys):
    from combatsim.errors import ScenarioError
    from combatsim.scenario import load_scenario

    fixes = [
        ("fumble_efect", "fumble_effect"),
        ("foggy", "smoke"),
        ("    hp: 9\n", ""),
        ("    colour: red\n", ""),
        ("targetting", "target"),
        ("gangr\n", "ganger\n"),
        ("count: 101", "count: 2"),
        ("skils", "skills"),
        ("turn_limit: 0", "turn_limit: 5"),
    ]
    text = TEN_MISTAKES
    for wrong, right in fixes:
        text = text.replace(wrong, right)
    (err,) = _errors(tmp_path, capsys, text)
    assert "s.yaml:24: sides[0].members[2].weapons[0]: found 'ak98'" in err
    with pytest.raises(ScenarioError) as caught:
        load_scenario(tmp_path / "s.yaml")
    assert type(caught.value) is ScenarioError and str(caught.value) in err


COUNTS = """\
name: Counts
rules: {system: sr-classic}
catalogues: [sr-classic]
sides:
  - name: a
    members:
      - {name: Ace, archetype: ganger, count: A}
      - {name: Bo, archetype: ganger, count: B, position: [0, 3]}
  - name: b
    members: [{archetype: ganger, position: [10, 0]}]
"""


def test_a_count_of_0_leaves_the_member_out_and_a_side_keeps_one_fighter(tmp_path, capsys):
    """A sweep of a count from 0 (how many guards before the runners lose?) needs 0 to mean
    "none of them": the member is left out of the fight. A side whose every member is 0 has
    nobody to fight: one line, at its first member's count."""
    from combatsim.scenario import load_scenario

    path = tmp_path / "s.yaml"
    path.write_text(COUNTS.replace("count: A", "count: 0").replace("count: B", "count: 2"))
    fighters = [f.name for side in load_scenario(path).sides for f in side.fighters]
    assert fighters == ["Bo 1", "Bo 2", "ganger"]
    (err,) = _errors(tmp_path, capsys, COUNTS.replace("count: A", "count: 0").replace("B", "0"))
    assert "s.yaml:7: sides[0].members[0].count: found 0; allowed: a side with at least one" in err


def test_a_catalogue_edited_between_two_loads_is_read_again(tmp_path):
    """A scenario built twice reads its catalogue as it is now (a checked catalogue is kept
    per text, not per file): an edited weapon and a broken entry are both seen."""
    from combatsim.errors import ScenarioError
    from combatsim.scenario import load_scenario

    folder = tmp_path / "scenarios"
    shutil.copytree(ROOT / "scenarios", folder)
    scenario, catalogue = (
        folder / "sr-firefight-4v4.yaml",
        folder / "catalogues" / "sr-classic.yaml",
    )
    text = catalogue.read_text()
    first = load_scenario(scenario).sides[0].fighters[0].weapons[0]
    catalogue.write_text(text.replace(f"damage: {first.damage}", "damage: 9D9"))
    assert load_scenario(scenario).sides[0].fighters[0].weapons[0].damage == "9D9"
    catalogue.write_text(text.replace(f"damage: {first.damage}", "damage: 9Q"))
    with pytest.raises(ScenarioError, match="damage"):
        load_scenario(scenario)
    catalogue.write_text(text)
    assert load_scenario(scenario).sides[0].fighters[0].weapons[0] == first
