"""Scenario, catalogue, table and sweep files as untrusted input (issue 12).

A property over mutated shipped scenarios: any document either loads or raises a
``CombatsimError`` that the CLI prints in one line with exit code 2 (as d20's tests do for
dice expressions); a document that loads also runs. Then one regression test per case the fuzz
campaign found: billion laughs, recursive aliases, deep nesting, devices and FIFOs, directories,
NUL bytes, over-long names, the size cap, duplicate keys, NaN and infinities, ranges of 0 or
less, and errors in a referenced file that name both that file and the scenario's line.
"""

from __future__ import annotations

import math
import os
import shutil
import time
from pathlib import Path

import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from combatsim import safeyaml
from combatsim.cli import main
from combatsim.engine import run_battle
from combatsim.errors import CombatsimError, ScenarioError
from combatsim.scenario import load_catalogue, load_scenario
from combatsim.sweeps.fields import load_sweep_file
from tests.helpers import examples

ROOT = Path(__file__).parent.parent
SHIPPED = sorted((ROOT / "scenarios").glob("*.yaml"))
# seconds: a guard against blow-ups (an alias bomb, a runaway loop), not a speed target; these
# take well under a second, and a loaded shared 2-core machine must not make them fail
FAST = 10.0


@pytest.fixture
def folder(tmp_path):
    """A copy of the shipped scenarios and catalogues to break."""
    shutil.copytree(ROOT / "scenarios", tmp_path / "scenarios")
    return tmp_path / "scenarios"


def one_line(capsys) -> str:
    err = capsys.readouterr().err
    assert "Traceback" not in err
    assert err.count("\n") == 1, err
    assert err.startswith("combatsim: error: ")
    return err


def validate_fails(capsys, *paths) -> str:
    started = time.monotonic()
    assert main(["validate", *map(str, paths)]) == 2
    assert time.monotonic() - started < FAST
    return one_line(capsys)


# --- the property -------------------------------------------------------------------------------

SNIPPETS = [
    "&a ",
    "*a",
    "*zz",
    "<<: ",
    "[",
    "]",
    "{",
    "}",
    ": ",
    "- ",
    "\n",
    "  ",
    "---\n",
    "? ",
    ".nan",
    "-.inf",
    ".inf",
    "1e999",
    "-1",
    "0",
    "1" * 30,
    "!!python/object:os.system ",
    "!!set ",
    "!!binary ",
    "\t",
    '"',
    "'",
    "#",
    "~",
    "yes",
    "\x00",
    "\u2028",
    "\ufeff",
]
LEAVES = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-(10**20), 10**20),
    st.floats(allow_nan=True, allow_infinity=True),
    st.sampled_from([0, -1, 1, 2, 1000, 10**9, "", "ak97", "partial", "on", [], {}, [1, 2]]),
    st.text(max_size=12),
)


def leaves(data, path=()):
    if isinstance(data, dict):
        for key, value in data.items():
            yield from leaves(value, (*path, key))
    elif isinstance(data, list):
        for i, value in enumerate(data):
            yield from leaves(value, (*path, i))
    yield path


def replaced(data, path, value):
    if not path:
        return value
    head, rest = path[0], path[1:]
    out = dict(data) if isinstance(data, dict) else list(data)
    out[head] = replaced(data[head], rest, value)
    return out


@st.composite
def mutated_scenarios(draw):
    """A shipped scenario with its YAML text cut, spliced or its data changed at one place."""
    path = draw(st.sampled_from(SHIPPED))
    text = path.read_text(encoding="utf-8")
    how = draw(st.sampled_from(["snippet", "cut", "duplicate", "leaf", "leaf", "leaf"]))
    if how == "snippet":
        at = draw(st.integers(0, len(text)))
        snippets = draw(st.lists(st.sampled_from(SNIPPETS), min_size=1, max_size=3))
        text = text[:at] + "".join(snippets) + text[at:]
    elif how == "cut":
        at = draw(st.integers(0, len(text)))
        text = text[:at] + text[at + draw(st.integers(1, 40)) :]
    elif how == "duplicate":
        lines = text.splitlines(keepends=True)
        i = draw(st.integers(0, len(lines) - 1))
        text = "".join(lines[: i + 1] + [lines[i]] + lines[i + 1 :])
    else:
        data = yaml.safe_load(text)
        where = draw(st.sampled_from(list(leaves(data))))
        text = yaml.safe_dump(replaced(data, where, draw(LEAVES)), sort_keys=False)
    return path.name, text


