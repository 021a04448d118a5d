"""What many runs of one chain come to, as integer counts: a ``ChainTally``.

The run layer treats it as it treats a battle's ``Tally``: added to run by run in the worker,
merged chunk by chunk, written to the journal as JSON for ``--resume``; merging is exact and
order-free, so the numbers never depend on workers, chunks or backend.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from ..run.study import check_counts
from ..run.tally import Tally, casualty_entries
from ..stats import half_width, rate_with_interval

if TYPE_CHECKING:
    from .model import ChainSpec
    from .runner import ChainRun

RESOURCES = ("wounds", "stun", "spent", "grenades")
STATUSES = ("up", "down", "dead", "left_behind")  # how a member ends a run


@dataclass
class ChainTally:
    """Counts over runs of a chain (``battles``: runs, as the run layer names them).

    Per encounter ``k``: ``reached[k]``, ``won[k]``, ``ended[k]`` (runs whose first encounter
    not won is ``k``); ``fought[k][m]``, ``down[k][m]``, ``dead[k][m]``: runs in which roster
    member ``m`` entered encounter ``k`` standing, and ended it out of the fight (down
    counts the dead too) or dead. Per member: ``end[m][s]``, runs it ended in ``STATUSES[s]``;
    ``resources[r][m]``: a histogram of resource ``r`` at the run's end (members that fought);
    ``rounds[m][w]``: of the rounds left in weapon ``w``; ``full[m]``: runs it ended with
    every magazine full.

    ``runs``: the runs counted as a study counts battles (``Tally``): the side "wins" a run it
    completes, a run that ends at a drawn fight is a draw, ``turns`` are the combat turns of
    the whole run, and the casualties are how the carried fighters end the run. It is what
    ``outcomes`` gives, so sweeps, comparisons, balance searches, explain and design read a
    chain as they read a scenario.
    """

    encounters: tuple[str, ...]
    roster: tuple[str, ...]
    weapons: tuple[int, ...]
    battles: int = 0
    completed: int = 0
    reached: list[int] = field(default_factory=list)
    won: list[int] = field(default_factory=list)
    ended: list[int] = field(default_factory=list)
    fought: list[list[int]] = field(default_factory=list)
    down: list[list[int]] = field(default_factory=list)
    dead: list[list[int]] = field(default_factory=list)
    end: list[list[int]] = field(default_factory=list)
    resources: dict[str, list[list[int]]] = field(default_factory=dict)
    rounds: list[list[list[int]]] = field(default_factory=list)
    full: list[int] = field(default_factory=list)
    runs: Tally | None = None

    @classmethod
    def empty(cls, chain: ChainSpec) -> ChainTally:
        entries = casualty_entries(chain)
        runs = Tally(
            sides=(chain.side,),
            fighters=(len(chain.roster),),
            turn_limit=sum(int(e.scenario.turn_limit) for e in chain.encounters),
            wins={chain.side: 0},
            entries=entries,
            casualties=[[0, 0] for _ in entries],
            attacks=None,
        )
        names = tuple(e.name for e in chain.encounters)
        return cls.blank(names, chain.roster, chain.weapons, runs)

    @classmethod
    def blank(
        cls, encounters: tuple[str, ...], roster: tuple[str, ...], weapons, runs: Tally | None
    ) -> ChainTally:
        n, m = len(encounters), len(roster)
        return cls(
            encounters,
            roster,
            tuple(weapons),
            runs=runs,
            reached=[0] * n,
            won=[0] * n,
            ended=[0] * n,
            fought=[[0] * m for _ in range(n)],
            down=[[0] * m for _ in range(n)],
            dead=[[0] * m for _ in range(n)],
            end=[[0] * len(STATUSES) for _ in range(m)],
            resources={r: [[] for _ in range(m)] for r in RESOURCES},
            rounds=[[[] for _ in range(w)] for w in weapons],
            full=[0] * m,
        )

    # what the run layer compares to know a journal's tally is one of this chain, and pairs
    # (a comparison's differences are per side: the carried side's chance to complete)
    @property
    def sides(self) -> tuple[str, ...]:
        return self.runs.sides if self.runs is not None else ()

    @property
    def fighters(self) -> tuple[int, ...]:
        return (len(self.encounters), len(self.roster), *self.weapons)

    def outcomes(self) -> dict[str, Any]:
        """The summary's statistics, as a scenario's tally gives them (see ``runs``), and the
        chain's own answers under ``chain`` (``combatsim.chains.summary.outcomes``)."""
        assert self.runs is not None
        return {**self.runs.outcomes(), "chain": self.answers()}

    def answers(self) -> dict[str, Any]:
        """The chain's own answers (``answers``): completion, per encounter, per member."""
        return answers(self)

    def add(self, result: ChainRun) -> None:
        self.battles += 1
        if self.runs is not None:
            self.runs.add(result)  # type: ignore[arg-type]
        self.completed += bool(result.completed)
        for k, won in enumerate(result.won):
            self.reached[k] += 1
            self.won[k] += bool(won)
        if result.ended is not None:
            self.ended[result.ended] += 1
        for k, m, down, dead in result.casualties:
            self.fought[k][m] += 1
            self.down[k][m] += bool(down)
            self.dead[k][m] += bool(dead)
        for m, status in enumerate(result.status):
            self.end[m][STATUSES.index(status)] += 1
        for m, state in result.left.items():
            for r in RESOURCES:
                value = getattr(state, r)
                if value is not None:
                    _bump(self.resources[r][m], int(value))
            self.full[m] += state.rounds is None
            for w, rounds in enumerate(state.rounds or ()):
                if w < len(self.rounds[m]) and rounds is not None:
                    _bump(self.rounds[m][w], int(rounds))

    def merge(self, other: ChainTally) -> ChainTally:
        if (other.encounters, other.roster, other.weapons) != (
            self.encounters,
            self.roster,
            self.weapons,
        ):
            raise ValueError("tallies of different chains cannot be merged")
        self.battles += other.battles
        self.completed += other.completed
        if self.runs is not None and other.runs is not None:
            self.runs.merge(other.runs)
        for mine, theirs in (
            (self.reached, other.reached),
            (self.won, other.won),
            (self.ended, other.ended),
            (self.full, other.full),
        ):
            _add_into(mine, theirs)
        for mine2, theirs2 in (
            (self.fought, other.fought),
            (self.down, other.down),
            (self.dead, other.dead),
            (self.end, other.end),
        ):
            for a, b in zip(mine2, theirs2, strict=True):
                _add_into(a, b)
        for r in RESOURCES:
            for a, b in zip(self.resources[r], other.resources[r], strict=True):
                _add_into(a, b)
        for mine3, theirs3 in zip(self.rounds, other.rounds, strict=True):
            for a, b in zip(mine3, theirs3, strict=True):
                _add_into(a, b)
        return self

    def precision(self) -> float:
        """How far the interval of the chance to complete the run reaches (``--precision``)."""
        rate, interval = rate_with_interval(self.completed, self.battles)
        return half_width(rate, interval)

    # --- the journal -----------------------------------------------------------------------

    def to_json(self) -> dict[str, Any]:
        return {
            "kind": "chain",
            "encounters": list(self.encounters),
            "roster": list(self.roster),
            "weapons": list(self.weapons),
            "battles": self.battles,
            "completed": self.completed,
            "reached": self.reached,
            "won": self.won,
            "ended": self.ended,
            "fought": self.fought,
            "down": self.down,
            "dead": self.dead,
            "end": self.end,
            "resources": self.resources,
            "rounds": self.rounds,
            "full": self.full,
            "runs": None if self.runs is None else self.runs.to_json(),
        }

    @staticmethod
    def check_json(data: Any) -> None:
        """A journal's chain tally holds counts only (else ``ValueError``)."""
        if not isinstance(data, dict) or data.get("kind") != "chain":
            raise ValueError("not a chain's tally")
        keys = ("battles", "completed", "reached", "won", "ended", "fought", "down", "dead", "full")
        check_counts([data[k] for k in (*keys, "end", "resources", "rounds", "weapons")])
        runs = data["runs"]
        if not isinstance(runs, dict):
            raise ValueError("a chain tally without its runs")
        check_counts([runs[k] for k in ("battles", "draws", "wins", "end_reasons", "turns")])

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> ChainTally:
        runs = Tally.from_json(data["runs"])
        blank = cls.blank(tuple(data["encounters"]), tuple(data["roster"]), data["weapons"], runs)
        counts = ("reached", "won", "ended", "fought", "down", "dead", "end", "resources", "full")
        read = cls(
            blank.encounters,
            blank.roster,
            blank.weapons,
            battles=data["battles"],
            completed=data["completed"],
            rounds=data["rounds"],
            runs=runs,
            **{k: data[k] for k in counts},
        )
        return _shaped(blank, read)


