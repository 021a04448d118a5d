"""A big fight's grid (``field._Grid``) must answer exactly what a scan of every fighter
answers: the same nearest enemy (math.dist, the first of equals in fighter order), the same
count in melee reach, the same meters, the same free cover point, and every opponent a move
may pass, whatever moved or fell since a fighter last looked (its memo stands only while
nothing changed near it). Random layouts, moves, falls and returns, against brute force."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from combatsim.engine import field
from combatsim.engine.battle import Battle
from combatsim.engine.field import INTERCEPT_DISTANCE, _passing_at
from combatsim.scenario import load_scenario
from tests.helpers import examples

ROOT = Path(__file__).resolve().parents[2]
CELL = field.CELL


@pytest.fixture(scope="module")
def three_sides(tmp_path_factory):
    """The 4v4 firefight with a third side, and cover points on and around cell edges."""
    data = yaml.safe_load((ROOT / "scenarios" / "sr-firefight-4v4.yaml").read_text())
    data["catalogues"] = [str(ROOT / "scenarios" / "catalogues" / "sr-classic.yaml")]
    third = dict(data["sides"][1], name="third")
    third["members"] = [dict(m, name=f"{m['name']} 3") for m in third["members"]]
    data["sides"].append(third)
    data["environment"]["cover_points"] = [
        {"position": [x, y], "cover": "partial"}
        for x in (0.0, CELL - 0.25, CELL, 2.5 * CELL)
        for y in (0.0, 0.5, CELL)
    ]
    path = tmp_path_factory.mktemp("grid") / "three.yaml"
    path.write_text(yaml.safe_dump(data))
    return load_scenario(path)


# coordinates on and next to cell edges, equal ones (ties), and far ones
EDGY = [0.0, 1.0, 2.0, 3.0, CELL, CELL - 1e-9, CELL + 1e-9, -CELL, 2 * CELL, 0.5, -0.5, 1.9999999]
lattice = st.integers(-3, 3).map(float)  # equal distances: ties for the nearest
coordinate = st.one_of(
    lattice,
    lattice,
    st.sampled_from(EDGY),
    st.floats(-3 * CELL, 3 * CELL, allow_nan=False),
    st.sampled_from([-99_999.0, 99_999.0, 5_000.0]),
)
point = st.tuples(coordinate, coordinate)
step = st.one_of(
    st.tuples(st.just("move"), st.integers(0, 11), point),
    st.tuples(st.just("fall"), st.integers(0, 11), st.just((0.0, 0.0))),
    st.tuples(st.just("look"), st.integers(0, 11), point),
)


def _brute(b: Battle, me, here=None):
    here = me.position if here is None else here
    enemies = [f for f in b.fighters if f.can_act and f.side != me.side]
    meters = {e.index: math.dist(here, e.position) for e in enemies}
    nearest = min(enemies, key=lambda e: meters[e.index]) if enemies else None
    in_reach = sum(1 for d in meters.values() if d <= b.melee_range)
    return enemies, meters, nearest, in_reach


def _brute_cover(b: Battle, me, within):
    """``free_cover_point``'s answer by its scan of every point and every fighter."""
    best, best_d = None, math.inf
    for k, (at, point) in enumerate(b.field.cover_points):
        d = math.dist(me.position, at)
        if d > within + 1e-9 or d >= best_d:
            continue
        holder = b.field.cover_claims.get(k)
        if holder is not None and holder.can_act and holder.cover == "none" and holder is not me:
            continue
        if any(o is not me and o.can_act and math.dist(o.position, at) < 0.5 for o in b.fighters):
            continue
        best, best_d = point, d
    return best


def _check(b: Battle, me, dest):
    view = b.enemies_in_view(me)
    enemies, meters, nearest, in_reach = _brute(b, me)
    assert list(view.enemies) == enemies
    assert view.nearest is nearest
    assert view.in_reach == in_reach
    for e in b.fighters:
        assert (e in view.enemies) == (e in enemies)
    for reach in (b.melee_range, 10.0, *list(meters.values())[:3]):
        assert view.meters.within(view.enemies, reach) == [
            e for e in enemies if meters[e.index] <= reach
        ]
    assert {e.index: view.meters[e.index] for e in enemies} == meters
    if enemies:
        from_dest, nearest_there = view.meters.measured_from(dest)
        _, meters_there, brute_there, _ = _brute(b, me, dest)
        assert nearest_there is brute_there
        assert {e.index: from_dest[e.index] for e in enemies} == meters_there
    expected = _brute_cover(b, me, 10.0)
    assert b.free_cover_point(me, 10.0) is expected
    for side, standing in b.field.grid.standing.items():  # what ``check_victory`` reads
        assert standing == sum(1 for f in b.fighters if f.can_act and f.side == side)


