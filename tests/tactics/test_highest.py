"""``weakest`` and ``most_dangerous`` pick with one pass over their pool (``_highest``): the
enemy ``max(pool, key=lambda e: (score, -meters))`` picks among those in reach (all of them
when none is; the battle lists them, ``within_reach``, and the tactics' tests of each policy
hold it to behaviour), ties to the nearest and then to the first, as before."""

from __future__ import annotations

import math
from types import SimpleNamespace

from hypothesis import given
from hypothesis import strategies as st

from combatsim.tactics.policies import _highest

# few distinct values, so that ties of score and of meters are common
enemy_rows = st.lists(
    st.tuples(st.sampled_from([0.0, 0.1, 0.5, 1.0]), st.sampled_from([0.0, 2.0, 2.5, 9.0])),
    min_size=1,
    max_size=8,
)


@given(enemy_rows, st.sampled_from([0.0, 2.0, 2.5, 5.0, math.inf]))
def test_highest_picks_what_max_over_the_pool_picks(rows, reach):
    enemies = [SimpleNamespace(index=10 + k, score=s) for k, (s, _) in enumerate(rows)]
    dist = {e.index: d for e, (_, d) in zip(enemies, rows, strict=True)}
    in_reach = [e for e in enemies if dist[e.index] <= reach]
    pool = in_reach or enemies
    expected = max(pool, key=lambda e: (e.score, -dist[e.index]))
    assert _highest(pool, lambda e: e.score, dist) is expected
