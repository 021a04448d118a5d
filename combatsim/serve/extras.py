"""The page's routes beyond the fixed API (docs/serve.md lists them all).

- ``GET /api/scenarios/{file}``: the file's text and its VIEW (``views``);
  ``PUT`` saves text into the folder (409 if the file exists and ``overwrite`` is not true);
- ``POST /api/check``: the validator's message for text (with ``set`` edits), and its VIEW;
- ``GET /api/catalogue?system=NAME``: weapon and armor names of the folder's and the shipped
  catalogues for that system, and the shipped archetypes;
- ``POST /api/build``: a side or member added from an archetype, or removed (``build``);
- ``POST /api/studies`` (``studies``), ``GET``/``DELETE /api/studies/ID``, ``.../events``;
- ``POST /api/trace``: one battle blow by blow, as ``combatsim run FILE --trace K``;
- ``GET /api/odds``: the calculators and their arguments; ``POST`` computes one, as
  ``combatsim odds ... --json`` (plus the distribution the picture draws);
- ``GET /api/overview``: the folder's scenarios run in the background (``overview``).
"""

from __future__ import annotations

import argparse
import asyncio
from typing import Any

from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.routing import Route

from ..errors import CombatsimError, ScenarioError, UsageError, all_errors
from ..safeyaml import max_file_bytes, parse_yaml
from . import common as web
from .common import JSON as JSONResponse  # valid JSON even for a NaN a file holds
from .folder import YAML, Outside
from .jobs import Job
from .runs import edited_yaml, file_of, scenario_of
from .studies import study_body
from .traces import trace_body
from .views import scenario_view

TRACE_LOOK = 0.05  # seconds between a trace request's looks at its job and its client

# --- scenarios --------------------------------------------------------------------------------


async def get_scenario(request: Request):
    server = web.server_of(request)
    name = request.path_params["file"]

    def read() -> dict[str, Any]:
        text = server.served.read(name)
        path = server.served.path(name)
        try:
            data, _ = parse_yaml(text, str(path))
        except ScenarioError:
            data = None
        return {"file": name, "yaml": text, "view": scenario_view(data, path.parent)}

    return JSONResponse(await run_in_threadpool(read))


async def put_scenario(request: Request):
    server = web.server_of(request)
    name = request.path_params["file"]
    body = await web.read_json(request)

    def save() -> JSONResponse:
        path = server.served.writable(name)
        if path.suffix not in YAML:
            raise UsageError("file", name, "a name ending in .yaml or .yml")
        text = body.get("yaml")
        title = body.get("name")
        if title is not None and (not isinstance(title, str) or not title.strip()):
            raise UsageError("name", title, "the scenario's name, some text")
        if body.get("set") or title is not None:  # written into the text, its comments kept
            text = edited_yaml(server.served, {"yaml": text, "set": body.get("set")}, title, name)
        server.served.load_text(text, name)  # only a valid scenario is saved
        if not server.served.save(name, text, body.get("overwrite") is True):
            return web.errors(409, f"{name} exists; send overwrite: true to replace it")
        return JSONResponse({"file": name, "saved": True})

    return await run_in_threadpool(save)


async def check(request: Request):
    server = web.server_of(request)
    body = await web.read_json(request)

    def checked() -> dict[str, Any]:
        text = body.get("yaml")
        view, base = None, server.served.root
        try:
            if isinstance(body.get("scenario"), str):
                base = server.served.path(body["scenario"]).parent
                text = server.served.read(body["scenario"]) if text is None else text
            if isinstance(text, str) and len(text.encode("utf-8", "replace")) <= max_file_bytes():
                data, _ = parse_yaml(text, str(base / "edited.yaml"))
                view = scenario_view(data, base)
            scenario_of(server.served, body)
            edited = edited_yaml(server.served, body)
        except Outside:
            raise
        except ScenarioError as err:
            lines = [{"line": e.line, "message": server.message(e)} for e in all_errors(err)]
            return {"errors": lines, "view": view, "edited_yaml": None}
        except CombatsimError as err:
            line = {"line": None, "message": server.message(err)}
            return {"errors": [line], "view": view, "edited_yaml": None}
        return {"errors": [], "view": view, "edited_yaml": edited}

    return JSONResponse(await run_in_threadpool(checked))


async def catalogue(request: Request):
    server = web.server_of(request)
    system = request.query_params.get("system", "")
    return JSONResponse(await run_in_threadpool(catalogue_names, server, system))


async def build_fight(request: Request):
    """A side or member added from an archetype, or removed: the text with the change
    written in (the form's ``set`` edits folded in first), its VIEW, checked as a run is."""
    server = web.server_of(request)
    body = await web.read_json(request)

    def built() -> dict[str, Any]:
        from .build import build

        op = body.get("op")
        if not isinstance(op, dict):
            raise UsageError("op", op, "{add: member|side, ...} or {remove: member|side, ...}")
        text = edited_yaml(server.served, body)
        file = file_of(body)
        base = server.served.path(file).parent if file else server.served.root
        if op.get("catalogue") is not None and op.get("archetype") in readable(text, base):
            op = {**op, "catalogue": None}  # the scenario reads it already: nothing to bring
        text = build(text, op)
        server.served.load_text(text, file)  # only a fight that loads comes back
        data, _ = parse_yaml(text, str(base / "edited.yaml"))
        return {"yaml": text, "view": scenario_view(data, base)}

    return JSONResponse(await run_in_threadpool(built))


def readable(text: str, base) -> dict[str, Any]:
    """The archetypes a scenario's text reads: its catalogues' and its own."""
    from ..sweeps.fields import Inheritance

    data, _ = parse_yaml(text, str(base / "edited.yaml"))
    return Inheritance(data, base).archetypes() if isinstance(data, dict) else {}


