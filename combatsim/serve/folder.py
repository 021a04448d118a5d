"""The served folder: the only place the server reads or writes.

A name from a request (``sr-firefight-4v4.yaml``, ``sub/x.yaml``) becomes a path only if,
with every symlink resolved, it stays inside the folder; anything else is ``Outside`` (the
routes answer 403 and never say what lies there). Every other file the server reads goes
through the one fence of ``combatsim.safeyaml`` (``fenced``): while a request, a job or the
overview works, the safe reader opens only files inside the folder (and the shipped
catalogues), whether the path was written in the scenario, arrived through a ``set`` edit,
a sweep's ``vary`` or a rule option, or leads through a symlink. Text sent by the page (an
edited scenario) goes through the same safe YAML reader and size cap as a file, and
resolves its relative catalogue paths against the folder, as if it were saved there.
"""

from __future__ import annotations

import contextlib
import os
import secrets
import stat
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from ..errors import CombatsimError, Outside, ScenarioError
from ..folder import LinkOnTheWay, walk_folders
from ..safeyaml import check_path, fenced, max_file_bytes, parse_yaml, read_text
from ..scenario import build_scenario, load_file
from ..scenario.files import scenario_files, yaml_files

__all__ = ["EDITED", "YAML", "Outside", "Served", "FenceMiddleware"]

SAVING = ".saving"  # the end of a save's temporary name (.NAME.RANDOM.saving)
STALE_SAVE = 60.0  # seconds after which a temporary file of a killed save is removed
EDITED = "edited.yaml"  # the name an edited scenario's text is given (errors name it)
YAML = (".yaml", ".yml")


SHIPPED = Path(__file__).resolve().parents[1] / "data"  # the shipped catalogues and tables
PACKAGE = SHIPPED.parent
# The examples shipped beside the package in a source checkout (the project's tests pin them)
CHECKOUT_SCENARIOS = PACKAGE.parent / "scenarios"


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
        check_path(name)  # a name no file can have (too long for the system): one line
        candidate = self.root / name
        resolved = candidate.resolve()
        if resolved != self.root and self.root not in resolved.parents:
            raise Outside("a file name inside the served folder")
        return candidate

    def save(self, name: str, text: str, overwrite: bool) -> bool:
        """Write ``text`` as the file ``name`` of the folder, whole or not at all; False when
        the file exists and ``overwrite`` is not set (nothing written).

        Every folder on the way is opened without following links (``O_NOFOLLOW``, each by
        the descriptor of the one before), so no link planted or swapped in sends the save
        outside; the text goes to a new temporary file of a random name created exclusively
        beside the file, then takes the file's name in one step: ``os.replace`` when
        overwriting (a link there is replaced, never followed), else ``os.link``, which
        refuses an existing name, so no other save's file is ever replaced unasked."""
        self.writable(name)
        folders = Path(name).parent.parts
        if any(part in ("", ".", "..") for part in folders):
            raise Outside("a file name inside the served folder, with no '..'")
        try:
            with walk_folders(self.root, folders, make=True) as folder:
                return _save_in(folder, Path(name).name, text.encode("utf-8"), overwrite)
        except LinkOnTheWay:  # its message names the folder's place on disk: not said here
            raise Outside("a folder inside the served folder on the way (not a link)") from None

    def writable(self, name: str) -> Path:
        """The path of ``name`` if a save may write it: inside the folder, as named, and not
        one of the package's own files; else ``Outside``."""
        path = self.path(name)
        if shipped(path):
            raise Outside(
                "the package's own shipped scenarios are not written: serve a copy of them "
                "(cp -r scenarios my-fights; combatsim serve my-fights)"
            )
        return path

    @contextmanager
    def fenced(self) -> Iterator[None]:
        """Within it, every file read stays inside the folder or the shipped data."""
        with fenced((self.root, SHIPPED), "the served folder"):
            yield

    def relative(self, path: Path) -> str:
        return path.relative_to(self.root).as_posix()

    def yaml_files(self) -> list[Path]:
        """Every YAML file under the folder whose real path stays inside it, sorted."""
        return yaml_files(self.root, self.inside)

    def scenario_files(self) -> list[tuple[Path, dict[str, Any]]]:
        """The folder's scenarios, with their YAML, as ``combatsim run FOLDER`` lists them
        (a file that does not parse is left out; one leading outside, never read)."""
        return scenario_files(self.root, self.inside, skip_broken=True)

    def inside(self, path: Path) -> bool:
        """Whether ``path``, with every symlink resolved, stays inside the folder."""
        try:
            self.path(self.relative(path))
        except Outside:
            return False
        return True

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
        with self.fenced():
            loaded = load_file(path)
        if isinstance(loaded, dict):
            raise ScenarioError(str(path), "(file)", "a catalogue", "a scenario file")
        return loaded

    def load_text(self, text: Any, at: str | None = None):
        """A scenario from ``text`` sent by the page, as if saved in the folder as ``EDITED``
        (in the folder of the file ``at`` when given: its relative catalogue paths hold)."""
        if not isinstance(text, str):
            raise ScenarioError(EDITED, "(file)", type(text).__name__, "YAML text")
        limit = max_file_bytes()
        if len(text.encode("utf-8", "surrogatepass")) > limit:
            raise ScenarioError(EDITED, "(file)", "text too long", f"at most {limit:,} bytes")
        base = self.path(at).parent if at else self.root
        source = base / EDITED
        with self.fenced():
            data, lines = parse_yaml(text, str(source))
            return build_scenario(data, str(source), base, lines)


