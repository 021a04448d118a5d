"""The page's story of a run (its median and worst-tenth battles, turn by turn), a chain of
encounters and ``design``'s best fights, at the HTTP level: each the same numbers as the
command line and the Python API for the same seed."""

from __future__ import annotations

import shutil
from pathlib import Path

import pandas as pd
import pytest

import combatsim  # noqa: E402
from combatsim.serve.app import Server  # noqa: E402
from combatsim.serve.story import positions, ranked, story  # noqa: E402
from tests.serve import serving  # noqa: E402
from tests.serve.clients import page_client  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
TOKEN = "test-token"
BASE = "http://127.0.0.1:8765"
FIREFIGHT = "sr-firefight-4v4.yaml"
DOCK = "chains/sr-loading-dock-run.yaml"
BATTLES = 100  # a run played three ways: on the page, by the Python API, by the command


@pytest.fixture(scope="module")
def folder(tmp_path_factory) -> Path:
    served = tmp_path_factory.mktemp("served") / "scenarios"
    shutil.copytree(ROOT / "scenarios", served)
    return served


@pytest.fixture(scope="module")
def client(folder):
    server = Server(folder, TOKEN, workers=2, port=8765)
    with page_client(server, TOKEN) as test_client:
        yield test_client
    server.close()


def ended(client, path: str) -> dict:
    """The job at ``path`` once it ends (up to 180 s: a loaded machine is slow)."""
    return serving.ended(client, path, 180.0)


def started(client, path: str, **body) -> str:
    answer = client.post(path, json=body)
    assert answer.status_code == 201, answer.text
    return answer.json()["id"]


# --- the story of a run ---------------------------------------------------------------------


def test_the_ranking_puts_losses_then_deaths_then_falls_then_damage_first():
    battles = pd.DataFrame(
        {"battle": [0, 1, 2, 3, 4, 5], "winner": ["a", "b", "draw", "a", "a", "b"]}
    )
    rows = [  # battle, side, status, standing, damage_taken
        (0, "a", "unhurt", True, 0),
        (1, "a", "dead", False, 10),
        (2, "a", "wounded", True, 3),
        (3, "a", "dying", False, 10),
        (4, "a", "wounded", True, 4),
        (5, "a", "dying", False, 10),
        (0, "b", "dead", False, 12),
    ]
    combatants = pd.DataFrame(
        rows, columns=["battle", "side", "status", "standing", "damage_taken"]
    )
    # lost with a death (1), lost (5), drawn (2), won with a fall (3), won hurt (4), won (0)
    assert ranked(battles, combatants, "a") == [1, 5, 2, 3, 4, 0]
    assert positions(1000) == {"median": 499, "worst_tenth": 99}
    assert positions(1) == {"median": 0, "worst_tenth": 0}
    assert positions(11) == {"median": 5, "worst_tenth": 1}


def test_a_runs_story_is_the_python_apis_for_the_same_seed_and_its_battles_replay(
    client, folder, tmp_path
):
    run = started(client, "/api/runs", scenario=FIREFIGHT, battles=BATTLES, seed=7)
    assert ended(client, f"/api/runs/{run}")["state"] == "done"
    got = client.get(f"/api/runs/{run}/story")
    assert got.status_code == 200, got.text
    page = got.json()
    scenario = combatsim.load_scenario(folder / FIREFIGHT)
    result = combatsim.simulate(scenario, BATTLES, seed=7, workers=1, quiet=True)
    assert page == story(scenario, 7, result.battles, result.combatants)
    from combatsim.cli import main

    out = tmp_path / "run"
    assert (
        main(
            [
                "run",
                str(folder / FIREFIGHT),
                "--battles",
                str(BATTLES),
                "--seed",
                "7",
                "--workers",
                "1",
                "--out",
                str(out),
                "--quiet",
            ]
        )
        == 0
    )
    tables = [pd.read_csv(out / name) for name in ("battles.csv", "combatants.csv")]
    assert page == story(scenario, 7, *tables)  # from the command's own tables too
    assert [p["kind"] for p in page["picks"]] == ["median", "worst_tenth"]
    order = ranked(result.battles, result.combatants, "runners")
    for pick in page["picks"]:
        assert pick["battle"] == order[positions(BATTLES)[pick["kind"]]]
        rows = result.combatants[result.combatants["battle"] == pick["battle"]]
        assert [f["status"][-1] for f in pick["fighters"]] == rows["status"].tolist()
        assert all(len(f["condition"]) == pick["turns"] + 1 for f in pick["fighters"])
        assert all(f["condition"][0] == 1.0 for f in pick["fighters"])
        won = result.battles.set_index("battle").loc[pick["battle"], "winner"]
        assert (pick["winner"] or "draw") == won


