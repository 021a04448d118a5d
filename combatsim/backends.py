"""Where the chunks of a run execute: here, on local worker processes, or on a Dask cluster.

A backend takes a ``Job`` (shipped to each worker once) and a stream of ``Task`` s, runs each
task with ``combatsim.batch.run_task`` and hands every finished ``Chunk`` to a callback in the
calling process, in whatever order chunks finish. Only a few tasks are in flight at a time, so
memory does not grow with the number of tasks. The callback aggregates; since a chunk's
numbers depend only on the job and the battle indexes, every backend gives the same results.

Ctrl-C (``KeyboardInterrupt``) in the calling process stops the run and ``run`` returns True:
finished chunks have been handed over; on one worker the chunk in progress is handed over up
to its last finished battle; chunks in flight on worker processes or the cluster are dropped.

Dask is an optional extra (``pip install 'combatsim[dask]'``); the workers of the cluster
need combatsim installed, at the same version, to run the tasks.
"""

from __future__ import annotations

import signal
import socket
from collections.abc import Callable, Iterable
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from itertools import islice
from typing import Any

from .batch import Chunk, ChunkBuilder, Job, Task, default_workers, run_task
from .errors import UsageError, check_range

OnChunk = Callable[[Chunk], None]
IN_FLIGHT_PER_WORKER = 2  # enough to keep a worker busy while its last result travels back
CONNECT_TIMEOUT = "10s"  # how long to try reaching a Dask scheduler


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
        for task in tasks:
            builder = ChunkBuilder(job, task)
            try:
                chunk = builder.run()
            except KeyboardInterrupt:
                if builder.chunk.stop > task.start:  # keep every finished battle
                    on_chunk(builder.chunk)
                return True
            on_chunk(chunk)
        return False


class ProcessBackend(Backend):
    """Local worker processes (``concurrent.futures.ProcessPoolExecutor``)."""

    def __init__(self, workers: int):
        self.workers = check_range("workers", workers, 1)
        self._pool: ProcessPoolExecutor | None = None
        self._job: Job | None = None

    def run(self, job: Job, tasks: Iterable[Task], on_chunk: OnChunk) -> bool:
        if self._pool is None or self._job is not job:
            self.close()
            self._pool = ProcessPoolExecutor(
                max_workers=self.workers, initializer=_install, initargs=(job,)
            )
            self._job = job
        pool, queue = self._pool, iter(tasks)
        running: dict[Future, Task] = {}
        try:
            for task in islice(queue, IN_FLIGHT_PER_WORKER * self.workers):
                running[pool.submit(_run_installed, task)] = task
            while running:
                done, _ = wait(running, return_when=FIRST_COMPLETED)
                for future in sorted(done, key=lambda f: running[f].start):
                    del running[future]
                    chunk = future.result()
                    on_chunk(chunk)
                    for task in islice(queue, 1):
                        running[pool.submit(_run_installed, task)] = task
        except KeyboardInterrupt:
            for future in sorted(running, key=lambda f: running[f].start):
                if _succeeded(future):  # finished while we were told to stop: kept too
                    on_chunk(future.result())
            self._terminate()
            return True
        except BaseException:
            self._terminate()
            raise
        return False

    def close(self) -> None:
        if self._pool is not None:
            self._pool.shutdown(wait=True)
            self._pool = self._job = None

    def _terminate(self) -> None:
        """Drop queued tasks and end the workers now, rather than wait for the tasks in flight.

        ``ProcessPoolExecutor`` has no public way to end running workers before Python 3.14
        (``terminate_workers``), so this reads its private ``_processes`` map. Were that map
        gone, nothing would be terminated: the tasks in flight would be waited for at exit.
        """
        pool, self._pool, self._job = self._pool, None, None
        if pool is None:
            return
        processes = list((getattr(pool, "_processes", None) or {}).values())
        pool.shutdown(wait=False, cancel_futures=True)
        for process in processes:
            if process.is_alive():
                process.terminate()
        for process in processes:
            process.join()


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
        try:
            self._client = Client(address, set_as_default=False, timeout=CONNECT_TIMEOUT)
        except (OSError, TimeoutError, ValueError) as err:
            raise UsageError(
                "--scheduler", address, f"the address of a running Dask scheduler ({err})"
            ) from None
        self.address = address
        threads = self._client.nthreads()
        self.workers = max(1, sum(threads.values()))
        self._job: Job | None = None
        self._job_future: Any = None

    def run(self, job: Job, tasks: Iterable[Task], on_chunk: OnChunk) -> bool:
        from distributed import as_completed

        client = self._client
        if self._job is not job:
            self._job_future = client.scatter(job, broadcast=True, hash=False)
            self._job = job
        queue = iter(tasks)
        running: dict[Any, Task] = {}

        def submit(task: Task) -> None:
            future = client.submit(run_task, self._job_future, task, pure=False)
            running[future] = task
            finished.add(future)

        finished = as_completed(loop=client.loop)
        try:
            for task in islice(queue, IN_FLIGHT_PER_WORKER * self.workers):
                submit(task)
            for future in finished:
                running.pop(future)
                on_chunk(future.result())
                for task in islice(queue, 1):
                    submit(task)
        except KeyboardInterrupt:
            for future in sorted(running, key=lambda f: running[f].start):
                if future.status == "finished":
                    on_chunk(future.result())
            client.cancel(list(running))
            return True
        except BaseException:
            client.cancel(list(running))
            raise
        return False

    def close(self) -> None:
        self._client.close()

    def describe(self) -> str:
        return f"Dask cluster at {self.address} ({self.workers} worker threads)"


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
    ``scheduler``. One worker, or a run of a single task, runs in this process."""
    if scheduler is not None:
        return DaskBackend(scheduler)
    workers = default_workers() if workers is None else check_range("workers", workers, 1)
    if tasks is not None:
        workers = min(workers, tasks)
    return SerialBackend() if workers <= 1 else ProcessBackend(workers)


# --- inside a worker process ------------------------------------------------------------------

_JOB: Job | None = None


def _install(job: Job) -> None:
    global _JOB
    _JOB = job
    # Ctrl-C reaches the whole process group; only the parent decides what to keep.
    signal.signal(signal.SIGINT, signal.SIG_IGN)


def _run_installed(task: Task) -> Chunk:
    assert _JOB is not None, "the worker was started without a job"
    return run_task(_JOB, task)


def _succeeded(future: Future) -> bool:
    return future.done() and not future.cancelled() and future.exception() is None
