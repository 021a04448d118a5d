"""The discrete-event battle engine (simpy); no I/O, plain records out."""

from .battle import Battle, run_battle
from .records import BattleResult, TraceEvent

__all__ = ["Battle", "BattleResult", "TraceEvent", "run_battle"]
