"""The field of one battle: who stands where, who is near whom, and the cover points.

The battle owns one ``Field`` and tells it of every move and of every fighter that leaves the
fight or rejoins it (``moved``, ``roster_changed``); the field counts those changes
(``layout``) and keeps what depends only on positions with the layout it was worked out at:
each fighter's standing enemies, their meters, the nearest and how many stand in melee reach
(``enemies_in_view``, the memo on ``Fighter.enemies_seen``), and its free cover point. The
tactics and the rule system ask it through the battle (``BattleView``). From ``SHARED_LISTS``
fighters it keeps a grid of the standing fighters by cell (``_Grid``): an action then looks at
what is near it, not at every fighter of the battle.
"""

from __future__ import annotations

import bisect
import heapq
import math
import operator
from collections.abc import Iterable
from types import FunctionType
from typing import Any, cast

import numpy as np
from mypy_extensions import mypyc_attr

from ..rules.situation import NOT_SEEN, EnemiesInView, Situation
from .fighter import Fighter, Point

_distance = math.dist
# A fighter's first ``EnemiesInView`` or ``Situation`` of a battle, its fields set at once by
# the caller: ``__init__`` would set them twice (a battle makes one of each per fighter)
_blank = object.__new__
INTERCEPT_DISTANCE = 1.0  # Interception: a move within a meter of an opponent
CLOSE = 1e-9  # relative margin between numpy's squared distances and math.dist's, squared


def _compiled() -> bool:
    """Whether this module runs compiled (mypyc: its functions are no Python functions)."""
    return not isinstance(_compiled, FunctionType)


# fighters from which a battle keeps a grid (``_Grid``): fewer scan faster. Compiled, a look
# in the grid's cells costs less against a pass over every fighter: in bench_growth's
# battles the compiled grid was as fast as the pass at 32 fighters, faster at 48 (12.0 us an
# action against 14.1) and 64 (11.9 against 15.7); in the Python source, slower at 64.
SHARED_LISTS = 48 if _compiled() else 96


