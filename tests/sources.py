"""Source text parsed once per test module: the import, layer and shape checks each walk
every module of the package, and parsing them all costs over half a second a time. The tree
is shared, so a caller only reads it (``ast.walk``, never an edit). A module using it lets
go of the trees when it ends (``forget_the_trees``): a quarter of a million nodes kept for
the rest of the session would slow every later full garbage collection."""

from __future__ import annotations

import ast
import functools
from collections.abc import Iterator
from pathlib import Path

import pytest


@functools.cache
def parsed(text: str) -> ast.Module:
    """The syntax tree of ``text`` (the same object for the same text: do not change it)."""
    return ast.parse(text)


def parsed_file(path: Path) -> ast.Module:
    """The syntax tree of the file at ``path`` as it reads now."""
    return parsed(path.read_text(encoding="utf-8"))


@pytest.fixture(scope="module", autouse=True)
def forget_the_trees() -> Iterator[None]:
    """Import it into a test module: the trees are dropped when the module's tests end."""
    yield
    parsed.cache_clear()
