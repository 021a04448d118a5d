"""Chains of encounters: a side carried from one fight to the next with its wounds, rounds,
grenades and spent Karma or Edge, and the rests between them (ruling 27).

- ``loader``: chain files read and checked into a ``Chain`` (``chain``: the face a study
  reads, over the data of ``model``);
- ``runner``: ``run_chain``, one run of a chain, the run layer's runner for it;
- ``tally``: ``ChainTally``, the counts many runs come to;
- ``summary``: what they answer, as a summary, tidy tables and text;
- ``study``: ``run_chain_study``, runs of a chain and of it fresh through the run layer.
"""

from __future__ import annotations

from .chain import Chain
from .loader import build_chain, is_chain, load_chain
from .model import Encounter, Rest

__all__ = ["Chain", "Encounter", "Rest", "build_chain", "is_chain", "load_chain"]
