"""Golden results: every shipped scenario's first battles, pinned battle by battle.

A change to the engine, a rule system or a tactic that moves any result fails here. When
the move is meant (a rule fixed, a tactic corrected), regenerate the file and say in the
commit which scenarios moved and why:

    python tests/test_golden.py --update

Each scenario keeps, for its first ``BATTLES`` battles from its own seed, the winner and
turns of each battle (readable in a diff) and a digest of every combatant's record (the
rest, exactly). It also keeps the SHA-256 of the ``battles.csv`` and ``combatants.csv`` that
``combatsim run`` writes for ``CSV_BATTLES`` battles on one worker: the files a user reads,
byte for byte, which is what the speed work promises to leave alone.

The fast loop checks every scenario's battles and the files of one scenario of each rule
system (``FAST_CSV``: the writer is shared, its columns are the system's); running every
scenario's files, 4,400 battles through the whole command, is in the slow set.
"""

from __future__ import annotations

import hashlib
import json
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
GOLDEN = Path(__file__).with_name("golden") / "shipped.json"
BATTLES = 30
CSV_BATTLES = 200
SCENARIOS = sorted((ROOT / "scenarios").glob("*.yaml")) + sorted(
    (ROOT / "scenarios" / "tactics").glob("*.yaml")
)
FAST_CSV = {  # the cheapest scenario of each system
    "scenarios/4d8-temple-guardians.yaml",
    "scenarios/lost-souls-junkyard-dogs.yaml",
    "scenarios/sr-d8-chop-shop-bust.yaml",
    "scenarios/sr2097-sniper-duel.yaml",
    "scenarios/tactics/take-cover.yaml",
}


def fingerprint(path: Path) -> dict:
    return {**battle_digests(path), **csv_digests(path)}


def battle_digests(path: Path) -> dict:
    """The winner and turns of each of the first ``BATTLES`` battles, and a digest of every
    combatant's record."""
    from combatsim import load_scenario
    from combatsim.engine.battle import run_battle

    scenario = load_scenario(path)
    outcomes, digest = [], hashlib.sha256()
    for i in range(BATTLES):
        result = run_battle(scenario, scenario.seed, i)
        outcomes.append(f"{result.winner or 'draw'}@{result.turns}")
        for row in result.combatants:
            digest.update(json.dumps(row, sort_keys=True, default=str).encode())
    return {"battles": " ".join(outcomes), "combatants_sha256": digest.hexdigest()}


def csv_digests(path: Path) -> dict:
    """SHA-256 of the run's battles.csv and combatants.csv (one worker, the scenario's seed)."""
    import tempfile

    from combatsim.cli import main

    with tempfile.TemporaryDirectory() as folder:
        out = Path(folder) / "run"
        argv = ["run", str(path), "--battles", str(CSV_BATTLES), "--workers", "1"]
        code = main([*argv, "--out", str(out), "--quiet"])
        assert code == 0, f"{path}: combatsim run exited {code}"
        return {
            name: hashlib.sha256((out / name).read_bytes()).hexdigest()
            for name in ("battles.csv", "combatants.csv")
        }


def key(path: Path) -> str:
    return str(path.relative_to(ROOT))


def pinned(path: Path) -> dict:
    table = json.loads(GOLDEN.read_text(encoding="utf-8"))
    assert key(path) in table, f"{key(path)}: no golden results (python {__file__} --update)"
    return table[key(path)]


@pytest.mark.parametrize("path", SCENARIOS, ids=key)
def test_shipped_results_are_unchanged(path):
    got, expected = battle_digests(path), pinned(path)
    assert got == {name: expected[name] for name in got}


@pytest.mark.parametrize(
    "path",
    [p if key(p) in FAST_CSV else pytest.param(p, marks=pytest.mark.slow) for p in SCENARIOS],
    ids=key,
)
def test_shipped_runs_write_the_same_files(path):
    got, expected = csv_digests(path), pinned(path)
    assert got == {name: expected[name] for name in got}


def test_the_fast_files_are_shipped_scenarios_one_of_each_system():
    from combatsim import load_scenario

    assert {key(p) for p in SCENARIOS} >= FAST_CSV
    systems = {load_scenario(p).system.name for p in SCENARIOS}
    assert {load_scenario(ROOT / k).system.name for k in FAST_CSV} == systems


if __name__ == "__main__" and sys.argv[1:] == ["--update"]:
    GOLDEN.parent.mkdir(exist_ok=True)
    table = {key(p): fingerprint(p) for p in SCENARIOS}
    GOLDEN.write_text(json.dumps(table, indent=1) + "\n", encoding="utf-8")
    print(f"wrote {GOLDEN.relative_to(ROOT)}: {len(table)} scenarios x {BATTLES} battles")
