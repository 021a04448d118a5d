"""The live page's odds form offers the seed rolls' new arguments (issue 20): the argument list
shows each as the page draws it, and a computation answers as ``combatsim odds ... --json``."""

from __future__ import annotations

import json

import pytest

pytest.importorskip("starlette")
pytest.importorskip("httpx")

from tests.serve.test_http import client, folder, server  # noqa: E402, F401  (fixtures)


def test_2097_edge_is_a_free_value_not_a_list_that_always_picks_one(client):  # noqa: F811
    listed = {c["name"]: c for c in client.get("/api/odds").json()}
    edge = next(a for a in listed["2097"]["arguments"] if a["name"] == "edge")
    assert edge["choices"] is None and edge["default"] is None and edge["type"] == "value"
    names = [a["name"] for a in listed["2097"]["arguments"]]
    assert {"damage", "pt", "dr", "mos", "burst", "edge-damage"} <= set(names)
    assert "aspects" in [a["name"] for a in listed["4d8"]["arguments"]]
    assert "assist-column" in [a["name"] for a in listed["lost-souls"]["arguments"]]


@pytest.mark.parametrize(
    ("calculator", "args", "argv"),
    [
        (
            "2097",
            {"bonus": 10, "tn": 22, "disadvantage": True, "edge": "remove"},
            ["--bonus", "10", "--tn", "22", "--disadvantage", "--edge", "remove"],
        ),
        (
            "2097",
            {"damage": "2d6+3", "pt": 8, "dr": 25},
            ["--damage", "2d6+3", "--pt", "8", "--dr", "25"],
        ),
        (
            "lost-souls",
            {"net": 0, "column": 6, "assist-column": 6},
            ["--net", "0", "--column", "6", "--assist-column", "6"],
        ),
        ("4d8", {"chance": 18, "aspects": True}, ["--chance", "18", "--aspects"]),
    ],
)
def test_the_page_computes_the_seed_rolls_as_the_command_line(
    client,  # noqa: F811
    capsys,
    calculator,
    args,
    argv,
):
    from combatsim.cli import main

    got = client.post("/api/odds", json={"calculator": calculator, "args": args})
    assert got.status_code == 200, got.text
    main(["odds", calculator, *argv, "--json"])
    expected = json.loads(capsys.readouterr().out)
    payload = got.json()
    assert {k: payload[k] for k in expected} == expected
    assert payload["distribution"]["values"]
