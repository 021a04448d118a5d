"""Reading files a user hands us (scenarios, catalogues, tables, sweep files) as untrusted input.

Game masters share scenario files, so a file may be hostile or simply broken. Everything here
fails with one ``ScenarioError`` line (file, line, what was found, what is allowed), quickly
and in bounded memory:

- **Only regular files**, at most ``max_file_bytes()`` (default 8 MiB, environment variable
  ``COMBATSIM_MAX_FILE_SIZE``): a FIFO, a device (``/dev/zero``) or a directory is refused
  before it is opened for reading, so nothing can hang or fill memory. A file name with a NUL
  byte, or too long for the operating system, is refused as such.
- **YAML is parsed once**, from libyaml's event stream when PyYAML has it (``CSafeLoader``,
  else the pure-Python ``SafeLoader``), building the data and the line map in one iterative
  pass: no recursion, so deep nesting cannot raise ``RecursionError``, and no second parse.
- **Bounded structure**: nesting deeper than ``MAX_DEPTH`` levels, and aliases that would
  expand to more than ``MAX_ALIAS_VALUES`` values (a "billion laughs" file), are refused; an
  alias inside its own anchor (``&r [*r]``) is refused as recursive.
- **Duplicate keys** are refused, naming the lines of both (YAML itself lets the last win,
  which silently drops what the author wrote first).
- Only YAML's standard tags (strings, numbers, booleans, null, timestamps, ``<<`` merges);
  ``!!python/...`` and other tags are refused.

``load_yaml(path)`` returns the data and a map from field path (a tuple of keys and list
indexes) to the 1-based line it stands on, so a validation error can say ``file.yaml:12``.
"""

from __future__ import annotations

import contextlib
import errno
import os
import re
import stat
from collections.abc import Callable, Iterator
from contextvars import ContextVar
from pathlib import Path
from typing import Any, NoReturn

import yaml

from .errors import Described, Outside, Problem, ScenarioError, UsageError

LineMap = dict[tuple, int]

SIZE_VARIABLE = "COMBATSIM_MAX_FILE_SIZE"
DEFAULT_MAX_FILE_BYTES = 8 * 1024 * 1024
MAX_DEPTH = 50  # nesting levels of mappings and lists (a scenario needs about 8)
MAX_ALIAS_VALUES = 100_000  # values that aliases may add to a file, all aliases together
MAX_PATH_CHARS = 4096  # PATH_MAX on Linux
MAX_NAME_BYTES = 255  # NAME_MAX: one part of a path
SHOWN_NAME = 80  # characters of an over-long file name shown in an error

_Loader = getattr(yaml, "CSafeLoader", None) or yaml.SafeLoader
_SCALARS = yaml.SafeLoader  # the constructor of YAML's standard scalar types
_TAG = "tag:yaml.org,2002:"
_MERGE = _TAG + "merge"
_KINDS = {
    stat.S_IFDIR: "a directory",
    stat.S_IFIFO: "a FIFO (named pipe)",
    stat.S_IFCHR: "a character device",
    stat.S_IFBLK: "a block device",
    stat.S_IFSOCK: "a socket",
}


# --- reading a file ---------------------------------------------------------------------------


def max_file_bytes() -> int:
    """The size cap: ``COMBATSIM_MAX_FILE_SIZE`` (bytes, or with a K, M or G suffix), else
    8 MiB."""
    text = os.environ.get(SIZE_VARIABLE, "").strip()
    if not text:
        return DEFAULT_MAX_FILE_BYTES
    scale = {"K": 1 << 10, "M": 1 << 20, "G": 1 << 30}.get(text[-1:].upper(), 1)
    digits = text[:-1] if scale > 1 else text
    if not digits.isdigit() or not 1 <= int(digits) * scale <= 1 << 40:
        raise UsageError(
            SIZE_VARIABLE, text, "a size in bytes from 1 to 1T, optionally with K, M or G"
        )
    return int(digits) * scale