class Field:
    """Who stands where in one battle and who is near whom: the memos of each fighter's
    standing enemies and free cover point, kept with the ``layout`` they were worked out at,
    and in a big fight the shared enemy lists and the grid. The battle tells it of every
    change (``moved``, ``roster_changed``, ``renew``)."""

    def __init__(self, environment: Any, sides: list[str], fighters: list[Fighter]):
        """``fighters``: the battle's own list (a fighter ``renew``ed is put in it there)."""
        self.fighters = fighters
        self.melee_range: float = environment.melee_range
        self.cover_points = [(p.position, p) for p in environment.cover_points]
        self.cover_claims: dict[int, Fighter] = {}  # cover point (index) -> who walks to it
        self.claims = 0  # counts the claims so far
        self.layout = 0  # counts the moves and departures from the fight so far
        self.roster = 0  # counts the departures from (and returns to) the fight so far
        self.big = len(fighters) >= SHARED_LISTS  # lists a side's standing enemies once for all
        self.enemy_lists: dict[str, _Standing] = {}  # side -> ``_standing_enemies_of``
        # side -> its standing (allies, foes) (``_sides_of``, small fights)
        self.standing_sides: dict[str, tuple[list[Fighter], list[Fighter]]] = {}
        self.standing_roster = 0  # the ``roster`` the lists in ``standing_sides`` were made at
        # the standing fighters by cell (big fights): what an action looks at near it
        self.grid = _Grid(sides, fighters, self.cover_points) if self.big else None

    def moved(self, f: Fighter) -> None:
        """``f`` stands somewhere else now: the memos made before are stale (``layout``), and
        a big fight's shared enemy lists and grid follow."""
        self.layout += 1
        grid = self.grid
        if grid is not None:
            at = f.position
            index = f.index
            for enemies in self.enemy_lists.values():
                kept = enemies.kept
                if kept is not None:
                    slot = kept[2].get(index)
                    if slot is not None:
                        kept[1][slot] = at
                        kept[3][slot] = complex(at[0], at[1])
            grid.place(f)

    def roster_changed(self, f: Fighter) -> None:
        """``f`` left (or rejoined) the fight: the memos made before are stale (``layout``,
        ``roster``), and a big fight's grid and shared enemy lists follow. One who left
        holds no cover point any more (``release_claim``)."""
        self.layout += 1
        self.roster += 1
        if not f.can_act:
            self.release_claim(f)
        grid = self.grid
        if grid is not None:
            grid.place(f)
            for side, enemies in self.enemy_lists.items():
                if side == f.side:
                    continue
                enemies.kept = None  # its arrays are made again when next needed
                if f.can_act:
                    bisect.insort(enemies, f, key=_index)
                else:
                    enemies.remove(f)

    def renew(self, old: Fighter, new: Fighter) -> None:
        """``new`` stands in for ``old`` (``Battle.renew``): the memos that may hold ``old``
        are made stale, and a big fight's enemy lists made again when next needed."""
        grid = self.grid
        if grid is not None:
            grid.take_out(old)
            grid.place(new)
            for enemies in self.enemy_lists.values():
                enemies.current = False
            self.enemy_lists.clear()
        self.layout += 1
        self.roster += 1

    def sides_standing(self) -> set[str]:
        """The sides with someone able to act (a big fight's grid counts them side by side)."""
        grid = self.grid
        if grid is not None:
            return {side for side, n in grid.standing.items() if n}
        return {f.side for f in self.fighters if f.can_act}

    def clear(self) -> None:
        """Drop what a finished battle's field holds of its fighters (``Battle._tear_down``)."""
        for f in self.fighters:
            f.enemies_seen = NOT_SEEN
            f.situation = None
        self.enemy_lists.clear()
        self.cover_claims.clear()

    def standing_enemies(self, me: Fighter) -> list[Fighter]:
        return list(self._sides_of(me.side)[1])  # a copy: the shared list stays as it is

    def enemies_in_view(self, me: Fighter) -> EnemiesInView:
        """The standing enemies of ``me`` (``EnemiesInView``): the meters to each by index,
        the nearest (the first of equals, None if none is left) and how many stand within
        melee range. Measured again only after someone moved or left the fight (the field's
        ``layout``): the tactics ask on every action and ``opponents_in_melee`` on every ranged
        attack, so one measure serves both. In a big fight the nearest and the count stand
        until ``me`` moves or the grid cells they were found in change (``_Grid.footing``):
        an action pays for what moved near it, not for every move of the battle."""
        seen = me.enemies_seen
        layout = self.layout
        if seen.layout == layout:
            return seen
        grid = self.grid
        if grid is None:
            return self._enemies_measured(me)
        enemies = self._standing_enemies_of(me.side)
        here = me.position
        meters = _Meters(self, here, enemies)
        footing = me.seen_from
        reach = self.melee_range
        hint = seen.nearest
        if footing is not None:
            again = grid.again(me.side, footing, here, reach, hint, seen.in_reach)
            if again is HOLDS:  # ``hint`` stands where it stood, as ``me`` does
                d = seen.meters.get(hint.index) if hint is not None else None
                return _remember(me, layout, enemies, meters, hint, seen.in_reach, d)
            if again is BEYOND:
                hint = None  # no one left as near as the hint was: the rings look farther
            elif again is not None:
                nearest, nearest_d, in_reach, me.seen_from = again
                return _remember(me, layout, enemies, meters, nearest, in_reach, nearest_d)
        far = False
        apart = -1.0  # not measured yet
        borrowed = hint is None
        if borrowed:  # its first look, or its nearest fell: a neighbour's nearest is near too
            apart = grid.apart(me.side, here)
            if apart <= RING_REACH:  # (else no enemy is near: no use looking around)
                hint = self._neighbours_nearest(me)
        if hint is not None:  # most often the nearest again, or one as near: one look around
            near = grid.measure(me.side, here, hint, reach)
            if near is FAR:
                far = not borrowed  # no use looking in the rings of cells around
            elif near is not None:
                nearest, nearest_d, in_reach, me.seen_from = near
                return _remember(me, layout, enemies, meters, nearest, in_reach, nearest_d)
        if apart < 0.0:
            apart = grid.apart(me.side, here)
        far = far or apart > RING_REACH  # no enemy in the cells around
        nearest, nearest_d = self._nearest_seen(here, enemies, hint, apart, far)
        if apart > reach:  # no enemy can stand in reach
            in_reach = 0
        else:
            in_reach = grid.count_within(me.side, here, reach)
            if in_reach is None:
                in_reach = _count_within(here, enemies, reach)
        radius = nearest_d if nearest_d > reach else reach
        me.seen_from = grid.footing(me.side, here, radius if nearest is not None else math.inf)
        return _remember(me, layout, enemies, meters, nearest, in_reach, nearest_d)

    def _neighbours_nearest(self, me: Fighter) -> Fighter | None:
        """The nearest enemy a fighter of ``me``'s side next to it in the roster last found
        (a side's members are listed as they stand, side by side): a bound for ``me``'s own
        look (``_Grid.measure``) that finds it in fewer cells than the rings."""
        fighters = self.fighters
        for k in (me.index - 1, me.index + 1):
            if 0 <= k < len(fighters):
                ally = fighters[k]
                if ally.side == me.side:
                    nearest = ally.enemies_seen.nearest
                    if nearest is not None and nearest.can_act:
                        return nearest
        return None

    def _nearest_seen(
        self, here: Point, enemies: _Standing, hint: Fighter | None, apart: float, far: bool
    ) -> tuple[Fighter | None, float]:
        """``enemies_in_view``'s nearest when one look around did not find it: in the rings
        of grid cells unless ``far`` (none is near), else beyond them (``hint``, if any,
        bounds that search: it may stand near)."""
        if not far:
            nearest, nearest_d = cast(_Grid, self.grid).nearest(enemies.side, here)
            if nearest is not None:
                return nearest, nearest_d
        return self._nearest_beyond(here, enemies, hint, apart)

    def _nearest_from(
        self, here: Point, enemies: _Standing, hint: Fighter | None = None
    ) -> tuple[Fighter | None, float]:
        """The first of the nearest of a side's standing ``enemies`` to ``here`` and its
        meters (math.dist): from the rings of grid cells when one is near (``hint``: who was
        the nearest before), else beyond them (``_nearest_beyond``)."""
        grid = self.grid
        if grid is None:
            return _nearest_of_all(here, enemies)
        nearest, nearest_d = grid.nearest(enemies.side, here, hint)
        if nearest is not None:
            return nearest, nearest_d
        return self._nearest_beyond(here, enemies, hint, grid.apart(enemies.side, here))

    def _nearest_beyond(
        self, here: Point, enemies: _Standing, hint: Fighter | None, apart: float
    ) -> tuple[Fighter | None, float]:
        """``_nearest_from`` when the rings found none: from the grid's coarser levels
        (``_Grid.nearest_anywhere``, bounded by ``hint``) while the enemies are within
        ``LEVELS_REACH`` (by ``hint``'s meters, else ``apart``: the least they can be), else
        from all of them with numpy: far off, the cells that may hold one as near are many
        (at 50 km, every cell within a kilometer or so of the nearest). So too when the
        levels give up (``LEVELS_WORK``), and for the next ``LEVELS_SKIPS`` looks: in a
        layout where they give up (two long lines 1.5 km apart), they mostly do."""
        grid = cast(_Grid, self.grid)
        about = math.dist(here, hint.position) if hint is not None else apart
        if about <= LEVELS_REACH:
            if grid.levels_skipped > 0:  # the levels gave up lately: a pass, a few times
                grid.levels_skipped -= 1
            else:
                found = grid.nearest_anywhere(enemies.side, here, hint)
                if found is not None:
                    return found
                grid.levels_skipped = LEVELS_SKIPS
        return _nearest_of_all(here, enemies)

    def _enemies_measured(self, me: Fighter) -> EnemiesInView:
        """``enemies_in_view`` in one pass over the side's standing foes (``_sides_of``):
        faster in a small fight."""
        here, dist = me.position, math.dist
        reach = self.melee_range
        sides = self.standing_sides.get(me.side) if self.standing_roster == self.roster else None
        enemies = (sides if sides is not None else self._sides_of(me.side))[1]
        meters = {}
        nearest, nearest_d = None, math.inf
        in_reach = 0
        for f in enemies:
            d = meters[f.index] = dist(here, f.position)
            if d < nearest_d:
                nearest, nearest_d = f, d
            if d <= reach:
                in_reach += 1
        seen = me.enemies_seen
        if seen is NOT_SEEN:  # its first measure this battle: its own, every field set below
            seen = me.enemies_seen = _blank(EnemiesInView)
        # in place (``_remember``, inline: this is the small fights' path)
        seen.layout = self.layout
        seen.enemies = enemies
        seen.meters = meters
        seen.nearest = nearest
        seen.in_reach = in_reach
        return seen

    def _sides_of(self, side: str) -> tuple[list[Fighter], list[Fighter]]:
        """The standing fighters of ``side`` and those of the other sides, in fighter order:
        one pair of lists serves the side's fighters, their memos in a small fight and
        ``standing_enemies`` (never changed in place: made again once someone left or rejoined
        the fight, the battle's ``roster``)."""
        if self.standing_roster != self.roster:
            self.standing_sides.clear()
            self.standing_roster = self.roster
        lists = self.standing_sides.get(side)
        if lists is None:
            allies: list[Fighter] = []
            foes: list[Fighter] = []
            for f in self.fighters:
                if f.can_act:
                    (allies if f.side == side else foes).append(f)
            lists = self.standing_sides[side] = (allies, foes)
        return lists

    def _standing_enemies_of(self, side: str) -> _Standing:
        """The standing enemies of a side, in fighter order (``_Standing``): one list serves
        all the side's fighters (with 2,000 fighters, each finding its own was most of a
        turn), kept in place as fighters leave or rejoin the fight (``roster_changed``)."""
        enemies = self.enemy_lists.get(side)
        if enemies is None:
            members = (f for f in self.fighters if f.can_act and f.side != side)
            enemies = _Standing(members, side, self.fighters)
            self.enemy_lists[side] = enemies
        return enemies

    def situation(
        self, attacker: Fighter, target: Fighter | None, at: Point | None = None
    ) -> Situation:
        """What the engine measures of ``attacker``'s attack on ``target`` (or on the point
        ``at`` on the ground, with ``target`` None), once for every rule system: the distance
        and how many enemies stand in the attacker's melee reach (``Situation``, the
        attacker's own, filled in place). The rest of the situation the engine keeps on the
        fighters: the attacker's ``moved_this_action``, the target's ``cover``, ``running``
        and ``moved_this_turn``."""
        s = attacker.situation
        if s is None:  # its first attack this battle: its own, every field set below
            s = attacker.situation = _blank(Situation)
        # an attack on the ground (no ``target``) always names its point ``at``
        s.distance = _distance(attacker.position, target.position if target is not None else at)  # type: ignore[arg-type]
        seen = attacker.enemies_seen
        if seen.layout != self.layout:
            seen = self.enemies_in_view(attacker)
        s.engaged = seen.in_reach
        return s

    def measured_from(self, me: Fighter, at: Point) -> tuple[dict[int, float], Fighter | None]:
        """The meters from ``at`` (where a walk will take ``me``) to each of ``me``'s standing
        enemies (those of its ``enemies_in_view``) by index, and the first of the nearest from
        there: in a big fight measured as they are read (``_Meters.measured_from``), in a
        small one in a pass over them all."""
        seen = me.enemies_seen
        meters = seen.meters
        if isinstance(meters, _Meters):
            return meters.measured_from(at)
        dist, nearest, nearest_d = {}, None, math.inf
        for e in seen.enemies:
            d = dist[e.index] = _distance(at, e.position)
            if d < nearest_d:
                nearest, nearest_d = e, d
        return dist, nearest

    def opponents_in_melee(self, me: Fighter) -> int:
        """Standing enemies within melee range (``enemies_in_view``)."""
        seen = me.enemies_seen
        if seen.layout != self.layout:
            seen = self.enemies_in_view(me)
        return seen.in_reach

    def free_cover_point(self, me: Fighter, within: float, kind: str | None = None) -> Any:
        """The nearest cover point within ``within`` meters that no one else able to act
        stands at or is walking to, which ``me`` then claims: a side's fighters spread over
        the cover instead of all making for the same point. The fallen and the fled hold no
        cover. Looked for again only after someone moved, left the fight or claimed a point
        (a fighter out of cover asks every action). ``kind``: only points of that cover
        (a step up to full cover), asked afresh each time."""
        seen = me.cover_seen
        if kind is None and seen[0] == self.layout and seen[1] == self.claims and seen[2] == within:
            return seen[3]
        here, dist = me.position, math.dist
        best, best_k, best_d = None, -1, math.inf
        claimed = self.cover_claims
        points = self.cover_points
        grid = self.grid
        for k in range(len(points)) if grid is None else grid.cover_near(here, within + 1e-9):
            at, point = points[k]
            d = dist(here, at)
            if d > within + 1e-9 or d >= best_d or (kind is not None and point.cover != kind):
                continue
            holder = claimed.get(k)
            on_its_way = holder is not None and holder.can_act and holder.cover == "none"
            if on_its_way and holder is not me:
                continue  # someone still on its way there
            if grid is not None:
                if not grid.occupied(k, me):
                    best, best_k, best_d = point, k, d
                continue
            for o in self.fighters:
                if o is not me and o.can_act and dist(o.position, at) < 0.5:
                    break
            else:
                best, best_k, best_d = point, k, d
        if best is not None and claimed.get(best_k) is not me:
            if me.cover_claim >= 0 and claimed.get(me.cover_claim) is me:
                del claimed[me.cover_claim]
            claimed[best_k] = me
            me.cover_claim = best_k
            self.claims += 1
        if kind is None:
            me.cover_seen = (self.layout, self.claims, within, best)
        return best

    def release_claim(self, f: Fighter) -> None:
        """``f`` no longer walks to the cover point it claimed (it fell back, left the point
        or the fight): the point is free for the others at once, not only once ``f`` falls.
        A claim kept by a fighter who had run off left its side's other take-cover fighters
        in the open all battle."""
        k = f.cover_claim
        if k < 0:
            return
        f.cover_claim = -1
        if self.cover_claims.get(k) is f:
            del self.cover_claims[k]
            self.claims += 1  # the others' free points are looked for again

    def left_claim(self, f: Fighter, start: Point) -> None:
        """``f`` moved from ``start``: a move that ends farther from its claimed cover point
        than it began leaves the point (or the way there), and the claim with it."""
        k = f.cover_claim
        if k >= 0:
            at = self.cover_points[k][0]
            if math.dist(f.position, at) > math.dist(start, at) + 1e-9:
                self.release_claim(f)

    def cover_at(self, at: Point) -> str:
        """The cover at ``at``: ``cover_at`` of the battle's cover points, from the grid's
        nearby ones in a big fight."""
        grid = self.grid
        if grid is None:
            return cover_at(self.cover_points, at)
        points = self.cover_points
        for k in grid.cover_near(at, 0.5):
            position, point = points[k]
            if math.dist(at, position) < 0.5:
                return point.cover
        return "none"

    def passed_by(
        self, f: Fighter, start: Point, end: Point, moved: float, before: int
    ) -> list[tuple[float, int, Fighter]]:
        """The standing enemies of ``f``, which has just moved ``moved`` meters from
        ``start`` to ``end`` (``layout`` ``before`` the move), whose way passes within
        ``INTERCEPT_DISTANCE`` of them (``_passing_at``): ``(where along the way, index,
        enemy)``, in the order they are passed (interceptions happen in that order)."""
        passed: list[tuple[float, int, Fighter]] = []
        near = self._passers_by(f, start, end) if self.big else self._passed_by(f, moved, before)
        for enemy in near:
            along = _passing_at(start, end, enemy.position, INTERCEPT_DISTANCE)
            if along is not None:
                passed.append((along, enemy.index, enemy))
        passed.sort()
        return passed

    def _passed_by(self, f: Fighter, moved: float, before: int) -> list[Fighter]:
        """A small fight's ``_passers_by``: the standing enemies of ``f``, which has just
        moved ``moved`` meters, that might stand within ``INTERCEPT_DISTANCE`` of its way: no
        farther from either end of it than the way and a meter (and a little more for
        rounding). Read from ``f``'s memo as its plan left it, measured where the move began
        (the ``layout`` ``before`` it), without a measure; from a new one where it stopped
        when that memo was stale. The memos of ``f``'s allies current before the move stay
        current (nothing an ally measures moved); ``f``'s own is measured again when next
        read (an attack at range reads it at once, a blow in melee does not)."""
        seen = f.enemies_seen
        measured_before = seen.layout == before
        if f.can_act:
            layout = self.layout
            for ally in self._sides_of(f.side)[0]:
                kept = ally.enemies_seen
                if kept.layout == before and ally is not f:
                    kept.layout = layout
        if not measured_before:
            seen = self._enemies_measured(f)
        meters, nearest = seen.meters, seen.nearest
        within = moved + INTERCEPT_DISTANCE + 1e-6
        if nearest is None or meters[nearest.index] > within:
            return []  # the most often: not even the nearest is that near
        return [e for e in seen.enemies if meters[e.index] <= within]

    def _passers_by(self, f: Fighter, start: Point, end: Point) -> list[Fighter]:
        """The standing enemies of ``f`` that might stand within ``INTERCEPT_DISTANCE`` of
        its way from ``start`` to ``end``: those in the grid cells around the way, or (a long
        way) in the box around it, widened by a little more than that (``_passing_at``
        decides; ``passed_by`` orders them)."""
        margin = INTERCEPT_DISTANCE + 1e-6
        middle = ((start[0] + end[0]) / 2, (start[1] + end[1]) / 2)
        half = max(abs(end[0] - start[0]), abs(end[1] - start[1])) / 2
        grid = cast(_Grid, self.grid)
        if grid.apart(f.side, middle) > 1.5 * half + margin:  # the way's box is far from all
            return []
        near = grid.near(grid.foes[f.side], middle, half + margin)
        if near is not None:
            return near
        enemies = self._standing_enemies_of(f.side)
        if not enemies:
            return []
        points = enemies.arrays()[3]
        x0, x1 = (start[0], end[0]) if start[0] <= end[0] else (end[0], start[0])
        y0, y1 = (start[1], end[1]) if start[1] <= end[1] else (end[1], start[1])
        xs, ys = points.real, points.imag
        box = (xs >= x0 - margin) & (xs <= x1 + margin) & (ys >= y0 - margin) & (ys <= y1 + margin)
        return [enemies[k] for k in np.flatnonzero(box).tolist()]


