"""The page's "what if" questions: ``sweep``, ``compare``, ``balance`` and ``explain``, run by
the same functions as the commands (``combatsim.sweep`` ...) with a ``watch`` and a ``Cancel``.

A study's figures are ``kind``, ``battles_done`` and ``battles_total`` while it runs (a
one-field sweep's rows too, as they firm up), then its ``rows`` (the result's table, with
intervals), the study's own summary keys (``differences``, ``best``...) and ``verdict``: the
lines the command prints. Studies run on the server's warm pool (``backend=`` of
``combatsim.run.Options``), as runs do, at most ``MAX_STUDY_BATTLES`` battles per variant.

A study is checked in the request, before it starts (``check``): its vary, sets, target,
side and metric as the command would read them, each varied field at its values (every one
of a short list, the ends of a long one), and its size: at most ``MAX_VARIANTS`` variants and
``MAX_STUDY_TOTAL`` battles in all. Anything else is a one-line 422.
"""

from __future__ import annotations

import math
from typing import Any

from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.routing import Route

from ..errors import UsageError
from ..run import Update
from ..sweeps.fields import Vary, apply, parse_vary
from . import common as web
from .common import JSON as JSONResponse
from .jobs import Job
from .runs import run_options, scenario_of

KINDS = ("sweep", "compare", "balance", "explain")
MAX_STUDY_BATTLES = 20_000  # per variant, from the page
MAX_VARIANTS = 1_000  # variants of one study from the page
MAX_STUDY_TOTAL = 2_000_000  # battles of one study in all (variants x battles per variant)
CHECKED_VALUES = 12  # a varied field's values each checked up front; a longer list: its ends
LIVE_ROWS = 100  # variants of a one-field sweep shown row by row while it runs (more: at the end)


def study_body(served, body: dict[str, Any], workers: int):
    """Check a study request and return the work of its job (``Job``'s ``body``)."""
    kind = body.get("kind")
    if kind not in KINDS:
        raise UsageError("kind", kind, "'sweep', 'compare', 'balance' or 'explain'")
    scenario = scenario_of(served, body)
    options = run_options(body, MAX_STUDY_BATTLES)
    call = {"sweep": _sweep, "compare": _compare, "balance": _balance, "explain": _explain}[kind]
    if kind == "compare" and isinstance(body.get("scenario"), str) and body.get("yaml") is not None:
        # the edited fight (the text, with its set) against the file as written
        start = _compare(served.load(body["scenario"]), body, scenario)
    else:
        start = call(scenario, body)
    check(kind, scenario, body, options.get("max_battles", options["battles"]))

    def work(job: Job) -> dict[str, Any]:
        rows = LiveRows(body) if kind == "sweep" else None
        if rows is not None and rows.vary is not None and len(rows.vary.values) > LIVE_ROWS:
            rows = None  # its progress only: every row worked out again costs the run time

        def watch(update: Update) -> None:
            if rows is not None:
                rows.changed(update)
            if not job.due():  # figures are made only as often as they are sent
                return
            figures = {"kind": kind, "battles_done": update.done, "battles_total": update.total}
            if rows is not None:
                figures["rows"] = rows.now(update)
            job.publish(figures)

        result = start(
            **options,
            workers=workers,
            quiet=True,
            watch=watch,
            cancel=job.cancel,
            backend=job.backend,  # the warm pool: no processes started per study
        )
        figures = final_figures(kind, result)
        root = f"{served.root}/"  # the folder's own path left out, as in every message
        figures["verdict"] = [line.replace(root, "") for line in figures["verdict"]]
        return figures

    return work


def _sweep(scenario, body):
    import combatsim

    vary = body.get("vary")
    vary = [vary] if isinstance(vary, str) else vary
    if not isinstance(vary, list) or not vary or not all(isinstance(v, str) for v in vary):
        raise UsageError(
            "vary", vary, "a list of 'PATH=VALUES', e.g. 'sides[1].members[0].count=1..8'"
        )
    return lambda **options: combatsim.sweep(scenario, vary, **options)


def _compare(scenario, body, edited=None):
    """A: ``scenario`` (with ``a_set``); B: ``edited`` if given, else ``scenario`` again (with
    ``b_set``)."""
    import combatsim

    a_sets, b_sets = body.get("a_set") or [], body.get("b_set") or []
    for name, sets in (("a_set", a_sets), ("b_set", b_sets)):
        if not isinstance(sets, list) or not all(isinstance(s, str) for s in sets):
            raise UsageError(name, sets, "a list of 'PATH=VALUE' strings")
    return lambda **options: combatsim.compare(
        scenario, edited, a_sets=a_sets, b_sets=b_sets, **options
    )


def _balance(scenario, body):
    import combatsim

    vary, target, side = body.get("vary"), body.get("target", 0.5), body.get("side")
    if not isinstance(vary, str):
        raise UsageError("vary", vary, "one 'PATH=VALUES', e.g. 'sides[1].members[0].count=1..8'")
    return lambda **options: combatsim.balance(scenario, vary, target, side=side, **options)


def _explain(scenario, body):
    import combatsim

    side, metric = body.get("side"), body.get("metric", "win")
    return lambda **options: combatsim.explain(scenario, side, metric, **options)


