"""What runs of a chain answer: the summary (``summary.json``), its tidy tables and the text
the command prints.

The chain and the same chain with every fight fresh (no carry-over) are counted side by side
over the same streams, so the difference between them is what attrition costs.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ..output import aligned_rows, interval_text, percent
from .tally import RESOURCES, STATUSES

if TYPE_CHECKING:
    from .model import ChainSpec
    from .tally import ChainTally

RESOURCE_NAMES = {
    "spent": "Karma or Edge spent",
    "wounds": "wounds",
    "stun": "stun",
    "grenades": "grenades",
}


def chain_summary(
    chain: ChainSpec,
    carried: ChainTally,
    fresh: ChainTally,
    seed: int,
    requested: int,
    interrupted: bool,
    precision: dict[str, Any] | None,
) -> dict[str, Any]:
    """The JSON-ready summary: the chain, and its answers with and without carry-over."""
    return {
        "kind": "chain",
        "chain": chain.name,
        "source": chain.source,
        "system": chain.system,
        "side": chain.side,
        "stop": chain.stop,
        "down": chain.down,
        "seed": int(seed),
        "runs_requested": int(requested),
        "interrupted": bool(interrupted),
        "precision": precision,
        "encounter_order": [e.name for e in chain.encounters],
        "boss": [e.name for e in chain.encounters if e.boss],
        "rests": [
            {
                "after": chain.encounters[k].name,
                "heal": r.heal,
                "heal_stun": r.heal_stun,
                "edge": r.edge,
                "regain": r.regain,
            }
            for k, r in enumerate(chain.rests)
        ],
        "carried": carried.answers(),
        "fresh": fresh.answers(),
    }


# --- tables ---------------------------------------------------------------------------------


def encounter_rows(summary: dict[str, Any]) -> list[dict[str, Any]]:
    """One row per encounter and way of running (carried, fresh): reach, win, ends the run."""
    rows = []
    for mode in ("carried", "fresh"):
        for k, e in enumerate(summary[mode]["encounters"]):
            row: dict[str, Any] = {"mode": mode, "encounter": e["encounter"], "order": k}
            for key in ("reach", "win_once_reached", "ends_run"):
                row[key] = e[key]["rate"]
                row[f"{key}_low"], row[f"{key}_high"] = e[key]["ci95"]
            row["ends_most_runs"] = e["ends_most_runs"]
            rows.append(row)
    return rows


def casualty_rows(summary: dict[str, Any]) -> list[dict[str, Any]]:
    """One row per encounter, member and way of running: down and dead, once it fought."""
    rows = []
    for mode in ("carried", "fresh"):
        for e in summary[mode]["encounters"]:
            for c in e["casualties"]:
                rows.append(
                    {
                        "mode": mode,
                        "encounter": e["encounter"],
                        "member": c["member"],
                        "fought": c["fought"],
                        "down": c["down"]["rate"],
                        "down_low": c["down"]["ci95"][0],
                        "down_high": c["down"]["ci95"][1],
                        "dead": c["dead"]["rate"],
                        "dead_low": c["dead"]["ci95"][0],
                        "dead_high": c["dead"]["ci95"][1],
                    }
                )
    return rows


def member_rows(summary: dict[str, Any]) -> list[dict[str, Any]]:
    """One row per member, way of running and end status, with its interval."""
    rows = []
    for mode in ("carried", "fresh"):
        for member in summary[mode]["members"]:
            for status, r in member["end"].items():
                rows.append(
                    {
                        "mode": mode,
                        "member": member["member"],
                        "status": status,
                        "rate": r["rate"],
                        "low": r["ci95"][0],
                        "high": r["ci95"][1],
                    }
                )
    return rows


def resource_rows(summary: dict[str, Any]) -> list[dict[str, Any]]:
    """The resources left at the end, long form: member, resource, value, runs."""
    rows = []
    for mode in ("carried", "fresh"):
        for member in summary[mode]["members"]:
            left = member["left"]
            named = [(r, left[r]) for r in RESOURCES]
            named += [(f"rounds[{w}]", h) for w, h in enumerate(left["rounds"])]
            for resource, histogram in named:
                for value, runs in enumerate(histogram):
                    if runs:
                        rows.append(
                            {
                                "mode": mode,
                                "member": member["member"],
                                "resource": resource,
                                "value": value,
                                "runs": runs,
                            }
                        )
    return rows


# --- text -----------------------------------------------------------------------------------


def format_chain(summary: dict[str, Any]) -> str:
    """What ``combatsim chain`` prints: completion, each encounter, each member's end."""
    carried, fresh = summary["carried"], summary["fresh"]
    n = carried["runs_completed"]
    head = f"{summary['chain']} ({summary['source']}, {summary['system']}): side {summary['side']}"
    runs = f"{n} runs, seed {summary['seed']}"
    if summary["interrupted"]:
        runs += f" (interrupted: {n} of {summary['runs_requested']} finished)"
    lines = [head, runs, ""]
    rows: list[tuple[str, ...]] = [("", "completes the run", "95% interval")]
    for label, part in (("carried over", carried), ("every fight fresh", fresh)):
        rows.append(
            (label, percent(part["completes"]["rate"]), interval_text(part["completes"]["ci95"]))
        )
    lines += aligned_rows(rows) + [""]
    rows = [("encounter", "reached", "won once reached", "95% interval", "ends run", "fresh: won")]
    for e, f in zip(carried["encounters"], fresh["encounters"], strict=True):
        mark = " <- ends most runs" if e["ends_most_runs"] else ""
        rows.append(
            (
                e["encounter"],
                percent(e["reach"]["rate"]),
                percent(e["win_once_reached"]["rate"]),
                interval_text(e["win_once_reached"]["ci95"]),
                percent(e["ends_run"]["rate"]) + mark,
                percent(f["win_once_reached"]["rate"]),
            )
        )
    lines += aligned_rows(rows) + [""]
    rows = [("member", *STATUSES)]
    for member in carried["members"]:
        rows.append((member["member"], *(percent(member["end"][s]["rate"]) for s in STATUSES)))
    lines += ["how each member ends the run (carried over):", *aligned_rows(rows)]
    lines += ["", *_casualty_lines(carried), "", *_resource_lines(carried)]
    return "\n".join(lines)