@settings(
    max_examples=examples(150),
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture],
)
@given(start=st.lists(point, min_size=12, max_size=12), steps=st.lists(step, max_size=40))
def test_grid_answers_what_a_scan_answers(three_sides, monkeypatch, start, steps):
    monkeypatch.setattr(field, "SHARED_LISTS", 0)  # the big-fight path, with its grid
    b = Battle(three_sides, np.random.default_rng(1))
    assert b.field.grid is not None
    for f, at in zip(b.fighters, start, strict=True):
        f.position = at
        b.field.moved(f)
    for kind, index, at in steps:
        f = b.fighters[index]
        if kind == "move":
            f.position = at
            b.field.moved(f)
        elif kind == "fall":  # falls, or stands up again
            f.can_act = not f.can_act
            b.field.roster_changed(f)
        elif f.can_act:
            _check(b, f, at)
    for f in b.fighters:
        if f.can_act:
            _check(b, f, (0.0, 0.0))


@settings(
    max_examples=examples(150),
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture],
)
@given(
    start=st.lists(point, min_size=12, max_size=12),
    way=st.tuples(st.integers(0, 11), point, point),
)
def test_passers_by_hold_everyone_a_way_passes(three_sides, monkeypatch, start, way):
    monkeypatch.setattr(field, "SHARED_LISTS", 0)
    b = Battle(three_sides, np.random.default_rng(1))
    for f, at in zip(b.fighters, start, strict=True):
        f.position = at
        b.field.moved(f)
    index, a, z = way
    me = b.fighters[index]
    passing = {
        e.index
        for e in b.fighters
        if e.can_act
        and e.side != me.side
        and _passing_at(a, z, e.position, INTERCEPT_DISTANCE) is not None
    }
    found = b.field._passers_by(me, a, z)
    assert passing <= {e.index for e in found}
    assert all(e.can_act and e.side != me.side for e in found)


# sides far apart (each its own offset, as in the 2,000 apart benchmark), on a lattice: equal
# distances (ties) between far fighters, and moves that bring one near or take it far again
offset = st.sampled_from([0.0, 50_000.0, -50_000.0, 99_000.0])
far_point = st.tuples(lattice, lattice)
far_step = st.one_of(
    st.tuples(st.just("move"), st.integers(0, 11), point),
    st.tuples(st.just("move"), st.integers(0, 11), far_point),
    st.tuples(st.just("fall"), st.integers(0, 11), st.just((0.0, 0.0))),
    st.tuples(st.just("look"), st.integers(0, 11), far_point),
)


def _bound_holds(b: Battle) -> None:
    """``_Grid.apart`` is a lower bound of the meters to every standing enemy."""
    for me in b.fighters:
        enemies = [e for e in b.fighters if e.can_act and e.side != me.side]
        nearest = min((math.dist(me.position, e.position) for e in enemies), default=math.inf)
        assert b.field.grid.apart(me.side, me.position) <= nearest


@settings(
    max_examples=examples(150),
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture],
)
@given(
    offsets=st.tuples(offset, offset, offset),
    start=st.lists(far_point, min_size=12, max_size=12),
    steps=st.lists(far_step, max_size=30),
)
def test_far_sides_get_what_a_scan_gets(three_sides, monkeypatch, offsets, start, steps):
    """Sides kilometres apart: the nearest (the first of equals, found among all with numpy
    and decided by math.dist), the count in reach, the meters within any reach, from where
    a fighter stands and from where it walks to, as brute force has them; and the extent's
    bound is never above the meters to a standing enemy."""
    monkeypatch.setattr(field, "SHARED_LISTS", 0)
    b = Battle(three_sides, np.random.default_rng(1))
    sides = {s: k for k, s in enumerate(b.sides)}
    for f, (x, y) in zip(b.fighters, start, strict=True):
        f.position = (offsets[sides[f.side]] + x, y)
        b.field.moved(f)
    _bound_holds(b)
    for kind, index, at in steps:
        f = b.fighters[index]
        near_side = (offsets[sides[f.side]] + at[0], at[1])
        # a lattice point moves near the fighter's side; others land where they say
        to = near_side if at[0] == int(at[0]) and abs(at[0]) <= 3 else at
        if _played(b, kind, f, to) and f.can_act:  # a look from near its side
            _check(b, f, near_side)
        _bound_holds(b)
    for f in b.fighters:
        if f.can_act:
            _check(b, f, f.position)


