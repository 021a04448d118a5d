"""Progress of a long batch on stderr: a self-updating line on a terminal, a few lines otherwise.

Short runs show nothing: the display starts only once a run has taken ``delay`` seconds, so a
quick batch (and a test) prints no progress at all. On a terminal the line is redrawn at most
every ``interval`` seconds; into a file or pipe one line is written per quarter of the run.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable
from typing import TextIO


class Progress:
    """A ``progress(done, total)`` callback for ``combatsim.batch.simulate``; call ``finish``."""

    def __init__(
        self,
        stream: TextIO | None = None,
        delay: float = 1.0,
        interval: float = 0.2,
        clock: Callable[[], float] = time.monotonic,
    ):
        self.stream = sys.stderr if stream is None else stream
        self.delay, self.interval, self.clock = delay, interval, clock
        self.tty = bool(getattr(self.stream, "isatty", lambda: False)())
        self.started = clock()
        self._drawn_at: float | None = None  # when the terminal line was last drawn
        self._quarter = 0  # quarters of the run already reached

    def __call__(self, done: int, total: int) -> None:
        now = self.clock()
        quarter = 4 * done // total
        new_quarter, self._quarter = quarter > self._quarter, max(quarter, self._quarter)
        if now - self.started < self.delay:
            return
        if self.tty:
            if self._drawn_at is None or now - self._drawn_at >= self.interval or done == total:
                self.stream.write(f"\r{self._text(done, total, now)}\033[K")
                self.stream.flush()
                self._drawn_at = now
        elif new_quarter:
            print(self._text(done, total, now), file=self.stream, flush=True)

    def finish(self) -> None:
        """End the terminal line, if one was drawn, so what follows starts on a line of its own."""
        if self._drawn_at is not None:
            self.stream.write("\n")
            self.stream.flush()
            self._drawn_at = None

    def _text(self, done: int, total: int, now: float) -> str:
        elapsed = now - self.started
        text = f"battles: {done}/{total} ({done / total:.0%}), {elapsed:.0f} s"
        if 0 < done < total:
            text += f", about {elapsed * (total - done) / done:.0f} s left"
        return text