@pytest.mark.slow
@settings(
    max_examples=examples(150),
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)
@given(mutated_scenarios())
def test_any_mutated_scenario_loads_and_runs_or_is_one_line_with_exit_2(folder, capsys, mutant):
    name, text = mutant
    path = folder / f"mutant-{name}"
    path.write_text(text, encoding="utf-8", errors="surrogatepass")
    code = main(["validate", str(path)])
    captured = capsys.readouterr()
    assert "Traceback" not in captured.err
    if code == 2:
        lines = captured.err.splitlines()  # one line per mistake, each saying so
        assert 1 <= len(lines) <= 21 and all(x.startswith("combatsim: error: ") for x in lines)
        with pytest.raises(CombatsimError):
            load_scenario(path)
        return
    assert code == 0, captured
    scenario = load_scenario(path)
    for index in range(2):  # what validates also runs: no NaN or range reaches the engine
        result = run_battle(scenario, scenario.seed, index)
        assert result.turns <= scenario.turn_limit


# --- safe reading -------------------------------------------------------------------------------

BILLION_LAUGHS = 'a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]\n' + "".join(
    f"{chr(98 + i)}: &{chr(98 + i)} [{','.join([f'*{chr(97 + i)}'] * 9)}]\n" for i in range(8)
)


def long_folder(tmp_path: Path, length: int = 200) -> Path:
    """A folder under ``tmp_path`` whose path is at least ``length`` characters."""
    folder = tmp_path
    while len(str(folder)) < length:
        folder = folder / "a-folder-with-a-rather-long-name"
    folder.mkdir(parents=True)
    return folder


@pytest.mark.parametrize("deep", [False, True], ids=["short-path", "200-character-path"])
def test_billion_laughs_is_one_line_in_well_under_a_second(tmp_path, capsys, deep):
    path = (long_folder(tmp_path) if deep else tmp_path) / "laughs.yaml"
    path.write_text(BILLION_LAUGHS)
    assert len(BILLION_LAUGHS) < 1024  # a 1 KB file whose aliases expand to 10^9 values
    err = validate_fails(capsys, path)
    assert f"aliases expanding to more than {safeyaml.MAX_ALIAS_VALUES:,} values" in err
    assert "laughs.yaml:6: f[0]" in err
    # the path keeps its tail (the message whole): ".../a-folder-.../laughs.yaml:6: f[0]"
    assert err.split(": ")[2].endswith(f"{path.parent.name}/laughs.yaml:6")


def test_a_shortened_path_keeps_its_last_folders_whole():
    deep = "/tmp/" + "x" * 150 + "/scenarios/tactics/focus.yaml"
    assert safeyaml.shown(deep) == "…/scenarios/tactics/focus.yaml"
    assert safeyaml.shown("/tmp/short.yaml") == "/tmp/short.yaml"
    name = safeyaml.shown("/tmp/" + "y" * 300 + ".yaml")
    assert name.startswith("…y") and name.endswith("y.yaml") and len(name) == safeyaml.SHOWN_NAME


def test_a_recursive_alias_is_one_line(tmp_path, capsys):
    path = tmp_path / "recursive.yaml"
    path.write_text("name: x\nsides: &r [*r]\n")
    err = validate_fails(capsys, path)
    assert "recursive.yaml:2: sides[0]: found the alias *r inside its own anchor &r" in err


@pytest.mark.parametrize("opening, closing", [("[", "]"), ("{a: ", "}"), ("- ", "")])
def test_nesting_thousands_deep_is_one_line(tmp_path, capsys, opening, closing):
    depth = 3000 if opening != "- " else 1000  # 1000 indented levels: 1 MB
    if opening == "- ":
        text = "".join(" " * (2 * i) + "-\n" for i in range(depth)) + " " * 2 * depth + "1\n"
    else:
        text = "a: " + opening * depth + "1" * (closing == "}") + closing * depth + "\n"
    path = tmp_path / "deep.yaml"
    path.write_text(text)
    err = validate_fails(capsys, path)
    assert f"nesting deeper than {safeyaml.MAX_DEPTH} levels" in err


