"""Where the chunks of a run execute: here, on local worker processes, or on a Dask cluster.

A backend takes a ``Job`` (shipped to each worker once) and a stream of ``Task`` s, runs each
task with ``combatsim.run.chunks.run_task`` and hands every finished ``Chunk`` to a callback in the
calling process, in whatever order chunks finish. Only a few tasks are in flight at a time, so
memory does not grow with the number of tasks. The callback aggregates; since a chunk's
numbers depend only on the job and the battle indexes, every backend gives the same results.

Ctrl-C (``KeyboardInterrupt``) in the calling process stops the run and ``run`` returns True,
having handed over every finished battle: on one worker the chunk in progress up to its last
finished battle; on worker processes, each chunk in flight too, for its workers are told to
stop after the battle they are in and hand back what they finished (within ``STOP_GRACE``
seconds; a second Ctrl-C stops waiting). Chunks in flight on a Dask cluster are dropped. A
Ctrl-C that comes while worker processes start is held until they have started, then taken
like any other (``_submit``). A callback that raises ``Cancelled`` (a run's ``Cancel`` was set)
stops the run the same way.

Worker processes never outlive the run: they ignore Ctrl-C (the calling process decides what
to keep), treat SIGTERM as "stop soon", and end within ``PARENT_POLL`` seconds of noticing that
their parent died, even by ``kill -9``. There are never more of them than the run has tasks, nor
more than ``WORKERS_PER_CORE`` per core.

Dask is an optional extra (``pip install 'combatsim[dask]'``); the workers of the cluster
need combatsim installed, at the same version, to run the tasks.
"""

from __future__ import annotations

import contextlib
import logging
import multiprocessing
import os
import signal
import socket
import threading
import time
from collections.abc import Callable, Iterable
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from itertools import islice
from typing import Any

from ..errors import BackendLost, UsageError, check_range
from ..limits import MAX_WORKERS
from .cancel import HELD, Cancelled, held_signals
from .chunks import (
    Chunk,
    ChunkBuilder,
    Job,
    Task,
    default_workers,
    run_task,
    settle_worker_heap,
    settled_heap,
)

OnChunk = Callable[[Chunk], None]
STOPS = (KeyboardInterrupt, Cancelled)  # what stops a run, keeping every finished battle
IN_FLIGHT_PER_WORKER = 2  # enough to keep a worker busy while its last result travels back
CONNECT_TIMEOUT = "10s"  # how long to try reaching a Dask scheduler
WORKERS_PER_CORE = 4  # more processes than this per core only add memory and switching
STOP_GRACE = 60.0  # seconds to wait, after Ctrl-C, for workers to hand back their chunks
PARENT_POLL = 0.5  # seconds between a worker's checks that its parent is alive
DASK_POLL = 0.02  # seconds between looks for finished chunks on a Dask cluster
LOST_AFTER = 20.0  # seconds a Dask client may stay disconnected before the run gives up
QUIET = (
    "distributed",
    "distributed.client",
    "distributed.core",
    "distributed.comm",
)  # Dask's loggers, silenced while a client is open: the run reports a lost cluster itself


class Backend:
    """Runs tasks; a context manager that releases its workers on exit."""

    workers: int = 1

    def run(self, job: Job, tasks: Iterable[Task], on_chunk: OnChunk) -> bool:
        """Run every task, calling ``on_chunk`` for each finished one; True if interrupted."""
        raise NotImplementedError

    def close(self) -> None:  # noqa: B027 - nothing to release by default
        """Release the workers."""

    def __enter__(self):
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def describe(self) -> str:
        return f"{self.workers} worker" + ("s" if self.workers != 1 else "")


class SerialBackend(Backend):
    """Everything in the calling process, in task order."""

    def run(self, job: Job, tasks: Iterable[Task], on_chunk: OnChunk) -> bool:
        with settled_heap():
            return self._run(job, tasks, on_chunk)

    @staticmethod
    def _run(job: Job, tasks: Iterable[Task], on_chunk: OnChunk) -> bool:
        for task in tasks:
            builder = ChunkBuilder(job, task)
            try:
                chunk = builder.run()
            except KeyboardInterrupt:
                if builder.chunk.stop > task.start:  # keep every finished battle
                    on_chunk(builder.chunk)
                return True
            try:
                on_chunk(chunk)
            except STOPS:  # a Ctrl-C held while the chunk was kept comes here
                return True
        return False


