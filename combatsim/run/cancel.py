"""Stopping a run from outside it: a ``Cancel`` token, set from any thread.

A front end that runs a study in the background (a web server streaming summaries, a
notebook) hands the study a ``Cancel`` and calls ``cancel()`` when the user stops it. The
study checks the token each time a chunk comes in; once set, the run stops as it does for
Ctrl-C: worker processes stop after the battle they are in and hand back what they finished,
every finished battle is kept, and the result is marked interrupted (a run with an output
folder can then be resumed).

Ctrl-C (or SIGTERM, which the command line turns into one) raises ``KeyboardInterrupt`` at
whatever line the run is on. Where a step must be whole or not at all (a worker being started,
a finished chunk written to the journal and added to the tally), ``held_signals`` holds the
signal until the step is done and raises it there.
"""

from __future__ import annotations

import contextlib
import signal
import threading
from collections.abc import Iterator

HELD = (signal.SIGINT, signal.SIGTERM)


class Cancelled(Exception):  # noqa: N818 - a state, like KeyboardInterrupt, not an error
    """Raised inside a run when its ``Cancel`` is set; the backends take it like Ctrl-C."""


class Cancel:
    """A one-way switch: once ``cancel()`` is called, ``cancelled`` stays true."""

    def __init__(self) -> None:
        self._event = threading.Event()

    def cancel(self) -> None:
        self._event.set()

    @property
    def cancelled(self) -> bool:
        return self._event.is_set()

    def check(self) -> None:
        """Raise ``Cancelled`` once the run has been cancelled."""
        if self._event.is_set():
            raise Cancelled


@contextlib.contextmanager
def held_signals() -> Iterator[None]:
    """Hold Ctrl-C and SIGTERM in this thread for the block; one that came meanwhile is
    raised when it ends. (No-op where the system cannot hold signals.)"""
    if not hasattr(signal, "pthread_sigmask"):
        yield
        return
    previous = signal.pthread_sigmask(signal.SIG_BLOCK, HELD)
    try:
        yield
    finally:  # a signal that came meanwhile is raised here
        signal.pthread_sigmask(signal.SIG_SETMASK, previous)
