"""Held actions and the moves that wake them (ruling 30).

A fighter holding its action waits for a move that concerns it: an enemy's move that ends
within the holder's reach, when the hold is for whoever comes (``target_in_reach``), or its
chosen target's when it holds for one (until that one leaves the fight: then again whoever
comes). Moves that concern no holder wake none, so a battle's cost does not grow with its
holders times its moves. Holders stand in square cells as wide as the longest reach held,
by side, so a move looks in the 3 x 3 cells around where it ended and measures only the
holders there; those it concerns wake in the ruling's order, the higher initiative score
held first, then the scenario's order.
"""

from __future__ import annotations

import math

from .fighter import Fighter

_dist = math.dist
_floor = math.floor


def _order(f: Fighter) -> tuple[int, int]:
    """Ruling 30's waking order: the higher score held first, then the scenario's order."""
    return -f.hold_score, f.index


class Holds:
    """The fighters holding an action, by side and cell (see the module's docstring)."""

    __slots__ = ("width", "cells", "holding", "count")

    def __init__(self, width: float):
        self.width = width if width >= 1.0 else 1.0  # at least the longest reach held
        self.cells: dict[tuple[str, int, int], list[Fighter]] = {}
        self.holding: dict[str, int] = {}  # holders per side
        self.count = 0

    def add(self, f: Fighter, reach: float, target: Fighter | None, score: int) -> None:
        """``f`` holds, at initiative ``score``, for ``target`` (None: whoever comes) within
        ``reach`` meters."""
        if reach > self.width:  # (a reach longer than every firearm's: cells wide enough)
            self._widen(reach)
        f.hold_reach, f.hold_for, f.hold_score = reach, target, score
        x, y = f.position
        w = self.width
        key = (f.side, _floor(x / w), _floor(y / w))
        f.hold_cell = key
        cell = self.cells.get(key)
        if cell is None:
            self.cells[key] = [f]
        else:
            cell.append(f)
        self.holding[f.side] = self.holding.get(f.side, 0) + 1
        self.count += 1

    def remove(self, f: Fighter) -> None:
        """``f`` holds no more (woken, lapsed or interrupted); nothing if it did not hold."""
        key = f.hold_cell
        if key is None:
            return
        f.hold_cell = None
        cell = self.cells[key]
        cell.remove(f)
        if not cell:
            del self.cells[key]
        self.holding[f.side] -= 1
        self.count -= 1

    def woken_by(self, mover: Fighter) -> list[Fighter]:
        """The holders the move ``mover`` just made concerns (see the module's docstring),
        taken out of the watch, in waking order."""
        if not mover.can_act:
            return []
        x, y = here = mover.position
        w = self.width
        cx, cy = _floor(x / w), _floor(y / w)
        cells = self.cells
        out: list[Fighter] = []
        for side, n in self.holding.items():
            if not n or side == mover.side:
                continue
            for i in (cx - 1, cx, cx + 1):
                for j in (cy - 1, cy, cy + 1):
                    cell = cells.get((side, i, j))
                    if cell is not None:
                        for h in cell:
                            held_for = h.hold_for
                            if (
                                held_for is None or held_for is mover or not held_for.can_act
                            ) and _dist(h.position, here) <= h.hold_reach:
                                out.append(h)
        for h in out:
            self.remove(h)
        if len(out) > 1:
            out.sort(key=_order)
        return out

    def take_all(self) -> list[Fighter]:
        """Every holder, taken out of the watch, in waking order (the turn ends)."""
        out = [h for cell in self.cells.values() for h in cell]
        for h in out:
            h.hold_cell = None
        self.cells.clear()
        self.holding.clear()
        self.count = 0
        out.sort(key=_order)
        return out

    def _widen(self, reach: float) -> None:
        holders = self.take_all()
        self.width = reach
        for h in holders:
            self.add(h, h.hold_reach, h.hold_for, h.hold_score)
