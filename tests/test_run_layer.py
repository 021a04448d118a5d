"""The run layer as a front end that runs studies in the background sees it: progress as
tallies that grow chunk by chunk (``watch``), and a ``Cancel`` that stops a run from outside
it, keeping every finished battle, on one worker or several, and resumable from its folder."""

from __future__ import annotations

import gc
import json
import threading
from pathlib import Path

import pytest

from combatsim.run import Cancel, Update, summarize
from combatsim.run.chunks import YOUNG, settle_worker_heap, settled_heap
from combatsim.sweeps.api import run_one
from tests.helpers import run_battles
from tests.test_batch import SCENARIO, fake_runner

ROOT = Path(__file__).resolve().parents[1]


def test_watch_sees_the_tallies_grow_chunk_by_chunk_to_the_final_summary():
    updates: list[tuple[int, int, tuple[int, ...], int]] = []
    last: list[Update] = []

    def watch(update: Update) -> None:
        updates.append((update.done, update.total, update.variants, update.tally(0).battles))
        last[:] = [update]

    result = run_battles(SCENARIO, 95, runner=fake_runner, chunk_size=20, watch=watch)
    assert [u[0] for u in updates] == [20, 40, 60, 80, 95]
    assert {u[1] for u in updates} == {95} and {u[2] for u in updates} == {(0,)}
    assert [u[3] for u in updates] == [20, 40, 60, 80, 95]  # the tally so far, every time
    live = summarize(last[0].tally(0), SCENARIO, SCENARIO.seed, 95, False)
    assert live == result.summary


def cancel_after(chunks: int, cancel: Cancel):
    """A watch that cancels the run once ``chunks`` chunks have come in."""
    seen = []

    def watch(update: Update) -> None:
        seen.append(update.done)
        if len(seen) == chunks:
            cancel.cancel()

    return watch


def test_a_cancelled_run_stops_after_the_chunk_and_keeps_what_finished():
    cancel = Cancel()
    result = run_battles(
        SCENARIO, 1000, runner=fake_runner, chunk_size=50, watch=cancel_after(2, cancel),
        cancel=cancel,
    )  # fmt: skip
    assert result.interrupted and result.battles_completed == 100
    first = run_battles(SCENARIO, 100, runner=fake_runner, chunk_size=50)
    assert result.summary["sides"] == first.summary["sides"]
    assert result.battles.equals(first.battles)


def test_a_run_cancelled_before_it_starts_runs_no_battle():
    cancel = Cancel()
    cancel.cancel()
    result = run_battles(SCENARIO, 100, runner=fake_runner, cancel=cancel)
    assert result.interrupted and result.battles_completed == 0


def test_cancel_stops_worker_processes_and_keeps_every_battle_they_hand_back():
    cancel = Cancel()
    watch = cancel_after(1, cancel)
    result = run_battles(
        SCENARIO, 4000, runner=fake_runner, chunk_size=10, workers=2, watch=watch, cancel=cancel
    )
    assert result.interrupted
    assert 10 <= result.battles_completed < 4000
    full = run_battles(SCENARIO, 4000, runner=fake_runner, chunk_size=10, records="battles")
    kept = result.battles.set_index("index")
    assert kept.equals(full.battles.set_index("index").loc[kept.index])  # the same battles


def test_a_cancel_from_another_thread_stops_a_running_study():
    cancel = Cancel()
    started = threading.Event()

    def watch(update: Update) -> None:
        started.set()

    done: list = []
    worker = threading.Thread(
        target=lambda: done.append(
            run_battles(
                SCENARIO, 10**6, runner=fake_runner, chunk_size=100, watch=watch, cancel=cancel,
                records="none",
            )
        )
    )  # fmt: skip
    worker.start()
    assert started.wait(60)
    cancel.cancel()
    worker.join(60)
    assert not worker.is_alive()
    assert done[0].interrupted and 0 < done[0].battles_completed < 10**6


def test_a_cancelled_study_with_a_folder_resumes_to_the_files_of_an_unbroken_run(tmp_path):
    options = {"battles": 300, "runner": fake_runner, "chunk_size": 50}
    run_one(SCENARIO, out=tmp_path / "whole", **options)
    cancel = Cancel()
    broken = run_one(
        SCENARIO, out=tmp_path / "broken", watch=cancel_after(2, cancel), cancel=cancel, **options
    )
    assert broken.interrupted and broken.summary["battles_completed"] == 100
    resumed = run_one(SCENARIO, out=tmp_path / "broken", resume=True, **options)
    assert not resumed.interrupted
    for name in ("battles.csv", "combatants.csv", "summary.json"):
        assert (tmp_path / "broken" / name).read_bytes() == (tmp_path / "whole" / name).read_bytes()
    assert json.loads((tmp_path / "broken" / "summary.json").read_text())["interrupted"] is False


@pytest.mark.parametrize("value", ["yes", 3])
def test_the_api_refuses_a_watch_that_is_not_a_function(value):
    import combatsim
    from combatsim.errors import UsageError

    with pytest.raises(UsageError, match="watch"):
        combatsim.simulate(
            ROOT / "scenarios" / "sr-firefight-4v4.yaml", 10, watch=value, quiet=True
        )


# --- the heap while a chunk runs ----------------------------------------------------------------


@pytest.fixture
def nothing_frozen():
    """This test process as a program that froze nothing (the conftest freezes the collected
    session: undone for the test, done again after)."""
    gc.unfreeze()
    try:
        yield
    finally:
        gc.freeze()


def test_a_run_on_one_worker_runs_with_the_heap_before_it_frozen_and_unfrozen_after(
    nothing_frozen,
):
    older = object.__new__(type("Older", (), {}))  # tracked by the collector, made before
    threshold = gc.get_threshold()
    gc.set_threshold(700, 10, 10)  # Python's default (the conftest raises it for the tests)
    seen = []

    def runner(scenario, root_seed, index):
        visited = any(o is older for o in gc.get_objects())
        seen.append((gc.get_freeze_count() > 0, visited, gc.get_threshold()))
        return fake_runner(scenario, root_seed, index)

    try:
        run_battles(SCENARIO, 3, runner=runner, chunk_size=3)
        assert seen == [(True, False, (YOUNG, 10, 10))] * 3  # left out, collected less often
        assert gc.get_freeze_count() == 0 and gc.get_threshold() == (700, 10, 10)  # as it was
    finally:
        gc.set_threshold(*threshold)


def test_a_program_that_froze_its_own_objects_keeps_them_frozen(nothing_frozen):
    gc.freeze()
    frozen, threshold = gc.get_freeze_count(), gc.get_threshold()
    with settled_heap():
        assert gc.get_freeze_count() == frozen and gc.get_threshold() == threshold
    assert gc.get_freeze_count() == frozen
    gc.unfreeze()


def test_a_program_that_turned_the_collector_off_is_left_as_it_is(nothing_frozen):
    gc.disable()
    try:
        with settled_heap():
            assert gc.get_freeze_count() == 0 and not gc.isenabled()
    finally:
        gc.enable()


def test_a_worker_process_leaves_what_it_started_with_out_of_every_collection(nothing_frozen):
    threshold = gc.get_threshold()
    gc.set_threshold(700, 10, 10)
    try:
        settle_worker_heap()
        assert gc.get_freeze_count() > 0 and gc.get_threshold() == (YOUNG, 10, 10)
    finally:
        gc.set_threshold(*threshold)
