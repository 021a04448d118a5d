"""YAML loading that remembers where every value came from, for error messages.

``load_yaml`` reads a file as untrusted input and parses it once (see ``combatsim.safeyaml``:
regular files only, a size cap, caps on nesting and alias expansion, duplicate keys refused).
It returns the data and a map from field path (a tuple of keys and list indexes) to the 1-based
line it stands on, so a validation error can say ``file.yaml:12``.
"""

from __future__ import annotations

from ..safeyaml import LineMap, format_path, line_of, load_yaml, parse_yaml, read_text

__all__ = ["LineMap", "format_path", "line_of", "load_yaml", "parse_yaml", "read_text"]
