"""``combatsim explain``: levers declared by every system, ranked by their paired effect.

The ranking test runs a one-against-one duel built here: Ace (a corp guard with Firearms 1)
shoots at Mark from 15 m with an SMG; nobody moves or carries a grenade. Ace's Firearms is the
lever built to matter; Ace's Throwing cannot matter (nothing is ever thrown): the rule system
says so (``Explainable.unread``), so it is reported "not used by anyone" without a battle.
Every number is from fixed seeds, so these tests are deterministic.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

import pytest

from combatsim.cli import main
from combatsim.commands import run as run_command
from combatsim.engine import run_battle
from combatsim.errors import UsageError
from combatsim.metrics import Metric, parse_metric
from combatsim.rules.levers import Lever, armor_lever, number_lever
from combatsim.scenario import load_scenario
from combatsim.sweeps import api
from combatsim.sweeps import explain as explain_module
from combatsim.sweeps.explain import explain, scenario_levers
from combatsim.sweeps.fields import FieldPath, apply

ROOT = Path(__file__).resolve().parents[1]
CATALOGUE = ROOT / "scenarios" / "catalogues" / "sr-classic.yaml"
SCENARIOS = sorted(p for p in (ROOT / "scenarios").glob("*.yaml"))
BATTLES = 200
SEED = 7


@pytest.fixture
def duel(tmp_path) -> Path:
    path = tmp_path / "duel.yaml"
    path.write_text(
        f"""
name: duel
rules: {{system: sr-classic}}
catalogues: [{CATALOGUE}]
sides:
  - name: shooters
    members:
      - {{name: Ace, archetype: corp_guard, skills: {{firearms: 1}}, position: [0, 0]}}
  - name: targets
    members:
      - {{name: Mark, archetype: corp_guard, position: [15, 0]}}