def shown(path: str | os.PathLike) -> str:
    """The file name as an error shows it: NUL bytes made visible, and an over-long one
    shortened to its tail (``…/last/dirs/file.yaml``, whole folder names as far as they fit),
    so that the ``file:line: field`` it starts stays whole however deep the folder."""
    text = os.fspath(path)
    if isinstance(text, bytes):
        text = os.fsdecode(text)
    text = text.replace("\0", "\\0")
    if len(text) <= SHOWN_NAME:
        return text
    *folders, tail = text.split(os.sep)
    if len(tail) + 2 > SHOWN_NAME:  # the file's own name is over-long: its end
        return "…" + tail[-(SHOWN_NAME - 1) :]
    for folder in reversed(folders):
        if len(folder) + len(tail) + 3 > SHOWN_NAME:
            break
        tail = f"{folder}{os.sep}{tail}"
    return f"…{os.sep}{tail}"


def check_path(path: str | os.PathLike) -> Path:
    """``path`` as a ``Path``, or a ``ScenarioError`` if no file can have that name."""
    text = os.fspath(path)
    if isinstance(text, bytes):
        text = os.fsdecode(text)
    if "\0" in text:
        raise _file_error(path, Described("a NUL byte in the file name"), "a file name")
    if not text:
        raise _file_error(path, Described("an empty file name"), "a file name")
    parts = [os.fsencode(part) for part in text.split(os.sep)]
    if len(text) > MAX_PATH_CHARS or any(len(part) > MAX_NAME_BYTES for part in parts):
        raise _file_error(
            path,
            Described(f"a file name too long ({len(text):,} characters)"),
            f"at most {MAX_NAME_BYTES} bytes per folder or file name, {MAX_PATH_CHARS} in all",
        )
    return Path(text)


# --- the fence ---------------------------------------------------------------------------------

# The folders ``read_text`` may open files in, and what the refusal calls them; empty: anywhere.
_FENCE: ContextVar[tuple[tuple[Path, ...], str]] = ContextVar("combatsim_fence", default=((), ""))


@contextlib.contextmanager
def fenced(roots: tuple[str | os.PathLike, ...], called: str) -> Iterator[None]:
    """Within this block (this thread, and threads that copy its ``contextvars`` context),
    ``read_text`` opens only files whose real path, every symlink followed, lies inside one
    of ``roots``; any other is ``Outside`` before it is opened. The web server reads every
    file through here, so a path that arrives in a scenario, an edit or a rule option meets
    the one fence (``called`` names the folder in the refusal: "the served folder")."""
    token = _FENCE.set((tuple(Path(os.path.realpath(r)) for r in roots), called))
    try:
        yield
    finally:
        _FENCE.reset(token)


def check_fence(path: str | os.PathLike) -> None:
    """``Outside`` when a fence is up and ``path``'s real location is not inside it."""
    roots, called = _FENCE.get()
    if roots and not _inside(Path(os.path.realpath(path)), roots):
        raise Outside(f"{shown(path)}: a file outside {called}")


def _inside(real: Path, roots: tuple[Path, ...]) -> bool:
    return any(real == root or root in real.parents for root in roots)


def _check_opened(path: str | os.PathLike, fd: int) -> None:
    """The file opened is inside the fence too (a link swapped in after the check is caught:
    the kernel names the file the descriptor holds)."""
    roots, called = _FENCE.get()
    if not roots:
        return
    try:
        real = Path(os.readlink(f"/proc/self/fd/{fd}"))
    except OSError:  # no /proc (not Linux): the check before opening stands alone
        return
    if not _inside(real, roots):
        os.close(fd)
        raise Outside(f"{shown(path)}: a file outside {called}")  # never where it leads


def read_text(path: str | os.PathLike, what: str = "a YAML file") -> str:
    """The UTF-8 text of a regular file of at most ``max_file_bytes()``; never blocks on a
    FIFO or device and never reads more than the cap. Inside ``fenced``, only a file inside
    the fence is opened."""
    limit = max_file_bytes()
    checked = check_path(path)
    check_fence(checked)
    try:
        info = os.stat(checked)
        _check_kind(path, info, what, limit)
        # O_NONBLOCK: were the file swapped for a FIFO after the stat, opening it still
        # cannot hang; the fstat below then refuses it.
        fd = os.open(checked, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | os.O_NOCTTY)
        _check_opened(path, fd)
    except FileNotFoundError:
        raise _file_error(path, Described("no such file"), f"an existing file ({what})") from None
    except OSError as err:
        raise _os_error(path, err, what) from None
    try:
        _check_kind(path, os.fstat(fd), what, limit)
        with os.fdopen(fd, "rb", closefd=False) as f:
            data = f.read(limit + 1)
    except OSError as err:
        raise _os_error(path, err, what) from None
    finally:
        os.close(fd)
    if len(data) > limit:
        raise _too_big(path, len(data), limit)
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as err:
        line = data[: err.start].count(b"\n") + 1
        raise ScenarioError(
            shown(path),
            "(file)",
            Described(f"a byte that is not UTF-8 ({err.reason})"),
            "a UTF-8 text file",
            line,
        ) from None