class ProcessBackend(Backend):
    """Local worker processes (``concurrent.futures.ProcessPoolExecutor``)."""

    def __init__(self, workers: int):
        self.workers = check_range("workers", workers, 1, MAX_WORKERS)
        self._pool: ProcessPoolExecutor | None = None
        self._job: Job | None = None
        self._size = 0
        self._stop: Any = None

    def run(self, job: Job, tasks: Iterable[Task], on_chunk: OnChunk) -> bool:
        queue = iter(tasks)
        running: dict[Future, Task] = {}
        try:
            first = list(islice(queue, IN_FLIGHT_PER_WORKER * self.workers))
            if not first:
                return False
            # No more processes than there are tasks to give them (a round may have only a few).
            pool = self._start(job, min(self.workers, len(first)))
            for task in first:
                _submit(pool, task, running)
            while running:
                done, _ = wait(running, return_when=FIRST_COMPLETED)
                for future in sorted(done, key=lambda f: running[f].start):
                    del running[future]
                    chunk = future.result()
                    if chunk.stop < chunk.task.stop:  # the worker was sent SIGTERM: stop
                        if chunk.stop > chunk.task.start:
                            on_chunk(chunk)
                        raise KeyboardInterrupt
                    on_chunk(chunk)
                    for task in islice(queue, 1):
                        _submit(pool, task, running)
        except STOPS:
            self._hand_back(running, on_chunk)
            return True
        except BaseException:
            self._wind_down(running)
            raise
        return False

    def _start(self, job: Job, wanted: int) -> ProcessPoolExecutor:
        """The pool for ``job`` with at least ``wanted`` workers (they start on first submit)."""
        if self._pool is None or self._job is not job or self._size < wanted:
            self.close()
            context = multiprocessing.get_context()
            self._stop = context.Event()
            self._pool = ProcessPoolExecutor(
                max_workers=wanted,
                mp_context=context,
                initializer=_install,
                initargs=(job, self._stop, os.getpid()),
            )
            self._job, self._size = job, wanted
        return self._pool

    def _wind_down(self, running: dict[Future, Task]) -> None:
        """After an error here (a chunk that could not be written): stop the workers after
        their current battle, let them hand their chunks back (dropped), then end them.

        Killing a worker while it sends a chunk back would leave half a message in the
        result pipe; the pool's manager thread would then wait for the rest forever and the
        process could never exit. Idle workers are safe to end."""
        if self._stop is not None:
            self._stop.set()
        for future in running:
            future.cancel()
        started = [f for f in running if not f.cancelled()]
        with contextlib.suppress(KeyboardInterrupt):
            wait(started, timeout=STOP_GRACE)
        self._terminate()

    def _hand_back(self, running: dict[Future, Task], on_chunk: OnChunk) -> None:
        """After Ctrl-C: have the workers stop after their current battle, keep every chunk
        they hand back (whole or the battles finished), then end the workers."""
        if self._stop is not None:  # None: Ctrl-C came before a pool was ever made
            self._stop.set()
        for future in running:
            future.cancel()  # not started yet: nothing to keep
        started = [f for f in running if not f.cancelled()]
        try:
            wait(started, timeout=STOP_GRACE)
        except KeyboardInterrupt:
            pass  # a second Ctrl-C: keep what has come back, stop waiting
        finally:
            for future in sorted(started, key=lambda f: running[f].start):
                if _succeeded(future):
                    chunk = future.result()
                    if chunk.stop > chunk.task.start:
                        with contextlib.suppress(Cancelled):  # already stopping
                            on_chunk(chunk)
            self._terminate()

    def close(self) -> None:
        if self._pool is not None:
            self._pool.shutdown(wait=True)
            self._pool = self._job = None

    def _terminate(self) -> None:
        """Drop queued tasks and end the workers now, rather than wait for the tasks in flight.

        ``ProcessPoolExecutor`` has no public way to end running workers before Python 3.14
        (``terminate_workers``), so this reads its private ``_processes`` map. Were that map
        gone, nothing would be killed here: the workers would still stop, for the stop event
        is set, and the pool's shutdown would wait for them.
        """
        pool, self._pool, self._job = self._pool, None, None
        if pool is None:
            return
        if self._stop is not None:
            self._stop.set()
        processes = list((getattr(pool, "_processes", None) or {}).values())
        pool.shutdown(wait=False, cancel_futures=True)
        for process in processes:
            if process.is_alive():
                process.kill()
        for process in processes:
            process.join()


