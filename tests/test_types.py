"""mypy holds the package to its annotations, the rule systems' plug-in contract included.

The settings live in pyproject.toml (``[tool.mypy]``); ``python -m mypy`` from the repository
root checks the whole package with them, and every module must pass: any error anywhere fails
``test_the_package_type_checks``.
"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[1]

# What must type-check: once a list of clean modules, now the whole package.
WHOLE_PACKAGE = ("combatsim/",)
CLEAN = WHOLE_PACKAGE


def _mypy(*args: str, cache: Path) -> subprocess.CompletedProcess[str]:
    """``python -m mypy`` from the repository root, with the project's settings; the cache in
    a temporary folder, so a test run leaves nothing in the checkout."""
    command = [sys.executable, "-m", "mypy", "--cache-dir", str(cache), *args]
    return subprocess.run(command, cwd=ROOT, capture_output=True, text=True, timeout=600)


def test_the_package_type_checks(tmp_path):
    result = _mypy(cache=tmp_path / "cache")
    output = result.stdout + result.stderr
    assert "checked" in output or "Success" in output, output  # it read the package
    assert not re.search(r"^pyproject\.toml:", output, re.MULTILINE), output  # config faults
    checked = re.search(r"in (\d+) source files", output)
    modules = list((ROOT / "combatsim").rglob("*.py"))
    assert checked and int(checked[1]) == len(modules), output  # all of it, CLEAN included
    assert CLEAN == WHOLE_PACKAGE and result.returncode == 0, output


def test_the_checker_holds_code_to_the_models(tmp_path):
    # The settings are live: a model built with a field it does not have (the pydantic
    # plugin) and a distribution's outcomes used as the wrong type (Dist is generic) are
    # both reported, so a clean result above means something.
    probe = tmp_path / "probe.py"
    probe.write_text(
        "from combatsim.dice.exact import Dist\n"
        "from combatsim.rules.sr2097.models import RangeTN\n"
        "RangeTN(shrot=15)\n"
        "name: str = Dist.point(3).sorted_items()[0][0]\n",
        encoding="utf-8",
    )
    result = _mypy(str(probe), cache=tmp_path / "cache")
    mine = [line for line in result.stdout.splitlines() if line.startswith(str(probe))]
    assert any('Unexpected keyword argument "shrot"' in line for line in mine), result.stdout
    assert any("[assignment]" in line for line in mine), result.stdout


def test_the_checker_holds_a_rule_system_to_the_contract(tmp_path):
    # A new system is checked against ``rules/base.py``: a method that answers the wrong type
    # and an option its ``Options`` model does not have are both reported (``RuleSystem`` is
    # generic in the system's models, so ``self.options`` is the system's own).
    probe = tmp_path / "probe_system.py"
    probe.write_text(
        "from combatsim.rules.base import Combatant, RuleSystem\n"
        "from combatsim.rules.sr2097.models import Armor, Options, Sheet\n"
        "class Broken(RuleSystem[Options, Sheet, Armor]):\n"
        "    def status(self, fighter: Combatant) -> int:\n"
        "        return int(self.options.no_such_option)\n",
        encoding="utf-8",
    )
    result = _mypy(str(probe), cache=tmp_path / "cache")
    mine = [line for line in result.stdout.splitlines() if line.startswith(str(probe))]
    assert any("[override]" in line for line in mine), result.stdout
    assert any('no attribute "no_such_option"' in line for line in mine), result.stdout
