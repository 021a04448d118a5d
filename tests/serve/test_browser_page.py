"""The live page's faults a game master met at the table, each pinned in a real browser
(Debian's chromium under Playwright against a real ``combatsim serve``, as test_browser.py).

One server serves a copy of the shipped scenarios for the whole module; each test opens its
own page. Screenshots go to ``COMBATSIM_SHOTS`` (default /tmp/shots) for a person to look at.
"""

from __future__ import annotations

import re

import pytest

from tests.serve.serving import (
    PAGE_WAIT_MS,
    REPO,
    SHOTS,
    browser_page,
    copy_of_scenarios,
    open_scenario,
    run_done,
    serving,
    shot,
    start_server,
    stop_server,
)

pytestmark = pytest.mark.slow

WIDTHS = (1280, 800)


@pytest.fixture(scope="module")
def folder(tmp_path_factory):
    return copy_of_scenarios(tmp_path_factory.mktemp("page"))


@pytest.fixture(scope="module")
def served(folder):
    with serving(folder) as url:
        yield url


@pytest.fixture
def page():
    with browser_page() as page:
        yield page


def test_what_decides_this_fight_names_each_lever(page, served):
    open_scenario(page, served, "tactics/take-cover.yaml")
    run_done(page)
    page.fill("#explain-battles", "20")
    page.click("#explain-run")
    page.wait_for_selector("#explain-text details", state="attached", timeout=PAGE_WAIT_MS * 3)
    page.wait_for_selector("#explain-chart svg", timeout=PAGE_WAIT_MS)
    chart = page.inner_text("#explain-chart") + page.inner_html("#explain-chart")
    shot(page, "page-explain")
    assert "undefined" not in chart, chart[:400]
    assert "Ember" in chart or "Guard" in chart, chart[:400]  # a member's lever, by name
    assert page.locator("#explain-chart rect").count() >= 1  # bars drawn
    assert not page.problems, page.problems


def test_the_odds_calculator_answers_a_plain_roll_of_the_scenarios_system(page, served):
    open_scenario(page, served, "sr-firefight-4v4.yaml")
    run_done(page)
    assert page.input_value("#odds-calc") == "sr"
    page.fill("#odds-dice", "6")
    page.fill("#odds-tn", "5")
    _compute(page)
    assert page.locator("#odds-chart svg").count() == 1
    # On a 2097 scenario, 2097's calculator (not classic Shadowrun's) is offered and answers.
    open_scenario(page, served, "sr2097-runners-vs-patrol.yaml")
    run_done(page)
    assert page.input_value("#odds-calc") == "2097"
    page.fill("#odds-bonus", "5")
    page.fill("#odds-tn", "15")
    _compute(page)
    page.locator("#odds-form").scroll_into_view_if_needed()
    shot(page, "page-odds-2097")
    assert not page.problems, page.problems


def _compute(page) -> None:
    """Press Compute; the answer drawn, not an error."""
    page.click("#odds-form button[type=submit]")
    page.wait_for_function(
        "() => document.querySelector('#odds-chart').children.length"
        " || document.querySelector('#odds-error').textContent",
        timeout=PAGE_WAIT_MS,
    )
    assert page.inner_text("#odds-error") == "", page.inner_text("#odds-error")


WIDE = "() => [document.documentElement.scrollWidth, document.documentElement.clientWidth]"


@pytest.mark.parametrize("width", WIDTHS)
def test_the_page_never_scrolls_sideways(page, served, width):
    page.set_viewport_size({"width": width, "height": 900})
    page.goto(served)
    page.wait_for_selector("#overview-table tbody tr button", timeout=PAGE_WAIT_MS)
    wide, room = page.evaluate(WIDE)
    assert wide <= room, f"the overview is {wide} px wide in a {room} px window"
    for file in ("sr-firefight-4v4.yaml", "sr2097-runners-vs-patrol.yaml"):
        open_scenario(page, served, file)
        run_done(page)
        wide, room = page.evaluate(WIDE)
        shot(page, f"page-width-{width}-{file.removesuffix('.yaml')}")
        assert wide <= room, f"{file} is {wide} px wide in a {room} px window"
    assert not page.problems, page.problems


RUN_GET = re.compile(r"/api/runs/[0-9a-f]+(\?.*)?$")  # a run's figures, not its events


