"""What a scenario writer can name: the weapons, armor and archetypes of a catalogue file, of a
scenario (its catalogues and its own entries, as the loader merges them) or of the shipped
catalogues of a rule system; for ``combatsim list``.

Entries are returned as written in the files (validated first), so a listing shows the numbers
the writer chose rather than every default the models fill in.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ..errors import UsageError, did_you_mean
from ..rules.registry import system_class, system_names
from .loader import is_catalogue, load_catalogue, load_scenario, serves_system
from .shipped import FOLDER, is_bare_name, shipped_names, shipped_path
from .yamlio import load_yaml

SECTIONS = ("weapons", "armor", "archetypes")


def shipped_catalogues() -> list[tuple[str, Path, str]]:
    """(name, file, system) of every catalogue installed with the package."""
    out = []
    for name in shipped_names():
        path = FOLDER / f"{name}.yaml"
        data, _ = load_yaml(path)
        out.append((name, path, str(data["system"])))
    return out


def entries(target: str) -> tuple[str, list[Path], dict[str, dict[str, Any]]]:
    """``(title, files, sections)`` for a catalogue file, a scenario file or a system name;
    sections map weapons/armor/archetypes to ``{name: entry as written}``."""
    path = Path(target)
    if path.is_file():
        if is_catalogue(path):
            load_catalogue(path)  # validate before listing
            data, _ = load_yaml(path)
            return f"catalogue {path} ({data['system']})", [path], _sections([data])
        scenario = load_scenario(path)
        data, _ = load_yaml(path)
        files = [_catalogue_path(path.parent, entry) for entry in data.get("catalogues", [])]
        raw = [load_yaml(f)[0] for f in files] + [data]
        return f"scenario {path} ({scenario.system.name})", files, _sections(raw)
    cls = system_class(target)
    if cls is None:
        names = system_names()
        raise UsageError(
            "SYSTEM or CATALOGUE",
            target,
            "a rule system (" + ", ".join(names) + "), or a catalogue or scenario file",
            did_you_mean(target, names),
        )
    files = [path for _, path, name in shipped_catalogues() if serves_system(name, cls)]
    if not files:
        raise UsageError(
            "SYSTEM", target, "a system with a shipped catalogue; or name a catalogue file"
        )
    return f"shipped catalogues for {target}", files, _sections([load_yaml(f)[0] for f in files])


def _catalogue_path(base: Path, entry: str) -> Path:
    """Where a scenario's ``catalogues`` entry is (the scenario has loaded, so it exists)."""
    shipped = shipped_path(entry) if is_bare_name(entry) else None
    return shipped or (base / entry).resolve()


def _sections(datas: list[dict]) -> dict[str, dict[str, Any]]:
    """Later files override earlier ones entry by entry, as the loader merges them."""
    out: dict[str, dict[str, Any]] = {key: {} for key in SECTIONS}
    for data in datas:
        for key in SECTIONS:
            out[key].update(data.get(key) or {})
    return out