# the compiled build (setup.py) keeps it a Python class: mypyc's native classes cannot
# subclass a builtin
@mypyc_attr(native_class=False)
class _Meters(dict):
    """``enemies_in_view``'s meters to each enemy by index in a big fight, measured (with
    math.dist, from ``here`` to where the enemies stand) as they are read: the nearest-target
    tactics read one or two. After a few reads it measures all the others at once. Made
    again at every change of the battle's layout: read it at once."""

    __slots__ = ("field", "here", "enemies", "misses", "nearest")

    def __init__(self, field: Field, here: Point, enemies: _Standing):
        self.field, self.here, self.enemies = field, here, enemies
        self.misses = 0
        self.nearest: Fighter | None = None  # the nearest from ``here``, once known

    def within(self, enemies: list, reach: float) -> list | None:
        """``[e for e in enemies if self[e.index] <= reach]`` when ``enemies`` is the list
        these meters measure (else None): numpy finds the candidates, math.dist decides
        near ``reach``."""
        if enemies is not self.enemies:
            return None
        if not enemies:
            return []
        indexes, _, _, points = self.enemies.arrays()
        meters = _meters_to(points, self.here)
        low, high = reach * (1 - CLOSE), reach * (1 + CLOSE)
        return [
            enemies[k]
            for k in (meters <= high).nonzero()[0].tolist()
            if meters[k] < low or self[indexes[k]] <= reach
        ]

    def measured_from(self, at: Point) -> tuple[_Meters, Fighter | None]:
        """The meters from ``at`` instead (where a walk will take the fighter) and the first
        of the nearest enemies from there, as ``Field.measured_from``'s pass finds them."""
        nearest, nearest_d = self.field._nearest_from(at, self.enemies, self.nearest)
        meters = _Meters(self.field, at, self.enemies)
        meters.nearest = nearest
        if nearest is not None:
            meters[nearest.index] = nearest_d
        return meters, nearest

    def __missing__(self, index: int) -> float:
        enemies = self.enemies
        fighters = enemies.fighters
        f = fighters[index] if 0 <= index < len(fighters) else None
        # ``f in enemies`` (``_Standing``), without the call while the list is current
        if f is None or not (
            (f.can_act and f.side != enemies.side) if enemies.current else f in enemies
        ):
            raise KeyError(index)
        self.misses = misses = self.misses + 1
        if misses > 8:
            here = self.here
            self.update((e.index, math.dist(here, e.position)) for e in enemies)
            return self[index]
        d = self[index] = math.dist(self.here, f.position)
        return d