def test_far_nearest_ties_go_to_the_first_in_fighter_order(three_sides, monkeypatch):
    """Enemies 50 km off at exactly equal meters (mirror images across the line of sight,
    and the same point twice): the first of them in fighter order is the nearest, whatever
    numpy's hypot makes of them."""
    monkeypatch.setattr(field, "SHARED_LISTS", 0)
    b = Battle(three_sides, np.random.default_rng(1))
    me = b.fighters[0]
    enemies = [f for f in b.fighters if f.side != me.side]
    me.position = (0.0, 0.0)
    b.field.moved(me)
    for k, e in enumerate(enemies):  # pairs at (50 km, +-y): equal meters, the later first
        y = float(7 - k // 2)
        e.position = (50_000.0, y if k % 2 else -y)
        b.field.moved(e)
    _check(b, me, (0.0, 1e-9))
    view = b.enemies_in_view(me)
    assert view.nearest is enemies[-2]  # the last pair is the nearest: its first member
    assert view.in_reach == 0
    for e in enemies:  # every one at the very same point
        e.position = (50_000.0, 3.0)
        b.field.moved(e)
    assert b.enemies_in_view(me).nearest is enemies[0]
    _check(b, me, (-3.0, 3.0))


def test_an_enemy_entering_an_empty_cell_is_seen(three_sides, monkeypatch):
    """A memo stands on the cells it was found in; an enemy that walks into a cell no one
    stood in till then (a cell entry made after the memo) must still be seen."""
    monkeypatch.setattr(field, "SHARED_LISTS", 0)
    b = Battle(three_sides, np.random.default_rng(1))
    me = b.fighters[0]
    enemies = [f for f in b.fighters if f.side != me.side]
    me.position = (-200.0, -200.0)  # away from the cover points' cells
    b.field.moved(me)
    for k, e in enumerate(enemies):
        e.position = (-185.0, -200.0) if k == 0 else (5_000.0 + k, 5_000.0)
        b.field.moved(e)
    assert b.enemies_in_view(me).nearest is enemies[0]
    b.layout += 1
    assert b.enemies_in_view(me).nearest is enemies[0]  # the memo stands
    enemies[1].position = (-195.0, -200.0)  # into a cell empty till now
    b.field.moved(enemies[1])
    assert b.enemies_in_view(me).nearest is enemies[1]
    _check(b, me, (-190.0, -190.0))


# beyond the rings and within LEVELS_REACH: points hundreds of meters apart, on and beside
# the coarser levels' cell edges (128 m and 1,024 m), on a lattice (ties), none farther apart
# than LEVELS_REACH (within 700 m of the origin: the levels always answer)
COARSE_EDGES = [0.0, 128.0, -128.0, 127.99999999, 128.00000001, 384.0, -640.0, 300.0, -300.0]
mid_coordinate = st.one_of(
    st.sampled_from(COARSE_EDGES),
    st.integers(-7, 7).map(lambda v: 100.0 * v),
    st.floats(-700.0, 700.0, allow_nan=False),
)
mid_point = st.tuples(mid_coordinate, mid_coordinate)
mid_step = st.one_of(
    st.tuples(st.just("move"), st.integers(0, 11), mid_point),
    st.tuples(st.just("fall"), st.integers(0, 11), st.just((0.0, 0.0))),
    st.tuples(st.just("look"), st.integers(0, 11), mid_point),
)


def _levels_from_scratch(grid) -> dict:
    """What ``_Grid.levels`` must hold: per side and coarser level, the cells one level finer
    that hold a standing fighter of the side, under the cell that holds them."""
    levels = {}
    for side, cells in grid.cells.items():
        filled = {key for key, entry in cells.items() if entry[1]}
        per_level = []
        for _ in range(field.LEVELS):
            parents: dict[int, set[int]] = {}
            for key in filled:
                parents.setdefault(field._parent(key), set()).add(key)
            per_level.append(parents)
            filled = set(parents)
        levels[side] = per_level
    return levels


def _anywhere_is_brute(b: Battle, me, here) -> None:
    """``nearest_anywhere`` from ``here``, with no hint and with every fighter as the hint
    (near, far, fallen, of any side), is the first of the nearest by math.dist; on a
    small budget, that or None (it gave up)."""
    _, meters, nearest, _ = _brute(b, me, here)
    expected = (nearest, meters[nearest.index]) if nearest is not None else (None, math.inf)
    for hint in (None, *b.fighters):
        assert b.field.grid.nearest_anywhere(me.side, here, hint, 10**9) == expected
        assert b.field.grid.nearest_anywhere(me.side, here, hint, 3) in (expected, None)


def _standing_at(scenario, start):
    """A battle of ``scenario`` with its fighters moved to ``start``, one by one."""
    b = Battle(scenario, np.random.default_rng(1))
    for f, at in zip(b.fighters, start, strict=True):
        f.position = at
        b.field.moved(f)
    return b


def _played(b, kind, f, at):
    """One step of ``mid_step``: ``f`` moves to ``at`` or falls (or rises) here; a look is
    the caller's (True)."""
    if kind == "move":
        f.position = at
        b.field.moved(f)
    elif kind == "fall":
        f.can_act = not f.can_act
        b.field.roster_changed(f)
    else:
        return True
    return False


@settings(
    max_examples=examples(150),
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture],
)
@given(start=st.lists(mid_point, min_size=12, max_size=12), steps=st.lists(mid_step, max_size=40))
def test_the_coarser_levels_find_what_a_scan_finds(three_sides, monkeypatch, start, steps):
    """Fighters hundreds of meters apart, beyond the rings: the coarser levels list exactly
    the cells that hold someone, move by move and fall by fall, and the nearest they find
    (and ``enemies_in_view``'s, from where a fighter stands and where it walks to) is brute
    force's, ties to the first in fighter order; no pass over all the enemies is made."""
    monkeypatch.setattr(field, "SHARED_LISTS", 0)

    def no_pass(here, enemies):
        raise AssertionError("a pass over every enemy, within LEVELS_REACH")

    monkeypatch.setattr(field, "_nearest_of_all", no_pass)  # (the Python source only)
    monkeypatch.setattr(field, "LEVELS_WORK", 10**9)  # (they never give up)
    b = _standing_at(three_sides, start)
    assert not b.field.grid.far_kept  # kept from the first look beyond the rings
    b.field.grid.keep_far()
    assert b.field.grid.levels == _levels_from_scratch(b.field.grid)
    for kind, index, at in steps:
        f = b.fighters[index]
        if _played(b, kind, f, at):  # a look from ``at``
            _anywhere_is_brute(b, f, at)
            if f.can_act:
                _check(b, f, at)
        assert b.field.grid.levels == _levels_from_scratch(b.field.grid)
    for f in b.fighters:
        _anywhere_is_brute(b, f, f.position)
        if f.can_act:
            _check(b, f, (0.0, 0.0))


