"""The served folder's fence, attacked: every field of every route that can carry a path
(the scenario's own text, ``set`` edits, compare's ``a_set``/``b_set``, a sweep's or a
balance's ``vary``, a rule option such as Lost Souls' ``action_table``) with ``../``, an
absolute path, a symlink out and a name that is not YAML. Nothing outside the folder is
opened: no answer, finished job or error quotes the secret beside the folder, and none
names the server's absolute folder path. Saves create their temporary file exclusively,
never through a planted link, and a killed save leaves nothing the next one trips over."""

from __future__ import annotations

import os
import shutil
import time
from pathlib import Path

import pytest

from combatsim.errors import Outside  # noqa: E402
from combatsim.safeyaml import fenced, read_text  # noqa: E402
from combatsim.serve.app import Server  # noqa: E402
from tests.serve.clients import page_client  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
TOKEN = "fence-token"
PORT = 8767
SECRET = "TOPSECRET-7f3a"
FIREFIGHT = "sr-firefight-4v4.yaml"
RAID = "lost-souls-warehouse-raid.yaml"


@pytest.fixture(scope="module")
def folder(tmp_path_factory) -> Path:
    """The shipped scenarios, an outside folder with secrets of every kind beside them, and
    links out of the served folder to them (a file link and a folder link)."""
    base = tmp_path_factory.mktemp("fence")
    served = base / "served"
    shutil.copytree(ROOT / "scenarios", served)
    outside = base / "outside"
    outside.mkdir()
    for name in ("secret.txt", "secret.yaml", "secret"):
        (outside / name).write_text(f"{SECRET}\n")
    (outside / "catalogue.yaml").write_text(f"system: sr-classic\nweapons:\n  {SECRET}: 1\n")
    # a valid table under a name that is not YAML: a reader that opened it would accept it
    shutil.copy(ROOT / "combatsim" / "data" / "action_results_table.yaml", outside / "table")
    (served / "link-out.yaml").symlink_to(outside / "secret.yaml")
    (served / "link-dir").symlink_to(outside, target_is_directory=True)
    return served


@pytest.fixture(scope="module")
def client(folder):
    server = Server(folder, TOKEN, workers=1, port=PORT)
    try:
        with page_client(server, TOKEN) as test_client:
            yield test_client
    finally:
        server.close()


def hostile_paths(folder: Path) -> list[str]:
    outside = folder.parent / "outside"
    return [
        "../outside/secret.txt",
        "../outside/secret.yaml",
        "../outside/catalogue.yaml",
        "../outside/secret",
        str(outside / "secret.txt"),
        str(outside / "catalogue.yaml"),
        "link-out.yaml",
        "link-dir/secret.txt",
        "link-dir/catalogue.yaml",
        "sub/../../outside/secret.txt",
    ]


def assert_fenced(answer, folder: Path, client=None, route: str = "") -> None:
    """Refused or failed, never quoting the secret nor naming the absolute folder."""
    text = answer.text
    if answer.status_code == 201 and client is not None:  # a job: its end must say no too
        text = finished(client, route, answer.json()["id"])
        assert '"failed"' in text or '"state": "failed"' in text, text[:300]
    else:
        assert answer.status_code in (200, 403, 422), (answer.status_code, text[:300])
        if answer.status_code == 200:  # /api/check answers its errors in the body
            assert answer.json()["errors"], text[:300]
    assert SECRET not in text, text[:500]
    assert str(folder) not in text and str(folder.resolve()) not in text, text[:500]


def finished(client, route: str, job_id: str) -> str:
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        got = client.get(f"{route}/{job_id}")
        if got.json().get("state") != "running":
            return got.text
        time.sleep(0.05)
    raise AssertionError("the job did not end")


def catalogue_edit(path: str) -> list[str]:
    return [f"catalogues=[{path}]"]


@pytest.mark.parametrize("route", ["/api/runs", "/api/check", "/api/trace"])
def test_set_edits_cannot_open_a_file_outside(client, folder, route):
    for path in hostile_paths(folder):
        body = {"scenario": FIREFIGHT, "set": catalogue_edit(path), "battles": 10}
        assert_fenced(client.post(route, json=body), folder, client, route)


def test_a_rule_option_path_is_fenced_whatever_its_name(client, folder):
    """Lost Souls' ``action_table`` is a path: a name not ending in .yaml was never checked."""
    for path in [*hostile_paths(folder), "../outside/table", "link-dir/table"]:
        body = {"scenario": RAID, "set": [f"rules.options.action_table={path}"]}
        assert_fenced(client.post("/api/check", json=body), folder)
        text = read_text(ROOT / "scenarios" / RAID).replace(
            "rules:\n", f"rules:\n  options:\n    action_table: '{path}'\n", 1
        )
        if "options:" in read_text(ROOT / "scenarios" / RAID):
            continue  # the shipped file has options of its own: the edit above covers it
        assert_fenced(client.post("/api/check", json={"yaml": text}), folder)


def test_text_sent_by_the_page_is_fenced(client, folder):
    for path in hostile_paths(folder):
        text = read_text(ROOT / "scenarios" / FIREFIGHT)
        text = f"catalogues: ['{path}']\n" + "\n".join(
            line for line in text.splitlines() if not line.startswith("catalogues")
        )
        for route in ("/api/check", "/api/runs"):
            assert_fenced(client.post(route, json={"yaml": text}), folder, client, route)


