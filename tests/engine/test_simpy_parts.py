"""simpy's private parts behave as ``combatsim/engine/simpy_parts.py`` relies on.

The engine writes ``Event._ok``/``_value``/``callbacks``, schedules with
``Environment.schedule`` at its own priorities, reuses processed events and, at a battle's
end, closes ``Process._generator`` and clears ``Environment._queue``. A simpy release that
changes any of these fails here first, and the pin in ``pyproject.toml`` must cover only
versions that pass.
"""

from __future__ import annotations

import gc
import re
import tomllib
import weakref
from pathlib import Path

import pytest
import simpy
from simpy.events import NORMAL, PENDING, Event

from combatsim.engine.simpy_parts import Alarm, At, advance, release, run_until, started

ROOT = Path(__file__).resolve().parents[2]


def test_the_private_attributes_relied_on_exist():
    env = simpy.Environment()
    event = env.event()
    assert event._value is PENDING and event.callbacks == [] and not event.triggered
    event.succeed(7)
    assert (event._ok, event._value) == (True, 7) and event.triggered and not event.processed
    env.run()
    assert event.callbacks is None and event.processed  # processed: callbacks dropped

    def idle():
        yield env.timeout(1)

    process = env.process(idle())
    assert hasattr(process, "_generator") and process.target is not None
    assert isinstance(env._queue, list) and env._queue  # the process's start is queued
    # what ``schedule`` pushes, by which ``At`` and ``Alarm`` push the same
    assert env._queue[0][:3] == (env._now, simpy.events.URGENT, 1) and env._queue[0][3] is not None
    assert next(env._eid) == 2  # the counter of events queued, simpy's tie-break


def test_at_fires_after_its_delay_with_no_value_and_orders_ties_by_priority():
    """Three events due at the same time run in priority order, whatever the order they were
    made in; a tie of priorities keeps the order made (simpy's event counter)."""
    env = simpy.Environment()
    seen = []

    def waiter(name, delay, priority):
        value = yield At(env, delay, priority)
        seen.append((env.now, name, value))

    for name, priority in [("c", NORMAL + 3), ("a", NORMAL + 1), ("b", NORMAL + 2), ("b2", 3)]:
        env.process(waiter(name, 5.0, priority))
    env.process(waiter("early", 2.0, NORMAL + 9))
    env.run()
    assert seen == [
        (2.0, "early", None),
        (5.0, "a", None),
        (5.0, "b", None),
        (5.0, "b2", None),
        (5.0, "c", None),
    ]


def test_at_comes_after_a_timeout_due_at_the_same_time_when_its_priority_is_lower():
    env = simpy.Environment()
    seen = []

    def at():
        yield At(env, 1.0, NORMAL + 1)
        seen.append("at")

    def timeout():
        yield env.timeout(1.0)
        seen.append("timeout")

    env.process(at())
    env.process(timeout())
    env.run()
    assert seen == ["timeout", "at"]


def test_an_alarm_waits_until_set_and_then_wakes_its_waiter_at_the_time_set():
    env = simpy.Environment()
    alarm = Alarm(env)
    woken = []

    def sleeper():
        yield alarm
        woken.append(env.now)

    def setter():
        yield env.timeout(3.0)
        assert not alarm.triggered
        alarm.set(4.0, NORMAL + 1)
        assert alarm.triggered and not alarm.processed

    env.process(sleeper())
    env.process(setter())
    env.run()
    assert woken == [7.0] and alarm.processed


def test_a_processed_alarm_is_reused_and_fires_again():
    """``again`` after the alarm went off gives the same object, pending, with no callbacks;
    set again, it wakes its waiter again: one event for all of a fighter's turns."""
    env = simpy.Environment()
    alarm = Alarm(env)
    woken = []

    def sleeper():
        current = alarm
        for _ in range(3):
            yield current
            woken.append((env.now, current is alarm))
            current = current.again()

    def setter():
        for _ in range(3):
            yield env.timeout(10.0)
            alarm.set(1.0, NORMAL + 1)

    env.process(sleeper())
    env.process(setter())
    env.run()
    assert woken == [(11.0, True), (21.0, True), (31.0, True)]


