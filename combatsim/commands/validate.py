"""``combatsim validate PATH...``: load each scenario or catalogue file, say if it is valid.

A folder stands for every YAML file in it and its subfolders (so ``validate scenarios/`` checks
the catalogues too), as ``run`` takes folders.

A valid scenario gets ``ok: FILE (scenario NAME, N combatants, system S)`` on stdout, a valid
catalogue ``ok: FILE (catalogue: N weapons, N armor, N archetypes)``; a bad file gets its
errors on stderr, one line each with its own line number (at most ``MAX_ERRORS`` per file,
then how many more). Every file is checked; the exit code is 2 if any was bad.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from ..errors import CombatsimError, ScenarioError, UsageError, all_errors
from ..names import for_terminal
from ..scenario.loader import file_from_data
from ..scenario.yamlio import load_yaml
from . import examples, run

EXIT_INVALID = 2
MAX_ERRORS = 20  # errors shown per file: a file with more is better fixed from the top


def add_parser(sub) -> None:
    p = sub.add_parser(
        "validate",
        help="check scenario or catalogue files (or folders of them) without running them",
        description="Load and check each scenario or catalogue file; a folder stands for every "
        "YAML file in it and its subfolders. Prints 'ok: FILE (...)' per good file and, for a "
        f"bad one, a line per mistake (up to {MAX_ERRORS}) naming the file, line, field, what "
        "was found and what is allowed; "
        "exit 2 if any was bad.",
        **examples(
            "combatsim validate scenarios/",
            "combatsim validate scenarios/sr-bar-brawl.yaml scenarios/catalogues/sr-classic.yaml",
        ),
    )
    p.add_argument(
        "files",
        nargs="+",
        metavar="PATH",
        help="scenario or catalogue files (YAML), or folders of them",
    )
    p.set_defaults(handler=_validate)


def expand(paths: list[str]) -> list[str]:
    """Files as given; a folder becomes the YAML files under it, sorted."""
    out = []
    for path in paths:
        folder = Path(path)
        if not _is_dir(folder):
            out.append(path)
            continue
        found = sorted(
            str(f) for f in folder.rglob("*") if f.suffix in (".yaml", ".yml") and f.is_file()
        )
        if not found:
            raise UsageError("PATH", path, "a folder with YAML files (*.yaml, *.yml) in it")
        out += found
    return out


def _validate(args: argparse.Namespace) -> int:
    status = 0
    for path in expand(args.files):
        try:
            # one read of the file: a catalogue or a scenario (anything else: the loader's
            # one-line error, for a missing file, a folder, a device or a bad name too)
            loaded = _load(path) if _is_file(path) else run.load_scenario(path)
        except CombatsimError as err:
            for line in error_lines(err):
                print(for_terminal(f"combatsim: error: {line}", one_line=True), file=sys.stderr)
            status = EXIT_INVALID
            continue
        if isinstance(loaded, str):
            print(for_terminal(f"ok: {path} ({loaded})"))
            continue
        if isinstance(loaded, dict):
            counts = ", ".join(f"{len(v)} {k}" for k, v in loaded.items())
            print(for_terminal(f"ok: {path} (catalogue: {counts})"))
            continue
        scenario = loaded
        combatants = sum(len(side.fighters) for side in scenario.sides)
        print(
            for_terminal(
                f"ok: {path} (scenario {scenario.name}, {combatants} combatants, "
                f"system {scenario.system.name})"
            )
        )
    return status


def _load(path: str):
    """A scenario, a catalogue's sections, or for a chain file what it holds (a text): the
    chain's checks need the studies layer, imported only for a chain."""
    data, lines = load_yaml(path)
    if isinstance(data, dict) and "encounters" in data and "sides" not in data:
        from ..chains import build_chain

        chain = build_chain(data, path, Path(path).parent, lines)
        return (
            f"chain {chain.name}, {len(chain.encounters)} encounters, "
            f"side {chain.side}, system {chain.system}"
        )
    return file_from_data(data, lines, path)


def error_lines(err: CombatsimError, cap: int = MAX_ERRORS) -> list[str]:
    """Every mistake of a file, one line each in the order of the file's lines (the first
    ``cap``, then how many more), so one round of ``validate`` shows them all."""
    if not isinstance(err, ScenarioError):
        return [str(err)]
    ordered = sorted(all_errors(err), key=lambda e: (e.file != err.file, e.line or 0))
    out = [str(e) for e in ordered[:cap]]
    if len(ordered) > cap:
        out.append(f"{err.file}: ... and {len(ordered) - cap} more errors not shown")
    return out


def _is_file(path: str) -> bool:
    try:
        return Path(path).is_file()
    except (OSError, ValueError):  # a NUL byte or an over-long name: the loader says so
        return False


def _is_dir(path: Path) -> bool:
    try:
        return path.is_dir()
    except (OSError, ValueError):  # as in _is_file: left to the loader's one-line error
        return False
