"""Lost Souls percentile rolls with bonus and penalty dice ("Rolling the Bones").

The roll ("Bonus Dice and Penalty Dice", "Multiple Bonus/Penalty Dice", "Competing
Bonus/Penalty Dice"; ruling 17):

* Percentile dice are a tens die and a ones die, each showing 0-9. The roll is
  ``10 * tens + ones``, except that 00 reads as 100, the best roll.
* Bonus and penalty dice are extra d10s. They cancel one for one; the net number is at most 5
  either way. Only one kind is ever rolled.
* A bonus die replaces the tens die when that *raises the roll*; a penalty die replaces it when
  that *lowers the roll*. The comparison is between resulting roll values, not digits: with the
  ones die on 0, a tens 0 reads as 100, so a bonus 0 raises 90 to 100, a bonus 9 never lowers
  00, and a penalty 1 lowers 00 to 10. With several bonus dice the one giving the best roll is
  compared; with several penalty dice, the one giving the worst. The ones die is never replaced.

So the kept roll is the best (bonus) or worst (penalty) of ``1 + n`` candidates that share the
ones die: ``exact_roll`` uses that to give the distribution in closed form.

Faces: this module's dice show 0-9. ``roll`` takes faces from ``draw(10, k)``, which gives
1..10 like every other ``draw`` in combatsim, and reads a 10 as 0.

The Action Results Table (ruling 18) is data: ``combatsim/data/action_results_table.yaml``
gives the ten tier names, the columns and each tier's lowest roll per column. The shipped
table is an approximation, not the book's; a scenario names a replacement file with the
Lost Souls option ``action_table`` (read by ``combatsim.rules.lost_souls.table``).

In combat ("Cooperative Rolls", "Combat", "Karma and Bonus Dice"; ruling 19): an
assistant's Good or better gives the lead a bonus die, Inferior or worse a penalty die
(``cooperative_dice``; the lead's tier exactly: ``exact_assisted_tier``); a called shot takes
penalty dice and adds 1 to the damage multiplier per die (``called_shot_multiplier``); 2 Karma
buy a bonus die, at most 3 (``karma_bonus_dice``). Every source's dice are added up, then
capped at 5 either way (``cap_net_dice``).
"""

from __future__ import annotations

import functools
import sys
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from importlib import resources
from typing import TYPE_CHECKING, NoReturn, TypeGuard

import yaml

from ..errors import ScenarioError, UsageError
from .exact import Dist

if TYPE_CHECKING:
    import numpy as np

FaceRanks = tuple[tuple[int, ...], ...]  # ActionTable.face_ranks: [ones face][tens face] -> rank

MAX_NET_DICE = 5  # "Multiple Bonus/Penalty Dice"; ruling 17
KARMA_PER_BONUS_DIE = 2  # "Karma and Bonus Dice"; ruling 19
MAX_KARMA_BONUS_DICE = 3
N_TIERS = 10  # ruling 18: five failures, then five successes
FIRST_SUCCESS_RANK = 5
DEFAULT_TABLE_FILE = "action_results_table.yaml"

_NET_ALLOWED = (
    f"an integer from -{MAX_NET_DICE} to {MAX_NET_DICE} "
    "(bonus minus penalty dice, after they cancel one for one)"
)


# --- the roll ------------------------------------------------------------------------------------


def read_percentile(tens: int, ones: int) -> int:
    """The d% roll shown by a tens and a ones face (0-9 each): 00 reads as 100 (ruling 17)."""
    return 100 if tens == 0 and ones == 0 else 10 * tens + ones


def net_dice(net: int = 0, *, bonus: int = 0, penalty: int = 0) -> int:
    """Net bonus dice (negative: penalty dice) from all sources; they cancel one for one.

    ``net``, ``bonus`` and ``penalty`` add up (``net + bonus - penalty``), so a caller can pass a
    net count, separate counts, or both. The result must lie in -5..5 ("Multiple
    Bonus/Penalty Dice", "Competing Bonus/Penalty Dice"; ruling 17): 7 bonus and 3 penalty dice
    are 4 bonus dice, but 6 bonus dice are refused.
    """
    _check_int("net", net)
    _check_int("bonus", bonus, low=0)
    _check_int("penalty", penalty, low=0)
    total = net + bonus - penalty
    if not -MAX_NET_DICE <= total <= MAX_NET_DICE:
        if bonus == 0 and penalty == 0:
            argument = "net"
        elif net == 0:
            argument = "bonus - penalty"
        else:
            argument = "net + bonus - penalty"
        raise UsageError(argument, total, _NET_ALLOWED)
    return total


