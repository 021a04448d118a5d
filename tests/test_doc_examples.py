"""Every ```python example in README.md and docs/*.md runs verbatim.

The blocks of one page run in order in one namespace (a later block may use what an earlier
one defined), from the repository root, as a reader would paste them. A page added to docs/
is picked up without touching this file. A block that is not meant to run is written with
another info string (```pycon, ```text).
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("**/*.md"))]
BLOCK = re.compile(r"^```python[ \t]*\n(.*?)^```[ \t]*$", re.S | re.M)


def python_blocks(text: str) -> list[str]:
    return BLOCK.findall(text)


def test_blocks_are_found_only_under_the_python_info_string():
    text = "x\n```python\na = 1\n```\n```pycon\n>>> b\n```\n```python\nb = a + 1\n```\n"
    assert python_blocks(text) == ["a = 1\n", "b = a + 1\n"]


def test_the_readme_and_the_api_page_have_examples():
    assert python_blocks((ROOT / "README.md").read_text(encoding="utf-8"))
    assert python_blocks((ROOT / "docs" / "api.md").read_text(encoding="utf-8"))


PAGES_WITH_CODE = [p for p in PAGES if python_blocks(p.read_text(encoding="utf-8"))]


@pytest.mark.slow
@pytest.mark.parametrize("page", PAGES_WITH_CODE, ids=lambda p: str(p.relative_to(ROOT)))
def test_every_python_example_runs_verbatim(page, monkeypatch, capsys):
    monkeypatch.chdir(ROOT)
    namespace: dict = {"__name__": "__main__"}
    for k, block in enumerate(python_blocks(page.read_text(encoding="utf-8"))):
        code = compile(block, f"{page.name} python block {k + 1}", "exec")
        exec(code, namespace)  # noqa: S102 - the documentation's own examples
    capsys.readouterr()
