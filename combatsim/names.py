"""What a user-given name may be, and how any user text is shown safely.

A name (a scenario's, a side's, a member's, a catalogue entry's key) is shown on the terminal,
in plots, in HTML pages and in CSV files that spreadsheets open. So a name is refused at load
unless it is short printable text: at most ``MAX_NAME`` characters, no control or
bidirectional-override characters (which could rewrite a terminal line or reverse the text
after them), and no leading ``=``, ``+``, ``-`` or ``@`` (which a spreadsheet runs as a formula),
also not behind spaces or quotes nor in another form of these characters (a full-width ``＝``).

Every other text that reaches a cell of a results CSV is held to the same formula rule
(``cell_problem``): a vary's name and text values, from the command line, a sweep file, Python
or the page. Refused where it is given, in one line naming where, rather than altered in the
file: what a table holds is what the user wrote, and reads back as such.

Text that is not a checked name (a file's path, an old results file) is escaped where it is
shown: ``for_terminal`` on the terminal, ``plain_plot_text`` in plots, ``<bdi>`` in HTML.
"""

from __future__ import annotations

import functools
import html
import re
import unicodedata
from collections.abc import Callable
from contextlib import AbstractContextManager
from typing import Annotated, ParamSpec, TypeVar

from pydantic import AfterValidator

P = ParamSpec("P")
R = TypeVar("R")
MAX_NAME = 100  # characters of a name
FORMULA_STARTS = "=+-@"
NAME_RULE = (
    f"printable text of 1 to {MAX_NAME} characters, without control or bidirectional "
    f"characters, not starting with {', '.join(FORMULA_STARTS)}"
)
CELL_RULE = (
    "printable text without control or bidirectional characters, not starting with "
    f"{', '.join(FORMULA_STARTS)}"
)
# A formula start behind what a spreadsheet or a CSV reader may strip first (spaces, quotes);
# compared in NFKC form, where a full-width or small = + - @ is the plain one.
_FORMULA = re.compile(rf"[\s\"'\u2018\u2019\u201c\u201d]*[{re.escape(FORMULA_STARTS)}]")


def name_problem(text: str) -> str | None:
    """Why ``text`` cannot be a name, or None when it can."""
    if not text:
        return "empty"
    if len(text) > MAX_NAME:
        return f"{len(text):,} characters"
    return cell_problem(text)


def cell_problem(text: str) -> str | None:
    """Why ``text`` cannot stand in a cell of a results CSV (any length), or None."""
    bad = next((c for c in text if not c.isprintable()), None)
    if bad is not None:
        return f"{bad!r} is a control or formatting character"
    if text and text[0] in FORMULA_STARTS:
        return f"a spreadsheet reads a leading {text[0]!r} as a formula"
    if _FORMULA.match(unicodedata.normalize("NFKC", text)):
        return "a spreadsheet may read it as a formula (its start reads as = + - or @)"
    return None


def check_name(text: str) -> str:
    """A pydantic validator: ``text`` if it is a valid name, else ValueError (the rule)."""
    if name_problem(text) is not None:
        raise ValueError(NAME_RULE)
    return text


Name = Annotated[str, AfterValidator(check_name)]


def for_terminal(text: object, one_line: bool = False) -> str:
    """``text`` with every non-printable character but the newline escaped (``\\r``,
    ``\\x1b``, ``\\u202e``), so a file name or old result cannot move the cursor, clear the
    screen, forge a line or reverse what follows. ``one_line``: the newline too (an error
    message is one line, whatever a file name in it holds)."""
    text = str(text)
    if text.isprintable():
        return text
    keep = "" if one_line else "\n"
    return "".join(
        c if c.isprintable() or c == keep else c.encode("unicode_escape").decode("ascii")
        for c in text
    )


def html_name(name: object) -> str:
    """A name in an HTML page: escaped, and isolated in ``<bdi>`` so right-to-left text in it
    cannot reorder the words and numbers around it."""
    return f"<bdi>{html.escape(str(name))}</bdi>"


def isolated(name: object) -> str:
    """A name inside plain text (a page's title, a caption): isolated with the Unicode
    first-strong isolate characters, the plain-text form of ``<bdi>``."""
    return f"\u2068{name}\u2069"


def plain_plot_text() -> AbstractContextManager:
    """matplotlib settings under which every text is drawn as written: a ``$`` in a name is a
    dollar sign, not the start of mathematics (which would fail on ``$\\x$``)."""
    import matplotlib

    return matplotlib.rc_context({"text.parse_math": False})


def plots_text_as_written(draw: Callable[P, R]) -> Callable[P, R]:
    """Decorate a function that draws plots so it draws under ``plain_plot_text``: titles,
    labels, legends and tick labels made while it runs (saving included) show names as
    written."""

    @functools.wraps(draw)
    def drawn(*args: P.args, **kwargs: P.kwargs) -> R:
        with plain_plot_text():
            return draw(*args, **kwargs)

    return drawn
