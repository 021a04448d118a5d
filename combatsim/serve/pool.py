"""A warm pool of worker processes that every run of the server shares.

``combatsim.run.backends.ProcessBackend`` ships its ``Job`` to the workers once, when the pool
starts, and starts a new pool for another job: right for one command, but a page sends a new
run at every edit, and starting processes costs more than the first figures may take. Here
the pool starts with the server and lives as long as it; each task carries its job, pickled
once per run (a few kilobytes) and kept by the workers for the next tasks of the same run. A
bigger job (a study's thousand variants: megabytes) is not carried by every task: it waits in
a file of the pool's own folder while its run lasts, and each worker reads it once.
Chunks are the run layer's (``ChunkBuilder``), so every number is what any backend gives.

A run that is cancelled stops handing out tasks and drops those not started; a worker ends
the chunk it is in (a fraction of a second at the server's chunk size) and is free again.
Closing the pool ends the workers at once (they ignore Ctrl-C, which the server handles),
and a worker whose server died ends within ``PARENT_POLL`` seconds.

A pool heals: when a worker process dies (the kernel's out-of-memory killer, a ``kill -9``),
the work on the pool at that moment fails with ``WorkerDied`` (one line), and the next task
submitted starts a fresh pool in place of the broken one.
"""

from __future__ import annotations

import contextlib
import multiprocessing
import os
import pickle
import shutil
import signal
import sys
import tempfile
import threading
import time
from collections import OrderedDict
from collections.abc import Iterable, Iterator
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from concurrent.futures import process as _process
from concurrent.futures.process import BrokenProcessPool
from itertools import count, islice
from pathlib import Path
from typing import Any

from ..errors import CombatsimError
from ..run import Backend, Cancel, Cancelled, Chunk, Job, Task
from ..run.backends import IN_FLIGHT_PER_WORKER, PARENT_POLL, OnChunk
from ..run.chunks import ChunkBuilder, settle_worker_heap

LOOK_EVERY = 0.05  # seconds between looks at a run's Cancel while its chunks run
KEPT_JOBS = 8  # jobs a worker keeps unpickled (a few runs at once, and their studies)
INLINE = 64 * 1024  # bytes of a pickled job sent with each task; a bigger one goes in a file


class WorkerDied(CombatsimError):
    """A worker process of the pool died under the work (one line, for the job's error)."""

    def __init__(self) -> None:
        super().__init__("a worker process died (out of memory?); run again")


class WarmPool:
    """``workers`` processes, started once; ``backend()`` gives a ``Backend`` on them."""

    def __init__(self, workers: int):
        self.workers = workers
        self._ids = count()
        self._lock = threading.Lock()
        self._closed = False
        self.folder = Path(tempfile.mkdtemp(prefix="combatsim-pool-"))
        self._executor = self._start()

    def _start(self) -> ProcessPoolExecutor:
        executor = _QuietExecutor(
            max_workers=self.workers,
            mp_context=multiprocessing.get_context(),
            initializer=install,
            initargs=(os.getpid(),),
        )
        # Start every worker now, not at the first edit.
        list(executor.map(_ready, range(self.workers)))
        return executor

    def backend(self, cancel: Cancel | None = None) -> Backend:
        return PooledBackend(self, cancel)

    @contextlib.contextmanager
    def shipped(self, key: int, job: bytes) -> Iterator[bytes | str]:
        """What the tasks of job ``key`` carry while a run lasts: the pickled ``job`` itself
        if small, else the name of a file holding it (removed when the run ends)."""
        if len(job) <= INLINE:
            yield job
            return
        path = self.folder / f"job-{key}.pickle"
        path.write_bytes(job)
        try:
            yield str(path)
        finally:
            path.unlink(missing_ok=True)

    def submit(self, key: int, job: bytes | str, task: Task) -> Future:
        """Hand ``task`` to a worker; a broken pool (a worker died) is replaced first."""
        with self._lock:
            if self._closed:
                raise Cancelled()
            executor = self._executor
        try:
            return executor.submit(_run, key, job, task)
        except BrokenProcessPool:
            return self._renewed(executor).submit(_run, key, job, task)

    def _renewed(self, broken: ProcessPoolExecutor) -> ProcessPoolExecutor:
        """A fresh executor in place of ``broken`` (once, whichever job notices first)."""
        with self._lock:
            if self._closed:
                raise Cancelled()
            if self._executor is broken:
                _end(broken)
                self._executor = self._start()
            return self._executor

    def pids(self) -> list[int]:
        """The worker processes' ids (what a test kills)."""
        with self._lock:
            processes = getattr(self._executor, "_processes", None) or {}
            return [process.pid for process in processes.values()]

    def next_key(self) -> int:
        with self._lock:
            return next(self._ids)

    def close(self) -> None:
        """End the workers now (a run in a worker is not waited for)."""
        with self._lock:
            self._closed = True
            executor = self._executor
        _end(executor)
        shutil.rmtree(self.folder, ignore_errors=True)


