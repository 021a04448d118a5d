"""The page's map in a real browser (Debian's chromium under Playwright against a real
``combatsim serve``, as test_browser_page.py): drawn to scale, moved by mouse and keyboard as
an edit of the scenario, weapon ranges on hover, a traced battle replayed turn by turn.

Screenshots go to ``COMBATSIM_SHOTS`` (default /tmp/shots) for a person to look at.
"""

from __future__ import annotations

import math
from pathlib import Path

import pytest
import yaml

from combatsim.engine import run_battle
from combatsim.scenario import load_scenario
from tests.serve.serving import (
    PAGE_WAIT_MS,
    REPO,
    browser_page,
    copy_of_scenarios,
    open_scenario,
    run_done,
    serving,
    shot,
)

pytestmark = pytest.mark.slow

MAP_READY = "#map-svg .fighter"  # the map drawn
FIREFIGHT = "sr-firefight-4v4.yaml"
SHIPPED = [
    p.relative_to(REPO / "scenarios").as_posix()
    for p in sorted((REPO / "scenarios").rglob("*.yaml"))
    if "catalogues" not in p.parts and "chains" not in p.parts
]


@pytest.fixture(scope="module")
def folder(tmp_path_factory):
    return copy_of_scenarios(tmp_path_factory.mktemp("map"))


@pytest.fixture(scope="module")
def served(folder):
    with serving(folder) as url:
        yield url


@pytest.fixture(params=[1280, 800], ids=lambda w: f"{w}px")
def page(request):
    with browser_page(request.param) as page:
        yield page


def _map_shot(page, name: str) -> None:
    shot(page, f"map-{name}-{page.width}", "#map-panel")


def _centre(page, selector: str) -> tuple[float, float]:
    box = page.locator(selector).bounding_box()
    assert box is not None, selector
    return box["x"] + box["width"] / 2, box["y"] + box["height"] / 2


def _dot(name: str) -> str:
    return f"#map-svg .fighter[data-name='{name}'] circle.dot"


def _pixels_per_meter(page, runner: str = "Razor") -> float:
    """From a runner at x = 0 (Razor, Grunt) and Sergeant Tanaka at x = 24 of the firefight."""
    (ax, _), (bx, _) = _centre(page, _dot(runner)), _centre(page, _dot("Sergeant Tanaka"))
    return (bx - ax) / 24


def test_the_map_draws_each_fighter_and_cover_point_to_scale_north_up(page, served):
    open_scenario(page, served, FIREFIGHT, ready=MAP_READY)
    scenario = load_scenario(REPO / "scenarios" / FIREFIGHT)
    per_meter = _pixels_per_meter(page)
    assert per_meter > 5  # the fight fills the picture, not a corner of it
    ox, oy = _centre(page, _dot("Razor"))
    for fighter in scenario.fighters:  # copies of a member placed along its spacing too
        x, y = _centre(page, _dot(fighter.name))
        assert (x - ox) / per_meter == pytest.approx(fighter.position[0], abs=0.2), fighter.name
        assert (oy - y) / per_meter == pytest.approx(fighter.position[1], abs=0.2), fighter.name
    covers = page.locator("#map-svg .cover")
    assert covers.count() == len(scenario.environment.cover_points)
    for k, point in enumerate(scenario.environment.cover_points):
        x, y = _centre(page, f"#map-svg .cover >> nth={k}")
        assert (x - ox) / per_meter == pytest.approx(point.position[0], abs=0.2)
        assert (oy - y) / per_meter == pytest.approx(point.position[1], abs=0.2)
        assert point.cover in covers.nth(k).get_attribute("class")
    _map_shot(page, "firefight")
    assert not page.problems, page.problems


@pytest.mark.parametrize("page", [1280], indirect=True)
def test_every_shipped_scenario_draws_all_its_fighters_and_cover(page, served):
    for file in SHIPPED:
        scenario = load_scenario(REPO / "scenarios" / file)
        open_scenario(page, served, file, ready=MAP_READY)
        page.wait_for_function(
            "(n) => document.querySelectorAll('#map-svg .fighter').length === n",
            arg=len(scenario.fighters),
            timeout=PAGE_WAIT_MS,
        )
        names = page.eval_on_selector_all("#map-svg .fighter", "ns => ns.map(n => n.dataset.name)")
        assert names == [f.name for f in scenario.fighters], file
        covers = page.locator("#map-svg .cover").count()
        assert covers == len(scenario.environment.cover_points), file
        inside = page.evaluate(
            """() => { const s = document.querySelector('#map-svg').getBoundingClientRect();
            return [...document.querySelectorAll('#map-svg .fighter .dot')].every((d) => {
              const b = d.getBoundingClientRect();
              return b.left >= s.left && b.right <= s.right && b.top >= s.top
                && b.bottom <= s.bottom; }); }"""
        )
        assert inside, f"{file}: a fighter drawn outside the map"
        _map_shot(page, f"{file.replace('/', '-').removesuffix('.yaml')}")
    assert not page.problems, page.problems