def test_again_on_an_alarm_still_due_gives_a_new_one():
    env = simpy.Environment()
    alarm = Alarm(env)
    assert alarm.again() is not alarm  # pending: not yet processed
    alarm.set(1.0, NORMAL)
    fresh = alarm.again()  # triggered but not processed
    assert fresh is not alarm and not fresh.triggered
    env.run()
    assert alarm.processed and alarm.again() is alarm
    assert alarm._value is PENDING and alarm.callbacks == [] and not alarm.triggered


def test_an_interrupt_while_waiting_on_an_alarm_leaves_it_untriggered():
    """The engine tells an interrupt before a turn started (alarm not triggered) from one
    during a turn by ``alarm.triggered``; the waiter can wait on the same alarm again."""
    env = simpy.Environment()
    alarm = Alarm(env)
    seen = []

    def sleeper():
        while True:
            try:
                yield alarm
                seen.append(("woken", env.now))
                return
            except simpy.Interrupt:
                seen.append(("interrupted", alarm.triggered))

    process = env.process(sleeper())

    def poker():
        yield env.timeout(1.0)
        process.interrupt("wounded")
        yield env.timeout(1.0)
        alarm.set(2.0, NORMAL + 1)

    env.process(poker())
    env.run()
    assert seen == [("interrupted", False), ("woken", 4.0)]


def test_release_closes_the_processes_and_frees_the_simulation_without_the_gc():
    """After ``release`` the processes' frames are gone, the events they waited on call
    nobody back and the queue is empty: reference counting alone frees the objects."""

    class Token:
        pass

    gc.disable()
    try:
        env = simpy.Environment()
        token = Token()
        ref = weakref.ref(token)
        alarm = Alarm(env)

        def waits_forever(alarm, held):
            yield alarm

        def ticks(env):
            while True:
                yield At(env, 1.0, NORMAL + 1)

        processes = [env.process(waits_forever(alarm, token)), env.process(ticks(env))]
        env.run(until=5)
        assert env._queue
        release(env, [*processes, None])
        assert not env._queue
        assert all(p._generator.gi_frame is None for p in processes)
        assert alarm.callbacks is None
        del token, processes, alarm, env
        assert ref() is None
    finally:
        gc.enable()


def test_release_leaves_alone_what_a_simpy_version_does_not_have():
    class Bare:
        target = None

    release(object(), [Bare()])  # no _generator, no _queue: nothing to do, no error


def _pinned_range() -> tuple[tuple[int, ...], tuple[int, ...]]:
    deps = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["dependencies"]
    (spec,) = [d for d in deps if re.match(r"simpy\b", d)]
    low = re.search(r">=\s*([\d.]+)", spec)
    high = re.search(r"<\s*([\d.]+)", spec)
    assert low and high, f"simpy must be pinned to a range with an upper bound: {spec!r}"
    return _version(low.group(1)), _version(high.group(1))


def _version(text: str) -> tuple[int, ...]:
    return tuple(int(part) for part in re.findall(r"\d+", text)[:3])


def test_simpy_is_pinned_to_a_range_that_holds_the_version_tested_here():
    low, high = _pinned_range()
    assert low <= _version(simpy.__version__) < high
    assert high <= (4, 2), "simpy_parts is tested on 4.1.x only: test a newer simpy first"


@pytest.mark.parametrize("cls", [At, Alarm])
def test_the_engine_events_are_simpy_events(cls):
    assert issubclass(cls, Event)


@pytest.mark.parametrize("use_advance", [False, True])
def test_advance_keeps_the_order_of_everything(use_advance):
    """Processes that wait with ``advance`` where they can (and ``At`` where they cannot) see
    the same times in the same order as with ``At`` alone, and some waits skip their event."""
    env = simpy.Environment()
    seen, skipped = [], []

    def fighter(name, waits):
        for delay, priority in waits:
            if use_advance and advance(env, delay, priority):
                skipped.append(name)
            else:
                yield At(env, delay, priority)
            seen.append((env.now, name))

    env.process(fighter("a", [(1.0, NORMAL + 1), (0.0, NORMAL + 1), (2.0, NORMAL + 2)]))
    env.process(fighter("b", [(1.0, NORMAL + 2), (1.5, NORMAL + 1), (0.5, NORMAL + 1)]))
    env.process(fighter("c", [(3.0, NORMAL + 1), (0.0, NORMAL + 3)]))
    env.run()
    assert seen == [
        (1.0, "a"),
        (1.0, "a"),
        (1.0, "b"),
        (2.5, "b"),
        (3.0, "c"),  # made at 0, priority NORMAL + 1
        (3.0, "b"),  # made at 2.5, NORMAL + 1
        (3.0, "a"),  # NORMAL + 2
        (3.0, "c"),  # NORMAL + 3
    ]
    assert skipped == (["a", "b"] if use_advance else [])


