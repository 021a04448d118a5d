"""Sweeps: field paths and values, variants of a real scenario, the grid's table, common random
numbers, the precision stop, sweep files and the ``sweep`` command.

Most runs use ``toy_runner``: a stand-in for the engine that reads the real, validated variant
(each side's head count and armor decide its odds) and draws only from
``battle_rng(root_seed, index)``, so a sweep of thousands of battles takes milliseconds and
still reacts to every varied field the way a battle would. A few tests run the real engine on
a small scenario. The toy scenario and its catalogue are written by ``toy_files`` so these
tests do not depend on the shipped catalogue's names. The helpers are imported by the other
sweep-layer tests (compare, balance, report, resume, dask).
"""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest

import combatsim
from combatsim.cli import main
from combatsim.commands import run as run_command
from combatsim.engine.records import TURN_LIMIT, VICTORY, BattleResult
from combatsim.errors import CombatsimError, ScenarioError, UsageError
from combatsim.rng import battle_rng
from combatsim.scenario import load_scenario
from combatsim.sweeps import api
from combatsim.sweeps.fields import (
    FieldPath,
    Inheritance,
    Name,
    grid,
    load_sweep_file,
    parse_values,
    parse_vary,
)

CATALOGUE = """\
system: sr-classic
weapons:
  pistol: {kind: firearm, damage: 4M4, ranges: [5, 15, 30, 50], ammo: 12}
  rifle: {kind: firearm, damage: 6M4, ranges: [50, 150, 350, 550], ammo: 30, autofire: true}
  smg: {kind: firearm, damage: 4M4, ranges: [10, 40, 80, 150], ammo: 30, autofire: true}
armor:
  vest: {ballistic: 2, impact: 1}
  jacket: {ballistic: 4, impact: 2}
  heavy: {ballistic: 6, impact: 4}
archetypes:
  merc:
    attributes: {body: 5, quickness: 4, strength: 4, reaction: 4}
    skills: {firearms: 5, armed_combat: 3}
    weapons: [rifle, pistol]
    armor: vest
  guard:
    attributes: {body: 4, quickness: 4, strength: 4, reaction: 4}
    skills: {firearms: 4}
    weapons: [smg]
    armor: vest
"""

SCENARIO = """\
name: Toy standoff
rules: {system: sr-classic}
catalogues: [catalogue.yaml]
sides:
  - name: runners
    members:
      - {name: Ace, archetype: merc, position: [0, 0]}
      - {name: Brick, archetype: merc, position: [0, 3]}
  - name: guards
    members:
      - {name: Guard, archetype: guard, count: 2, position: [20, 0], spacing: [0, 3]}
turn_limit: 12
seed: 77
"""


def toy_files(folder: Path) -> Path:
    """Write the toy scenario and its catalogue into ``folder``; return the scenario's path."""
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "catalogue.yaml").write_text(CATALOGUE)
    path = folder / "toy.yaml"
    path.write_text(SCENARIO)
    return path


def toy_runner(scenario, root_seed: int, index: int, trace: bool = False) -> BattleResult:
    """A battle decided by head count and armor: side strength = fighters + ballistic / 4."""
    rng = battle_rng(root_seed, index)
    sides = [side.name for side in scenario.sides]
    strength = [
        sum(1 + (f.armor.ballistic if f.armor is not None else 0) / 4 for f in side.fighters)
        for side in scenario.sides
    ]
    u, turns = rng.random(), int(rng.integers(1, scenario.turn_limit + 1))
    if u < 0.04:
        winner, end, turns = None, TURN_LIMIT, scenario.turn_limit
    else:
        winner = sides[0] if u < 0.04 + 0.96 * strength[0] / sum(strength) else sides[1]
        end = VICTORY
    combatants, survivors = [], {}
    for side in scenario.sides:
        up = 0
        for fighter in side.fighters:
            standing = winner is None or (side.name == winner and rng.random() < 0.7)
            out_turn = None if standing else int(rng.integers(1, turns + 1))
            damage = int(rng.integers(0, 4 if standing else 12))
            up += standing
            combatants.append(
                {
                    "battle": index,
                    "name": fighter.name,
                    "side": side.name,
                    "status": "ok" if standing else ("dead" if damage >= 10 else "down"),
                    "standing": standing,
                    "knocked_out_turn": out_turn,
                    "damage_taken": damage,
                }
            )
        survivors[f"survivors_{side.name}"] = up
    row = {"battle": index, "winner": winner or "draw", "end_reason": end, "turns": turns}
    return BattleResult(index, winner, end, turns, {**row, **survivors}, combatants)