# the compiled build (setup.py) keeps it a Python class: mypyc's native classes cannot
# subclass a builtin
@mypyc_attr(native_class=False)
class _Standing(list):
    """A side's standing enemies in fighter order (``Field._standing_enemies_of``), kept
    in place. While it is the battle's current list (``current``) it answers ``in`` at once
    (``focus in enemies``, every action of a focus-firing side): a standing fighter of
    another side of the battle. ``arrays`` adds their indexes and positions for numpy."""

    __slots__ = ("side", "fighters", "current", "kept")

    def __init__(self, members: Iterable[Fighter], side: str, fighters: list[Fighter]):
        super().__init__(members)
        self.side = side
        self.fighters = fighters
        self.current = True  # the battle's list of the side's enemies (``_standing_enemies_of``)
        self.kept: tuple | None = None  # ``arrays``

    def __contains__(self, f: object) -> bool:
        if not self.current:
            return list.__contains__(self, f)
        if type(f) is not Fighter:
            return False
        fighters = self.fighters
        return (
            f.can_act and f.side != self.side and f.index < len(fighters) and fighters[f.index] is f
        )

    def arrays(self) -> tuple:
        """``(indexes, positions, index -> slot, positions as a numpy array of complex
        numbers: east + north j)`` of these fighters, made when first needed after the list
        changed; a move updates the positions in place (``Field.moved``)."""
        kept = self.kept
        if kept is None:
            indexes = [f.index for f in self]
            positions = [f.position for f in self]
            slots = {i: k for k, i in enumerate(indexes)}
            where = np.array(positions, dtype=float).reshape(len(positions), 2)
            points = np.empty(len(positions), dtype=complex)
            points.real, points.imag = where[:, 0], where[:, 1]
            kept = self.kept = (indexes, positions, slots, points)
        return kept


def within_reach(enemies: list[Fighter], meters: Any, reach: float) -> list[Fighter]:
    """The ``enemies`` no farther than ``reach`` by their ``meters`` (by index), in order: a
    big fight's meters list them with numpy (``_Meters.within``), others in a pass."""
    if isinstance(meters, _Meters):
        found = meters.within(enemies, reach)
        if found is not None:
            return found
    return [e for e in enemies if meters[e.index] <= reach]


_BY_INDEX = operator.attrgetter("index")


def _index(f: Fighter) -> int:
    return f.index


def _nearest_of_all(here: Point, enemies: _Standing) -> tuple[Fighter | None, float]:
    """The first of the nearest of ``enemies`` to ``here`` and its meters (math.dist), in one
    pass over all of them: numpy's meters find the candidates, math.dist decides."""
    if not enemies:
        return None, math.inf
    _, positions, _, points = enemies.arrays()
    meters = _meters_to(points, here)
    low = meters[meters.argmin()] * (1 + CLOSE) + 1e-300
    nearest, nearest_d = None, math.inf
    for k in (meters <= low).nonzero()[0].tolist():
        d = math.dist(here, positions[k])
        if d < nearest_d:
            nearest, nearest_d = enemies[k], d
    return nearest, nearest_d


def _count_within(here: Point, enemies: _Standing, reach: float) -> int:
    """How many of ``enemies`` stand within ``reach`` of ``here`` (math.dist), found with
    numpy."""
    if not enemies:
        return 0
    _, positions, _, points = enemies.arrays()
    meters = _meters_to(points, here)
    low, high = reach * (1 - CLOSE), reach * (1 + CLOSE)
    count = int(np.count_nonzero(meters < low))
    for k in ((meters >= low) & (meters <= high)).nonzero()[0].tolist():
        if math.dist(here, positions[k]) <= reach:
            count += 1
    return count


def _meters_to(points: np.ndarray, here: Point) -> np.ndarray:
    """numpy's meters from ``here`` to ``points`` (complex: east + north j): the hypot of
    the differences, within an ulp or two of math.dist's (``CLOSE`` covers that)."""
    return np.abs(points - complex(here[0], here[1]))


CELL = 16.0  # meters a side of a grid cell (big fights)
NEAR_CELLS = 25  # the most cells a grid query looks in (beyond: the caller looks at all)
RINGS = 2  # rings of cells around a point the nearest is looked for in (5 x 5 cells)
RING_REACH = 1.5 * (RINGS + 1) * CELL  # meters beyond every cell of the rings (and a hint's)
SLACK = 1e-6  # meters a grid query reaches beyond its radius (coordinates within 1e5 m)
# A fighter more than ``OFF`` times a look's bound farther in x or in y is farther than the
# bound by math.dist too (which is within an ulp or so of the true meters): not measured
OFF = 1.0 + 1e-9
FAR: tuple = ()  # ``_Grid.measure``'s answer when the enemies are too far for the grid
HOLDS: tuple = ((),)  # ``_Grid.again``'s answer when nothing changed in a footing's cells
NOWHERE = (math.inf, math.inf)  # where a fighter not standing is, in ``_Grid.trails``
TRAIL_LOOK = 8  # changes of a side a far fighter's measure looks through (``changed_beyond``)
BEYOND: tuple = ((), ())  # ``_Grid.again``'s when no enemy is left within a footing's radius


