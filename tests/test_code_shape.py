"""Functions a reader can hold in mind: none in ``combatsim/`` is over ``MAX_LINES`` lines
or over cyclomatic complexity 15 (ruff's C901, whose limit is set in ``pyproject.toml``)."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

from tests.sources import forget_the_trees, parsed_file  # noqa: F401 - a fixture

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "combatsim"
MAX_LINES = 80


def long_functions(tree: ast.AST, limit: int = MAX_LINES) -> list[tuple[str, int]]:
    """(name, lines) of each function or method longer than ``limit`` lines, decorators and
    docstring included."""
    return [
        (node.name, node.end_lineno - node.lineno + 1)
        for node in ast.walk(tree)
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef)
        and node.end_lineno is not None
        and node.end_lineno - node.lineno + 1 > limit
    ]


def test_no_function_is_over_80_lines():
    found = [
        f"{path.relative_to(ROOT)}: {name} is {lines} lines"
        for path in sorted(PACKAGE.rglob("*.py"))
        for name, lines in long_functions(parsed_file(path))
    ]
    assert not found, "\n".join(found)


def test_the_length_check_finds_a_long_function():
    body = "\n".join(f"    x{i} = {i}" for i in range(MAX_LINES))
    assert long_functions(ast.parse(f"def f():\n{body}\n")) == [("f", MAX_LINES + 1)]


def test_no_function_is_over_complexity_15():
    command = [sys.executable, "-m", "ruff", "check", "--select", "C901", "--no-cache", "combatsim"]
    done = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stdout + done.stderr
