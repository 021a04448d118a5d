"""``--trace K`` replays battle K exactly as it ran in a batch, in every rule system.

An untraced battle takes shortcuts a traced one does not (it counts dice without building
their chains, builds no text), so the two must be checked against each other: for many K,
the traced battle's row and combatant rows must equal row K of a batch run the way ``combatsim
run`` runs it (``simulate``, chunks, records kept). The scenarios cover every rule system and
the paths where the shortcuts differ most: Rule of Six chains above TN 6 (autofire against
armor), Instant Karma re-rolls of failed dice (``karma: attack``), the D8 dice with the TN
cap, grenades, melee and interception.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from combatsim.engine import run_battle
from combatsim.scenario import load_scenario
from tests.helpers import run_battles

ROOT = Path(__file__).resolve().parents[2]
SCENARIOS = [
    "sr-firefight-4v4",  # sr-classic
    "sr-autofire-vs-armor",  # sr-classic, Instant Karma on attack
    "sr-grenade-ambush",  # sr-classic, grenades in flight
    "sr-bar-brawl",  # sr-classic, melee and interception
    "sr-d8-chop-shop-bust",  # sr-d8, Rule of Seven, Instant Karma
    "sr2097-runners-vs-patrol",  # sr2097
    "4d8-dockside-shootout",  # 4d8
    "lost-souls-warehouse-raid",  # lost-souls
]
BATTLES = 60


def _rows(frame, index: int) -> list[dict]:
    return [
        {k: (None if v != v else v) for k, v in row.items()}  # NaN (no knock-out) as None
        for row in frame[frame["battle"] == index].to_dict("records")
    ]


def _plain(rows: list[dict]) -> list[dict]:
    return [{k: (None if v is None or v != v else v) for k, v in row.items()} for row in rows]


# the first scenario in the fast loop, all of them in the full run (heavy: 60 battles each, twice)
FAST_FIRST = [SCENARIOS[0], *(pytest.param(n, marks=pytest.mark.slow) for n in SCENARIOS[1:])]


@pytest.mark.parametrize("name", FAST_FIRST)
def test_traced_battle_k_is_row_k_of_the_batch(name):
    scenario = load_scenario(ROOT / "scenarios" / f"{name}.yaml")
    batch = run_battles(scenario, BATTLES, chunk_size=7, records="all")
    for k in range(BATTLES):
        traced = run_battle(scenario, scenario.seed, k, trace=True)
        assert traced.trace, "the replay must carry its trace"
        assert _plain([traced.battle]) == _rows(batch.battles, k), f"battle {k}"
        assert _plain(traced.combatants) == _rows(batch.combatants, k), f"battle {k}"