class LiveRows:
    """A one-field sweep's rows so far: the value, battles, and each side's win rate with its
    interval (the columns of the finished table). Only variants with new battles since the
    last look are worked out again: a thousand variants cost what their chunks bring."""

    def __init__(self, body: dict[str, Any]):
        vary = body.get("vary")
        vary = vary[0] if isinstance(vary, list) and len(vary) == 1 else vary
        self.vary = parse_vary(vary) if isinstance(vary, str) else None
        self.rows: dict[int, dict[str, Any]] = {}
        self.dirty: set[int] = set()

    def changed(self, update: Update) -> None:
        self.dirty.update(update.variants)

    def now(self, update: Update) -> list[dict[str, Any]]:
        if self.vary is None:
            return []
        labels = self.vary.values
        for variant in sorted(self.dirty):
            if variant < min(len(labels), len(update.study.scenarios)):
                self.rows[variant] = _row(self.vary.name, labels[variant][0], update, variant)
        self.dirty.clear()
        return [self.rows[v] for v in sorted(self.rows)]


def _row(name: str, label: Any, update: Update, variant: int) -> dict[str, Any]:
    outcomes = update.tally(variant).outcomes()
    row: dict[str, Any] = {name: label, "battles": outcomes["battles_completed"]}
    for side, figures in outcomes["sides"].items():
        row[f"win_rate_{side}"] = figures["win_rate"]
        row[f"ci_low_{side}"], row[f"ci_high_{side}"] = figures["ci95"]
    return row


# --- checked before it starts -----------------------------------------------------------------


def check(kind: str, scenario, body: dict[str, Any], battles: int) -> None:
    """Refuse (``UsageError``, a 422) a study that cannot run or is too big, before it starts:
    what the study's own function would refuse later, read the same way."""
    from ..metrics import parse_metric
    from ..sweeps.api import set_fields, varies_from
    from ..sweeps.targets import check_aim, parse_aim

    variants = 2
    if kind in ("sweep", "balance"):
        varies = varies_from(body.get("vary"))
        if kind == "balance" and len(varies) != 1:
            raise UsageError("vary", body.get("vary"), "exactly one field to vary")
        variants = math.prod(len(vary.values) for vary in varies) + 1  # and the baseline
        for vary in varies:
            _check_values(scenario, vary)
        if kind == "balance":
            check_aim(parse_aim(body.get("target", 0.5), body.get("side")), [scenario])
    elif kind == "compare":
        for name in ("a_set", "b_set"):
            set_fields(scenario, body.get(name) or [], name)
    else:
        side, metric = body.get("side"), body.get("metric", "win")
        if side is not None and not isinstance(side, str):
            raise UsageError("side", side, "a side's name")
        if not isinstance(metric, str):
            raise UsageError("metric", metric, "a rate such as 'win' or 'runners down'")
        parse_metric(metric, scenario, side)
    if variants > MAX_VARIANTS + 1:
        raise UsageError("vary", f"{variants - 1:,} variants", f"at most {MAX_VARIANTS:,}")
    if variants * battles > MAX_STUDY_TOTAL:
        raise UsageError(
            "battles",
            f"{variants:,} variants x {battles:,}",
            f"at most {MAX_STUDY_TOTAL:,} battles in all from the page",
        )


def _check_values(scenario, vary: Vary) -> None:
    """``vary``'s path and values, each applied alone (a long list: its first and last)."""
    values = list(vary.values)
    if len(values) > CHECKED_VALUES:
        values = [values[0], values[-1]]
    for label, value in values:
        apply(scenario, [(vary.path, value)], f"{vary.name}={label}")


def final_figures(kind: str, result) -> dict[str, Any]:
    """What a finished study shows: its table's rows, its summary, and the command's lines."""
    summary = dict(result.summary)
    summary.pop("variants", None)  # the rows say it, with their intervals
    lines = [line for line in result.text().splitlines() if line.strip()]
    from ..output import wide_table  # the page draws one row per variant, sides across

    rows = [] if result.table is None else wide_table(result.table).to_dict("records")
    return {
        **plain(summary),
        "kind": kind,
        "rows": plain(rows),
        "verdict": lines,
        "battles_done": summary.get("battles_completed"),
    }


def plain(value: Any) -> Any:
    """JSON-ready: numpy numbers as Python's, NaN as None."""
    if isinstance(value, dict):
        return {str(k): plain(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [plain(v) for v in value]
    if type(value).__name__ in ("NAType", "NaTType"):  # pandas' missing values
        return None
    if hasattr(value, "item") and not isinstance(value, str | bytes):
        value = value.item()
    if isinstance(value, float) and not math.isfinite(value):
        return None
    return value


# --- routes --------------------------------------------------------------------------------------


async def start_study(request: Request):
    server = web.server_of(request)
    body = await web.read_json(request)
    work = await run_in_threadpool(study_body, server.served, body, server.study_workers)
    job = Job(body["kind"], work, server.pool)
    page = body.get("page")
    server.jobs.start(job, f"{page}:{body['kind']}" if isinstance(page, str) and page else None)
    return JSONResponse({"id": job.id}, status_code=201)


async def get_study(request: Request):
    return await web.get_job(request, "study")


async def study_events(request: Request):
    return await web.job_events(request, "study")


async def cancel_study(request: Request):
    return await web.cancel_job(request, "study")


def routes() -> list:
    return [
        Route("/api/studies", start_study, methods=["POST"]),
        Route("/api/studies/{id}", get_study, methods=["GET"]),
        Route("/api/studies/{id}", cancel_study, methods=["DELETE"]),
        Route("/api/studies/{id}/events", study_events),
    ]
