"""The compiled build (setup.py: mypyc's C extensions of the hot modules) is the package a
user installs, and the tests run on the Python source: here the compiled build plays every
shipped scenario as the source does, battle for battle, and passes the fast test suite.

Which compiled build: the one installed in this Python when it was built from this very
source (CI's ``pip install ".[test]"``); otherwise one built here from the checkout
(``benchmarks/compiled.py``, about a minute), where mypyc, a C compiler and the Python
headers are at hand. Either way the compiled modules are laid beside a copy of the
checkout, as an install lays them beside the source."""

from __future__ import annotations

import functools
import hashlib
import importlib.util
import os
import shutil
import subprocess
import sys
import sysconfig
from pathlib import Path
from types import ModuleType

import pytest

ROOT = Path(__file__).resolve().parents[1]
LEFT_OUT = shutil.ignore_patterns(
    ".git", ".venv*", "build", "results", "*.egg-info", "__pycache__", ".*_cache", ".hypothesis"
)


def _load(path: Path, name: str) -> ModuleType:
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@functools.cache
def compiled_py() -> ModuleType:
    """benchmarks/compiled.py, loaded when a test needs it (it imports setuptools: a tenth of
    a second of the fast loop's collection, for tests that are all slow)."""
    return _load(ROOT / "benchmarks" / "compiled.py", "compiled_benchmark")


def _toolchain_missing() -> str | None:
    """Why a compiled copy cannot be built on this machine, or None."""
    if importlib.util.find_spec("mypyc") is None:
        return "mypyc is not installed"
    if shutil.which("gcc") is None and shutil.which("cc") is None:
        return "no C compiler"
    if not (Path(sysconfig.get_paths()["include"]) / "Python.h").exists():
        return "no Python headers (python3-dev)"
    return None


def _installed_compiled() -> Path | None:
    """The installed package's folder, if it is compiled from the same source as the
    checkout's (a stale install would compare an older engine)."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    ask = "import combatsim; print(combatsim.__file__); print(combatsim.build_kind())"
    done = subprocess.run(
        [sys.executable, "-c", ask], env=env, cwd="/", capture_output=True, text=True
    )
    if done.returncode or done.stdout.split("\n")[1] != "compiled":
        return None
    package = Path(done.stdout.split("\n")[0]).parent
    if package == ROOT / "combatsim":
        return None
    for source in compiled_py().HOT:
        installed = package.parent / source
        if not installed.exists() or _digest(installed) != _digest(ROOT / source):
            return None
    return package


def _digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


@pytest.fixture(scope="module")
def compiled_tree(tmp_path_factory) -> Path:
    """A copy of the checkout whose package has the compiled modules beside its source."""
    tree = tmp_path_factory.mktemp("compiled") / "checkout"
    shutil.copytree(ROOT, tree, ignore=LEFT_OUT)
    installed = _installed_compiled()
    if installed is not None:
        site = installed.parent
        shared = [*installed.rglob("*.so"), *site.glob("*__mypyc*.so")]
        for path in shared:
            (tree / path.relative_to(site)).write_bytes(path.read_bytes())
    else:
        missing = _toolchain_missing()
        if missing is not None:
            pytest.skip(f"no compiled build installed, none can be built: {missing}")
        compiled_py().build(tree)
    assert list((tree / "combatsim" / "engine").glob("battle*.so")), "the copy is compiled"
    return tree


@pytest.mark.slow
def test_the_compiled_build_plays_every_shipped_scenario_the_same(compiled_tree):
    compiled, where = compiled_py().digest(compiled_tree, 20)
    pure, _ = compiled_py().digest(ROOT, 20)
    assert where.endswith(".so")  # the compiled module was the one loaded
    assert compiled == pure


@pytest.mark.slow
def test_the_compiled_build_passes_the_fast_suite(compiled_tree):
    command = [
        sys.executable,
        "-m",
        "pytest",
        "-q",
        "-x",
        "-m",
        "not slow",
        "-p",
        "no:cacheprovider",
    ]
    env = {**os.environ, "PYTHONPATH": str(compiled_tree)}
    done = subprocess.run(command, cwd=compiled_tree, env=env, capture_output=True, text=True)
    assert done.returncode == 0, done.stdout[-4000:] + done.stderr[-2000:]
    assert " passed" in done.stdout
