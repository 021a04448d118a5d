"""One exception tree for everything a user can get wrong.

The CLI catches ``CombatsimError`` and prints it in a line or two with exit code 2; anything
else is a bug and keeps its traceback.
"""

from __future__ import annotations

import difflib
from collections.abc import Iterable
from typing import Any, NoReturn


class CombatsimError(Exception):
    """Base class of every error meant for the user, not the developer."""


class UsageError(CombatsimError):
    """A bad argument to a command or a library call (names the argument and what is allowed)."""

    def __init__(self, argument: str, found: object, allowed: str, hint: str | None = None):
        self.argument, self.found, self.allowed, self.hint = argument, found, allowed, hint
        # args are the constructor's: simpy and pickle rebuild errors as type(e)(*e.args)
        super().__init__(argument, found, allowed, hint)

    def __str__(self) -> str:
        hint = f" ({self.hint})" if self.hint else ""
        return f"{self.argument}: got {self.found!r}{hint}; allowed: {self.allowed}"


class BackendLost(CombatsimError):
    """The workers of a run went away (a Dask scheduler stopped answering). What finished is
    kept in the run's journal, so ``--resume`` can finish the run, locally if need be."""


class Outside(CombatsimError):
    """A file outside the folder a fence allows (``safeyaml.fenced``): the web server's
    served folder. Says only the name as given, never what lies there."""


class Described(str):
    """A ``found`` that is already a description (``nothing``, ``unknown key 'x'``), shown
    as it is rather than quoted like a value from the file."""

    def __repr__(self) -> str:
        return str(self)


class Problem(Described):
    """A ``found`` that states the whole problem (``catalogue file not found: ...``): shown
    without the ``found`` in front."""


class ScenarioError(CombatsimError):
    """A scenario or catalogue file that does not validate.

    Names the file, the field path, the line where known, what was found and what is allowed;
    ``hint`` (``did you mean 'ak97'?``) follows what was found, where the reader looks first.
    An error inside a file another one refers to (a catalogue, an Action Results Table) also
    names the place that refers to it: ``via`` (``scenario.yaml:5: catalogues[0]``).
    """

    def __init__(
        self,
        file: str,
        path: str,
        found: object,
        allowed: str,
        line: int | None = None,
        hint: str | None = None,
        via: str | None = None,
    ):
        self.file, self.path, self.found, self.allowed, self.line = file, path, found, allowed, line
        self.hint, self.via = hint, via
        super().__init__(file, path, found, allowed, line, hint, via)  # see UsageError

    def __str__(self) -> str:
        where = f"{self.file}:{self.line}" if self.line is not None else self.file
        found = (
            str(self.found) if isinstance(self.found, Problem) else f"found {_shown(self.found)}"
        )
        hint = f" ({self.hint})" if self.hint else ""
        text = f"{where}: {self.path}: {found}{hint}; allowed: {self.allowed}"
        return f"{text} (referred to by {self.via})" if self.via else text

    def referred_by(self, file: str, line: int | None, path: str) -> ScenarioError:
        """This error, noting the place in another file that refers to this one."""
        where = f"{file}:{line}" if line is not None else file
        self.via = f"{where}: {path}" + (f", {self.via}" if self.via else "")
        self.args = (*self.args[:6], self.via)
        return self


class ScenarioErrors(ScenarioError):
    """Every mistake found in one file, not just the first: ``errors`` holds them in the
    order they were found, each with its own line. As a ``ScenarioError`` it is the first
    one (its one-line message, file, line), so a command that shows one line still can;
    ``combatsim validate`` shows them all."""

    def __init__(self, errors: list[ScenarioError]):
        first = errors[0]
        super().__init__(
            first.file, first.path, first.found, first.allowed, first.line, first.hint, first.via
        )
        self.errors = errors
        self.args = (errors,)  # see UsageError: rebuilt as type(e)(*e.args)

    def referred_by(self, file: str, line: int | None, path: str) -> ScenarioError:
        for err in self.errors:
            err.referred_by(file, line, path)
        self.via = self.errors[0].via
        return self


