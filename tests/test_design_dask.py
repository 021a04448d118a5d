"""``combatsim design`` on a Dask cluster: the same files, byte for byte, as on one worker."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

from combatsim.cli import main

pytestmark = pytest.mark.slow  # a local Dask cluster

if importlib.util.find_spec("distributed") is None:  # looked up, not imported (test_dask.py)
    pytest.skip("could not import 'distributed'", allow_module_level=True)

from tests.test_dask import same_files, scheduler  # noqa: E402,F401 - the cluster fixture

FIREFIGHT = Path(__file__).parent.parent / "scenarios" / "sr-firefight-4v4.yaml"


def test_a_design_on_the_cluster_matches_one_worker(scheduler, tmp_path):  # noqa: F811
    argv = [
        "design",
        str(FIREFIGHT),
        "--side",
        "corp security",
        "--target",
        "runners win 0.6..0.99",
        "--pool",
        "corp_guard",
        "--max-members",
        "5",
        "--battles",
        "64",
        "--quiet",
    ]
    assert main([*argv, "--workers", "1", "--out", str(tmp_path / "local")]) == 0
    assert main([*argv, "--scheduler", scheduler, "--out", str(tmp_path / "dask")]) == 0
    names = same_files(tmp_path / "local", tmp_path / "dask")
    assert "designs/01.yaml" in names and "table.csv" in names