@pytest.fixture
def toy(tmp_path) -> Path:
    return toy_files(tmp_path / "scenarios")


@pytest.fixture
def cli_toy(monkeypatch):
    """The commands run ``toy_runner`` instead of the engine."""
    monkeypatch.setattr(run_command, "battle_runner", lambda: toy_runner)


def one_error_line(capsys) -> str:
    err = capsys.readouterr().err
    assert "Traceback" not in err
    assert err.count("\n") == 1, err
    return err


# --- field paths ------------------------------------------------------------------------------


def test_a_field_path_is_keys_positions_names_and_wildcards():
    path = FieldPath.parse("sides[1].members[Sergeant Tanaka].skills.firearms")
    assert path.steps == ("sides", 1, "members", Name("Sergeant Tanaka"), "skills", "firearms")
    assert FieldPath.parse("sides[*].members[0].count").steps == (
        "sides",
        "*",
        "members",
        0,
        "count",
    )
    assert FieldPath.parse("sides['corp security']").steps == ("sides", Name("corp security"))


@pytest.mark.parametrize("text", ["", "sides[0", "sides..name", "sides[]", "1sides", "a.b c"])
def test_a_malformed_field_path_is_refused(text):
    with pytest.raises(UsageError, match="^field path: "):
        FieldPath.parse(text)


DATA = {
    "turn_limit": 20,
    "sides": [
        {"name": "runners", "members": [{"name": "Ace", "weapons": ["rifle", "pistol"]}]},
        {"name": "guards", "members": [{"name": "Guard", "count": 2}, {"name": "Boss"}]},
    ],
}


def set_in(path: str, value, data=None, inherit=None):
    data = json.loads(json.dumps(DATA if data is None else data))
    FieldPath.parse(path).set(data, value, inherit)
    return data


def test_setting_a_field_by_position_name_and_wildcard():
    assert set_in("turn_limit", 5)["turn_limit"] == 5
    data = set_in("sides[0].members[0].weapons[0]", "smg")
    assert data["sides"][0]["members"][0]["weapons"] == ["smg", "pistol"]
    data = set_in("sides[guards].members[Boss].armor", "heavy")
    assert data["sides"][1]["members"][1] == {"name": "Boss", "armor": "heavy"}
    data = set_in("sides[1].members[*].armor", "vest")
    assert [m["armor"] for m in data["sides"][1]["members"]] == ["vest", "vest"]


def test_missing_mapping_keys_are_created():
    data = set_in("rules.options.wound_modifiers", False)
    assert data["rules"] == {"options": {"wound_modifiers": False}}
    data = set_in("sides[0].members[0].skills.firearms", 6)
    assert data["sides"][0]["members"][0]["skills"] == {"firearms": 6}


@pytest.mark.parametrize(
    ("path", "why"),
    [
        ("sides[2].name", "sides has 2 items, so [2] is not one of them"),
        ("sides[guards].members[Tiny].count", "has no item named 'Tiny' (Guard, Boss)"),
        ("turn_limit.value", "turn_limit is not a mapping"),
        ("sides.name", "sides is not a mapping"),
        ("turn_limit[0]", "turn_limit is not a list"),
        ("sides[1].members[0].weapons[0]", "sides[1].members[0].weapons is not in the scenario"),
    ],
)
def test_a_path_that_is_not_in_the_scenario_says_why(path, why):
    with pytest.raises(UsageError) as err:
        set_in(path, 1)
    assert why in str(err.value) and str(err.value).startswith(f"field path: got '{path}'")