def test_the_coarser_levels_break_ties_to_the_first_in_fighter_order(three_sides, monkeypatch):
    """Enemies hundreds of meters off at exactly equal meters (mirror images across the line
    of sight, in other cells of every level, the later in fighter order on the side looked
    at first): the first of them in fighter order is the nearest; a hint at the very same
    meters as the nearest, but later in fighter order, is not taken for it."""
    monkeypatch.setattr(field, "SHARED_LISTS", 0)
    b = Battle(three_sides, np.random.default_rng(1))
    me = b.fighters[0]
    enemies = [f for f in b.fighters if f.side != me.side]
    me.position = (0.5, 0.5)
    b.field.moved(me)
    for k, e in enumerate(enemies):  # pairs at (+-(x - 0.5) + 0.5, 0.5): equal meters
        x = 300.0 + 131.0 * (k // 2)
        e.position = (0.5 + x if k % 2 else 0.5 - x, 0.5)
        b.field.moved(e)
    grid = b.field.grid
    assert grid.nearest(me.side, me.position) == (None, math.inf)  # beyond the rings
    first, second = enemies[0], enemies[1]
    assert math.dist(me.position, first.position) == math.dist(me.position, second.position)
    assert grid.nearest_anywhere(me.side, me.position) == (first, 300.0)
    assert grid.nearest_anywhere(me.side, me.position, second) == (first, 300.0)
    assert grid.nearest_anywhere(me.side, me.position, enemies[-1]) == (first, 300.0)
    assert b.enemies_in_view(me).nearest is first
    _check(b, me, (-1.5, 0.5))
    first.can_act = False  # it falls: the other of the pair is the nearest
    b.field.roster_changed(first)
    assert grid.nearest_anywhere(me.side, me.position, first) == (second, 300.0)
    assert b.enemies_in_view(me).nearest is second
    _check(b, me, (0.5, 0.5))


def test_a_far_memo_sees_a_change_at_its_very_radius(three_sides, monkeypatch):
    """A far fighter's memo (its radius spans too many cells to watch) stands while every
    enemy that moved was beyond its radius, before and after the move; an enemy that comes
    to the nearest's very meters, earlier in fighter order, is the nearest then, and one that
    leaves the nearest's place is missed no more than one that falls."""
    monkeypatch.setattr(field, "SHARED_LISTS", 0)
    b = Battle(three_sides, np.random.default_rng(1))
    me = b.fighters[0]
    enemies = [f for f in b.fighters if f.side != me.side]
    me.position = (0.5, 0.5)
    b.field.moved(me)
    for k, e in enumerate(enemies):
        e.position = (1000.5 + 10.0 * k, 0.5)
        b.field.moved(e)
    last = enemies[-1]
    last.position = (300.5, 0.5)  # the nearest, 300 m off
    b.field.moved(last)
    assert b.enemies_in_view(me).nearest is last
    assert me.seen_from[1] is None  # a memo on too many cells: it watches the trails
    assert me.seen_from[5] is not None
    for k in range(3):  # moves far beyond: the memo stands, and is right
        enemies[1].position = (1500.5 + k, 0.5)
        b.field.moved(enemies[1])
        _check(b, me, me.position)
        assert b.enemies_in_view(me).nearest is last
    enemies[0].position = (0.5, 300.5)  # the very same meters, earlier in fighter order
    b.field.moved(enemies[0])
    assert b.enemies_in_view(me).nearest is enemies[0]
    _check(b, me, me.position)
    enemies[0].position = (0.5, 900.5)  # it walks away: the other is the nearest again
    b.field.moved(enemies[0])
    assert b.enemies_in_view(me).nearest is last
    _check(b, me, me.position)
    for k in range(field.TRAIL_LOOK + 1):  # too many changes to look through: afresh
        enemies[1].position = (1500.5, 0.5 + k)
        b.field.moved(enemies[1])
    assert b.enemies_in_view(me).nearest is last
    _check(b, me, me.position)


@settings(
    max_examples=examples(60),
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture],
)
@given(start=st.lists(mid_point, min_size=12, max_size=12), steps=st.lists(mid_step, max_size=30))
def test_levels_that_give_up_leave_it_to_a_pass(three_sides, monkeypatch, start, steps):
    """On a budget of a few cells the coarser levels give up, and a pass over every enemy
    (for the next few looks too) finds what brute force finds."""
    monkeypatch.setattr(field, "SHARED_LISTS", 0)
    monkeypatch.setattr(field, "LEVELS_WORK", 2)
    b = _standing_at(three_sides, start)
    for kind, index, at in steps:
        f = b.fighters[index]
        if _played(b, kind, f, at) and f.can_act:  # a look from ``at``
            _check(b, f, at)
    for f in b.fighters:
        if f.can_act:
            _check(b, f, f.position)


