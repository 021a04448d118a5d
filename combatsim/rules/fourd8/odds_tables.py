"""Exact odds of a 4D8 roll-under as a table (``combatsim odds 4d8``)."""

from __future__ import annotations

from ...dice import fourd8
from ...errors import check_range
from ...odds import Table


def fourd8_odds(chance: int, over32: str = fourd8.DEFAULT_OVER32) -> tuple[dict, Table]:
    """P(success) and the degree-of-success distribution of a 4D8 roll-under (seed 004)."""
    check_range("--chance", chance, -100, 200)
    degree = fourd8.exact_degree(chance, over32)
    kinds = fourd8.exact_kind(chance, over32)
    p_ok = fourd8.p_success(chance, over32)
    payload = {
        "system": "4d8",
        "chance": chance,
        "over32": over32 if chance > 32 else None,
        "p_success": float(p_ok),
        "p_success_exact": str(p_ok),
        "degree": {str(k): float(v) for k, v in degree.sorted_items()},
        "expected_degree": float(degree.mean()),
        "combinations": {k: float(kinds[k]) for k in fourd8.KINDS},
    }
    return payload, Table(
        f"4D8 roll-under, chance {chance}" + (f" ({over32} roll)" if chance > 32 else ""),
        ["degree", "P"],
        [[k if k else "failure", float(v)] for k, v in degree.sorted_items()],
        [
            f"P(success): {float(p_ok):.2%} (exactly {p_ok})",
            f"expected degree (0 on failure): {payload['expected_degree']:.2f}",
            "combinations: " + ", ".join(f"{k} {float(kinds[k]):.2%}" for k in fourd8.KINDS),
        ],
    )
