"""Exact odds of a 4D8 roll-under as tables (``combatsim odds 4d8``): the degree, the
combinations over every roll and on successful rolls only, and the aspects (``--aspects``)."""

from __future__ import annotations

from fractions import Fraction

from ...dice import fourd8
from ...dice.exact import Dist
from ...errors import check_range
from ...odds import Table

EFFECT_KINDS = ("pair", "two_pairs", "triple", "four_alike")  # the kinds with aspect effects


def fourd8_odds(chance: int, over32: str = fourd8.DEFAULT_OVER32) -> tuple[dict, Table]:
    """P(success) and the degree-of-success distribution of a 4D8 roll-under (ruling 20)."""
    check_range("--chance", chance, -100, 200)
    degree = fourd8.exact_degree(chance, over32)
    p_ok = fourd8.p_success(chance, over32)
    payload = {
        "system": "4d8",
        "shows": "degree",
        "chance": chance,
        "over32": over32 if chance > 32 else None,
        "p_success": float(p_ok),
        "p_success_exact": str(p_ok),
        "degree": {str(k): float(v) for k, v in degree.sorted_items()},
        "expected_degree": float(degree.mean()),
        **_combinations(chance, over32),
        **_aspects(chance, over32),
    }
    return payload, Table(
        f"4D8 roll-under, chance {chance}" + _roll_note(chance, over32),
        ["degree", "P"],
        [[k if k else "failure", float(v)] for k, v in degree.sorted_items()],
        [
            f"P(success): {float(p_ok):.2%} (exactly {p_ok})",
            f"expected degree (0 on failure): {payload['expected_degree']:.2f}",
            *_combination_lines(payload),
        ],
    )


def fourd8_aspects(chance: int, over32: str = fourd8.DEFAULT_OVER32) -> tuple[dict, Table]:
    """Which dice made the combination (ruling 20): every ``(kind, aspects)`` with its chance
    over every roll, as a success and as a share of the successes."""
    payload, _ = fourd8_odds(chance, over32)
    payload["shows"] = "aspects"
    rows = [
        [_outcome_name(r["kind"], r["aspects"]), r["p"], r["p_success_with"], r["p_on_success"]]
        for r in payload["aspects"]
    ]
    notes = [
        "aspects: the dice that make the combination (physical, mental, social, magical: dice "
        "1-4); 'none' is no combination, named by its highest die (the first of a tie)",
        *_combination_lines(payload),
    ]
    for kind, by_aspect in payload["aspect_in_combination"].items():
        if any(by_aspect.values()):
            notes.append(
                f"success with a {kind} on the die (its aspect's effect applies): "
                + ", ".join(f"{a} {p:.2%}" for a, p in by_aspect.items())
            )
    return payload, Table(
        f"4D8 roll-under, chance {chance}{_roll_note(chance, over32)}: the aspects",
        ["combination", "every roll", "success with it", "share of successes"],
        rows,
        notes,
    )


def _roll_note(chance: int, over32: str) -> str:
    return f" ({over32} roll)" if chance > 32 else ""


def _outcome_name(kind: str, aspects: list[str] | tuple[str, ...]) -> str:
    return f"{kind}: {'+'.join(aspects)}"


def _conditional(dist: Dist, p_ok: Fraction) -> Dist | None:
    return fourd8.on_success(dist) if p_ok else None


def _combinations(chance: int, over32: str) -> dict:
    """The kinds over every roll, on successful rolls only (a share of the successes, None
    when no roll succeeds) and as a success showing them (their sum is P(success))."""
    outcomes = fourd8.exact_outcomes(chance, over32)
    kinds = outcomes.map(lambda o: o[2])
    with_success = outcomes.map(lambda o: (o[0], o[2]))
    given = _conditional(with_success, with_success.prob(lambda o: o[0]))
    return {
        "combinations": {k: float(kinds[k]) for k in fourd8.KINDS},
        "combinations_on_success": (
            None if given is None else {k: float(given[(k,)]) for k in fourd8.KINDS}
        ),
        "combinations_with_success": {k: float(with_success[(True, k)]) for k in fourd8.KINDS},
    }


def _aspects(chance: int, over32: str) -> dict:
    """Every ``(kind, aspects)`` outcome, in the order of ``KINDS`` and then of the dice, and
    for each kind the chance of a success showing it with each aspect's die in it (when that
    aspect's effect applies)."""
    joint = fourd8.exact_aspects(chance, over32)
    every = joint.map(lambda o: (o[1], o[2]))
    p_ok = joint.prob(lambda o: o[0])
    given = _conditional(joint, p_ok)
    order = {name: i for i, name in enumerate(fourd8.ASPECTS)}
    keys = sorted(
        every, key=lambda k: (fourd8.KINDS.index(k[0]), len(k[1]), [order[a] for a in k[1]])
    )
    rows = [
        {
            "kind": kind,
            "aspects": list(aspects),
            "p": float(every[(kind, aspects)]),
            "p_success_with": float(joint[(True, kind, aspects)]),
            "p_on_success": 0.0 if given is None else float(given[(kind, aspects)]),
        }
        for kind, aspects in keys
    ]
    in_combination = {  # the chance a success shows that kind with the aspect's die in it
        kind: {a: float(_with_die(joint, kind, a)) for a in fourd8.ASPECTS} for kind in EFFECT_KINDS
    }
    return {"aspects": rows, "aspect_in_combination": in_combination}


def _with_die(joint: Dist[tuple[bool, str, tuple[str, ...]]], kind: str, aspect: str) -> Fraction:
    return joint.prob(lambda o: o[0] and o[1] == kind and aspect in o[2])


def _combination_lines(payload: dict) -> list[str]:
    every, given = payload["combinations"], payload["combinations_on_success"]
    lines = [
        "combinations over every roll, hit or miss: "
        + ", ".join(f"{k} {p:.2%}" for k, p in every.items())
    ]
    if given is None:
        lines.append("combinations on successful rolls only: none (no roll succeeds)")
    else:
        lines.append(
            "combinations on successful rolls only (share of the successes): "
            + ", ".join(f"{k} {p:.2%}" for k, p in given.items())
        )
    return lines
