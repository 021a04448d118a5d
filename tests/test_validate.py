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
