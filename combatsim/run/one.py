"""One scenario's run, the one way every front end runs a scenario.

``combatsim run``, ``combatsim.simulate`` (both through ``combatsim.sweeps.api.run_one``) and
the page's live run (``combatsim.serve.runs``) all make a ``OneRun``: the same study, root
seed and summary, so a page's finished run and ``combatsim run FILE --battles N --seed S`` give
the same numbers. They differ only in what they do with it (write a folder, fill a
``Result``, publish figures as chunks come in).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from .battles import summarize
from .options import Options
from .study import Study


@dataclass(frozen=True)
class OneRun:
    """A scenario's ``Study`` under ``options``, with the root seed it runs from."""

    scenario: Any
    options: Options
    root: int
    study: Study

    @classmethod
    def start(cls, scenario, options: Options, records: str = "all") -> OneRun:
        """The run of a loaded ``scenario``, fresh or resumed from ``options.out``'s journal;
        ``records``: what to keep when ``options.records`` does not say."""
        root = options.root_seed(scenario)
        return cls(scenario, options, root, options.study([scenario], "run", root, records))

    def evaluate(self) -> bool:
        """Run every battle (on ``options``' backend); False if interrupted."""
        opts = self.options
        tasks = None if opts.precision is not None else -(-opts.battles // opts.chunk_size)
        with opts.open_backend(tasks) as backend:
            return self.study.evaluate(backend)

    def summary(self, complete: bool | None = None) -> dict[str, Any]:
        """The summary of the battles finished so far (``combatsim.run.summarize``);
        ``complete`` None while the run goes on (then counted against at least the battles
        asked for, and ``interrupted`` until it ends), with its precision report once ended."""
        requested = self.study.requested(0)
        if complete is None:
            requested = max(requested, self.options.battles)
        tally = self.study.tally(0)
        summary = summarize(tally, self.scenario, self.root, requested, not complete)
        report = self.study.precision_report() if complete is not None else None
        if report is not None:
            summary["precision"] = report
        return summary

    @property
    def records(self) -> str:
        """What per-battle records the run keeps: ``"none"``, ``"battles"`` or ``"all"``."""
        return self.study.settings.records
