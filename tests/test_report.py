"""``combatsim report DIR``: the plots and the self-contained HTML page, for every kind of
results folder (a run, a batch of scenarios, a sweep, a comparison, a balance search)."""

from __future__ import annotations

import base64
import re

import pytest

from combatsim.cli import main
from combatsim.commands import run as run_command
from combatsim.report import render_report
from combatsim.sweeps import api
from tests.test_sweep import one_error_line, toy_files, toy_runner

PNG = b"\x89PNG\r\n\x1a\n"
EVERY_RUN = ["win_rate", "standing", "turns", "damage"]


@pytest.fixture
def toy(tmp_path):
    return toy_files(tmp_path / "scenarios")


def embedded(page: str) -> dict[str, bytes]:
    """The images embedded in the page, by their figure's id."""
    found = re.findall(r'<figure id="(\w+)">.*?src="data:image/png;base64,([^"]+)"', page, re.S)
    return {name: base64.b64decode(data) for name, data in found}


def plain(page: str) -> str:
    """The page without the isolation around names (``<bdi>``, U+2068/U+2069), to read its
    sentences (tests/test_names.py checks the isolation itself)."""
    return re.sub("</?bdi>|[\u2068\u2069]", "", page)


def check_page(folder, plots: list[str]) -> str:
    page = (folder / "report.html").read_text(encoding="utf-8")
    images = embedded(page)
    assert list(images) == plots
    for name in plots:
        png = (folder / "plots" / f"{name}.png").read_bytes()
        assert png.startswith(PNG) and len(png) > 5000  # a real picture, not an empty canvas
        assert images[name] == png  # the page holds the very same image
    # Self-contained: nothing is fetched from elsewhere.
    assert not re.search(r'(src|href)="(?!data:)', page)
    assert "<table>" in page and "95% Wilson" in page
    return plain(page)


@pytest.mark.slow
def test_a_sweep_of_two_fields_gets_every_plot_and_a_heatmap(toy, tmp_path):
    out = tmp_path / "sweep"
    varies = [
        "guards:sides[guards].members[Guard].count=1..3",
        "armor:sides[runners].members[*].armor=vest,heavy",
    ]
    api.sweep(toy, varies, battles=150, runner=toy_runner, out=out)
    paths = render_report(out)
    assert [p.name for p in paths] == [
        "win_rate.png",
        "heatmap.png",
        "standing.png",
        "turns.png",
        "damage.png",
        "report.html",
    ]
    page = check_page(out, ["win_rate", "heatmap", *EVERY_RUN[1:]])
    # a header and a row per variant; the file's own 2 guards in vests is one of them, marked
    assert page.count("<tr") == 1 + 6 and page.count("<tr class='baseline'>") == 1
    assert "Sweep: Toy standoff" in page and "150 battles per variant, 900 in all" in page
    # The table shows the scenario's side order and each rate with its interval.
    assert page.index("runners wins") < page.index("guards wins")
    assert re.search(r"\d+\.\d% <small>\(\d+\.\d%–\d+\.\d%\)</small>", page)


@pytest.mark.slow  # heavy: draws every figure of a run
def test_a_single_run_gets_the_distributions(toy, tmp_path, monkeypatch):
    monkeypatch.setattr(run_command, "battle_runner", lambda: toy_runner)
    out = tmp_path / "run"
    argv = ["run", str(toy), "--battles", "200", "--out", str(out), "--quiet", "--workers", "1"]
    assert main(argv) == 0
    assert main(["report", str(out)]) == 0
    page = check_page(out, ["win_rate", "casualties", *EVERY_RUN[1:]])
    assert "Battle results: Toy standoff" in page


@pytest.mark.slow
def test_a_comparison_gets_the_difference_plot(toy, tmp_path):
    out = tmp_path / "cmp"
    api.compare(
        toy,
        b_sets=["sides[runners].members[*].armor=heavy"],
        battles=200,
        runner=toy_runner,
        out=out,
    )
    render_report(out)
    page = check_page(out, ["win_rate", "difference", *EVERY_RUN[1:]])
    assert "B − A" in page and "significant" in page


