"""The engine's only uses of simpy's private parts, kept in one place with their own tests.

simpy has no public way to (a) schedule an event at a chosen priority (``Timeout`` always
uses ``NORMAL``), (b) set off again an event that has already been processed, or (c) break
the reference cycles a finished simulation leaves. The battle needs all three: initiative
ties are ordered by priority (``At``), a fighter waits between turns on one reusable event
(``Alarm``: one object per fighter instead of one per turn), and a batch frees each finished
battle by reference counting (``release``), which is about 3% of a battle's time (measured).
Each does what simpy's own ``Timeout.__init__``, ``Event.succeed`` and
``Environment.schedule`` do, writing the same attributes: ``Event._ok``, ``Event._value``
(``PENDING`` until triggered), ``Event.callbacks`` (``None`` once processed),
``Process._generator`` and ``Environment._queue``; ``At`` and ``Alarm`` push onto the queue
what ``Environment.schedule`` pushes (``(_now + delay, priority, next(_eid), event)``, one
Python call less per event).

Three more do what simpy does with fewer events or calls, in the same order, because a
battle is mostly events (a tenth to a fifth of its time, measured): ``started`` runs a new
process to its first ``yield`` at once, as its ``Initialize`` event would (writing
``Process._target`` and ``Environment._active_proc`` as ``Process._resume`` does);
``advance`` moves ``Environment._now`` on, as ``Environment.step`` would, when the event a
process would wait on would be the next one processed anyway; ``run_until`` is
``Environment.run(until=event)`` with ``step`` inline.

Tested on simpy 4.1.0, 4.1.1 and 4.1.2 (``tests/engine/test_simpy_parts.py`` checks that
these attributes exist and behave as relied on; ``started``, ``advance`` and ``run_until``
against what ``env.process`` and ``env.run`` do); ``pyproject.toml`` pins simpy to
``>=4.1,<4.2`` accordingly. A new simpy version must pass those tests before the pin moves.
"""

from __future__ import annotations

from collections.abc import Generator, Iterable
from heapq import heappop, heappush
from typing import Any

import simpy
from simpy.events import PENDING, Event

__all__ = ["At", "Alarm", "advance", "release", "run_until", "started"]


class At(Event):
    """An event at ``delay`` from now with an explicit priority (simpy's ``Timeout`` has none).

    Lower priority values are processed first among events at the same time; the engine uses
    it for initiative ties (higher Reaction first, then a random draw) and to end a turn after
    whatever else is due at that moment. What needs no tie-break (a grenade's flight) is a
    plain ``Timeout``. Written as simpy writes ``Timeout.__init__`` (one per action: no call
    to ``Event.__init__``).
    """

    def __init__(self, env: simpy.Environment, delay: float, priority: int):
        self.env = env
        self.callbacks = []
        self._ok = True
        self._value = None
        # ``env.schedule(self, priority, delay)``, inline: once per action
        heappush(env._queue, (env._now + delay, priority, next(env._eid), self))  # type: ignore[misc]


class Alarm(Event):
    """An event made now and set off later, at a delay and priority chosen then.

    A fighter waits on one between turns; the turn process, once it has rolled initiative,
    sets it off at the fighter's first action, so a turn wakes each fighter once, not once
    to start the turn and again when its first action comes due.
    """

    def set(self, delay: float, priority: int) -> None:
        """Trigger it (successfully, with no value) to be processed ``delay`` from now."""
        self._ok = True
        self._value = None
        env = self.env  # ``env.schedule(self, priority, delay)``, inline: once per fighter-turn
        heappush(env._queue, (env._now + delay, priority, next(env._eid), self))  # type: ignore[misc]

    def again(self) -> Alarm:
        """This alarm, ready to be waited on and set off again once it has gone off (simpy
        has processed it); a new one while it is still due."""
        if self.callbacks is not None:
            return Alarm(self.env)
        self.callbacks = []
        self._value = PENDING
        return self


def started(env: simpy.Environment, generator: Generator[Event, Any, Any]) -> simpy.Process:
    """``env.process(generator)`` already run to its first ``yield`` (which must give an event
    not yet processed), as its ``Initialize`` event would run it first thing: without that
    event (one per fighter a battle). Call it before anything else is queued at the current
    time, so that nothing the process would have come after is passed over."""
    process = simpy.Process.__new__(simpy.Process)
    process.env = env
    process.callbacks = []
    process._value = PENDING
    process._generator = generator
    env._active_proc = process  # as ``Process._resume`` runs it
    try:
        event = next(generator)
    finally:
        env._active_proc = None
    event.callbacks.append(process._resume)
    process._target = event
    return process


def advance(env: simpy.Environment, delay: float, priority: int) -> bool:
    """Move the clock on by ``delay`` at once, without an event, when an event made now at
    ``delay`` and ``priority`` would be the next one processed (nothing else queued is due
    before it, nor at the same time and priority or higher: those were made first); False,
    and the clock left alone, otherwise.

    What a process that would ``yield At(env, delay, priority)`` does in its place: the same
    order of everything (the events queued keep theirs, simpy's counter only orders ties),
    without the event's making, queueing and processing (about a tenth of a battle's events,
    measured). The time is computed as ``Environment.schedule`` does (``now + delay``)."""
    at = env._now + delay
    queue = env._queue
    if queue:
        head = queue[0]
        if head[0] < at or (head[0] == at and head[1] <= priority):
            return False
    env._now = at
    return True


def run_until(env: simpy.Environment, until: Event) -> Any:
    """``env.run(until=until)`` for an event ``until`` not yet processed: the events in the
    same order, up to and including ``until``, and its value; ``Environment.step`` inline
    (one Python call less per event, a battle's every event). A failed event nobody defused
    raises as ``step`` raises it; an empty queue before ``until`` as ``run`` does."""
    queue = env._queue
    while True:
        try:
            env._now, _, _, event = heappop(queue)
        except IndexError:
            raise RuntimeError(
                f'No scheduled events left but "until" event was not triggered: {until}'
            ) from None
        callbacks, event.callbacks = event.callbacks, None  # type: ignore[assignment]
        for callback in callbacks:
            callback(event)
        if not event._ok and not hasattr(event, "_defused"):
            failure = event._value
            exc = type(failure)(*failure.args)
            exc.__cause__ = failure
            raise exc
        if event is until:
            return until._value


def release(env: simpy.Environment, processes: Iterable[simpy.Process | None]) -> None:
    """Break the reference cycles of a finished simulation: close each process's generator
    (its frame refers to whatever it ran), drop the callbacks of the event it still waits on
    (they refer back to the process) and empty the event queue. Only an optimisation: where
    a simpy version lacks one of these private parts, that part is left alone."""
    for process in processes:
        if process is None:
            continue
        generator = getattr(process, "_generator", None)
        if generator is not None:
            generator.close()
        if process.target is not None:
            process.target.callbacks = None  # type: ignore[assignment]  # as simpy does
    queue = getattr(env, "_queue", None)
    if queue is not None:
        queue.clear()