def test_aliases_cannot_nest_past_the_depth_cap(tmp_path, capsys):
    path = tmp_path / "deep.yaml"
    path.write_text("a: &a " + "[" * 40 + "]" * 40 + "\nb: [[[[[[[[[[[[*a]]]]]]]]]]]]\n")
    assert "(through *a)" in validate_fails(capsys, path)


def test_a_fifo_is_refused_without_hanging(tmp_path, capsys):
    path = tmp_path / "pipe.yaml"
    os.mkfifo(path)
    assert "pipe.yaml: (file): found a FIFO (named pipe); allowed: a regular file" in (
        validate_fails(capsys, path)
    )


@pytest.mark.parametrize("device", ["/dev/zero", "/dev/null"])
def test_a_device_is_refused(capsys, device):
    if not os.path.exists(device):
        pytest.skip(f"no {device}")
    assert "found a character device" in validate_fails(capsys, device)


def test_a_directory_is_refused_where_a_file_is_named(tmp_path):
    """``validate`` and ``run`` take folders of scenarios (issue 11), so a folder is refused
    where one file must be read: a scenario for the loader, a catalogue."""
    with pytest.raises(ScenarioError, match="found a directory; allowed: a regular file"):
        load_scenario(tmp_path)
    (tmp_path / "catalogues").mkdir()
    path = tmp_path / "x.yaml"
    text = (ROOT / "scenarios" / "sr-firefight-4v4.yaml").read_text()
    path.write_text(text.replace("catalogues/sr-classic.yaml", "catalogues"))
    with pytest.raises(ScenarioError, match=r"catalogues\[0\]: found 'catalogues'.*directory"):
        load_scenario(path)


def test_an_empty_folder_to_validate_is_one_line(tmp_path, capsys):
    assert "a folder with YAML files" in validate_fails(capsys, tmp_path)


def test_a_nul_byte_in_a_name_or_in_the_text_is_one_line(tmp_path):
    with pytest.raises(ScenarioError, match=r"a\\0b.yaml: \(file\): found a NUL byte"):
        load_scenario(f"{tmp_path}/a\0b.yaml")
    path = tmp_path / "nul.yaml"
    path.write_bytes(b"name: x\nsides: \x00\n")
    with pytest.raises(ScenarioError, match=r"nul.yaml:2: \(file\): found a NUL byte"):
        load_scenario(path)


def test_an_over_long_name_is_one_line_and_shortened(tmp_path, capsys):
    err = validate_fails(capsys, tmp_path / ("x" * 5000 + ".yaml"))
    assert "found a file name too long" in err and "characters)" in err
    assert len(err) < 400


def test_the_size_cap_refuses_a_bigger_file_and_the_variable_moves_it(
    tmp_path, capsys, monkeypatch
):
    path = tmp_path / "big.yaml"
    path.write_text("name: x\n" + "# padding\n" * 200)
    monkeypatch.setenv(safeyaml.SIZE_VARIABLE, "1K")
    err = validate_fails(capsys, path)
    assert "found a file of 2,008 bytes; allowed: at most 1,024 bytes" in err
    assert safeyaml.SIZE_VARIABLE in err
    monkeypatch.setenv(safeyaml.SIZE_VARIABLE, "lots")
    assert "COMBATSIM_MAX_FILE_SIZE: got 'lots'" in validate_fails(capsys, path)
    monkeypatch.delenv(safeyaml.SIZE_VARIABLE)
    assert safeyaml.max_file_bytes() == 8 * 1024 * 1024


@pytest.mark.slow
def test_a_two_megabyte_one_line_file_is_read_quickly(tmp_path):
    """Issue 10 item 6 / issue 12: a 2 MB one-line file took 8 s; it is parsed once now."""
    text = "a: [" + ",".join(str(i) for i in range(330_000)) + "]\n"
    assert len(text) > 2_000_000
    started = time.monotonic()
    data, lines = safeyaml.parse_yaml(text, "big.yaml")
    assert time.monotonic() - started < 3 * FAST  # about 0.5 s on two cores
    assert data["a"][-1] == 329_999 and lines[("a", 5)] == 1