@pytest.mark.slow
def test_a_balance_search_marks_the_target_and_the_best_value(toy, tmp_path):
    out = tmp_path / "bal"
    api.balance(
        toy,
        ["guards:sides[guards].members[Guard].count=1..6"],
        "runners",
        0.5,
        battles=200,
        runner=toy_runner,
        out=out,
    )
    render_report(out)
    page = check_page(out, EVERY_RUN)
    assert "Aim: runners win 50%.</b> The search chose guards = " in page and "class='best'" in page


@pytest.mark.slow
def test_a_batch_of_scenarios_is_titled_for_the_batch_with_a_row_per_scenario_and_side(
    toy, tmp_path
):
    out = tmp_path / "runs"
    api.run_many([toy, toy], battles=100, runner=toy_runner, out=out)
    render_report(out)
    page = check_page(out, EVERY_RUN)
    assert "<h1>Batch of 2 scenarios</h1>" in page
    assert page.count("<tr") == 1 + 2 * 2  # the header, then each scenario's two sides
    assert "100 battles per scenario, 200 in all" in page


def test_the_report_command_prints_where_the_files_are(toy, tmp_path, capsys):
    out = tmp_path / "sweep"
    api.sweep(toy, ["turn_limit=6,12"], battles=50, runner=toy_runner, out=out)
    assert main(["report", str(out), "--side", "guards"]) == 0
    printed = capsys.readouterr().out
    assert printed.startswith(f"report: {out / 'report.html'}\nplots: ")
    assert main(["report", str(out), "--side", "nobody"]) == 2
    assert one_error_line(capsys).startswith("combatsim: error: --side: got 'nobody'")


def test_a_folder_without_results_is_a_one_line_error(tmp_path, capsys):
    assert main(["report", str(tmp_path)]) == 2
    assert one_error_line(capsys).startswith("combatsim: error: DIR: got ")


# --- readability ------------------------------------------------------------------------------


def test_each_side_name_keeps_one_colour_and_no_colour_repeats_soon():
    from combatsim.report.figures import DRAW_COLOR, NEUTRAL, PALETTE, side_colors

    names = [f"side {k}" for k in range(len(PALETTE))]
    colors = side_colors(names)
    assert len(set(colors.values())) == len(PALETTE) >= 30
    assert DRAW_COLOR not in colors.values() and NEUTRAL not in colors.values()
    assert side_colors(["a", "b"]) == side_colors(["a", "b"])
    # in a batch the name most scenarios share gets the first colour
    assert side_colors(["x", "runners"], {"x": 1, "runners": 5})["runners"] == PALETTE[0]


def test_wrap_breaks_at_spaces_and_field_path_dots_and_never_cuts():
    from combatsim.report.figures import wrap

    text = "A: sides[runners].members[Grunt].armor=lined_coat"
    lines = wrap(text, 20).split("\n")
    assert "".join(lines).replace(" ", "") == text.replace(" ", "")
    assert lines == ["A: sides[runners].", "members[Grunt].", "armor=lined_coat"]
    assert wrap("averyveryverylongword", 5) == "averyveryverylongword"


LONG = "A very long scenario name that goes on and on, as game masters like to name them"


def _long_toy(folder):
    """The toy with a long name and long side names: labels that would be clipped if any
    figure let them."""
    path = toy_files(folder)
    text = path.read_text().replace("Toy standoff", LONG)
    text = text.replace("name: runners", "name: the shadowrunners of the long night")
    path.write_text(text)
    return path


