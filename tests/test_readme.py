"""The README's examples stay true: its scenario example validates, its commands exist."""

import re
from pathlib import Path

from combatsim.cli import build_parser
from combatsim.scenario import build_scenario

ROOT = Path(__file__).resolve().parents[1]
README = (ROOT / "README.md").read_text(encoding="utf-8")


def test_readme_scenario_example_validates():
    import yaml

    scenarios = README[README.index("## Scenarios") :]
    block = re.search(r"```yaml\n(.*?)```", scenarios, re.S).group(1)
    scenario = build_scenario(yaml.safe_load(block), "README.md", ROOT / "scenarios")
    assert len(scenario.sides) == 2 and scenario.fighters


def test_quick_start_runs_a_shipped_scenario():
    quick = README[README.index("## Quick start") :].split("```")[1]
    first = quick.strip().splitlines()[1]
    run = first.split("&&")[1].split()
    assert run[:2] == ["combatsim", "run"] and (ROOT / run[2]).is_file()
    assert build_parser().parse_args(run[1:]).command == "run"