def _end(executor: ProcessPoolExecutor) -> None:
    """Shut ``executor`` down without waiting, its workers killed and reaped."""
    processes = list((getattr(executor, "_processes", None) or {}).values())
    executor.shutdown(wait=False, cancel_futures=True)
    for process in processes:
        if process.is_alive():
            process.kill()
    for process in processes:
        process.join(timeout=2)


class _QuietExecutor(ProcessPoolExecutor):
    """Python 3.11's pool, broken, sets an exception on futures already cancelled and its
    manager thread dies printing ``InvalidStateError`` (fixed in 3.12): its manager thread
    here first forgets the cancelled ones."""

    def _start_executor_manager_thread(self):
        super()._start_executor_manager_thread()
        thread: Any = getattr(self, "_executor_manager_thread", None)
        if sys.version_info < (3, 12) and type(thread) is _process._ExecutorManagerThread:
            thread.__class__ = _QuietManager


class _QuietManager(_process._ExecutorManagerThread):
    def terminate_broken(self, cause):
        for key, item in list(self.pending_work_items.items()):
            if item.future.cancelled():
                del self.pending_work_items[key]
        super().terminate_broken(cause)


class PooledBackend(Backend):
    """One run's view of the warm pool: the ``Backend`` the run layer drives."""

    def __init__(self, pool: WarmPool, cancel: Cancel | None = None):
        self.pool = pool
        self.cancel = cancel
        self.workers = pool.workers
        self._job: Job | None = None
        self._key = -1
        self._bytes = b""

    def run(self, job: Job, tasks: Iterable[Task], on_chunk: OnChunk) -> bool:
        if job is not self._job:
            self._job, self._key, self._bytes = job, self.pool.next_key(), pickle.dumps(job)
        with self.pool.shipped(self._key, self._bytes) as source:
            return self._stream(source, iter(tasks), on_chunk)

    def _stream(self, source: bytes | str, queue: Iterator[Task], on_chunk: OnChunk) -> bool:
        running: dict[Future, Task] = {}
        try:
            for task in islice(queue, IN_FLIGHT_PER_WORKER * self.workers):
                running[self.pool.submit(self._key, source, task)] = task
            while running:
                done, _ = wait(running, timeout=LOOK_EVERY, return_when=FIRST_COMPLETED)
                if self.cancel is not None:
                    self.cancel.check()  # between chunks too: a cancel is felt at once
                for future in sorted(done, key=lambda f: running[f].start):
                    del running[future]
                    on_chunk(_result(future))
                    for task in islice(queue, 1):
                        running[self.pool.submit(self._key, source, task)] = task
        except (Cancelled, KeyboardInterrupt):
            _drop(running)
            return True
        except WorkerDied:
            _drop(running)
            raise
        return False


def _drop(running: Iterable[Future]) -> None:
    for future in running:
        future.cancel()  # not started: dropped; started: ends with its chunk


def _result(future: Future) -> Chunk:
    try:
        return future.result()
    except BrokenProcessPool:
        raise WorkerDied() from None


# --- inside a worker process ------------------------------------------------------------------

_JOBS: OrderedDict[int, Job] = OrderedDict()


def install(parent: int) -> None:
    """Set up a worker (or a trace's process): Ctrl-C ignored, SIGTERM ends it, it ends
    within ``PARENT_POLL`` seconds of its server's death, and what it starts with is left out
    of the garbage collector's passes (``settle_worker_heap``)."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the server decides when workers end
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    threading.Thread(target=_watch_parent, args=(parent,), daemon=True).start()
    settle_worker_heap()


def _watch_parent(parent: int) -> None:
    while os.getppid() == parent:
        time.sleep(PARENT_POLL)
    os._exit(1)


def _ready(_: int) -> int:
    return os.getpid()


def _run(key: int, job: bytes | str, task: Task) -> Chunk:
    found = _JOBS.get(key)
    if found is None:
        # the pickled job, or the name of the pool's own file holding it (``shipped``)
        found = _JOBS[key] = pickle.loads(job if isinstance(job, bytes) else Path(job).read_bytes())
        while len(_JOBS) > KEPT_JOBS:
            _JOBS.popitem(last=False)
    else:
        _JOBS.move_to_end(key)
    return ChunkBuilder(found, task).run()