def _check_kind(path: str | os.PathLike, info: os.stat_result, what: str, limit: int) -> None:
    kind = stat.S_IFMT(info.st_mode)
    if kind != stat.S_IFREG:
        found = _KINDS.get(kind, "not a regular file")
        raise _file_error(path, Described(found), f"a regular file ({what})")
    if info.st_size > limit:
        raise _too_big(path, info.st_size, limit)


def _too_big(path: str | os.PathLike, size: int, limit: int) -> ScenarioError:
    return _file_error(
        path,
        Described(f"a file of {size:,} bytes"),
        f"at most {limit:,} bytes (raise the cap with the environment variable {SIZE_VARIABLE})",
    )


def _os_error(path: str | os.PathLike, err: OSError, what: str) -> ScenarioError:
    if err.errno == errno.ENAMETOOLONG:
        found = Described(f"a file name too long ({len(os.fspath(path)):,} characters)")
        return _file_error(path, found, "a shorter file name")
    reason = err.strerror or type(err).__name__
    return _file_error(path, Described(reason.lower()), f"a readable file ({what})")


def _file_error(path: str | os.PathLike, found: object, allowed: str) -> ScenarioError:
    return ScenarioError(shown(path), "(file)", found, allowed)


# --- parsing YAML -----------------------------------------------------------------------------


def load_yaml(path: str | os.PathLike) -> tuple[Any, LineMap]:
    """Read and parse a YAML file (see the module docstring); errors name the file."""
    return parse_yaml(read_text(path), shown(path))


class _Frame:
    """A mapping or list being built: its path, its data so far, and what a mapping needs to
    refuse duplicate keys and to apply ``<<`` merges."""

    __slots__ = (
        "anchor",
        "below",
        "data",
        "key",
        "key_line",
        "keys",
        "line",
        "merges",
        "path",
        "size",
    )

    def __init__(self, data: dict | list, path: tuple, line: int, anchor: str | None) -> None:
        self.data, self.path, self.line, self.anchor = data, path, line, anchor
        self.key: Any = _NO_KEY  # a mapping's key waiting for its value
        self.key_line = 0
        self.keys: dict[Any, int] | None = {} if isinstance(data, dict) else None
        self.merges: list = []
        self.below = 0  # levels of mappings and lists inside it
        self.size = 1  # values in it, itself included, aliases expanded


class _Anchor:
    __slots__ = ("depth", "size", "value")

    def __init__(self, value: Any, size: int, depth: int) -> None:
        self.value, self.size, self.depth = value, size, depth


class _Marker:
    def __init__(self, text: str) -> None:
        self.text = text

    def __repr__(self) -> str:
        return self.text


_NO_KEY = _Marker("(no key)")
_MERGE_KEY = _Marker("<<")
_STR = _TAG + "str"
_COLLECTION_TAGS = {_TAG + kind for kind in ("map", "seq", "omap", "pairs", "set")}
# Plain numbers whose value Python's int() and float() read as YAML 1.1 does (no octal, no
# underscores, no sexagesimal): the common case, read without the resolver's regex chain.
_PLAIN_INT = re.compile(r"[-+]?(?:0|[1-9][0-9]{0,17})\Z")
_PLAIN_FLOAT = re.compile(r"[-+]?[0-9]+\.[0-9]*(?:[eE][-+][0-9]+)?\Z")
_SHOWN_PATH = 120


def parse_yaml(text: str, file: str = "<string>") -> tuple[Any, LineMap]:
    """The data of one YAML document and its line map; ``file`` names it in errors."""
    nul = text.find("\0")
    if nul >= 0:
        line = text.count("\n", 0, nul) + 1
        raise ScenarioError(file, "(file)", Described("a NUL byte"), "a YAML text file", line)
    return _Builder(text, file).run()