SHIFT = 1 << 16  # a cell's key: its column * SHIFT + its row (rows within +-2**15)


def _key(at: Point) -> int:
    """The key of the grid cell ``at`` is in."""
    return math.floor(at[0] / CELL) * SHIFT + math.floor(at[1] / CELL)


def _ring(r: int) -> list[int]:
    """The key offsets of the cells at Chebyshev distance ``r`` from a cell."""
    if r == 0:
        return [0]
    cells = [i * SHIFT + j for i in range(-r, r + 1) for j in (-r, r)]
    cells.extend(i * SHIFT + j for i in (-r, r) for j in range(-r + 1, r))
    return cells


RING_CELLS = [_ring(r) for r in range(RINGS + 1)]
FANOUT_BITS = 3  # a coarser level's cell is 2**3 x 2**3 cells of the level below
LEVELS = 5  # coarser levels above the cells: 128 m to 524,288 m a side (all of +-2**15 rows)
HALF_SHIFT = SHIFT >> 1
# meters within which the nearest enemy beyond the rings is looked for in the coarser levels
# (farther, a pass over all: see ``Field._nearest_beyond``)
LEVELS_REACH = 2048.0
LEVELS_WORK = 32  # cells and fighters a look in the coarser levels may look at (else a pass)
LEVELS_SKIPS = 16  # looks that make a pass at once after the levels gave up


def _parent(key: int) -> int:
    """The key of the cell one level coarser that holds the cell ``key``."""
    column = (key + HALF_SHIFT) >> 16
    row = key - (column << 16)
    return (column >> FANOUT_BITS) * SHIFT + (row >> FANOUT_BITS)


def _cell_gap(key: int, size: float, here: Point) -> float:
    """Meters, less ``SLACK``, from ``here`` to the cell ``key`` of a level of cells of
    ``size`` meters: no one in it is nearer (math.dist)."""
    column = (key + HALF_SHIFT) >> 16
    row = key - (column << 16)
    x0, y0 = column * size, row * size
    x, y = here
    dx = x0 - x if x < x0 else (x - x0 - size if x > x0 + size else 0.0)
    dy = y0 - y if y < y0 else (y - y0 - size if y > y0 + size else 0.0)
    return math.hypot(dx, dy) - SLACK


Span = tuple[int, int, int, int]  # the columns x0..x1 and rows y0..y1 of a block of cells


