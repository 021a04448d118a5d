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
    return page


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
    assert page.count("<tr>") == 1 + 6  # a header and a row per variant
    assert "Sweep: Toy standoff" in page and "150 battles per variant, 900 in all" in page
    # The table shows the scenario's side order and each rate with its interval.
    assert page.index("runners wins") < page.index("guards wins")
    assert re.search(r"\d+\.\d% <small>\(\d+\.\d%–\d+\.\d%\)</small>", page)


def test_a_single_run_gets_the_distributions(toy, tmp_path, monkeypatch):
    monkeypatch.setattr(run_command, "battle_runner", lambda: toy_runner)
    out = tmp_path / "run"
    argv = ["run", str(toy), "--battles", "200", "--out", str(out), "--quiet", "--workers", "1"]
    assert main(argv) == 0
    assert main(["report", str(out)]) == 0
    page = check_page(out, EVERY_RUN)
    assert "Battle results: Toy standoff" in page


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
    assert "Closest to 50% for runners:" in page and "class='best'" in page


def test_a_batch_of_scenarios_gets_a_row_each(toy, tmp_path):
    out = tmp_path / "runs"
    api.run_many([toy, toy], battles=100, runner=toy_runner, out=out)
    render_report(out)
    page = check_page(out, EVERY_RUN)
    assert page.count("<tr>") == 3


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
