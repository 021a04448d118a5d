"""One run of a chain told fight by fight (``combatsim chain --trace I``)."""

from __future__ import annotations

from ..output import format_outcome, format_trace
from .chain import Chain
from .runner import ChainRun


def _start_text(start) -> str:
    parts = [f"wounds {start.wounds}"]
    if start.stun:
        parts.append(f"stun {start.stun}")
    if start.spent:
        parts.append(f"spent {start.spent}")
    if start.rounds is not None:
        parts.append("rounds " + "/".join(str(r) for r in start.rounds))
    if start.grenades is not None:
        parts.append(f"grenades {start.grenades}")
    if start.dead:
        parts.append("out (dead or left behind)")
    return ", ".join(parts)


def format_run(chain: Chain, run: ChainRun, seed: int) -> str:
    """Each fight of the run: how the carried fighters started it, blow by blow, who won;
    then how the run ended."""
    lines = [f"{chain.name}: run {run.index} of seed {seed}"]
    for fight in run.fights or ():
        encounter = chain.encounters[fight.encounter]
        sides = [s.name for s in encounter.scenario.sides]
        lines += ["", f"=== encounter {fight.encounter + 1}: {encounter.name}"]
        if fight.encounter:
            rest = chain.rests[fight.encounter - 1]
            lines.append(
                f"rest before it: heal {rest.heal}, heal stun {rest.heal_stun}, "
                f"edge {rest.edge} (+{rest.regain})"
            )
        for name, start in fight.starts.items():
            lines.append(f"  {name} starts: {_start_text(start)}")
        lines += [format_trace(fight.result, sides), format_outcome(fight.result, sides)]
    ended = "completed the run" if run.completed else "did not complete the run"
    lines += ["", f"the {chain.side} {ended}"]
    for name, status in zip(chain.roster, run.status, strict=True):
        lines.append(f"  {name}: {status}")
    return "\n".join(lines)