def _drag(page, selector: str, east: float, north: float, per_meter: float) -> None:
    page.locator("#map-svg").scroll_into_view_if_needed()
    x, y = _centre(page, selector)
    page.mouse.move(x, y)
    page.mouse.down()
    page.mouse.move(x + east * per_meter / 2, y - north * per_meter / 2, steps=4)
    page.mouse.move(x + east * per_meter, y - north * per_meter, steps=4)
    page.mouse.up()


def _downloaded_yaml(page) -> dict:
    with page.expect_download() as download:
        page.click("#download-yaml")
    return yaml.safe_load(Path(download.value.path()).read_text())


def test_dragging_a_member_and_a_cover_point_edits_the_yaml_and_the_figures_follow(page, served):
    open_scenario(page, served, FIREFIGHT, ready=MAP_READY)
    run_done(page)
    before = page.get_attribute("#run-status", "data-run")
    per_meter = _pixels_per_meter(page)
    _drag(page, _dot("Razor"), 6, 3, per_meter)
    run_done(page, before)  # a new run, of the fight with Razor moved
    razor = page.locator("#sides .member[data-member='Razor'] input[data-path$='.position']")
    assert razor.input_value() == "[6, 3]"  # the form's own field shows it
    page.wait_for_function(
        "() => document.querySelector(\"#map-svg .fighter[data-name='Razor']\").dataset.x === '6'"
    )
    moved = page.get_attribute("#run-status", "data-run")
    # a cover point: the crates at [3, 0]
    _drag(page, "#map-svg .cover >> nth=0", 2, -2, per_meter)
    run_done(page, moved)
    assert page.inner_text("#edited-flag") == "edited (2 fields)"
    data = _downloaded_yaml(page)
    assert data["sides"][0]["members"][0]["position"] == [6, 3]
    assert data["environment"]["cover_points"][0] == {"position": [5, -2], "cover": "partial"}
    # the guards, three copies of one member, move together when one of them is dragged
    page.locator("#map-svg").scroll_into_view_if_needed()
    per_meter = _pixels_per_meter(page, "Grunt")  # the picture rescaled to the new places
    _drag(page, _dot("Guard 2"), -2, 0, per_meter)
    page.wait_for_function(
        "() => document.querySelector(\"#map-svg .fighter[data-name='Guard 3']\").dataset.x"
        " === '22'"
    )
    assert _downloaded_yaml(page)["sides"][1]["members"][1]["position"] == [22, 3]
    _map_shot(page, "dragged")
    assert not page.problems, page.problems


def test_hovering_a_fighter_draws_its_weapons_ranges_to_scale(page, served):
    open_scenario(page, served, FIREFIGHT, ready=MAP_READY)
    scenario = load_scenario(REPO / "scenarios" / FIREFIGHT)
    razor = next(f for f in scenario.fighters if f.name == "Razor")
    gun = next(w for w in razor.weapons if w.kind == "firearm")
    per_meter = _pixels_per_meter(page)
    page.hover(_dot("Razor"))
    ring = page.locator(f"#map-svg .rings circle.max[data-range='{gun.max_range:g}']")
    ring.wait_for(state="attached")
    radius = ring.evaluate("c => c.getBoundingClientRect().width / 2")
    assert radius / per_meter == pytest.approx(gun.max_range, rel=0.02)
    info = page.inner_text("#map-info")
    assert f"extreme {gun.max_range:g} m" in info and "Razor" in info, info
    assert page.locator("#map-svg .rings circle.melee").count() == 1  # the katana's reach
    _map_shot(page, "ranges")
    page.mouse.move(1, 1)
    assert page.locator("#map-svg .rings circle").count() == 0
    assert not page.problems, page.problems


def test_a_traced_battle_replays_turn_by_turn_with_its_moves_and_shots(page, served):
    open_scenario(page, served, FIREFIGHT, ready=MAP_READY)
    scenario = load_scenario(REPO / "scenarios" / FIREFIGHT)
    result = run_battle(scenario, scenario.seed, 2, trace=True)
    page.fill("#map-battle", "2")
    page.click("#map-replay")
    page.wait_for_selector("#map-steps:not([hidden])", timeout=PAGE_WAIT_MS)
    assert page.inner_text("#map-turn-label").startswith("Battle 2: the start")
    assert f"{result.turns} turns" in page.inner_text("#map-turn-label")
    page.click("#map-next")
    assert page.inner_text("#map-turn-label").startswith(f"Battle 2, turn 1 of {result.turns}")
    first = [e for e in result.trace if e.turn == 1]
    attacks = [(e.actor, e.data["target"]) for e in first if e.kind == "attack"]
    drawn = page.eval_on_selector_all(
        "#map-svg .replay line.shot", "ls => ls.map(l => [l.dataset.from, l.dataset.to])"
    )
    assert drawn == [list(a) for a in attacks] and drawn
    log = page.inner_text("#map-log")
    assert f"{attacks[0][0]} shoots {attacks[0][1]}" in log, log
    # where the trace's moves of turn 1 left each fighter
    per_meter = _pixels_per_meter_at_replay(page, scenario, result)
    assert per_meter > 0
    _map_shot(page, "replay-turn1")
    for _ in range(result.turns - 1):
        page.click("#map-next")
    assert page.is_disabled("#map-next")
    out = [r["name"] for r in result.combatants if not r["standing"]]
    crossed = page.eval_on_selector_all(
        "#map-svg .fighter.out", "ns => ns.map(n => n.dataset.name)"
    )
    assert sorted(crossed) == sorted(out)
    page.click("#map-exit")
    assert page.locator("#map-svg .replay").count() == 0
    assert not page.problems, page.problems


