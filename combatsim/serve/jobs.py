"""Background jobs of the server: runs and studies, each in a thread on the warm pool.

A job runs on the run layer with a ``watch`` (its figures so far, refreshed at most every
``REFRESH`` seconds and always at the end) and a ``Cancel``. ``Jobs`` holds them: at most
``MAX_RUNNING`` at once (beyond it ``Busy``, a 429), a new job from the same page cancels
that page's previous one, a job nobody has asked about for ``IDLE`` seconds is cancelled,
and a finished one is dropped ``EXPIRE`` seconds after it was last asked about. A failed
job's error is one line made by the server's ``message`` (paths relative to its folder).
"""

from __future__ import annotations

import contextvars
import secrets
import threading
import time
import traceback
from collections.abc import Callable
from typing import Any

from ..errors import CombatsimError
from ..run import Cancel
from .pool import WarmPool

MAX_RUNNING = 4  # jobs running at once per server; a fifth is refused (429)
IDLE = 120.0  # seconds a running job may go unwatched before it is cancelled
EXPIRE = 600.0  # seconds a finished job is kept after it was last asked about
MAX_KEPT = 64  # finished jobs kept at most (the oldest go first)
REFRESH = 0.1  # seconds between two snapshots of a running job's figures
CLOSE_WAIT = 2.5  # seconds the server, stopping, waits for its jobs (and their workers)
REAP_EVERY = 2.0  # seconds between two looks for idle and expired jobs

RUNNING, DONE, CANCELLED, FAILED = "running", "done", "cancelled", "failed"


class Busy(CombatsimError):
    """Too many jobs running: the caller should wait for one to end (HTTP 429)."""


class Job:
    """One run, study or trace in its thread. ``body(job)`` does the work on ``job.backend``,
    calling ``job.publish(figures)`` as figures come in, and returns the final figures;
    ``kind`` is ``"run"``, ``"trace"`` or the study's kind. ``message`` makes an error's
    line (``Jobs.start`` gives the server's)."""

    def __init__(self, kind: str, body: Callable[[Job], dict[str, Any]], pool: WarmPool):
        self.id = secrets.token_hex(8)
        self.kind = kind
        self.page: str | None = None
        self.state = RUNNING
        self.cancel = Cancel()
        self.backend = pool.backend(self.cancel)
        self.figures: dict[str, Any] = {"battles_done": 0}
        self.error: str | None = None
        self.version = 0
        self.changed = threading.Condition()
        self.seen = time.monotonic()
        self.extra: dict[str, Any] = {}  # what the body keeps for later (a run's tally)
        self.message: Callable[[BaseException], str] = str
        self._body = body
        self._last = 0.0
        # the job works in its starter's context: inside the served folder's fence
        context = contextvars.copy_context()
        self.thread = threading.Thread(
            target=context.run, args=(self._run,), name=f"combatsim-{kind}-{self.id}"
        )
        self.thread.daemon = True

    def due(self) -> bool:
        """Whether ``publish`` would keep new figures now (so they are worth making)."""
        return time.monotonic() - self._last >= REFRESH

    def counter(self, kind: str) -> Callable[[Any], None]:
        """A run's ``watch``: publishes the battles done and asked for, as often as sent."""

        def watch(update) -> None:
            if self.due():
                self.publish(
                    {"kind": kind, "battles_done": update.done, "battles_total": update.total}
                )

        return watch

    def publish(self, figures: dict[str, Any], force: bool = False) -> None:
        """Keep ``figures`` as the job's latest (at most every ``REFRESH`` s unless forced)."""
        now = time.monotonic()
        if not force and now - self._last < REFRESH:
            return
        self._last = now
        with self.changed:
            self.figures = figures
            self.version += 1
            self.changed.notify_all()

    def _run(self) -> None:
        try:
            final = self._body(self)
            state = CANCELLED if self.cancel.cancelled else DONE
        except CombatsimError as err:
            final, state, self.error = self.figures, FAILED, self.message(err)
        except Exception as err:  # a bug: say it, keep the server up
            traceback.print_exc()
            final, state = self.figures, FAILED
            self.error = f"{type(err).__name__}: {self.message(err)}"
        with self.changed:
            self.state = state
            self.figures = final
            self.version += 1
            self.changed.notify_all()

    def snapshot(self) -> dict[str, Any]:
        """The figures so far with the state (what GET and each event send)."""
        self.seen = time.monotonic()
        with self.changed:
            out = {**self.figures, "id": self.id, "state": self.state}
            if self.error is not None:
                out["errors"] = [self.error]
                out["error"] = self.error
            return out

    def wait_change(self, version: int, timeout: float) -> int:
        """Block until the job's version passes ``version`` (or ``timeout``); the new one."""
        with self.changed:
            self.changed.wait_for(
                lambda: self.version != version or self.state != RUNNING, timeout=timeout
            )
            return self.version

    @property
    def running(self) -> bool:
        return self.state == RUNNING