def test_duplicate_keys_are_refused_naming_both_lines(tmp_path, capsys, folder):
    path = folder / "sr-bar-brawl.yaml"
    text = path.read_text()
    path.write_text(text.replace("\nturn_limit:", "\nname: again\nturn_limit:", 1))
    err = validate_fails(capsys, path)
    first = text.splitlines().index(next(x for x in text.splitlines() if x.startswith("name:")))
    assert f"found the key 'name' a second time (first on line {first + 1})" in err
    assert f"sr-bar-brawl.yaml:{len(text[: text.index(chr(10) + 'turn_limit:')].splitlines()) + 1}"


@pytest.mark.parametrize(
    "text, expected",
    [
        ("a: !!python/object/apply:os.system [ls]\n", "found the tag tag:yaml.org,2002:python"),
        ("a: !!set {x}\n", "found the tag tag:yaml.org,2002:set"),
        ("a: 1\n---\nb: 2\n", "found a second document"),
        ("? [a]\n: 1\n", "found a list or mapping as a key"),
        ("a: " + "9" * 5000 + "\n", "a valid int (Exceeds the limit"),
        ("a: *nothing\n", "found the undefined alias *nothing"),
        ("a: {<<: 3}\n", "found a << merge of something not a mapping"),
    ],
)
def test_other_hostile_yaml_is_one_line(text, expected):
    with pytest.raises(ScenarioError) as info:
        safeyaml.parse_yaml(text, "x.yaml")
    assert expected in str(info.value) and "\n" not in str(info.value)


@pytest.mark.slow
@settings(max_examples=examples(200), deadline=None)
@given(
    st.recursive(
        st.one_of(
            st.none(),
            st.booleans(),
            st.integers(-(10**30), 10**30),
            st.floats(allow_nan=False),
            st.text(max_size=8),
        ),
        lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=5), inner),
        max_leaves=20,
    ),
    st.sampled_from([None, True]),
)
def test_parsing_once_gives_what_safe_load_gives(data, flow):
    text = yaml.safe_dump(data, default_flow_style=flow)
    assert safeyaml.parse_yaml(text)[0] == yaml.safe_load(text)


def test_anchors_aliases_and_merges_still_work():
    text = "base: &b {skills: {firearms: 4}, race: ork}\nother: {<<: *b, race: troll}\nc: *b\n"
    data, lines = safeyaml.parse_yaml(text)
    assert data == yaml.safe_load(text)
    assert lines[("other", "race")] == 2 and lines[("c",)] == 3


# --- numbers --------------------------------------------------------------------------------------


def break_scenario(folder: Path, old: str, new: str, name="sr-firefight-4v4.yaml") -> Path:
    path = folder / name
    text = path.read_text()
    assert old in text, old
    path.write_text(text.replace(old, new, 1))
    return path


@pytest.mark.parametrize(
    "old, new, field, allowed",
    [
        ("position: [0, 0]", "position: [.nan, 0]", "sides[0].members[0].position[0]", "finite"),
        ("position: [0, 0]", "position: [0, .inf]", "sides[0].members[0].position[1]", "finite"),
        ("position: [0, 0]", "position: [1e6, 0]", "sides[0].members[0].position[0]", "100000"),
        ("spacing: [0, 3]", "spacing: [-.inf, 3]", "sides[1].members[1].spacing[0]", "finite"),
        (
            "{position: [3, 0]",
            "{position: [.nan, 0]",
            "environment.cover_points[0].position[0]",
            "finite",
        ),
        (
            "\nseed: ",
            "\nseed: 99999999999999999999999 #",
            "seed",
            "less than or equal to 18446744073709551615",
        ),
    ],
)
def test_non_finite_and_out_of_range_numbers_are_refused(folder, capsys, old, new, field, allowed):
    err = validate_fails(capsys, break_scenario(folder, old, new))
    assert f": {field}: found " in err and allowed in err, err


@pytest.mark.parametrize(
    "ranges, allowed",
    [
        ("[.nan, 10, 20, 30]", "finite"),
        ("[3, 10, 20, .inf]", "finite"),
        ("[-5, 10, 20, 30]", "greater than 0"),
        ("[0, 10, 20, 30]", "greater than 0"),
    ],
)
def test_weapon_ranges_must_be_finite_and_above_zero(folder, capsys, ranges, allowed):
    break_scenario(
        folder, "ranges: [3, 10, 20, 30]", f"ranges: {ranges}", "catalogues/sr-classic.yaml"
    )
    err = validate_fails(capsys, folder / "catalogues" / "sr-classic.yaml")
    assert "weapons.streetline_special.ranges[" in err and allowed in err