@dataclass(frozen=True)
class PercentileRoll:
    """One resolved roll: the faces shown, the tens face kept, and the roll (1..100)."""

    tens: int
    ones: int
    bonus: tuple[int, ...]
    penalty: tuple[int, ...]
    tens_used: int  # the tens die itself, or the bonus/penalty die that replaced it
    value: int

    @property
    def replaced(self) -> bool:
        """Whether a bonus or penalty die took the tens die's place."""
        return self.value != read_percentile(self.tens, self.ones)


def resolve(
    tens: int, ones: int, bonus: Sequence[int] = (), penalty: Sequence[int] = ()
) -> PercentileRoll:
    """Resolve a roll from the faces shown (0-9 each); the single source of the rule.

    The rules' example: ``resolve(6, 9, bonus=[8])`` is Perkins' 89 (a bonus 2 would leave 69);
    ``resolve(9, 9, penalty=[0])`` is Mandy's 09. Bonus and penalty dice must already have
    cancelled ("Competing Bonus/Penalty Dice"), so at most one list is non-empty, and
    it holds at most 5 dice (ruling 17).
    """
    bonus, penalty = tuple(bonus), tuple(penalty)
    given = (("tens", (tens,)), ("ones", (ones,)), ("bonus", bonus), ("penalty", penalty))
    for argument, faces in given:
        for face in faces:
            if not _is_int(face) or not 0 <= face <= 9:
                raise UsageError(argument, face, "a d10 face from 0 to 9")
    if bonus and penalty:
        raise UsageError(
            "bonus, penalty",
            (bonus, penalty),
            "dice of one kind only: bonus and penalty dice cancel one for one before the roll",
        )
    for argument, faces in (("bonus", bonus), ("penalty", penalty)):
        if len(faces) > MAX_NET_DICE:
            raise UsageError(f"{argument} dice", len(faces), f"at most {MAX_NET_DICE} dice")
    return _resolve(tens, ones, bonus, penalty)


def _resolve(
    tens: int, ones: int, bonus: tuple[int, ...], penalty: tuple[int, ...]
) -> PercentileRoll:
    """``resolve`` for faces already checked (one kind of extra dice, at most 5, 0-9 each)."""
    value, tens_used = read_percentile(tens, ones), tens
    # Ruling 17: compare the rolls each die would give, not the digits (00 is 100).
    if bonus:
        best = max(bonus, key=lambda d: read_percentile(d, ones))
        if read_percentile(best, ones) > value:
            value, tens_used = read_percentile(best, ones), best
    elif penalty:
        worst = min(penalty, key=lambda d: read_percentile(d, ones))
        if read_percentile(worst, ones) < value:
            value, tens_used = read_percentile(worst, ones), worst
    return PercentileRoll(tens, ones, bonus, penalty, tens_used, value)


def roll(
    draw: Callable[[int, int], Sequence[int]], net: int = 0, *, bonus: int = 0, penalty: int = 0
) -> PercentileRoll:
    """Roll with faces from ``draw(10, k)`` (faces 1..10; a 10 reads as 0), then ``resolve``.

    One call draws ``2 + |net dice|`` faces: the tens die, the ones die, then the bonus or
    penalty dice left after cancelling (see ``net_dice`` for ``net``/``bonus``/``penalty``).
    """
    plain = type(net) is type(bonus) is type(penalty) is int and bonus == penalty == 0
    if plain and -MAX_NET_DICE <= net <= MAX_NET_DICE:
        n = net  # the battle's call: a plain net count in range, nothing more to check
    else:
        n = net_dice(net, bonus=bonus, penalty=penalty)
    faces = list(draw(10, 2 + abs(n)))
    plain = all(type(f) is int for f in faces)  # the battle's draws: checked in one pass
    if (
        len(faces) != 2 + abs(n)
        or (not plain and any(not _is_int(f) for f in faces))
        or min(faces) < 1
        or max(faces) > 10
    ):
        raise ValueError(f"draw(10, {2 + abs(n)}) must give {2 + abs(n)} faces 1..10, got {faces}")
    faces = [0 if f == 10 else int(f) for f in faces]
    extra = tuple(faces[2:])
    return _resolve(faces[0], faces[1], extra if n > 0 else (), extra if n < 0 else ())