def _checked_saves(monkeypatch) -> list:
    """Every figure the report saves, checked first: each visible text inside the figure."""
    from combatsim.report import balance, compare, figures, run, sweep

    seen, save = [], figures.save_plot

    def check(fig, folder, name, title, caption):
        fig.canvas.draw()
        renderer = fig.canvas.get_renderer()
        box = fig.bbox
        hidden = set()  # tick labels of ticks outside the view, which matplotlib does not draw
        for ax in fig.axes:
            for axis in (ax.xaxis, ax.yaxis):
                low, high = sorted(axis.get_view_interval())
                span = (high - low) * 1e-6
                for tick in axis.get_major_ticks() + axis.get_minor_ticks():
                    if not low - span <= tick.get_loc() <= high + span:
                        hidden.update({id(tick.label1), id(tick.label2)})
        for text in fig.findobj(
            lambda a: hasattr(a, "get_text") and hasattr(a, "get_window_extent")
        ):
            if not text.get_visible() or not text.get_text().strip() or id(text) in hidden:
                continue
            if text.axes is not None and not text.axes.get_visible():
                continue
            extent = text.get_window_extent(renderer)
            inside = (
                extent.x0 >= box.x0 - 1
                and extent.y0 >= box.y0 - 1
                and extent.x1 <= box.x1 + 1
                and extent.y1 <= box.y1 + 1
            )
            assert inside, f"{name}: {text.get_text()!r} at {extent} outside {box}"
        labels = [t.get_text() for legend in fig.legends for t in legend.get_texts()]
        for ax in fig.axes:
            if ax.get_legend() is not None:
                labels += [t.get_text() for t in ax.get_legend().get_texts()]
        seen.append((name, labels))
        return save(fig, folder, name, title, caption)

    for module in (run, sweep, balance, compare):  # every module that draws a figure
        monkeypatch.setattr(module, "save_plot", check)
    return seen


def _runner_with_status(scenario, root_seed, index, trace=False):
    """The toy runner, its combatants given a status: down ones are dead one time in three."""
    result = toy_runner(scenario, root_seed, index, trace)
    for row in result.combatants:
        row["status"] = "unhurt" if row["standing"] else ("dead" if index % 3 == 0 else "dying")
    return result


@pytest.mark.slow
def test_every_kind_of_report_keeps_its_text_inside_every_figure(tmp_path, monkeypatch):
    seen = _checked_saves(monkeypatch)
    toy = _long_toy(tmp_path / "scenarios")
    runs = {
        "run": lambda out: api.run_one(toy, battles=90, runner=_runner_with_status, out=out),
        "runs": lambda out: api.run_many([toy, toy], battles=60, runner=toy_runner, out=out),
        "sweep1": lambda out: api.sweep(
            toy, ["sides[guards].members[Guard].count=1..4"], battles=60, runner=toy_runner, out=out
        ),
        "sweep2": lambda out: api.sweep(
            toy,
            [
                "the weapon everyone carries:sides[0].members[*].weapons[0]=smg,rifle,pistol",
                "sides[guards].members[Guard].armor=jacket,heavy",
            ],
            battles=60,
            runner=toy_runner,
            out=out,
        ),
        "compare": lambda out: api.compare(
            toy, b_sets=["sides[0].members[*].armor=heavy"], battles=60, runner=toy_runner, out=out
        ),
        "balance": lambda out: api.balance(
            toy,
            ["guards:sides[guards].members[Guard].count=1..5"],
            "guards",
            0.5,
            battles=60,
            runner=toy_runner,
            out=out,
        ),
        "balance_down": lambda out: api.balance(
            toy,
            ["guards:sides[guards].members[Guard].count=1..5"],
            target="the shadowrunners of the long night down <= 0.6",
            battles=60,
            runner=_runner_with_status,
            out=out,
        ),
    }
    for name, make in runs.items():
        make(tmp_path / name)
        render_report(tmp_path / name)
    names = [n for n, _ in seen]
    assert names.count("win_rate") == len(runs) and "casualties" in names
    assert "heatmap" in names and "difference" in names and "aim" in names
    page = (tmp_path / "balance_down" / "report.html").read_text()
    assert "Aim: the shadowrunners of the long night down at most 60%.</b>" in page
    assert "the shadowrunners of the long night down (the aim)</th>" in page
    # Draws are shown wherever win rates are: in the legend of every line plot of rates.
    for name, labels in seen:
        if name == "win_rate" and labels and "A (upper bar)" not in labels:
            assert "draws" in labels, labels


