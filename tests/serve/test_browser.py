"""The live page in a real browser: Debian's chromium driven by Playwright against a real
``combatsim serve`` subprocess, used as a game master would use it.

Playwright is pointed at the system browser (``executable_path``); it never downloads one.
Without chromium (``.ci/run`` installs Debian's) or the playwright package the test is
skipped with the reason. Screenshots of every step go to ``COMBATSIM_SHOTS`` (default
/tmp/shots) for a person to look at; the times from an edit to the first figures and to
1,000 battles, measured in the page, are printed and kept in ``timings.json`` there.
"""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest
import yaml

from tests.serve.serving import REPO, SHOTS, browser_page, shot, start_server, stop_server

pytestmark = pytest.mark.slow

WAIT_MS = 30_000  # generous: CI machines are slower than the 1 s the page aims for


@pytest.fixture
def served(tmp_path):
    folder = tmp_path / "scenarios"
    shutil.copytree(REPO / "scenarios", folder)
    proc, url, token = start_server(folder)
    try:
        yield url, token
    finally:
        stop_server(proc)


@pytest.fixture
def page():
    with browser_page() as page:
        yield page


def _battles(page) -> int:
    return int(page.get_attribute("#run-status", "data-battles") or 0)


def _win_text(page) -> str:
    return page.inner_text("#win-chart")


def _battles_done(page, at_least: int = 1000) -> None:
    page.wait_for_function(
        f"""() => {{ const s = document.querySelector('#run-status');
                   return s.dataset.state === 'done'
                          && Number(s.dataset.battles) >= {at_least}; }}""",
        timeout=WAIT_MS,
    )


def test_a_game_master_edits_the_4v4_and_watches_the_odds_move(page, served):
    url, token = served
    page.goto(f"{url}/?token={token}")

    # The folder overview: one row per scenario, refined in the background.
    page.wait_for_selector("#overview-table tbody tr button", timeout=WAIT_MS)
    page.wait_for_function(
        "() => document.querySelectorAll('#overview-table tbody svg').length >= 10",
        timeout=WAIT_MS * 4,
    )
    shot(page, "1-overview")
    assert page.locator("#overview-table tbody tr").count() >= 10

    # Pick the 4v4: its sides and members, and win rates without pressing anything.
    page.select_option("#scenario-pick", "sr-firefight-4v4.yaml")
    page.wait_for_selector("#sides fieldset.side", timeout=WAIT_MS)
    assert "Guard" in page.inner_text("#sides")
    page.wait_for_function("() => document.querySelector('#win-chart svg')", timeout=WAIT_MS)
    _battles_done(page)
    shot(page, "2-scenario-4v4")
    before = _win_text(page)
    assert "runners" in before and "%" in before
    # The side's own tactics are fields; the run's tables also as Parquet.
    side_target = page.locator("[data-side-tactics='corp security'] select[data-path$='.target']")
    assert side_target.get_attribute("data-path") == "sides[1].tactics.target"
    assert page.locator("#csv-links a[href*='battles.parquet']").count() == 1

    # Change the guards' count: the figures start again and move.
    guards = page.locator(".member[data-member='Guard'] input[data-path$='count']")
    assert guards.input_value() == "3"
    guards.fill("6")
    timing = _timing_until_done(page)
    # The results start at the top of their column and stay in view while the members scroll.
    guards.scroll_into_view_if_needed()
    page.mouse.wheel(0, 400)
    page.wait_for_timeout(200)
    scrolled = page.evaluate(
        "() => [document.querySelector('#results').getBoundingClientRect().top, window.scrollY]"
    )
    page.evaluate("() => window.scrollTo(0, 0)")
    page.wait_for_timeout(100)
    top = page.evaluate(
        "() => [document.querySelector('#results').getBoundingClientRect().top,"
        " document.querySelector('.edit-col').getBoundingClientRect().top]"
    )
    assert abs(top[0] - top[1]) < 2, top
    assert scrolled[1] > 300 and 0 <= scrolled[0] <= 20, scrolled
    shot(page, "3-six-guards")
    after = _win_text(page)
    assert after != before
    # A rate of none (or all) of 1,000 battles: the interval's far end is not rounded away.
    for shown in (after, page.inner_text("#cas-chart"), page.inner_text("#verdict")):
        assert "(0–0%)" not in shown and "(100–100%)" not in shown, shown
        assert "(0-0%)" not in shown, shown
    runners = [
        float(x) for x in re.findall(r"(\d+(?:\.\d)?)%", after.split("corp security")[0])[:1]
    ]
    assert runners and runners[0] < 30, after  # six guards beat four runners most of the time

    # Download YAML after a form edit: the edit written into the text, not listed beside it.
    with page.expect_download() as download:
        page.click("#download-yaml")
    saved = yaml.safe_load(Path(download.value.path()).read_text())
    guard = [m for m in saved["sides"][1]["members"] if m["name"] == "Guard"][0]
    assert guard["count"] == 6, guard

    # A typo in the YAML: the one-line message beside its line, at once.
    page.click("#tab-yaml")
    text = page.input_value("#yaml")
    page.fill("#yaml", text.replace("turn_limit: 20", "turn_limt: 20"))
    page.wait_for_selector("#yaml-errors li", timeout=WAIT_MS)
    message = page.inner_text("#yaml-errors")
    assert "turn_limt" in message and "turn_limit" in message, message  # "did you mean"
    assert page.locator("#yaml-gutter .bad").count() >= 1
    shot(page, "4-yaml-typo")
    page.fill("#yaml", text)
    page.wait_for_function("() => !document.querySelector('#yaml-errors li')", timeout=WAIT_MS)

    # A sweep of the guards' count: its chart, with balance's answer marked.
    page.click("#tab-form")
    # The field offered first is the biggest group's count: the guards.
    assert "Guard · count" in page.locator("#sweep-field option:checked").inner_text()
    page.fill("#sweep-from", "1")
    page.fill("#sweep-to", "6")
    page.fill("#sweep-battles", "200")
    page.click("#sweep-run")
    page.wait_for_function(
        "() => document.querySelectorAll('#sweep-chart svg circle').length >= 12",
        timeout=WAIT_MS * 4,
    )
    try:  # balance's answer marked on the chart
        page.wait_for_selector("#sweep-chart line.mark", state="attached", timeout=WAIT_MS * 4)
    except Exception:
        shot(page, "5-sweep-without-balance")
        raise AssertionError("no balance mark: " + page.inner_text("#sweep-status")) from None
    assert "balance:" in page.inner_text("#sweep-chart")
    page.locator("#sweep-chart").scroll_into_view_if_needed()
    shot(page, "5-sweep")

    # The same page on a tablet.
    page.set_viewport_size({"width": 800, "height": 1100})
    page.locator("#scenario-h").scroll_into_view_if_needed()
    shot(page, "6-tablet")
    layout = "() => getComputedStyle(document.querySelector('#results')).position"
    assert page.evaluate(layout) == "static"  # one column: the results follow the members
    assert not page.problems, page.problems

    SHOTS.mkdir(parents=True, exist_ok=True)
    (SHOTS / "timings.json").write_text(json.dumps(timing, indent=2))
    print(
        f"\nedit -> first figures {timing['first_ms']:.0f} ms, -> 1,000 battles "
        f"{timing['thousand_ms']:.0f} ms"
    )


