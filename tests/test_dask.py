"""Dask distributed: the same results as a local run, to the byte, on a ``LocalCluster`` bound
to the loopback interface (two in-process workers: quick to start, no network beyond
127.0.0.1). Includes the done-criterion at small scale: four weapons by three armors of the
shipped 4-against-4 firefight, the same on 1 worker, 2 workers and the cluster."""

from __future__ import annotations

import importlib.util
import logging
from pathlib import Path

import pandas as pd
import pytest

from combatsim.cli import main
from combatsim.run import backends
from combatsim.scenario import load_catalogue
from tests.helpers import run_battles
from tests.test_batch import SCENARIO, fake_runner
from tests.test_sweep import one_error_line, toy_files

pytestmark = pytest.mark.slow  # heavy: a local Dask cluster for the module

# Looked up, not imported: the fast loop collects this module too, and importing Dask costs
# half a second. The module is skipped without it, as pytest.importorskip would.
if importlib.util.find_spec("distributed") is None:
    pytest.skip("could not import 'distributed'", allow_module_level=True)

SHIPPED = Path(__file__).parent.parent / "scenarios"


@pytest.fixture(scope="module")
def scheduler():
    import distributed

    cluster = distributed.LocalCluster(
        n_workers=2,
        threads_per_worker=1,
        processes=False,
        host="127.0.0.1",
        protocol="tcp",
        dashboard_address=None,
    )
    try:
        yield cluster.scheduler_address
    finally:
        cluster.close()


def same_files(first: Path, second: Path) -> list[str]:
    names = sorted(p.relative_to(first).as_posix() for p in first.rglob("*") if p.is_file())
    assert names == sorted(
        p.relative_to(second).as_posix() for p in second.rglob("*") if p.is_file()
    )
    for name in names:
        assert (first / name).read_bytes() == (second / name).read_bytes(), name
    return names


def test_the_cluster_is_on_loopback(scheduler):
    assert scheduler.startswith("tcp://127.0.0.1:")


def test_simulate_on_the_cluster_gives_the_same_tables(scheduler):
    local = run_battles(SCENARIO, 130, seed=3, runner=fake_runner, chunk_size=20)
    remote = run_battles(
        SCENARIO, 130, seed=3, runner=fake_runner, chunk_size=20, scheduler=scheduler
    )
    pd.testing.assert_frame_equal(remote.battles, local.battles)
    pd.testing.assert_frame_equal(remote.combatants, local.combatants)
    assert remote.summary == local.summary


def test_a_real_sweep_on_the_cluster_matches_local_runs(scheduler, tmp_path):
    toy = toy_files(tmp_path / "scenarios")
    argv = [
        "sweep",
        str(toy),
        "--vary",
        "sides[runners].members[*].weapons[0]=rifle,smg",
        "--vary",
        "sides[guards].members[Guard].count=1,2",
        "--battles",
        "30",
        "--chunk-size",
        "8",
        "--records",
        "all",
        "--precision",
        "0.2",
        "--quiet",
    ]
    assert main([*argv, "--workers", "1", "--out", str(tmp_path / "one")]) == 0
    assert main([*argv, "--scheduler", scheduler, "--out", str(tmp_path / "dask")]) == 0
    assert "records/0003/combatants.csv" in same_files(tmp_path / "one", tmp_path / "dask")


def test_a_chain_and_a_sweep_of_it_on_the_cluster_match_local_runs(scheduler, tmp_path):
    """A chain's runs (each its fights in order, carried over) give the same files on the
    cluster as on one local worker, as the chain command and as a study's variants."""
    chain = str(SHIPPED / "chains" / "lost-souls-two-raids.yaml")
    for argv in (
        ["chain", chain, "--battles", "24", "--chunk-size", "5", "--quiet"],
        [
            "sweep",
            chain,
            "--vary",
            "rest.heal=0,6",
            "--battles",
            "16",
            "--chunk-size",
            "5",
            "--records",
            "all",
            "--quiet",
        ],
    ):
        one, dask = tmp_path / f"{argv[0]}-one", tmp_path / f"{argv[0]}-dask"
        assert main([*argv, "--workers", "1", "--out", str(one)]) == 0
        assert main([*argv, "--scheduler", scheduler, "--out", str(dask)]) == 0
        assert "summary.json" in same_files(one, dask)


def test_four_weapons_by_three_armors_of_the_shipped_firefight(scheduler, tmp_path):
    """The done criterion, small: the shipped scenario, four of its catalogue's firearms for the
    ork mercenary by three armors for the guards; 1 worker, 2 workers and the cluster."""
    catalogue = load_catalogue(SHIPPED / "catalogues" / "sr-classic.yaml")
    firearms = [n for n, w in catalogue["weapons"].items() if w.kind == "firearm"][:4]
    armors = list(catalogue["armor"])[:3]
    argv = [
        "sweep",
        str(SHIPPED / "sr-firefight-4v4.yaml"),
        "--vary",
        f"weapon:sides[0].members[1].weapons[0]={','.join(firearms)}",
        "--vary",
        f"armor:sides[1].members[*].armor={','.join(armors)}",
        "--battles",
        "6",
        "--chunk-size",
        "4",
        "--quiet",
    ]
    for name, extra in (
        ("one", ["--workers", "1"]),
        ("two", ["--workers", "2"]),
        ("dask", ["--scheduler", scheduler]),
    ):
        assert main([*argv, *extra, "--out", str(tmp_path / name)]) == 0
    same_files(tmp_path / "one", tmp_path / "two")
    same_files(tmp_path / "one", tmp_path / "dask")
    table = pd.read_csv(tmp_path / "one" / "table.csv")
    table = table[table["side"] == table["side"].iloc[0]]  # a row per variant
    # 4 x 3 and the scenario as written (the sergeant's armor is not the guards')
    assert len(table) == 13 and (table["battles"] == 6).all()
    assert table["baseline"].tolist() == [False] * 12 + [True]
    assert list(table["weapon"].unique()[:4]) == firearms


def test_an_unreachable_scheduler_is_a_one_line_error(capsys, tmp_path, monkeypatch):
    monkeypatch.setattr(backends, "CONNECT_TIMEOUT", "1s")
    toy = toy_files(tmp_path / "scenarios")
    argv = ["sweep", str(toy), "--vary", "turn_limit=5,6", "--out", str(tmp_path / "o")]
    assert main([*argv, "--scheduler", "tcp://127.0.0.1:9"]) == 2
    assert one_error_line(capsys).startswith("combatsim: error: --scheduler: got ")
    assert main([*argv, "--scheduler", "nonsense://x"]) == 2
    assert one_error_line(capsys).startswith("combatsim: error: --scheduler: got 'nonsense://x'")


def test_workers_and_a_scheduler_do_not_mix(capsys, tmp_path):
    toy = toy_files(tmp_path / "scenarios")
    argv = ["sweep", str(toy), "--vary", "turn_limit=5,6", "--workers", "2"]
    assert main([*argv, "--scheduler", "tcp://127.0.0.1:9"]) == 2
    assert one_error_line(capsys).startswith("combatsim: error: --workers: got 2")


def test_dask_stays_quiet_while_the_client_is_open_and_is_given_back_its_levels(scheduler):
    # Dask logs from the client's own thread whenever the scheduler goes away, which can be
    # between two calls into the backend; quiet only around each call let a traceback through.
    def levels() -> list[int]:
        return [logging.getLogger(name).level for name in backends.QUIET]

    before = levels()
    with backends.make_backend(scheduler=scheduler):
        assert levels() == [logging.CRITICAL + 1] * len(backends.QUIET)
    assert levels() == before