def roll_rank(take: Callable[[int], list[int]], net: int, grid: FaceRanks) -> int:
    """The tier rank of a battle's untraced roll: ``table.tier_of(roll(draw, net).value,
    column).rank``, with no record of the faces.

    ``take(k)`` gives the next ``k`` faces 1..10 as a list (a battle's
    ``roller.taker(1, 10)``, the same draws as ``draw(10, k)``: tens, ones, then the extra
    dice); ``net`` is already cancelled and capped (-5..5); ``grid`` is
    ``table.face_ranks(column)``. The kept roll is the best (bonus) or worst (penalty) of the
    rolls each tens die would give with the ones die (ruling 17), and a tier's rank never falls
    as the roll rises, so the kept roll's rank is the best (worst) of their ranks: the rank is
    read straight from the faces, with no roll value in between.
    """
    if net == 0:
        tens, ones = take(2)
        return grid[ones][tens]
    if net == 1 or net == -1:  # the commonest case, without a loop
        tens, ones, extra = take(3)
        row = grid[ones]
        a, b = row[tens], row[extra]
        return (a if a > b else b) if net > 0 else (a if a < b else b)
    faces = take(2 + (net if net > 0 else -net))
    row = grid[faces[1]]
    kept = row[faces[0]]
    if net > 0:
        for tens in faces[2:]:
            rank = row[tens]
            if rank > kept:
                kept = rank
    else:
        for tens in faces[2:]:
            rank = row[tens]
            if rank < kept:
                kept = rank
    return kept


# --- exact distributions -------------------------------------------------------------------------


def exact_roll(net: int = 0, *, bonus: int = 0, penalty: int = 0) -> Dist[int]:
    """Exact distribution of the roll (1..100) with the given bonus/penalty dice.

    Given the ones face, the tens die and the ``|n|`` extra dice are ``k = |n| + 1`` independent
    uniform picks among that ones face's ten possible rolls, and the kept roll is their best
    (bonus) or worst (penalty). The j-th lowest of the ten is the best of k picks with
    probability ``(j/10)^k - ((j-1)/10)^k``, and the worst with ``((11-j)/10)^k - ((10-j)/10)^k``.
    """
    return _exact_roll(net_dice(net, bonus=bonus, penalty=penalty))


@functools.cache
def _exact_roll(n: int) -> Dist[int]:
    k = abs(n) + 1
    pmf: dict[int, Fraction] = {}
    for ones in range(10):
        values = sorted(read_percentile(t, ones) for t in range(10))
        for j, value in enumerate(values, start=1):
            if n >= 0:
                p = Fraction(j, 10) ** k - Fraction(j - 1, 10) ** k
            else:
                p = Fraction(11 - j, 10) ** k - Fraction(10 - j, 10) ** k
            pmf[value] = p / 10
    return Dist(pmf)


def exact_tier(
    column: int | str,
    net: int = 0,
    *,
    bonus: int = 0,
    penalty: int = 0,
    table: ActionTable | None = None,
) -> Dist[Tier]:
    """Exact distribution of the Action Results Table tier (``Tier``) in ``column``."""
    t = _table(table)
    t.column(column)  # refuse an unknown column before any work
    return exact_roll(net, bonus=bonus, penalty=penalty).map(lambda r: t.tier(r, column))


# --- sampling ------------------------------------------------------------------------------------


def sample(
    rng: np.random.Generator, net: int, size: int, *, bonus: int = 0, penalty: int = 0
) -> np.ndarray:
    """Roll ``size`` independent rolls (values 1..100) with the given bonus/penalty dice.

    Vectorised: each row holds the tens die and the extra dice, all read against the row's ones
    die; the best (bonus) or worst (penalty) of the row's rolls is kept, as in ``resolve``.
    """
    import numpy as np  # only here: start-up (validate) needs no numpy

    n = net_dice(net, bonus=bonus, penalty=penalty)
    _check_int("size", size, low=0)
    tens_and_extra = rng.integers(0, 10, size=(size, 1 + abs(n)))
    ones = rng.integers(0, 10, size=(size, 1))
    values = np.where((tens_and_extra == 0) & (ones == 0), 100, 10 * tens_and_extra + ones)
    if n > 0:
        return values.max(axis=1)
    if n < 0:
        return values.min(axis=1)
    return values[:, 0]


