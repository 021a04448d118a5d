"""``combatsim validate`` checks catalogues as well as scenarios."""

from pathlib import Path

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
