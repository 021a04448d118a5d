"""What the battle tests share: a roller that deals scripted faces, a scenario builder, and
readers of a battle's trace.

``ScriptedRoller`` replaces a battle's dice (``Battle(..., roller=ScriptedRoller(...))``): every
face of the battle's one kind of die (d6 by default; ``die=(1, 10)`` for Lost Souls,
``(1, 8)`` for 4D8, ``(0, 7)`` for the Shadowrun D8 pool) comes from a list in the order the
battle asks for it, so a worked example is a real battle with no randomness. ``DrawScript``
is for a system that rolls several kinds of dice (sr2097's d10 checks and d6 damage): it
deals whole draws and checks that each is the draw the battle asks for.

``build`` writes a scenario mapping in the scenario file's own shape and validates it with
``build_scenario``, so the tests use the loader exactly as a YAML file would.

``default_sigint`` is the ``preexec_fn`` of a child process a test sends Ctrl-C to.
"""

from __future__ import annotations

import signal
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from combatsim.engine.battle import Battle
from combatsim.engine.records import BattleResult, TraceEvent
from combatsim.engine.roll import Roller
from combatsim.scenario import Scenario, build_scenario


def default_sigint() -> None:
    """Ctrl-C's default handling in a child process: one started from a suite that ignores
    SIGINT (a script's background job does) would inherit that and never see the signal."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


class ScriptExhausted(AssertionError):
    """The battle asked for more faces than the script gives (and no ``then`` face was set)."""


class ScriptedRoller(Roller):
    """A ``Roller`` whose faces come from a script instead of a generator.

    ``faces``: faces of the die ``die`` (``(low, high)``) in the order the battle draws them.
    ``then``: the face dealt once the script is used up (None: running out is an error, so a
    test also pins how many faces the battle used). ``ties``: the initiative tie-break and
    random-target draws, numbered from 0 (0 when unscripted: scenario order). ``angles``:
    grenade directions in radians (0.0, along +x, when unscripted). ``load`` replaces the
    script, so one battle can be asked many tests on different faces.
    """

    def __init__(
        self,
        faces: Iterable[int] = (),
        *,
        die: tuple[int, int] = (1, 6),
        then: int | None = None,
        ties: Iterable[int] = (),
        angles: Iterable[float] = (),
    ):
        super().__init__(rng=None)  # no generator: any draw that bypasses _take fails loudly
        self.die = die
        self.then = then
        self.ties = list(ties)
        self.angles = list(angles)
        self.load(faces)

    def load(self, faces: Iterable[int]) -> None:
        """Deal ``faces`` from now on (what was dealt so far is forgotten)."""
        self.script = list(faces)
        self.pos = 0
        self.dealt: list[int] = []

    def _take(self, low: int, high: int, k: int) -> list[int]:
        if (low, high) == self.die:
            out = self.script[self.pos : self.pos + k]
            self.pos += len(out)
            if len(out) < k:
                if self.then is None:
                    raise ScriptExhausted(
                        f"the battle asked for {k} faces with {len(out)} left in the script "
                        f"(dealt so far: {self.dealt + out})"
                    )
                out = out + [self.then] * (k - len(out))
            self.dealt.extend(out)
            return out
        if low == 0:  # initiative tie-breaks (one per fighter, in order) or a random target
            values = [self.ties.pop(0) if self.ties else 0 for _ in range(k)]
            assert all(0 <= value <= high for value in values)
            return values
        raise AssertionError(f"unexpected draw of {k} faces {low}..{high}")

    def angle(self) -> float:
        return self.angles.pop(0) if self.angles else 0.0

    def left(self) -> list[int]:
        """The scripted faces the battle has not used."""
        return self.script[self.pos :]


class DrawScript(Roller):
    """Deals scripted ``(sides, faces)`` draws in order and checks each is what the battle
    asks for (``k`` faces of a d``sides``). Tie-break draws are 0 (scenario order)."""

    def __init__(self, *draws: tuple[int, list[int]]):
        super().__init__(rng=None)
        self.queue = list(draws)

    def _take(self, low: int, high: int, k: int) -> list[int]:
        if low == 0:
            return [0] * k
        assert self.queue, f"the battle asked for {k}d{high} beyond the script"
        sides, faces = self.queue.pop(0)
        assert (high, k) == (sides, len(faces)), f"asked {k}d{high}, script has {sides}: {faces}"
        return list(faces)

    def left(self) -> list[tuple[int, list[int]]]:
        """The scripted draws the battle has not asked for."""
        return self.queue


# --- scenarios and battles -----------------------------------------------------------------------


def build(
    system: str,
    sides: dict[str, list[dict[str, Any]]],
    *,
    weapons: dict[str, dict[str, Any]],
    armor: dict[str, dict[str, Any]],
    options: dict[str, Any] | None = None,
    environment: dict[str, Any] | None = None,
    turn_limit: int = 1,
    base: Path = Path("."),
    file: str = "<test>",
) -> Scenario:
    """Validate a scenario mapping of ``system``: ``sides`` maps a side name to its members."""
    data = {
        "name": "test",
        "rules": {"system": system, "options": dict(options or {})},
        "weapons": weapons,
        "armor": armor,
        "environment": dict(environment or {}),
        "sides": [{"name": n, "members": m} for n, m in sides.items()],
        "turn_limit": turn_limit,
    }
    return build_scenario(data, file, base)


def play(
    sc: Scenario, roller: Roller, *, trace: bool = True, all_used: bool = True
) -> tuple[Battle, BattleResult]:
    """Run one battle on ``roller``'s scripted dice; with ``all_used``, every scripted face
    (or draw) must have been asked for, so a test also pins how many the battle used."""
    battle = Battle(sc, rng=None, index=0, trace=trace, roller=roller)
    result = battle.run()
    if all_used:
        left = roller.left()  # type: ignore[attr-defined]
        assert not left, f"unused script: {left}\n{dump(result)}"
    return battle, result


def fighter(battle: Battle, name: str):
    """The battle's fighter called ``name``."""
    return next(f for f in battle.fighters if f.name == name)