def test_every_float_field_of_every_model_refuses_nan():
    """``allow_inf_nan=False`` everywhere a number is read: no model slips through."""
    from pydantic import BaseModel

    from combatsim.rules.registry import system_class, system_names
    from combatsim.scenario import spec
    from combatsim.tactics.spec import Tactics

    models = [spec.ScenarioFile, spec.MemberSpec, spec.Environment, spec.CoverPoint, Tactics]
    for name in system_names():
        cls = system_class(name)
        models += [m for m in (cls.Options, cls.Sheet, cls.Weapon, cls.Armor, cls.Tactics) if m]
    seen, queue = set(), list(models)
    while queue:
        model = queue.pop()
        if model in seen:
            continue
        seen.add(model)
        assert model.model_config.get("allow_inf_nan") is False, model
        for field in model.model_fields.values():
            for inner in _models_in(field.annotation):
                if issubclass(inner, BaseModel):
                    queue.append(inner)
    assert len(seen) > 30


def _models_in(annotation):
    import typing

    from pydantic import BaseModel

    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        yield annotation
    for arg in typing.get_args(annotation):
        yield from _models_in(arg)


def test_too_many_combatants_are_refused(folder, capsys):
    text = (folder / "sr-bar-brawl.yaml").read_text()
    data = yaml.safe_load(text)
    member = data["sides"][0]["members"][0]
    data["sides"][0]["members"] = [{**member, "name": f"m{i}", "count": 100} for i in range(21)]
    path = folder / "crowd.yaml"
    path.write_text(yaml.safe_dump(data))
    assert "more than 2000 combatants in all" in validate_fails(capsys, path)


def test_what_validates_has_finite_numbers_only():
    for path in SHIPPED:
        scenario = load_scenario(path)
        for fighter in scenario.fighters:
            assert all(math.isfinite(x) for x in fighter.position)


# --- errors in referenced files ---------------------------------------------------------------


def test_an_error_in_a_catalogue_names_it_its_line_and_the_scenario_line(folder, capsys):
    break_scenario(
        folder, "ranges: [3, 10, 20, 30]", "ranges: [3, 10, 20, .nan]", "catalogues/sr-classic.yaml"
    )
    scenario = folder / "sr-firefight-4v4.yaml"
    catalogue_line = next(
        i
        for i, line in enumerate(
            (folder / "catalogues/sr-classic.yaml").read_text().splitlines(), 1
        )
        if ".nan" in line
    )
    scenario_line = next(
        i for i, line in enumerate(scenario.read_text().splitlines(), 1) if "catalogues" in line
    )
    err = validate_fails(capsys, scenario)
    assert (
        f"catalogues/sr-classic.yaml:{catalogue_line}: weapons.streetline_special.ranges[3]" in err
    )
    assert err.rstrip().endswith(f"(referred to by {scenario}:{scenario_line}: catalogues[0])"), err


def test_a_catalogue_that_is_a_device_or_missing_is_refused_at_the_scenario_line(folder, capsys):
    scenario = folder / "sr-firefight-4v4.yaml"
    text = scenario.read_text()
    line = next(i for i, x in enumerate(text.splitlines(), 1) if "catalogues" in x)
    scenario.write_text(text.replace("catalogues/sr-classic.yaml", "/dev/zero", 1))
    err = validate_fails(capsys, scenario)
    assert f"{scenario}:{line}: catalogues[0]: found '/dev/zero'" in err
    assert "a character device" in err
    scenario.write_text(text.replace("catalogues/sr-classic.yaml", '"a\\0b.yaml"', 1))
    assert "(here: a NUL byte in the file name)" in validate_fails(capsys, scenario)


