"""The served folder: the only place the server reads or writes.

A name from a request (``sr-firefight-4v4.yaml``, ``sub/x.yaml``) becomes a path only if,
with every symlink resolved, it stays inside the folder; anything else is ``Outside`` (the
routes answer 403 and never say what lies there). A scenario's own references (its
``catalogues``, a Lost Souls ``rules.options.action_table``) are held to the same rule
before the loader opens them. Text sent by the page (an edited scenario) goes through the
same safe YAML reader (``combatsim.safeyaml``) and size cap as a file, and resolves its
relative catalogue paths against the folder, as if it were saved there.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from ..errors import CombatsimError, ScenarioError
from ..safeyaml import max_file_bytes, parse_yaml, read_text
from ..scenario import build_scenario, load_file

EDITED = "edited.yaml"  # the name an edited scenario's text is given (errors name it)
YAML = (".yaml", ".yml")


class Outside(CombatsimError):
    """A path that leaves the served folder (``..``, an absolute path, a symlink out)."""


class Served:
    """The served folder, resolved once."""

    def __init__(self, folder: str | os.PathLike):
        self.root = Path(folder).resolve()
        if not self.root.is_dir():
            raise CombatsimError(f"{folder}: not a folder")

    def path(self, name: str) -> Path:
        """``name`` (relative to the folder) as a path inside it, else ``Outside``."""
        if not isinstance(name, str) or not name or "\x00" in name or len(name) > 4096:
            raise Outside("a file name inside the served folder")
        candidate = self.root / name
        resolved = candidate.resolve()
        if resolved != self.root and self.root not in resolved.parents:
            raise Outside("a file name inside the served folder")
        return candidate

    def relative(self, path: Path) -> str:
        return path.relative_to(self.root).as_posix()

    def yaml_files(self) -> list[Path]:
        """Every YAML file under the folder whose real path stays inside it, sorted."""
        found = []
        for path in sorted(self.root.rglob("*")):
            if path.suffix not in YAML or any(p.startswith(".") for p in path.parts):
                continue
            try:
                self.path(self.relative(path))
            except Outside:
                continue
            if path.is_file():
                found.append(path)
        return found

    def read(self, name: str) -> str:
        """The text of the file ``name`` in the folder (the safe reader and its size cap)."""
        path = self.path(name)
        if not path.is_file():
            raise LookupError(f"no file {name} in the folder")
        return read_text(path)

    def load(self, name: str):
        """The scenario in file ``name`` (its references checked to stay inside)."""
        path = self.path(name)
        if not path.is_file():
            raise LookupError(f"no scenario file {name} in the folder")
        data, lines = parse_yaml(read_text(path), str(path))
        self.check_references(data, path.parent)
        loaded = load_file(path)
        if isinstance(loaded, dict):
            raise ScenarioError(str(path), "(file)", "a catalogue", "a scenario file")
        return loaded

    def load_text(self, text: Any):
        """A scenario from ``text`` sent by the page, as if saved in the folder as ``EDITED``."""
        if not isinstance(text, str):
            raise ScenarioError(EDITED, "(file)", type(text).__name__, "YAML text")
        limit = max_file_bytes()
        if len(text.encode("utf-8", "surrogatepass")) > limit:
            raise ScenarioError(EDITED, "(file)", "text too long", f"at most {limit:,} bytes")
        source = self.root / EDITED
        data, lines = parse_yaml(text, str(source))
        self.check_references(data, self.root)
        return build_scenario(data, str(source), self.root, lines)

    def check_references(self, data: Any, base: Path) -> None:
        """Refuse a catalogue or table path that would leave the folder."""
        if not isinstance(data, dict):
            return
        named = (
            list(data.get("catalogues") or []) if isinstance(data.get("catalogues"), list) else []
        )
        rules = data.get("rules")
        options = rules.get("options") if isinstance(rules, dict) else None
        if isinstance(options, dict):
            named += [v for v in options.values() if isinstance(v, str) and v.endswith(YAML)]
        for name in named:
            if not isinstance(name, str) or "\x00" in name:  # the loader refuses a NUL itself
                continue
            target = (base / name).resolve()
            if target != self.root and self.root not in target.parents:
                raise Outside(f"{name}: a file outside the served folder")
