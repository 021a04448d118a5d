"""A run's options are checked in one place, so every front end refuses the same value with
the same words: the command line (its flags' names), the Python API, the page's requests and
the run layer's own settings."""

from __future__ import annotations

import pytest

import combatsim
from combatsim.cli import main
from combatsim.errors import UsageError
from combatsim.run import Settings
from combatsim.run_arguments import check_run_options, cli_flag
from combatsim.serve.runs import run_options

SCENARIO = "scenarios/dockside.yaml"

BAD = [  # (option, value, the other options the check needs)
    ("battles", 0, {}),
    ("seed", -1, {}),
    ("chunk_size", 0, {}),
    ("precision", 0.9, {}),
    ("max_battles", 50, {"battles": 100, "precision": 0.05}),
]


def allowed(err: UsageError) -> str:
    return err.allowed


@pytest.mark.parametrize(("option", "value", "beside"), BAD)
def test_the_cli_the_api_and_the_settings_refuse_alike(option, value, beside, tmp_path, capsys):
    given = {"battles": 100, **beside, option: value}
    with pytest.raises(UsageError) as checked:
        check_run_options(given)
    with pytest.raises(UsageError) as api:
        combatsim.simulate(SCENARIO, quiet=True, **given)
    with pytest.raises(UsageError) as settings:
        Settings(given.get("seed"), **{k: v for k, v in given.items() if k != "seed"})
    assert api.value.argument == settings.value.argument == option
    assert allowed(api.value) == allowed(settings.value) == allowed(checked.value)

    flags = [f for key, v in given.items() for f in (cli_flag(key), str(v))]
    assert main(["run", SCENARIO, "--out", str(tmp_path / "out"), "--quiet", *flags]) == 2
    err = capsys.readouterr().err
    assert f"{cli_flag(option)}: got {value!r}" in err and allowed(checked.value) in err
    assert not (tmp_path / "out").exists()  # refused before anything was made


@pytest.mark.parametrize(("option", "value", "beside"), BAD[:2] + BAD[3:4])
def test_the_page_refuses_alike(option, value, beside):
    given = {"battles": 100, **beside, option: value}
    with pytest.raises(UsageError) as page:
        run_options(given)
    with pytest.raises(UsageError) as checked:
        check_run_options(given)
    assert page.value.argument == option and allowed(page.value) == allowed(checked.value)


def test_a_numpy_integer_becomes_a_plain_int():
    import numpy as np

    checked = check_run_options({"battles": np.int64(10), "seed": np.int32(3)})
    assert type(checked["battles"]) is int and type(checked["seed"]) is int


def test_workers_beside_a_scheduler_is_refused_in_the_users_words():
    with pytest.raises(UsageError, match=r"^--workers: .*nothing with --scheduler"):
        check_run_options({"workers": 2, "scheduler": "tcp://x:1"}, cli_flag)
