"""The page's scenario texts: listed, read, saved, checked and built.

- ``GET /api/scenarios``: every scenario file of the folder, as ``combatsim run FOLDER`` runs
  them;
- ``GET /api/scenarios/{file}``: the file's text and its VIEW (``views``); ``PUT`` saves text
  into the folder (409 if the file exists and ``overwrite`` is not true);
- ``POST /api/check``: the validator's message for text (with ``set`` edits), and its VIEW;
- ``GET /api/catalogue?system=NAME``: weapon and armor names of the folder's and the shipped
  catalogues for that system, and the shipped archetypes;
- ``POST /api/build``: a side or member added from an archetype, or removed (``build``).
"""

from __future__ import annotations

from typing import Any

from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.routing import Route

from ..errors import CombatsimError, ScenarioError, UsageError, all_errors
from ..safeyaml import max_file_bytes, parse_yaml
from . import common as web
from .common import JSON as JSONResponse  # valid JSON even for a NaN a file holds
from .folder import YAML, Outside
from .runs import edited_yaml, file_of, scenario_of
from .views import mapping_at, scenario_view


async def list_scenarios(request: Request):
    server = web.server_of(request)
    return JSONResponse(await run_in_threadpool(scenario_rows, server))


def scenario_rows(server) -> list[dict[str, Any]]:
    """Every scenario file of the folder, as ``combatsim run FOLDER`` runs them (catalogues
    and broken files left out)."""
    rows = []
    for path, data in server.served.scenario_files():
        rules = mapping_at(data, "rules")
        rows.append(
            {
                "file": server.served.relative(path),
                "name": str(data.get("name", path.stem)),
                "system": str(rules.get("system", "")),
            }
        )
    return rows


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


def routes() -> list:
    return [
        Route("/api/scenarios", list_scenarios),
        Route("/api/scenarios/{file:path}", get_scenario, methods=["GET"]),
        Route("/api/scenarios/{file:path}", put_scenario, methods=["PUT"]),
        Route("/api/check", check, methods=["POST"]),
        Route("/api/catalogue", catalogue),
        Route("/api/build", build_fight, methods=["POST"]),
    ]