def test_advance_gives_way_to_an_event_due_at_the_same_time_and_priority():
    env = simpy.Environment()
    At(env, 4.0, NORMAL + 1)
    assert not advance(env, 5.0, NORMAL + 1)  # due earlier
    assert not advance(env, 4.0, NORMAL + 1)  # same time, same priority: made first
    assert not advance(env, 4.0, NORMAL + 2)  # same time, lower priority
    assert env.now == 0.0
    assert advance(env, 4.0, NORMAL)  # same time, higher priority: this one goes first
    assert env.now == 4.0
    assert advance(env, 0.0, NORMAL + 9) is False  # the queued event is due now, first


def _busy_simulation(seen: list):
    """Three processes at mixed times and priorities, and an event that ends it at 3."""
    env = simpy.Environment()
    until = env.event()

    def fighter(name, waits):
        for delay, priority in waits:
            yield At(env, delay, priority)
            seen.append((env.now, name))
            if env.now >= 3.0 and not until.triggered:
                until.succeed(name)

    env.process(fighter("a", [(1.0, NORMAL + 1), (2.0, NORMAL + 2), (5.0, NORMAL + 1)]))
    env.process(fighter("b", [(1.0, NORMAL + 2), (2.0, NORMAL + 1), (1.0, NORMAL + 1)]))
    env.process(fighter("c", [(3.0, NORMAL + 1)]))
    return env, until


def test_run_until_processes_what_env_run_does_in_the_same_order():
    ran, stepped = [], []
    env, until = _busy_simulation(ran)
    value = run_until(env, until)
    reference, reference_until = _busy_simulation(stepped)
    assert value == reference.run(until=reference_until) == "c"
    assert ran == stepped and env.now == reference.now == 3.0
    # what is still due stays queued (simpy's run queues ``until`` again, at priority -1)
    left = sorted(entry[:2] for entry in env._queue)
    assert left == sorted(
        entry[:2] for entry in reference._queue if entry[3] is not reference_until
    )


def test_run_until_raises_a_process_failure_and_an_empty_queue():
    env = simpy.Environment()

    def broken():
        yield env.timeout(1)
        raise ValueError("rule bug")

    env.process(broken())
    with pytest.raises(ValueError, match="rule bug"):
        run_until(env, env.event())
    with pytest.raises(RuntimeError, match="No scheduled events left"):
        run_until(env, env.event())


def _two_waiters(start, seen: list):
    """Two processes that wait on alarms set off by a third, one of them interrupted."""
    env = simpy.Environment()
    alarms = {}

    def waiter(name):
        alarm = alarms[name] = Alarm(env)
        try:
            yield alarm
            seen.append((env.now, name, "woken"))
        except simpy.Interrupt as interrupt:
            seen.append((env.now, name, interrupt.cause))

    waiters = [start(env, waiter(name)) for name in ("a", "b")]

    def setter():
        alarms["a"].set(2.0, NORMAL + 1)
        yield env.timeout(1)
        waiters[1].interrupt("wounded")

    env.process(setter())
    env.run()
    return waiters


def test_started_processes_run_as_env_process_runs_them():
    seen, reference = [], []
    waiters = _two_waiters(started, seen)
    _two_waiters(lambda env, generator: env.process(generator), reference)
    assert seen == reference == [(1.0, "b", "wounded"), (2.0, "a", "woken")]
    assert not any(w.is_alive for w in waiters)


def test_a_started_process_is_released_like_any_other():
    env = simpy.Environment()

    def idle():
        yield Alarm(env)

    process = started(env, idle())
    assert process.is_alive and process.target is not None and process.target.callbacks
    release(env, [process])
    assert process.target.callbacks is None and process._generator.gi_frame is None