# --- the Action Results Table (ruling 18) --------------------------------------------------------


@dataclass(frozen=True, order=True)
class Tier:
    """One Action Results Table result: its rank (0 = worst .. 9 = best) and name."""

    rank: int
    name: str

    @property
    def success(self) -> bool:
        """Ruling 18: the five lower tiers are failures, the five upper ones successes."""
        return self.rank >= FIRST_SUCCESS_RANK


@dataclass(frozen=True)
class Column:
    """One column of the table: its label and each tier's lowest roll (``None``: impossible)."""

    label: int | str
    thresholds: tuple[int | None, ...]


@dataclass(frozen=True)
class ActionTable:
    """A validated Action Results Table, built by ``table_from_data`` (``default_table``: the
    shipped one)."""

    tiers: tuple[Tier, ...]
    columns: tuple[Column, ...]
    note: str
    source: str = ""
    _ranks: dict[int | str, tuple[int, ...]] = field(init=False, repr=False, compare=False)
    _face_ranks: dict[int | str, FaceRanks] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        ranks: dict[int | str, tuple[int, ...]] = {}
        face_ranks: dict[int | str, FaceRanks] = {}
        for col in self.columns:
            by_roll = [-1] * 101  # index = roll; index 0 unused
            for rank, low in enumerate(col.thresholds):
                if low is not None:  # thresholds increase, so later tiers overwrite earlier
                    by_roll[low:] = [rank] * (101 - low)
            ranks[col.label] = tuple(by_roll)
            # faces 1..10, a 10 read as 0; index 0 unused
            face_ranks[col.label] = ((),) + tuple(
                (-1,) + tuple(by_roll[read_percentile(t % 10, o % 10)] for t in range(1, 11))
                for o in range(1, 11)
            )
        object.__setattr__(self, "_ranks", ranks)
        object.__setattr__(self, "_face_ranks", face_ranks)

    @property
    def column_labels(self) -> tuple[int | str, ...]:
        return tuple(c.label for c in self.columns)

    def column(self, label: int | str) -> Column:
        if not isinstance(label, bool):  # True == 1 must not pick column 1
            for c in self.columns:
                if c.label == label:
                    return c
        raise UsageError("column", label, "one of " + ", ".join(map(repr, self.column_labels)))

    def tier(self, roll: int, column: int | str) -> Tier:
        """The tier a roll (1..100, 00 = 100) gives in ``column``."""
        label = self.column(column).label
        if not _is_int(roll) or not 1 <= roll <= 100:
            raise UsageError("roll", roll, "an integer from 1 to 100 (00 is 100)")
        return self.tiers[self._ranks[label][roll]]

    def tier_of(self, roll: int, label: int | str) -> Tier:
        """``tier`` for a column label of this table and a roll ``resolve`` gave: no checks,
        for the battle's hot path (the labels are checked when the scenario loads)."""
        return self.tiers[self._ranks[label][roll]]

    def face_ranks(self, label: int | str) -> FaceRanks:
        """For a column label of this table: ``grid[ones][tens]`` is the rank of the tier the
        faces (1..10 as ``draw(10, k)`` gives them, a 10 read as 0) read in that column
        without bonus or penalty dice; ``roll_rank`` reads a battle's roll with it."""
        return self._face_ranks[label]

    def ranks(self, rolls: np.ndarray, column: int | str) -> np.ndarray:
        """Vectorised ``tier(...).rank`` for an array of rolls (1..100)."""
        import numpy as np  # only here: start-up (validate) needs no numpy

        label = self.column(column).label
        rolls = np.asarray(rolls)
        if rolls.size and (rolls.min() < 1 or rolls.max() > 100):
            raise UsageError("rolls", (int(rolls.min()), int(rolls.max())), "rolls from 1 to 100")
        return np.asarray(self._ranks[label])[rolls]

    def tier_named(self, name: str) -> Tier:
        for t in self.tiers:
            if t.name == name:
                return t
        raise UsageError("tier", name, "one of " + ", ".join(t.name for t in self.tiers))

    def as_tier(self, tier: Tier | str) -> Tier:
        """``tier`` itself if it belongs to this table, or the tier of that name."""
        if isinstance(tier, Tier):
            if tier not in self.tiers:
                raise UsageError("tier", tier, "a tier of this table")
            return tier
        return self.tier_named(tier)


