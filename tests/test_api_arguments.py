"""The Python API checks its arguments before it loads or runs anything, with the bounds of
the command line (``combatsim.limits``): a wrong type or a number past its bound is a
``UsageError`` naming the argument and what it takes, and a list of values is counted before
it is listed, so ``range(1, 10**9)`` is refused at once."""

from __future__ import annotations

import itertools
import time
from pathlib import Path

import pytest

import combatsim
from combatsim.errors import UsageError
from combatsim.limits import MAX_BATTLES, MAX_SEED, MAX_VALUES
from tests.test_api import call
from tests.test_sweep import toy_files, toy_runner

COUNT = "sides[guards].members[Guard].count"


@pytest.fixture
def toy(tmp_path) -> Path:
    return toy_files(tmp_path / "scenarios")


def refused(match: str, function, *args, **kwargs) -> str:
    """Call ``function``, expect a ``UsageError`` matching ``match`` up front: in seconds, not
    after listing a billion values (a guard against blow-ups, not a speed target)."""
    started = time.monotonic()
    with pytest.raises(UsageError, match=match) as caught:
        function(*args, **{"quiet": True, "runner": toy_runner, **kwargs})
    assert time.monotonic() - started < 10
    return str(caught.value)


@pytest.mark.parametrize(
    "values",
    [
        range(1, 10**9),
        range(1, 10**30),  # more than len() can say
        itertools.count(1),  # endless: read no further than one past the cap
        list(range(MAX_VALUES + 1)),
    ],
    ids=["range", "huge-range", "endless", "list"],
)
def test_a_value_list_past_its_cap_is_refused_before_it_is_listed(toy, values):
    text = refused("at most 10,000 values", combatsim.sweep, toy, {"turn_limit": values})
    assert text.startswith("turn_limit: got ")


def test_balance_counts_its_values_too(toy):
    refused("at most 10,000 values", combatsim.balance, toy, {COUNT: range(10**9)}, 0.5)


def test_a_generator_of_values_within_the_cap_is_used(toy):
    result = combatsim.sweep(
        toy, {COUNT: (n for n in (1, 2))}, battles=20, runner=toy_runner, quiet=True
    )
    # the path as a column name: snake_case; one row per variant and side
    assert list(result.table["sides_guards_members_guard_count"].unique()) == [1, 2]


@pytest.mark.parametrize(
    "scenario", [{"name": "toy"}, 42, None, b"toy.yaml"], ids=["dict", "int", "None", "bytes"]
)
@pytest.mark.parametrize("name", ["simulate", "sweep", "compare", "balance", "explain"])
def test_a_scenario_of_the_wrong_type_says_what_is_expected(name, scenario):
    with pytest.raises(UsageError, match="allowed: a scenario file .* or a Scenario"):
        call(name, scenario)


def test_run_many_says_what_it_takes(toy):
    refused("scenarios: got 42; allowed: a folder, or a list", combatsim.run_many, 42)
    refused("scenarios\\[\\]: got a dict", combatsim.run_many, [toy, {"name": "x"}])
    refused("at most 10,000 items", combatsim.run_many, itertools.repeat(toy))


@pytest.mark.parametrize("name", ["simulate", "run_many", "sweep", "compare", "balance"])
@pytest.mark.parametrize(
    "keywords, message",
    [
        ({"seed": MAX_SEED + 1}, f"seed: got {MAX_SEED + 1}; allowed: an integer from 0 to"),
        ({"seed": -1}, "seed: got -1"),
        ({"seed": "7"}, "seed: got '7'"),
        ({"battles": MAX_BATTLES + 1}, f"battles: got {MAX_BATTLES + 1}; allowed: an integer"),
        ({"battles": 0}, "battles: got 0"),
        ({"battles": 10.0}, "battles: got 10.0"),
        ({"battles": True}, "battles: got True"),
        ({"workers": 0}, "workers: got 0"),
        ({"workers": 1025}, "workers: got 1025"),
        ({"chunk_size": 10**7}, "chunk_size: got 10000000"),
        ({"max_battles": 10**9}, "max_battles: got 1000000000"),
        ({"precision": float("nan")}, "precision: got nan"),
        ({"precision": "0.1"}, "precision: got '0.1'"),
        ({"precision": 0.05, "max_battles": 10}, "max_battles: got 10"),
        ({"records": "some"}, "records: got 'some'"),
        ({"out": 5}, "out: got 5; allowed: a folder name"),
        ({"resume": "yes"}, "resume: got 'yes'"),
        ({"quiet": None}, "quiet: got None"),
        ({"progress": 3}, "progress: got 3; allowed: a function"),
    ],
)
def test_the_command_line_bounds_hold_for_every_entry_point(toy, name, keywords, message):
    with pytest.raises(UsageError) as caught:
        call(name, toy, **keywords)
    assert message in str(caught.value)


def test_a_numpy_integer_is_an_integer(toy):
    np = pytest.importorskip("numpy")
    result = call("simulate", toy, battles=np.int64(20), seed=np.uint64(MAX_SEED))
    assert result.summary["battles_completed"] == 20


@pytest.mark.parametrize(
    "vary, message",
    [
        (42, "vary: got 42; allowed: '\\[NAME:\\]PATH=VALUES'"),
        ([f"{COUNT}=1", 7], "vary: got 7"),
        ({f"f{i}:{COUNT}": [1] for i in range(17)}, "at most 16 varied fields"),
        ((f"f{i}:{COUNT}=1" for i in itertools.count()), "at most 16 varied fields"),
        ({COUNT: 5}, "count: got 5; allowed: a list of values"),
        ({COUNT: []}, "at least one value"),
        ({"a." * 5000 + "b": [1]}, "at most 50 keys"),
    ],
    ids=["int", "item", "mapping", "endless", "values", "empty", "deep-path"],
)
def test_vary_in_a_form_sweep_does_not_take_says_which_it_does(toy, vary, message):
    text = refused(message, combatsim.sweep, toy, vary)
    assert len(text) < 300


@pytest.mark.parametrize(
    "keywords, message",
    [
        ({"b_sets": itertools.repeat("turn_limit=3")}, "b_sets: got more than 1,000 items"),
        ({"b_sets": 5}, "b_sets: got 5; allowed: a text or a list of texts"),
        ({"b_sets": [("turn_limit",)]}, "'PATH=VALUE' or a \\(path, value\\) pair"),
    ],
)
def test_compare_sets_are_bounded_and_checked(toy, keywords, message):
    refused(message, combatsim.compare, toy, **keywords)


@pytest.mark.parametrize(
    "name, keywords, message",
    [
        ("balance", {"target": None}, "target: got None"),
        ("balance", {"search": "binary"}, "search: got 'binary'; allowed: 'auto', 'grid'"),
        ("balance", {"side": 1}, "side: got 1; allowed: a text or None"),
        ("explain", {"metric": 3}, "metric: got 3; allowed: a text"),
        ("explain", {"only": [1]}, "only: got 1; allowed: a text"),
        ("explain", {"only": itertools.repeat("Guard")}, "only: got more than 1,000 items"),
    ],
)
def test_balance_and_explain_check_their_own_arguments(toy, name, keywords, message):
    function = getattr(combatsim, name)
    if name == "balance":
        args = (toy, f"{COUNT}=1..3", keywords.pop("target", 0.5))
        refused(message, function, *args, **keywords)
    else:
        refused(message, function, toy, **keywords)
