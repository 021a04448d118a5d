"""Output folders: one writer at a time, and only a run's own files ever replaced or removed.

A command that writes results holds its folder for the whole run (``writing``): an OS file
lock on ``.combatsim.lock`` in the folder (``fcntl.flock``), which the OS releases when the
process ends however it ends, so a crashed run never leaves the folder locked and
``--resume`` just works. The lock file names the holder (its PID and command), so a second run
into the same folder is refused in one line that says who is using it.

Every result file is recorded in ``.combatsim-files.json`` (the manifest) before it is moved
into place. A new run removes only files the manifest lists and it did not write again, and
refuses a folder holding anything else (a file the user put there, results of an older
version) unless told to write beside it (``--force``, ``force=True``).

A fault of the folder itself (removed, replaced by a file, read-only, full) is a
``FolderFault``: one line naming the folder and what went wrong.
"""

from __future__ import annotations

import contextlib
import errno
import fcntl
import json
import os
import re
import stat
import sys
from collections.abc import Callable, Iterable, Iterator, Sequence
from pathlib import Path
from typing import IO, Any

from .errors import CombatsimError, UsageError

LOCK = ".combatsim.lock"
MANIFEST = ".combatsim-files.json"
STATE = ".combatsim"  # an unfinished run's journal (combatsim.run.study)
MAX_MANIFEST = 1 << 20  # bytes: a manifest lists result files only
COMMANDS = ("run", "sweep", "compare", "balance", "explain")  # those that resume
MAX_SHOWN = 3  # foreign files named in the refusal
MAX_SCANNED = 10_000  # entries looked at when checking a folder for foreign files
_NO_LINK_DIR = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC  # see ``walk_folders``
TEMPORARY = re.compile(r"^\..+\.\d+\.tmp$")  # ``.NAME.PID.tmp``, see ``create_exclusive``


class FolderInUse(CombatsimError):
    """Another process holds the output folder."""


class FolderFault(CombatsimError):
    """The output folder cannot be written (gone, a file, read-only, full...)."""


def fault(folder: str | os.PathLike, err: OSError) -> FolderFault:
    """``err`` (raised while writing into ``folder``) as one line saying what to do; when the
    folder still holds the unfinished run's journal, how to finish it."""
    shown = os.fspath(folder)
    why = err.strerror or type(err).__name__
    command = unfinished_command(Path(shown))
    then = f"combatsim {command} --resume {shown}" if command else None
    if err.errno in (errno.ENOSPC, errno.EDQUOT):
        todo = "free some space, then " + (f"finish the run with: {then}" if then else "run again")
    elif err.errno in (errno.EACCES, errno.EPERM, errno.EROFS):
        todo = (
            f"make it writable, then finish the run with: {then}"
            if then
            else "choose a folder you may write in"
        )
    elif err.errno in (errno.ENOENT, errno.ENOTDIR, errno.ESTALE):
        todo = "it was removed or replaced while the run wrote to it; run it again"
    else:
        todo = f"check it, then finish the run with: {then}" if then else "check it, then run again"
    kept = "; the finished battles are kept" if then else ""
    return FolderFault(f"{shown}: cannot write the results there ({why}){kept}; {todo}")


def unfinished_command(folder: Path) -> str | None:
    """The command of the unfinished run whose journal ``folder`` holds, if any."""
    run_file = folder / STATE / "run.json"
    try:
        if not run_file.is_file() or run_file.stat().st_size > MAX_MANIFEST:
            return None
        command = json.loads(run_file.read_text(encoding="utf-8"))["meta"]["command"]
    except (OSError, ValueError, KeyError, TypeError):
        return None
    return command if command in COMMANDS else None


class Holder:
    """A folder this process holds: its lock file's descriptor and the manifest."""

    def __init__(self, folder: Path, fd: int):
        self.folder, self.fd, self.depth = folder, fd, 1
        self.files: set[str] = set()

    def save(self) -> None:
        text = json.dumps(sorted(self.files), indent=1) + "\n"
        replace_text(self.folder / MANIFEST, text)


_HELD: dict[Path, Holder] = {}  # absolute folder path -> its holder, in this process