def events(
    result: BattleResult, kind: str | None = None, actor: str | None = None
) -> list[TraceEvent]:
    """The trace events of a kind (any when None) by an actor (any when None), in order."""
    return [
        e
        for e in result.trace or []
        if (kind is None or e.kind == kind) and (actor is None or e.actor == actor)
    ]


def dump(result: BattleResult) -> str:
    """The trace as text, for assertion messages."""
    return "\n".join(
        f"t{e.turn} @{e.score} {e.actor}: [{e.kind}] {e.text}" for e in result.trace or []
    )


# --- one scenario's battles in memory, through the one way a scenario runs ----------------------


class Batch:
    """What the tests read of ``run_one``'s ``Result``: ``battles`` and ``combatants`` as
    DataFrames (empty when ``records`` kept none), ``summary``, ``interrupted``."""

    def __init__(self, result):
        import pandas as pd

        self.result = result
        self.summary = result.summary
        self.battles = result.battles if result.battles is not None else pd.DataFrame()
        self.combatants = result.combatants if result.combatants is not None else pd.DataFrame()

    @property
    def interrupted(self) -> bool:
        return self.result.interrupted

    @property
    def battles_completed(self) -> int:
        return self.summary["battles_completed"]


def run_battles(scenario, battles: int, seed: int | None = None, **options: Any) -> Batch:
    """Battles ``0 .. battles - 1`` of ``scenario`` in memory (one worker and every record
    unless told), run as ``combatsim run`` runs them: ``combatsim.sweeps.api.run_one``."""
    from combatsim.sweeps.api import run_one

    return Batch(run_one(scenario, battles=battles, seed=seed, **options))


def write_results(result: Batch, out_dir) -> list[Path]:
    """A batch's tables and summary written into ``out_dir`` as the reference a test compares
    the command line's files with (the files' fixed formats: ``combatsim.output``)."""
    from combatsim.output import (
        BATTLES_CSV,
        COMBATANTS_CSV,
        SUMMARY_JSON,
        write_casualties,
        write_csv,
        write_summary,
    )

    folder = Path(out_dir)
    folder.mkdir(parents=True, exist_ok=True)
    return [
        write_csv(result.battles, folder / BATTLES_CSV),
        write_csv(result.combatants, folder / COMBATANTS_CSV),
        *write_casualties([result.summary], folder),
        write_summary(result.summary, folder / SUMMARY_JSON),
    ]


# Set by tests/conftest.py: whether this session is the fast loop (``-m "not slow"``).
FAST_LOOP = False
FAST_SHARE = 4  # the fast loop tries a property on this share of its examples


def examples(full: int) -> int:
    """Hypothesis examples for a property test: ``full`` in the whole suite (CI runs it), a
    quarter in the fast loop, which checks the same property on fewer random cases."""
    return max(10, full // FAST_SHARE) if FAST_LOOP else full