def _submit(pool: ProcessPoolExecutor, task: Task, running: dict[Future, Task]) -> None:
    """Submit ``task``, which may start worker processes, with Ctrl-C held: a Ctrl-C that
    lands while this process forks a worker is raised inside an at-fork callback (``logging``
    registers one), where Python prints "Exception ignored" and drops it, and a worker forked
    before it ignores Ctrl-C would die of it. Held, it is raised once the worker has started;
    the worker inherits the held mask and lets it through once it ignores Ctrl-C (``_install``)."""
    with held_signals():
        running[pool.submit(_run_installed, task)] = task


class DaskBackend(Backend):
    """A Dask distributed cluster, reached through its scheduler's address."""

    def __init__(self, address: str):
        try:
            from distributed import Client
        except ImportError:
            raise UsageError(
                "--scheduler",
                address,
                "an address once Dask is installed: pip install 'combatsim[dask]'",
            ) from None
        _check_reachable(address)
        # Dask logs its own lines (tracebacks among them) from the client's thread whenever the
        # scheduler goes away, at any moment until the client is closed; the run says it in one
        # line instead. So its loggers stay quiet for the client's whole life, not per call.
        self._quiet = contextlib.ExitStack()
        self._quiet.enter_context(_quiet_loggers(*QUIET))
        try:
            self._client = Client(address, set_as_default=False, timeout=CONNECT_TIMEOUT)
        except (OSError, TimeoutError, ValueError) as err:
            self._quiet.close()
            raise UsageError(
                "--scheduler", address, f"the address of a running Dask scheduler ({err})"
            ) from None
        except BaseException:
            self._quiet.close()
            raise
        self.address = address
        threads = self._client.nthreads()
        self.workers = max(1, sum(threads.values()))
        self._job: Job | None = None
        self._job_future: Any = None

    def run(self, job: Job, tasks: Iterable[Task], on_chunk: OnChunk) -> bool:
        from distributed import as_completed

        client = self._client
        running: dict[Any, Task] = {}
        finished = as_completed(loop=client.loop)

        def submit(task: Task) -> None:
            future = client.submit(run_task, self._job_future, task, pure=False)
            running[future] = task
            finished.add(future)

        try:
            if self._job is not job:
                self._job_future = client.scatter(job, broadcast=True, hash=False)
                self._job = job
            self._drive(iter(tasks), running, finished, submit, on_chunk)
        except STOPS:
            for future in sorted(running, key=lambda f: running[f].start):
                if future.status == "finished":
                    with contextlib.suppress(Cancelled):
                        on_chunk(future.result())
            _quietly(client.cancel, list(running))
            return True
        except BackendLost:
            raise
        except (OSError, TimeoutError) as err:  # the connection broke under us
            raise self._lost(_reason(err)) from None
        except BaseException as err:
            if type(err).__module__.startswith(("distributed", "tornado", "asyncio")):
                raise self._lost(_reason(err)) from None
            _quietly(client.cancel, list(running))
            raise
        return False

    def _drive(self, queue, running: dict[Any, Task], finished, submit, on_chunk) -> None:
        """Keep a few tasks in flight per worker and hand each finished chunk to ``on_chunk``
        until none is left; a scheduler silent for ``LOST_AFTER`` seconds is lost."""
        client = self._client
        for task in islice(queue, IN_FLIGHT_PER_WORKER * self.workers):
            submit(task)
        lost_since: float | None = None
        while running:
            # Poll, rather than block on the next result: a scheduler that went away
            # would leave a blocking wait hanging.
            done = finished.next_batch(block=False) if finished.has_ready() else []
            if not done:
                time.sleep(DASK_POLL)
            if client.status != "running":  # the scheduler stopped answering
                lost_since = lost_since or time.monotonic()
                if time.monotonic() - lost_since > LOST_AFTER:
                    raise self._lost(f"client {client.status}")
                continue
            lost_since = None
            for future in sorted(done, key=lambda f: running[f].start):
                task = running.pop(future)
                if future.status in ("cancelled", "lost"):
                    raise self._lost(f"chunk {task.start}-{task.stop} was {future.status}")
                on_chunk(future.result())
                for task in islice(queue, 1):
                    submit(task)

    def _lost(self, why: str) -> BackendLost:
        self._job = None
        return BackendLost(
            f"lost the Dask scheduler at {self.address} ({why}); the finished chunks are kept"
        )

    def close(self) -> None:
        _quietly(self._client.close, 5)
        time.sleep(0)  # let the client's thread finish its last lines while quiet
        self._quiet.close()

    def describe(self) -> str:
        return f"Dask cluster at {self.address} ({self.workers} worker threads)"