def _crowd(three_sides, monkeypatch, start):
    monkeypatch.setattr(field, "SHARED_LISTS", 0)  # the big-fight path, with its grid
    b = Battle(three_sides, np.random.default_rng(1))
    for f, at in zip(b.fighters, start, strict=True):
        f.position = at
        b.field.moved(f)
    return b


@settings(
    max_examples=examples(150),
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture],
)
@given(
    start=st.lists(st.tuples(lattice, lattice), min_size=12, max_size=12),
    steps=st.lists(st.tuples(st.sampled_from(["fall", "look", "look"]), st.integers(0, 11))),
)
def test_falls_alone_answer_from_the_ranking_what_a_scan_answers(
    three_sides, monkeypatch, start, steps
):
    """With no one moving (a dense fight: only falls, and a return now and then), a
    fighter's looks after the first come from its ranking of the enemies in its cells
    (``_Grid._ranked``), the fallen skipped: the same nearest, ties and count as a scan."""
    b = _crowd(three_sides, monkeypatch, start)
    for kind, index in steps:
        f = b.fighters[index]
        if kind == "fall":
            f.can_act = not f.can_act
            b.field.roster_changed(f)
        elif f.can_act:
            _check(b, f, (0.0, 0.0))


def test_a_fighter_ranks_its_enemies_once_while_only_falls_change_them(three_sides, monkeypatch):
    """Each fall near a fighter in a dense fight used to make it measure every enemy in its
    cells again; from the second such look it reads its ranking instead."""
    start = [(0.0, 3.0 * k) for k in range(4)] + [(6.0 + k, 3.0 * k) for k in range(8)]
    b = _crowd(three_sides, monkeypatch, start)
    me = b.fighters[0]
    scans = []
    monkeypatch.setattr(field, "_nearest_in", lambda *a: scans.append(1) or _nearest_in(*a))
    _check(b, me, (0.0, 0.0))
    for k in (4, 5, 6, 8, 9):
        b.fighters[k].can_act = False
        b.field.roster_changed(b.fighters[k])
        _check(b, me, (0.0, 0.0))
    assert len(scans) <= 2  # its first look and the first look after a fall: no more


_nearest_in = field._nearest_in
