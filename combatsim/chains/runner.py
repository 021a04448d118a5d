"""One run of a chain: its fights in order, the carried side's state handed from one to the
next (``Start``), the rests between them (ruling 27).

``run_chain(chain, root_seed, index)`` is the run layer's runner for a chain, as
``run_battle`` is for a scenario: fight ``k`` of run ``index`` is battle ``k`` under the root
``chain_seed(root_seed, index)``, so run ``index`` draws only from its own stream and replays
identically alone (``--trace``), in a chunk, on any worker or backend.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any

from ..engine import BattleResult, run_battle
from ..rng import chain_seed
from ..rules.base import start_rules
from ..rules.start import Start

if TYPE_CHECKING:
    from .model import ChainSpec, Encounter, Rest

OUT = ("dead", "left_behind")  # a member in one of these takes no further part
LOST = "the opposition"  # a run's winner when the side lost a fight (no side of the chain's)


@dataclass(frozen=True)
class Fight:
    """One fight of a traced run: the encounter, the starts it was given, its result."""

    encounter: int
    starts: dict[str, Start]
    result: BattleResult


@dataclass
class ChainRun:
    """What one run of a chain produced (see ``ChainTally.add``).

    ``won[k]``: whether the side won encounter ``k``, for each encounter reached; ``ended``:
    the first encounter it did not win (None: it won all it reached); ``casualties``:
    ``(k, m, down, dead)`` for each roster member ``m`` that entered encounter ``k``
    standing; ``status[m]``: how member ``m`` ended the run; ``left[m]``: its state at the end
    (members that fought); ``fights``: each fight, when traced.
    """

    index: int
    completed: bool
    won: list[bool]
    ended: int | None
    casualties: list[tuple[int, int, bool, bool]]
    status: list[str]
    left: dict[int, Start]
    fights: list[Fight] | None = None
    side: str = ""
    roster: tuple[str, ...] = ()
    turns: int = 0  # combat turns over every fight of the run
    end_reason: str = "completed"  # or "lost: ENCOUNTER", "draw: ENCOUNTER"
    attacks: dict = field(default_factory=dict)  # none counted: a study reads it as a battle's

    # --- what a study reads of a run, as it reads a battle's result --------------------------

    @property
    def winner(self) -> str | None:
        """The side when it completed the run; None when the run ended at a draw (a fight
        that reached its turn limit, or the last fighters fell together); else ``LOST``."""
        if self.completed:
            return self.side
        return None if self.end_reason.startswith("draw") else LOST

    @property
    def combatants(self) -> list[dict[str, Any]]:
        """One row per carried fighter: how it ended the run (``status``: up, down, dead or
        left_behind; ``standing``: up) and what it had left."""
        rows = []
        for m, name in enumerate(self.roster):
            left = self.left.get(m)
            row: dict[str, Any] = {
                "run": self.index,
                "side": self.side,
                "name": name,
                "status": self.status[m],
                "standing": self.status[m] == "up",
            }
            for key in ("wounds", "stun", "spent", "grenades"):
                row[key] = getattr(left, key) if left is not None else None
            rows.append(row)
        return rows

    @property
    def battle(self) -> dict[str, Any]:
        """One row per run, for a run that keeps records."""
        return {
            "run": self.index,
            "completed": self.completed,
            "encounters_won": sum(self.won),
            "ended_at": self.ended,
            "end_reason": self.end_reason,
            "turns": self.turns,
        }


class _Run:
    """The state of one run as it goes: each carried fighter's ``Start`` and status."""

    def __init__(self, chain: ChainSpec):
        self.chain = chain
        self.states: dict[str, Start] = {}
        self.status = dict.fromkeys(chain.roster, "up")
        self.specs: dict[str, Any] = {}  # each member's fighter spec where it last fought

    def starts(self, encounter: Encounter) -> dict[str, Start] | None:
        """The starts of the carried fighters of ``encounter`` that fought before (None for
        a fresh chain: every fight as its scenario says)."""
        if self.chain.fresh:
            return None
        out = {}
        for name in encounter.members:
            state = self.states.get(name)
            if state is None:
                continue
            out[name] = replace(state, dead=True) if self.status[name] in OUT else state
        return out

    def fought(self, k: int, encounter: Encounter, result: BattleResult, won: bool):
        """Take up the fight's end; the casualties of members that entered it standing."""
        rows = {r["name"]: r for r in result.combatants if r["side"] == self.chain.side}
        carried = result.carried
        specs = {f.name: f for f in encounter.scenario.fighters}
        out = []
        for name in encounter.members:
            before = "up" if self.chain.fresh else self.status[name]
            if before in OUT:
                continue
            end = _status(rows[name])
            if before == "up":
                m = self.chain.roster.index(name)
                out.append((k, m, end != "up", end == "dead"))
            self.status[name] = end
            self.states[name] = carried[name]
            self.specs[name] = specs[name]
            if won and encounter.boss_regain and end != "dead":  # ruling 27: a boss defeated
                self._regain(name, encounter.boss_regain)
        return out

    def rest(self, rest: Rest) -> None:
        """Ruling 27: heal what the rest heals, regain what it regains; the dead stay dead, a
        down fighter wakes if the rest heals it above the system's threshold."""
        if self.chain.fresh:
            return
        for name, state in self.states.items():
            if self.status[name] == "down" and self.chain.down == "left_behind":
                self.status[name] = "left_behind"  # the side goes on without it
            if self.status[name] in OUT:
                continue
            healed = replace(
                state,
                wounds=max(0, state.wounds - rest.heal),
                stun=max(0, state.stun - rest.heal_stun),
            )
            self.states[name] = healed
            if rest.regain:
                self._regain(name, rest.regain)
            if self.status[name] == "down" and healed != state:
                rules = start_rules(self.chain.encounters[0].scenario.system)
                assert rules is not None  # a rest heals only under starting conditions
                down = rules.down_at(self.specs[name], self.states[name])
                self.status[name] = "down" if down else "up"

    def _regain(self, name: str, amount: int) -> None:
        state = self.states[name]
        self.states[name] = replace(state, spent=max(0, state.spent - amount))