class _Grid:
    """A big fight's standing fighters by side and square cell of ``CELL`` meters, kept
    move by move and fall by fall (``place``), with a stamp per cell and side that changes
    whenever one of the side enters, leaves, moves or falls in it. Queries look only in the
    cells near a point (the nearest enemy, those in melee reach, who stands at a cover point
    or near a way), and a fighter's ``enemies_in_view`` stands while the stamps of the cells
    it was found in stay the same, or is looked for again in those cells only (``footing``,
    ``again``). A box around where each side stood (``apart``) tells when no enemy can be
    near at all. The cover points are listed by cell too. From a battle's first look beyond
    the rings, coarser levels of cells (``levels``) find the nearest however far, and each
    side's changes are logged (``trails``) for the memos of fighters far from everyone."""

    __slots__ = (
        "cells",
        "changes",
        "trails",
        "placed_at",
        "far_kept",
        "levels_skipped",
        "made",
        "standing",
        "placed",
        "foes",
        "foe_cells",
        "sides",
        "cover",
        "cover_points",
        "cover_found",
        "cover_cells",
        "extent",
        "levels",
    )

    def __init__(self, sides: list[str], fighters: list[Fighter], cover_points: list[tuple]):
        # side -> cell key -> [stamp, the side's standing fighters in the cell]: an entry,
        # once made, stays (a footing holds the entries themselves)
        self.cells: dict[str, dict[int, list]] = {s: {} for s in sides}
        self.changes = dict.fromkeys(sides, 0)  # every change of a side, anywhere
        # side -> every change of the side, anywhere, in order, four numbers each: where the
        # fighter stood before (x, y) and where it stands after (inf, inf when not standing)
        # (``changed_beyond``); numbers, not tuples, that the garbage collector never visits
        self.trails: dict[str, list[float]] = {s: [] for s in sides}
        # whether ``levels``, ``trails`` and ``placed_at`` are kept: from the first look
        # beyond the rings (``keep_far``); a fight that never looks so far never pays for them
        self.far_kept = False
        self.levels_skipped = 0  # looks beyond the rings left to make a pass at once
        self.made = 0  # counts the entries made so far
        self.standing = dict.fromkeys(sides, 0)  # side -> how many of it stand (are placed)
        # side -> [x0, x1, y0, y1]: a box around every place the side stood in (``apart``)
        self.extent = {s: [math.inf, -math.inf, math.inf, -math.inf] for s in sides}
        self.placed: list[int | None] = [None] * len(fighters)  # each fighter's cell key
        self.placed_at: list[Point] = [NOWHERE] * len(fighters)  # and where (if standing)
        # side -> per coarser level (``LEVELS``), cell key -> the keys of its cells one level
        # finer that hold one of the side's standing fighters: only such cells are listed
        self.levels: dict[str, list[dict[int, set[int]]]] = {
            s: [{} for _ in range(LEVELS)] for s in sides
        }
        self.sides = list(sides)
        self.foes = {s: [o for o in sides if o != s] for s in sides}
        self.foe_cells = {s: [self.cells[o] for o in self.foes[s]] for s in sides}
        self.cover_points = cover_points
        self.cover: dict[int, list[int]] = {}  # cell key -> the cover points in it
        self.cover_found: dict[Span, list[int]] = {}  # ``cover_near``'s answers
        # per cover point, the entries of every side's cells within half a meter of it
        self.cover_cells: list[list[list]] = []
        for k, (at, _) in enumerate(cover_points):
            self.cover.setdefault(_key(at), []).append(k)
            self.cover_cells.append(self._entries(self.sides, cast(Span, self.span(at, 0.5))))
        for f in fighters:
            self.place(f)

    def place(self, f: Fighter, standing: bool | None = None) -> None:
        """Put ``f`` in the cell it stands in (none when it cannot act, or ``standing`` is
        False), and stamp the cells it left and entered."""
        side, index = f.side, f.index
        old = self.placed[index]
        new = _key(f.position) if (f.can_act if standing is None else standing) else None
        cells = self.cells[side]
        far_kept = self.far_kept
        if old is not None:
            left = cells[old]
            left[0] += 1
            if new is not None or standing is not None:  # (not a fall: ``again``'s ranking)
                left[2] += 1
            if new != old:
                left[1].remove(f)
                if far_kept and not left[1]:
                    self._emptied(side, old)
            if new is None:
                self.standing[side] -= 1
        elif new is not None:
            self.standing[side] += 1
        if new is not None:
            entry = cells.get(new)
            if entry is None:
                entry = cells[new] = [0, [], 0]
                self.made += 1
            entry[0] += 1
            entry[2] += 1
            if new != old:
                entry[1].append(f)
                if far_kept and len(entry[1]) == 1:
                    self._filled(side, new)
            box = self.extent[side]
            x, y = f.position
            if not (box[0] <= x <= box[1] and box[2] <= y <= box[3]):
                box[:] = min(box[0], x), max(box[1], x), min(box[2], y), max(box[3], y)
        self.placed[index] = new
        self.changes[side] += 1
        if far_kept:
            before = self.placed_at[index]
            at = f.position if new is not None else NOWHERE
            self.trails[side] += (before[0], before[1], at[0], at[1])
            self.placed_at[index] = at

    def take_out(self, f: Fighter) -> None:
        self.place(f, standing=False)

    def keep_far(self) -> None:
        """Keep ``levels``, ``trails`` and ``placed_at`` from now on (made from the cells)."""
        if self.far_kept:
            return
        self.far_kept = True
        for side, cells in self.cells.items():
            for key, entry in cells.items():
                if entry[1]:
                    self._filled(side, key)
                for f in entry[1]:
                    self.placed_at[f.index] = f.position

    def _filled(self, side: str, key: int) -> None:
        """The cell ``key`` of ``side`` has its first fighter: list it in the coarser
        levels (each coarser cell newly holding one is listed in turn)."""
        child = key
        for children in self.levels[side]:
            parent = _parent(child)
            listed = children.get(parent)
            if listed is not None:
                listed.add(child)
                return
            children[parent] = {child}
            child = parent

    def _emptied(self, side: str, key: int) -> None:
        """The cell ``key`` of ``side`` has no fighter left: drop it from the coarser
        levels (and each coarser cell left empty in turn)."""
        child = key
        for children in self.levels[side]:
            parent = _parent(child)
            listed = children[parent]
            listed.discard(child)
            if listed:
                return
            del children[parent]
            child = parent

    def nearest_anywhere(
        self, side: str, here: Point, hint: Fighter | None = None, budget: int = -1
    ) -> tuple[Fighter | None, float] | None:
        """The first of the nearest standing enemies of ``side`` to ``here`` (math.dist,
        ties to the lower index), however far: from the cells of the coarser levels
        (``levels``), nearest first, each opened only while it may hold one as near as the
        best so far. For what is beyond the rings: a pass over every enemy cost more as the
        battle grew. ``hint``, an enemy that may be near, bounds it first. None when it
        would look at more than ``budget`` cells and fighters (then a pass costs less: many
        cells may hold one as near when the enemies are far compared with the cells;
        ``LEVELS_WORK`` unless given)."""
        if budget < 0:
            budget = LEVELS_WORK
        if hint is not None:
            bound = math.dist(here, hint.position)
            found = self._nearest_within(side, here, bound, budget)
            if found is None or found[0] is not None:
                return found
        return self._nearest_within(side, here, math.inf, budget)

    def _nearest_within(
        self, side: str, here: Point, bound: float, budget: int
    ) -> tuple[Fighter | None, float] | None:
        """``nearest_anywhere`` among the enemies within ``bound`` meters: the cells farther
        than the best so far (or ``bound``) are never opened (``_cell_gap``). None, inf when
        no enemy is that near; None past the ``budget``."""
        self.keep_far()
        dist = math.dist
        foes = self.foes[side]
        level = LEVELS
        size = CELL * (1 << (FANOUT_BITS * level))
        pending: list[tuple[float, int, int, int]] = []
        for s, foe in enumerate(foes):
            for key in self.levels[foe][level - 1]:
                gap = _cell_gap(key, size, here)
                if gap <= bound:
                    pending.append((gap, level, key, s))
        heapq.heapify(pending)
        best, best_d, best_i = None, bound, len(self.placed)  # (one at ``bound`` will do)
        while pending:
            gap, level, key, s = heapq.heappop(pending)
            if gap > best_d:
                break  # every cell left is farther than the best
            if level == 0:
                inside = self.cells[foes[s]][key][1]
                budget -= len(inside)
                for e in inside:
                    d = dist(here, e.position)
                    if d < best_d or (d == best_d and e.index < best_i):
                        best, best_d, best_i = e, d, e.index
                continue
            level -= 1
            size = CELL * (1 << (FANOUT_BITS * level))
            children = self.levels[foes[s]][level][key]
            budget -= len(children)
            if budget < 0:
                return None
            for child in children:
                gap = _cell_gap(child, size, here)
                if gap <= best_d:
                    heapq.heappush(pending, (gap, level, child, s))
        return (best, best_d) if best is not None else (None, math.inf)

    @staticmethod
    def span(at: Point, radius: float) -> Span | None:
        """The block of cells within ``radius`` (and ``SLACK``) of ``at`` in x and y; None
        when it is more than ``NEAR_CELLS`` cells."""
        r = radius + SLACK
        if r > CELL * NEAR_CELLS:
            return None
        x, y = at
        floor = math.floor
        x0, x1 = floor((x - r) / CELL), floor((x + r) / CELL)
        y0, y1 = floor((y - r) / CELL), floor((y + r) / CELL)
        if (x1 - x0 + 1) * (y1 - y0 + 1) > NEAR_CELLS:
            return None
        return x0, x1, y0, y1

    def apart(self, side: str, here: Point) -> float:
        """Meters, less ``SLACK``, from ``here`` to the box around every place the enemies of
        ``side`` stood in since the battle began (``extent``, 0 within it, infinite if none
        ever stood): no standing enemy is nearer. Sides far apart skip the cells near
        ``here``, all empty."""
        x, y = here
        low = math.inf
        for s in self.foes[side]:
            x0, x1, y0, y1 = self.extent[s]
            if x0 > x1:
                continue  # none of the side ever stood
            dx = x0 - x if x < x0 else (x - x1 if x > x1 else 0.0)
            dy = y0 - y if y < y0 else (y - y1 if y > y1 else 0.0)
            d = math.hypot(dx, dy)
            if d < low:
                low = d
        return low - SLACK

    def nearest(
        self, side: str, here: Point, hint: Fighter | None = None
    ) -> tuple[Fighter | None, float]:
        """The first of the nearest standing enemies of ``side`` to ``here`` (math.dist,
        ties to the lower index) when one is within ``RINGS`` rings of cells and nearer
        than any cell outside them; else ``(None, inf)``: the caller looks at all.

        ``hint``, a fighter that may be near, bounds the search first: every enemy within
        its meters is in the cells within them, so the nearest of those, if as near, is the
        nearest of all (a stale hint finds none, and the rings decide)."""
        if self.apart(side, here) > RING_REACH:  # no enemy in the cells looked in
            return None, math.inf
        dist = math.dist
        if hint is not None:
            near = self._nearest_by(side, here, hint)
            if near is not None:
                return near
        grids = [self.cells[s] for s in self.foes[side]]
        hx, hy = here
        cx, cy = math.floor(hx / CELL), math.floor(hy / CELL)
        key = cx * SHIFT + cy
        best, best_d, best_i = None, math.inf, -1
        off = math.inf  # (as in ``_nearest_in``: one farther in x or y is passed over)
        seen: object = here
        for r, ring in enumerate(RING_CELLS):
            for offset in ring:
                for grid in grids:
                    entry = grid.get(key + offset)
                    if entry is not None:
                        inside: list[Fighter] = entry[1]
                        for e in inside:
                            at = e.position
                            dx = at[0] - hx
                            dy = at[1] - hy
                            if dx > off or -dx > off or dy > off or -dy > off:
                                continue
                            d = dist(seen, at)  # type: ignore[arg-type]
                            if d < best_d or (d == best_d and e.index < best_i):
                                best, best_d, best_i = e, d, e.index
                                off = best_d * OFF
            if best is not None:
                margin = min(
                    hx - (cx - r) * CELL,
                    (cx + r + 1) * CELL - hx,
                    hy - (cy - r) * CELL,
                    (cy + r + 1) * CELL - hy,
                )
                if best_d < margin - SLACK:
                    return best, best_d
        return None, math.inf

    def _nearest_by(self, side: str, here: Point, hint: Fighter) -> tuple[Fighter, float] | None:
        """``nearest`` among the enemies in the cells within ``hint``'s meters, when one is
        as near as it (then it is the nearest of all); else None."""
        dist = math.dist
        bound = dist(here, hint.position)
        found = self.near(self.foes[side], here, bound)
        if found:
            hx, hy = here
            seen: object = here
            best, best_d, best_i = None, math.inf, -1
            off = math.inf  # (as in ``_nearest_in``)
            for e in found:
                at = e.position
                dx = at[0] - hx
                dy = at[1] - hy
                if dx > off or -dx > off or dy > off or -dy > off:
                    continue
                d = dist(seen, at)  # type: ignore[arg-type]
                if d < best_d or (d == best_d and e.index < best_i):
                    best, best_d, best_i = e, d, e.index
                    off = best_d * OFF
            if best is not None and best_d <= bound:
                return best, best_d
        return None

    def measure(self, side: str, here: Point, hint: Fighter, reach: float) -> tuple | None:
        """``(nearest, its meters, in_reach, footing)`` of ``side``'s enemies from ``here``
        in one look at the cells within ``hint``'s meters (or ``reach``, if farther): the
        nearest (math.dist, ties to the lower index), how many stand within ``reach``, and the
        ``footing`` of both. None when no enemy stands within the meters those cells cover
        (``_covered``: ``hint`` fell, and the next is farther), ``FAR`` when that is too many
        cells."""
        bound = math.dist(here, hint.position)
        radius = bound if bound > reach else reach
        span = self.span(here, radius)
        if span is None:
            return FAR
        entries = self._foe_entries(side, span)
        best, best_d, count = _nearest_in(entries, here, reach)
        covered = _covered(span, here)
        if best_d > covered:
            return None
        stamps, moved = _stamps(entries), _moved(entries)
        return best, best_d, count, (here, entries, stamps, self.made, covered, None, moved, [])

    def near(self, sides: list[str], at: Point, radius: float) -> list[Fighter] | None:
        """The standing fighters of ``sides`` in the cells within ``radius`` of ``at`` (a
        superset of those within it); None when that is too many cells."""
        span = self.span(at, radius)
        if span is None:
            return None
        x0, x1, y0, y1 = span
        found: list[Fighter] = []
        for s in sides:
            get = self.cells[s].get
            for i in range(x0, x1 + 1):
                column = i * SHIFT
                for key in range(column + y0, column + y1 + 1):
                    entry = get(key)
                    if entry is not None:
                        found.extend(entry[1])
        return found

    def count_within(self, side: str, here: Point, reach: float) -> int | None:
        """How many standing enemies of ``side`` stand within ``reach`` of ``here``
        (math.dist); None when that is too many cells to look in."""
        found = self.near(self.foes[side], here, reach)
        if found is None:
            return None
        dist = math.dist
        return sum(1 for e in found if dist(here, e.position) <= reach)

    def _entries(self, sides: list[str], span: Span) -> list[list]:
        """The entries of ``sides``' cells in ``span``, made (empty) where none was yet."""
        x0, x1, y0, y1 = span
        entries = []
        for s in sides:
            cells = self.cells[s]
            for i in range(x0, x1 + 1):
                column = i * SHIFT
                for key in range(column + y0, column + y1 + 1):
                    entry = cells.get(key)
                    if entry is None:
                        entry = cells[key] = [0, [], 0]
                        self.made += 1
                    entries.append(entry)
        return entries

    def occupied(self, k: int, me: Fighter) -> bool:
        """Whether someone able to act other than ``me`` stands within half a meter of
        cover point ``k`` (in the cells around it: ``cover_cells``)."""
        dist = math.dist
        at: Point = self.cover_points[k][0]
        ax, ay = at
        near = 0.5 * OFF  # (one farther in x or y is farther by math.dist too)
        for entry in self.cover_cells[k]:
            inside: list[Fighter] = entry[1]
            for e in inside:
                p = e.position
                dx = p[0] - ax
                dy = p[1] - ay
                if dx > near or -dx > near or dy > near or -dy > near:
                    continue
                if e is not me and dist(p, at) < 0.5:
                    return True
        return False

    def cover_near(self, at: Point, radius: float) -> list[int]:
        """The cover points (indexes, in order) in the cells within ``radius`` of ``at``:
        all of them when that is too many cells. Kept by block of cells: the points stay."""
        cover = self.cover
        if not cover:
            return []
        span = self.span(at, radius)
        if span is None:
            return list(range(len(self.cover_points)))
        found = self.cover_found.get(span)
        if found is None:
            x0, x1, y0, y1 = span
            found = []
            for i in range(x0, x1 + 1):
                column = i * SHIFT
                for key in range(column + y0, column + y1 + 1):
                    points = cover.get(key)
                    if points is not None:
                        found.extend(points)
            found.sort()
            self.cover_found[span] = found
        return found

    def footing(self, side: str, here: Point, radius: float) -> tuple:
        """What a measure from ``here`` of ``side``'s enemies within ``radius`` stands on:
        ``(here, the enemies' cell entries within radius, the sum of their stamps, made,
        the meters those cells cover (``_covered``), None, the sum of their arrivals and
        moves, a ranking for ``_ranked``)``; with too many cells, ``(here, None, all of the
        enemies' changes, made, radius, how long each enemy side's trail was)``: the trails'
        lengths when the radius is within ``LEVELS_REACH`` (``changed_beyond``), else None."""
        span = self.span(here, radius) if radius < math.inf else None
        if span is None:
            changes = sum(self.changes[s] for s in self.foes[side])
            seen = None
            if radius <= LEVELS_REACH:  # (beyond, every change is within reach or near it)
                self.keep_far()
                seen = [len(self.trails[s]) for s in self.foes[side]]  # (four numbers a change)
            return (here, None, changes, self.made, radius, seen)
        entries = self._foe_entries(side, span)
        covered = _covered(span, here)
        return (here, entries, _stamps(entries), self.made, covered, None, _moved(entries), [])

    def _foe_entries(self, side: str, span: Span) -> list[list]:
        """The entries of the cells of ``side``'s enemies in ``span`` (those made)."""
        x0, x1, y0, y1 = span
        entries = []
        for cells in self.foe_cells[side]:
            get = cells.get
            for i in range(x0, x1 + 1):
                column = i * SHIFT
                for key in range(column + y0, column + y1 + 1):
                    entry = get(key)
                    if entry is not None:
                        entries.append(entry)
        return entries

    def again(
        self,
        side: str,
        footing: tuple,
        here: Point,
        reach: float,
        last: Fighter | None = None,
        last_in_reach: int = -1,
    ) -> tuple | None:
        """A measure on ``footing`` looked at again for a fighter of ``side`` at ``here``,
        without working out its cells: ``HOLDS`` when no enemy entered, left, moved or fell
        in them (stamps only grow: an equal sum is every stamp the same); else ``(nearest,
        its meters, in_reach, footing)`` from the enemies in them when that nearest stands
        within the footing's radius (every enemy as near is in its cells), ``BEYOND`` when
        none does; else None (look afresh). Only while the fighter has not moved and no cell
        entry was made (an enemy in a cell empty till then). A footing of too many cells
        holds while every change was beyond its radius (``changed_beyond``). ``last`` and
        ``last_in_reach``: the nearest and the count the measure found (with only falls since,
        a nearest still standing is still the nearest, and none in reach stays none)."""
        if footing[0] != here:
            return None
        entries = footing[1]
        if entries is None and footing[5] is not None:
            return HOLDS if self.changed_beyond(side, footing[5], here, footing[4]) else None
        if footing[3] != self.made:
            return None
        if entries is None:
            same = sum(self.changes[s] for s in self.foes[side]) == footing[2]
            return HOLDS if same else None
        total = _stamps(entries)
        if total == footing[2]:
            return HOLDS
        radius = footing[4]
        moved = _moved(entries)
        falls = moved == footing[6]  # (else someone came or moved)
        if (
            falls
            and last_in_reach == 0
            and last is not None
            and self.placed[last.index] is not None
        ):
            d = math.dist(here, last.position)  # (the tactics read it at once)
            return last, d, 0, (here, entries, total, self.made, radius, None, moved, footing[7])
        ranking = footing[7] if falls else []
        if ranking:
            best, best_d, count = self._ranked(ranking, entries, here, reach)
        else:
            best, best_d, count = _nearest_in(entries, here, reach)
            ranking.append(None)  # (the next look with only falls ranks them)
        if best_d > radius:
            return BEYOND
        return best, best_d, count, (here, entries, total, self.made, radius, None, moved, ranking)

    def _ranked(self, ranking: list, entries: list[list], here: Point, reach: float) -> tuple:
        """``_nearest_in`` when only falls changed the cells since ``ranking`` was begun: the
        enemies in them ranked once by meters (then index, ``_ranking``), the fallen skipped
        from the front (``ranking[2]``). In a dense fight a fighter's cells hold a hundred
        enemies, and each fall near it made every fighter around measure all of them again."""
        if ranking[0] is None:
            ranking[:] = _ranking(entries, here)
        meters: list[float] = ranking[0]
        ranked: list[Fighter] = ranking[1]
        start: int = ranking[2]
        placed = self.placed
        end = len(ranked)
        while start < end and placed[ranked[start].index] is None:
            start += 1
        ranking[2] = start
        if start == end:
            return None, math.inf, 0
        count = 0
        for k in range(start, end):
            if meters[k] > reach:
                break
            if placed[ranked[k].index] is not None:
                count += 1
        return ranked[start], meters[start], count

    def changed_beyond(self, side: str, seen: list[int], here: Point, radius: float) -> bool:
        """Whether every change of ``side``'s enemies since their trails were ``seen`` long
        was farther than ``radius`` from ``here`` (math.dist), where the fighter stood before
        and after: nothing within the radius changed, so a measure of it holds (``seen`` is
        brought up to date). False after more than ``TRAIL_LOOK`` changes of a side: a look
        afresh costs less. A far fighter's measure stands on too many cells to watch their
        stamps, and every move in the battle used to make it measure again."""
        dist = math.dist
        for k, foe in enumerate(self.foes[side]):
            trail = self.trails[foe]
            end = len(trail)
            if end - seen[k] > 4 * TRAIL_LOOK:
                return False
            for i in range(seen[k], end, 2):  # where one stood before, then after
                if dist(here, (trail[i], trail[i + 1])) <= radius:
                    return False
        for k, foe in enumerate(self.foes[side]):
            seen[k] = len(self.trails[foe])
        return True