@pytest.mark.slow
def test_a_single_run_shows_casualties_per_combatant_counted_from_its_records(tmp_path):
    from combatsim.report.run import load_casualties

    toy = toy_files(tmp_path / "scenarios")
    out = tmp_path / "run"
    api.run_one(toy, battles=90, runner=_runner_with_status, out=out)
    import json

    import pandas as pd

    frame = pd.read_csv(out / "combatants.csv")
    summary = json.loads((out / "summary.json").read_text())
    # The run's own casualties (a group's copies together), side and combatant levels
    written = load_casualties(summary, out)
    assert [(c["level"], c["who"]) for c in written] == [
        ("side", "runners"),
        ("combatant", "Ace"),
        ("combatant", "Brick"),
        ("side", "guards"),
        ("combatant", "Guard"),
    ]
    # An older folder without them: the same numbers counted from combatants.csv, each name
    # a combatant
    del summary["casualties"]
    listed = load_casualties(summary, out)
    same = {(c["level"], c["who"]): c for c in written}
    for c in listed:
        if (c["level"], c["who"]) in same:
            mine = same[c["level"], c["who"]]  # summary.json rounds to 6 places
            assert c["down_rate"] == pytest.approx(mine["down_rate"], abs=1e-6)
            assert c["dead_rate"] == pytest.approx(mine["dead_rate"], abs=1e-6)
    assert [(c["level"], c["who"]) for c in listed] == [
        ("side", "runners"),
        ("combatant", "Ace"),
        ("combatant", "Brick"),
        ("side", "guards"),
        ("combatant", "Guard 1"),
        ("combatant", "Guard 2"),
    ]
    frame["down"] = ~frame["standing"]
    frame["dead"] = frame["status"] == "dead"
    for c in listed:
        key = "side" if c["level"] == "side" else "name"
        mine = frame[frame[key] == c["who"]].groupby("battle")[["down", "dead"]].any()
        assert c["battles"] == 90
        assert c["down_rate"] == pytest.approx(mine["down"].sum() / 90)
        assert c["dead_rate"] == pytest.approx(mine["dead"].sum() / 90)
        assert c["down_ci95"][0] <= c["down_rate"] <= c["down_ci95"][1]
    side = listed[0]
    assert side["down_rate"] >= max(c["down_rate"] for c in listed[1:3])
    paths = render_report(out)
    assert [p.name for p in paths][:2] == ["win_rate.png", "casualties.png"]
    page = (out / "report.html").read_text()
    assert "<th>ends down</th><th>ends dead</th>" in page


def test_casualties_in_the_summary_are_used_as_they_are(tmp_path):
    from combatsim.report.run import load_casualties

    listed = [
        {"side": "a", "who": "a", "level": "side", "battles": 10, "down_rate": 0.5},
        {"side": "a", "who": "X", "level": "combatant", "battles": 10, "down_rate": 0.2},
        {"side": "a", "who": "X 1", "level": "copy", "battles": 10, "down_rate": 0.1},
    ]
    assert [c["who"] for c in load_casualties({"casualties": listed}, tmp_path)] == ["a", "X"]