def _timing_until_done(page) -> dict:
    """Wait for the run an edit started to reach 1,000 battles; the page's own clock."""
    page.wait_for_function(
        "() => window.combatsimPerf.thousandAt && window.combatsimPerf.firstAt", timeout=WAIT_MS
    )
    _battles_done(page)
    perf = page.evaluate("() => window.combatsimPerf")
    return {
        "first_ms": perf["firstAt"] - perf["editAt"],
        "thousand_ms": perf["thousandAt"] - perf["editAt"],
        "run_started_ms": perf["postedAt"] - perf["editAt"],
    }


def test_a_finished_run_shows_the_exact_odds_of_its_most_used_attacks(page, served):
    url, token = served
    page.goto(f"{url}/?token={token}")
    page.wait_for_selector(
        "#scenario-pick option[value='lost-souls-warehouse-raid.yaml']",
        state="attached",
        timeout=WAIT_MS,
    )
    page.select_option("#scenario-pick", "lost-souls-warehouse-raid.yaml")
    _battles_done(page)
    page.wait_for_selector("#exact-table td", timeout=WAIT_MS)
    page.wait_for_function(  # the rows come as they are worked out
        "() => !/Working out/.test(document.querySelector('#exact-status').textContent)",
        timeout=WAIT_MS,
    )
    assert page.is_visible("#exact-h")
    rows = page.locator("#exact-table tr")
    assert 2 <= rows.count() <= 13  # a heading row and the 12 attacks used most at most
    first = rows.nth(1).inner_text()
    assert "police_revolver" in first or "%" in first, first
    assert re.search(r"\d+(\.\d)?%", first), first
    assert "start situation" in page.inner_text("#exact-note")
    hit = rows.nth(1).locator("td[title]").first.get_attribute("title")
    assert hit and re.fullmatch(r"\d+(/\d+)?", hit), hit  # the exact fraction on hover
    page.locator("#exact-attacks").scroll_into_view_if_needed()
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SHOTS / "7-exact-odds.png"), full_page=True)
    assert not page.problems, page.problems