def _casualty_lines(part: dict[str, Any]) -> list[str]:
    rows = [("casualties", "member", "down", "95% interval", "dead")]
    for e in part["encounters"]:
        for c in e["casualties"]:
            rows.append(
                (
                    e["encounter"],
                    c["member"],
                    percent(c["down"]["rate"]),
                    interval_text(c["down"]["ci95"]),
                    percent(c["dead"]["rate"]),
                )
            )
    return [*aligned_rows(rows), "  (of the runs in which the member entered the fight standing)"]


def shown_resources(left: dict[str, Any]) -> list[tuple[str, list[int]]]:
    """A member's resources left at the end worth showing, each as (label, histogram of runs
    by value): those it had at all, wounds always, and not a single value that never moved."""
    named = [(RESOURCE_NAMES[r], left[r]) for r in RESOURCES]
    named += [(f"rounds, weapon {w + 1}", h) for w, h in enumerate(left["rounds"])]
    return [
        (label, histogram)
        for label, histogram in named
        if sum(histogram) and (len(histogram) > 1 or label == "wounds")
    ]


def _resource_lines(part: dict[str, Any]) -> list[str]:
    rows = [("left at the end", "member", "mean", "min", "max")]
    for member in part["members"]:
        for label, histogram in shown_resources(member["left"]):
            values = [v for v, c in enumerate(histogram) if c]
            mean = sum(v * c for v, c in enumerate(histogram)) / sum(histogram)
            rows.append((label, member["member"], f"{mean:.2f}", str(values[0]), str(values[-1])))
    return aligned_rows(rows)