def all_errors(err: ScenarioError) -> list[ScenarioError]:
    """The mistakes an error stands for: a ``ScenarioErrors``'s list, else the error."""
    return list(err.errors) if isinstance(err, ScenarioErrors) else [err]


class Problems:
    """Gathers the ``ScenarioError``s of a file's independent parts, so that checking goes
    on past the first and every mistake is reported at once (each counted once)."""

    def __init__(self) -> None:
        self.errors: list[ScenarioError] = []

    def add(self, err: ScenarioError) -> None:
        seen = {str(e) for e in self.errors}
        for one in all_errors(err):
            if str(one) not in seen:
                seen.add(str(one))
                self.errors.append(one)

    def raise_any(self) -> None:
        """Raise what was gathered: the one error, or a ``ScenarioErrors`` of several."""
        if len(self.errors) == 1:
            raise self.errors[0]
        if self.errors:
            raise ScenarioErrors(self.errors)

    def stop(self) -> NoReturn:
        """Raise what was gathered where checking cannot go on (a mistake was gathered)."""
        self.raise_any()
        raise AssertionError("checking stopped without a mistake gathered")


MAX_SHOWN = 80  # characters of a value quoted in an error; a longer one is cut, saying so


def _shown(value: object) -> str:
    """``repr(value)``, which escapes control characters, cut to ``MAX_SHOWN`` characters so
    that a 100,000-character name makes a one-line error of readable length."""
    text = repr(value)
    if len(text) <= MAX_SHOWN:
        return text
    size = f" ({len(value):,} characters)" if isinstance(value, str) else ""
    return f"{text[: MAX_SHOWN - 20]}...{size}"


def did_you_mean(found: object, choices: Iterable[object]) -> str | None:
    """``did you mean 'firearms'?`` for the closest of ``choices`` to a misspelt ``found``
    (stdlib difflib's ratio, the same measure for every unknown name and key), else None."""
    if not isinstance(found, str):
        return None
    names = {str(c): c for c in choices}
    close = difflib.get_close_matches(found, names, n=1, cutoff=0.6)
    if not close:
        lowered = {n.lower(): n for n in names}
        close = [lowered[found.lower()]] if found.lower() in lowered else []
    if not close:
        return None
    return f"did you mean {close[0]!r}?"


def check_range(argument: str, value: int, low: int | None = None, high: int | None = None) -> int:
    """Return ``value`` if ``low <= value <= high`` (either bound may be open), else raise."""
    if (low is not None and value < low) or (high is not None and value > high):
        lo = "-inf" if low is None else str(low)
        hi = "inf" if high is None else str(high)
        raise UsageError(argument, value, f"an integer from {lo} to {hi}")
    return value


def parse_integer(argument: str, text: str) -> int:
    """``text`` as an integer, refusing more than ``MAX_DIGITS`` digits before Python converts
    it (a 5,000-digit number would otherwise end in Python's own ValueError)."""
    from .limits import MAX_DIGITS

    digits = text.strip().lstrip("+-")
    if len(digits) > MAX_DIGITS and digits.isdigit():
        raise UsageError(
            argument, Described(f"a number of {len(digits):,} digits"), too_many_digits()
        )
    try:
        return int(text)
    except ValueError:
        raise UsageError(argument, text, "an integer") from None


def too_many_digits() -> str:
    """What is allowed of an integer written in an argument."""
    from .limits import MAX_DIGITS

    return f"an integer of at most {MAX_DIGITS} digits"


def shown(value: Any) -> Any:
    """A value for a message: itself when short, else its type and length."""
    text = repr(value)
    if len(text) <= 60 and not isinstance(value, dict):
        return value
    if not hasattr(value, "__len__"):
        return Described(f"a {type(value).__name__}")
    count = len(value)
    return Described(f"a {type(value).__name__} of {count:,} item{'' if count == 1 else 's'}")
