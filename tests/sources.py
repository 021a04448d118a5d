"""Source text parsed once per test session: the import, layer and shape checks each walk
every module of the package, and parsing them all costs over half a second a time. The
tree is shared, so a caller only reads it (``ast.walk``, never an edit)."""

from __future__ import annotations

import ast
import functools
from pathlib import Path


@functools.cache
def parsed(text: str) -> ast.Module:
    """The syntax tree of ``text`` (the same object for the same text: do not change it)."""
    return ast.parse(text)


def parsed_file(path: Path) -> ast.Module:
    """The syntax tree of the file at ``path`` as it reads now."""
    return parsed(path.read_text(encoding="utf-8"))
