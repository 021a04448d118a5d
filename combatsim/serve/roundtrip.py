"""A scenario's text with edits written in, keeping what its author wrote around them.

The page's field edits are applied to the parsed data by the field-path machinery (as a sweep
applies them); the result is then written back into the *text's own* YAML tree, read by
``ruamel.yaml``'s round-trip loader, changing only the values that differ. Comments, key
order, flow or block style, quoting, indentation and the untouched lines come back as the
author wrote them; re-dumping the data would lose all of that (a 39-line file came back as 97
lines without its comments).
"""

from __future__ import annotations

import io
from typing import Any

# YAML 1.1's words for true and false (what the scenario loader reads), which the round-trip
# reader (YAML 1.2) keeps as text: an unchanged `edge: off` stays as written
FLAGS = {word: True for word in ("on", "yes", "y", "true")}
FLAGS.update({word: False for word in ("off", "no", "n", "false")})


def write_into(text: str, data: Any, name: str | None = None) -> str:
    """``text`` with its values made those of ``data`` (a plain mapping of the same scenario,
    edited), and its ``name`` set to ``name`` when given."""
    yaml = round_trip(text)
    tree = yaml.load(text)
    if name is not None:
        data = {**data, "name": name}
    return dump(yaml, _merge(tree, data))


def round_trip(text: str) -> Any:
    """A ``ruamel.yaml`` reader and writer that writes back as ``text`` is written: its
    indents, its quotes, its line width."""
    from ruamel.yaml import YAML
    from ruamel.yaml.util import load_yaml_guess_indent

    _, indent, dash = load_yaml_guess_indent(text)
    yaml = YAML(typ="rt")
    yaml.preserve_quotes = True
    # as wide as the author's longest line: their wrapped lines stay wrapped, none is folded
    yaml.width = max([80, *(len(line) for line in text.splitlines())])
    yaml.indent(mapping=_mapping_indent(text), sequence=indent or 2, offset=dash or 0)
    return yaml


def dump(yaml: Any, tree: Any) -> str:
    out = io.StringIO()
    yaml.dump(tree, out)
    return out.getvalue()


def _mapping_indent(text: str) -> int:
    """How far the text indents a mapping inside a mapping (2 unless it says otherwise)."""
    lines = [
        line for line in text.splitlines() if line.strip() and not line.lstrip().startswith("#")
    ]
    for above, line in zip(lines, lines[1:], strict=False):
        opens = above.rstrip().endswith(":") and not above.lstrip().startswith("-")
        deeper = len(line) - len(line.lstrip()) - (len(above) - len(above.lstrip()))
        if opens and deeper > 0 and not line.lstrip().startswith("-"):
            return deeper
    return 2


def _merge(old: Any, new: Any) -> Any:
    """``old`` (a round-trip node) with ``new``'s values: nodes kept where they are equal or of
    the same kind (their comments and style with them), replaced where they differ."""
    if isinstance(old, dict) and isinstance(new, dict):
        for key in [k for k in old if k not in new]:
            del old[key]
        for key, value in new.items():
            old[key] = _merge(old[key], value) if key in old else value
        return old
    if isinstance(old, list) and isinstance(new, list | tuple):
        del old[len(new) :]
        for i, value in enumerate(new):
            if i < len(old):
                old[i] = _merge(old[i], value)
            else:
                old.append(value)
        return old
    if isinstance(new, list | tuple):
        return list(new)
    if isinstance(old, str) and isinstance(new, bool) and FLAGS.get(old.lower()) is new:
        return old
    if type(old) is not bool and type(new) is not bool and old == new:
        return old  # the same value as written (its quoting, its number format)
    return new
