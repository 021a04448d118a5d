"""Shared test set-up: the scripted dice and the fast loop.

The shared scripted roller (``ScriptedRoller``, ``DrawScript``) and the scenario builder and
battle runner on it (``build``, ``play``) live in ``tests/helpers.py``, as plain functions to
import; the fixtures below hand them to a test that prefers a fixture and check, when the test
ends, that every script it made was used up (a worked example also pins how many faces the
battle rolled).

``python -m pytest -q -m "not slow"`` is the developer's loop (about 56 s of CPU on a quiet
machine and 80 on a loaded one, as docs/development.md says); the statistical, fault, fuzz
and heavy subprocess or multi-worker tests carry the ``slow`` marker and run with the plain
``python -m pytest -q``. A test not marked slow whose call takes more than ``SLOW_SECONDS``
(2 s) of CPU fails, so the fast loop stays fast as tests are added. CPU, not wall time: the
count is this process's (every thread) and its children's that ended during the call, so a
loaded machine does not fail a test, while a subprocess's work still counts.
``COMBATSIM_SLOW_SECONDS=0`` turns the check off (a profiler or coverage run).

Once the tests are collected, what collecting built (the test items, their modules, a quarter
of a million objects) is frozen out of the cyclic garbage collector, and the collector runs
less often: its full passes over that heap took nearly a tenth of the fast loop's CPU. What
a test builds is collected as before, and a test that calls ``gc.collect()`` still gets a full
collection of it.
"""

from __future__ import annotations

import gc
import os
import resource
import time
from collections.abc import Iterable, Iterator

import pytest

import tests.helpers
from tests.helpers import ScriptedRoller

_CALL_CPU = pytest.StashKey[float]()

# CPU seconds: a test above this belongs in the slow set (or should get faster). The fast suite's
# unmarked tests all take under 1.5 s on the development machine: the margin is for a slower one.
SLOW_SECONDS = 2.0

pytest_plugins = ["pytester"]  # tests/test_conftest.py runs this guard on tests of its own


def slow_seconds() -> float:
    """``SLOW_SECONDS``, or ``COMBATSIM_SLOW_SECONDS`` where set (0: no limit)."""
    return float(os.environ.get("COMBATSIM_SLOW_SECONDS", SLOW_SECONDS))


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


# Young objects between collections (Python's default is 700): a test session makes millions
# and keeps few, so fewer, larger young collections do the same work with less overhead.
GC_THRESHOLD = (10_000, 10, 10)


def pytest_configure(config: pytest.Config) -> None:
    """The fast loop (``-m "not slow"``) tries each Hypothesis property on a quarter of its
    examples (``helpers.examples``; 25 where a test names none): the whole suite, as CI runs
    it, tries them all."""
    if "".join(str(config.getoption("markexpr", "")).split()) != "notslow":
        return
    tests.helpers.FAST_LOOP = True
    from hypothesis import settings

    settings.register_profile("fast-loop", max_examples=100 // tests.helpers.FAST_SHARE)
    settings.load_profile("fast-loop")


def pytest_collection_finish(session: pytest.Session) -> None:
    """Leave the collected session out of every later garbage collection (see above)."""
    gc.freeze()
    gc.set_threshold(*GC_THRESHOLD)


def cpu_seconds() -> float:
    """This process's CPU time (all threads) and that of its children waited for so far."""
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    return time.process_time() + children.ru_utime + children.ru_stime


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_call(item: pytest.Item) -> Iterator[None]:
    began = cpu_seconds()
    yield
    item.stash[_CALL_CPU] = cpu_seconds() - began


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo) -> Iterator[None]:
    """Fail the call of an unmarked test over ``SLOW_SECONDS`` of CPU (a passing one only: a
    failure says more than its time)."""
    outcome = yield
    report = outcome.get_result()
    spent = item.stash.get(_CALL_CPU, 0.0)
    if report.when != "call" or not report.passed or item.get_closest_marker("slow"):
        return
    limit = slow_seconds()
    if limit > 0 and spent > limit:
        report.outcome = "failed"
        report.longrepr = (
            f"{item.nodeid} took {spent:.2f} s of CPU, over the fast suite's {limit:g} s:"
            " mark it @pytest.mark.slow or make it faster (tests/conftest.py)"
        )