def tier_for(roll: int, column: int | str, table: ActionTable | None = None) -> Tier:
    """The tier a roll gives in ``column`` of ``table`` (default: the shipped table)."""
    return _table(table).tier(roll, column)


def is_success(tier: Tier | str, table: ActionTable | None = None) -> bool:
    """Whether a tier is a success (ruling 18: Passable or better in the shipped names)."""
    if isinstance(tier, Tier):
        return tier.success
    return _table(table).tier_named(tier).success


# --- combat helpers (ruling 19) ------------------------------------------------------------------


def cooperative_dice(assistant_tier: Tier | str, table: ActionTable | None = None) -> int:
    """The lead's extra die from the assistant's result: +1 bonus, -1 penalty, or 0.

    "Cooperative Rolls"; ruling 19: Good or better gives a bonus die, Inferior or
    worse a penalty die. The tiers are compared by rank in ``table``.
    """
    t = _table(table)
    tier = t.as_tier(assistant_tier)
    if tier.rank >= t.tier_named("Good").rank:
        return 1
    if tier.rank <= t.tier_named("Inferior").rank:
        return -1
    return 0


def karma_bonus_dice(points_spent: int) -> int:
    """Bonus dice bought with Karma: one per 2 points, at most 3 ("Karma and Bonus Dice";
    ruling 19).

    An odd spend is refused rather than rounded down: a wasted Karma point is a tactic's bug.
    """
    _check_int("points_spent", points_spent)
    limit = KARMA_PER_BONUS_DIE * MAX_KARMA_BONUS_DICE
    if not 0 <= points_spent <= limit or points_spent % KARMA_PER_BONUS_DIE:
        raise UsageError(
            "points_spent",
            points_spent,
            f"an even number from 0 to {limit} ({KARMA_PER_BONUS_DIE} Karma per bonus die, "
            f"at most {MAX_KARMA_BONUS_DICE} dice)",
        )
    return points_spent // KARMA_PER_BONUS_DIE


def cap_net_dice(total: int) -> int:
    """Ruling 17: dice from every source, already cancelled one for one, are capped at 5 either
    way. A battle adds the assistant's die and Karma to the lead's dice before capping."""
    return max(-MAX_NET_DICE, min(MAX_NET_DICE, total))


def exact_cooperative_dice(
    column: int | str, net: int = 0, *, table: ActionTable | None = None
) -> Dist[int]:
    """Exact distribution of the die an assistant rolling in ``column`` with ``net`` dice gives
    the lead: ``cooperative_dice`` (+1, 0 or -1) of each of its tiers (ruling 19)."""
    t = _table(table)
    return exact_tier(column, net, table=t).map(lambda tier: cooperative_dice(tier, t))


def exact_assisted_tier(
    column: int | str,
    net: int,
    assist_column: int | str,
    assist_net: int = 0,
    *,
    table: ActionTable | None = None,
) -> Dist[Tier]:
    """Exact distribution of the lead's tier in ``column`` after an assisted roll.

    The assistant rolls first in ``assist_column`` with ``assist_net`` dice; its die
    (``exact_cooperative_dice``) joins the lead's ``net`` dice (-5..5, every other source
    already counted), and the sum is capped at 5 either way (``cap_net_dice``) before the
    lead's roll, as in a battle. So a lead at +5 gains nothing from a bonus die.
    """
    t = _table(table)
    t.column(column)  # refuse an unknown column before any work
    lead = net_dice(net)
    helper = exact_cooperative_dice(assist_column, assist_net, table=t)
    return helper.bind(lambda die: exact_tier(column, cap_net_dice(lead + die), table=t))