def test_after_an_edit_the_old_figures_are_marked_stale_and_never_shown_again(page, served):
    # The page's last look at a run after its stream ends is held back until after an edit:
    # its answer (the previous fight's numbers, "done") must not be shown then.
    held: list = []

    def hold_first(route):
        if route.request.method == "GET" and not held:
            held.append(route)
        else:
            route.continue_()

    page.route(RUN_GET, hold_first)
    open_scenario(page, served, "sr-firefight-4v4.yaml")
    run_done(page)
    for _ in range(100):  # the route is handled while Playwright waits
        if held:
            break
        page.wait_for_timeout(100)
    assert held, "the page made no last look at its run"
    old = page.inner_text("#win-chart")
    page.evaluate(
        """() => { window.seen = []; const s = document.querySelector('#run-status');
        new MutationObserver(() => window.seen.push(s.dataset.state))
            .observe(s, {attributes: true}); }"""
    )
    page.locator(".member[data-member='Guard'] input[data-path$='count']").fill("6")
    # At once: not "done", and the figures shown say they are the previous fight's.
    assert page.get_attribute("#run-status", "data-state") != "done"
    assert "stale" in page.get_attribute("#results", "class")
    assert "done" not in page.inner_text("#run-status"), page.inner_text("#run-status")
    assert "new figures" in page.inner_text("#run-status")
    shot(page, "page-stale-after-edit")
    held[0].continue_()
    page.wait_for_function("() => window.seen.includes('running')", timeout=PAGE_WAIT_MS)
    seen = page.evaluate("() => window.seen")
    before = seen[: seen.index("running")]
    assert "done" not in before, f"the previous run's figures came back after the edit: {seen}"
    run_done(page)
    assert "stale" not in page.get_attribute("#results", "class")
    assert page.inner_text("#win-chart") != old
    assert not page.problems, page.problems


def _comments(text: str) -> list[str]:
    return [line.split("#", 1)[1].strip() for line in text.splitlines() if "#" in line]


def test_saving_writes_a_new_file_under_a_new_name_and_keeps_the_comments(page, served, folder):
    import yaml

    original = (folder / "sr-firefight-4v4.yaml").read_text()
    assert _comments(original)  # the example has comments to keep
    open_scenario(page, served, "sr-firefight-4v4.yaml")
    run_done(page)
    name = yaml.safe_load(original)["name"]
    page.locator(".member[data-member='Guard'] input[data-path$='count']").fill("5")
    page.click("#save")
    new_file, new_name = page.input_value("#save-name"), page.input_value("#save-title")
    assert new_file != "sr-firefight-4v4.yaml" and not (folder / new_file).exists(), new_file
    assert new_name != name, new_name
    shot(page, "page-save-dialog")
    page.click("#save-confirm")
    page.wait_for_function(
        "() => /Saved as|Not saved/.test(document.querySelector('#save-status').textContent)",
        timeout=PAGE_WAIT_MS,
    )
    assert "Saved as" in page.inner_text("#save-status"), page.inner_text("#save-status")
    saved = (folder / new_file).read_text()
    assert (folder / "sr-firefight-4v4.yaml").read_text() == original  # untouched
    data = yaml.safe_load(saved)
    assert data["name"] == new_name
    guard = [m for m in data["sides"][1]["members"] if m["name"] == "Guard"][0]
    assert guard["count"] == 5
    assert _comments(saved) == _comments(original)  # every comment kept, in its place
    assert len(saved.splitlines()) == len(original.splitlines())  # the layout too
    # The list has the new entry beside the old, each under its own name.
    names = [o for o in page.locator("#scenario-pick option").all_inner_texts()]
    assert len({n.rsplit(" (", 1)[0] for n in names}) == len(names), names
    assert not page.problems, page.problems


def test_the_shipped_scenarios_are_never_written(page):
    proc, url, token = start_server(REPO / "scenarios")
    before = sorted(p.name for p in (REPO / "scenarios").iterdir())
    try:
        open_scenario(page, f"{url}/?token={token}", "tactics/focus.yaml")
        run_done(page)
        page.wait_for_selector("#exact-table td", timeout=PAGE_WAIT_MS)  # its work ended
        page.click("#save")
        page.click("#save-confirm")
        page.wait_for_function(
            "() => /Saved as|Not saved/.test(document.querySelector('#save-status').textContent)",
            timeout=PAGE_WAIT_MS,
        )
        said = page.inner_text("#save-status")
        assert "Not saved" in said and "shipped" in said, said
        # Nor by a request of the page's own: over the same file, or anywhere in the package.
        for name in ("tactics/focus.yaml", "sr-firefight-4v4.yaml"):
            got = page.evaluate(
                """async (name) => (await fetch('/api/scenarios/' + name, {method: 'PUT',
                    headers: {'Content-Type': 'application/json'},
                    body: JSON.stringify({yaml: 'name: x', overwrite: true})})).status""",
                name,
            )
            assert got == 403, (name, got)
    finally:
        stop_server(proc)
    assert sorted(p.name for p in (REPO / "scenarios").iterdir()) == before
    assert (REPO / "scenarios" / "tactics" / "focus.yaml").read_text().startswith("name:")