@contextlib.contextmanager
def writing(
    out: str | os.PathLike,
    *,
    force: bool = False,
    resume: bool = False,
    argument: str = "--out",
    force_flag: str = "--force",
) -> Iterator[Holder]:
    """Hold ``out`` (made if missing) for writing until the block ends.

    Refuses, in one line, a folder another process holds, a path that is no folder, and
    (unless ``force`` or ``resume``) a folder holding files combatsim did not write. Nested
    calls for one folder in one process share the hold.
    """
    folder = Path(os.path.abspath(check_folder(argument, out)))
    held = _HELD.get(folder)
    if held is not None:
        held.depth += 1
        try:
            yield held
        finally:
            held.depth -= 1
        return
    holder = _acquire(folder, out, argument)
    _HELD[folder] = holder
    try:
        holder.files = _read_manifest(folder)
        if (folder / STATE).is_symlink():  # the journal is written there from the start
            raise link_on_the_way(folder, [STATE], True)
        if not force and not resume:
            _refuse_foreign(folder, argument, out, holder.files, force_flag)
        yield holder
    finally:
        del _HELD[folder]
        _release(holder)


def check_folder(argument: str, out: str | os.PathLike | None) -> Path:
    """``out`` as a path, or a one-line error: empty, not a path, a dangling link, a file."""
    if out is None or not isinstance(out, str | os.PathLike):
        raise UsageError(argument, out, "a folder name (a str or a Path)")
    text = os.fspath(out)
    if not isinstance(text, str) or not text.strip():
        raise UsageError(argument, text, "a folder name (not empty)")
    if "\0" in text:
        raise UsageError(argument, text.replace("\0", "\\0"), "a folder name without NUL bytes")
    path = Path(text)
    if path.is_symlink() and not path.exists():
        target = os.readlink(path)
        raise UsageError(
            argument, text, f"a folder (it is a symbolic link to {target}, which does not exist)"
        )
    if path.exists() and not path.is_dir():
        raise UsageError(argument, text, "a folder (it is a file)")
    return path


def _acquire(folder: Path, shown: str | os.PathLike, argument: str) -> Holder:
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except FileExistsError:
        raise UsageError(argument, os.fspath(shown), "a folder (it is a file)") from None
    except OSError as err:
        raise fault(shown, err) from None
    lock = folder / LOCK
    while True:
        try:
            fd = os.open(lock, os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW | os.O_CLOEXEC, 0o644)
        except OSError as err:
            if err.errno == errno.ELOOP:
                raise UsageError(
                    argument, os.fspath(shown), f"a folder whose {LOCK} is not a symbolic link"
                ) from None
            raise fault(shown, err) from None
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            holder = _read_holder(fd)
            os.close(fd)
            raise FolderInUse(
                f"{os.fspath(shown)}: another combatsim run is writing there ({holder}); "
                "wait for it to finish, or choose another folder"
            ) from None
        except OSError as err:
            os.close(fd)
            raise fault(shown, err) from None
        # The previous holder may have removed the file between our open and lock: retry.
        try:
            same = os.path.samestat(os.fstat(fd), os.lstat(lock))
        except OSError:
            same = False
        if same:
            break
        os.close(fd)
    try:
        text = f"{os.getpid()}\n{_command()}\n".encode("utf-8", "replace")
        os.ftruncate(fd, 0)
        os.pwrite(fd, text, 0)
    except OSError as err:
        _release(Holder(folder, fd))
        raise fault(shown, err) from None
    return Holder(folder, fd)


def _release(holder: Holder) -> None:
    """Remove the lock file while still holding it (so no one locks a file about to go),
    then let go of it."""
    with contextlib.suppress(OSError):
        os.unlink(holder.folder / LOCK)
    os.close(holder.fd)


def _command() -> str:
    words = [Path(sys.argv[0]).name if sys.argv and sys.argv[0] else "python", *sys.argv[1:]]
    if words[0] in ("__main__.py", "-m"):
        words[0] = "combatsim"
    text = " ".join(words)
    return "".join(c if c.isprintable() else "?" for c in text)[:300]


def _read_holder(fd: int) -> str:
    try:
        lines = os.pread(fd, 1000, 0).decode("utf-8", "replace").splitlines()
    except OSError:
        lines = []
    pid = lines[0].strip() if lines and lines[0].strip().isdigit() else "?"
    command = "".join(c if c.isprintable() else "?" for c in (lines[1] if len(lines) > 1 else ""))
    return f"PID {pid}: {command[:200] or 'command unknown'}"


def _read_manifest(folder: Path) -> set[str]:
    """The files earlier runs recorded writing here; nothing if the manifest is unusable."""
    path = folder / MANIFEST
    try:
        info = path.lstat()
        if not stat.S_ISREG(info.st_mode) or info.st_size > MAX_MANIFEST:
            return set()
        names = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return set()
    if not isinstance(names, list):
        return set()
    return {n for n in names if isinstance(n, str) and _inside(n)}


