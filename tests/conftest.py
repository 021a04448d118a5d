"""Shared test set-up: the scripted dice and the fast loop.

The shared scripted roller (``ScriptedRoller``, ``DrawScript``) and the scenario builder and
battle runner on it (``build``, ``play``) live in ``tests/helpers.py``, as plain functions to
import; the fixtures below hand them to a test that prefers a fixture and check, when the test
ends, that every script it made was used up (a worked example also pins how many faces the
battle rolled).

``python -m pytest -q -m "not slow"`` is the developer's loop (under a minute); the statistical,
fault, fuzz and heavy subprocess tests carry the ``slow`` marker and run with the plain
``python -m pytest -q``. A test not marked slow that takes longer than ``SLOW_SECONDS`` is
named at the end of the run, so the fast loop stays fast as tests are added.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator

import pytest

from tests.helpers import ScriptedRoller

SLOW_SECONDS = 2.0  # a test above this belongs in the slow set (or should get faster)

_unmarked_slow: list[tuple[str, float]] = []


@pytest.fixture
def scripted() -> Iterator:
    """A factory of ``ScriptedRoller`` (same arguments); at the end of the test each roller
    made with no ``then`` face must have dealt its whole script."""
    made: list[ScriptedRoller] = []

    def make(faces: Iterable[int] = (), **kw) -> ScriptedRoller:
        roller = ScriptedRoller(faces, **kw)
        made.append(roller)
        return roller

    yield make
    for roller in made:
        if roller.then is None:
            assert roller.left() == [], f"scripted faces never rolled: {roller.left()}"


def pytest_runtest_logreport(report: pytest.TestReport) -> None:
    if report.when == "call" and report.duration > SLOW_SECONDS and "slow" not in report.keywords:
        _unmarked_slow.append((report.nodeid, report.duration))


def pytest_terminal_summary(terminalreporter) -> None:
    if _unmarked_slow:
        terminalreporter.section(f"tests over {SLOW_SECONDS:g}s not marked slow")
        for nodeid, seconds in sorted(_unmarked_slow, key=lambda x: -x[1]):
            terminalreporter.write_line(f"{seconds:6.2f}s {nodeid}")