def test_a_member_inherits_the_field_from_its_archetype_before_it_is_changed(tmp_path):
    scenario = load_scenario(toy_files(tmp_path))
    data = json.loads(json.dumps(scenario.data))
    inherit = Inheritance(data, tmp_path)
    FieldPath.parse("sides[runners].members[Ace].weapons[0]").set(data, "smg", inherit)
    FieldPath.parse("sides[runners].members[Ace].skills.firearms").set(data, 6, inherit)
    ace = data["sides"][0]["members"][0]
    assert ace["weapons"] == ["smg", "pistol"]  # the archetype's pistol stays
    assert ace["skills"] == {"firearms": 6, "armed_combat": 3}
    assert "weapons" not in data["sides"][0]["members"][1]  # Brick is untouched


# --- values and varies ------------------------------------------------------------------------


def test_values_are_yaml_ranges_and_steps():
    assert parse_values("ak97, fn_har") == [("ak97", "ak97"), ("fn_har", "fn_har")]
    assert parse_values("2..5") == [(2, 2), (3, 3), (4, 4), (5, 5)]
    assert parse_values("0..12/4") == [(0, 0), (4, 4), (8, 8), (12, 12)]
    assert parse_values("on,off") == [("on", True), ("off", False)]
    assert parse_values("[rifle, pistol],[smg]") == [
        ("[rifle, pistol]", ["rifle", "pistol"]),
        ("[smg]", ["smg"]),
    ]
    assert parse_values("1.5,3") == [(1.5, 1.5), (3, 3)]


@pytest.mark.parametrize("text", ["a,,b", "6..2", "1..4/0", "[a, b", ""])
def test_bad_values_are_refused(text):
    with pytest.raises(UsageError):
        parse_values(text)


def test_a_vary_has_an_optional_name_and_brackets_may_hold_anything():
    vary = parse_vary("guards:sides[corp security].members[Guard].count=1..3")
    assert vary.name == "guards" and vary.labels == [1, 2, 3]
    assert vary.path.steps[1] == Name("corp security")
    unnamed = parse_vary("sides[0].members[0].armor=vest,heavy")
    assert unnamed.name == "sides[0].members[0].armor"


@pytest.mark.parametrize("spec", ["sides[0].armor", "=a,b", ":turn_limit=5", "x=a,a"])
def test_a_bad_vary_is_refused(spec):
    with pytest.raises(UsageError):
        parse_vary(spec)


# --- variants ---------------------------------------------------------------------------------


def test_the_grid_builds_every_combination_first_vary_slowest(toy):
    base = load_scenario(toy)
    variants = grid(
        base,
        [
            parse_vary("guards:sides[guards].members[Guard].count=1..3"),
            parse_vary("armor:sides[guards].members[*].armor=vest,heavy"),
        ],
    )
    assert [v.values for v in variants] == [
        {"guards": g, "armor": a} for g in (1, 2, 3) for a in ("vest", "heavy")
    ]
    heavy3 = variants[5].scenario
    guards = heavy3.sides[1].fighters
    assert len(guards) == 3 and {f.armor.ballistic for f in guards} == {6}
    assert base.sides[1].fighters[0].armor.ballistic == 2  # the base is untouched
    assert variants[0].scenario.seed == base.seed == 77


def test_a_bad_value_names_the_variant_and_the_field(toy):
    base = load_scenario(toy)
    with pytest.raises(CombatsimError) as err:
        grid(base, [parse_vary("weapon:sides[0].members[Ace].weapons[0]=smg,laser")])
    text = str(err.value)
    assert text.startswith("variant weapon=laser: ")
    assert "sides[0].members[0].weapons[0]: found 'laser'" in text
    with pytest.raises(CombatsimError, match="count"):
        grid(base, [parse_vary("sides[1].members[0].count=0,1")])


# --- the sweep --------------------------------------------------------------------------------

VARY = [
    "guards:sides[guards].members[Guard].count=1..3",
    "armor:sides[0].members[*].armor=vest,heavy",
]