def test_the_casualty_table_lists_a_groups_copies_under_it(tmp_path):
    """Issue 11: casualties for a group's copies together and for each copy."""
    from combatsim.report.page import casualty_table_html
    from combatsim.report.run import load_casualties

    def entry(who, level, down):
        return {
            "side": "a",
            "who": who,
            "level": level,
            "battles": 10,
            "down_rate": down,
            "down_ci95": [0.0, 1.0],
            "dead_rate": 0.0,
            "dead_ci95": [0.0, 0.3],
        }

    listed = [entry("a", "side", 0.5), entry("X", "combatant", 0.3)]
    listed += [entry("X 1", "copy", 0.1), entry("X 2", "copy", 0.2)]
    named = load_casualties({"casualties": listed}, tmp_path)
    assert [k["who"] for k in named[1]["copy_entries"]] == ["X 1", "X 2"]
    table = plain(casualty_table_html(named, {}))
    assert table.index("X (any of 2)") < table.index("X 1") < table.index("X 2")
    assert table.count("padding-left") == 2  # the copies, indented under their group


@pytest.mark.slow
@pytest.mark.parametrize("command", ["run", "compare", "balance"])
def test_report_flag_on_run_compare_and_balance(toy, tmp_path, monkeypatch, capsys, command):
    monkeypatch.setattr(run_command, "battle_runner", lambda: toy_runner)
    out = tmp_path / command
    argv = {
        "run": ["run", str(toy)],
        "compare": ["compare", str(toy), "--b", "turn_limit=6"],
        "balance": ["balance", str(toy), "--vary", "sides[1].members[0].count=1..3"]
        + ["--side", "runners"],
    }[command]
    common = ["--battles", "40", "--workers", "1", "--out", str(out), "--report"]
    assert main([*argv, *common]) == 0
    assert (out / "report.html").is_file() and (out / "plots" / "win_rate.png").is_file()
    assert "report.html" in capsys.readouterr().out


def test_the_heatmap_fills_and_frames_the_as_written_cell_inside_the_grid(toy, tmp_path):
    """The file's own values are a cell of the grid (2 guards in vests): that cell shows its
    rate like every other and is the framed one, not a blank square."""
    from combatsim.report.results import load_results
    from combatsim.report.sweep import heatmap_cells

    out = tmp_path / "sweep"
    varies = [
        "guards:sides[guards].members[Guard].count=1..2",
        "armor:sides[runners].members[*].armor=vest,heavy",
    ]
    api.sweep(toy, varies, battles=20, runner=toy_runner, out=out)
    summary, rows, names = load_results(out)
    assert summary["baseline"]["in_grid"] and any(r.baseline for r in rows)
    ys, xs, grid, text, marked, _ = heatmap_cells(summary, rows, names, "runners")
    assert marked is not None
    i, j = marked
    baseline = next(r for r in rows if r.baseline)
    assert (ys[i], xs[j]) == (baseline.values[names[0]], baseline.values[names[1]])
    assert text[i][j].startswith(f"{baseline.summary['sides']['runners']['win_rate']:.0%}")
    assert all(cell for line in text for cell in line)  # no blank cell anywhere


def test_damage_panels_of_different_systems_say_their_unit_on_their_own_axis(tmp_path, monkeypatch):
    """Classic Shadowrun counts boxes (0-10 a monitor), 2097 health points (0-70 or so): each
    panel says its unit and spans its own values instead of one axis labelled boxes."""
    from combatsim.report import figures
    from combatsim.report import run as run_report
    from combatsim.report.results import Row

    def row(name, system, counts):
        summary = {"system": system, "side_order": ["a"], "distributions": {}}
        summary["distributions"]["damage_taken"] = {"a": counts}
        return Row(name, {"scenario": name}, summary)

    drawn = []
    monkeypatch.setattr(figures, "save_figure", lambda fig, path: drawn.append(fig))
    rows = [row("classic", "sr-classic", [5] * 11), row("2097", "sr2097", [1] * 71)]
    plot = run_report.damage_plot(rows, {"a": "C0"}, tmp_path)
    classic, sr2097 = drawn[0].axes[:2]
    assert (classic.get_xlabel(), sr2097.get_xlabel()) == ("boxes", "health points")
    assert classic.get_xlim()[1] < 15 and sr2097.get_xlim()[1] >= 70
    assert "boxes (sr-classic), health points (sr2097)" in plot.caption
