"""The README and docs/ stay true: the scenario example validates, the quick start's command
exists, and every relative link points at a file that is there."""

import re
from pathlib import Path

from combatsim.cli import build_parser
from combatsim.scenario import build_scenario

ROOT = Path(__file__).resolve().parents[1]
README = (ROOT / "README.md").read_text(encoding="utf-8")
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]


def test_scenario_format_example_validates():
    import yaml

    text = (ROOT / "docs" / "scenario-format.md").read_text(encoding="utf-8")
    block = re.search(r"```yaml\n(.*?)```", text, re.S).group(1)
    scenario = build_scenario(yaml.safe_load(block), "docs/scenario-format.md", ROOT / "scenarios")
    assert len(scenario.sides) == 2 and scenario.fighters


def quick_start() -> list[str]:
    """The quick start's two commands."""
    quick = README[README.index("## Quick start") :].split("```")[1]
    return quick.strip().splitlines()[1:3]


def test_quick_start_runs_a_shipped_scenario_in_a_virtual_environment():
    first = [step.split() for step in quick_start()[0].split("&&")]
    assert first[0] == ["python3", "-m", "venv", ".venv"]  # a bare pip install is refused
    assert first[1] == [".venv/bin/pip", "install", "."]
    run = first[2]
    assert run[:2] == [".venv/bin/combatsim", "run"] and (ROOT / run[2]).is_file()
    assert build_parser().parse_args(run[1:]).command == "run"


def test_ci_runs_the_quick_starts_test_command_verbatim():
    second = quick_start()[1]
    assert second.startswith("python3 -m venv .venv && ") and "pytest" in second
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8").splitlines()
    assert any(line.startswith(second + " ") for line in ci), second


def test_readme_is_a_front_door():
    """The README stays short; the reference lives in docs/."""
    assert len(README.splitlines()) <= 250


def test_relative_links_resolve():
    for page in PAGES:
        for target in re.findall(r"\]\(([^)#:]+)(?:#[^)]*)?\)", page.read_text(encoding="utf-8")):
            assert (page.parent / target).exists(), f"{page.name}: broken link {target}"