def _inside(relative: str) -> bool:
    """Whether ``relative`` is a plain ``a/b/c`` name: no absolute path, no empty, ``.`` or
    ``..`` component, no backslash or NUL (whether each folder on the way is a real folder is
    checked when the file is touched, see ``walk_folders``)."""
    parts = relative.split("/")
    return all(p not in ("", ".", "..") and "\\" not in p and "\0" not in p for p in parts)


def _refuse_foreign(
    folder: Path, argument: str, shown: str | os.PathLike, owned: set[str], force_flag: str
) -> None:
    foreign = foreign_files(folder, owned)
    if not foreign:
        return
    names = ", ".join(foreign[:MAX_SHOWN]) + (
        f" and {len(foreign) - MAX_SHOWN} more" if len(foreign) > MAX_SHOWN else ""
    )
    raise UsageError(
        argument,
        os.fspath(shown),
        f"a new or empty folder, or one holding only combatsim's results; add {force_flag} "
        "to write beside the files already there (none of them is removed)",
        hint=f"it holds files combatsim did not write: {names}",
    )


def foreign_files(folder: Path, owned: set[str]) -> list[str]:
    """Entries of ``folder`` (relative, sorted) that are neither listed in ``owned`` nor
    combatsim's own bookkeeping, nor folders holding only such files."""
    found: list[str] = []
    scanned = 0

    def visit(directory: Path, prefix: str) -> bool:
        """Whether ``directory`` holds nothing foreign (adding what is to ``found``)."""
        nonlocal scanned
        clean = True
        try:
            entries = sorted(os.scandir(directory), key=lambda e: e.name)
        except OSError:
            return True
        for entry in entries:
            scanned += 1
            if scanned > MAX_SCANNED:
                found.append("...")
                return False
            rel = prefix + entry.name
            if not prefix and entry.name in (LOCK, MANIFEST, STATE):
                continue
            if rel in owned or TEMPORARY.match(entry.name):
                continue
            if entry.is_dir(follow_symlinks=False):
                if visit(Path(entry.path), rel + "/"):
                    continue
                clean = False
                continue
            found.append(rel)
            clean = False
        return clean

    visit(folder, "")
    return found


def holder_of(path: str | os.PathLike) -> tuple[Holder, str] | None:
    """The held folder ``path`` lies in, with ``path`` relative to it (None if none)."""
    absolute = Path(os.path.abspath(path))
    for folder, holder in _HELD.items():
        if absolute.is_relative_to(folder):
            return holder, absolute.relative_to(folder).as_posix()
    return None


def claim(path: str | os.PathLike) -> None:
    """Record ``path`` in its held folder's manifest before it is written (a run that dies
    mid-write leaves no file its next run does not recognise). Files outside any held
    folder, and the unfinished run's own bookkeeping, are not recorded."""
    found = holder_of(path)
    if found is None:
        return
    holder, rel = found
    if rel.split("/")[0] in (STATE, LOCK, MANIFEST) or rel in holder.files:
        return
    holder.files.add(rel)
    holder.save()


def owns(path: str | os.PathLike) -> bool:
    """Whether ``path`` is listed in its held folder's manifest (written by combatsim)."""
    found = holder_of(path)
    return found is not None and found[1] in found[0].files


def remove_stale(folder: str | os.PathLike, written: Iterable[str | os.PathLike]) -> None:
    """Remove the files the manifest of ``folder`` (held) lists and this run did not write
    (``written``); then the manifest lists only those. Nothing unlisted is touched, nor a
    listed name that is now a link or a folder, nor anything reached through a link (see
    ``walk_folders``); emptied folders go."""
    found = holder_of(Path(folder) / MANIFEST)
    if found is None:
        return
    holder = found[0]
    kept = set()
    for written_path in written:
        found = holder_of(written_path)
        if found is not None and found[0] is holder:
            kept.add(found[1])
    for rel in sorted(holder.files - kept, reverse=True):
        *folders, name = rel.split("/")
        with contextlib.suppress(OSError, LinkOnTheWay):
            _remove_file(holder, folders, name)
        while folders:  # the folders it emptied, innermost first
            last = folders.pop()
            try:
                with walk_folders(holder.folder, folders) as fd:
                    os.rmdir(last, dir_fd=fd)  # only when empty, never through a link
            except (OSError, LinkOnTheWay):
                break
    holder.files = kept
    holder.save()


