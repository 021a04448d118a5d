"""What ``combatsim design`` prints: the ranked designs, the verdict line, the stated error.

Kept apart from ``combatsim.sweeps.design`` so that ``verdicts`` (which every ``Result``
reaches) does not import the search.
"""

from __future__ import annotations

from typing import Any


def design_text(summary: dict[str, Any]) -> str:
    """What the command line prints: the designs ranked, with each target's rate and 95%
    interval, the verdict line, and the stated chance of a wrong "hits"."""
    rule = summary["rule"]
    count = len(summary["designs"])
    confirmed = (
        f"the best {count} confirmed on {rule['confirmation_battles']} fresh battles each"
        if count
        else "none could still hit the targets after the screening"
    )
    lines = [
        f"Designs of {summary['side']}: {summary['candidates']} make-ups screened, {confirmed}."
    ]
    width = max((len(d["design"]) for d in summary["designs"]), default=0)
    for d in summary["designs"]:
        figures = "   ".join(
            f"{t['target']}: "
            + (
                f"{t['rate']:.1%} ({t['ci95'][0]:.1%}-{t['ci95'][1]:.1%})"
                if t["rate"] is not None
                else "no battle"
            )
            for t in d["rates"]
        )
        lines.append(f"{d['rank']:>3}. {d['design']:<{width}}  {d['verdict']:<7}  {figures}")
    lines.append(summary["verdict"])
    lines.append(
        f"'hits': every target's exact interval at {rule['hit_confidence']:.2%} lies inside it, "
        f"on battles the search did not choose by, so the chance that any design reported as "
        f"hitting misses a target is at most {rule['false_hit_chance']:.0%}."
    )
    return "\n".join(lines)
