"""Progress of a long batch: a tqdm bar on a terminal, in a notebook a widget (with
ipywidgets) or tqdm's text bar (without).

tqdm is well kept and knows terminals, notebooks and widths better than a hand-written line.
Short runs show nothing: the bar appears only once a run has taken ``DELAY`` seconds, so a
quick batch (and a test) prints no progress at all. Where the output is neither a terminal nor
a notebook (a file, a pipe, a CI log) tqdm draws nothing (its ``disable=None``). The bar is
chosen here rather than by ``tqdm.auto``, which in a notebook without ipywidgets only warns
(``IProgress not found``) and then draws nothing, the notebook's output being no terminal.
"""

from __future__ import annotations

import importlib.util
import sys
from typing import Any, TextIO

DELAY = 1.0  # seconds before a bar appears (read when a bar starts)


def in_notebook() -> bool:
    """True in a Jupyter kernel (notebook, lab, VS Code), as tqdm.autonotebook tells it: the
    running IPython shell is a kernel's. ``ipykernel`` merely imported (a tool that starts
    kernels, a test) is not a notebook."""
    if "ipykernel" not in sys.modules or "IPython" not in sys.modules:
        return False
    shell = sys.modules["IPython"].get_ipython()
    return shell is not None and "IPKernelApp" in getattr(shell, "config", {})


def bar_class(notebook: bool) -> tuple[Any, bool]:
    """tqdm's bar for here, and whether it must draw though its stream is no terminal: the
    widget in a notebook with ipywidgets, the text bar in one without, the console bar
    elsewhere."""
    if notebook and importlib.util.find_spec("ipywidgets") is not None:
        from tqdm.notebook import tqdm as widget

        return widget, False
    from tqdm.std import tqdm

    return tqdm, notebook


class Progress:
    """A ``progress(done, total)`` callback for the batch entry points; call ``finish`` (or use
    it as a context manager) when the run ends. The total may grow between calls (a run to a
    precision adds rounds of battles)."""

    def __init__(
        self,
        stream: TextIO | None = None,
        delay: float | None = None,
        disable: bool | None = None,
    ):
        self.stream, self.delay, self.disable = stream, delay, disable
        self.bar: Any = None  # a tqdm bar once battles come in (tqdm ships no type information)

    def __call__(self, done: int, total: int) -> None:
        if self.bar is None:
            bar, draw = bar_class(in_notebook())
            self.bar = bar(
                total=total,
                desc="battles",
                unit=" battles",
                file=self.stream,
                delay=DELAY if self.delay is None else self.delay,
                disable=False if draw and self.disable is None else self.disable,
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
