"""What a set of battles of one scenario comes to, as integer counts: a ``Tally``.

Results are aggregated as they come in: a ``Tally`` holds integer counts only (wins, end
reasons, a histogram of battle lengths, fighters standing after each turn, a histogram of
damage taken, battles in which each side, group and combatant ended down or dead), so merging
tallies is exact and order-free, and memory does not grow with the number of battles.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from numbers import Integral
from typing import Any

from ..engine.records import BattleResult
from ..stats import describe_turn_counts, rate_with_interval


@dataclass
class Tally:
    """Everything a summary needs from a set of battles of one scenario, as integer counts.

    ``wins[side]``, ``draws`` (battles whose ``winner`` is None), ``end_reasons``;
    ``turns[t]``: battles that lasted ``t`` turns; ``standing[side][t]``: fighters of the side
    still able to act at the end of turn ``t`` (turn 0 is the start), summed over battles, the
    final state carried on to the turn limit; ``damage[side][b]``: combatants of the side that
    took ``b`` boxes of damage. ``standing`` and ``damage`` are None when the engine's
    combatant rows lack ``knocked_out_turn`` or ``damage_taken``.

    ``casualties[k]`` is ``[down, dead]`` for ``entries[k]`` (see ``casualty_entries``):
    battles in which at least one of the entry's fighters ended out of the fight (the row's
    ``standing`` is false: unconscious, dying, dead or fled) and in which at least one ended
    dead (``status`` "dead"). None when the rows lack ``standing`` or ``status``.

    ``attacks[(attacker, target, weapon, shots)]``: attacks the tactics made, summed over the
    battles (``BattleResult.attacks``: fighters and weapons by their places). None when a
    journal written before attacks were counted holds part of the battles.
    """

    sides: tuple[str, ...]
    fighters: tuple[int, ...]
    turn_limit: int
    battles: int = 0
    wins: dict[str, int] = field(default_factory=dict)
    draws: int = 0
    end_reasons: Counter = field(default_factory=Counter)
    turns: list[int] = field(default_factory=list)
    standing: dict[str, list[int]] | None = None
    damage: dict[str, list[int]] | None = None
    entries: tuple[CasualtyEntry, ...] = ()
    casualties: list[list[int]] | None = None
    attacks: Counter | None = field(default_factory=Counter)
    # ``_entries_of``'s index of ``entries`` by member, with the entries it was made for
    _members: tuple[tuple, dict] | None = field(default=None, init=False, repr=False, compare=False)

    @classmethod
    def empty(cls, scenario) -> Tally:
        sides = tuple(side.name for side in scenario.sides)
        entries = casualty_entries(scenario)
        return cls(
            sides=sides,
            fighters=tuple(len(side.fighters) for side in scenario.sides),
            turn_limit=int(scenario.turn_limit),
            wins=dict.fromkeys(sides, 0),
            standing={side: [0] * (int(scenario.turn_limit) + 1) for side in sides},
            damage={side: [] for side in sides},
            entries=entries,
            casualties=[[0, 0] for _ in entries],
        )

    @classmethod
    def of(cls, scenario, results: Iterable[BattleResult]) -> Tally:
        tally = cls.empty(scenario)
        for result in results:
            tally.add(result)
        return tally

    def add(self, result: BattleResult) -> None:
        """Count one battle. A run counts every battle here, so each distribution is added in
        one pass over the rows (a row at a time cost a 4v4 run about 20 us a battle)."""
        self.battles += 1
        winner = result.winner
        if winner is None:
            self.draws += 1
        elif winner in self.wins:
            self.wins[winner] += 1
        self.end_reasons[str(result.end_reason)] += 1
        _bump(self.turns, int(result.turns))
        rows = result.combatants
        if self.standing is not None and not _add_standing(self.standing, rows):
            self.standing = None
        if self.damage is not None and not _add_damage(self.damage, rows):
            self.damage = None
        if self.casualties is not None and not self._add_casualties(self.casualties, rows):
            self.casualties = None
        attacks = self.attacks
        if attacks is not None:  # as ``Counter.update`` adds a mapping, without its checks
            get = attacks.get
            for key, n in result.attacks.items():
                attacks[key] = n + get(key, 0)

    def __getstate__(self) -> dict[str, Any]:
        """Pickled without ``_entries_of``'s index: a worker's chunks carry their tallies."""
        return {**self.__dict__, "_members": None}

    def _add_casualties(self, casualties: list[list[int]], rows: list[dict[str, Any]]) -> bool:
        """Count the entries with a member down, and of those the ones with a member dead;
        False (nothing counted) when a row lacks ``standing`` or ``status``."""
        if not rows:
            return False
        index = self._entries_of()
        down: set[int] = set()
        dead: set[int] = set()
        for row in rows:
            if "standing" not in row or "status" not in row:
                return False
            if not row["standing"]:
                down.update(index.get((row["side"], row["name"]), ()))
            if row["status"] == "dead":
                dead.update(index.get((row["side"], row["name"]), ()))
        for k in down:
            counts = casualties[k]
            counts[0] += 1
            if k in dead:
                counts[1] += 1
        return True

    def _entries_of(self) -> dict[tuple[str, str], tuple[int, ...]]:
        """``(side, name)`` -> the places in ``entries`` of the entries it is a member of,
        made once per tally's entries."""
        kept = self._members
        if kept is None or kept[0] is not self.entries:
            index: dict[tuple[str, str], tuple[int, ...]] = {}
            for k, entry in enumerate(self.entries):
                for member in entry.members:
                    index[member] = (*index.get(member, ()), k)
            kept = self._members = (self.entries, index)
        return kept[1]

    def merge(self, other: Tally) -> Tally:
        """Add ``other``'s counts to this tally (in place) and return it."""
        known = self.entries and other.entries  # a tally from an old journal has none
        if (other.sides, other.fighters) != (self.sides, self.fighters) or (
            known and other.entries != self.entries
        ):
            raise ValueError("tallies of different scenarios cannot be merged")
        self.battles += other.battles
        for side in self.sides:
            self.wins[side] += other.wins[side]
        self.draws += other.draws
        self.end_reasons.update(other.end_reasons)
        _add_into(self.turns, other.turns)
        if other.battles:  # a tally lacking a distribution makes the merged one lack it too
            if self.standing is None or other.standing is None:
                self.standing = None
            else:
                for side in self.sides:
                    _add_into(self.standing[side], other.standing[side])
            if self.damage is None or other.damage is None:
                self.damage = None
            else:
                for side in self.sides:
                    _add_into(self.damage[side], other.damage[side])
            if self.casualties is None or other.casualties is None or not known:
                self.casualties = None
            else:
                for mine, theirs in zip(self.casualties, other.casualties, strict=True):
                    mine[0] += theirs[0]
                    mine[1] += theirs[1]
            if self.attacks is None or other.attacks is None:
                self.attacks = None
            else:
                self.attacks.update(other.attacks)
        return self

    def to_json(self) -> dict[str, Any]:
        return {
            "sides": list(self.sides),
            "fighters": list(self.fighters),
            "turn_limit": self.turn_limit,
            "battles": self.battles,
            "wins": dict(self.wins),
            "draws": self.draws,
            "end_reasons": dict(sorted(self.end_reasons.items())),
            "turns": list(self.turns),
            "standing": self.standing,
            "damage": self.damage,
            "entries": [entry.to_json() for entry in self.entries],
            "casualties": self.casualties,
            "attacks": None
            if self.attacks is None
            else [[*key, n] for key, n in sorted(self.attacks.items())],
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Tally:
        # A journal written before casualties (or attacks) were counted lacks their keys:
        # they are unknown.
        attacks = data.get("attacks")
        return cls(
            sides=tuple(data["sides"]),
            fighters=tuple(data["fighters"]),
            turn_limit=data["turn_limit"],
            battles=data["battles"],
            wins=dict(data["wins"]),
            draws=data["draws"],
            end_reasons=Counter(data["end_reasons"]),
            turns=list(data["turns"]),
            standing=data["standing"],
            damage=data["damage"],
            entries=tuple(CasualtyEntry.from_json(e) for e in data.get("entries", ())),
            casualties=data.get("casualties"),
            attacks=None if attacks is None else Counter({tuple(a[:4]): a[4] for a in attacks}),
        )

    def outcomes(self) -> dict[str, Any]:
        """The summary's statistics: ``battles_completed``, ``sides``, ``draws``, ``turns``,
        ``end_reasons``, ``casualties`` and ``distributions`` (see ``summarize``)."""
        n = self.battles
        sides = {}
        for side in self.sides:
            rate, interval = rate_with_interval(self.wins[side], n)
            sides[side] = {"wins": self.wins[side], "win_rate": rate, "ci95": interval}
        draw_rate, draw_interval = rate_with_interval(self.draws, n)
        standing = None
        if self.standing is not None:
            standing = {
                side: {"fighters": count, "by_turn": list(self.standing[side])}
                for side, count in zip(self.sides, self.fighters, strict=True)
            }
        return {
            "battles_completed": n,
            "side_order": list(self.sides),  # JSON readers sort "sides"; this keeps the order
            "sides": sides,
            "draws": {"count": self.draws, "rate": draw_rate, "ci95": draw_interval},
            "turns": describe_turn_counts(self.turns),
            "end_reasons": dict(sorted(self.end_reasons.items())),
            "casualties": self.casualty_rates(),
            "distributions": {
                "turns": list(self.turns),
                "standing": standing,
                "damage_taken": None if self.damage is None else dict(self.damage),
            },
        }

    def casualty_rates(self) -> list[dict[str, Any]] | None:
        """Per entry: ``side``, ``who``, ``level``, ``battles``, ``down`` and ``dead`` (battle
        counts), ``down_rate``, ``down_ci95``, ``dead_rate``, ``dead_ci95`` (95% Wilson)."""
        if self.casualties is None:
            return None
        n = self.battles
        out = []
        for entry, (down, dead) in zip(self.entries, self.casualties, strict=True):
            down_rate, down_ci = rate_with_interval(down, n)
            dead_rate, dead_ci = rate_with_interval(dead, n)
            out.append(
                {
                    "side": entry.side,
                    "who": entry.who,
                    "level": entry.level,
                    "battles": n,
                    "down": down,
                    "down_rate": down_rate,
                    "down_ci95": down_ci,
                    "dead": dead,
                    "dead_rate": dead_rate,
                    "dead_ci95": dead_ci,
                }
            )
        return out


@dataclass(frozen=True)
class CasualtyEntry:
    """Whose casualties a summary reports: a side, a combatant (or a group of copies made by
    one member entry with ``count``), or one copy. ``members``: the ``(side, name)`` of its
    fighters; it is down in a battle when at least one of them ends down."""

    side: str
    who: str
    level: str  # "side", "combatant" or "copy"
    members: frozenset[tuple[str, str]]

    def to_json(self) -> list:
        return [self.side, self.who, self.level, sorted(list(m) for m in self.members)]

    @classmethod
    def from_json(cls, data: list) -> CasualtyEntry:
        side, who, level, members = data
        return cls(side, who, level, frozenset((s, n) for s, n in members))


def casualty_entries(scenario) -> tuple[CasualtyEntry, ...]:
    """Each side, then its combatants in scenario order: a member with several copies is one
    entry named as the member (``Guard``) followed by one per copy (``Guard 1``, ``Guard 2``,
    the names in ``combatants.csv``). Fighters of a side sharing a name are one entry."""
    entries: dict[tuple[str, str, str], CasualtyEntry] = {}

    def add(side: str, who: str, level: str, members) -> None:
        old = entries.get((side, who, level))
        members = frozenset(members) | (old.members if old is not None else frozenset())
        entries[(side, who, level)] = CasualtyEntry(side, who, level, members)

    for side in scenario.sides:
        everyone = [(side.name, f.name) for f in side.fighters]
        add(side.name, side.name, "side", everyone)
        for fighter in side.fighters:
            group = getattr(fighter, "group", None)
            if group is not None:
                copies = [(side.name, f.name) for f in side.fighters if f.group == group]
                if (side.name, group, "combatant") not in entries:
                    add(side.name, group, "combatant", copies)
                add(side.name, fighter.name, "copy", [(side.name, fighter.name)])
            else:
                add(side.name, fighter.name, "combatant", [(side.name, fighter.name)])
    return tuple(entries.values())


def _add_standing(standing: dict[str, list[int]], rows: list[dict[str, Any]]) -> bool:
    """Each row's fighter counted standing at the end of every turn before it was knocked out
    (to the end of its side's curve if never); rows of a side knocked out in the same turn
    are added together. False (nothing counted) when a row lacks ``knocked_out_turn``."""
    if not rows:
        return False
    ends: dict[tuple[str, Any], int] = {}
    for row in rows:
        if "knocked_out_turn" not in row:
            return False
        key = (row["side"], row["knocked_out_turn"])
        ends[key] = ends.get(key, 0) + 1
    for (side, out), n in ends.items():
        curve = standing.get(side)
        if curve is not None:
            for t in range(len(curve) if out is None else min(int(out), len(curve))):
                curve[t] += n
    return True


def _add_damage(damage: dict[str, list[int]], rows: list[dict[str, Any]]) -> bool:
    """Each row's boxes of damage taken counted in its side's histogram; False (nothing
    counted) when a row's ``damage_taken`` is not an integer."""
    if not rows:
        return False
    for row in rows:
        taken = row.get("damage_taken")
        if type(taken) is not int and not isinstance(taken, Integral):
            return False
    for row in rows:
        histogram = damage.get(row["side"])
        if histogram is not None:
            _bump(histogram, int(row["damage_taken"]))
    return True


def _bump(histogram: list[int], value: int) -> None:
    if value >= len(histogram):
        histogram.extend([0] * (value + 1 - len(histogram)))
    histogram[value] += 1


def _add_into(target: list[int], other: Sequence[int]) -> None:
    if len(other) > len(target):
        target.extend([0] * (len(other) - len(target)))
    for i, count in enumerate(other):
        target[i] += count