def sample_assisted(
    rng: np.random.Generator,
    column: int | str,
    net: int,
    assist_column: int | str,
    assist_net: int,
    size: int,
    *,
    table: ActionTable | None = None,
) -> tuple[np.ndarray, np.ndarray]:
    """Roll ``size`` assisted rolls; returns the assistant's die (+1, 0, -1) and the rank of the
    lead's tier for each.

    Vectorised from ``sample`` and ``ActionTable.ranks``, with the cooperative rule and the cap
    restated on arrays, so it checks ``exact_assisted_tier`` independently.
    """
    import numpy as np  # only here: start-up (validate) needs no numpy

    t = _table(table)
    lead = net_dice(net)
    helper = t.ranks(sample(rng, assist_net, size), assist_column)
    good, inferior = t.tier_named("Good").rank, t.tier_named("Inferior").rank
    die = np.where(helper >= good, 1, np.where(helper <= inferior, -1, 0))
    lead_net = np.clip(lead + die, -MAX_NET_DICE, MAX_NET_DICE)
    ranks = np.empty(size, dtype=np.int64)
    for n in np.unique(lead_net).tolist():
        rows = lead_net == n
        ranks[rows] = t.ranks(sample(rng, n, int(rows.sum())), column)
    return die, ranks


def called_shot_multiplier(base_multiplier: int, penalty_dice: int) -> int:
    """Damage multiplier of a called shot that took ``penalty_dice`` penalty dice.

    "Combat"; ruling 19: each penalty die taken adds 1 to the weapon's multiplier. The
    penalty dice go on the attack roll (``penalty=penalty_dice``), and the raised multiplier
    applies only if that attack succeeds.
    """
    _check_int("base_multiplier", base_multiplier, low=1)
    _check_int("penalty_dice", penalty_dice, low=0, high=MAX_NET_DICE)
    return base_multiplier + penalty_dice


# --- loading the table ---------------------------------------------------------------------------

_TOP_KEYS = ("note", "tiers", "columns")
_THRESHOLD_ALLOWED = "an integer from 1 to 100, or null for a tier this column cannot give"


@functools.cache
def default_table() -> ActionTable:
    """The shipped table, loaded once. It is the package's own data, so a plain YAML load
    will do; a user's table file is read by ``combatsim.rules.lost_souls.table.load_table``
    (the dice layer reads no user files)."""
    resource = resources.files("combatsim") / "data" / DEFAULT_TABLE_FILE
    return table_from_data(yaml.safe_load(resource.read_text(encoding="utf-8")), str(resource))


def table_from_data(
    data: object, file: str, line_of: Callable[[tuple], int | None] | None = None
) -> ActionTable:
    """Validate a table's parsed data; ``file`` names it in errors and ``line_of`` gives the
    line of a field path (the keys from the top), where the reader knows it.

    Bad data raises ``ScenarioError`` naming the file, the field path (``columns.4[2]``), the
    line, what was found and what is allowed. The format is described at the top of the
    shipped ``combatsim/data/action_results_table.yaml``.
    """
    return _Validator(file, line_of or (lambda keys: None)).table(data)


