"""The ``combatsim`` commands, one module each, and what their ``--help`` shares.

Every command's ``--help`` ends with a few runnable examples (``examples``): a new user learns
a command faster from one line that works than from a list of options.
"""

from __future__ import annotations

import argparse
from typing import Any


class ExampleFormatter(argparse.RawDescriptionHelpFormatter):
    """Wraps one-line descriptions as argparse does, keeps text with line breaks (the examples)
    exactly as written."""

    def _fill_text(self, text: str, width: int, indent: str) -> str:
        if "\n" in text:
            return super()._fill_text(text, width, indent)
        return argparse.HelpFormatter._fill_text(self, text, width, indent)


def examples(*lines: str) -> dict[str, Any]:
    """``add_parser`` keywords for an epilog of examples: ``# comment`` lines and commands."""
    text = "examples:\n" + "\n".join(f"  {line}" for line in lines)
    return {"epilog": text, "formatter_class": ExampleFormatter}


def integer(text: str) -> int:
    """argparse's ``type`` for an integer option: at most ``MAX_DIGITS`` digits (Python's own
    conversion of a 5,000-digit number is a ValueError traceback, and slow well before)."""
    from ..errors import UsageError, parse_integer

    try:
        return parse_integer("", text)
    except UsageError as err:
        found = err.found if err.allowed != "an integer" else repr(text[:40])
        raise argparse.ArgumentTypeError(f"got {found}; allowed: {err.allowed}") from None
