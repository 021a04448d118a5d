"""The one place a run's options are checked, whichever front end they came through.

The command line (``--battles``, ``--chunk-size``...), the Python API's keyword arguments, the
page's requests and the run layer's own ``Settings`` all call ``check_run_options``: the same
bounds (``combatsim.limits``, listed in docs/limits.md) and the same one-line refusal, named
as the user wrote it (``flag`` turns ``chunk_size`` into ``--chunk-size`` for the CLI). It
imports nothing heavy, so a refusal comes before anything is loaded.
"""

from __future__ import annotations

import operator
import os
from collections.abc import Callable, Mapping
from typing import Any

from .errors import UsageError, check_range, shown
from .limits import (
    MAX_BATTLES,
    MAX_CHUNK_SIZE,
    MAX_SEED,
    MAX_WORKERS,
    MIN_PRECISION,
    PRECISION_BELOW,
    RECORDS,
)

INTEGERS = {  # option: (lowest, highest)
    "battles": (1, MAX_BATTLES),
    "seed": (0, MAX_SEED),
    "workers": (1, MAX_WORKERS),
    "chunk_size": (1, MAX_CHUNK_SIZE),
    "max_battles": (1, MAX_BATTLES),
}
MAY_BE_NONE = ("seed", "workers")  # None: the scenario's own seed; every core


def check_run_options(
    values: Mapping[str, Any], flag: Callable[[str], str] = str
) -> dict[str, Any]:
    """``values`` checked: each option present within its bounds (``seed`` and ``workers``
    may be None), ``precision`` a number in range with ``max_battles`` at least ``battles``,
    ``records`` one of ``RECORDS``, no ``workers`` beside a ``scheduler``; the flags the API
    takes (``quiet``, ``resume``, ``out``, the callbacks) of their types. Returns ``values``
    with integers plain (a numpy integer would reach the summary's JSON). ``flag(option)``:
    the option's name as the user wrote it, for the message."""
    checked = dict(values)
    for option, (low, high) in INTEGERS.items():
        if option in checked and (checked[option] is not None or option not in MAY_BE_NONE):
            checked[option] = integer(flag(option), checked[option], low, high)
    precision = checked.get("precision")
    if precision is not None:
        if isinstance(precision, bool) or not isinstance(precision, int | float):
            raise UsageError(flag("precision"), shown(precision), "a number, e.g. 0.02")
        if not MIN_PRECISION <= precision < PRECISION_BELOW:
            raise UsageError(
                flag("precision"),
                precision,
                f"a number from {MIN_PRECISION} to below {PRECISION_BELOW}",
            )
        if checked.get("max_battles") is not None:
            low = checked.get("battles") or 1
            check_range(flag("max_battles"), checked["max_battles"], low, MAX_BATTLES)
    if checked.get("records") is not None and checked["records"] not in RECORDS:
        raise UsageError(flag("records"), shown(checked["records"]), "'none', 'battles' or 'all'")
    if checked.get("scheduler") is not None and checked.get("workers") is not None:
        raise UsageError(
            flag("workers"),
            checked["workers"],
            f"nothing with {flag('scheduler')} (the cluster decides)",
        )
    _check_types(checked, flag)
    return checked


def _check_types(values: Mapping[str, Any], flag: Callable[[str], str]) -> None:
    """The API's flags and callbacks (the command line's parser gives them their types)."""
    for option in ("quiet", "resume"):
        if option in values and not isinstance(values[option], bool):
            raise UsageError(flag(option), shown(values[option]), "True or False")
    out = values.get("out")
    if out is not None and not isinstance(out, str | os.PathLike):
        raise UsageError(flag("out"), shown(out), "a folder name (a str or Path) or None")
    scheduler = values.get("scheduler")
    if scheduler is not None and not isinstance(scheduler, str):
        raise UsageError(flag("scheduler"), shown(scheduler), "a text or None")
    for option in ("runner", "progress", "watch"):
        if values.get(option) is not None and not callable(values[option]):
            raise UsageError(flag(option), shown(values[option]), "a function, or None")


def integer(argument: str, value: Any, low: int, high: int) -> int:
    """``value`` as an int (numpy integers too; not True or 3.0) within ``low..high``."""
    if isinstance(value, bool) or not hasattr(type(value), "__index__"):
        raise UsageError(argument, shown(value), f"an integer from {low} to {high}")
    return check_range(argument, operator.index(value), low, high)


def cli_flag(option: str) -> str:
    """``chunk_size`` as the command line spells it: ``--chunk-size``."""
    return "--" + option.replace("_", "-")