def _status(row: dict[str, Any]) -> str:
    """up (a fighter that fled got away), down or dead, from a fighter's row of a battle."""
    if row["status"] == "dead":
        return "dead"
    return "up" if row["standing"] or row["status"] == "fled" else "down"


def run_chain(chain: ChainSpec, root_seed: int, index: int, trace: bool = False) -> ChainRun:
    """Run ``index`` of ``chain`` under ``root_seed``: its encounters in order until the side
    fails one (``stop: side_down``) or the last."""
    seed = chain_seed(root_seed, index)
    run = _Run(chain)
    won: list[bool] = []
    casualties: list[tuple[int, int, bool, bool]] = []
    fights: list[Fight] | None = [] if trace else None
    ended, reason, turns = None, "completed", 0
    for k, encounter in enumerate(chain.encounters):
        if k:
            run.rest(chain.rests[k - 1])
        starts = run.starts(encounter)
        result = run_battle(encounter.scenario, seed, k, trace=trace, starts=starts)
        turns += int(result.turns)
        if fights is not None:
            fights.append(Fight(k, dict(starts or {}), result))
        won.append(result.winner == chain.side)
        casualties += run.fought(k, encounter, result, won[-1])
        if not won[-1]:
            if ended is None:
                ended = k
                reason = f"{'draw' if result.winner is None else 'lost'}: {encounter.name}"
            if chain.stop == "side_down":
                break
    roster = chain.roster
    return ChainRun(
        index=index,
        completed=len(won) == len(chain.encounters) and all(won),
        won=won,
        ended=ended,
        casualties=casualties,
        status=[run.status[name] for name in roster],
        left={roster.index(name): state for name, state in run.states.items()},
        fights=fights,
        side=chain.side,
        roster=roster,
        turns=turns,
        end_reason=reason,
    )