def test_the_sweep_table_has_a_row_per_variant_with_rates_and_intervals(toy):
    result = combatsim.sweep(toy, VARY, battles=400, runner=toy_runner)
    table = result.table  # long: a row per variant and side
    assert list(table[["guards", "armor", "side"]].itertuples(index=False, name=None)) == [
        (g, a, s) for g in (1, 2, 3) for a in ("vest", "heavy") for s in ("runners", "guards")
    ]
    assert list(table.columns[:6]) == ["variant", "baseline", "guards", "armor", "side", "battles"]
    # the file's own 2 guards in vests is one of the grid's rows: marked, not run twice
    assert list(table["baseline"]) == [False] * 4 + [True] * 2 + [False] * 6
    assert {"wins", "win_rate", "win_ci_low", "win_ci_high"} <= set(table.columns)
    assert (table["battles"] == 400).all()
    wins = table.groupby("variant")["wins"].sum() + table.groupby("variant")["draws"].first()
    assert (wins == 400).all()
    assert (table["win_ci_low"] <= table["win_rate"]).all()
    # More guards make the runners lose more often (head count is what the toy fight is about).
    runners = table[(table["armor"] == "vest") & (table["side"] == "runners")]
    by_guards = runners["win_rate"].tolist()
    assert by_guards[0] > by_guards[1] > by_guards[2]
    assert result.summary["kind"] == "sweep" and len(result.summary["variants"]) == 6


def test_the_scenario_as_written_is_a_marked_row_when_the_grid_misses_it(toy, cli_toy, capsys):
    """The baseline: the file's own values (a member's armor from its archetype) on the same
    battle seeds, last, so the grid's variant numbers stay as they were."""
    result = combatsim.sweep(
        toy,
        ["armor:sides[runners].members[*].armor=jacket,heavy", "turn_limit=8,10"],
        battles=100,
        runner=toy_runner,
    )
    table = result.table[result.table["side"] == "runners"]  # a row per variant
    assert list(table["variant"]) == [0, 1, 2, 3, 4]
    assert list(table["baseline"]) == [False] * 4 + [True]
    assert table.iloc[4][["armor", "turn_limit"]].tolist() == ["vest", 12]
    assert result.summary["baseline"] == {"variant": 4, "in_grid": False}
    assert [v["baseline"] for v in result.summary["variants"]] == [False] * 4 + [True]
    again = combatsim.sweep(toy, ["turn_limit=12"], battles=100, runner=toy_runner)
    as_written = table.drop(columns=["variant", "baseline", "armor", "turn_limit"]).iloc[4]
    same = again.table.drop(columns=["variant", "baseline", "turn_limit"])
    same = same[same["side"] == "runners"].iloc[0]
    assert (as_written == same).all()


def test_a_field_with_several_values_as_written_is_left_empty(toy, tmp_path, cli_toy, capsys):
    text = toy.read_text().replace(
        "archetype: merc, position: [0, 3]", "archetype: merc, position: [0, 3], armor: jacket"
    )
    toy.write_text(text)
    out = tmp_path / "out"
    argv = ["sweep", str(toy), "--vary", "sides[runners].members[*].armor=heavy", "--battles", "20"]
    assert main([*argv, "--out", str(out), "--workers", "1"]) == 0
    table = pd.read_csv(out / "table.csv")
    table = table[table["side"] == "runners"]
    assert table["baseline"].tolist() == [False, True]
    assert table["sides_runners_members_armor"].isna().tolist() == [False, True]
    printed = capsys.readouterr().out
    assert "1 variant and the scenario as written" in printed
    assert printed.splitlines()[-4].split()[:3] == ["as", "written", "*"]


def test_every_variant_runs_the_same_battle_seeds(toy):
    """Common random numbers: a field the battle does not read leaves every number as it was."""
    result = combatsim.sweep(
        toy, {"description": ["one", "two", "three"]}, battles=300, runner=toy_runner
    )
    columns = [c for c in result.table.columns if c not in ("variant", "description")]
    rows = [part[columns].reset_index(drop=True) for _, part in result.table.groupby("variant")]
    assert rows[0].equals(rows[1]) and rows[0].equals(rows[2])
    again = api.sweep(load_scenario(toy), ["turn_limit=12"], battles=300, runner=toy_runner)
    assert again.summary["variants"][0]["sides"] == result.summary["variants"][0]["sides"]


def test_records_stay_in_memory_with_a_variant_column(toy):
    result = combatsim.sweep(toy, VARY[:1], battles=20, records="all", runner=toy_runner)
    assert list(result.battles["variant"].unique()) == [0, 1, 2]
    assert len(result.battles) == 60
    assert result.battles.columns[0] == "variant"
    assert len(result.combatants[result.combatants["variant"] == 2]) == 20 * 5
    none = combatsim.sweep(toy, VARY[:1], battles=20, runner=toy_runner)
    assert none.battles is None and none.combatants is None