def test_an_error_in_an_action_table_names_it_and_the_scenario_line(folder, capsys):
    table = folder / "table.yaml"
    shipped = (ROOT / "combatsim" / "data" / "action_results_table.yaml").read_text()
    table.write_text(shipped + "\nloop: &t [*t]\n")
    scenario = folder / "lost-souls-junkyard-dogs.yaml"
    text = scenario.read_text()
    data = yaml.safe_load(text)
    data.setdefault("rules", {}).setdefault("options", {})["action_table"] = "table.yaml"
    scenario.write_text(yaml.safe_dump(data, sort_keys=False))
    line = next(
        i for i, x in enumerate(scenario.read_text().splitlines(), 1) if "action_table" in x
    )
    err = validate_fails(capsys, scenario)
    assert "table.yaml:" in err and "inside its own anchor" in err
    assert f"(referred to by {scenario}:{line}: rules.options.action_table)" in err
    os.remove(table)
    os.mkfifo(table)
    err = validate_fails(capsys, scenario)
    assert f"{scenario}:{line}: rules.options.action_table: found 'table.yaml'" in err
    assert "a FIFO" in err


def test_a_sweep_file_is_read_as_untrusted_input_too(tmp_path):
    path = tmp_path / "sweep.yaml"
    path.write_text(BILLION_LAUGHS)
    with pytest.raises(ScenarioError, match="aliases expanding"):
        load_sweep_file(path)
    path.write_text("vary: [{path: turn_limit, values: [1, 2]}]\nvary: []\n")
    with pytest.raises(ScenarioError, match="sweep.yaml:2: vary: found the key 'vary' a second"):
        load_sweep_file(path)
    path.write_text("vary: [{path: turn_limit, values: [1]}]\nprecision: .nan\n")
    with pytest.raises(ScenarioError, match="precision"):
        load_sweep_file(path)


def test_every_shipped_catalogue_still_loads():
    for path in sorted((ROOT / "scenarios" / "catalogues").glob("*.yaml")):
        assert load_catalogue(path)


@pytest.mark.parametrize("value", ["null", "5", "[a]"])
def test_side_tactics_rules_that_are_not_a_mapping_are_one_line(folder, capsys, value):
    """Found by the property above: ``rules: null`` under a side's tactics was a TypeError."""
    old = "tactics: {target: focus, movement: take_cover, dodge: match}"
    path = break_scenario(folder, old, old[:-1] + f", rules: {value}}}")
    if value == "null":  # no rules of its own: as if the key were not there
        assert main(["validate", str(path)]) == 0
        return
    err = validate_fails(capsys, path)
    assert ":27: sides[0].tactics.rules: found " in err


# --- docs/limits.md lists every bound the models hold -------------------------------------------

COLLAPSED = [  # families of fields with one bound, shown once
    (r"effects\.\w+\.\w+\.", "effects.KIND.ASPECT."),
    (r"difficulty\.(cover|visibility)\.\w+", r"difficulty.\1.NAME"),
    (r"circumstances\.(cover|visibility)\.\w+", r"circumstances.\1.NAME"),
    (r"^(cover|visibility|armor_dodge_penalty|armor_speed)\.\w+", r"\1.NAME"),
    (r"range_tn\.\w+", "range_tn.BAND"),
    (r"^ease\.\w+", "ease.BAND"),
]


