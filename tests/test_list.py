"""``combatsim list``: the names a scenario can use, with their numbers as written."""

from pathlib import Path

from combatsim.cli import main

ROOT = Path(__file__).resolve().parents[1]


def test_list_without_argument_names_systems_and_shipped_catalogues(capsys):
    assert main(["list"]) == 0
    out = capsys.readouterr().out
    assert "rule systems: 4d8, lost-souls, sr-classic, sr-d8, sr2097" in out
    assert "catalogues/sr2097.yaml" in out and "catalogues/4d8.yaml" in out


def test_list_a_system_shows_each_entry_with_its_numbers(capsys):
    assert main(["list", "sr-d8"]) == 0  # the D8 variant reads sr-classic catalogues
    out = capsys.readouterr().out
    assert "weapons (30)" in out and "armor (8)" in out and "archetypes (19)" in out
    line = next(x for x in out.splitlines() if x.strip().startswith("ares_predator "))
    assert "kind firearm  damage 6M4  ranges [5, 20, 40, 60]  ammo 15" in line


def test_list_a_catalogue_file_wraps_long_lines_without_cutting(capsys):
    assert main(["list", str(ROOT / "scenarios" / "catalogues" / "4d8.yaml")]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert max(map(len, lines)) <= 100
    start = next(i for i, x in enumerate(lines) if x.strip().startswith("gangster "))
    entry = " ".join(x.strip() for x in lines[start : start + 3])
    assert "weapons [tommy_gun, fists]" in entry and "armor steel_vest" in entry


def test_list_a_scenario_includes_its_catalogues_and_own_entries(tmp_path, capsys):
    scenario = (ROOT / "scenarios" / "sr-firefight-4v4.yaml").read_text()
    catalogue = ROOT / "scenarios" / "catalogues" / "sr-classic.yaml"
    path = tmp_path / "x.yaml"
    path.write_text(
        scenario.replace("catalogues/sr-classic.yaml", str(catalogue))
        + "weapons:\n  laser: {kind: firearm, damage: 9S2, ranges: [10, 20, 30, 40], ammo: 5}\n"
    )
    assert main(["list", str(path)]) == 0
    out = capsys.readouterr().out
    assert "weapons (31)" in out and "laser" in out and "damage 9S2" in out


def test_list_an_unknown_system_suggests_one(capsys):
    assert main(["list", "lost-soul"]) == 2
    assert "did you mean 'lost-souls'?" in capsys.readouterr().err