def _remove_file(holder: Holder, folders: list[str], name: str) -> None:
    with walk_folders(holder.folder, folders) as fd:
        if stat.S_ISREG(os.stat(name, dir_fd=fd, follow_symlinks=False).st_mode):
            os.unlink(name, dir_fd=fd)


class LinkOnTheWay(CombatsimError):
    """A folder inside the output folder that a result would be written through, or an old
    one removed through, is a link (or a file): combatsim writes only into real folders."""


@contextlib.contextmanager
def walk_folders(top: Path, folders: Sequence[str], make: bool = False) -> Iterator[int]:
    """A descriptor of the folder ``top/folders...``, opened one folder at a time relative to
    the one before and never through a symbolic link (``O_NOFOLLOW``), so nothing can swap a
    link in on the way; ``make``: the missing ones are created. A link (or a file) on the way
    is ``LinkOnTheWay``. ``top`` itself is opened as named: the user chose it."""
    fd = os.open(top, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    try:
        for i, name in enumerate(folders):
            if make:
                with contextlib.suppress(FileExistsError):
                    os.mkdir(name, 0o777, dir_fd=fd)
            try:
                inner = os.open(name, _NO_LINK_DIR, dir_fd=fd)
            except NotADirectoryError:
                raise link_on_the_way(top, folders[: i + 1], _is_link(name, fd)) from None
            os.close(fd)
            fd = inner
        yield fd
    finally:
        os.close(fd)


def _is_link(name: str, dir_fd: int) -> bool:
    try:
        return stat.S_ISLNK(os.stat(name, dir_fd=dir_fd, follow_symlinks=False).st_mode)
    except OSError:
        return False


def link_on_the_way(top: Path, folders: Sequence[str], linked: bool) -> LinkOnTheWay:
    """The one-line refusal of a link (or a file) at ``top/folders...`` where a folder of
    results belongs, saying how to go on."""
    rel = "/".join(folders)
    what = "a symbolic link" if linked else "a file"
    command = unfinished_command(top)
    then = f"finish the run with: combatsim {command} --resume {top}" if command else "run again"
    return LinkOnTheWay(
        f"{top}: {rel} is {what}, not a folder; combatsim writes its results only into "
        f"folders inside the output folder, never through a link: remove it, then {then}"
    )


# --- files created safely ---------------------------------------------------------------------


def create_exclusive(
    path: Path, binary: bool = False, dir_fd: int | None = None
) -> tuple[Path, IO[Any]]:
    """A new temporary file beside ``path`` (``.NAME.PID.tmp``), opened for writing: created
    with ``O_EXCL`` and ``O_NOFOLLOW``, so nothing already there (a link planted to make the
    run write elsewhere, a leftover) is ever opened. With ``dir_fd``, ``path``'s name is taken
    in that folder. Returns ``(temp_path, file)``."""
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC
    for attempt in range(100):
        suffix = f".{attempt}" if attempt else ""
        temp = path.with_name(f".{path.name}.{os.getpid()}{suffix}.tmp")
        where = temp.name if dir_fd is not None else temp
        try:
            fd = os.open(where, flags, 0o666, dir_fd=dir_fd)  # the umask applies
        except FileExistsError:
            continue
        if binary:
            return temp, os.fdopen(fd, "wb")
        return temp, os.fdopen(fd, "w", encoding="utf-8", newline="")
    raise FileExistsError(errno.EEXIST, "no free temporary name", str(path))


def write_atomic(path: Path, write: Callable[[IO[Any]], object], binary: bool = False) -> Path:
    """Write ``path`` whole or not at all: ``write(f)`` fills a new temporary file
    (``create_exclusive``) that then replaces ``path``; the path is claimed first (``claim``).
    In a held folder, the folders on the way are made as needed and never followed through a
    link (``walk_folders``), so a result never lands outside the output folder."""
    claim(path)
    found = holder_of(path)
    if found is None:
        top, folders = path.parent, []
    else:
        top, folders = found[0].folder, found[1].split("/")[:-1]
    with walk_folders(top, folders, make=True) as dir_fd:
        temp, f = create_exclusive(path, binary, dir_fd)
        try:
            with f:
                write(f)
            os.replace(temp.name, path.name, src_dir_fd=dir_fd, dst_dir_fd=dir_fd)
        except BaseException:
            with contextlib.suppress(OSError):
                os.unlink(temp.name, dir_fd=dir_fd)
            raise
    return path


def replace_text(path: Path, text: str) -> None:
    """Write ``text`` to ``path`` through a new temporary file and ``os.replace``."""
    write_atomic(path, lambda f: f.write(text))
