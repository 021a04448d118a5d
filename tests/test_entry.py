"""A Ctrl-C or SIGTERM while the program is still loading ends the command cleanly (exit 130,
one line), like one at any other moment: the signal is sent from an audit hook at the moment
pydantic's compiled core is imported, the middle of loading."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from combatsim.entry import PURE_NOTICE, pure_build_notice
from tests.helpers import default_sigint

ROOT = Path(__file__).resolve().parents[1]
SEND_WHILE_LOADING = """
import os, signal, sys
def hook(event, args):
    if event == "import" and args[0] == "pydantic_core._pydantic_core":
        os.kill(os.getpid(), signal.{signal})
sys.addaudithook(hook)
sys.argv = ["combatsim", "validate", "scenarios/sr-firefight-4v4.yaml"]
from combatsim.entry import main
sys.exit(main())
"""


@pytest.mark.parametrize("signal", ["SIGINT", "SIGTERM"])
def test_a_signal_while_loading_is_exit_130_in_one_line(signal):
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    done = subprocess.run(
        [sys.executable, "-c", SEND_WHILE_LOADING.format(signal=signal)],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
        preexec_fn=default_sigint,
    )
    assert (done.returncode, done.stderr) == (130, "combatsim: interrupted\n")


def test_without_a_signal_the_command_runs():
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    done = subprocess.run(
        [sys.executable, "-m", "combatsim", "validate", "scenarios/sr-firefight-4v4.yaml"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0 and done.stdout.startswith("ok: "), done


def installed(tmp_path: Path) -> str:
    package = tmp_path / "venv" / "lib" / "site-packages" / "combatsim"
    package.mkdir(parents=True)
    return str(package)


def test_an_installed_pure_build_says_so_once_with_the_command_to_compile(tmp_path):
    package, cache = installed(tmp_path), str(tmp_path / "cache")
    first = pure_build_notice(package, "pure Python", cache)
    assert first == PURE_NOTICE and "\n" not in first
    assert "pip install --force-reinstall --no-deps ." in first
    assert pure_build_notice(package, "pure Python", cache) is None  # said once
    other = installed(tmp_path / "another")  # another environment is told too
    assert pure_build_notice(other, "pure Python", cache) == PURE_NOTICE


def test_a_compiled_build_a_checkout_or_an_unwritable_cache_says_nothing(tmp_path):
    cache = str(tmp_path / "cache")
    assert pure_build_notice(installed(tmp_path), "compiled", cache) is None
    assert pure_build_notice(str(ROOT / "combatsim"), "pure Python", cache) is None
    blocked = tmp_path / "file"
    blocked.write_text("")  # a cache folder that cannot be made: never the line every time
    assert pure_build_notice(installed(tmp_path / "b"), "pure Python", str(blocked / "c")) is None
