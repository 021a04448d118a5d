"""The catalogues installed with the package (``combatsim/data/catalogues/<name>.yaml``), which
a scenario names by a bare name (``catalogues: [sr-classic]``) so that it works from any
folder; any other entry is a path relative to the scenario.
"""

from __future__ import annotations

from pathlib import Path

FOLDER = Path(__file__).resolve().parents[1] / "data" / "catalogues"
SUFFIXES = (".yaml", ".yml")


def shipped_names() -> list[str]:
    """The names a scenario can give in ``catalogues``, sorted."""
    return sorted(p.stem for p in FOLDER.glob("*.yaml"))


def is_bare_name(entry: str) -> bool:
    """A ``catalogues`` entry written as a shipped catalogue's name would be: no folder, no
    YAML ending (``sr-classic``, not ``sr-classic.yaml`` or ``catalogues/sr-classic``)."""
    if entry.startswith(".") or "/" in entry or "\\" in entry:
        return False
    return not entry.lower().endswith(SUFFIXES)


def shipped_path(name: str) -> Path | None:
    """The installed file of the shipped catalogue ``name``, or None if there is none."""
    return FOLDER / f"{name}.yaml" if name in shipped_names() else None


def is_shipped(entry: str) -> bool:
    """A ``catalogues`` entry that names a shipped catalogue (read from the package)."""
    return is_bare_name(entry) and shipped_path(entry) is not None
