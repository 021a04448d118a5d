"""Every ``--help`` works and shows examples that run; ``--version`` answers.

The commands are discovered from the parser itself, so a command added later is covered
without touching this file.
"""

from __future__ import annotations

import argparse
import glob
import shlex
from pathlib import Path

import pytest

import combatsim
from combatsim.cli import build_parser, main

ROOT = Path(__file__).resolve().parents[1]


def _commands(parser: argparse.ArgumentParser, path: tuple[str, ...] = ()):
    """``(path, parser)`` for the parser and every subcommand below it, depth first."""
    yield path, parser
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, sub in action.choices.items():
                yield from _commands(sub, (*path, name))


COMMANDS = list(_commands(build_parser()))


def test_the_commands_are_discovered():
    names = {" ".join(path) for path, _ in COMMANDS}
    assert {"run", "sweep", "compare", "balance", "report", "validate", "odds"} <= names
    assert {"odds sr", "odds 2097", "odds lost-souls", "odds 4d8"} <= names


@pytest.mark.parametrize("path", [p for p, _ in COMMANDS], ids=lambda p: " ".join(p) or "top")
def test_help_works_and_shows_examples(path, capsys):
    with pytest.raises(SystemExit) as exit_:
        main([*path, "--help"])
    assert exit_.value.code == 0
    out = capsys.readouterr().out
    assert out.startswith("usage: combatsim")
    assert "\nexamples:\n" in out
    example = out.split("\nexamples:\n")[1]
    assert "combatsim " + " ".join(path) in example


def test_version(capsys):
    with pytest.raises(SystemExit) as exit_:
        main(["--version"])
    assert exit_.value.code == 0
    assert capsys.readouterr().out.strip() == f"combatsim {combatsim.__version__}"


def _examples() -> list[str]:
    """Every example command line of every ``--help`` (continuations joined, comments cut)."""
    found: dict[str, None] = {}
    for _, parser in COMMANDS:
        text = (parser.epilog or "").split("examples:\n", 1)[-1]
        text = text.replace("\\\n", " ")
        for line in text.splitlines():
            line = line.split("   #")[0].strip()
            for part in line.split("&&"):
                if part.strip().startswith("combatsim ") and "COMMAND" not in part:
                    found[part.strip()] = None
    return list(found)


BATCH = {"run", "sweep", "compare", "balance"}


@pytest.mark.parametrize("line", _examples())
def test_every_example_in_the_help_runs(line, tmp_path, monkeypatch, capsys):
    """Batch examples run with few battles into a temporary folder; the rest run as written."""
    argv = shlex.split(line)[1:]
    monkeypatch.chdir(ROOT)
    # The shell would expand a file pattern; a field path's [*] is no pattern.
    argv = [p for a in argv for p in (sorted(glob.glob(a)) if "*" in a and "=" not in a else [a])]
    if argv[0] == "report":
        pytest.skip("needs a results folder; tests/test_report.py covers the command")
    if argv[0] in BATCH:
        fewer = ["--battles", "4", "--workers", "1", "--quiet"]
        if "--trace" in argv:
            fewer = []
        else:
            argv = [a for i, a in enumerate(argv) if not _is_option_value(argv, i, "--out")]
            fewer += ["--out", str(tmp_path / "out")]
        if "--battles" in argv:
            i = argv.index("--battles")
            del argv[i : i + 2]
        argv += fewer
    assert main(argv) == 0, line
    capsys.readouterr()


def _is_option_value(argv: list[str], i: int, option: str) -> bool:
    return argv[i] == option or (i > 0 and argv[i - 1] == option)