@pytest.mark.slow
def test_a_sweep_is_the_same_whatever_the_workers_and_chunks(toy, tmp_path):
    kwargs = {"battles": 300, "runner": toy_runner, "records": "all"}
    one = api.sweep(toy, VARY, workers=1, chunk_size=1000, out=tmp_path / "one", **kwargs)
    two = api.sweep(toy, VARY, workers=2, chunk_size=45, out=tmp_path / "two", **kwargs)
    assert one.complete and two.complete
    names = sorted(p.relative_to(tmp_path / "one").as_posix() for p in one.files)
    assert names == sorted(p.relative_to(tmp_path / "two").as_posix() for p in two.files)
    for name in names:
        assert (tmp_path / "one" / name).read_bytes() == (tmp_path / "two" / name).read_bytes()
    assert not (tmp_path / "one" / ".combatsim").exists()  # the journal goes once complete
    pd.testing.assert_frame_equal(pd.read_parquet(tmp_path / "one" / "table.parquet"), one.table)


def test_sweep_records_per_variant_match_a_run_of_that_variant(toy, tmp_path):
    api.sweep(toy, VARY[:1], battles=50, runner=toy_runner, records="all", out=tmp_path / "s")
    variant = grid(load_scenario(toy), [parse_vary(VARY[0])])[1].scenario
    single = combatsim.simulate(variant, 50, runner=toy_runner)
    battles = pd.read_csv(tmp_path / "s" / "records" / "0001" / "battles.csv")
    pd.testing.assert_frame_equal(battles, single.battles, check_dtype=False)


# --- the precision stop -----------------------------------------------------------------------


def test_precision_runs_until_every_interval_is_within_the_target(toy):
    result = api.sweep(toy, VARY[:1], battles=100, precision=0.03, chunk_size=50, runner=toy_runner)
    report = result.summary["precision"]
    assert report["reached"] and report["widest"] <= 0.03
    for variant in result.summary["variants"]:
        widest = max(
            max(s["win_rate"] - s["ci95"][0], s["ci95"][1] - s["win_rate"])
            for s in variant["sides"].values()
        )
        assert widest <= 0.03
        # ... and not much more: about z^2 p(1-p) / P^2 battles, rounded up to a chunk.
        assert variant["battles_completed"] <= 1.5 * 1.96**2 * 0.25 / 0.03**2
        assert variant["battles_completed"] % 50 == 0


def test_precision_stops_at_the_same_battle_whatever_the_workers(toy):
    kwargs = {"battles": 100, "precision": 0.04, "chunk_size": 30, "runner": toy_runner}
    one = api.sweep(toy, VARY[:1], workers=1, **kwargs)
    two = api.sweep(toy, VARY[:1], workers=2, **kwargs)
    assert one.summary == two.summary


def test_precision_not_reached_by_the_battle_limit_says_so(toy):
    result = api.sweep(
        toy, VARY[:1], battles=100, precision=0.01, max_battles=400, runner=toy_runner
    )
    assert result.summary["precision"]["reached"] is False
    assert set(result.table["battles"]) == {400}


def test_a_first_round_precise_enough_runs_no_more(toy):
    result = api.sweep(toy, VARY[:1], battles=2000, precision=0.1, runner=toy_runner)
    assert set(result.table["battles"]) == {2000}


# --- sweep files ------------------------------------------------------------------------------


def test_a_sweep_file_gives_the_scenario_varies_and_defaults(toy):
    sweep_file = toy.parent.parent / "sweeps" / "guards.yaml"
    sweep_file.parent.mkdir()
    sweep_file.write_text(
        "scenario: ../scenarios/toy.yaml\nbattles: 250\nvary:\n"
        "  - {name: guards, path: 'sides[guards].members[Guard].count', values: '1..2'}\n"
        "  - {path: 'sides[0].members[*].armor', values: [vest, heavy]}\n"
    )
    spec = load_sweep_file(sweep_file)
    assert Path(spec.scenario).resolve() == toy.resolve()  # relative to the sweep file
    assert [v.name for v in spec.varies] == ["guards", "sides[0].members[*].armor"]
    assert spec.varies[0].labels == [1, 2] and spec.battles == 250


