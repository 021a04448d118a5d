"""The map's server side: every shipped scenario's battlefield as the loader places it, and a
traced battle's replay that agrees with the battle itself (its text, its records)."""

from __future__ import annotations

import math
import shutil
from pathlib import Path

import pytest

from combatsim.engine import run_battle  # noqa: E402
from combatsim.output import format_trace  # noqa: E402
from combatsim.scenario import load_scenario  # noqa: E402
from combatsim.serve.app import Server  # noqa: E402
from combatsim.serve.maps import battlefield, replay  # noqa: E402
from tests.serve.clients import page_client  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
SHIPPED = sorted((ROOT / "scenarios").glob("*.yaml")) + sorted(
    (ROOT / "scenarios" / "tactics").glob("*.yaml")
)
TOKEN = "map-token"
PORT = 8765


@pytest.fixture(scope="module")
def client(tmp_path_factory):
    served = tmp_path_factory.mktemp("map") / "scenarios"
    shutil.copytree(ROOT / "scenarios", served)
    server = Server(served, TOKEN, workers=1, port=PORT)
    try:
        with page_client(server, TOKEN) as test_client:
            yield test_client
    finally:
        server.close()


@pytest.mark.parametrize("path", SHIPPED, ids=lambda p: p.name)
def test_every_shipped_scenario_places_each_fighter_where_the_loader_does(path):
    scenario = load_scenario(path)
    field = battlefield(scenario)
    assert [f["name"] for f in field["fighters"]] == [f.name for f in scenario.fighters]
    for drawn, spec in zip(field["fighters"], scenario.fighters, strict=True):
        assert drawn["position"] == pytest.approx(list(spec.position), abs=0.01)
        assert drawn["path"] is not None  # every fighter can be dragged
        # the member's position plus this copy's offset is where it stands
        member = _member(scenario.data, drawn["path"])
        base = member.get("position", (0, 0))
        assert [base[0] + drawn["offset"][0], base[1] + drawn["offset"][1]] == pytest.approx(
            drawn["position"], abs=0.01
        )
        for weapon in drawn["weapons"]:
            if weapon["kind"] != "melee":
                assert weapon["bands"][-1]["to"] == weapon["max_range"]
    assert len(field["cover_points"]) == len(scenario.environment.cover_points)


def _member(data, path: str):
    """The member entry ``sides[i].members[j].position`` names."""
    side, member = [int(part.split("[")[1].rstrip("]")) for part in path.split(".")[:2]]
    return data["sides"][side]["members"][member]


def test_the_map_follows_set_edits_and_names_the_paths_to_drag(client):
    got = client.post(
        "/api/map",
        json={
            "scenario": "sr-firefight-4v4.yaml",
            "set": [
                "sides[1].members[1].position=[30, 5]",
                "sides[1].members[1].count=2",
                "sides[0].members[0].position=[3, 0]",  # onto the crates
            ],
        },
    )
    assert got.status_code == 200, got.text
    field = got.json()
    guards = [f for f in field["fighters"] if f["path"] == "sides[1].members[1].position"]
    assert [g["position"] for g in guards] == [[30, 5], [30, 8]]  # spacing [0, 3]
    assert [g["offset"] for g in guards] == [[0, 0], [0, 3]]
    assert field["cover_points"][0]["path"] == "environment.cover_points[0].position"
    covered = {f["name"]: f["cover"] for f in field["fighters"] if f["cover"] != "none"}
    assert covered == {"Razor": "partial"}  # standing on a cover point: its cover at once
    bad = client.post("/api/map", json={"scenario": "sr-firefight-4v4.yaml", "set": ["x.y=1"]})
    assert bad.status_code == 422 and len(bad.json()["errors"]) == 1


@pytest.mark.parametrize(
    "name", ["sr-firefight-4v4.yaml", "sr-grenade-ambush.yaml", "sr-bar-brawl.yaml"]
)
def test_a_replay_agrees_with_its_battle(name):
    scenario = load_scenario(ROOT / "scenarios" / name)
    result = run_battle(scenario, scenario.seed, 0, trace=True)
    turns = replay(scenario, result)["turns"]
    assert [t["turn"] for t in turns] == list(range(1, result.turns + 1))
    text = format_trace(result, [s.name for s in scenario.sides])
    shots = [s for t in turns for s in t["shots"]]
    assert len(shots) == sum(1 for e in result.trace if e.kind == "attack" and "target" in e.data)
    assert shots and all(f"{_name(scenario, s['from'])} " in text for s in shots)
    # the last turn's positions are where each move left its fighter, and its "out" flags are
    # the battle's records
    for i, fighter in enumerate(scenario.fighters):
        moves = [
            e.data["to"]
            for e in result.trace
            if e.kind == "move" and e.actor == fighter.name and "to" in e.data
        ]
        where = moves[-1] if moves else fighter.position
        assert turns[-1]["positions"][i] == pytest.approx(list(where), abs=0.01)
        record = next(r for r in result.combatants if r["name"] == fighter.name)
        assert turns[-1]["out"][i] == (not record["standing"])
    if name == "sr-grenade-ambush.yaml":
        assert any(t["grenades"] for t in turns)
    hits = [s for s in shots if s["result"] != "miss"]
    assert hits and all(not math.isnan(s["to_at"][0]) for s in hits)


def _name(scenario, index: int) -> str:
    return scenario.fighters[index].name


def test_the_trace_answers_its_replay_beside_the_same_text(client):
    got = client.post("/api/trace", json={"scenario": "sr-firefight-4v4.yaml", "battle": 0})
    assert got.status_code == 200, got.text
    body = got.json()
    assert body["text"].splitlines()[1] == "Battle 0"
    assert body["replay"]["turns"][0]["turn"] == 1
    assert body["replay"]["fighters"][0]["name"] == "Razor"