class _Builder:
    """One pass over the parser's events: build the data and the line map, check the limits.

    The walk is iterative (a stack of open mappings and lists), so its depth is bounded by
    ``MAX_DEPTH``, not by Python's recursion limit. Aliases share the anchored value (as
    ``yaml.safe_load`` does) and add its expanded size to ``alias_values``.
    """

    def __init__(self, text: str, file: str):
        self.text, self.file = text, file
        self.lines: LineMap = {}
        self.anchors: dict[str, _Anchor | None] = {}  # None: still being built
        self.alias_values = 0
        self.stack: list[_Frame] = []
        self.scalars = _SCALARS("")
        self.implicit = self.scalars.yaml_implicit_resolvers

    def fail(self, line: int | None, path: tuple, found: object, allowed: str) -> NoReturn:
        where = format_path(path)
        if len(where) > _SHOWN_PATH:
            where = f"{where[: _SHOWN_PATH // 2]}...{where[-_SHOWN_PATH // 2 :]}"
        raise ScenarioError(self.file, where, found, allowed, line)

    def run(self) -> tuple[Any, LineMap]:
        loader = _Loader(self.text)
        handlers = {
            yaml.ScalarEvent: self.on_scalar,
            yaml.MappingStartEvent: self.on_start,
            yaml.SequenceStartEvent: self.on_start,
            yaml.MappingEndEvent: self.on_end,
            yaml.SequenceEndEvent: self.on_end,
            yaml.AliasEvent: self.on_alias,
        }
        documents = 0
        self.result: Any = None
        try:
            while True:
                event = loader.get_event()
                handler = handlers.get(type(event))
                if handler is not None:
                    handler(event)
                elif isinstance(event, yaml.DocumentStartEvent):
                    documents += 1
                    if documents > 1:
                        self.fail(
                            event.start_mark.line + 1,
                            (),
                            Described("a second document (---)"),
                            "one YAML document per file",
                        )
                elif event is None or isinstance(event, yaml.StreamEndEvent):
                    break
        except yaml.YAMLError as err:
            mark = getattr(err, "problem_mark", None) or getattr(err, "context_mark", None)
            line = mark.line + 1 if mark is not None else None
            problem = getattr(err, "problem", None) or str(err).splitlines()[0]
            if "maximum nesting depth" in problem:
                # libyaml (PyYAML >= 6.0.4) caps flow nesting while scanning ahead, before our
                # own cap sees the events: the same limit, so the same message.
                self.fail(
                    line,
                    (),
                    Described(f"nesting deeper than {MAX_DEPTH} levels"),
                    f"at most {MAX_DEPTH} levels of mappings and lists",
                )
            found, allowed = syntax_problem(err)
            raise ScenarioError(self.file, "(yaml syntax)", found, allowed, line) from None
        finally:
            loader.dispose()
        return self.result, self.lines

    # --- events -------------------------------------------------------------------------------

    def on_scalar(self, event: yaml.ScalarEvent) -> None:
        line = event.start_mark.line + 1
        stack = self.stack
        frame = stack[-1] if stack else None
        if frame is not None and frame.keys is not None and frame.key is _NO_KEY:
            key = self.scalar(event, line, frame.path, as_key=True)
            self.take_key(frame, key, line)
            if event.anchor is not None:
                self.anchors[event.anchor] = _Anchor(key, 1, 0)
            return
        path = self.path_here(frame)
        value = self.scalar(event, line, path)
        if event.anchor is not None:
            self.anchors[event.anchor] = _Anchor(value, 1, 0)
        if frame is not None:
            frame.size += 1
        self.place(frame, value, line, path)

    def on_start(self, event: yaml.CollectionStartEvent) -> None:
        line = event.start_mark.line + 1
        frame = self.stack[-1] if self.stack else None
        if frame is not None and frame.keys is not None and frame.key is _NO_KEY:
            self.fail(line, frame.path, Described("a list or mapping as a key"), "a plain key")
        path = self.path_here(frame)
        mapping = isinstance(event, yaml.MappingStartEvent)
        tag = event.tag
        if tag not in (None, "!", _TAG + ("map" if mapping else "seq")):
            self.fail(line, path, Described(f"the tag {tag}"), "no tag (plain YAML)")
        if len(self.stack) >= MAX_DEPTH:
            self.fail(
                line,
                path,
                Described(f"nesting deeper than {MAX_DEPTH} levels"),
                f"at most {MAX_DEPTH} levels of mappings and lists",
            )
        if event.anchor is not None:
            self.anchors[event.anchor] = None
        self.stack.append(_Frame({} if mapping else [], path, line, event.anchor))

    def on_end(self, event: yaml.CollectionEndEvent) -> None:
        frame = self.stack.pop()
        data = frame.data
        if frame.merges and isinstance(data, dict):  # only a mapping has merges
            data = _merged(frame.merges, data)
        if frame.anchor is not None:
            self.anchors[frame.anchor] = _Anchor(data, frame.size, frame.below + 1)
        parent = self.stack[-1] if self.stack else None
        if parent is not None:
            parent.size += frame.size
            parent.below = max(parent.below, frame.below + 1)
        self.place(parent, data, frame.line, frame.path)

    def on_alias(self, event: yaml.AliasEvent) -> None:
        line = event.start_mark.line + 1
        name = event.anchor
        frame = self.stack[-1] if self.stack else None
        is_key = frame is not None and frame.keys is not None and frame.key is _NO_KEY
        key_frame = frame if is_key else None  # the mapping this alias is a key of
        path = key_frame.path if key_frame is not None else self.path_here(frame)
        if name not in self.anchors:
            self.fail(
                line,
                path,
                Described(f"the undefined alias *{name}"),
                "an alias of an anchor defined above it",
            )
        anchor = self.anchors[name]
        if anchor is None:
            self.fail(
                line,
                path,
                Described(f"the alias *{name} inside its own anchor &{name}"),
                "an alias of a finished anchor (not a recursive one)",
            )
        if key_frame is not None:
            if isinstance(anchor.value, dict | list):
                self.fail(line, path, Described(f"the alias *{name} as a key"), "a plain key")
            self.take_key(key_frame, anchor.value, line)
            return
        self.alias_values += anchor.size
        if self.alias_values > MAX_ALIAS_VALUES:
            self.fail(
                line,
                path,
                Described(f"aliases expanding to more than {MAX_ALIAS_VALUES:,} values"),
                f"at most {MAX_ALIAS_VALUES:,} values added by aliases (a file that expands "
                "exponentially is refused)",
            )
        if len(self.stack) + anchor.depth > MAX_DEPTH:
            self.fail(
                line,
                path,
                Described(f"nesting deeper than {MAX_DEPTH} levels (through *{name})"),
                f"at most {MAX_DEPTH} levels of mappings and lists",
            )
        if frame is not None:
            frame.size += anchor.size
            frame.below = max(frame.below, anchor.depth)
        self.place(frame, anchor.value, line, path)

    # --- values ---------------------------------------------------------------------------------

    def scalar(self, event: yaml.ScalarEvent, line: int, path: tuple, as_key: bool = False) -> Any:
        """The value of a scalar, as ``yaml.safe_load`` would read it."""
        value, tag = event.value, event.tag
        if tag is None or tag == "!":
            if not event.implicit[0]:  # quoted: a string
                return value
            if not value or value[0] in self.implicit:
                if _PLAIN_INT.match(value):
                    return int(value)
                if _PLAIN_FLOAT.match(value):
                    return float(value)
                tag = self.scalars.resolve(yaml.ScalarNode, value, event.implicit)
                if tag == _STR:
                    return value
                if tag == _MERGE and as_key:
                    return _MERGE_KEY
            else:
                return value
        construct: Callable | None = _SCALARS.yaml_constructors.get(tag)
        if construct is None or tag in _COLLECTION_TAGS:
            self.fail(line, path, Described(f"the tag {tag}"), "no tag (plain YAML)")
        if tag == _STR:
            return value
        node = yaml.ScalarNode(tag, value, event.start_mark, event.end_mark, event.style)
        try:
            return construct(self.scalars, node)
        except (ValueError, OverflowError, yaml.YAMLError) as err:
            reason = str(err).splitlines()[0] if str(err) else type(err).__name__
            self.fail(line, path, value[:80], f"a valid {tag.removeprefix(_TAG)} ({reason[:120]})")

    def take_key(self, frame: _Frame, key: Any, line: int) -> None:
        keys = frame.keys
        assert keys is not None, "a key is taken only by a mapping's frame"
        if key is not _MERGE_KEY:
            first = keys.get(key)
            if first is not None:
                self.fail(
                    line,
                    (*frame.path, key),
                    Described(f"the key {key!r} a second time (first on line {first})"),
                    "each key once in a mapping",
                )
            keys[key] = line
        frame.key, frame.key_line = key, line

    def path_here(self, frame: _Frame | None) -> tuple:
        if frame is None:
            return ()
        if frame.keys is None:
            return (*frame.path, len(frame.data))
        if frame.key is _MERGE_KEY:
            return frame.path
        return (*frame.path, frame.key)

    def place(self, frame: _Frame | None, value: Any, line: int, path: tuple) -> None:
        """Put a finished value into the open mapping or list, or make it the document."""
        if frame is None:
            self.lines[()] = line
            self.result = value
            return
        if isinstance(frame.data, list):  # a list has no keys (frame.keys is None)
            self.lines[path] = line
            frame.data.append(value)
            return
        key, frame.key = frame.key, _NO_KEY
        if key is _MERGE_KEY:
            merged = value if isinstance(value, list) else [value]
            if not all(isinstance(one, dict) for one in merged):
                self.fail(
                    line,
                    frame.path,
                    Described("a << merge of something not a mapping"),
                    "a mapping, or a list of mappings, after <<",
                )
            frame.merges.append(merged)
            return
        self.lines[path] = frame.key_line  # a mapping's entry stands on its key's line
        frame.data[key] = value


