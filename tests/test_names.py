"""Names a user gives, and every place that shows user text.

A name (scenario, side, member, catalogue entry, a sweep file's vary and its text values) is
short printable text that a spreadsheet cannot run: refused otherwise, in one line that shows
what was found escaped. Where user text that is not a checked name is shown (a file's path,
old results), it is escaped on the terminal, drawn as written in plots and isolated in HTML.
"""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest

from combatsim.cli import main
from combatsim.names import MAX_NAME, for_terminal, name_problem
from combatsim.report import render_report
from combatsim.scenario import load_scenario
from combatsim.sweeps.fields import load_sweep_file

ROOT = Path(__file__).resolve().parent.parent
BRAWL = "sr-bar-brawl.yaml"
HOSTILE = {
    "carriage return and erase line": "Razor\r\x1b[2Kok",
    "escape sequence": "\x1b]0;owned\x07",
    "right-to-left override": "abc\u202e54.0%",
    "right-to-left isolate": "a\u2067b",
    "line separator": "a\u2028b",
    "NUL": "a\x00b",
    "formula =": '=HYPERLINK("http://x")',
    "formula +": "+1+1",
    "formula -": "-2+3",
    "formula @": "@SUM(A1)",
    "empty": "",
    "101 characters": "x" * (MAX_NAME + 1),
}
# Where a name stands in a scenario file, as (text in the shipped file, replacement, field).
PLACES = {
    "scenario": ("name: Bar brawl at the Armadillo", "name: {}", "name"),
    "side": ("name: the Armadillo", "name: {}", "sides[0].name"),
    "member": ("name: Tiny", "name: {}", "sides[0].members[0].name"),
    "weapon key": ("weapons:\n", "weapons:\n  {}: {{kind: melee, damage: 1M}}\n", "weapons"),
    "armor key": ("armor:\n", "armor:\n  {}: {{ballistic: 1, impact: 1}}\n", "armor"),
    "archetype key": ("archetypes:\n", "archetypes:\n  {}: {{attributes: {{}}}}\n", "archetypes"),
}


@pytest.fixture
def folder(tmp_path):
    shutil.copytree(ROOT / "scenarios", tmp_path / "scenarios")
    return tmp_path / "scenarios"


def with_name(folder: Path, place: str, name: str, file: str = BRAWL) -> Path:
    """The shipped scenario with ``name`` at ``place`` (written as a YAML string)."""
    old, new, _ = PLACES[place]
    path = folder / file
    text = path.read_text(encoding="utf-8")
    if old.endswith(":\n") and old not in text:  # a section the scenario lacks: add it
        text += old
    assert old in text, (place, file)
    path.write_text(text.replace(old, new.format(json.dumps(name)), 1), encoding="utf-8")
    return path


def one_error_line(capsys) -> str:
    captured = capsys.readouterr()
    assert "Traceback" not in captured.err and not captured.out
    assert captured.err.count("\n") == 1, captured.err
    assert captured.err.startswith("combatsim: error: ")
    return captured.err


# --- the rule -----------------------------------------------------------------------------------


@pytest.mark.parametrize("place", PLACES)
@pytest.mark.parametrize("name", HOSTILE.values(), ids=HOSTILE.keys())
def test_an_unsafe_name_is_refused_in_one_escaped_line(folder, capsys, place, name):
    path = with_name(folder, place, name)
    assert main(["validate", str(path)]) == 2
    err = one_error_line(capsys)
    assert err.isprintable() or err[:-1].isprintable()  # nothing raw reaches the terminal
    field = PLACES[place][2]
    assert re.search(rf"{re.escape(path.name)}:\d+: {re.escape(field)}: found ", err), err
    assert "allowed: printable text of 1 to 100 characters" in err
    if len(name) <= MAX_NAME:
        assert repr(name) in err  # what was found, escaped
        assert name_problem(name) in err  # and why it is refused


def test_a_long_name_is_cut_in_the_message_saying_its_length(folder, capsys):
    path = with_name(folder, "side", "y" * 100_000)
    assert main(["validate", str(path)]) == 2
    err = one_error_line(capsys)
    assert len(err) < 400 and "(100,000 characters)" in err


@pytest.mark.parametrize(
    "name", ["x" * MAX_NAME, "Razor $\\x$", "Ψ-wolf", "عصابة", "O'Brien (the elder)", "a-b", "1st"]
)
def test_printable_names_up_to_the_cap_are_kept(folder, name):
    scenario = load_scenario(with_name(folder, "member", name))
    assert scenario.sides[0].fighters[0].name == name


def test_a_scenario_with_a_formula_name_is_refused_and_writes_no_csv(folder, tmp_path, capsys):
    """battles.csv and combatants.csv hold side and member names: one starting with = + - @
    would be a spreadsheet formula, so such a scenario never runs."""
    path = with_name(folder, "side", '=HYPERLINK("http://evil","click")')
    out = tmp_path / "out"
    assert main(["run", str(path), "--battles", "5", "--out", str(out), "--quiet"]) == 2
    assert "spreadsheet" in one_error_line(capsys)
    assert not list(out.glob("*.csv"))


def test_every_shipped_name_keeps_the_rule():
    for path in sorted(ROOT.glob("scenarios/*.yaml")):
        scenario = load_scenario(path)
        names = [scenario.name] + [s.name for s in scenario.sides]
        names += [f.name for f in scenario.fighters]
        assert all(name_problem(n) is None for n in names), path