def _shaped(blank: ChainTally, read: ChainTally) -> ChainTally:
    """``read``, checked to have the shape of ``blank`` (a damaged journal line: ValueError)."""
    for name in ("reached", "won", "ended", "fought", "down", "dead", "end", "full"):
        if _shape(getattr(read, name)) != _shape(getattr(blank, name)):
            raise ValueError(f"a chain tally whose {name} has another shape")
    if set(read.resources) != set(RESOURCES) or any(
        len(read.resources[r]) != len(blank.roster) for r in RESOURCES
    ):
        raise ValueError("a chain tally whose resources have another shape")
    if [len(w) for w in read.rounds] != [len(w) for w in blank.rounds]:
        raise ValueError("a chain tally whose rounds have another shape")
    return read


def _shape(value: Any) -> Any:
    return [_shape(v) for v in value] if isinstance(value, list) else None


def _bump(histogram: list[int], value: int) -> None:
    if value >= len(histogram):
        histogram.extend([0] * (value + 1 - len(histogram)))
    histogram[max(value, 0)] += 1


def _add_into(target: list[int], other: list[int]) -> None:
    if len(other) > len(target):
        target.extend([0] * (len(other) - len(target)))
    for i, count in enumerate(other):
        target[i] += count


def _rate(count: int, n: int) -> dict[str, Any]:
    rate, interval = rate_with_interval(count, n)
    return {"count": count, "of": n, "rate": rate, "ci95": interval}


