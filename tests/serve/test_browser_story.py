"""The page's story of a run, a chain's whole run and design's best fights, in a real browser
(Debian's chromium under Playwright against a real ``combatsim serve``, as
test_browser_page.py). Screenshots go to ``COMBATSIM_SHOTS`` (default /tmp/shots)."""

from __future__ import annotations

import pytest

from tests.serve.serving import (
    PAGE_WAIT_MS,
    browser_page,
    copy_of_scenarios,
    open_scenario,
    run_done,
    serving,
    shot,
)

pytestmark = pytest.mark.slow

WIDTHS = (1280, 800)


@pytest.fixture(scope="module")
def folder(tmp_path_factory):
    return copy_of_scenarios(tmp_path_factory.mktemp("story"))


@pytest.fixture(scope="module")
def served(folder):
    with serving(folder) as url:
        yield url


@pytest.fixture(params=WIDTHS, ids=[f"{w}px" for w in WIDTHS])
def page(request):
    with browser_page(request.param) as page:
        yield page


def _no_sideways_scroll(page) -> None:
    wide = page.evaluate("() => document.documentElement.scrollWidth")
    assert wide <= page.width, f"the page is {wide} px wide at {page.width} px"


def test_the_median_and_worst_tenth_battles_show_each_fighter_by_turn_and_trace(page, served):
    open_scenario(page, served, "sr-firefight-4v4.yaml")
    run_done(page)
    page.wait_for_selector(
        "#story .story-pick[data-kind=worst_tenth] tbody tr", timeout=PAGE_WAIT_MS
    )
    picks = page.locator("#story .story-pick")
    assert picks.count() == 2
    median = page.locator("#story .story-pick[data-kind=median]")
    fighters = median.locator("tbody tr")
    assert fighters.count() == 8  # four runners, the sergeant and three guards
    assert "Razor" in fighters.first.inner_text()
    first_turns = median.locator("tbody tr").first.locator("td.turn")
    assert first_turns.count() >= 2  # the start and at least one turn
    assert first_turns.first.get_attribute("data-condition") == "1"  # everyone starts fresh
    _no_sideways_scroll(page)
    page.locator("#story").scroll_into_view_if_needed()
    shot(page, f"story-{page.width}", "#story")
    battle = page.locator("#story .story-pick[data-kind=worst_tenth]").get_attribute("data-battle")
    # one click from a fighter's row: that battle, blow by blow
    page.locator("#story .story-pick[data-kind=worst_tenth] tbody tr .who").nth(1).click()
    page.wait_for_function(
        "(k) => document.querySelector('#trace').textContent.split('\\n').includes('Battle ' + k)",
        arg=battle,
        timeout=PAGE_WAIT_MS,
    )
    assert page.input_value("#trace-index") == battle
    # and from the keyboard: the median's button, Enter
    median_battle = median.get_attribute("data-battle")
    median.locator(".story-head button").focus()
    page.keyboard.press("Enter")
    page.wait_for_function(
        "(k) => document.querySelector('#trace').textContent.split('\\n').includes('Battle ' + k)",
        arg=median_battle,
        timeout=PAGE_WAIT_MS,
    )
    # an edit marks the story as the previous fight's until the new run is done
    page.fill("#battles", "200")
    page.locator('#sides input[data-path*="members"]:visible').first.fill("3")
    page.wait_for_selector("#story.stale", timeout=PAGE_WAIT_MS)
    assert not page.problems, page.problems


def test_a_chain_shows_its_encounters_in_order_with_the_commands_numbers(page, served, folder):
    page.goto(served)
    page.wait_for_selector(
        "#chains:not([hidden]) #chain-pick option", state="attached", timeout=PAGE_WAIT_MS
    )
    page.select_option("#chain-pick", "chains/sr-loading-dock-run.yaml")
    page.fill("#chain-runs", "200")
    page.fill("#chain-seed", "11")
    page.click("#chain-run")
    page.wait_for_selector("#chain-out table tbody tr", timeout=PAGE_WAIT_MS * 2)
    rows = page.locator("#chain-out tbody tr")
    assert [rows.nth(k).locator("th").inner_text() for k in range(rows.count())] == [
        "the outer gate",
        "the inner gate",
        "the way out",
    ]
    import combatsim
    from combatsim.output import interval_text as _interval
    from combatsim.output import percent as _pct

    python = combatsim.chain(
        folder / "chains/sr-loading-dock-run.yaml", battles=200, seed=11, workers=1, quiet=True
    ).summary["carried"]
    for k, encounter in enumerate(python["encounters"]):
        cells = rows.nth(k).locator("td")
        assert _pct(encounter["reach"]["rate"]) in cells.nth(1).inner_text()
        assert _pct(encounter["win_once_reached"]["rate"]) in cells.nth(2).inner_text()
        assert cells.nth(3).inner_text() == _interval(encounter["win_once_reached"]["ci95"])
    completes = _pct(python["completes"]["rate"])
    assert completes in page.inner_text("#chain-out .chain-completes")
    _no_sideways_scroll(page)
    shot(page, f"chain-{page.width}", "#chains")
    shot(page, f"overview-{page.width}")
    assert not page.problems, page.problems


def test_designs_show_their_rates_against_the_targets_and_load_into_the_editor(page, served):
    open_scenario(page, served, "sr-firefight-4v4.yaml")
    run_done(page)
    page.locator("#design").scroll_into_view_if_needed()
    page.locator("#design-side").focus()
    assert page.input_value("#design-side") == "corp security"
    page.fill("#design-targets", "runners win 0.5..0.95")
    page.fill("#design-pool", "corp_guard")
    page.fill("#design-max", "3")
    page.fill("#design-battles", "100")
    page.click("#design-run")
    page.wait_for_selector("#design-out table tbody tr", timeout=PAGE_WAIT_MS * 2)
    rows = page.locator("#design-out tbody tr")
    assert rows.count() >= 1
    first = rows.first.inner_text()
    assert "corp_guard" in first and "%" in first
    _no_sideways_scroll(page)
    shot(page, f"design-{page.width}", "#design")
    design = rows.first.locator("th").inner_text()
    members = int(design.split()[0])
    rows.first.locator("button").focus()  # the keyboard's way: Enter on the button
    page.keyboard.press("Enter")
    page.wait_for_function(
        "() => document.querySelector('#yaml').value.includes('corp_guard')", timeout=PAGE_WAIT_MS
    )
    # the loaded design is the fight now: its guards in the form, and a run of it done
    page.wait_for_function(
        "() => document.querySelector('#run-status').dataset.state === 'done'"
        " && document.querySelector('#sides .member[data-member=corp_guard]')",
        timeout=PAGE_WAIT_MS,
    )
    count = page.locator("#sides .member[data-member=corp_guard] input").first.input_value()
    assert int(count) == members
    assert "corp_sergeant" not in page.input_value("#yaml").split("corp security")[1]
    shot(page, f"design-loaded-{page.width}")
    assert not page.problems, page.problems
