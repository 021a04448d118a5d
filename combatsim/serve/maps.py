"""The page's map: a scenario's battlefield to scale, and a traced battle replayed on it.

``POST /api/map`` (``{"scenario"}`` or ``{"yaml"}``, with ``"set"`` edits, as a run takes them)
answers where every fighter starts, as the loader places it (a member's ``position``, each
further copy one ``spacing`` on), its cover there, the reach of each of its weapons, and the
cover points; each fighter names the field path of its member's ``position`` and its offset
from it, so that dragging it on the page is one more ``set`` edit, as a field of the form is.

``replay`` turns a traced battle into turns the map can step through: where each fighter
stood at the end of each turn, the walks and runs of the turn, who attacked whom with what
and what came of it, where grenades landed and who was out of the fight. It reads only the
trace events' data (``TraceEvent.data``), never their text, and the battle's records.
"""

from __future__ import annotations

from typing import Any

from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.routing import Route

from ..engine.field import cover_at
from . import common as web
from .runs import scenario_of

BANDS = ("short", "medium", "long", "extreme")  # the range bands' names, nearest first
PLACES = 2  # decimals of a meter sent to the page (a centimeter)


def battlefield(scenario) -> dict[str, Any]:
    """Where everything of ``scenario`` stands at the start, and how far each weapon reaches."""
    env = scenario.environment
    points = [(p.position, p) for p in env.cover_points]
    places = member_places(scenario.data)
    fighters = []
    for i, spec in enumerate(scenario.fighters):
        member, offset = places[i] if len(places) == len(scenario.fighters) else (None, (0, 0))
        fighters.append(
            {
                "name": spec.name,
                "side": spec.side,
                "group": spec.group,
                "position": _point(spec.position),
                "cover": spec.cover if spec.cover != "none" else cover_at(points, spec.position),
                "path": None if member is None else f"{member}.position",
                "offset": _point(offset),
                "weapons": [
                    _reach(w, name)
                    for w, name in zip(spec.weapons, spec.sheet.weapons, strict=True)
                ],
            }
        )
    return {
        "name": scenario.name,
        "sides": [side.name for side in scenario.sides],
        "fighters": fighters,
        "cover_points": [
            {
                "position": _point(p.position),
                "cover": p.cover,
                "path": f"environment.cover_points[{k}].position",
            }
            for k, p in enumerate(env.cover_points)
        ],
        "melee_range": env.melee_range,
        "escape_distance": env.escape_distance,
        "visibility": env.visibility,
    }


def member_places(data: Any) -> list[tuple[str, tuple[float, float]]]:
    """Per fighter, in the loader's order (sides, members, copies): its member entry's field
    path and its offset from the entry's ``position`` (copy k is k ``spacing`` on)."""
    out: list[tuple[str, tuple[float, float]]] = []
    for i, side in enumerate(data.get("sides") or []):
        for j, member in enumerate(side.get("members") or []):
            dx, dy = member.get("spacing", (0.0, 2.0))
            for k in range(member.get("count", 1)):
                out.append((f"sides[{i}].members[{j}]", (k * dx, k * dy)))
    return out


def _reach(weapon: Any, name: str) -> dict[str, Any]:
    """A weapon's name, kind and range bands (their upper bounds in meters; none: melee)."""
    ranges = list(getattr(weapon, "ranges", None) or [])
    blast = getattr(weapon, "blast_radius", None)
    return {
        "name": name,
        "kind": weapon.kind,
        "bands": [{"name": BANDS[k], "to": meters} for k, meters in enumerate(ranges[:4])],
        "max_range": weapon.max_range,
        "blast_radius": blast,
    }


def _point(at: Any) -> list[float]:
    return [round(float(at[0]), PLACES), round(float(at[1]), PLACES)]


# --- a traced battle, turn by turn ------------------------------------------------------------


def replay(scenario, result) -> dict[str, Any]:
    """The turns of a traced ``result`` of ``scenario`` (see the module docstring)."""
    fighters = scenario.fighters
    index = {f.name: i for i, f in enumerate(fighters)}
    at = [_point(f.position) for f in fighters]
    records = {row["name"]: row for row in result.combatants}
    fell = [records.get(f.name, {}).get("knocked_out_turn") for f in fighters]
    status = ["out" if turn == 0 else "unhurt" for turn in fell]
    start = {
        "positions": [list(p) for p in at],
        "status": list(status),
        "out": [t == 0 for t in fell],
    }
    turns: list[dict[str, Any]] = []
    for event in result.trace or []:
        if not turns or turns[-1]["turn"] != event.turn:
            if turns:
                _close(turns[-1], at, status, fell)
            turns.append({"turn": event.turn, "moves": [], "shots": [], "grenades": []})
        _take(turns[-1], event, index, at, status)
    if turns:
        final = [records.get(f.name, {}).get("status") for f in fighters]
        _close(turns[-1], at, [s or status[i] for i, s in enumerate(final)], fell)
    return {
        "fighters": [{"name": f.name, "side": f.side} for f in fighters],
        "start": start,
        "turns": turns,
        "winner": result.winner,
        "end_reason": result.end_reason,
    }


def _close(turn: dict[str, Any], at: list, status: list, fell: list) -> None:
    """A turn's end: where everyone stands, how each is, and who is out of the fight."""
    turn.pop("last", None)
    turn["positions"] = [list(p) for p in at]
    turn["status"] = list(status)
    turn["out"] = [t is not None and t <= turn["turn"] for t in fell]


def _take(turn: dict[str, Any], event, index: dict[str, int], at: list, status: list) -> None:
    """One trace event into its turn: a move, an attack, a grenade, a wound."""
    who = index.get(event.actor) if event.actor is not None else None
    data = event.data
    if event.kind == "move" and "to" in data and who is not None:
        start, at[who] = at[who], _point(data["to"])
        turn["moves"].append({"who": who, "from": start, "to": at[who]})
    elif event.kind == "attack" and data.get("target") in index and who is not None:
        target = index[data["target"]]
        turn["shots"].append(
            {
                "from": who,
                "to": target,
                "from_at": at[who],
                "to_at": at[target],
                "weapon": data.get("weapon"),
                "melee": bool(data.get("melee")),
                "result": "miss",
            }
        )
        turn["last"] = ("shot", target)
    elif event.kind == "grenade" and ("lands" in data or "bursts" in data):
        where = _point(data.get("lands", data.get("bursts")))
        if "lands" in data:
            turn["grenades"].append({"by": who, "aim": _point(data["aim"]), "at": where, "hit": []})
        turn["last"] = ("grenade", None)
    elif event.kind == "damage" and who is not None:
        status[who] = str(data.get("status", "hurt"))
        last = turn.get("last")
        if last is not None and last[0] == "shot" and last[1] == who and turn["shots"]:
            turn["shots"][-1]["result"] = status[who]
        elif last is not None and last[0] == "grenade" and turn["grenades"]:
            turn["grenades"][-1]["hit"].append(who)
    elif event.kind == "status" and data.get("fled") and who is not None:
        status[who] = "fled"


async def battlefield_route(request: Request):
    server = web.server_of(request)
    body = await web.read_json(request)
    return web.JSON(await run_in_threadpool(lambda: battlefield(scenario_of(server.served, body))))


def routes() -> list:
    return [Route("/api/map", battlefield_route, methods=["POST"])]