def catalogue_names(server, system: str) -> dict[str, list]:
    """Weapon and armor names of every catalogue for ``system``: the folder's, the shipped;
    and the shipped archetypes, with their key numbers (``build.archetype_cards``)."""
    from ..safeyaml import load_yaml
    from ..scenario.catalogues import shipped_catalogues

    files = server.served.yaml_files()
    files += [path for _, path, name in shipped_catalogues() if name == system]
    out: dict[str, list] = {"weapons": [], "armor": []}
    for path in files:
        try:
            data, _ = load_yaml(path)
        except CombatsimError:
            continue
        if not isinstance(data, dict) or "sides" in data or data.get("system") != system:
            continue
        for key in out:
            section = data.get(key)
            if isinstance(section, dict):
                out[key] += [str(name) for name in section if str(name) not in out[key]]
    from .build import shipped_cards

    return {
        **{key: sorted(names) for key, names in out.items()},
        "archetypes": shipped_cards(system),
    }


# --- studies ----------------------------------------------------------------------------------


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


# --- trace and odds ---------------------------------------------------------------------------


async def trace(request: Request):
    """A trace as a job of its own process (``traces``): 422 before it starts if it cannot
    be traced, 429 over the cap, ended when its client goes or the server stops."""
    server = web.server_of(request)
    body = await web.read_json(request)
    work = await run_in_threadpool(trace_body, server.served, body)
    job = Job("trace", work, server.pool)
    page = body.get("page")
    server.jobs.start(job, f"{page}:trace" if isinstance(page, str) and page else None)
    try:
        while job.running:
            if await request.is_disconnected():
                break
            await asyncio.sleep(TRACE_LOOK)
    finally:
        job.cancel.cancel()  # a trace ended is not touched; one still going ends now
    got = job.snapshot()
    server.jobs.forget(job)  # its text goes with this answer, not kept with the jobs
    if got["state"] == "failed":
        return web.errors(422, *got["errors"])
    if got["state"] != "done":
        return web.errors(409, "the trace was cancelled")
    text = got["text"].replace(f"{server.served.root}/", "")
    return JSONResponse({"text": text, "replay": got.get("replay")})


class _Arguments(argparse.ArgumentParser):
    """A calculator's arguments, a mistake raised rather than printed and exited on."""

    def error(self, message: str):
        raise CombatsimError(message)


def _calculator_parser(calculator) -> argparse.ArgumentParser:
    from ..odds_arguments import add_output_flags

    parser = _Arguments(prog=f"odds {calculator.name}", add_help=False)
    calculator.add_arguments(parser)
    add_output_flags(parser, grid=calculator.grid)
    return parser


HIDDEN = {"json", "plot", "grid", "help"}


async def list_odds(request: Request):
    def listed() -> list[dict[str, Any]]:
        from ..rules.registry import odds_calculators

        out = []
        for calculator in odds_calculators().values():
            arguments = []
            for action in _calculator_parser(calculator)._actions:
                if action.dest in HIDDEN or not action.option_strings:
                    continue
                arguments.append(
                    {
                        "name": action.option_strings[-1].lstrip("-"),
                        "help": (action.help or "") % {"default": action.default}
                        if action.help and "%(" in action.help
                        else action.help or "",
                        "default": action.default,
                        "choices": list(action.choices) if action.choices else None,
                        "required": action.required,
                        "type": "flag" if action.nargs == 0 else "value",
                    }
                )
            out.append({"name": calculator.name, "help": calculator.help, "arguments": arguments})
        return out

    return JSONResponse(await run_in_threadpool(listed))


async def compute_odds(request: Request):
    body = await web.read_json(request)

    def computed() -> dict[str, Any]:
        from ..odds_arguments import reader
        from ..rules.registry import odds_calculators

        found = odds_calculators()
        name = body.get("calculator") or body.get("system")
        if not isinstance(name, str) or name not in found:
            raise UsageError("calculator", name, ", ".join(found))
        calculator = found[name]
        args = body.get("args") or {}
        if not isinstance(args, dict):
            raise UsageError("args", args, "an object of the calculator's arguments")
        argv = []
        for key, value in args.items():
            if value is True:
                argv.append(f"--{key}")
            elif value is not None and value is not False:
                argv += [f"--{key}", str(value)]
        namespace = _calculator_parser(calculator).parse_args(argv)
        payload, table, *rest = calculator.compute(namespace, reader(namespace))
        out = {**payload, "table": table.render()}
        if not rest:
            outcome, values, series = calculator.distribution(payload)
            out["distribution"] = {"outcome": outcome, "values": values, "series": series}
        return out

    return JSONResponse(await run_in_threadpool(computed))


# --- the overview -----------------------------------------------------------------------------


async def overview(request: Request):
    server = web.server_of(request)
    return JSONResponse(await run_in_threadpool(server.overview.rows))


def routes() -> list:
    return [
        Route("/api/scenarios/{file:path}", get_scenario, methods=["GET"]),
        Route("/api/scenarios/{file:path}", put_scenario, methods=["PUT"]),
        Route("/api/check", check, methods=["POST"]),
        Route("/api/catalogue", catalogue),
        Route("/api/build", build_fight, methods=["POST"]),
        Route("/api/studies", start_study, methods=["POST"]),
        Route("/api/studies/{id}", get_study, methods=["GET"]),
        Route("/api/studies/{id}", cancel_study, methods=["DELETE"]),
        Route("/api/studies/{id}/events", study_events),
        Route("/api/trace", trace, methods=["POST"]),
        Route("/api/odds", list_odds, methods=["GET"]),
        Route("/api/odds", compute_odds, methods=["POST"]),
        Route("/api/overview", overview),
    ]