class Jobs:
    """Every job of the server, bounded (see the module docstring)."""

    def __init__(
        self,
        max_running: int = MAX_RUNNING,
        message: Callable[[BaseException], str] = str,
    ):
        self.max_running = max_running
        self.message = message
        self._jobs: dict[str, Job] = {}
        self._pages: dict[str, str] = {}
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._reaper = threading.Thread(target=self._reap_loop, name="combatsim-reaper")
        self._reaper.daemon = True
        self._reaper.start()

    def start(self, job: Job, page: str | None = None) -> Job:
        """Start ``job``; the page's previous job is cancelled first; ``Busy`` over the cap."""
        with self._lock:
            if page:
                previous = self._jobs.get(self._pages.get(page, ""))
                if previous is not None and previous.running:
                    previous.cancel.cancel()
            running = [j for j in self._jobs.values() if j.running and not j.cancel.cancelled]
            if len(running) >= self.max_running:
                raise Busy(f"{len(running)} runs already going; try again when one ends")
            job.page = page or None
            job.message = self.message
            if page:
                self._pages[page] = job.id
            self._jobs[job.id] = job
        job.thread.start()
        return job

    def latest(self, page: str) -> str | None:
        """The id of the page's latest job (of the kind its key names)."""
        with self._lock:
            return self._pages.get(page)

    def busy(self) -> bool:
        """Whether any job is running (the overview waits for them)."""
        with self._lock:
            return any(job.running for job in self._jobs.values())

    def get(self, job_id: str, kind: str | None = None) -> Job | None:
        """The job ``job_id`` if it is of ``kind``: ``"run"``, ``"trace"``, or ``"study"``
        for any study's kind."""
        with self._lock:
            job = self._jobs.get(job_id)
        if job is None or (kind is not None and _family(job.kind) != kind):
            return None
        return job

    def forget(self, job: Job) -> None:
        """Drop ``job`` once it has ended (a trace, whose answer went to its request)."""
        with self._lock:
            if not job.running and self._jobs.get(job.id) is job:
                del self._jobs[job.id]

    def cancel_all(self, wait: float = 0.0) -> None:
        with self._lock:
            jobs = list(self._jobs.values())
        for job in jobs:
            job.cancel.cancel()
        deadline = time.monotonic() + wait
        for job in jobs:
            job.thread.join(max(0.0, deadline - time.monotonic()))

    def close(self, wait: float = CLOSE_WAIT) -> None:
        """Cancel every job and give them ``wait`` seconds to stop their workers."""
        self._stop.set()
        self.cancel_all(wait)

    def reap(self) -> None:
        """Cancel jobs nobody watches; drop finished ones nobody asked about lately."""
        now = time.monotonic()
        with self._lock:
            for job in list(self._jobs.values()):
                if job.running and now - job.seen > IDLE:
                    job.cancel.cancel()
                elif not job.running and now - job.seen > EXPIRE:
                    del self._jobs[job.id]
            finished = sorted((j for j in self._jobs.values() if not j.running), key=_seen)
            for job in finished[: max(0, len(finished) - MAX_KEPT)]:
                del self._jobs[job.id]
            self._pages = {p: i for p, i in self._pages.items() if i in self._jobs}

    def _reap_loop(self) -> None:
        while not self._stop.wait(REAP_EVERY):
            self.reap()


def _family(kind: str) -> str:
    return kind if kind in ("run", "trace") else "study"


def _seen(job: Job) -> float:
    return job.seen
