"""The single-run report's section "Exact odds of one attack": the attacks the tactics used
most (``attacks.csv``), each with the exact chances of one such attack from
``combatsim.exact`` and the target's sampled casualty rates, or a short reason."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from combatsim.api import simulate
from combatsim.cli import main
from combatsim.exact.attack import attack_odds
from combatsim.report import render_report
from combatsim.report.attacks import TOP_PAIRS, exact_attack_rows, report_rows, within_reach
from combatsim.scenario import load_scenario
from tests.test_report import plain

ROOT = Path(__file__).resolve().parents[1]


def _run(name: str, tmp_path: Path, battles: int = 120) -> tuple[Path, dict]:
    out = tmp_path / name
    simulate(ROOT / "scenarios" / f"{name}.yaml", battles, workers=1, quiet=True, out=out)
    return out, json.loads((out / "summary.json").read_text())


@pytest.mark.slow
def test_run_report_shows_the_exact_odds_of_the_attacks_used_most(tmp_path, capsys):
    out = tmp_path / "run"
    scenario = ROOT / "scenarios" / "lost-souls-warehouse-raid.yaml"
    code = main(["run", str(scenario), "--battles", "150", "--out", str(out), "--report"])
    assert code == 0
    assert "attacks.csv" in capsys.readouterr().out
    page = plain((out / "report.html").read_text(encoding="utf-8"))
    section = page.split("Exact odds of one attack</h2>", 1)[1].split("<h2>", 1)[0]
    assert "start situation" in section
    rows = re.findall(r"<tr><td class='label'>.*?</tr>", section)
    lines = (out / "attacks.csv").read_text().splitlines()
    assert len(rows) == min(TOP_PAIRS, len(lines) - 1)
    first = lines[1].split(",")  # the most used attack leads the table
    assert first[0] in rows[0] and first[2] in rows[0] and f"<td>{int(first[7]):,}</td>" in rows[0]
    summary = json.loads((out / "summary.json").read_text())
    odds = attack_odds(load_scenario(scenario), first[0], first[2], first[4], int(first[6]))
    hit = odds.p(lambda o: o.hit)
    assert f"<td title='{hit.numerator}/{hit.denominator}'>{float(hit):.1%}</td>" in rows[0]
    target = next(c for c in summary["casualties"] if c["who"] == first[2])
    assert f"{target['down_rate']:.1%} <small>" in rows[0]


@pytest.mark.slow
def test_each_row_has_the_exact_chances_or_a_reason_and_the_targets_sampled_rates(tmp_path):
    out, summary = _run("sr-grenade-ambush", tmp_path)
    rows = report_rows(summary, out)
    assert rows is not None and len(rows) == TOP_PAIRS
    reasons = {r["reason"].split(":")[0] for r in rows if "reason" in r}
    assert "a grenade" in reasons  # a blast is not one attack on one target
    for r in rows:
        if "reason" not in r:
            assert 0 <= r["p_dead"] <= r["p_down"] <= r["p_hit"] <= 1
        if r["target"] is not None:
            assert r["down_rate"] is not None and r["dead_rate"] <= r["down_rate"]


def test_a_question_past_the_path_limit_gets_a_short_reason_not_a_wait():
    scenario = load_scenario(ROOT / "scenarios" / "sr-firefight-4v4.yaml")
    pair = {
        "attacker": "Sergeant Tanaka",
        "attacker_side": "corp security",
        "target": "Razor",
        "target_side": "runners",
        "weapon": "hk227",
        "weapon_kind": "firearm",
        "shots": 3,
        "attacks": 7,
    }
    (row,) = exact_attack_rows(scenario, [pair], None, limit=500)
    assert row["reason"] == "more than 500 ways for the dice to fall: too costly"
    assert row["down_rate"] is None and row["attacks"] == 7
    (unread,) = exact_attack_rows(None, [pair], None)
    assert unread["reason"] == "the scenario file could not be read again"


def test_a_melee_attack_is_answered_with_the_attacker_moved_in_to_reach(tmp_path):
    out, summary = _run("sr-bar-brawl", tmp_path, battles=60)
    rows = report_rows(summary, out)
    assert rows and all("reason" not in r and r["closed_in"] > 0 for r in rows)
    scenario = load_scenario(ROOT / "scenarios" / "sr-bar-brawl.yaml")
    first = rows[0]
    moved, closed = within_reach(scenario, first["attacker"], first["target"])
    assert closed == {"closed_in": first["closed_in"]}
    specs = {f.name: f for f in moved.fighters}
    a, t = specs[first["attacker"]], specs[first["target"]]
    gap = ((a.position[0] - t.position[0]) ** 2 + (a.position[1] - t.position[1]) ** 2) ** 0.5
    assert gap <= moved.environment.melee_range
    assert [f.name for f in moved.fighters] == [f.name for f in scenario.fighters]
    assert within_reach(moved, first["attacker"], first["target"]) == (moved, {})


@pytest.mark.slow
def test_the_section_reads_the_scenario_with_the_runs_sets(tmp_path):
    out = tmp_path / "set"
    scenario = ROOT / "scenarios" / "lost-souls-warehouse-raid.yaml"
    simulate(
        scenario, 60, workers=1, quiet=True, out=out, sets=["environment.visibility=full_darkness"]
    )
    summary = json.loads((out / "summary.json").read_text())
    assert summary["sets"]
    dark, bright = report_rows(summary, out), report_rows({**summary, "sets": []}, out)
    assert dark and bright
    assert [r.get("p_hit") for r in dark] != [r.get("p_hit") for r in bright]


@pytest.mark.parametrize("kind", ["missing", "unreadable"])
def test_without_attacks_or_its_scenario_the_report_still_renders(tmp_path, kind):
    out, summary = _run("lost-souls-warehouse-raid", tmp_path, battles=40)
    if kind == "missing":  # a folder from before attacks were counted
        (out / "attacks.csv").unlink()
    else:
        summary["source"] = str(tmp_path / "gone.yaml")
        (out / "summary.json").write_text(json.dumps(summary))
    render_report(out)
    page = (out / "report.html").read_text(encoding="utf-8")
    if kind == "missing":
        assert "Exact odds of one attack" not in page
    else:
        assert "the scenario file could not be read again" in page


def test_bare_hands_get_a_reason():
    scenario = load_scenario(ROOT / "scenarios" / "sr-bar-brawl.yaml")
    pair = {
        "attacker": "Mountain",
        "attacker_side": "the Armadillo",
        "target": "Knife ganger 1",
        "target_side": "Ancients",
        "weapon": "unarmed",
        "weapon_kind": "unarmed",
        "shots": 1,
        "attacks": 3,
    }
    (row,) = exact_attack_rows(scenario, [pair], None)
    assert row["reason"].startswith("bare hands")
