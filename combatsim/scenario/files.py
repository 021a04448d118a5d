"""Which files of a folder are scenarios: the one listing that ``combatsim run FOLDER``, the
Python API's ``run_many(FOLDER)`` and the page's list of scenarios share, so all three see
the same scenarios (subfolders included: ``scenarios/tactics/``).

A scenario file is a YAML file holding a mapping with ``sides``: catalogues, chains and sweep
files beside the scenarios are left out. Hidden files and folders (``.name``) are skipped, as
are the page's half-written saves.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from ..errors import CombatsimError
from ..safeyaml import parse_yaml, read_text

YAML = (".yaml", ".yml")


def yaml_files(folder: Path, keep: Callable[[Path], bool] | None = None) -> list[Path]:
    """Every YAML file under ``folder`` and its subfolders, sorted, hidden ones left out;
    ``keep(path)``, when given, is asked first (the page: a link that leads outside the
    folder is not kept)."""
    found = []
    for path in sorted(folder.rglob("*")):
        if path.suffix not in YAML:
            continue
        if any(part.startswith(".") for part in path.relative_to(folder).parts):
            continue
        if (keep is None or keep(path)) and path.is_file():
            found.append(path)
    return found


def scenario_files(
    folder: Path, keep: Callable[[Path], bool] | None = None, skip_broken: bool = False
) -> list[tuple[Path, dict[str, Any]]]:
    """The scenario files under ``folder`` (see ``yaml_files``), each with its YAML as read.
    A file that cannot be read or parsed raises its one-line error, or with ``skip_broken``
    is left out (the page lists what it can)."""
    found = []
    for path in yaml_files(folder, keep):
        try:
            data, _ = parse_yaml(read_text(path), str(path))
        except CombatsimError:
            if skip_broken:
                continue
            raise
        if isinstance(data, dict) and "sides" in data:
            found.append((path, data))
    return found
