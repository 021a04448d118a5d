"""The run layer: the one place that turns a scenario, or a set of variants, into battles.

Every front end (the command line, the Python API, the studies in ``combatsim.sweeps``, a
live page) runs battles through here and through nothing else:

- ``chunks``: the unit of work a worker is given (a ``Job`` once, then ``Task`` s) and the
  ``Chunk`` it hands back;
- ``tally``: a ``Tally``, the integer counts a summary is made from, merged as chunks arrive;
- ``backends``: where chunks run (this process, local worker processes, a Dask cluster);
- ``study``: a ``Study`` of variants in units, rounds to a precision target, the journal of an
  output folder for ``--resume``, progress (``progress`` and ``watch``) as chunks come in;
- ``cancel``: a ``Cancel`` token that stops a run from another thread;
- ``options``: how a study runs (``Options``) and the start-up every study shares;
- ``battles``: ``summarize``, a tally as the JSON-ready summary every run reports;
- ``one``: ``OneRun``, the one way a front end runs one scenario.

It imports the engine, the scenario models and the helpers below them, never a study,
command, report or the public API (``tests/test_imports.py`` holds it to that).
"""

from __future__ import annotations

from .backends import Backend, make_backend
from .battles import default_runner, summarize
from .cancel import Cancel, Cancelled
from .chunks import Chunk, Job, Progress, Runner, Task
from .one import OneRun
from .options import Options, holds_folder, load
from .study import Pairing, Settings, Study, Update, Watch, paired_differences
from .tally import Tally

__all__ = [
    "Backend",
    "Cancel",
    "Cancelled",
    "Chunk",
    "Job",
    "OneRun",
    "Options",
    "Pairing",
    "Progress",
    "Runner",
    "Settings",
    "Study",
    "Tally",
    "Task",
    "Update",
    "Watch",
    "default_runner",
    "holds_folder",
    "load",
    "make_backend",
    "paired_differences",
    "summarize",
]