def _covered(span: Span, here: Point) -> float:
    """Meters, less ``SLACK``, from ``here`` to the edge of the block of cells ``span``:
    every fighter that near stands in its cells. At least the radius the span was made for,
    often a cell more: when a nearest falls, the next one is found in the same cells."""
    x0, x1, y0, y1 = span
    x, y = here
    return min(x - x0 * CELL, (x1 + 1) * CELL - x, y - y0 * CELL, (y1 + 1) * CELL - y) - SLACK


def _moved(entries: list[list]) -> int:
    """The sum of the cell ``entries``' counts of arrivals and moves (all but falls)."""
    total = 0
    for entry in entries:
        total += entry[2]
    return total


def _stamps(entries: list[list]) -> int:
    """The sum of the stamps of cell ``entries`` (each only grows: an equal sum is every
    stamp the same)."""
    total = 0
    for entry in entries:
        total += entry[0]
    return total


def _nearest_in(entries: list[list], here: Point, reach: float) -> tuple[Any, float, int]:
    """The first of the nearest fighters (math.dist, ties to the lower index) of the cell
    ``entries``, its meters, and how many stand within ``reach`` of ``here``. A fighter
    farther east, west, north or south than both the best so far and ``reach`` (``OFF``) is
    passed over unmeasured: in a dense fight a look's cells hold a hundred enemies, most
    of them farther than the first few found."""
    dist = math.dist
    hx, hy = here
    seen: object = here  # (boxed once, not at every measure)
    best, best_d, best_i, count = None, math.inf, -1, 0
    off = math.inf
    for entry in entries:
        inside: list[Fighter] = entry[1]  # (typed: compiled, read without lookups)
        for e in inside:
            at = e.position
            dx = at[0] - hx
            dy = at[1] - hy
            if dx > off or -dx > off or dy > off or -dy > off:
                continue  # farther than both: neither the nearest nor in reach
            d = dist(seen, at)  # type: ignore[arg-type]
            if d <= reach:
                count += 1
            if d < best_d or (d == best_d and e.index < best_i):
                best, best_d, best_i = e, d, e.index
                off = (best_d if best_d > reach else reach) * OFF
    return best, best_d, count


