"""``combatsim odds ... --plot`` and ``--grid``: pictures and grids of the exact odds."""

from __future__ import annotations

import json
from fractions import Fraction

import pytest

from combatsim.cli import main
from combatsim.dice import shadowrun as sr
from combatsim.odds_plots import cumulative
from combatsim.rules.lost_souls import odds_tables as ls_tables
from combatsim.rules.shadowrun import odds_tables as sr_tables
from combatsim.rules.sr2097 import odds_tables as tables_2097

PNG = b"\x89PNG\r\n\x1a\n"


def test_grid_cells_are_the_single_roll_odds():
    payload, _, grid = sr_tables.sr_grid([1, 4, 6], [3, 7, 9])
    assert grid.p[1][1] == pytest.approx(sr_tables.sr_odds(4, 7)[0]["p_at_least_one"])
    # One die at TN 7 is as hard as TN 6 (Rule of Six): exactly 1/6.
    assert grid.p[0][1] == float(Fraction(1, 6))
    assert payload["rows"]["values"] == [1, 4, 6] and payload["columns"]["values"] == [3, 7, 9]
    _, _, need2 = sr_tables.sr_grid([4], [5], need=2)
    dist = sr.exact_successes(4, 5)
    assert need2.p[0][0] == pytest.approx(float(1 - dist[0] - dist[1]))
    _, _, g2097 = tables_2097.sr2097_grid([10, 15], [20, 25], "advantage")
    assert g2097.p[1][0] == pytest.approx(
        tables_2097.sr2097_odds(15, 20, "advantage")[0]["p_success"]
    )
    payload, _, gls = ls_tables.lost_souls_grid([-1, 0, 2])
    single = ls_tables.lost_souls_odds(2, 6)[0]["p_success"]["6"]
    assert gls.p[2][payload["columns"]["values"].index(6)] == pytest.approx(single)


def test_cumulative_views_add_up():
    pmf = [float(p) for p in (Fraction(1, 8), Fraction(3, 8), Fraction(3, 8), Fraction(1, 8))]
    at_least, at_most = cumulative(pmf)
    assert at_least == pytest.approx([1, 7 / 8, 1 / 2, 1 / 8])
    assert at_most == pytest.approx([1 / 8, 1 / 2, 7 / 8, 1])
    for k in range(1, 4):
        assert at_least[k] + at_most[k - 1] == pytest.approx(1)


@pytest.mark.slow
@pytest.mark.parametrize(
    "argv",
    [
        ["sr", "--dice", "5", "--tn", "5"],
        ["sr", "--dice", "3", "--tn", "9", "--d8"],
        ["2097", "--bonus", "12", "--tn", "20"],
        ["lost-souls", "--net", "-1", "--column", "6"],
        ["lost-souls", "--net", "2"],
        ["4d8", "--chance", "17"],
    ],
    ids=lambda a: " ".join(a),
)
def test_plot_draws_every_systems_distribution(tmp_path, capsys, argv):
    target = tmp_path / "odds.png"
    assert main(["odds", *argv, "--plot", str(target)]) == 0
    assert target.read_bytes().startswith(PNG)
    assert f"plot: {target}" in capsys.readouterr().out


@pytest.mark.slow
@pytest.mark.parametrize(
    "argv",
    [
        ["sr", "--grid", "--dice", "1..6", "--tn", "2..12"],
        ["2097", "--grid", "--bonus", "5..20/5", "--tn", "15,20,25"],
        ["lost-souls", "--grid", "--net=-2..2"],
    ],
    ids=lambda a: a[0],
)
def test_grid_prints_a_table_and_draws_a_heatmap(tmp_path, capsys, argv):
    target = tmp_path / "grid.png"
    assert main(["odds", *argv, "--plot", str(target)]) == 0
    assert target.read_bytes().startswith(PNG)
    text = capsys.readouterr().out
    assert "P(success)" in text or "P(a success)" in text
    assert main(["odds", *argv, "--json"]) == 0
    payload = json.loads(capsys.readouterr().out)
    rows, columns = payload["rows"]["values"], payload["columns"]["values"]
    assert len(payload["p_success"]) == len(rows)
    assert all(len(r) == len(columns) for r in payload["p_success"])