@pytest.mark.parametrize(
    ("vary", "field", "line"),
    [
        ('name: "@cmd"\n    path: turn_limit\n    values: [3, 4]', "vary[0].name", 3),
        ('path: sides[0].members[0].armor\n    values: ["=1+1"]', "vary[0].values", 4),
        ('path: sides[0].members[0].armor\n    values: "a\\u202eb"', "vary[0].values", 4),
    ],
)
def test_a_sweep_files_vary_names_and_text_values_keep_the_rule(folder, capsys, vary, field, line):
    sweep = folder / "sweep.yaml"
    sweep.write_text(f"scenario: {BRAWL}\nvary:\n  - {vary}\n", encoding="utf-8")
    assert main(["sweep", "--file", str(sweep), "--quiet"]) == 2
    err = one_error_line(capsys)
    assert f"sweep.yaml:{line}: {field}: found " in err and "printable text" in err


def test_a_sweep_file_with_plain_names_loads(folder):
    sweep = folder / "sweep.yaml"
    sweep.write_text(
        f"scenario: {BRAWL}\nvary:\n  - name: armor\n    path: sides[0].members[0].armor\n"
        "    values: [armor_vest, armor_vest_plates]\n",
        encoding="utf-8",
    )
    assert load_sweep_file(sweep).varies[0].labels == ["armor_vest", "armor_vest_plates"]


# --- the terminal -------------------------------------------------------------------------------


def test_for_terminal_escapes_everything_that_moves_the_cursor_or_turns_text():
    assert for_terminal("a\r\x1b[2Kb\u202ec\x07\nd") == "a\\r\\x1b[2Kb\\u202ec\\x07\nd"
    assert for_terminal("Ψ-wolf عصابة $x$") == "Ψ-wolf عصابة $x$"


def test_validate_cannot_be_made_to_show_a_fake_ok_line(folder, capsys):
    bad = folder / "bad\r\x1b[2Kok: fine.yaml"
    bad.write_text("name: [\n", encoding="utf-8")
    good = folder / "good\x1b[31m.yaml"
    shutil.copy(folder / BRAWL, good)
    assert main(["validate", str(bad), str(good)]) == 2
    captured = capsys.readouterr()
    assert "\\r\\x1b[2Kok: fine.yaml" in captured.err and "\x1b" not in captured.err
    assert "\r" not in captured.err
    (line,) = captured.out.splitlines()
    assert line.startswith("ok: ") and "good\\x1b[31m.yaml" in line and "\x1b" not in line


def test_a_usage_error_echoing_an_argument_is_escaped(capsys):
    with pytest.raises(SystemExit) as stop:
        main(["validate", "x.yaml", "--\x1b[2J"])
    assert stop.value.code == 2
    err = capsys.readouterr().err
    assert "\x1b" not in err and "\\x1b[2J" in err


# --- plots and HTML -----------------------------------------------------------------------------


def run_with_names(folder: Path, tmp_path: Path, names: dict[str, str]) -> Path:
    for place, name in names.items():
        with_name(folder, place, name)
    out = tmp_path / "out"
    args = ["run", str(folder / BRAWL), "--battles", "20", "--out", str(out), "--quiet"]
    assert main(args) == 0
    return out


@pytest.mark.slow
def test_a_dollar_in_a_name_is_drawn_as_a_dollar(folder, tmp_path, capsys):
    """'$\\x$' is bad mathtext: a report that parsed names as mathematics would fail."""
    out = run_with_names(folder, tmp_path, {"member": "Razor $\\x$", "scenario": "Bar $\\x$"})
    assert main(["report", str(out)]) == 0
    assert "Traceback" not in capsys.readouterr().err
    assert (out / "plots" / "casualties.png").stat().st_size > 5000


def test_odds_plots_draw_a_dollar_as_written(tmp_path):
    import matplotlib

    from combatsim.odds_plots import plot_distribution

    path = plot_distribution(
        "$\\x$ odds", "hits", [0, 1], {"$\\x$": [0.5, 0.5]}, tmp_path / "o.png"
    )
    assert path.stat().st_size > 1000
    assert matplotlib.rcParams["text.parse_math"]  # the setting is the plot's, not global


@pytest.mark.slow
def test_every_name_in_the_html_report_is_isolated(folder, tmp_path):
    """Right-to-left names (allowed) and an old results file's override (no longer allowed)
    cannot reorder the text around them: each stands in <bdi> or between isolates."""
    side = "عصابة"
    out = run_with_names(folder, tmp_path, {"side": side})
    summary_path = out / "summary.json"
    text = summary_path.read_text(encoding="utf-8")
    summary_path.write_text(text.replace("Ancients", "abc\u202e"), encoding="utf-8")
    render_report(out)
    page = (out / "report.html").read_text(encoding="utf-8")
    for name in (side, "abc\u202e"):
        shown = page.count(name)
        isolated = page.count(f"<bdi>{name}") + page.count(f"\u2068{name}")
        assert shown and isolated == shown, (name, shown, isolated)
    headline = re.search(r"<p>(<span class=\"swatch\"[^\n]*)</p>", page)[1]
    assert "<b><bdi>abc\u202e</bdi></b> win" in headline