class _Validator:
    """Checks the parsed data field by field; raises on the first problem with its path."""

    def __init__(self, file: str, line_of: Callable[[tuple], int | None]):
        self.file, self.line_of = file, line_of

    def fail(self, parts: Sequence[tuple[str, object]], found: object, allowed: str) -> NoReturn:
        raise ScenarioError(self.file, _path_text(parts), found, allowed, line=self.line(parts))

    def line(self, parts: Sequence[tuple[str, object]]) -> int | None:
        """Line of the deepest field on ``parts`` that the file has (1-based)."""
        return self.line_of(tuple(key for _, key in parts))

    def table(self, data: object) -> ActionTable:
        keys = "one of: " + ", ".join(_TOP_KEYS)
        if not isinstance(data, dict):
            self.fail([], type(data).__name__, f"a mapping with the keys {', '.join(_TOP_KEYS)}")
        for key in data:
            if key not in _TOP_KEYS:
                self.fail([("key", key)], key, keys)
        for key in _TOP_KEYS:
            if key not in data:
                self.fail([("key", key)], "(missing)", f"a '{key}' entry")
        note = data["note"]
        if not isinstance(note, str) or not note.strip():
            self.fail([("key", "note")], note, "a non-empty text saying where the table is from")
        names = self.tiers(data["tiers"])
        columns = self.columns(data["columns"], len(names))
        tiers = tuple(Tier(rank, name) for rank, name in enumerate(names))
        return ActionTable(tiers, columns, note.strip(), self.file)

    def tiers(self, names: object) -> list[str]:
        at = [("key", "tiers")]
        if not isinstance(names, list) or len(names) != N_TIERS:
            found = f"{len(names)} tiers" if isinstance(names, list) else names
            self.fail(at, found, f"a list of {N_TIERS} tier names, worst first (ruling 18)")
        for i, name in enumerate(names):
            if not isinstance(name, str) or not name.strip():
                self.fail([*at, ("index", i)], name, "a tier name")
            if name in names[:i]:
                self.fail([*at, ("index", i)], name, "a name not used by an earlier tier")
        places = (
            ("Catastrophic", range(0, 1), "the first (worst) tier"),
            ("Inferior", range(0, FIRST_SUCCESS_RANK), "one of the five failures"),
            ("Good", range(FIRST_SUCCESS_RANK, N_TIERS), "one of the five successes"),
            ("Awesome", range(N_TIERS - 1, N_TIERS), "the last (best) tier"),
        )
        for name, ranks, where in places:  # the rules name these four (ruling 18)
            if name not in names or names.index(name) not in ranks:
                self.fail(at, names, f"'{name}' as {where}")
        return names

    def columns(self, columns: object, n_tiers: int) -> tuple[Column, ...]:
        at = [("key", "columns")]
        if not isinstance(columns, dict) or not columns:
            self.fail(at, columns, "a mapping from column label to the tiers' lowest rolls")
        result = []
        for label, thresholds in columns.items():
            here = [*at, ("key", label)]
            if not isinstance(label, int | str) or isinstance(label, bool):
                self.fail(here, label, "a column label: an integer or a text")
            if not isinstance(thresholds, list) or len(thresholds) != n_tiers:
                found = f"{len(thresholds)} numbers" if isinstance(thresholds, list) else thresholds
                self.fail(here, found, f"a list of {n_tiers} lowest rolls, one per tier")
            previous = None
            for i, low in enumerate(thresholds):
                if low is None:
                    continue
                if not _is_int(low) or not 1 <= low <= 100:
                    self.fail([*here, ("index", i)], low, _THRESHOLD_ALLOWED)
                if previous is None and low != 1:
                    self.fail(
                        [*here, ("index", i)],
                        low,
                        "1: the lowest tier this column can give starts at roll 1",
                    )
                if previous is not None and low <= previous:
                    self.fail(
                        [*here, ("index", i)],
                        low,
                        f"a roll above {previous}, the previous tier's lowest roll",
                    )
                previous = low
            if previous is None:
                self.fail(here, thresholds, "at least one tier, starting at roll 1")
            result.append(Column(label, tuple(thresholds)))
        return tuple(result)


def _path_text(parts: Iterable[tuple[str, object]]) -> str:
    text = ""
    for kind, key in parts:
        if kind == "index":
            text += f"[{key}]"
        else:
            text += f".{key}" if text else str(key)
    return text or "(top level)"


# --- small helpers -------------------------------------------------------------------------------


def _table(table: ActionTable | None) -> ActionTable:
    return default_table() if table is None else table


def _is_int(value: object) -> TypeGuard[int]:
    """An int or numpy integer, not a bool (typed as ``int``: a numpy integer compares alike)."""
    if type(value) is int:  # the common case, without the isinstance checks
        return True
    if isinstance(value, bool):
        return False
    np = sys.modules.get("numpy")  # a numpy integer exists only once numpy is loaded
    return isinstance(value, int) or (np is not None and isinstance(value, np.integer))


def _check_int(
    argument: str, value: object, low: int | None = None, high: int | None = None
) -> None:
    too_low = low is not None and _is_int(value) and value < low
    too_high = high is not None and _is_int(value) and value > high
    if not _is_int(value) or too_low or too_high:
        lo = "-inf" if low is None else str(low)
        hi = "inf" if high is None else str(high)
        raise UsageError(argument, value, f"an integer from {lo} to {hi}")