def test_a_story_waits_for_its_run_and_a_missing_run_is_404(client):
    run = started(client, "/api/runs", scenario=FIREFIGHT, battles=50_000, seed=1)
    early = client.get(f"/api/runs/{run}/story")
    client.delete(f"/api/runs/{run}")
    assert early.status_code == 409 and "still going" in early.json()["errors"][0]
    assert client.get("/api/runs/nope/story").status_code == 404


# --- a chain ----------------------------------------------------------------------------------


def test_the_folders_chains_are_listed_with_their_encounters(client):
    chains = {c["file"]: c for c in client.get("/api/chains").json()}
    assert set(chains) == {
        "chains/lost-souls-two-raids.yaml",
        "chains/sr-loading-dock-run.yaml",
        "chains/sr2097-patrol-and-boss.yaml",
    }
    assert chains[DOCK]["encounters"] == ["the outer gate", "the inner gate", "the way out"]
    assert chains[DOCK]["side"] == "runners"


@pytest.mark.slow  # runs the chain on the page and by the command: 3 s of CPU
def test_a_chain_on_the_page_prints_what_combatsim_chain_prints(client, folder, tmp_path, capsys):
    from combatsim.cli import main

    chain = started(client, "/api/chains", chain=DOCK, battles=300, seed=3)
    page = ended(client, f"/api/studies/{chain}")
    assert page["state"] == "done", page
    assert (
        main(
            [
                "chain",
                str(folder / DOCK),
                "--battles",
                "300",
                "--seed",
                "3",
                "--workers",
                "1",
                "--out",
                str(tmp_path / "out"),
            ]
        )
        == 0
    )
    printed = capsys.readouterr().out.replace(f"{folder}/", "")
    assert page["text"] in printed  # to the byte: the command then says where it wrote
    rows = printed.split("\n\n")[2].splitlines()[1:]
    for row, encounter in zip(rows, page["encounters"], strict=True):
        cells = encounter["cells"]
        expected = [
            encounter["encounter"],
            cells["reached"],
            cells["won"],
            *cells["interval"].split(" "),
            cells["ends"],
            *(["<-", "ends", "most", "runs"] if encounter["ends_most_runs"] else []),
            cells["fresh_won"],
        ]
        assert row.split() == " ".join(expected).split()
    python = combatsim.chain(folder / DOCK, battles=300, seed=3, workers=1, quiet=True)
    first = python.summary["carried"]["encounters"][0]
    assert page["encounters"][0]["win_once_reached"] == first["win_once_reached"]


def test_a_chain_outside_the_folder_or_missing_is_refused_in_one_line(client):
    assert client.post("/api/chains", json={"chain": "../x.yaml"}).status_code == 403
    missing = client.post("/api/chains", json={"chain": "chains/none.yaml"})
    assert missing.status_code == 404
    bad = client.post("/api/chains", json={"chain": DOCK, "battles": 0})
    assert bad.status_code == 422 and len(bad.json()["errors"]) == 1


# --- design -----------------------------------------------------------------------------------

SEARCH = {
    "side": "corp security",
    "targets": ["runners win 0.5..0.95"],
    "pool": ["corp_guard"],
    "max_kinds": 1,
    "max_members": 4,
    "top": 2,
}


