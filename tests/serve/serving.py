"""A real ``combatsim serve`` in a subprocess, and Debian's chromium, for the serve tests that
need more than Starlette's test client (a browser, signals, a second local origin)."""

from __future__ import annotations

import contextlib
import os
import re
import shutil
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
CHROMIUM = next(
    (p for p in (shutil.which("chromium"), "/usr/bin/chromium") if p and Path(p).exists()), None
)
SERVING = re.compile(r"at (http://\S+?)/\?token=(\S+)")
STARTED_WITHIN = 60  # seconds for the one printed line (a loaded CI machine is slow)
SHOTS = Path(os.environ.get("COMBATSIM_SHOTS", "/tmp/shots"))  # the browser tests' pictures
PAGE_WAIT_MS = 60_000  # generous: CI machines are slower than the second the page aims for


def start_server(
    folder: Path, *options: str, workers: int = 2
) -> tuple[subprocess.Popen, str, str]:
    """``combatsim serve FOLDER --port 0 OPTIONS``; the process, URL and token from its one
    printed line (stderr kept in a pipe for the test to read)."""
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join([str(REPO), os.environ.get("PYTHONPATH", "")]),
    }
    command = [sys.executable, "-m", "combatsim", "serve", str(folder), "--no-browser"]
    command += ["--port", "0", "--workers", str(workers), *options]
    proc = subprocess.Popen(
        command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env, cwd=folder
    )
    line: list[str] = []
    reader = threading.Thread(target=lambda: line.append(proc.stdout.readline()), daemon=True)
    reader.start()
    reader.join(STARTED_WITHIN)
    found = SERVING.search(line[0]) if line else None
    if not found:
        proc.kill()
        raise AssertionError(f"serve printed {line!r}; stderr: {proc.stderr.read()[-2000:]}")
    return proc, found.group(1), found.group(2)


def stop_server(proc: subprocess.Popen, within: float = 10) -> None:
    """SIGTERM, as a user's Ctrl-C or a service manager would; it must end ``within`` s."""
    proc.send_signal(signal.SIGTERM)
    try:
        proc.wait(within)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait(5)
        raise AssertionError(f"combatsim serve did not stop within {within} s of SIGTERM") from None


def chromium():
    """Debian's chromium under Playwright (never a downloaded browser), or the test skipped."""
    if CHROMIUM is None:
        pytest.skip("no chromium found (apt-get install chromium; .ci/run does it)")
    sync_api = pytest.importorskip("playwright.sync_api", reason="playwright is not installed")
    return sync_api


def copy_of_scenarios(parent: Path) -> Path:
    """The shipped scenarios copied into ``parent/scenarios``: a folder a test may write in."""
    folder = parent / "scenarios"
    shutil.copytree(REPO / "scenarios", folder)
    return folder


@contextlib.contextmanager
def serving(folder: Path) -> Iterator[str]:
    """``folder`` served: the page's URL with its token; the server stopped (SIGTERM) at the
    end."""
    proc, url, token = start_server(folder)
    try:
        yield f"{url}/?token={token}"
    finally:
        stop_server(proc)


@contextlib.contextmanager
def browser_page(width: int = 1280) -> Iterator:
    """A page of Debian's chromium ``width`` px wide; ``page.problems`` collects the page's
    script errors and ``page.width`` is the width asked for."""
    sync_api = chromium()
    with sync_api.sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])
        page = browser.new_page(viewport={"width": width, "height": 900})
        problems: list[str] = []
        page.on("pageerror", lambda err: problems.append(f"page error: {err}"))
        page.problems = problems
        page.width = width
        try:
            yield page
        finally:
            browser.close()


def shot(page, name: str, selector: str | None = None) -> None:
    """A picture in ``SHOTS``: of the element ``selector``, or of the whole page taken from the
    top (scrolled, a sticky panel would be drawn part-way down its column)."""
    SHOTS.mkdir(parents=True, exist_ok=True)
    path = str(SHOTS / f"{name}.png")
    if selector:
        page.locator(selector).screenshot(path=path)
        return
    page.evaluate("() => window.scrollTo(0, 0)")
    page.screenshot(path=path, full_page=True)


def open_scenario(page, url: str, file: str, ready: str = "#sides fieldset.side") -> None:
    """The page at ``url`` with the scenario ``file`` picked, once ``ready`` (a selector) is
    drawn; wait for its run with ``run_done``."""
    page.goto("about:blank")  # a page already at ``url`` loads it again
    page.goto(url)
    page.wait_for_selector(f"#scenario-pick option[value='{file}']", state="attached")
    page.select_option("#scenario-pick", file)
    page.wait_for_selector(ready, timeout=PAGE_WAIT_MS)


def run_done(page, not_run: str | None = None) -> str:
    """The page's run done and shown (its results no longer stale), another run than
    ``not_run`` if given: its id."""
    page.wait_for_function(
        "(old) => { const s = document.querySelector('#run-status').dataset;"
        " return s.state === 'done' && s.run !== old"
        " && !document.querySelector('#results').classList.contains('stale'); }",
        arg=not_run,
        timeout=PAGE_WAIT_MS,
    )
    return page.get_attribute("#run-status", "data-run")


def ended(client, path: str, timeout: float) -> dict:
    """The job at ``path`` (a run or a study) polled through a test client until it is no
    longer running: its last answer; fails after ``timeout`` seconds."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        got = client.get(path).json()
        if got["state"] != "running":
            return got
        time.sleep(0.05)
    raise AssertionError(f"{path} did not end")