@pytest.mark.parametrize(
    "argv",
    [
        ["sr", "--dice", "1..6", "--tn", "5"],  # a range needs --grid
        ["sr", "--grid", "--dice", "1..6"],  # --tn missing
        ["sr", "--grid", "--dice", "1..100", "--tn", "5"],  # too many rows
        ["2097", "--grid", "--bonus", "a,b", "--tn", "20"],
        ["4d8", "--chance", "17", "--grid"],
        ["lost-souls", "--grid", "--net", "1", "--column", "6"],
    ],
)
def test_bad_grids_exit_2(capsys, argv):
    try:
        code = main(["odds", *argv])
    except SystemExit as stop:  # argparse's own refusals (an unknown option)
        code = stop.code
    assert code == 2
    assert capsys.readouterr().err


def drawn_figure(monkeypatch, draw):
    """The figure ``draw`` makes, kept open and laid out (``_save`` writes and closes it)."""
    from combatsim import odds_plots

    kept = []
    monkeypatch.setattr(odds_plots, "_save", lambda fig, path: kept.append(fig) or path)
    draw()
    fig = kept[0]
    fig.canvas.draw()
    return fig


def test_a_margin_axis_is_a_number_line_with_readable_ticks(tmp_path, monkeypatch):
    """2097's margin skips values (-10, -8, 12, ...): each bar stands at its own value, and the
    tick labels are whole numbers that do not run into each other ("-11-9-7")."""
    from combatsim.odds_plots import plot_distribution
    from combatsim.rules.sr2097.odds import CHECK

    payload, table = tables_2097.sr2097_odds(12, 20, "normal")[:2]
    outcome, values, series = CHECK.distribution(payload)
    assert values != list(range(values[0], values[-1] + 1))  # the gaps this is about
    fig = drawn_figure(
        monkeypatch,
        lambda: plot_distribution(table.title, outcome, values, series, tmp_path / "x.png"),
    )
    renderer = fig.canvas.get_renderer()
    for ax in fig.axes:
        bars = sorted(patch.get_x() + patch.get_width() / 2 for patch in ax.patches)
        # proportional: a bar (of height 0 in a gap) at every number, at the number itself
        assert bars == pytest.approx(list(range(values[0], values[-1] + 1)))
        shown = [t for t in ax.get_xticklabels() if t.get_text()]
        assert 4 <= len(shown) <= 12
        ticks = [float(t.get_text().replace("\u2212", "-")) for t in shown]
        assert ticks == [t.get_position()[0] for t in shown]  # a label says where it stands
        boxes = [t.get_window_extent(renderer) for t in shown]
        assert all(a.x1 < b.x0 for a, b in zip(boxes, boxes[1:], strict=False))


def test_the_lost_souls_pictures_say_the_table_is_an_approximation(tmp_path, monkeypatch):
    from combatsim.odds_plots import plot_distribution, plot_grid
    from combatsim.rules.lost_souls.odds import PERCENTILE

    payload, table = ls_tables.lost_souls_odds(1)
    outcome, values, series = PERCENTILE.distribution(payload)
    note = payload["table_note"]
    line = drawn_figure(
        monkeypatch,
        lambda: plot_distribution(table.title, outcome, values, series, tmp_path / "a.png", note),
    )
    grid_payload, _, grid = ls_tables.lost_souls_grid([-1, 0, 1])
    heat = drawn_figure(
        monkeypatch, lambda: plot_grid(grid, tmp_path / "b.png", grid_payload["table_note"])
    )
    for text in (line.get_suptitle(), heat.axes[0].get_title()):
        words = " ".join(text.split())
        assert "APPROXIMATION, NOT THE BOOK'S TABLE" in words and "invented" in words
