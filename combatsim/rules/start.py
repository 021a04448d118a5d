"""How a fighter starts a battle when it does not start fresh: the one value a chain of fights
carries from one fight to the next, and what a member's ``start:`` in a scenario file becomes.

It lives with the rule-system interface (the rules read it in ``apply_start`` and answer it in
``carried``); ``combatsim.scenario.start`` re-exports it with the file's own model.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import NamedTuple

# The keys of ``start:`` a file may write, and how a system names its spent pool there.
KARMA_SPENT = "karma_spent"
EDGE_SPENT = "edge_spent"


@dataclass(frozen=True, slots=True)
class Start:
    """A fighter's state at the start of a battle, in its rule system's own units.

    ``wounds`` and ``stun``: damage already taken (the system's
    ``StartingConditions.start_keys`` and its docs page say which unit); ``spent``: Karma or
    Edge already spent (the system says which); ``rounds``: rounds in each weapon's magazine,
    one per weapon in the sheet's order (None: every one full); ``grenades``: grenades left in
    all (None: as the sheet has them); ``dead``: dead before the battle starts. Down is not a
    field: the system derives it from the wounds and stun (``StartingConditions.down_at``)."""

    wounds: int = 0
    stun: int = 0
    spent: int = 0  # Karma or Edge already spent (the system says which)
    rounds: tuple[int, ...] | None = None  # per weapon in the sheet's order; None: full
    grenades: int | None = None  # None: as the sheet has them
    dead: bool = False


FRESH = Start()


class StartProblem(NamedTuple):
    """One thing wrong with a ``Start`` for a fighter (``StartingConditions.check_start``): the
    key of ``start:`` it is about, the value found and what the system allows there."""

    key: str
    found: int
    allowed: str