def _overview_ready(page, url: str) -> list[dict]:
    """The overview shown, every row with figures; its rows as the server gives them."""
    page.goto(url)
    page.wait_for_function(
        """() => { const rows = document.querySelectorAll('#overview-table tbody tr');
                   return rows.length >= 10
                     && [...rows].every((r) => !/running/.test(r.textContent)); }""",
        timeout=PAGE_WAIT_MS * 2,
    )
    return page.evaluate("""async () => (await fetch('/api/overview')).json()""")


@pytest.mark.parametrize("width", WIDTHS)
def test_the_overview_shows_draws_marks_danger_sensibly_and_reads_at_any_width(page, served, width):
    page.set_viewport_size({"width": width, "height": 900})
    rows = _overview_ready(page, served)
    shot(page, f"page-overview-{width}")
    table = page.locator("#overview-table tbody")
    # An all-draws fight reads as draws, not as 0% and 0%.
    cover = table.locator("tr", has_text="tactics/take-cover.yaml")
    assert re.search(r"draws\s*100(\.0)?%", cover.locator("td.mini").inner_text()), (
        cover.inner_text()
    )
    # Every side's whole name is written out, none cut off.
    for row in rows:
        mini = table.locator("tr", has_text=row["file"]).locator("td.mini").inner_text()
        assert "…" not in mini, mini
        for side in row["sides"]:
            assert side["side"] in mini, (side["side"], mini)
    # Dangerous: someone of the first side firmly dies in one battle in ten; a draw is not.
    marked = {r["file"] for r in rows if r["dangerous"]}
    assert "tactics/take-cover.yaml" not in marked
    for row in rows:
        low = (row["sides"][0].get("someone_dies_ci95") or [0, 0])[0] if row["sides"] else 0
        assert (row["file"] in marked) == (low >= 0.10), row
    for title in table.locator(".danger").evaluate_all("(xs) => xs.map((x) => x.title)"):
        assert "dies" in title and "wins" not in title and "loses" not in title, title
    # The charts' text is at least 11 px on the screen, whatever the width.
    smallest = page.evaluate(
        """() => Math.min(...[...document.querySelectorAll('#overview-table td.mini *')]
            .filter((e) => [...e.childNodes].some((n) => n.nodeType === 3 && n.textContent.trim()))
            .map((e) => e instanceof SVGElement ? e.getBoundingClientRect().height / 1.2
                                                : parseFloat(getComputedStyle(e).fontSize)))"""
    )
    assert smallest >= 11, f"text of {smallest:.1f} px in the overview's charts at {width} px"
    assert not page.problems, page.problems


def test_rates_read_as_the_cli_prints_them(page, served):
    open_scenario(page, served, "sr-firefight-4v4.yaml")
    run_done(page)
    run = page.get_attribute("#run-status", "data-run")
    got = page.evaluate("async (id) => (await fetch('/api/runs/' + id)).json()", run)
    draws = got["draws"]
    lo, hi = draws["ci95"]
    cli = f"{draws['rate']:.1%} ({lo * 100:.1f}-{hi * 100:.1f}%)"  # output._pct, _interval
    assert cli in page.inner_text("#win-chart"), (cli, page.inner_text("#win-chart"))
    first = got["side_order"][0]
    side = got["sides"][first]
    lead = f"{first} win {side['win_rate']:.1%} ({side['ci95'][0] * 100:.1f}-"
    assert page.inner_text("#verdict").startswith(lead), page.inner_text("#verdict")


def test_the_exact_odds_read_zero_only_when_no_way_of_the_dice_gives_it(page, served):
    open_scenario(page, served, "sr-bar-brawl.yaml")
    run_done(page)
    page.wait_for_selector("#exact-table td", timeout=PAGE_WAIT_MS * 2)
    page.wait_for_function(  # the rows come as they are worked out
        "() => !/Working out/.test(document.querySelector('#exact-status').textContent)",
        timeout=PAGE_WAIT_MS * 2,
    )
    page.locator("#exact-attacks").scroll_into_view_if_needed()
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SHOTS / "page-exact-odds.png"), full_page=True)
    cells = page.locator("#exact-table td[title]").evaluate_all(
        "(tds) => tds.map((td) => [td.title, td.textContent.trim()])"
    )
    assert cells
    rare = 0
    for fraction, shown in cells:
        if fraction == "0":
            assert shown == "0", (fraction, shown)
        else:
            assert not re.fullmatch(r"0(\.0)?%", shown), (fraction, shown)  # not "impossible"
            rare += shown == "< 0.1%"
    assert rare, cells  # the clubs' one-in-70,000 knock-down is there, not rounded away
    assert not page.problems, page.problems
