"""Every ``--help`` works and shows examples that run; ``--version`` answers.

The commands are discovered from the parser itself, so a command added later is covered
without touching this file.
"""

from __future__ import annotations

import argparse
import glob
import shlex
from importlib.machinery import EXTENSION_SUFFIXES
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
    assert {"run", "sweep", "compare", "balance", "explain", "report", "validate", "odds"} <= names
    assert {"odds sr", "odds 2097", "odds lost-souls", "odds 4d8"} <= names


@pytest.mark.parametrize("path", [p for p, _ in COMMANDS], ids=lambda p: " ".join(p) or "top")
def test_help_works_and_shows_examples(path, capsys):
    with pytest.raises(SystemExit) as exit_:
        main([*path, "--help"])
    assert exit_.value.code == 0
    out = capsys.readouterr().out
    assert out.startswith("usage: combatsim")
    assert "%%" not in out  # argparse's escape, shown as written where it formats nothing
    assert "\nexamples:\n" in out
    example = out.split("\nexamples:\n")[1]
    assert "combatsim " + " ".join(path) in example


def test_version(capsys):
    with pytest.raises(SystemExit) as exit_:
        main(["--version"])
    assert exit_.value.code == 0
    answer = f"combatsim {combatsim.__version__} ({combatsim.build_kind()})"
    assert capsys.readouterr().out.strip() == answer


def test_the_build_kind_is_found_on_disk(tmp_path, monkeypatch):
    """A compiled install has ``engine/battle`` as an extension module beside the source."""
    package = tmp_path / "combatsim"
    (package / "engine").mkdir(parents=True)
    (package / "engine" / "battle.py").write_text("")
    monkeypatch.setattr(combatsim, "__file__", str(package / "__init__.py"))
    assert combatsim.build_kind() == "pure Python"
    (package / "engine" / f"battle{EXTENSION_SUFFIXES[0]}").write_bytes(b"")
    assert combatsim.build_kind() == "compiled"


def _examples() -> list[str]:
    """Every example of every ``--help``: its command lines (continuations joined, comments
    cut), a ``&&`` chain kept as one example."""
    found: dict[str, None] = {}
    for _, parser in COMMANDS:
        text = (parser.epilog or "").split("examples:\n", 1)[-1]
        text = text.replace("\\\n", " ")
        for line in text.splitlines():
            line = line.split("   #")[0].strip()
            if line.startswith("combatsim ") and "COMMAND" not in line and not _serves(line):
                found[line] = None
    return list(found)


BATCH = {"run", "sweep", "compare", "balance", "explain"}


def _serves(line: str) -> bool:
    """``combatsim serve`` runs until stopped; tests/serve/test_http.py starts and stops it."""
    return line.startswith("combatsim serve")


@pytest.mark.slow
@pytest.mark.parametrize("example", _examples())
def test_every_example_in_the_help_runs(example, tmp_path, monkeypatch, capsys):
    """In a scratch folder that sees the shipped scenarios (so default output folders land
    there and a chained ``report`` finds them); batch commands with a few battles."""
    (tmp_path / "scenarios").symlink_to(ROOT / "scenarios")
    monkeypatch.chdir(tmp_path)
    for line in example.split("&&"):
        argv = shlex.split(line)[1:]
        # The shell would expand a file pattern; a field path's [*] is no pattern.
        argv = [p for a in argv for p in (_glob(a) if "*" in a and "=" not in a else [a])]
        if argv[0] in BATCH and "--trace" not in argv:
            if "--battles" in argv:
                i = argv.index("--battles")
                del argv[i : i + 2]
            argv += ["--battles", "4", "--workers", "1", "--quiet"]
        assert main(argv) == 0, line
    capsys.readouterr()


def _glob(pattern: str) -> list[str]:
    return sorted(glob.glob(pattern))


@pytest.mark.parametrize("path", [path for path, _ in COMMANDS if path], ids=" ".join)
def test_a_command_built_alone_is_the_command_of_the_whole_parser(path):
    """``main`` builds only the command named first: it must be that command of the whole
    command line, to its every option and help line."""
    whole = dict(_commands(build_parser()))
    alone = dict(_commands(build_parser(path[0])))
    assert set(alone) == {(), *(p for p in whole if p[:1] == path[:1])}
    assert alone[path].format_help() == whole[path].format_help()
    assert _shape(alone[path]) == _shape(whole[path])


def _shape(parser: argparse.ArgumentParser) -> list[tuple]:
    """What each argument of ``parser`` takes (a subcommand by its name)."""
    return [
        (a.dest, a.option_strings, a.default, a.nargs, a.type, a.required, list(a.choices or ()))
        for a in parser._actions
    ]
