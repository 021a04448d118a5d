"""The fast loop's guard (tests/conftest.py): a test not marked slow whose call takes more than
the limit of CPU fails, however idle or busy the machine; one marked slow does not."""

from __future__ import annotations

BURNS = """
import time
import pytest


def burn(seconds):
    began = time.process_time()
    while time.process_time() - began < seconds:
        pass


def test_unmarked_and_slow():
    burn(0.15)


@pytest.mark.slow
def test_marked_and_slow():
    burn(0.15)


def test_unmarked_and_quick():
    pass
"""


def test_an_unmarked_test_over_the_cpu_limit_fails_and_a_marked_one_passes(pytester, monkeypatch):
    pytester.makepyfile(test_burns=BURNS)
    pytester.makeini("[pytest]\nmarkers = slow: slow")
    with monkeypatch.context() as limited:  # this test's own limit stays the usual one
        limited.setenv("COMBATSIM_SLOW_SECONDS", "0.05")
        done = pytester.runpytest_inprocess("-p", "tests.conftest", "-p", "no:cacheprovider")
    done.assert_outcomes(passed=2, failed=1)
    done.stdout.fnmatch_lines(
        ["*test_burns.py::test_unmarked_and_slow took 0.* s of CPU, over the fast suite's 0.05 s*"]
    )
    assert "test_marked_and_slow took" not in done.stdout.str()