@pytest.mark.parametrize(
    "study",
    [
        lambda p: {"kind": "sweep", "vary": [f"catalogues=[{p}],[sr-classic]"]},
        lambda p: {"kind": "balance", "vary": f"catalogues=[{p}],[sr-classic]"},
        lambda p: {"kind": "compare", "b_set": catalogue_edit(p)},
        lambda p: {"kind": "compare", "a_set": catalogue_edit(p)},
        lambda p: {"kind": "explain", "set": catalogue_edit(p)},
    ],
    ids=["sweep-vary", "balance-vary", "compare-b_set", "compare-a_set", "explain-set"],
)
def test_studies_cannot_open_a_file_outside(client, folder, study):
    for path in hostile_paths(folder)[:4] + ["link-dir/secret.txt"]:
        body = {"scenario": FIREFIGHT, "battles": 20, **study(path)}
        assert_fenced(client.post("/api/studies", json=body), folder, client, "/api/studies")


def test_the_fence_refuses_before_opening(tmp_path):
    """A FIFO outside the fence would block a reader that opened it: refused at once."""
    inside, outside = tmp_path / "in", tmp_path / "out"
    inside.mkdir()
    outside.mkdir()
    os.mkfifo(outside / "pipe")
    (inside / "pipe.yaml").symlink_to(outside / "pipe")
    with fenced((inside,), "the served folder"):
        for path in (outside / "pipe", inside / "pipe.yaml", inside / ".." / "out" / "pipe"):
            with pytest.raises(Outside, match="outside the served folder"):
                read_text(path)
    with pytest.raises(Outside) as refused, fenced((inside,), "the served folder"):
        read_text(inside / "pipe.yaml")
    assert "out" + os.sep + "pipe" not in str(refused.value)  # where the link leads is not said


def test_the_fence_is_only_where_it_is_put_up(tmp_path):
    (tmp_path / "x.yaml").write_text("a: 1\n")
    assert read_text(tmp_path / "x.yaml") == "a: 1\n"  # the command line reads anywhere
    with fenced((tmp_path / "elsewhere",), "the served folder"), pytest.raises(Outside):
        read_text(tmp_path / "x.yaml")


# --- saves ------------------------------------------------------------------------------------


def save(client, name: str, text: str, overwrite: bool = False):
    return client.put(f"/api/scenarios/{name}", json={"yaml": text, "overwrite": overwrite})


def test_a_save_never_writes_through_a_planted_temporary_name(client, folder):
    """The temporary name was fixed (``.NAME.saving``) and written with a plain open: a link
    planted there sent the save outside, or over another scenario without ``overwrite``."""
    text = read_text(folder / FIREFIGHT)
    victim = folder.parent / "outside" / "victim.txt"
    victim.write_text("untouched\n")
    (folder / ".planted.yaml.saving").symlink_to(victim)
    (folder / ".other.yaml.saving").symlink_to(folder / "sr-bar-brawl.yaml")
    brawl = read_text(folder / "sr-bar-brawl.yaml")
    assert save(client, "planted.yaml", text).status_code == 200
    assert save(client, "other.yaml", text).status_code == 200
    assert victim.read_text() == "untouched\n"
    assert read_text(folder / "sr-bar-brawl.yaml") == brawl
    assert read_text(folder / "planted.yaml") == text


def test_a_save_refuses_links_on_its_way_and_at_its_name(client, folder):
    text = read_text(folder / FIREFIGHT)
    before = sorted(p.name for p in (folder.parent / "outside").iterdir())
    for name in ("link-dir/new.yaml", "link-out.yaml", "..%2Foutside%2Fnew.yaml"):
        answer = save(client, name, text, overwrite=True)
        assert answer.status_code == 403, (name, answer.text)
        assert len(answer.json()["errors"]) == 1 and str(folder) not in answer.text
    assert sorted(p.name for p in (folder.parent / "outside").iterdir()) == before
    assert read_text(folder.parent / "outside" / "secret.yaml") == f"{SECRET}\n"


def test_a_killed_save_leaves_nothing_the_next_one_trips_over(client, folder):
    text = read_text(folder / FIREFIGHT)
    leftover = folder / ".killed.yaml.saving"  # what a save killed mid-write left before
    leftover.write_text("half a scen")
    old = folder / ".killed.yaml.0123456789abcdef.saving"
    old.write_text("half a scen")
    os.utime(old, (time.time() - 3600, time.time() - 3600))
    assert save(client, "killed.yaml", text).status_code == 200
    assert read_text(folder / "killed.yaml") == text
    assert not old.exists()  # an old leftover of this name is cleared
    names = [p.name for p in folder.iterdir() if p.name.endswith(".saving")]
    assert names == [".killed.yaml.saving"] or names == [], names  # no new temporary stays


def test_save_keeps_existing_files_unless_told(client, folder):
    text = read_text(folder / FIREFIGHT)
    assert save(client, "kept.yaml", text).status_code == 200
    changed = text.replace("name:", "# a comment\nname:", 1)
    assert save(client, "kept.yaml", changed).status_code == 409
    assert read_text(folder / "kept.yaml") == text
    assert save(client, "kept.yaml", changed, overwrite=True).status_code == 200
    assert read_text(folder / "kept.yaml") == changed
    # a file saved in a subfolder reads its catalogues from there: only a text whose paths
    # hold there is saved (the firefight's own would make a file that does not load)
    refused = save(client, "new-sub/deeper/made.yaml", text)
    assert refused.status_code == 422 and "catalogues[0]" in refused.json()["errors"][0]
    assert not (folder / "new-sub" / "deeper" / "made.yaml").exists()
    moved = text.replace("[catalogues/sr-classic.yaml]", "[sr-classic]")  # the shipped one
    assert save(client, "new-sub/deeper/made.yaml", moved).status_code == 200
    assert read_text(folder / "new-sub" / "deeper" / "made.yaml") == moved