turn_limit: 10
seed: {SEED}
""",
        encoding="utf-8",
    )
    return path


def _row(result, lever: str) -> dict:
    return next(r for r in result.summary["levers"] if r["lever"] == lever)


def test_explain_ranks_a_lever_that_matters_above_one_that_cannot(duel):
    result = explain(duel, only=["Ace"], battles=BATTLES)
    firearms, throwing = _row(result, "firearms"), _row(result, "throwing")
    assert (firearms["down"], firearms["value"], firearms["up"]) == (0, 1, 2)
    assert firearms["rank"] == 1
    assert firearms["rank"] < throwing["rank"]
    assert firearms["significant_up"] and firearms["difference_up"] > 0.15
    # Nothing is thrown: the system proves it, and no battle of it runs.
    assert throwing["status"] == "not used by anyone" and throwing["battles"] == 0
    for way in ("down", "up"):
        assert throwing[f"difference_{way}"] == 0
        assert throwing[f"p_{way}"] == 1
        assert throwing[f"ci95_{way}"] == [0.0, 0.0]
        assert throwing[f"variant_{way}"] is None
    assert not throwing["significant"]
    ran = [r for r in result.summary["levers"] if r["status"] != "not used by anyone"]
    assert ran and all(r["rank"] < throwing["rank"] for r in ran)
    assert result.table["lever"].tolist()[0] == "firearms"
    assert any("Ace's firearms is worth about" in line for line in result.summary["text"])


@pytest.mark.slow
def test_explain_steps_are_what_compare_measures(duel):
    """On the same seed a step's row is exactly ``compare``'s numbers for that change; on
    another seed, with more battles, compare's estimate lies inside explain's interval (a full
    run: every lever all its battles, at compare's 95%)."""
    result = explain(duel, only=["Ace"], battles=BATTLES, full=True)
    firearms = _row(result, "firearms")
    path = firearms["path"]
    assert path == "sides[0].members[0].skills.firearms"
    same = api.compare(duel, b_sets=[f"{path}=2"], battles=BATTLES)
    shooters = same.summary["differences"][0]
    assert shooters["difference"] == firearms["difference_up"]
    assert shooters["ci95"] == firearms["ci95_up"]
    assert shooters["p_value"] == firearms["p_up"]
    for way, value in (("down", 0), ("up", 2)):
        other = api.compare(duel, b_sets=[f"{path}={value}"], battles=2 * BATTLES, seed=SEED + 1)
        measured = other.summary["differences"][0]["difference"]
        low, high = firearms[f"ci95_{way}"]
        assert low <= measured <= high, (way, measured, low, high)


@pytest.mark.slow
def test_explain_is_the_same_on_any_number_of_workers(duel):
    one = explain(duel, only=["Ace"], battles=30, chunk_size=7)
    two = explain(duel, only=["Ace"], battles=30, workers=2)
    assert one.summary == two.summary
    assert one.table.equals(two.table)


@pytest.mark.slow
def test_explain_metric_draw_and_other_side(duel):
    result = explain(duel, "targets", "loss", only=["Mark"], battles=40)
    assert result.summary["metric"]["name"] == "targets loss"
    assert result.summary["metric"]["describe"] == "the targets' loss rate"
    assert {r["member"] for r in result.summary["levers"]} == {"Mark"}
    draws = explain(duel, metric="draw", only=["Ace"], battles=40)
    assert draws.summary["who"] is None
    assert draws.summary["baseline"]["rate"] == draws.summary["baseline"]["draws"]["rate"]


@pytest.mark.slow
def test_explain_command_writes_tables_summary_and_tornado(duel, tmp_path, capsys):
    out = tmp_path / "out"
    code = main(
        [
            "explain",
            str(duel),
            "--only",
            "Ace",
            "--battles",
            "20",
            "--workers",
            "1",
            "--out",
            str(out),
            "--report",
        ]
    )
    assert code == 0
    text = capsys.readouterr().out
    assert "what decides the shooters' win rate" in text
    assert "Each value ran up to 20 battles" in text
    for name in ("table.csv", "table.parquet", "summary.json", "report.html", "plots/tornado.png"):
        assert (out / name).is_file(), name
    summary = json.loads((out / "summary.json").read_text())
    assert summary["kind"] == "explain" and summary["battles_completed"] == 20
    assert "tornado" in (out / "report.html").read_text()


def test_explain_refuses_unknown_names(duel, capsys):
    assert main(["explain", str(duel), "--metric", "victory", "--battles", "5"]) == 2
    assert "--metric" in capsys.readouterr().err
    assert main(["explain", str(duel), "--only", "Nobody", "--battles", "5"]) == 2
    assert "a side or member of the scenario" in capsys.readouterr().err
    assert main(["explain", str(duel), "--side", "nobody", "--battles", "5"]) == 2


# --- levers -----------------------------------------------------------------------------------


@pytest.mark.slow
@pytest.mark.parametrize("path", SCENARIOS, ids=lambda p: p.name)
def test_every_shipped_scenario_has_levers_whose_steps_validate(path):
    """Each registered system declares levers, and every step is a value the scenario accepts
    (applied through the sweep's field paths and validated again)."""
    scenario = load_scenario(path)
    levers = scenario_levers(scenario)
    assert levers
    kinds = {item.lever.kind for item in levers}
    assert kinds & {"attribute", "skill"}
    assert "armor" in kinds or not any(f.armor for f in scenario.fighters)
    for item in levers:
        for _, value in item.lever.steps:
            from combatsim.rules.levers import scenario_value

            apply(scenario, [(FieldPath.parse(item.path), scenario_value(value))])


def test_number_lever_keeps_to_the_models_bounds():
    scenario = load_scenario(ROOT / "scenarios" / "sr-firefight-4v4.yaml")
    sheet = scenario.sides[0].fighters[0].sheet  # Razor
    firearms = number_lever(sheet, "skills.firearms", "skill")
    assert firearms == Lever("skills.firearms", "firearms", "skill", 6, 5, 7)
    low = sheet.model_copy(update={"karma": 0, "initiative_dice": 5})
    assert number_lever(low, "karma", "karma").down is None
    assert number_lever(low, "initiative_dice", "initiative").up is None  # le=5


def test_armor_lever_steps_one_grade_and_below_the_lowest_is_none():
    from combatsim.scenario import load_catalogue

    armors = load_catalogue(CATALOGUE)["armor"]
    sheet = load_scenario(ROOT / "scenarios" / "sr-firefight-4v4.yaml").sides[0].fighters[0].sheet
    rating = lambda a: (a.ballistic, a.impact)  # noqa: E731 (both, as a system may)
    lever = armor_lever(sheet.model_copy(update={"armor": "armor_vest"}), armors, rating)
    assert (lever.down, lever.up) == ("leathers", "armored_clothing")
    lowest = armor_lever(sheet.model_copy(update={"armor": "leathers"}), armors, rating)
    assert lowest.down == "none" and lowest.up == "armor_vest"
    bare = armor_lever(sheet.model_copy(update={"armor": None}), armors, rating)
    assert (bare.down, bare.up) == (None, "leathers")
    top = armor_lever(sheet.model_copy(update={"armor": "heavy_armor"}), armors, rating)
    assert top.up is None


def test_metrics_turn_a_battle_into_0_or_1():
    class Result:
        def __init__(self, winner):
            self.winner = winner

    win, loss, draw = Metric("win", "a"), Metric("loss", "a"), Metric("draw")
    assert [win(Result(w)) for w in ("a", "b", None)] == [1, 0, 0]
    assert [loss(Result(w)) for w in ("a", "b", None)] == [0, 1, 0]
    assert [draw(Result(w)) for w in ("a", "b", None)] == [0, 0, 1]
    duel = load_scenario(ROOT / "scenarios" / "sr-firefight-4v4.yaml")
    assert parse_metric("win", duel) == Metric("win", "runners")
    assert parse_metric("corp security win", duel) == Metric("win", "corp security")
    assert parse_metric("draw", duel, "runners") == Metric("draw")
    guards = parse_metric("Guard down", duel)
    assert guards.members == {("corp security", f"Guard {k}") for k in (1, 2, 3)}
    assert guards.describe() == "Guard's down rate"
    assert parse_metric("runners dead", duel).describe() == "the runners' dead rate"
    assert Metric("win", "the Armadillo").describe() == "the Armadillo's win rate"
    assert parse_metric("Guard 2 dead", duel).members == {("corp security", "Guard 2")}
    for bad in ("victory", "Guard win", "Nobody down", "runners draw"):
        with pytest.raises(UsageError):
            parse_metric(bad, duel)


@dataclass(frozen=True)
class CtrlCAt:
    """The real engine, but Ctrl-C arrives when a battle with this index starts."""

    index: int

    def __call__(self, scenario, root_seed, index, trace=False):
        if index == self.index:
            raise KeyboardInterrupt
        return run_battle(scenario, root_seed, index, trace)


def _files(folder: Path) -> dict[str, bytes]:
    return {
        p.relative_to(folder).as_posix(): p.read_bytes()
        for p in sorted(folder.rglob("*"))
        if p.is_file()
    }


@pytest.mark.slow
@pytest.mark.parametrize("stop_at", [20, 130])  # in the second round; in the fifth
def test_an_interrupted_explain_resumes_to_the_same_files(
    duel, tmp_path, monkeypatch, capsys, stop_at
):
    monkeypatch.setattr(explain_module, "TOP", 1)  # the duel has one lever that matters
    argv = ["explain", str(duel), "--only", "Ace", "--battles", "200", "--workers", "1"]
    argv += ["--chunk-size", "25", "--records", "battles", "--quiet"]
    whole, resumed = tmp_path / "whole", tmp_path / "resumed"
    assert main([*argv, "--out", str(whole)]) == 0
    stopping = json.loads((whole / "summary.json").read_text())["stopping"]
    assert stopping["looks"] == [13, 25, 50, 100, 150, 200] and stopping["stopped_early"] > 0
    monkeypatch.setattr(run_command, "battle_runner", lambda: CtrlCAt(stop_at))
    assert main([*argv, "--out", str(resumed)]) == 130
    assert "combatsim explain --resume" in capsys.readouterr().err
    assert json.loads((resumed / "summary.json").read_text())["interrupted"] is True
    monkeypatch.setattr(run_command, "battle_runner", lambda: run_battle)
    assert main(["explain", "--resume", str(resumed), "--quiet"]) == 0
    assert _files(resumed) == _files(whole)


@pytest.mark.slow
def test_precision_runs_rounds_until_every_step_is_narrow_enough(duel):
    result = explain(duel, only=["Ace"], battles=50, precision=0.08, chunk_size=50)
    report = result.summary["precision"]
    assert report["reached"] and report["widest"] <= 0.08
    assert result.summary["battles_completed"] > 50
    widest = max(
        max(r[f"difference_{w}"] - r[f"ci95_{w}"][0], r[f"ci95_{w}"][1] - r[f"difference_{w}"])
        for r in result.summary["levers"]
        for w in ("down", "up")
        if r[f"difference_{w}"] is not None
    )
    assert widest <= 0.08


@pytest.mark.slow
def test_casualty_metric_counts_battles_where_who_ends_down(duel):
    """Mark's down rate as written is the share of battles whose combatants.csv row for Mark
    says he is not standing, and the casualties table's down rate for him."""
    from combatsim.sweeps.api import run_one

    result = explain(duel, metric="Mark down", only=["Ace"], battles=40)
    run = run_one(duel, battles=40)
    mark = run.combatants[run.combatants["name"] == "Mark"]
    assert result.summary["baseline"]["rate"] == pytest.approx((~mark["standing"]).mean())
    entry = next(e for e in run.summary["casualties"] if e["who"] == "Mark")
    assert result.summary["baseline"]["rate"] == entry["down_rate"]
    assert result.summary["metric"]["describe"] == "Mark's down rate"
    assert _row(result, "firearms")["difference_up"] > 0


@pytest.mark.slow
def test_explain_builds_its_variants_one_at_a_time(duel, monkeypatch):
    """Every variant is a whole scenario: holding them all takes memory growing with the
    square of the members. With the small-scenario cache off, at most the variant being run
    (and the one being built) is alive at any time, however many there are."""
    import gc
    import weakref

    from combatsim.engine import battle
    from combatsim.sweeps import explain as explain_module

    monkeypatch.setattr(explain_module, "KEPT_FIGHTERS", 0)
    monkeypatch.setattr(battle, "PREPARED_FIGHTERS", 0)
    live, most, built = [], [0], [0]  # weak references to every variant built

    def counting(*args, **kwargs):
        gc.collect()
        most[0] = max(most[0], sum(ref() is not None for ref in live))
        variant = apply(*args, **kwargs)
        live.append(weakref.ref(variant))
        built[0] += 1
        return variant

    monkeypatch.setattr(explain_module, "apply", counting)
    result = explain(duel, only=["Ace"], battles=6, chunk_size=2, workers=1)
    variants = result.summary["variants"] - 1
    assert variants >= 10 and result.summary["battles_completed"] == 6
    assert built[0] >= 2 * variants  # checked once, then built again for each task
    assert most[0] <= 1


def _chunk_of(job, task):
    from combatsim.run.chunks import ChunkBuilder

    chunk = ChunkBuilder(job, task).run()
    return chunk.stop, [t.to_json() for t in chunk.tallies], chunk.battles, chunk.pairs


@pytest.mark.slow
def test_variants_built_on_demand_run_to_the_same_chunk(duel):
    """Run variant by variant (each built once per task), a task of explain's variants gives
    the tallies, records and pairs that running all of them battle by battle gives."""
    from combatsim.run.chunks import Job, Task
    from combatsim.run.tally import Tally
    from combatsim.sweeps.explain import MetricPairing, StepVariants

    base = load_scenario(duel)
    variants = StepVariants(base, scenario_levers(base))
    pairing = MetricPairing(parse_metric("win", base, None))
    seeds = (SEED,) * len(variants)
    lazy = Job(variants, run_battle, seeds, "battles", pairing)
    built = Job(tuple(variants[k] for k in range(len(variants))), run_battle, seeds, "battles")
    built = Job(built.scenarios, run_battle, seeds, "battles", pairing)
    task = Task(tuple(range(len(variants))), 3, 11)
    stop, tallies, battles, pairs = _chunk_of(lazy, task)
    stop2, tallies2, battles2, pairs2 = _chunk_of(built, task)
    assert (stop, battles, pairs) == (stop2, battles2, pairs2) and stop == 11
    assert tallies[0] == tallies2[0]  # the baseline in full
    thin = ("battles", "wins", "draws", "end_reasons", "turns")
    for mine, theirs in zip(tallies[1:], tallies2[1:], strict=True):
        assert {k: mine[k] for k in thin} == {k: theirs[k] for k in thin}
    assert isinstance(variants.empty_tally(1), Tally)


def test_variants_built_on_demand_stopped_part_way_hand_back_nothing(duel):
    from combatsim.run.chunks import ChunkBuilder, Job, Task
    from combatsim.sweeps.explain import MetricPairing, StepVariants

    base = load_scenario(duel)
    variants = StepVariants(base, scenario_levers(base))
    pairing = MetricPairing(parse_metric("win", base, None))
    job = Job(variants, run_battle, (SEED,) * len(variants), "none", pairing)
    calls = iter(range(1000))
    chunk = ChunkBuilder(job, Task(tuple(range(len(variants))), 0, 5)).run(
        stop=lambda: next(calls) > 7
    )
    assert chunk.stop == 0  # no battle index finished for every variant


def test_the_report_table_writes_p_as_the_cli_does_and_keeps_numbers_on_one_line():
    """A p below 0.0001 reads "p < 0.0001" (0.0000 would read as impossible), others
    "p = 0.0123" as combatsim compare prints them; the numbers' cells do not wrap."""
    import re

    from combatsim.report.explain import _html

    lever = {
        "rank": 1,
        "side": "runners",
        "title": "Razor's firearms",
        "down": 4,
        "value": 5,
        "up": 6,
        "rate_down": 0.2,
        "rate": 0.5,
        "rate_up": 0.6,
        "difference_down": -0.3,
        "ci95_down": [-0.35, -0.25],
        "p_down": 1e-12,
        "difference_up": 0.1,
        "ci95_up": [0.02, 0.18],
        "p_up": 0.0123,
    }
    summary = {
        "metric": {"describe": "the runners' win rate"},
        "baseline": {"rate": 0.5, "ci95": [0.45, 0.55]},
        "scenario": "Duel",
        "source": "duel.yaml",
        "system": "sr-classic",
        "seed": 1,
        "text": ["Razor's firearms matter."],
        "note": "Each value ran 100 battles.",
        "levers": [lever],
    }
    page = _html(summary, None)
    assert "-30.0 (-35.0 to -25.0), p &lt; 0.0001" in page
    assert "+10.0 (+2.0 to +18.0), p = 0.0123" in page
    assert "0.0000" not in page
    assert re.search(r"th, td \{[^}]*white-space: nowrap", page)
    assert re.search(r"td\.label \{[^}]*white-space: normal", page)  # names may wrap
