"""The hostile-input property, at a larger budget (``slow``): mutated shipped scenarios, hostile
names in every named place, and output folders in every state a user's disk can leave them.

Every input either works (validates and runs) or is refused in one line with exit 2; never a
traceback, a hang or a file of the user's lost. ``-m "not slow"`` leaves this module out of a
developer's quick loop; the full suite (and CI) runs it.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from combatsim.cli import main
from combatsim.engine import run_battle
from combatsim.scenario import load_scenario
from tests.test_hostile_files import SHIPPED, mutated_scenarios

pytestmark = pytest.mark.slow

EXAMPLES = int(os.environ.get("COMBATSIM_FUZZ_EXAMPLES", "2000"))
SETTINGS = settings(  # the same inputs every run: a CI run reproduces what was checked here
    max_examples=EXAMPLES,
    deadline=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)
HOSTILE_NAMES = [
    "Razor $\\x$",
    '=HYPERLINK("http://x")',
    "+1",
    "-cmd",
    "@SUM(A1)",
    "a\rok: fake",
    "\x1b[2K\x1b]0;title\x07",
    "\u202eevil",
    "x" * 101,
    "tab\there",
    "",
    " ",
    "\u2028",
    "Ember",  # an ordinary name: must still work
]


def one_line_or_ok(code: int, err: str) -> None:
    assert "Traceback" not in err, err
    if code == 2:  # one line per mistake of the file (at most 20, then "and N more")
        lines = err.splitlines()
        assert 1 <= len(lines) <= 21, err
        assert all(line.startswith("combatsim: error: ") for line in lines), err
    else:
        assert code == 0, err


@SETTINGS
@given(mutated_scenarios())
def test_mutated_scenarios_load_and_run_or_are_one_line(tmp_path_factory, capsys, mutant):
    name, text = mutant
    path = tmp_path_factory.mktemp("mutant") / f"mutant-{name}"
    path.write_text(text, encoding="utf-8", errors="surrogatepass")
    code = main(["validate", str(path)])
    one_line_or_ok(code, capsys.readouterr().err)
    if code == 0:
        scenario = load_scenario(path)
        assert run_battle(scenario, scenario.seed, 0).turns <= scenario.turn_limit


def named_places(data: dict) -> list[tuple]:
    """Where a scenario holds a name: its own, each side's and each member's."""
    places = [("name",)]
    for s, side in enumerate(data["sides"]):
        places.append(("sides", s, "name"))
        places += [("sides", s, "members", m, "name") for m in range(len(side["members"]))]
    return places


@SETTINGS
@given(
    st.sampled_from(SHIPPED),
    st.data(),
    st.sampled_from(HOSTILE_NAMES) | st.text(max_size=8),
)
def test_any_name_anywhere_is_refused_in_one_line_or_runs(
    tmp_path_factory, capsys, path, data, name
):
    scenario = yaml.safe_load(path.read_text(encoding="utf-8"))
    place = data.draw(st.sampled_from(named_places(scenario)))
    target = scenario
    for key in place[:-1]:
        target = target[key]
    target[place[-1]] = name
    folder = tmp_path_factory.mktemp("named")
    (folder / "catalogues").symlink_to(path.parent / "catalogues")
    file = folder / path.name
    file.write_text(yaml.safe_dump(scenario, sort_keys=False, allow_unicode=True), "utf-8")
    out = folder / "out"
    code = main(
        ["run", str(file), "--battles", "3", "--workers", "1", "--quiet", "--out", str(out)]
    )
    err = capsys.readouterr().err
    one_line_or_ok(code, err)
    if code == 0:
        for csv in out.glob("*.csv"):  # no spreadsheet formula, no control character
            for line in csv.read_text(encoding="utf-8").splitlines()[1:]:
                assert not any(cell[:1] and cell[0] in "=+@" for cell in line.split(",")), line
                assert not any(ord(c) < 32 for c in line), line


def prepare(out: Path, state: str, tmp: Path) -> set[str]:
    """Leave ``out`` in ``state``; return the names of the user's files that must survive."""
    if state == "missing":
        return set()
    if state == "dangling link":
        out.symlink_to(tmp / "nowhere")
        return set()
    if state == "a file":
        out.write_text("mine")
        return set()
    out.mkdir()
    if state == "empty":
        return set()
    if state == "foreign files":
        (out / "notes.txt").write_text("mine")
        (out / "summary.json").write_text("{}")  # a result's name: --force lets the run write it
        return {"notes.txt"}
    if state == "stale lock":
        (out / ".combatsim.lock").write_text("12345 combatsim run x.yaml\n")
        return set()
    raise AssertionError(state)


STATES = ["missing", "dangling link", "a file", "empty", "foreign files", "stale lock"]


@settings(
    max_examples=min(EXAMPLES, 60),
    deadline=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.function_scoped_fixture],
)
@given(st.sampled_from(STATES), st.booleans(), st.sampled_from(["run", "report"]))
def test_any_output_folder_state_is_one_line_or_ok_and_keeps_the_users_files(
    tmp_path_factory, capsys, state, force, command
):
    tmp = tmp_path_factory.mktemp("out")
    out = tmp / "results"
    keep = prepare(out, state, tmp)
    before = {n: (out / n).read_bytes() for n in keep}
    scenario = str(SHIPPED[0])
    argv = ["run", scenario, "--battles", "3", "--workers", "1", "--quiet", "--out", str(out)]
    if command == "report":
        argv.append("--report")
    code = main([*argv, *(["--force"] if force else [])])
    one_line_or_ok(code, capsys.readouterr().err)
    if state == "foreign files" and not force:
        assert code == 2 and (out / "summary.json").read_text() == "{}"
    for n, content in before.items():  # nothing of the user's is lost or overwritten
        assert (out / n).read_bytes() == content, n


def test_a_newline_in_a_catalogue_path_stays_in_one_error_line(tmp_path, capsys):
    """Found by the fuzz above: a catalogue named "\\n" put a newline into the message."""
    text = (SHIPPED[0]).read_text(encoding="utf-8")
    data = yaml.safe_load(text)
    data["catalogues"] = ["\n"]
    path = tmp_path / "newline.yaml"
    path.write_text(yaml.safe_dump(data, sort_keys=False), encoding="utf-8")
    code = main(["validate", str(path)])
    err = capsys.readouterr().err
    assert code == 2 and err.count("\n") == 1 and "catalogue" in err, err
    assert main(["run", str(path), "--quiet"]) == 2
    assert capsys.readouterr().err.count("\n") == 1