def _ranking(entries: list[list], here: Point) -> list:
    """``[meters, fighters, 0]``: the fighters of the cell ``entries`` ranked by their meters
    from ``here``, then by index, and the meters in the same order: put in index order, then
    sorted by the meters alone (a stable sort keeps equal meters in index order). A tuple per
    fighter to sort by cost a dense fight more (compiled: the tuples' comparisons, and the
    garbage collector's visits to them while a memo keeps them) than the rest of a look."""
    found: list[Fighter] = []
    for entry in entries:
        found.extend(entry[1])
    found.sort(key=_BY_INDEX)
    dist = math.dist
    seen: object = here
    meters = [dist(seen, e.position) for e in found]  # type: ignore[arg-type]
    order = sorted(range(len(found)), key=meters.__getitem__)
    return [[meters[k] for k in order], [found[k] for k in order], 0]


def _remember(
    me: Fighter,
    layout: int,
    enemies: list[Fighter],
    meters: _Meters,
    nearest: Fighter | None,
    in_reach: int,
    nearest_d: float | None,
) -> EnemiesInView:
    """Keep what ``me`` sees in its own ``EnemiesInView``, made at its first measure, and
    the meters to its nearest when known (``nearest_d``): the tactics read them at once."""
    seen = me.enemies_seen
    if seen is NOT_SEEN:
        seen = me.enemies_seen = _blank(EnemiesInView)
    meters.nearest = nearest
    if nearest is not None and nearest_d is not None:
        meters[nearest.index] = nearest_d
    seen.layout = layout
    seen.enemies = enemies
    seen.meters = meters
    seen.nearest = nearest
    seen.in_reach = in_reach
    return seen


def cover_at(points: list[tuple], at: tuple[float, float]) -> str:
    """The cover of the first of ``points`` ((position, CoverPoint) pairs) within half a
    meter of ``at``; "none" when there is none."""
    for position, point in points:
        if math.dist(at, position) < 0.5:
            return point.cover
    return "none"


def _passing_at(a: Point, b: Point, p: Point, radius: float) -> float | None:
    """Where along the segment a->b (0 to 1) it passes within ``radius`` of p, closest, other
    than where it ends; None when it does not."""
    ax, ay = a
    dx, dy = b[0] - ax, b[1] - ay
    length2 = dx * dx + dy * dy
    if length2 == 0:
        return None
    # where along the line it comes closest (``t`` outside 0-1: clamped to an end, none here)
    t = ((p[0] - ax) * dx + (p[1] - ay) * dy) / length2
    if t <= 0.0 or t >= 1.0:  # closest where the mover starts or stops: leaving or closing
        return None  # in, not passing by
    return t if math.dist((ax + t * dx, ay + t * dy), p) <= radius else None
