"""mypy holds the package to its annotations, the rule systems' plug-in contract included.

The settings live in pyproject.toml (``[tool.mypy]``); ``python -m mypy`` from the repository
root checks the whole package with them. Not every module is clean yet: ``CLEAN`` lists the
ones that are and must stay so. Widen it as modules are cleaned; once it is ``("combatsim/",)``
the whole package must pass (mypy's exit status 0).
"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[1]

# The modules that must type-check: a path ending in "/" is a folder (every module under it).
CLEAN = (
    "combatsim/__init__.py",
    "combatsim/api.py",
    "combatsim/cli.py",
    "combatsim/commands/__init__.py",
    "combatsim/commands/balance.py",
    "combatsim/commands/compare.py",
    "combatsim/commands/explain.py",
    "combatsim/commands/listing.py",
    "combatsim/commands/odds.py",
    "combatsim/commands/report.py",
    "combatsim/commands/run.py",
    "combatsim/commands/schema.py",
    "combatsim/commands/sweep.py",
    "combatsim/commands/validate.py",
    "combatsim/dice/",
    "combatsim/entry.py",
    "combatsim/errors.py",
    "combatsim/folder.py",
    "combatsim/limits.py",
    "combatsim/metrics.py",
    "combatsim/names.py",
    "combatsim/odds.py",
    "combatsim/odds_plots.py",
    "combatsim/output.py",
    "combatsim/progress.py",
    "combatsim/report/",
    "combatsim/rules/__init__.py",
    "combatsim/rules/base.py",
    "combatsim/rules/fourd8/__init__.py",
    "combatsim/rules/fourd8/models.py",
    "combatsim/rules/fourd8/odds.py",
    "combatsim/rules/fourd8/odds_tables.py",
    "combatsim/rules/lost_souls/__init__.py",
    "combatsim/rules/lost_souls/models.py",
    "combatsim/rules/lost_souls/odds.py",
    "combatsim/rules/lost_souls/odds_tables.py",
    "combatsim/rules/registry.py",
    "combatsim/rules/shadowrun/__init__.py",
    "combatsim/rules/shadowrun/models.py",
    "combatsim/rules/shadowrun/odds.py",
    "combatsim/rules/shadowrun/odds_tables.py",
    "combatsim/rules/sr2097/__init__.py",
    "combatsim/rules/sr2097/models.py",
    "combatsim/rules/sr2097/odds.py",
    "combatsim/rules/sr2097/odds_tables.py",
    "combatsim/run/",
    "combatsim/safeyaml.py",
    "combatsim/scenario/",
    "combatsim/stats.py",
    "combatsim/sweeps/",
    "combatsim/tactics/spec.py",
)
WHOLE_PACKAGE = ("combatsim/",)

_ERROR = re.compile(r"^(?P<path>[^:\s]+):(?:\d+:)?(?:\d+:)? error: ", re.MULTILINE)


def _mypy(*args: str, cache: Path) -> subprocess.CompletedProcess[str]:
    """``python -m mypy`` from the repository root, with the project's settings; the cache in
    a temporary folder, so a test run leaves nothing in the checkout."""
    command = [sys.executable, "-m", "mypy", "--cache-dir", str(cache), *args]
    return subprocess.run(command, cwd=ROOT, capture_output=True, text=True, timeout=600)


def _is_clean_module(path: str) -> bool:
    return any(path.startswith(c) if c.endswith("/") else path == c for c in CLEAN)


def test_every_clean_entry_names_a_module():
    # A renamed or moved module would otherwise drop out of the check unnoticed.
    for entry in CLEAN:
        target = ROOT / entry
        if entry.endswith("/"):
            assert any(target.rglob("*.py")), f"{entry} holds no module"
        else:
            assert target.is_file() and target.suffix == ".py", f"{entry} is not a module"


def test_clean_modules_type_check(tmp_path):
    result = _mypy(cache=tmp_path / "cache")
    output = result.stdout + result.stderr
    assert result.returncode in (0, 1), f"mypy did not run to the end:\n{output}"
    assert "checked" in output or "Success" in output, output  # it read the package
    assert not re.search(r"^pyproject\.toml:", output, re.MULTILINE), output  # config faults
    if CLEAN == WHOLE_PACKAGE:
        assert result.returncode == 0, output
        return
    errors = [
        line
        for line in output.splitlines()
        if (m := _ERROR.match(line)) and _is_clean_module(m["path"])
    ]
    assert not errors, "mypy errors in modules listed as clean:\n" + "\n".join(errors)


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
