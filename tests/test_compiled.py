"""The compiled copy the benchmarks measure (``benchmarks/compiled.py``) plays every shipped
scenario as the pure-Python package does: a compiled speed-up that changed a result would be a
bug, so the copy is built and compared here (about a minute and a half)."""

from __future__ import annotations

import importlib.util
import shutil
import subprocess
import sys
import sysconfig
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def _toolchain_missing() -> str | None:
    """Why a compiled copy cannot be built on this machine, or None."""
    if importlib.util.find_spec("mypyc") is None:
        return "mypyc is not installed"
    if shutil.which("gcc") is None and shutil.which("cc") is None:
        return "no C compiler"
    if not (Path(sysconfig.get_paths()["include"]) / "Python.h").exists():
        return "no Python headers (python3-dev)"
    return None


@pytest.mark.slow
@pytest.mark.skipif(_toolchain_missing() is not None, reason=str(_toolchain_missing()))
def test_the_compiled_copy_plays_every_shipped_scenario_the_same(tmp_path):
    script = ROOT / "benchmarks" / "compiled.py"
    command = [sys.executable, str(script), "--out", str(tmp_path), "--battles", "20"]
    done = subprocess.run(command, capture_output=True, text=True, cwd=ROOT)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "the same" in done.stdout
    # the copy is compiled, not the package copied as it is
    assert list((tmp_path / "combatsim" / "engine").glob("battle*.so"))