def test_a_bad_sweep_file_names_the_file_field_and_line(tmp_path):
    path = tmp_path / "bad.yaml"
    path.write_text("vary:\n  - path: 'sides[0'\n    values: [1]\n")
    with pytest.raises(ScenarioError) as err:
        load_sweep_file(path)
    assert str(err.value).startswith(f"{path}:2: vary[0].path: found 'sides[0'")
    path.write_text("vary:\n  - {path: turn_limit, values: [1]}\nbatles: 3\n")
    with pytest.raises(ScenarioError, match="unknown key 'batles'"):
        load_sweep_file(path)


# --- the command ------------------------------------------------------------------------------


def test_sweep_command_writes_the_table_and_prints_it(toy, cli_toy, capsys, tmp_path):
    out = tmp_path / "out"
    argv = ["sweep", str(toy), "--vary", VARY[0], "--vary", VARY[1], "--battles", "200"]
    assert main([*argv, "--out", str(out), "--workers", "1"]) == 0
    printed = capsys.readouterr().out
    assert "6 variants, seed 77" in printed and "* marks the scenario as written" in printed
    assert printed.splitlines()[4].split()[:4] == ["guards", "armor", "battles", "runners"]
    assert printed.splitlines()[7].split()[:3] == ["2", "*", "vest"]
    files = "table.csv, table.parquet, casualties.csv, casualties.parquet, summary.json"
    assert f"results in {out}: {files}" in printed
    table = pd.read_csv(out / "table.csv")
    # a row per variant and side: 3 x 2 variants, 2 sides
    assert len(table) == 12 and list(table["guards"]) == [1] * 4 + [2] * 4 + [3] * 4
    summary = json.loads((out / "summary.json").read_text())
    assert summary["vary"][0] == {
        "name": "guards",
        "path": "sides[guards].members[Guard].count",
        "values": [1, 2, 3],
    }


def test_sweep_command_with_a_file(toy, cli_toy, tmp_path, capsys):
    sweep_file = tmp_path / "grid.yaml"
    sweep_file.write_text(
        f"scenario: {toy.relative_to(tmp_path)}\nseed: 5\nvary:\n"
        "  - {path: 'sides[guards].members[Guard].count', values: [1, 3]}\n"
    )
    out = tmp_path / "out"
    assert (
        main(["sweep", "--file", str(sweep_file), "--battles", "50", "--out", str(out), "--quiet"])
        == 0
    )
    summary = json.loads((out / "summary.json").read_text())
    assert summary["seed"] == 5 and summary["battles_requested"] == 50
    assert capsys.readouterr().out == ""


@pytest.mark.parametrize(
    ("vary", "start"),
    [
        ("sides[5].name=x", "combatsim: error: field path: got 'sides[5].name'; allowed: a field"),
        ("sides[0].members[Nobody].count=2", "combatsim: error: field path: got "),
        ("sides[0].members[0].weapons[0]=laser", "combatsim: error: variant "),
        ("turn_limit", "combatsim: error: --vary: got 'turn_limit'"),
    ],
)
def test_sweep_command_errors_are_one_line_and_exit_2(toy, cli_toy, capsys, tmp_path, vary, start):
    argv = ["sweep", str(toy), "--vary", vary, "--out", str(tmp_path / "o"), "--battles", "5"]
    assert main(argv) == 2
    err = one_error_line(capsys)
    assert err.startswith(start), err


def test_sweep_command_needs_a_scenario_and_a_vary(toy, cli_toy, capsys):
    with pytest.raises(SystemExit) as exit_:
        main(["sweep"])
    assert exit_.value.code == 2
    assert one_error_line(capsys).startswith("combatsim sweep: error: ")
    assert main(["sweep", str(toy)]) == 2
    assert "at least one" in one_error_line(capsys)


# --- the real engine --------------------------------------------------------------------------


