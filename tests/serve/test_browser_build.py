"""Building a fight on the live page, in a real browser (Debian's chromium under Playwright
against a real ``combatsim serve``, as test_browser.py): counts down to 0, every tactic and
rule option through a toggle, a choice or a number, sides and members added from the
catalogue's archetypes and removed, and sweeps of any field, weapons and armor included. Each
checks what a game master sees follow the edit: the runs' edits, the YAML, the figures.

One server serves a copy of the shipped scenarios for the whole module; each test opens its
own page. Screenshots go to ``COMBATSIM_SHOTS`` (default /tmp/shots).
"""

from __future__ import annotations

import json

import pytest

from tests.serve.serving import (
    PAGE_WAIT_MS,
    SHOTS,
    browser_page,
    copy_of_scenarios,
    open_scenario,
    run_done,
    serving,
    shot,
)

pytestmark = pytest.mark.slow

PATROL = "sr2097-runners-vs-patrol.yaml"


@pytest.fixture(scope="module")
def folder(tmp_path_factory):
    return copy_of_scenarios(tmp_path_factory.mktemp("build"))


@pytest.fixture(scope="module")
def served(folder):
    with serving(folder) as url:
        yield url


@pytest.fixture
def page():
    with browser_page() as page:
        runs: list[dict] = []  # every run the page starts: what it sends

        def sent(request):
            if request.method == "POST" and request.url.split("?")[0].endswith("/api/runs"):
                runs.append(json.loads(request.post_data or "{}"))

        page.on("request", sent)
        page.runs = runs
        yield page


def _edited_run(page, count: int) -> dict:
    """The run the page started after ``count`` runs, once it is done."""
    for _ in range(200):
        if len(page.runs) > count:
            break
        page.wait_for_timeout(50)
    run_done(page)
    return page.runs[-1]


def _member(page, name: str):
    return page.locator(f"#sides .member[data-member='{name}']")


def test_a_count_of_0_leaves_the_member_out_of_the_fight(page, served):
    open_scenario(page, served, PATROL)
    run_done(page)
    assert "Trooper" in page.inner_text("#cas-chart")
    before = len(page.runs)
    _member(page, "Trooper").locator("input[data-path$='.count']").fill("0")
    run = _edited_run(page, before)
    assert "sides[1].members[1].count=0" in run["set"]
    assert page.get_attribute("#run-status", "data-state") == "done", page.inner_text("#run-status")
    assert "Trooper" not in page.inner_text("#cas-chart")  # out of the fight, not refused
    assert not page.inner_text("#form-errors")
    shot(page, "build-count-0")
    assert not page.problems, page.problems


def test_every_rule_option_and_tactic_is_a_toggle_a_choice_or_a_number(page, served):
    open_scenario(page, served, PATROL)
    run_done(page)
    # nothing of the form is raw JSON: no field shows a mapping or a list of mappings
    values = page.eval_on_selector_all("#sides input, #sides select", "xs => xs.map(x => x.value)")
    assert not [v for v in values if v.strip().startswith("{")], values
    # 2097's Edge: Razor's own initiative spending is a choice showing what the file says
    razor = _member(page, "Razor")
    razor.locator("details.settings > summary").click()
    initiative = razor.locator("select[data-path$='.tactics.rules.initiative']")
    assert initiative.input_value() == "first_turn"
    assert initiative.locator("option").all_inner_texts() == ["first_turn", "never", "always"]
    # the rule options, `edge: off` among them, as toggles and numbers of the system's model
    page.locator("#sides details.settings[data-key='rules'] > summary").click()
    edge = page.locator("#rule-options input[type=checkbox][data-path='rules.options.edge']")
    assert edge.is_checked()
    assert (
        page.get_attribute("#rule-options input[data-path='rules.options.max_actions']", "max")
        == "10"
    )
    old = page.inner_text("#win-chart")
    before = len(page.runs)
    edge.uncheck()
    run = _edited_run(page, before)
    assert "rules.options.edge=false" in run["set"]
    assert page.inner_text("#win-chart") != old  # nobody spends Edge: the odds move
    before = len(page.runs)
    initiative.select_option("never")
    run = _edited_run(page, before)
    assert "sides[0].members[0].tactics.rules.initiative=never" in run["set"]
    # a side's tactic, shown where it is written and as the default where it is not
    runners = page.locator("#sides [data-side-tactics='runners']")
    runners.locator("> summary").click()
    assert runners.locator("select[data-path='sides[0].tactics.target']").input_value() == "focus"
    assert runners.locator("input[data-path='sides[0].tactics.rules.reserve']").input_value() == "1"
    shot(page, "build-controls")
    assert not page.problems, page.problems