@contextlib.contextmanager
def _quiet_loggers(*names: str):
    loggers = [logging.getLogger(name) for name in names]
    levels = [logger.level for logger in loggers]
    for logger in loggers:
        logger.setLevel(logging.CRITICAL + 1)
    try:
        yield
    finally:
        for logger, level in zip(loggers, levels, strict=True):
            logger.setLevel(level)


def _reason(err: BaseException) -> str:
    text = str(err).splitlines()[0] if str(err) else ""
    return f"{type(err).__name__}: {text[:100]}" if text else type(err).__name__


def _quietly(action: Callable, *args) -> None:
    """Try ``action``; a cluster that is going away may refuse it, and that changes nothing."""
    with contextlib.suppress(Exception):  # best effort on the way out
        action(*args)


def _check_reachable(address: str) -> None:
    """Refuse a TCP address nothing listens on, before Dask's client tries for seconds (and
    then complains again when the half-made client is collected)."""
    from distributed.comm import registry

    scheme, _, rest = address.rpartition("://")
    try:
        registry.get_backend(scheme or "tcp")
    except ValueError as err:
        raise UsageError("--scheduler", address, f"an address Dask can reach ({err})") from None
    if scheme not in ("", "tcp"):
        return
    host, _, port = rest.rpartition(":")
    try:
        number = int(port)
    except ValueError:
        raise UsageError("--scheduler", address, "an address such as tcp://HOST:8786") from None
    try:
        socket.create_connection((host.strip("[]") or "127.0.0.1", number), timeout=5).close()
    except OSError as err:
        raise UsageError(
            "--scheduler", address, f"the address of a running Dask scheduler ({err})"
        ) from None


def make_backend(
    workers: int | None = None, scheduler: str | None = None, tasks: int | None = None
) -> Backend:
    """The backend for ``workers`` local processes (None: all cores), or the Dask cluster at
    ``scheduler``. Never more processes than ``WORKERS_PER_CORE`` per core or than ``tasks``;
    one worker, or a run of a single task, runs in this process."""
    if scheduler is not None:
        return DaskBackend(scheduler)
    cores = default_workers()
    workers = cores if workers is None else check_range("workers", workers, 1, MAX_WORKERS)
    workers = min(workers, WORKERS_PER_CORE * cores)
    if tasks is not None:
        workers = min(workers, tasks)
    return SerialBackend() if workers <= 1 else ProcessBackend(workers)


# --- inside a worker process ------------------------------------------------------------------

_JOB: Job | None = None
_STOP: Any = None  # the run's stop event (set by the parent on Ctrl-C)
_TERMINATED = threading.Event()  # this worker was sent SIGTERM


def _install(job: Job, stop: Any, parent: int) -> None:
    global _JOB, _STOP
    _JOB, _STOP = job, stop
    # Ctrl-C reaches the whole process group; only the parent decides what to keep.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, _on_sigterm)
    if hasattr(signal, "pthread_sigmask"):  # started with them held (``_submit``)
        signal.pthread_sigmask(signal.SIG_UNBLOCK, HELD)
    threading.Thread(target=_watch_parent, args=(parent,), daemon=True).start()
    settle_worker_heap()


def _on_sigterm(signum, frame) -> None:
    """SIGTERM to the process group: hand back the chunk in progress, like Ctrl-C; end within
    ``STOP_GRACE`` seconds whatever happens (SIGALRM's default action ends the process)."""
    _TERMINATED.set()
    signal.alarm(int(STOP_GRACE))


def _watch_parent(parent: int) -> None:
    """End this worker once its parent is gone (reparented: the parent died, even by
    ``kill -9``), so no worker keeps running, or holding the caller's pipes, after it."""
    while os.getppid() == parent:
        time.sleep(PARENT_POLL)
    os._exit(1)


def _run_installed(task: Task) -> Chunk:
    assert _JOB is not None, "the worker was started without a job"
    return ChunkBuilder(_JOB, task).run(stop=_should_stop)


def _should_stop() -> bool:
    return _TERMINATED.is_set() or (_STOP is not None and _STOP.is_set())


def _succeeded(future: Future) -> bool:
    return future.done() and not future.cancelled() and future.exception() is None
