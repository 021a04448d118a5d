"""A warm pool of worker processes that every run of the server shares.

``combatsim.run.backends.ProcessBackend`` ships its ``Job`` to the workers once, when the pool
starts, and starts a new pool for another job: right for one command, but a page sends a new
run at every edit, and starting processes costs more than the first figures may take. Here
the pool starts with the server and lives as long as it; each task carries its job, pickled
once per run (a few kilobytes) and kept by the workers for the next tasks of the same run.
Chunks are the run layer's (``ChunkBuilder``), so every number is what any backend gives.

A run that is cancelled stops handing out tasks and drops those not started; a worker ends
the chunk it is in (a fraction of a second at the server's chunk size) and is free again.
Closing the pool ends the workers at once (they ignore Ctrl-C, which the server handles),
and a worker whose server died ends within ``PARENT_POLL`` seconds.
"""

from __future__ import annotations

import multiprocessing
import os
import pickle
import signal
import threading
import time
from collections import OrderedDict
from collections.abc import Iterable
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from itertools import count, islice

from ..run import Backend, Cancel, Cancelled, Chunk, Job, Task
from ..run.backends import IN_FLIGHT_PER_WORKER, PARENT_POLL, OnChunk
from ..run.chunks import ChunkBuilder

LOOK_EVERY = 0.05  # seconds between looks at a run's Cancel while its chunks run
KEPT_JOBS = 8  # jobs a worker keeps unpickled (a few runs at once, and their studies)


class WarmPool:
    """``workers`` processes, started once; ``backend()`` gives a ``Backend`` on them."""

    def __init__(self, workers: int):
        self.workers = workers
        self._ids = count()
        self._lock = threading.Lock()
        self._executor = ProcessPoolExecutor(
            max_workers=workers,
            mp_context=multiprocessing.get_context(),
            initializer=_install,
            initargs=(os.getpid(),),
        )
        # Start every worker now, not at the first edit.
        list(self._executor.map(_ready, range(workers)))

    def backend(self, cancel: Cancel | None = None) -> Backend:
        return PooledBackend(self, cancel)

    def submit(self, key: int, job: bytes, task: Task) -> Future:
        return self._executor.submit(_run, key, job, task)

    def next_key(self) -> int:
        with self._lock:
            return next(self._ids)

    def close(self) -> None:
        """End the workers now (a run in a worker is not waited for)."""
        processes = list((getattr(self._executor, "_processes", None) or {}).values())
        self._executor.shutdown(wait=False, cancel_futures=True)
        for process in processes:
            if process.is_alive():
                process.kill()
        for process in processes:
            process.join(timeout=2)


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
        queue = iter(tasks)
        running: dict[Future, Task] = {}
        try:
            for task in islice(queue, IN_FLIGHT_PER_WORKER * self.workers):
                running[self.pool.submit(self._key, self._bytes, task)] = task
            while running:
                done, _ = wait(running, timeout=LOOK_EVERY, return_when=FIRST_COMPLETED)
                if self.cancel is not None:
                    self.cancel.check()  # between chunks too: a cancel is felt at once
                for future in sorted(done, key=lambda f: running[f].start):
                    del running[future]
                    on_chunk(future.result())
                    for task in islice(queue, 1):
                        running[self.pool.submit(self._key, self._bytes, task)] = task
        except (Cancelled, KeyboardInterrupt):
            for future in running:
                future.cancel()  # not started: dropped; started: ends with its chunk
            return True
        return False


# --- inside a worker process ------------------------------------------------------------------

_JOBS: OrderedDict[int, Job] = OrderedDict()


def _install(parent: int) -> None:
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the server decides when workers end
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    threading.Thread(target=_watch_parent, args=(parent,), daemon=True).start()


def _watch_parent(parent: int) -> None:
    while os.getppid() == parent:
        time.sleep(PARENT_POLL)
    os._exit(1)


def _ready(_: int) -> int:
    return os.getpid()


def _run(key: int, job: bytes, task: Task) -> Chunk:
    found = _JOBS.get(key)
    if found is None:
        found = _JOBS[key] = pickle.loads(job)
        while len(_JOBS) > KEPT_JOBS:
            _JOBS.popitem(last=False)
    else:
        _JOBS.move_to_end(key)
    return ChunkBuilder(found, task).run()