_OPENED = {
    "flow sequence": "a flow list '[' opened",
    "flow mapping": "a flow mapping '{' opened",
    "quoted scalar": "a quoted string opened",
    "block collection": "the list whose first '-' is",
    "block mapping": "the mapping that starts",
}
_ADVICE = {
    "expected ',' or ']'": "close the list with ']' (entries separated by ', ')",
    "expected ',' or '}'": "close the mapping with '}' (entries separated by ', ')",
    "end of stream": "the closing quote, on the same line as the opening one",
    "tab character": "spaces for indentation (YAML refuses tabs)",
    "'-' indicator": "each '- ' of a list at the same indentation as the first",
    "expected key": "each key of a mapping at the same indentation as the first",
    "mapping values are not allowed": "one 'key: value' per line, a value holding ': ' in quotes",
}


def _at(mark: Any) -> str:
    return f"line {mark.line + 1}, column {mark.column + 1}"


def syntax_problem(err: yaml.YAMLError) -> tuple[Problem, str]:
    """PyYAML's parser error as a sentence that says where and what to do: ``a flow list '['
    opened on line 3, column 8 is not closed at line 5, column 1``, not ``did not find
    expected ',' or ']'``."""
    problem = getattr(err, "problem", None) or str(err).splitlines()[0]
    mark = getattr(err, "problem_mark", None)
    context = (getattr(err, "context", None) or "").rsplit(" a ", 1)[-1]
    start = getattr(err, "context_mark", None)
    allowed = next((a for key, a in _ADVICE.items() if key in problem), "valid YAML")
    here = f" at {_at(mark)}" if mark is not None else ""
    if context in _OPENED and start is not None:
        if context.startswith("block") and mark is not None:
            what = f"{_at(mark)} does not line up with {_OPENED[context]} on {_at(start)}"
        else:
            what = f"{_OPENED[context]} on {_at(start)} is not closed{here}"
        return Problem(f"{what} ({problem})"), allowed
    return Problem(f"{problem.removeprefix('found ')}{here}"), allowed


def _merged(merges: list[list[dict]], data: dict) -> dict:
    """``<<`` merges (YAML's merge key): the mapping's own keys win, then the merged mappings
    in the order written."""
    out: dict = {}
    for merge in reversed(merges):
        for one in reversed(merge):
            out.update(one)
    out.update(data)
    return out


def format_path(path: tuple) -> str:
    """``('sides', 1, 'members', 0, 'weapon')`` -> ``sides[1].members[0].weapon``."""
    out = ""
    for part in path:
        out += f"[{part}]" if isinstance(part, int) else (f".{part}" if out else str(part))
    return out or "(top level)"


def line_of(lines: LineMap, path: tuple) -> int | None:
    """The line of ``path``, or of its nearest ancestor that has one."""
    for cut in range(len(path), -1, -1):
        if path[:cut] in lines:
            return lines[path[:cut]]
    return None