def test_a_sweep_varies_any_field_weapons_and_armor_included(page, served):
    open_scenario(page, served, PATROL)
    run_done(page)
    fields = page.eval_on_selector_all("#sweep-field option", "os => os.map(o => o.value)")
    for path in (
        "sides[1].members[1].weapons[0]",
        "sides[1].members[1].armor",
        "sides[0].members[0].tactics.rules.initiative",
        "rules.options.edge",
        "sides[1].members[1].count",
    ):
        assert path in fields, path
    page.select_option("#sweep-field", "sides[1].members[1].weapons[0]")
    page.select_option("#sweep-values", ["assault_rifle", "ares_predator"])
    page.fill("#sweep-battles", "20")
    page.click("#sweep-run")
    page.wait_for_function(  # the sweep's rows, and the balance's word (whichever ends first)
        "() => /ares_predator/.test(document.querySelector('#sweep-chart').textContent)"
        " && document.querySelector('#sweep-status').textContent.startsWith('balance')",
        timeout=PAGE_WAIT_MS * 2,
    )
    chart = page.inner_text("#sweep-chart")
    assert "assault_rifle" in chart and "ares_predator" in chart, chart
    assert "balance: " in page.inner_text("#sweep-status")
    # armor the same way, and a count from 0 (none of them) up
    page.select_option("#sweep-field", "sides[1].members[1].armor")
    assert page.eval_on_selector_all("#sweep-values option", "os => os.length") >= 3
    page.select_option("#sweep-field", "sides[1].members[1].count")
    assert page.input_value("#sweep-from") == "1" and not page.is_hidden("#sweep-range")
    page.locator("#sweep-form").scroll_into_view_if_needed()
    page.screenshot(path=str(SHOTS / "build-sweep-weapons.png"))
    assert not page.problems, page.problems


FIREFIGHT = "sr-firefight-4v4.yaml"


def _built(page, before: str) -> None:
    """The fight changed on the page: the YAML is no longer ``before`` and its run is done."""
    page.wait_for_function(
        "before => document.querySelector('#yaml').value !== before",
        arg=before,
        timeout=PAGE_WAIT_MS,
    )
    run_done(page)


def _add(page, button: str, search: str, archetype: str) -> None:
    before = page.input_value("#yaml")
    page.click(button)
    assert page.is_visible("#archetype-dialog")
    page.fill("#archetype-search", search)
    page.click(f"#archetype-list li:not([hidden]) button[data-archetype='{archetype}']")
    _built(page, before)


def test_members_and_sides_are_added_from_the_catalogue_and_removed(page, served):
    open_scenario(page, served, FIREFIGHT)
    run_done(page)
    # the picker: searchable, each archetype with its key numbers and its kit
    page.click("#sides fieldset.side[data-side='runners'] .add-member")
    page.fill("#archetype-search", "samurai")
    shown = page.locator("#archetype-list li:not([hidden])")
    assert shown.count() >= 1 and shown.count() < page.locator("#archetype-list li").count()
    card = page.inner_text(
        "#archetype-list li:not([hidden]) button[data-archetype='street_samurai']"
    )
    assert "body 6" in card and "katana" in card, card
    page.click("#archetype-dialog button[value=cancel]")
    assert not page.is_visible("#archetype-dialog")
    _add(page, "#sides fieldset.side[data-side='runners'] .add-member", "samurai", "street_samurai")
    text = page.input_value("#yaml")
    assert "- {name: Street samurai, archetype: street_samurai, position: [0, 12]}" in text
    assert "# concrete pillar" in text  # written into the text, its comments kept
    assert _member(page, "Street samurai").count() == 1
    assert "Street samurai" in page.inner_text("#cas-chart")
    shot(page, "build-member-added")
    # a new side, its first member picked the same way
    _add(page, "#add-side", "troll", "troll_bouncer")
    assert "side 3" in page.inner_text("#win-chart")
    assert page.locator("#sides fieldset.side").count() == 3
    # removed again: a member, then the side
    before = page.input_value("#yaml")
    _member(page, "Ember").locator("button.remove").click()
    _built(page, before)
    assert "Ember" not in page.input_value("#yaml") and "Ember" not in page.inner_text("#cas-chart")
    before = page.input_value("#yaml")
    page.click("#sides fieldset.side[data-side='side 3'] .side-actions .remove")
    _built(page, before)
    assert "side 3" not in page.inner_text("#win-chart")
    # a fight keeps two sides: told in one line, nothing changed
    page.click("#sides fieldset.side[data-side='runners'] .side-actions .remove")
    page.wait_for_function(
        "() => document.querySelector('#form-errors').textContent", timeout=PAGE_WAIT_MS
    )
    assert "a fight keeps two sides at least" in page.inner_text("#form-errors")
    assert page.locator("#sides fieldset.side").count() == 2
    assert not page.problems, page.problems


