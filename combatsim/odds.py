"""What every ``combatsim odds`` calculator shares: the ``Calculator`` contract, and the
``Table`` and ``Grid`` it returns.

Each rule package offers its calculators (its ``ODDS``, found by ``combatsim.rules.registry``):
the exact distributions come from the dice layer, and become floats in the tables, because
the consumers are people and JSON. This module knows no rule system.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar, Protocol

from .errors import UsageError

# An option's value as the command line gives it: ``read("--dice")`` is an integer, or with
# --grid the list of them a range names; ``read("--need", False)`` is one integer even then.
Read = Callable[..., Any]


class Calculator(Protocol):
    """``combatsim odds NAME``: one roll of a rule system, computed exactly.

    ``compute`` returns the JSON payload and the table (and with ``--grid`` the ``Grid``);
    ``distribution`` says what ``--plot`` draws of a payload. ``grid``: whether ``--grid``
    is offered. The module declaring a calculator is imported whenever the command line is
    built: it imports its dice modules only inside ``compute``."""

    name: ClassVar[str]
    help: ClassVar[str]
    description: ClassVar[str]
    examples: ClassVar[tuple[str, ...]]
    grid: ClassVar[bool]

    def add_arguments(self, parser: argparse.ArgumentParser) -> None: ...

    def compute(self, args: argparse.Namespace, read: Read) -> tuple: ...

    def distribution(self, payload: dict) -> tuple[str, list[object], dict[str, list[float]]]:
        """The outcome's name, its values in order, and P(exactly each value) per series."""
        ...


@dataclass
class Table:
    """A printable table: a title, header row, data rows and free-text lines under it."""

    title: str
    headers: list[str]
    rows: list[list[object]]
    notes: list[str] = field(default_factory=list)
    left: int = 0  # how many leading columns are words, aligned left

    def render(self) -> str:
        table: list[list[object]] = [list(self.headers), *self.rows]
        cells = [[_fmt(c) for c in row] for row in table]
        widths = [max(len(r[i]) for r in cells) for i in range(len(self.headers))]
        lines = [self.title, ""]
        for n, row in enumerate(cells):
            lines.append(
                "  ".join(
                    c.ljust(w) if i < self.left else c.rjust(w)
                    for i, (c, w) in enumerate(zip(row, widths, strict=True))
                ).rstrip()
            )
            if n == 0:
                lines.append("  ".join("-" * w for w in widths))
        return "\n".join(lines + ([""] + self.notes if self.notes else []))


def _fmt(value: object) -> str:
    if isinstance(value, float):
        if 0 < value < 0.000001:
            return "<0.0001%"
        return f"{value:.4%}" if value < 0.0001 and value > 0 else f"{value:.2%}"
    return str(value)


MAX_GRID = 60  # values along either side of a grid


@dataclass
class Grid:
    """P(success) for every pair of a row value and a column value (a table and a heatmap)."""

    title: str
    row_name: str
    column_name: str
    rows: Sequence[object]
    columns: Sequence[object]
    p: list[list[float]]  # p[i][j]: row i, column j

    def payload(self, system: str, **extra) -> dict:
        return {
            "system": system,
            **extra,
            "rows": {"name": self.row_name, "values": self.rows},
            "columns": {"name": self.column_name, "values": self.columns},
            "p_success": self.p,
        }

    def table(self) -> Table:
        return Table(
            self.title,
            [f"{self.row_name} \\ {self.column_name}", *map(str, self.columns)],
            [[r, *row] for r, row in zip(self.rows, self.p, strict=True)],
        )


def check_grid(argument: str, values: list[int]) -> None:
    if not 1 <= len(values) <= MAX_GRID:
        raise UsageError(argument, values, f"1 to {MAX_GRID} values, e.g. 2..12")