def _pixels_per_meter_at_replay(page, scenario, result) -> float:
    """Every fighter drawn where turn 1's moves left it (the picture's scale from two of them)."""
    where = {f.name: f.position for f in scenario.fighters}
    for e in result.trace:
        if e.turn == 1 and e.kind == "move" and "to" in e.data:
            where[e.actor] = e.data["to"]
    names = list(where)
    a, b = max(
        ((p, q) for p in names for q in names),
        key=lambda pq: abs(where[pq[0]][0] - where[pq[1]][0]),
    )
    (ax, ay), (bx, _) = _centre(page, _dot(a)), _centre(page, _dot(b))
    per_meter = (bx - ax) / (where[b][0] - where[a][0])
    for name in names:
        x, y = _centre(page, _dot(name))
        assert (x - ax) / per_meter == pytest.approx(where[name][0] - where[a][0], abs=0.2)
        assert (ay - y) / per_meter == pytest.approx(where[name][1] - where[a][1], abs=0.2)
    return per_meter


@pytest.mark.parametrize("page", [1280], indirect=True)
def test_the_trace_panels_battle_shows_on_the_map_too(page, served):
    open_scenario(page, served, FIREFIGHT, ready=MAP_READY)
    page.fill("#trace-index", "1")
    page.click("#trace-form button[type=submit]")
    page.wait_for_selector("#map-steps:not([hidden])", timeout=PAGE_WAIT_MS)
    assert page.inner_text("#map-turn-label").startswith("Battle 1: the start")
    assert page.inner_text("#trace").splitlines()[1] == "Battle 1"


def test_a_fighter_moves_by_keyboard_alone(page, served):
    open_scenario(page, served, FIREFIGHT, ready=MAP_READY)
    run_done(page)
    before = page.get_attribute("#run-status", "data-run")
    page.focus("#scenario-pick")
    for _ in range(40):  # Tab from the scenario picker to the map's first fighter
        page.keyboard.press("Tab")
        if page.evaluate("() => document.activeElement.dataset.name === 'Razor'"):
            break
    else:
        raise AssertionError("Tab never reached the map's first fighter")
    assert "arrow keys" in page.evaluate("() => document.activeElement.getAttribute('aria-label')")
    assert page.locator("#map-svg .rings circle").count() > 0  # its ranges, on focus
    page.keyboard.press("n")  # the next marker, and back
    assert page.evaluate("() => document.activeElement.dataset.name") == "Grunt"
    page.keyboard.press("p")
    assert page.evaluate("() => document.activeElement.dataset.name") == "Razor"
    page.keyboard.press("ArrowRight")
    page.keyboard.press("ArrowRight")
    page.keyboard.press("ArrowUp")
    page.keyboard.press("Shift+ArrowRight")
    run_done(page, before)
    razor = page.locator("#sides .member[data-member='Razor'] input[data-path$='.position']")
    page.wait_for_function(
        "(el) => el.value === '[7, 1]'", arg=razor.element_handle(), timeout=PAGE_WAIT_MS
    )
    # the focus stays on the marker moved, for the next key
    assert page.evaluate("() => document.activeElement.dataset.name") == "Razor"
    assert page.evaluate("() => document.activeElement.dataset.x") == "7"
    # the map is one stop of the Tab order: the next Tab leaves it
    page.keyboard.press("Tab")
    assert page.evaluate("() => !document.activeElement.closest('#map-svg')")
    _map_shot(page, "keyboard")
    assert not page.problems, page.problems


def test_fighters_on_one_spot_are_drawn_apart_and_keep_their_place(page, served, folder):
    """Three fighters written at the same place hid one another; they are fanned out around
    it, each marker still saying (and carrying) the place the file gives."""
    fight = yaml.safe_load((folder / FIREFIGHT).read_text())
    runners = fight["sides"][0]["members"]
    for member in runners[:3]:
        member["position"] = [0, 0]
    (folder / "stacked.yaml").write_text(yaml.safe_dump(fight, sort_keys=False))
    open_scenario(page, served, "stacked.yaml", ready=MAP_READY)
    names = [m["name"] for m in runners[:3]]
    boxes = []
    for name in names:
        marker = page.locator(f"#map-svg .fighter[data-name='{name}']")
        assert (marker.get_attribute("data-x"), marker.get_attribute("data-y")) == ("0", "0")
        assert "at (0, 0) m" in marker.get_attribute("aria-label")
        boxes.append(marker.locator("circle.dot").bounding_box())
    for k, a in enumerate(boxes):
        for b in boxes[k + 1 :]:
            assert math.dist((a["x"], a["y"]), (b["x"], b["y"])) >= a["width"], (a, b)
    _map_shot(page, "stacked")