@pytest.mark.slow
def test_a_real_sweep_is_byte_identical_on_one_and_two_workers(toy, tmp_path):
    """The engine itself, two fields varied: the same files on 1 and on 2 processes."""
    argv = [
        "sweep",
        str(toy),
        "--vary",
        "weapon:sides[runners].members[*].weapons[0]=rifle,smg",
        "--vary",
        "armor:sides[guards].members[Guard].armor=vest,heavy",
        "--battles",
        "40",
        "--chunk-size",
        "15",
        "--records",
        "all",
        "--quiet",
    ]
    assert main([*argv, "--workers", "1", "--out", str(tmp_path / "one")]) == 0
    assert main([*argv, "--workers", "2", "--out", str(tmp_path / "two")]) == 0
    files = sorted(p.relative_to(tmp_path / "one") for p in (tmp_path / "one").rglob("*.*"))
    # summary, table and casualties files and the manifest; records (the scenario as
    # written, rifle and vest, is one of the grid's variants)
    assert len(files) == 6 + 4 * 2
    for name in files:
        assert (tmp_path / "one" / name).read_bytes() == (tmp_path / "two" / name).read_bytes()
    table = pd.read_csv(tmp_path / "one" / "table.csv")
    # Heavy armor on the guards should not make the runners win more (a real engine, not luck:
    # the same battle seeds for both armors).
    runners = table[table["side"] == "runners"]
    vest = runners[runners["armor"] == "vest"]["win_rate"].to_numpy()
    heavy = runners[runners["armor"] == "heavy"]["win_rate"].to_numpy()
    assert (heavy <= vest).all()


@pytest.mark.slow
def test_a_new_run_in_the_same_folder_leaves_nothing_stale_and_nothing_foreign_is_touched(
    toy, tmp_path
):
    out = tmp_path / "out"
    api.sweep(toy, VARY[:1], battles=20, records="all", runner=toy_runner, out=out)
    from combatsim.report import render_report

    render_report(out)
    (out / "notes.txt").write_text("mine")
    (out / "plots" / "sketch.png").write_bytes(b"mine")
    api.sweep(
        toy,
        ["guards:sides[guards].members[Guard].count=1..2"],
        battles=20,
        runner=toy_runner,
        out=out,
        force=True,  # write beside the user's files
    )
    left = sorted(p.relative_to(out).as_posix() for p in out.rglob("*"))
    assert left == [
        ".combatsim-files.json",
        "casualties.csv",
        "casualties.parquet",
        "notes.txt",
        "plots",
        "plots/sketch.png",
        "summary.json",
        "table.csv",
        "table.parquet",
    ]


# --- memory -----------------------------------------------------------------------------------


@pytest.mark.slow
def test_memory_does_not_grow_with_the_number_of_battles(toy, tmp_path):
    """Tallies are merged as chunks finish and nothing is kept per chunk: ten times the
    battles (1,000 chunks instead of 100) take no more memory. Were every chunk's tally held
    to the end of the run, the larger run would need about 2 MB more."""
    import tracemalloc

    scenario = load_scenario(toy)

    def peak(battles: int) -> int:
        tracemalloc.start()
        api.run_one(
            scenario,
            battles=battles,
            records="none",
            runner=toy_runner,
            chunk_size=10,
            out=tmp_path / str(battles),
        )
        peak = tracemalloc.get_traced_memory()[1]
        tracemalloc.stop()
        return peak

    peak(200)  # first use: imports, caches
    small, large = peak(1000), peak(10_000)
    assert large < small + 300_000, (small, large)


def test_a_rules_option_and_a_skill_can_be_varied(toy):
    base = load_scenario(toy)
    variants = grid(
        base,
        [
            parse_vary("wounds:rules.options.wound_modifiers=on,off"),
            parse_vary("skill:sides[runners].members[Ace].skills.firearms=3,6"),
        ],
    )
    assert [v.values for v in variants][:2] == [
        {"wounds": "on", "skill": 3},
        {"wounds": "on", "skill": 6},
    ]
    options = [v.scenario.system.options.wound_modifiers for v in variants]
    assert options == [True, True, False, False]
    ace = [v.scenario.sides[0].fighters[0].sheet.skills for v in variants[:2]]
    assert [s.firearms for s in ace] == [3, 6] and {s.armed_combat for s in ace} == {3}