def answers(tally: ChainTally) -> dict[str, Any]:
    """The chain's own answers of one tally: completion, per encounter, per member."""
    n = tally.battles
    encounters = []
    worst = max(range(len(tally.ended)), key=lambda k: tally.ended[k]) if n else None
    for k, name in enumerate(tally.encounters):
        reached = tally.reached[k]
        members = [
            {
                "member": member,
                "fought": tally.fought[k][m],
                "down": _rate(tally.down[k][m], tally.fought[k][m]),
                "dead": _rate(tally.dead[k][m], tally.fought[k][m]),
            }
            for m, member in enumerate(tally.roster)
            if tally.fought[k][m]
        ]
        encounters.append(
            {
                "encounter": name,
                "reach": _rate(reached, n),
                "win_once_reached": _rate(tally.won[k], reached),
                "ends_run": _rate(tally.ended[k], n),
                "ends_most_runs": k == worst and tally.ended[k] > 0,
                "casualties": members,
            }
        )
    members = []
    for m, member in enumerate(tally.roster):
        end = {status: _rate(tally.end[m][s], n) for s, status in enumerate(STATUSES)}
        left: dict[str, Any] = {r: list(tally.resources[r][m]) for r in RESOURCES}
        left["rounds"] = [list(w) for w in tally.rounds[m]]
        left["magazines_full"] = tally.full[m]
        members.append({"member": member, "end": end, "left": left})
    return {
        "runs_completed": n,
        "completes": _rate(tally.completed, n),
        "encounters": encounters,
        "members": members,
    }