def bounds_table() -> str:
    """The markdown table of every number a scenario or catalogue file holds and its bounds,
    read from the pydantic models themselves (``docs/limits.md`` must hold it verbatim)."""
    import re
    import types
    import typing

    import annotated_types
    from pydantic import BaseModel

    from combatsim.rules.registry import system_class, system_names
    from combatsim.scenario import spec
    from combatsim.tactics.spec import Tactics

    def number(value) -> str:
        if isinstance(value, float) and value.is_integer():
            value = int(value)
        return f"{value:,}" if abs(value) >= 10_000 else str(value)

    def bounds(kind, metadata) -> str:
        parts = []
        for m in metadata:
            for cls, sign, attr in (
                (annotated_types.Ge, ">=", "ge"),
                (annotated_types.Gt, ">", "gt"),
                (annotated_types.Le, "<=", "le"),
                (annotated_types.Lt, "<", "lt"),
            ):
                if isinstance(m, cls):
                    parts.append(f"{sign} {number(getattr(m, attr))}")
        return ", ".join(parts) or "any"

    def numbers(annotation, metadata=()):
        """``(suffix, kind, bounds)`` of the numbers an annotation holds."""
        origin, args = typing.get_origin(annotation), typing.get_args(annotation)
        if origin is typing.Annotated:
            extra = [m for a in args[1:] for m in getattr(a, "metadata", [a])]
            return numbers(args[0], [*metadata, *extra])
        if annotation in (int, float):
            return [("", annotation.__name__, bounds(annotation, metadata))]
        if origin in (typing.Union, types.UnionType):
            return [n for a in args if a is not type(None) for n in numbers(a, metadata)]
        if origin is tuple and args and args[-1] is not Ellipsis:
            return [("[i]", k, b) for _, k, b in numbers(args[0])]
        if origin is dict:
            return [("{key}", k, b) for _, k, b in numbers(args[0])] + [
                ("{value}", k, b) for _, k, b in numbers(args[1])
            ]
        return []

    rows: list[tuple[str, str, str, str]] = []

    def walk(label, model, prefix):
        for name, field in model.model_fields.items():
            inner = [
                a
                for a in (field.annotation, *typing.get_args(field.annotation))
                if isinstance(a, type) and issubclass(a, BaseModel)
            ]
            for m in inner:
                walk(label, m, f"{prefix}{name}.")
            if not inner:
                for suffix, kind, text in numbers(field.annotation, field.metadata):
                    rows.append((label, f"{prefix}{name}{suffix}", kind, text))

    walk("scenario", spec.ScenarioFile, "")
    walk("tactics", Tactics, "")
    classic = set()
    for system in system_names():
        cls = system_class(system)
        for part in ("Options", "Sheet", "Weapon", "Armor", "Tactics"):
            if getattr(cls, part, None) is not None:
                before = len(rows)
                walk(f"{system} {part.lower()}", getattr(cls, part), "")
                if system == "sr-classic":
                    classic |= {r[1:] for r in rows[before:]}
                if system == "sr-d8":  # the same models as sr-classic but for its options
                    rows[before:] = [r for r in rows[before:] if r[1:] not in classic]
    lines, seen = ["| file, model | field | number | allowed |", "|---|---|---|---|"], set()
    for label, field, kind, text in rows:
        for pattern, replacement in COLLAPSED:
            field = re.sub(pattern, replacement, field)
        if (label, field, kind, text) not in seen:
            seen.add((label, field, kind, text))
            lines.append(f"| {label} | `{field}` | {kind} | {text} |")
    return "\n".join(lines)


def test_docs_limits_lists_every_bound_of_the_models():
    doc = (ROOT / "docs" / "limits.md").read_text(encoding="utf-8")
    table = bounds_table()
    assert table in doc, "docs/limits.md is out of date; paste this table:\n" + table


def test_an_error_in_the_scenario_a_sweep_file_names_notes_the_sweep_line(folder, capsys):
    scenario = break_scenario(folder, "position: [0, 0]", "position: [.nan, 0]")
    sweep = folder / "sweep.yaml"
    sweep.write_text(
        f"battles: 10\nscenario: {scenario.name}\nvary: [{{path: turn_limit, values: [3, 4]}}]\n"
    )
    assert main(["sweep", "--file", str(sweep), "--quiet"]) == 2
    err = one_line(capsys)
    assert "sides[0].members[0].position[0]: found nan" in err
    assert err.rstrip().endswith(f"(referred to by {sweep}:2: scenario)"), err


@pytest.mark.parametrize("kind", ["fifo", "/dev/zero"])
def test_a_sweep_file_that_is_a_fifo_or_device_is_one_line(tmp_path, capsys, kind):
    path = tmp_path / "sweep.yaml"
    if kind == "fifo":
        os.mkfifo(path)
    else:
        path = Path(kind)
    started = time.monotonic()
    assert main(["sweep", "--file", str(path), "--quiet"]) == 2
    assert time.monotonic() - started < FAST
    assert "allowed: a regular file" in one_line(capsys)


def test_without_libyaml_the_pure_python_parser_gives_the_same(monkeypatch):
    """PyYAML built without libyaml: the same data, lines and refusals."""
    with_c = [safeyaml.load_yaml(path) for path in SHIPPED]
    monkeypatch.setattr(safeyaml, "_Loader", yaml.SafeLoader)
    assert [safeyaml.load_yaml(path) for path in SHIPPED] == with_c
    for text in ("a: &r [*r]\n", "a: " + "[" * 3000 + "]" * 3000 + "\n", BILLION_LAUGHS):
        with pytest.raises(ScenarioError):
            safeyaml.parse_yaml(text, "x.yaml")
