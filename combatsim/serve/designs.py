"""``combatsim design`` on the page (``POST /api/designs``, then followed as a study:
``GET /api/studies/ID`` and its events): the best make-ups of one side of the page's
scenario against the targets, each with its rates and intervals and its scenario text,
ready to load into the editor.

The job runs ``combatsim.design`` itself on the warm pool, so its designs, rates and verdict
are the command's for the same seed and battles. The design files go to the server's own
table folder; the text sent back names the scenario's catalogues as the scenario does, so
it reads where the page's edited text reads (the served folder).
"""

from __future__ import annotations

from typing import Any

import yaml
from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.routing import Route

from ..errors import UsageError
from . import common as web
from .jobs import Job
from .runs import run_options, scenario_of
from .studies import MAX_VARIANTS, plain

MAX_DESIGN_BATTLES = 2_000  # battles of each confirmation (and the screening's last look)
MAX_MEMBERS = 12  # fighters of a designed side, from the page


def _names(body: dict[str, Any], key: str) -> list[str]:
    value = body.get(key) or []
    if isinstance(value, str):
        value = [part.strip() for part in value.split(",") if part.strip()]
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise UsageError(key, value, "a list of names")
    return value


def _whole(body: dict[str, Any], key: str, default: int, low: int, high: int) -> int:
    value = body.get(key, default)
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        raise UsageError(key, value, f"a whole number from {low} to {high}")
    return value


def design_arguments(scenario, body: dict[str, Any]) -> dict[str, Any]:
    """The request's side, targets and search, checked (422) before anything runs: the
    names as the command checks them, and at most ``MAX_VARIANTS`` make-ups."""
    from ..sweeps.design import count_candidates, design_kinds, side_index

    side = body.get("side")
    if not isinstance(side, str):
        raise UsageError("side", side, "the name of the side to design")
    targets = (
        _names(body, "targets") if not isinstance(body.get("targets"), str) else [body["targets"]]
    )
    if not targets:
        raise UsageError(
            "targets", body.get("targets"), "one target or more, e.g. 'runners win 0.6..0.9'"
        )
    pool = _names(body, "pool") or None
    weapons, armor = _names(body, "weapons"), _names(body, "armor")
    sizes = {
        "min_members": _whole(body, "min_members", 1, 1, MAX_MEMBERS),
        "max_members": _whole(body, "max_members", 8, 1, MAX_MEMBERS),
        "max_kinds": _whole(body, "max_kinds", 2, 1, 3),
    }
    kinds = design_kinds(scenario, side_index(scenario, side), pool, weapons, armor)
    found = count_candidates(
        len(kinds), sizes["min_members"], sizes["max_members"], sizes["max_kinds"]
    )
    if found > MAX_VARIANTS:
        raise UsageError(
            "pool",
            f"{found:,} make-ups",
            f"at most {MAX_VARIANTS:,} from the page (narrow the pool)",
        )
    top = _whole(body, "top", 5, 1, 10)
    return {
        "side": side,
        "target": targets,
        "pool": pool,
        "weapons": weapons,
        "armor": armor,
        "top": top,
        **sizes,
    }


def design_body(served, body: dict[str, Any], workers: int, folder):
    """Check a design request and return its job's work (its files under ``folder``)."""
    scenario = scenario_of(served, body)
    arguments = design_arguments(scenario, body)
    options = run_options(body, MAX_DESIGN_BATTLES)
    if "precision" in options:
        raise UsageError("precision", body.get("precision"), "nothing: design sets its own rounds")
    catalogues = scenario.data.get("catalogues")
    root = f"{served.root}/"

    def work(job: Job) -> dict[str, Any]:
        import combatsim

        out = folder / job.id
        search = {k: v for k, v in arguments.items() if k not in ("side", "target")}
        result = combatsim.design(
            scenario,
            arguments["side"],
            arguments["target"],
            **search,
            **options,
            out=out,
            workers=workers,
            quiet=True,
            watch=job.counter("design"),
            cancel=job.cancel,
            backend=job.backend,
        )
        lines = [line for line in result.text().splitlines() if line.strip()]
        figures = {
            **plain(result.summary),
            "kind": "design",
            "verdict": [line.replace(root, "") for line in lines],  # as studies send it
            "gist": result.summary["verdict"],
        }
        for entry, line in zip(figures.get("designs", []), lines[1:], strict=False):
            entry["yaml"] = design_text(out / entry["file"], catalogues)
            entry["line"] = line  # as the command prints it
            for rate in entry["rates"]:
                rate["shown"] = shown(rate)
        return figures

    return work


def shown(rate: dict[str, Any]) -> str:
    """A target's rate and interval as ``combatsim design`` prints them."""
    if rate["rate"] is None:
        return "no battle"
    low, high = rate["ci95"]
    return f"{rate['rate']:.1%} ({low:.1%}-{high:.1%})"


def design_text(path, catalogues) -> str | None:
    """A design's scenario text, its catalogues named as the designed scenario names them."""
    if not path.is_file():
        return None
    data = yaml.safe_load(path.read_text(encoding="utf-8"))  # our own file, just written
    if catalogues is not None:
        data["catalogues"] = list(catalogues)
    else:
        data.pop("catalogues", None)
    return yaml.safe_dump(
        data, sort_keys=False, allow_unicode=True, default_flow_style=None, width=100
    )


async def start_design(request: Request):
    server = web.server_of(request)
    body = await web.read_json(request)
    work = await run_in_threadpool(
        design_body, server.served, body, server.study_workers, server.tables
    )
    job = Job("design", work, server.pool)
    page = body.get("page")
    server.jobs.start(job, f"{page}:design" if isinstance(page, str) and page else None)
    return web.JSON({"id": job.id}, status_code=201)


def routes() -> list:
    return [Route("/api/designs", start_design, methods=["POST"])]
