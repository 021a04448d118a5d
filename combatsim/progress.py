"""Progress of a long batch: a tqdm bar on a terminal, a widget in a notebook (``tqdm.auto``).

tqdm is well kept and knows terminals, notebooks and widths better than a hand-written line.
Short runs show nothing: the bar appears only once a run has taken ``delay`` seconds, so a
quick batch (and a test) prints no progress at all. Where the output is neither a terminal nor
a notebook (a file, a pipe, a CI log) tqdm draws nothing (its ``disable=None``).
"""

from __future__ import annotations

from typing import Any, TextIO

DELAY = 1.0  # seconds before a bar appears


class Progress:
    """A ``progress(done, total)`` callback for the batch entry points; call ``finish`` (or use
    it as a context manager) when the run ends. The total may grow between calls (a run to a
    precision adds rounds of battles)."""

    def __init__(
        self, stream: TextIO | None = None, delay: float = DELAY, disable: bool | None = None
    ):
        self.stream, self.delay, self.disable = stream, delay, disable
        self.bar: Any = None  # a tqdm bar once battles come in (tqdm ships no type information)

    def __call__(self, done: int, total: int) -> None:
        if self.bar is None:
            from tqdm.auto import tqdm

            self.bar = tqdm(
                total=total,
                desc="battles",
                unit=" battles",
                file=self.stream,
                delay=self.delay,
                disable=self.disable,
                dynamic_ncols=True,
            )
        if self.bar.total != total:
            self.bar.total = total
        self.bar.update(done - self.bar.n)

    def finish(self) -> None:
        """Close the bar, if one was started, so what follows starts on a line of its own."""
        if self.bar is not None:
            self.bar.close()
            self.bar = None

    def __enter__(self) -> Progress:
        return self

    def __exit__(self, *exc) -> None:
        self.finish()
