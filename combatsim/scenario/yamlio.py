"""YAML loading that remembers where every value came from, for error messages.

``load_yaml`` returns the data and a map from field path (a tuple of keys and list indexes) to
the 1-based line it stands on, so a validation error can say ``file.yaml:12``.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml

from ..errors import ScenarioError

LineMap = dict[tuple, int]
# libyaml's loader when PyYAML has it: ten times faster, which sweeps and explain feel (each
# variant loads its catalogues again); the same data, marks and errors as the Python one.
SafeLoader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


def load_yaml(path: str | Path) -> tuple[Any, LineMap]:
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise ScenarioError(str(path), "(file)", "no such file", "an existing YAML file") from None
    except (OSError, UnicodeDecodeError) as err:
        raise ScenarioError(str(path), "(file)", str(err), "a readable UTF-8 YAML file") from None
    try:
        node = yaml.compose(text, Loader=SafeLoader)
        data = yaml.load(text, Loader=SafeLoader)  # noqa: S506 - a safe loader
    except yaml.YAMLError as err:
        mark = getattr(err, "problem_mark", None)
        line = mark.line + 1 if mark is not None else None
        problem = getattr(err, "problem", None) or str(err)
        raise ScenarioError(str(path), "(yaml syntax)", problem, "valid YAML", line) from None
    lines: LineMap = {}
    if node is not None:
        _walk(node, (), lines)
    return data, lines


def _walk(node: yaml.Node, path: tuple, lines: LineMap) -> None:
    lines[path] = node.start_mark.line + 1
    if isinstance(node, yaml.MappingNode):
        for key_node, value_node in node.value:
            key = key_node.value
            _walk(value_node, (*path, key), lines)
            lines[(*path, key)] = key_node.start_mark.line + 1
    elif isinstance(node, yaml.SequenceNode):
        for i, item in enumerate(node.value):
            _walk(item, (*path, i), lines)


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