def test_designs_on_the_page_are_the_commands_and_load_into_the_editor(client, folder):
    design = started(client, "/api/designs", scenario=FIREFIGHT, battles=50, seed=2, **SEARCH)
    page = ended(client, f"/api/studies/{design}")
    assert page["state"] == "done", page
    python = combatsim.design(
        folder / FIREFIGHT,
        "corp security",
        SEARCH["targets"],
        pool=["corp_guard"],
        max_kinds=1,
        max_members=4,
        top=2,
        battles=50,
        seed=2,
        workers=1,
        quiet=True,
    )
    expected = python.summary["designs"]
    assert expected  # the checks below each read a design
    assert [d["design"] for d in page["designs"]] == [d["design"] for d in expected]
    rates = [
        [{k: v for k, v in r.items() if k != "shown"} for r in d["rates"]] for d in page["designs"]
    ]
    assert rates == [d["rates"] for d in expected]
    printed = python.text().splitlines()
    assert page["verdict"] == printed
    for entry, line in zip(page["designs"], printed[1:], strict=False):
        assert entry["line"] == line
        assert all(f"{r['target']}: {r['shown']}" in line for r in entry["rates"])
    for entry in page["designs"]:
        checked = client.post("/api/check", json={"yaml": entry["yaml"]}).json()
        assert checked["errors"] == [], checked
        guards = [
            m
            for s in checked["view"]["sides"]
            if s["name"] == "corp security"
            for m in s["members"]
        ]
        assert sum(int(m.get("count") or 1) for m in guards) == entry["members"]


def test_a_design_is_checked_before_it_starts(client):
    for body, word in (
        ({**SEARCH, "side": "nobody"}, "side"),
        ({**SEARCH, "targets": []}, "targets"),
        ({**SEARCH, "pool": ["dragon"]}, "pool"),
        (
            {
                **SEARCH,
                "pool": None,
                "max_members": 12,
                "max_kinds": 3,
                "weapons": ["ak97", "hk227"],
                "armor": ["armor_vest", "none"],
            },
            "",
        ),
    ):
        answer = client.post("/api/designs", json={"scenario": FIREFIGHT, **body})
        assert answer.status_code in (422, 404), answer.text
        assert len(answer.json()["errors"]) == 1 and word in answer.json()["errors"][0]


@pytest.mark.parametrize(
    "file",
    [
        "sr2097-runners-vs-patrol.yaml",
        "sr-d8-chop-shop-bust.yaml",
        "sr-grenade-ambush.yaml",
        "lost-souls-warehouse-raid.yaml",
        "4d8-temple-guardians.yaml",
        "tactics/take-cover.yaml",
    ],
)
def test_the_battles_played_again_end_as_the_run_recorded_them_in_every_system(file):
    """A replay's last condition is the run's record of that battle: the status of every
    fighter, who stands (a condition above 0 exactly when it can still act, unless fled),
    and the turn it ended at."""
    scenario = combatsim.load_scenario(ROOT / "scenarios" / file)
    result = combatsim.simulate(scenario, 60, seed=3, workers=1, quiet=True)
    told = story(scenario, 3, result.battles, result.combatants)
    for pick in told["picks"]:
        rows = result.combatants[result.combatants["battle"] == pick["battle"]]
        assert [f["status"][-1] for f in pick["fighters"]] == rows["status"].tolist()
        battle = result.battles.set_index("battle").loc[pick["battle"]]
        assert pick["turns"] == battle["turns"]
        for fighter, (_, row) in zip(pick["fighters"], rows.iterrows(), strict=True):
            assert len(fighter["condition"]) == pick["turns"] + 1
            assert all(0.0 <= c <= 1.0 for c in fighter["condition"])
            # the turn it fell, as the run recorded it: the first turn it ended not standing
            fell = fighter["standing"].index(False) if False in fighter["standing"] else None
            recorded = row["knocked_out_turn"]
            assert fell == (None if pd.isna(recorded) else int(recorded)), fighter["name"]