def shipped(path: Path) -> bool:
    """Whether ``path`` is one of the package's own files: anything under the installed
    package, or the examples folder of the source checkout it runs from."""
    resolved = path.resolve()
    places = [PACKAGE]
    if (PACKAGE.parent / "pyproject.toml").is_file():
        places.append(CHECKOUT_SCENARIOS)
    return any(place == resolved or place in resolved.parents for place in places)


class FenceMiddleware:
    """ASGI middleware: every request is served inside ``Served.fenced`` (the thread pool
    and the jobs a request starts copy its context, and with it the fence)."""

    def __init__(self, app, served: Served):
        self.app, self.served = app, served

    async def __call__(self, scope, receive, send):
        with self.served.fenced():
            await self.app(scope, receive, send)


def _save_in(folder: int, name: str, data: bytes, overwrite: bool) -> bool:
    """``Served.save`` inside the open ``folder``."""
    try:
        found = os.stat(name, dir_fd=folder, follow_symlinks=False)
    except FileNotFoundError:
        found = None
    if found is not None and not stat.S_ISREG(found.st_mode):
        raise Outside(f"{name}: a regular file inside the served folder (not a link)")
    if found is not None and not overwrite:
        return False
    _remove_stale_saves(folder, name)
    temporary = f".{name}.{secrets.token_hex(8)}{SAVING}"
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC
    fd = os.open(temporary, flags, 0o666, dir_fd=folder)
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
            f.flush()
            os.fsync(f.fileno())
        if overwrite:
            os.replace(temporary, name, src_dir_fd=folder, dst_dir_fd=folder)
            return True
        try:
            os.link(temporary, name, src_dir_fd=folder, dst_dir_fd=folder, follow_symlinks=False)
        except FileExistsError:  # another save took the name meanwhile
            return False
        return True
    finally:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(temporary, dir_fd=folder)


def _remove_stale_saves(folder: int, name: str) -> None:
    """Temporary files a killed save of ``name`` left behind (older than ``STALE_SAVE``)."""
    prefix, now = f".{name}.", time.time()
    with os.scandir(folder) as entries:
        for entry in entries:
            if not (entry.name.startswith(prefix) and entry.name.endswith(SAVING)):
                continue
            with contextlib.suppress(OSError):
                info = entry.stat(follow_symlinks=False)
                if not stat.S_ISREG(info.st_mode) or now - info.st_mtime > STALE_SAVE:
                    os.unlink(entry.name, dir_fd=folder)
