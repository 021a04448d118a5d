"""An output folder is never written or emptied through a link: a manifest entry whose way
passes a symbolic link is not removed, and a run (even with ``--force``) refuses, in one line
naming it, to write into a subfolder that is a link, leaving what it points to untouched."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from combatsim import folder as folders
from combatsim.cli import main
from combatsim.commands import run as run_command
from combatsim.sweeps import api
from tests.test_sweep import one_error_line, toy_files, toy_runner

VARY = "guards:sides[guards].members[Guard].count=1..2"


@pytest.fixture
def toy(tmp_path):
    return toy_files(tmp_path / "scenarios")


@pytest.fixture
def outside(tmp_path) -> Path:
    """A folder outside the output folder, holding a file that must survive."""
    place = tmp_path / "outside"
    (place / "0000").mkdir(parents=True)
    (place / "victim.txt").write_text("precious")
    (place / "0000" / "battles.csv").write_text("precious")
    return place


def contents(folder: Path) -> dict[str, str]:
    return {
        p.relative_to(folder).as_posix(): p.read_text() for p in folder.rglob("*") if p.is_file()
    }


def plant(out: Path, entries: list[str]) -> None:
    """Add ``entries`` to the manifest of ``out``, as anyone who may write there could."""
    manifest = out / folders.MANIFEST
    manifest.write_text(json.dumps(sorted(json.loads(manifest.read_text()) + entries)))


@pytest.mark.parametrize("force", [False, True])
@pytest.mark.parametrize("way", ["linkdir", "real/linkdir"])
def test_a_manifest_entry_through_a_linked_folder_deletes_nothing_outside(
    tmp_path, toy, outside, way, force
):
    out = tmp_path / "out"
    api.run_one(toy, battles=5, runner=toy_runner, out=out)
    (out / way).parent.mkdir(parents=True, exist_ok=True)
    os.symlink(outside, out / way)
    listed = [f"{way}/victim.txt", f"{way}/0000/battles.csv"]
    plant(out, listed if force else [*listed, way, *([] if "/" not in way else ["real"])])
    before = contents(outside)
    api.run_one(toy, battles=5, runner=toy_runner, out=out, force=force)
    assert contents(outside) == before
    assert (out / way).is_symlink()  # the link itself is not the run's either


def test_a_manifest_entry_with_an_empty_or_dot_component_is_ignored(tmp_path, toy, outside):
    out = tmp_path / "out"
    api.run_one(toy, battles=5, runner=toy_runner, out=out)
    (out / "keep.txt").write_text("mine")
    plant(out, ["./keep.txt", "/keep.txt", "a//keep.txt", ".", "x/../keep.txt"])
    api.run_one(toy, battles=5, runner=toy_runner, out=out, force=True)
    assert (out / "keep.txt").read_text() == "mine"


@pytest.mark.parametrize("linked", ["records", "records/0001"])
def test_force_never_writes_through_a_linked_subfolder(
    tmp_path, toy, outside, monkeypatch, capsys, linked
):
    monkeypatch.setattr(run_command, "battle_runner", lambda: toy_runner)
    out = tmp_path / "out"
    (out / linked).parent.mkdir(parents=True)
    os.symlink(outside, out / linked)
    before = contents(outside)
    argv = ["sweep", str(toy), "--vary", VARY, "--battles", "20", "--records", "all"]
    assert main([*argv, "--quiet", "--force", "--out", str(out)]) == 2
    err = one_error_line(capsys)
    assert f"{out}: {linked} is a symbolic link, not a folder" in err, err
    assert "never through a link: remove it" in err, err
    assert contents(outside) == before
    assert sorted(p.name for p in outside.iterdir()) == ["0000", "victim.txt"]
    os.unlink(out / linked)  # as the line says: then the run goes through
    assert main(["sweep", "--resume", str(out), "--quiet"]) == 0
    assert (out / "records" / "0001" / "battles.csv").is_file()
    assert contents(outside) == before


def test_the_python_api_never_writes_through_a_linked_subfolder(tmp_path, toy, outside):
    out = tmp_path / "out"
    out.mkdir()
    os.symlink(outside, out / "records")
    before = contents(outside)
    with pytest.raises(folders.LinkOnTheWay, match="records is a symbolic link"):
        api.sweep(toy, [VARY], out=out, battles=5, records="battles", force=True)
    assert contents(outside) == before


def test_a_linked_journal_folder_is_refused_before_anything_is_written(
    tmp_path, toy, outside, monkeypatch, capsys
):
    monkeypatch.setattr(run_command, "battle_runner", lambda: toy_runner)
    out = tmp_path / "out"
    out.mkdir()
    os.symlink(outside, out / folders.STATE)
    before = contents(outside)
    argv = ["run", str(toy), "--battles", "20", "--quiet", "--force", "--out", str(out)]
    assert main(argv) == 2
    assert f"{folders.STATE} is a symbolic link" in one_error_line(capsys)
    assert contents(outside) == before
    assert sorted(p.name for p in out.iterdir()) == [folders.STATE]


def test_a_resume_never_appends_to_a_journal_planted_as_a_link(
    tmp_path, toy, outside, monkeypatch, capsys
):
    """An interrupted run's folder is shared: its journal swapped for a link to another file
    must not make ``--resume`` append to that file."""
    from tests.test_resume import CtrlCAt

    monkeypatch.setattr(run_command, "battle_runner", lambda: CtrlCAt(150))
    out = tmp_path / "cut"
    argv = ["run", str(toy), "--battles", "300", "--quiet", "--workers", "1", "--out", str(out)]
    assert main(argv) == 130
    capsys.readouterr()
    journal = out / folders.STATE / "journal.jsonl"
    journal.unlink()
    os.symlink(outside / "victim.txt", journal)
    monkeypatch.setattr(run_command, "battle_runner", lambda: toy_runner)
    assert main(["run", "--resume", str(out), "--quiet", "--workers", "1"]) == 2
    assert len(one_error_line(capsys).splitlines()) == 1
    assert (outside / "victim.txt").read_text() == "precious"
