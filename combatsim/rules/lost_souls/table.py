"""Reading an Action Results Table file a user supplies (option ``action_table``).

The bounded YAML reader (``safeyaml``: size cap, nesting and alias limits, duplicate keys
refused) parses the file and knows each field's line; the dice layer validates the data and
builds the table. Reading files is kept out of the dice layer, which only computes.
"""

from __future__ import annotations

from os import PathLike

from ... import safeyaml
from ...dice.lost_souls import ActionTable, default_table, table_from_data


def load_table(path: str | PathLike | None = None) -> ActionTable:
    """Load and validate a table file; ``None`` gives the shipped table."""
    if path is None:
        return default_table()
    return parse_table(safeyaml.read_text(path, "an Action Results Table file"), str(path))


def parse_table(text: str, file: str = "<string>") -> ActionTable:
    """Validate the text of a table file; ``file`` names it in errors, with each field's line."""
    data, lines = safeyaml.parse_yaml(text, file)
    return table_from_data(data, file, lambda keys: safeyaml.line_of(lines, keys))