def test_an_archetype_of_the_shipped_catalogue_brings_its_catalogue(page, served, folder):
    import yaml

    catalogue = yaml.safe_load((folder / "catalogues" / "sr2097.yaml").read_text())
    catalogue["archetypes"] = {
        k: v for k, v in catalogue["archetypes"].items() if k in ("street_samurai", "corp_sergeant")
    }
    (folder / "catalogues" / "two-2097.yaml").write_text(yaml.safe_dump(catalogue))
    fight = {
        "name": "Two of them",
        "rules": {"system": "sr2097"},
        "catalogues": ["catalogues/two-2097.yaml"],
        "sides": [
            {"name": "a", "members": [{"archetype": "street_samurai"}]},
            {"name": "b", "members": [{"archetype": "corp_sergeant", "position": [20, 0]}]},
        ],
    }
    (folder / "two.yaml").write_text(yaml.safe_dump(fight, sort_keys=False))
    open_scenario(page, served, "two.yaml")
    run_done(page)
    page.click("#sides fieldset.side[data-side='a'] .add-member")
    page.fill("#archetype-search", "sniper")
    assert "from the shipped sr2097 catalogue" in page.inner_text(
        "#archetype-list li:not([hidden])"
    )
    before = page.input_value("#yaml")
    page.keyboard.press("Enter")  # the first one shown
    _built(page, before)
    text = page.input_value("#yaml")
    assert "catalogues:\n- sr2097\n- catalogues/two-2097.yaml" in text, text
    assert "Sniper" in page.inner_text("#cas-chart")
    sniper = _member(page, "Sniper")
    assert sniper.locator("select[data-path$='weapons[0]']").input_value() == "sniper_rifle"
    assert not page.problems, page.problems


def test_the_exact_odds_table_appears_at_once_and_fills_in(page, served):
    """An autofire burst against armor takes seconds to walk exactly (the table took 35 s to
    appear): the rows are shown at once, the sampled figures beside them, and fill in."""
    open_scenario(page, served, "sr-autofire-vs-armor.yaml")
    run_done(page)
    page.wait_for_selector("#exact-table td", timeout=PAGE_WAIT_MS)
    first = page.inner_text("#exact-status")
    assert "Working out the exact odds of" in first, first
    assert "being worked out" in page.inner_text("#exact-table")
    page.wait_for_function(  # a fast walk's row fills in while the slow ones go on
        "() => document.querySelectorAll('#exact-table td[title]').length > 0", timeout=PAGE_WAIT_MS
    )
    shot(page, "build-exact-filling-in")
    assert not page.problems, page.problems


def test_adding_a_member_is_a_few_keys_from_the_side_it_joins(page, served):
    """A keyboard user reaches a side's "Add a member" straight after the side's name, not
    after every field of every member above it (it took 69 Tabs on the 4v4)."""
    open_scenario(page, served, FIREFIGHT)
    run_done(page)
    page.focus("#sides summary")  # the rule options' fold, the form's first stop
    presses = 0
    while presses < 40:
        page.keyboard.press("Tab")
        presses += 1
        label = page.evaluate("() => document.activeElement.getAttribute('aria-label') || ''")
        if label == "Add a member to runners":
            break
    assert presses <= 3, f"{presses} Tabs to reach 'Add a member to runners'"
    page.keyboard.press("Enter")
    assert page.is_visible("#archetype-dialog")
